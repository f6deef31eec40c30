//! Environment switches read by the tests and the examples, spelled the way CI systems set
//! them: `1` or `true` (any case) turns a switch on. One definition, used everywhere.
#![allow(dead_code)] // each test binary and example uses its own part

/// Whether a switch's value turns it on: `1` or `true`, ignoring case and surrounding space.
pub fn switch_is_on(value: Option<&str>) -> bool {
    value.is_some_and(|v| {
        let v = v.trim();
        v == "1" || v.eq_ignore_ascii_case("true")
    })
}

/// Whether environment variable `name` is on.
pub fn env_switch(name: &str) -> bool {
    switch_is_on(std::env::var(name).ok().as_deref())
}

/// Running under CI (`CI=1` or `CI=true`): tests that need `../shared` fail instead of skipping.
pub fn in_ci() -> bool {
    env_switch("CI")
}

/// `REQUIRE_GPU=1` (or `true`): a missing GPU adapter fails instead of skipping.
pub fn gpu_required() -> bool {
    env_switch("REQUIRE_GPU")
}

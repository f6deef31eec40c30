//! Helpers shared by the integration tests: where the third-party assets are, and the
//! tolerances every comparison uses (stated once, here).
#![allow(dead_code)]

use std::path::PathBuf;

/// Matrix tolerance: `|a - b| <= MATRIX_TOLERANCE * max(1, |b|)`.
pub const MATRIX_TOLERANCE: f32 = 1e-4;
/// Quaternion tolerance: `1 - |dot(a, b)| <= QUAT_TOLERANCE`.
pub const QUAT_TOLERANCE: f32 = 1e-5;
/// Exact operations (no approximation involved).
pub const EXACT_TOLERANCE: f32 = 1e-5;
/// How far outside a GPU AABB a CPU-skinned vertex may lie.
pub const AABB_TOLERANCE: f32 = 1e-3;
/// f32 rounding added to a derived quantization bound (matrix products over positions of about a
/// metre, each rounding at 6e-8 relative).
pub const QUANTIZATION_SLACK: f32 = 1e-5;

/// How far a position may move when stored on a uniform grid of `bits`-bit integers spanning
/// `extent`: half a step, `extent / (2^bits - 1) / 2`, on each of the three axes, so
/// `sqrt(3) / 2` steps in length.
pub fn position_quantization_bound(extent: f32, bits: u32) -> f32 {
    let step = extent / ((1u64 << bits) - 1) as f32;
    0.5 * step * 3f32.sqrt()
}

/// How far one component of a unit quaternion may move through meshopt's quaternion filter at
/// `bits` bits, decoded into normalized 16-bit integers and renormalized. The three stored
/// components round to a grid of `1 / ((2^(bits-1) - 1) * sqrt(2))`, half a step `h` each; the
/// rebuilt largest component `w = sqrt(1 - Σc²)` moves by at most `Σ|c| h / w <= 3h`; the 16-bit
/// output rounds by `r = 1 / 65534`; renormalizing moves each component by at most the error's
/// length, `sqrt(3h² + 9h²) + 2r`. In all at most `7h + 3r`.
pub fn quaternion_filter_bound(bits: u32) -> f32 {
    let h = 0.5 / (((1u32 << (bits - 1)) - 1) as f32 * std::f32::consts::SQRT_2);
    let r = 1.0 / 65534.0;
    7.0 * h + 3.0 * r
}

/// Largest angle (radians) between a unit vector and its 8-bit octahedral encoding: the grid
/// step is 2/254 of the octahedron's half side; half a step on each of two axes, stretched by at
/// most π/2 onto the sphere, is `(π/2) * sqrt(2) / 254` ≈ 0.0087, and the 8-bit output components
/// (1/254 each, three of them) add at most `sqrt(3) / 254` ≈ 0.0068.
pub const OCTAHEDRAL_8BIT_ANGLE: f32 = 0.016;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` next to the repository, if present. Absent in a user's own clone: tests that
/// need it print why and skip, except under `CI=true`, where its absence fails the test.
pub fn shared() -> Option<PathBuf> {
    let dir = repo().join("../shared");
    if dir.join("gltf").is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but ../shared/gltf is missing: the conformance assets are required in CI");
    }
    eprintln!("skipping: ../shared/gltf not found (third-party conformance assets)");
    None
}

/// Every `.gltf`/`.glb` file in `../shared/gltf`, sorted.
pub fn shared_assets() -> Vec<PathBuf> {
    let Some(dir) = shared() else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("gltf"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb")))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "../shared/gltf holds no glTF files");
    files
}

/// Every generated asset in `assets/` (including `assets/synthetic/`), sorted.
pub fn repo_assets() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [repo().join("assets"), repo().join("assets/synthetic")] {
        if let Ok(entries) = std::fs::read_dir(dir) {
            files.extend(entries.map(|e| e.unwrap().path()).filter(|p| {
                matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb"))
            }));
        }
    }
    files.sort();
    files
}

/// Asserts two column-major matrices agree to `MATRIX_TOLERANCE`, printing both on failure.
pub fn assert_matrix_close(a: &[f32; 16], b: &[f32; 16], what: &str) {
    for i in 0..16 {
        let tol = MATRIX_TOLERANCE * b[i].abs().max(1.0);
        assert!(
            (a[i] - b[i]).abs() <= tol,
            "{what}: element {i} differs by {} (tolerance {tol})\n  got      {a:?}\n  expected {b:?}",
            (a[i] - b[i]).abs()
        );
    }
}

/// Asserts two quaternions (xyzw) describe the same rotation to `QUAT_TOLERANCE`.
pub fn assert_quat_close(a: glam::Quat, b: glam::Quat, what: &str) {
    let d = 1.0 - a.dot(b).abs();
    assert!(
        d <= QUAT_TOLERANCE,
        "{what}: 1 - |dot| = {d}\n  got      {a:?}\n  expected {b:?}"
    );
}

/// Asserts two vectors agree to `tol` per component.
pub fn assert_vec_close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    for i in 0..a.len() {
        assert!(
            (a[i] - b[i]).abs() <= tol * b[i].abs().max(1.0),
            "{what}: component {i} differs by {}\n  got      {a:?}\n  expected {b:?}",
            (a[i] - b[i]).abs()
        );
    }
}

/// A small fixed-seed generator (SplitMix64), so every run tries the same inputs.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A headless GPU context for a test file's shared device, or `None` after printing why when no
/// adapter exists. Under `REQUIRE_GPU=1` a missing adapter fails instead, so GPU tests cannot
/// pass by skipping.
pub fn headless_gpu(what: &str) -> Option<sinew::GpuContext> {
    let required = std::env::var("REQUIRE_GPU").is_ok_and(|v| v == "1");
    match sinew::GpuContext::new_headless() {
        Ok(context) => Some(context),
        Err(e) => {
            assert!(!required, "REQUIRE_GPU=1 but no GPU adapter: {e}");
            eprintln!("skipping {what}: {e}");
            None
        }
    }
}

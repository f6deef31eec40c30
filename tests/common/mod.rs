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

/// Every input in the committed fuzz corpus of `target` (`tools/fuzz/corpus/<target>`: seeds
/// and inputs that once crashed), as (file name, bytes), sorted by name.
pub fn fuzz_corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = repo().join("tools/fuzz/corpus").join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    inputs.sort();
    inputs
}

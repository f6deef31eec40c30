//! Rigs that several test binaries pose, each imported and baked one way: the shipped
//! humanoid and the synthetic rigs of `assets/synthetic/`.
#![allow(dead_code)] // each test binary uses its own part

use std::path::Path;

use sinew::Rig;

/// Every rig baked from the asset at `path`.
pub fn rigs_of(path: &Path) -> Vec<Rig> {
    sinew::bake_rigs(&sinew::import_file(path).unwrap()).unwrap()
}

/// The first rig baked from the asset at `path` (relative to the repository root).
fn first_rig(path: &str) -> Rig {
    rigs_of(&super::repo().join(path)).remove(0)
}

/// Rig units per metre: glTF is in metres, but Fox is modelled in centimetres.
pub fn units_per_metre(path: &Path) -> f32 {
    if path.file_stem().is_some_and(|s| s == "Fox") {
        100.0
    } else {
        1.0
    }
}

/// The shipped default rig (committed, so always present).
pub fn humanoid() -> Rig {
    first_rig("assets/humanoid.glb")
}

/// `synthetic/influences.glb`: 5 to 8 influences per vertex in mesh 0, the strongest 8 of 9 to
/// 12 in mesh 1.
pub fn influences_rig() -> Rig {
    first_rig("assets/synthetic/influences.glb")
}

/// `synthetic/morph.glb`: node 2 (`Column`) owns morph weights 0..3, animated by clips
/// `linear`, `step` and `cubic`; node 3 (`ColumnB`) weights 4..7, never animated.
pub fn morph_rig() -> Rig {
    first_rig("assets/synthetic/morph.glb")
}

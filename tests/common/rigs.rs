//! Rigs that several test binaries pose, each imported and baked one way: the shipped
//! humanoid and the synthetic rigs of `assets/synthetic/`.
#![allow(dead_code)] // each test binary uses its own part

use sinew::Rig;

/// The first rig baked from the asset at `path` (relative to the repository root).
fn first_rig(path: &str) -> Rig {
    let asset = sinew::import_file(super::repo().join(path)).unwrap();
    sinew::bake_rigs(&asset).unwrap().remove(0)
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

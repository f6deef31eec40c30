//! The GPU pipeline against the CPU evaluator (its oracle), on every real asset, blends with
//! masks and additive layers, synthetic extremes (a 256-joint chain, a 256-joint fan), random
//! crowds, AABBs against skinned vertices, dispatch counts, palette growth and the `pose` command.
//!
//! One device and one pipeline serve the whole binary: some drivers compile a pipeline only at its
//! first dispatch, and slowly. Without an adapter the tests print why and pass, except under
//! `REQUIRE_GPU=1`, where a missing adapter fails them. `WGPU_BACKEND` picks the backend.

#[path = "gpu/blends.rs"]
mod blends;
#[path = "gpu/bounds_and_dispatches.rs"]
mod bounds_and_dispatches;
#[path = "gpu/command_line.rs"]
mod command_line;
mod common;
#[path = "gpu/compressed.rs"]
mod compressed;
#[path = "gpu/compressed_twin.rs"]
mod compressed_twin;
#[path = "gpu/crowds.rs"]
mod crowds;
#[path = "gpu/errors_and_devices.rs"]
mod errors_and_devices;
#[path = "gpu/every_asset.rs"]
mod every_asset;
#[path = "gpu/fixtures.rs"]
mod fixtures;
#[path = "gpu/ik.rs"]
mod ik;
#[path = "gpu/inertialization.rs"]
mod inertialization;
#[path = "gpu/input_ramps.rs"]
mod input_ramps;
#[path = "gpu/lod.rs"]
mod lod;
#[path = "gpu/morph_weights.rs"]
mod morph_weights;
#[path = "gpu/motion_vectors.rs"]
mod motion_vectors;
#[path = "gpu/oracle.rs"]
mod oracle;
#[path = "gpu/palette.rs"]
mod palette;
#[path = "gpu/ramped_clocks.rs"]
mod ramped_clocks;
#[path = "gpu/resident_records.rs"]
mod resident_records;
#[path = "gpu/retarget.rs"]
mod retarget;
#[path = "gpu/root_motion.rs"]
mod root_motion;
#[path = "gpu/root_motion_z_up.rs"]
mod root_motion_z_up;
#[path = "gpu/windows.rs"]
mod windows;

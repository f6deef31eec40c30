//! Analytic tests of the CPU evaluator on small rigs built by hand. Every expected value is
//! worked out in the test itself (by hand, or from a closed form), never by the code under test;
//! and `CpuBackend`'s results on a shipped-rig crowd are the same bits for any thread count.

#[path = "cpu/additive_layers.rs"]
mod additive_layers;
#[path = "cpu/animated_bounds.rs"]
mod animated_bounds;
#[path = "cpu/bytes_read.rs"]
mod bytes_read;
mod common;
#[path = "cpu/compressed.rs"]
mod compressed;
#[path = "cpu/compressed_costs.rs"]
mod compressed_costs;
#[path = "cpu/compressed_decoder.rs"]
mod compressed_decoder;
#[path = "cpu/cpu_backend.rs"]
mod cpu_backend;
#[path = "cpu/eight_influences.rs"]
mod eight_influences;
#[path = "cpu/fixtures.rs"]
mod fixtures;
#[path = "cpu/ik.rs"]
mod ik;
#[path = "cpu/inertialization.rs"]
mod inertialization;
#[path = "cpu/lod.rs"]
mod lod;
#[path = "cpu/masks.rs"]
mod masks;
#[path = "cpu/morph_weights.rs"]
mod morph_weights;
#[path = "cpu/propagation.rs"]
mod propagation;
#[path = "cpu/retarget_map.rs"]
mod retarget_map;
#[path = "cpu/retargeting.rs"]
mod retargeting;
#[path = "cpu/rigid_parts.rs"]
mod rigid_parts;
#[path = "cpu/sampling.rs"]
mod sampling;
#[path = "cpu/shared_skins.rs"]
mod shared_skins;

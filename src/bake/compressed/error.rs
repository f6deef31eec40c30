//! ACL's error metric: virtual vertices at a fixed distance from each joint along its three
//! model-space axes, the displacement between the exact and the compressed pose.

/// The error budget clips are compressed to when none is asked for: 0.1 mm (metres).
pub const DEFAULT_ERROR_BUDGET: f32 = 1e-4;
/// The smallest budget accepted (metres); smaller ones are raised to it.
pub const MIN_ERROR_BUDGET: f32 = 1e-6;
/// The largest budget accepted (metres); larger ones are lowered to it.
pub const MAX_ERROR_BUDGET: f32 = 1.0;
/// The most any morph weight may differ from its exact value (absolute, weights are 0..1).
pub const WEIGHT_ERROR_BUDGET: f32 = 1e-3;
/// Distance of the virtual vertices from their joint (metres).
pub const VIRTUAL_VERTEX_DISTANCE: f32 = 0.03;

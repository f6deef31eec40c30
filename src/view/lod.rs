//! Crowd mode's LOD colours: the [`LodPolicy`] the viewer applies (the one `sinew crowd --lod`
//! uses, around the camera) and the level each character gets from it. On the GPU backend
//! the kernel applies the policy and its choice is read back from what it wrote (each box's
//! `min.w`, see [`crate::Aabb::min`]); on the CPU backends the level is the policy's own CPU
//! twin ([`crate::lod::evaluation`]), never a rule of the viewer's.

use glam::Vec3;

use crate::lod::evaluation;
use crate::render::Camera;
use crate::{InstanceRecord, LodPolicy};

/// Tints of LOD levels 0 to 3 (linear rgb).
pub const LOD_COLORS: [[f32; 3]; 4] = [
    [1.0, 1.0, 1.0],
    [0.45, 0.85, 0.45],
    [0.95, 0.8, 0.3],
    [0.95, 0.35, 0.3],
];

/// The world translation of `record`: where the policy measures its distance from.
fn position(record: &InstanceRecord) -> Vec3 {
    let r = &record.world.rows;
    Vec3::new(r[0][3], r[1][3], r[2][3])
}

/// The policy the viewer applies for `camera` to `records`: [`LodPolicy::banded`] around the
/// camera and its distance to the nearest character, every level updated at its own rate.
pub fn view_policy(camera: &Camera, records: &[InstanceRecord]) -> LodPolicy {
    let eye = camera.view.inverse().w_axis.truncate();
    let near = records
        .iter()
        .map(|r| (position(r) - eye).length())
        .fold(f32::INFINITY, f32::min);
    let near = if near.is_finite() {
        near.max(1e-3)
    } else {
        1.0
    };
    LodPolicy::banded(eye, near, 1, false)
}

/// The LOD level `policy` gives each of `records` (slot = index), as a CPU evaluator with
/// that policy would: the kernel's choice computed by its CPU twin.
pub fn policy_levels(policy: &LodPolicy, records: &[InstanceRecord]) -> Vec<usize> {
    (0u32..)
        .zip(records)
        .map(|(slot, r)| {
            // A frame that evaluates every slot reports the level whatever the update rate.
            evaluation(r.flags, slot, position(r), 0, false, true, Some(policy)).unwrap_or(0)
                as usize
        })
        .collect()
}

/// The LOD level the GPU kernel wrote into each box (`min.w`), clamped to the levels there are.
pub fn kernel_levels(bounds: &[crate::Aabb]) -> Vec<usize> {
    bounds
        .iter()
        .map(|b| (crate::lod::level_of_box(b) as usize).min(LOD_COLORS.len() - 1))
        .collect()
}

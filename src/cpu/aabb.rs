//! Stage 5, animated AABB: each joint's joint-space vertex bounds moved by its model matrix,
//! merged. Contains every skinned vertex (a skinned vertex is a convex combination of points
//! inside these boxes). Twin of `wgsl/aabb.wgsl`.

use glam::Affine3A;

use crate::math::Aabb;
use crate::math::transform_aabb;

/// Grows `out` by joint bounds `bounds` moved by `model` (nothing for an empty box).
#[inline]
pub fn grow_joint_aabb(out: &mut Aabb, bounds: &Aabb, model: &Affine3A) {
    if bounds.is_empty() {
        return;
    }
    let (lo, hi) = transform_aabb(model, bounds.min3(), bounds.max3());
    out.merge(&Aabb {
        min: lo.extend(0.0).to_array(),
        max: hi.extend(0.0).to_array(),
    });
}

/// The box around all joints' moved bounds; empty when no joint has vertices.
pub fn animated_aabb(joint_bounds: &[Aabb], models: &[Affine3A]) -> Aabb {
    let mut out = Aabb::EMPTY;
    for (b, m) in joint_bounds.iter().zip(models) {
        grow_joint_aabb(&mut out, b, m);
    }
    out
}

//! Stage 5, animated AABB: each joint's joint-space vertex bounds moved by its model matrix,
//! merged. Contains every skinned vertex (a skinned vertex is a convex combination of points
//! inside these boxes). Twin of `bounds` in `wgsl/evaluate.wgsl`.

use glam::Affine3A;

use crate::bake::Aabb;
use crate::math::transform_aabb;

/// The box around all joints' moved bounds; empty when no joint has vertices.
pub fn animated_aabb(joint_bounds: &[Aabb], models: &[Affine3A]) -> Aabb {
    let mut out = Aabb::EMPTY;
    for (b, m) in joint_bounds.iter().zip(models) {
        if b.is_empty() {
            continue;
        }
        let (lo, hi) = transform_aabb(m, b.min3(), b.max3());
        out.merge(&Aabb {
            min: lo.extend(0.0).to_array(),
            max: hi.extend(0.0).to_array(),
        });
    }
    out
}

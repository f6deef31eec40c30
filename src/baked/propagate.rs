//! Stage 3, propagate: local transforms → model matrices, parent before child.
//! Twin of `wgsl/propagate.wgsl`.

use glam::Affine3A;

use crate::baked::{NO_PARENT, Skeleton};
use crate::math::Sqt;

/// Model matrix of one joint: `parent_model × local`, or `world × local` for a root.
/// `models` must already hold the parent's model matrix.
#[inline]
pub fn propagate_joint(
    parent: u16,
    world: &Affine3A,
    models: &[Affine3A],
    local: &Sqt,
) -> Affine3A {
    let local = local.to_affine();
    if parent == NO_PARENT {
        *world * local
    } else {
        models[parent as usize] * local
    }
}

/// `models[j] = models[parent] × local[j]`, roots `world × local[j]`.
pub fn local_to_model(
    skeleton: &Skeleton,
    world: &Affine3A,
    locals: &[Sqt],
    models: &mut [Affine3A],
) {
    for (j, &parent) in skeleton.parents().iter().enumerate() {
        models[j] = propagate_joint(parent, world, models, &locals[j]);
    }
}

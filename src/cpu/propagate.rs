//! Stage 3, propagate: local transforms → model matrices, parent before child.
//! Twin of `propagate` in `wgsl/evaluate.wgsl`.

use glam::Affine3A;

use crate::bake::{NO_PARENT, Skeleton};
use crate::math::Sqt;

/// `models[j] = models[parent] × local[j]`, roots `world × local[j]`.
pub fn local_to_model(
    skeleton: &Skeleton,
    world: &Affine3A,
    locals: &[Sqt],
    models: &mut [Affine3A],
) {
    for (j, &parent) in skeleton.parents().iter().enumerate() {
        let local = locals[j].to_affine();
        models[j] = if parent == NO_PARENT {
            *world * local
        } else {
            models[parent as usize] * local
        };
    }
}

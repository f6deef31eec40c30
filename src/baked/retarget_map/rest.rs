//! A skeleton's rest pose in model space: each joint's world rotation and position.

use glam::{Quat, Vec3};

use crate::baked::Skeleton;
use crate::math::normalize_or_identity;

/// Rest world rotations (scales left out) and positions of every joint of a skeleton.
pub struct RestWorld {
    /// World rotation of each joint at rest.
    pub rotations: Vec<Quat>,
    /// Model-space position of each joint at rest.
    pub positions: Vec<Vec3>,
}

impl RestWorld {
    /// Composes the rest pose down the hierarchy (parents precede children).
    pub fn of(skeleton: &Skeleton) -> Self {
        let n = skeleton.joint_count();
        let mut world = Vec::with_capacity(n);
        let mut rotations = Vec::with_capacity(n);
        for (j, rest) in skeleton.rest_pose().iter().enumerate() {
            let local = rest.to_affine();
            let parent = skeleton.parents()[j] as usize;
            let (w, r) = match (world.get(parent), rotations.get(parent)) {
                (Some(pw), Some(pr)) => (*pw * local, normalize_or_identity(*pr * rest.rotation)),
                _ => (local, rest.rotation),
            };
            world.push(w);
            rotations.push(r);
        }
        Self {
            rotations,
            positions: world.iter().map(|w| Vec3::from(w.translation)).collect(),
        }
    }

    /// The rest world rotation of `joint`'s parent (identity for a root).
    pub fn parent_rotation(&self, skeleton: &Skeleton, joint: usize) -> Quat {
        let parent = skeleton.parents()[joint] as usize;
        self.rotations
            .get(parent)
            .copied()
            .unwrap_or(Quat::IDENTITY)
    }
}

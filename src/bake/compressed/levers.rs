//! How far each joint's channels move the vertices they carry: the levers the bit-rate search
//! ([`super::bit_rates`]) weighs a channel's value error by.

use glam::{Affine3A, Vec3};

/// Times sampled to estimate levers (distances from a joint to the vertices it moves).
const LEVER_SAMPLES: usize = 32;

/// How far each joint's channels move the vertices they carry, from the exact poses.
pub(super) struct Levers {
    /// Per joint: largest column length of its parent's model matrix (1 for a root).
    parent_scale: Vec<f32>,
    /// Per joint: the model-space origins and largest column lengths at the sampled times.
    origins: Vec<Vec<(Vec3, f32)>>,
    /// Per joint: the largest lever to any joint of its subtree.
    reach: Vec<f32>,
    /// Distance of the virtual vertices from their joint (rig units).
    vertex: f32,
}

impl Levers {
    /// The levers of `exact` (model matrices at `times` times, joint-major per time) on a
    /// skeleton of `parents` with `subtree` (per joint, the joints it moves), vertices
    /// `vertex` from their joint.
    pub(super) fn new(
        exact: &[Affine3A],
        parents: &[u16],
        times: usize,
        subtree: &[Vec<usize>],
        vertex: f32,
    ) -> Self {
        let joints = parents.len();
        let stride = times.div_ceil(LEVER_SAMPLES).max(1);
        let sampled: Vec<usize> = (0..times).step_by(stride).collect();
        let col = |m: &Affine3A| {
            m.matrix3
                .x_axis
                .length()
                .max(m.matrix3.y_axis.length())
                .max(m.matrix3.z_axis.length())
        };
        let origins: Vec<Vec<(Vec3, f32)>> = (0..joints)
            .map(|j| {
                sampled
                    .iter()
                    .map(|&t| {
                        let m = &exact[t * joints + j];
                        (Vec3::from(m.translation), col(m))
                    })
                    .collect()
            })
            .collect();
        let parent_scale = parents
            .iter()
            .map(|&p| match origins.get(p as usize) {
                Some(o) => o.iter().map(|o| o.1).fold(0.0, f32::max),
                None => 1.0,
            })
            .collect();
        let mut levers = Self {
            parent_scale,
            origins,
            reach: vec![0.0; joints],
            vertex,
        };
        levers.reach = (0..joints)
            .map(|j| {
                subtree[j]
                    .iter()
                    .map(|&d| levers.lever(j, d))
                    .fold(0.0, f32::max)
            })
            .collect();
        levers
    }

    /// The largest distance from joint `j`'s origin to a virtual vertex of joint `d`.
    fn lever(&self, j: usize, d: usize) -> f32 {
        self.origins[j]
            .iter()
            .zip(&self.origins[d])
            .map(|(a, b)| (b.0 - a.0).length() + self.vertex)
            .fold(0.0, f32::max)
    }

    /// Vertex displacement per unit of value error of channel `k` (of joint `j`) over the
    /// subtree it moves.
    pub(super) fn sensitivity(&self, k: usize, j: usize) -> f32 {
        match k % 3 {
            0 => self.parent_scale[j],
            _ => self.reach[j],
        }
        .max(1e-6)
    }

    /// Vertex displacement per unit of value error of channel `k` at joint `w`'s vertices.
    pub(super) fn lever_to(&self, k: usize, w: usize) -> f32 {
        let j = k / 3;
        match k % 3 {
            0 => self.parent_scale[j],
            _ => self.lever(j, w),
        }
    }
}

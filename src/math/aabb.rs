//! An axis-aligned box, the bounds every stage and pass shares.

use glam::{Vec3, Vec3A};

/// An axis-aligned box. Empty when `min > max`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Aabb {
    /// Minimum corner. `w`: in boxes the GPU evaluator writes, the joint LOD level it last
    /// evaluated the instance at (the one its [`crate::LodPolicy`] chose), else 0.
    pub min: [f32; 4],
    /// Maximum corner. `w`: in the GPU evaluator's boxes, 1.0 when the renderer's last culling
    /// left the instance out of view, else 0.
    pub max: [f32; 4],
}

impl Aabb {
    /// The box containing nothing.
    pub const EMPTY: Self = Self {
        min: [f32::INFINITY, f32::INFINITY, f32::INFINITY, 0.0],
        max: [f32::NEG_INFINITY, f32::NEG_INFINITY, f32::NEG_INFINITY, 0.0],
    };

    /// Whether the box contains no point.
    pub fn is_empty(&self) -> bool {
        self.min[0] > self.max[0]
    }

    /// Grows the box to contain `p`.
    pub fn grow(&mut self, p: Vec3) {
        for i in 0..3 {
            self.min[i] = self.min[i].min(p[i]);
            self.max[i] = self.max[i].max(p[i]);
        }
    }

    /// Grows the box to contain `other`.
    pub fn merge(&mut self, other: &Aabb) {
        for i in 0..3 {
            self.min[i] = self.min[i].min(other.min[i]);
            self.max[i] = self.max[i].max(other.max[i]);
        }
    }

    /// Minimum corner.
    pub fn min3(&self) -> Vec3A {
        Vec3A::new(self.min[0], self.min[1], self.min[2])
    }

    /// Maximum corner.
    pub fn max3(&self) -> Vec3A {
        Vec3A::new(self.max[0], self.max[1], self.max[2])
    }

    /// Whether `p` lies inside, allowing `tolerance` outside each face.
    pub fn contains(&self, p: Vec3, tolerance: f32) -> bool {
        (0..3).all(|i| p[i] >= self.min[i] - tolerance && p[i] <= self.max[i] + tolerance)
    }
}

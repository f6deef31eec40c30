//! Skinned vertex streams with joint indices into the skeleton, plus the per-joint bounds the
//! animated AABB is computed from.

use glam::{Vec3, Vec3A};

use super::Skeleton;
use crate::import::RawMesh;

/// An axis-aligned box. Empty when `min > max`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Aabb {
    /// Minimum corner (`w` unused).
    pub min: [f32; 4],
    /// Maximum corner (`w` unused).
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

/// One skinned primitive ready to draw. Joint indices refer to the rig's skeleton (not the glTF
/// skin's joint order).
#[derive(Clone, Debug, PartialEq)]
pub struct SkinnedMesh {
    /// The mesh's name.
    pub name: String,
    /// Bind-space positions.
    pub positions: Vec<[f32; 3]>,
    /// Bind-space normals.
    pub normals: Vec<[f32; 3]>,
    /// First texture coordinate set.
    pub uvs: Vec<[f32; 2]>,
    /// Tangents, when the source had them.
    pub tangents: Option<Vec<[f32; 4]>>,
    /// Four skeleton joint indices per vertex.
    pub joints: Vec<[u16; 4]>,
    /// Four weights per vertex, summing to one.
    pub weights: Vec<[f32; 4]>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Bounds of the bind-pose positions.
    pub bind_aabb: Aabb,
    /// Per skeleton joint: bounds, in that joint's space (inverse bind × position), of the
    /// vertices it influences (under any morph weights in `[0, 1]`). Empty for joints that
    /// influence nothing.
    pub joint_bounds: Vec<Aabb>,
    /// Morph targets (empty when the mesh has none).
    pub morph: super::MeshMorph,
}

impl SkinnedMesh {
    /// Bakes a raw primitive. `skin_joints[k]` is the skeleton joint of skin joint `k`.
    pub fn build(raw: &RawMesh, skeleton: &Skeleton, skin_joints: &[u16]) -> Self {
        let joints: Vec<[u16; 4]> = raw
            .joints
            .iter()
            .map(|j| j.map(|k| skin_joints[k as usize]))
            .collect();
        let mut bind_aabb = Aabb::EMPTY;
        let mut joint_bounds = vec![Aabb::EMPTY; skeleton.joint_count()];
        for (v, p) in raw.positions.iter().enumerate() {
            let p = Vec3::from(*p);
            bind_aabb.grow(p);
            for (&j, &w) in joints[v].iter().zip(&raw.weights[v]) {
                if w > 0.0 {
                    let local = skeleton.inverse_binds()[j as usize].transform_point3(p);
                    joint_bounds[j as usize].grow(local);
                }
            }
        }
        Self {
            name: raw.name.clone(),
            positions: raw.positions.clone(),
            normals: raw.normals.clone(),
            uvs: raw.uvs.clone(),
            tangents: raw.tangents.clone(),
            joints,
            weights: raw.weights.clone(),
            indices: raw.indices.clone(),
            bind_aabb,
            joint_bounds,
            morph: super::MeshMorph::default(),
        }
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }
}

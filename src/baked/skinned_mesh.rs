//! Skinned vertex streams with joint indices into the skeleton, plus the per-joint bounds the
//! animated AABB is computed from.

use std::sync::Arc;

use super::{Material, MeshMorph};
use crate::math::Aabb;

/// Joint influences kept per vertex: `JOINTS_0`/`WEIGHTS_0` and `JOINTS_1`/`WEIGHTS_1`. A vertex
/// with more nonzero influences (further sets) keeps its strongest ones, renormalized, and is
/// counted in [`SkinnedMesh::influences_cut`].
pub const MAX_INFLUENCES: usize = 8;

/// One skinned primitive ready to draw. Joint indices refer to the rig's skeleton (not the glTF
/// skin's joint order).
#[derive(Clone, Debug, PartialEq)]
pub struct SkinnedMesh {
    /// The mesh's name.
    pub name: String,
    /// The glTF node that instantiates it (`None` when loaded from a file baked before
    /// `.sinew` version 3, which did not record it).
    pub node: Option<u32>,
    /// The glTF skin deforming it, or `None` for a rigid mesh, which follows its node.
    pub skin: Option<u32>,
    /// Bind-space positions.
    pub positions: Vec<[f32; 3]>,
    /// Bind-space normals.
    pub normals: Vec<[f32; 3]>,
    /// First texture coordinate set.
    pub uvs: Vec<[f32; 2]>,
    /// Tangents, when the source had them.
    pub tangents: Option<Vec<[f32; 4]>>,
    /// Second texture coordinate set, when the source had one.
    pub uvs1: Option<Vec<[f32; 2]>>,
    /// Vertex colours (linear RGBA), when the source had them.
    pub colors: Option<Vec<[f32; 4]>>,
    /// The material the file gives the mesh (`None`: none, or loaded from a `.sinew` file
    /// older than version 6: such meshes draw in their batch's mesh colours).
    pub material: Option<Arc<Material>>,
    /// Up to [`MAX_INFLUENCES`] skeleton joint indices per vertex, strongest first (slots
    /// without weight 0).
    pub joints: Vec<[u16; MAX_INFLUENCES]>,
    /// Their weights, summing to one (unused slots 0).
    pub weights: Vec<[f32; MAX_INFLUENCES]>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Bounds of the bind-pose positions.
    pub bind_aabb: Aabb,
    /// Per skeleton joint: bounds, in that joint's space (inverse bind × position), of the
    /// vertices it influences (under any morph weights in `[0, 1]`). Empty for joints that
    /// influence nothing.
    pub joint_bounds: Vec<Aabb>,
    /// Morph targets (empty when the mesh has none).
    pub morph: MeshMorph,
    /// Vertices whose source had more than [`MAX_INFLUENCES`] nonzero influences, cut to the
    /// strongest ones on import (see [`crate::import::RawMesh::influences_cut`]).
    pub influences_cut: usize,
}

impl SkinnedMesh {
    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }
}

//! Bevy meshes from sinew's baked [`SkinnedMesh`]es: bind-space positions, normals, both UV
//! sets, vertex colours and tangents in Bevy's attributes, and the up to eight influences (skeleton joint indices, so one
//! palette block per character serves every mesh of its rig) in four attributes of their own.
//!
//! The influences do not use Bevy's `JOINT_INDEX`/`JOINT_WEIGHT`: those would select Bevy's own
//! skinning (its joint entities and skin uniform). [`crate::SinewMaterial`] adds these four to
//! the vertex layout at shader locations 10-13.

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{
    Indices, MeshVertexAttribute, PrimitiveTopology, VertexAttributeValues, VertexFormat,
};
use bevy::prelude::*;
use sinew::SkinnedMesh;

/// Influences 1-4: skeleton joint indices.
pub const ATTRIBUTE_JOINTS_0: MeshVertexAttribute =
    MeshVertexAttribute::new("SinewJoints0", 0x5e3e_0001, VertexFormat::Uint16x4);
/// Influences 1-4: weights.
pub const ATTRIBUTE_WEIGHTS_0: MeshVertexAttribute =
    MeshVertexAttribute::new("SinewWeights0", 0x5e3e_0002, VertexFormat::Float32x4);
/// Influences 5-8: skeleton joint indices (unused slots weigh 0).
pub const ATTRIBUTE_JOINTS_1: MeshVertexAttribute =
    MeshVertexAttribute::new("SinewJoints1", 0x5e3e_0003, VertexFormat::Uint16x4);
/// Influences 5-8: weights.
pub const ATTRIBUTE_WEIGHTS_1: MeshVertexAttribute =
    MeshVertexAttribute::new("SinewWeights1", 0x5e3e_0004, VertexFormat::Float32x4);

/// The Bevy mesh of a baked sinew mesh (render world only: the CPU copy is dropped once
/// uploaded).
pub fn skinned_mesh(source: &SkinnedMesh) -> Mesh {
    let mut mesh = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::RENDER_WORLD,
    );
    mesh.insert_attribute(Mesh::ATTRIBUTE_POSITION, source.positions.clone());
    mesh.insert_attribute(Mesh::ATTRIBUTE_NORMAL, source.normals.clone());
    if source.uvs.len() == source.positions.len() {
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_0, source.uvs.clone());
    }
    let n = source.positions.len();
    if let Some(uvs1) = source.uvs1.as_ref().filter(|v| v.len() == n) {
        mesh.insert_attribute(Mesh::ATTRIBUTE_UV_1, uvs1.clone());
    }
    if let Some(colors) = source.colors.as_ref().filter(|v| v.len() == n) {
        mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, colors.clone());
    }
    if let Some(tangents) = source
        .tangents
        .as_ref()
        .filter(|t| t.len() == source.positions.len())
    {
        mesh.insert_attribute(Mesh::ATTRIBUTE_TANGENT, tangents.clone());
    }
    mesh.insert_attribute(
        ATTRIBUTE_JOINTS_0,
        VertexAttributeValues::Uint16x4(four_of(&source.joints, 0)),
    );
    mesh.insert_attribute(ATTRIBUTE_WEIGHTS_0, four_of(&source.weights, 0));
    mesh.insert_attribute(
        ATTRIBUTE_JOINTS_1,
        VertexAttributeValues::Uint16x4(four_of(&source.joints, 4)),
    );
    mesh.insert_attribute(ATTRIBUTE_WEIGHTS_1, four_of(&source.weights, 4));
    mesh.insert_indices(Indices::U32(source.indices.clone()));
    mesh
}

/// Slots `first..first + 4` of each vertex's eight influences.
fn four_of<T: Copy>(influences: &[[T; 8]], first: usize) -> Vec<[T; 4]> {
    influences
        .iter()
        .map(|v| [v[first], v[first + 1], v[first + 2], v[first + 3]])
        .collect()
}

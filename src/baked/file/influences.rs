//! The influences section of a `.sinew` file (layout in `file.rs`): joints and weights 5-8 of a
//! mesh's vertices, and how many vertices were cut to eight influences on import. Written only
//! for a mesh with a nonzero weight past the fourth (or a cut vertex), so a mesh with four
//! influences encodes as in version 2; a file without it means four influences.

use super::container::{Section, SectionId, SectionKind, SectionTable};
use super::section::{SectionReader, SectionWriter, count};
use super::validate;
use crate::baked::{MAX_INFLUENCES, Skeleton, SkinnedMesh};
use crate::error::FormatErrorKind;

/// Influence slots the mesh section holds; the rest live in the influences section.
const IN_MESH_SECTION: usize = 4;

/// Influences 1-4 of every vertex, as the mesh section stores them.
pub(super) fn first_four(mesh: &SkinnedMesh) -> (Vec<[u16; 4]>, Vec<[f32; 4]>) {
    (
        mesh.joints.iter().map(head).collect(),
        mesh.weights.iter().map(head).collect(),
    )
}

fn head<T: Copy>(slots: &[T; MAX_INFLUENCES]) -> [T; 4] {
    std::array::from_fn(|k| slots[k])
}

fn tail<T: Copy>(slots: &[T; MAX_INFLUENCES]) -> [T; 4] {
    std::array::from_fn(|k| slots[IN_MESH_SECTION + k])
}

/// Influences 1-4 as loaded from a mesh section, slots 5-8 zero.
pub(super) fn widen<T: Copy + Default>(four: Vec<[T; 4]>) -> Vec<[T; MAX_INFLUENCES]> {
    four.into_iter()
        .map(|f| std::array::from_fn(|k| f.get(k).copied().unwrap_or_default()))
        .collect()
}

/// The influences section of mesh `m` of rig `r`, when it has more than four influences (or
/// cut vertices).
pub(super) fn mesh_section(mesh: &SkinnedMesh, r: u32, m: u32) -> Option<Section> {
    let beyond_four = mesh
        .weights
        .iter()
        .any(|w| tail(w).iter().any(|&x| x != 0.0));
    if !beyond_four && mesh.influences_cut == 0 {
        return None;
    }
    let joints: Vec<[u16; 4]> = mesh.joints.iter().map(tail).collect();
    let weights: Vec<[f32; 4]> = mesh.weights.iter().map(tail).collect();
    let mut w = SectionWriter::default();
    w.u32(count(mesh.influences_cut));
    w.u32(count(joints.len()));
    w.u32(count(weights.len()));
    w.array(&joints);
    w.array(&weights);
    Some(Section {
        id: SectionId::of_mesh(SectionKind::MeshInfluences, r, m),
        body: w.finish(),
    })
}

/// Decodes the influences section of mesh `m` of rig `r` (none: four influences) into `mesh`,
/// whose influences 1-4 are loaded, and checks the mesh again.
pub(super) fn decode_mesh(
    table: &mut SectionTable<'_>,
    r: u32,
    m: u32,
    mesh: &mut SkinnedMesh,
    skeleton: &Skeleton,
) -> Result<(), FormatErrorKind> {
    let id = SectionId::of_mesh(SectionKind::MeshInfluences, r, m);
    let Some(body) = table.take_optional(id) else {
        return Ok(());
    };
    let mut rd = SectionReader::new(body, id);
    let cut = rd.u32("cut vertex count")?;
    let joint_count = rd.u32("joint count")?;
    let weight_count = rd.u32("weight count")?;
    let joints: Vec<[u16; 4]> = rd.array(joint_count, "joints 5-8")?;
    let weights: Vec<[f32; 4]> = rd.array(weight_count, "weights 5-8")?;
    rd.finish()?;
    let corrupt = |reason: String| FormatErrorKind::Corrupt {
        section: id.to_string(),
        reason,
    };
    let vertices = mesh.joints.len();
    if joints.len() != vertices || weights.len() != vertices {
        return Err(corrupt(format!(
            "{} joints and {} weights 5-8 for {vertices} vertices",
            joints.len(),
            weights.len()
        )));
    }
    if cut as usize > vertices {
        return Err(corrupt(format!(
            "{cut} cut vertices of {vertices} vertices"
        )));
    }
    for (v, (j, w)) in joints.iter().zip(&weights).enumerate() {
        mesh.joints[v][IN_MESH_SECTION..].copy_from_slice(j);
        mesh.weights[v][IN_MESH_SECTION..].copy_from_slice(w);
    }
    mesh.influences_cut = cut as usize;
    validate::mesh(mesh, skeleton).map_err(corrupt)
}

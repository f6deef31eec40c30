//! The surface section of a `.sinew` file (layout in `file.rs`, since version 6): a mesh's
//! material (an index into its rig's materials section), vertex colours and `TEXCOORD_1`.
//! Written only for a mesh with one of them; a file without it means none.

use std::sync::Arc;

use super::NO_INDEX;
use super::container::{Section, SectionId, SectionKind, SectionTable};
use super::materials::{FIRST_MATERIAL_VERSION, RigMaterials};
use super::section::{SectionReader, SectionWriter, count};
use crate::baked::{Material, SkinnedMesh};
use crate::error::FormatErrorKind;

/// Flag bit: the mesh has vertex colours.
const HAS_COLORS: u32 = 1;
/// Flag bit: the mesh has `TEXCOORD_1`.
const HAS_UVS1: u32 = 2;

/// The surface section of mesh `m` of rig `r`, when it has a material, colours or a second
/// UV set.
pub(super) fn mesh_section(
    mesh: &SkinnedMesh,
    materials: &RigMaterials,
    r: u32,
    m: u32,
) -> Option<Section> {
    if mesh.material.is_none() && mesh.colors.is_none() && mesh.uvs1.is_none() {
        return None;
    }
    let material = mesh
        .material
        .as_ref()
        .and_then(|m| materials.material_index(m))
        .map_or(NO_INDEX, count);
    let flags = if mesh.colors.is_some() { HAS_COLORS } else { 0 }
        | if mesh.uvs1.is_some() { HAS_UVS1 } else { 0 };
    let colors = mesh.colors.as_deref().unwrap_or_default();
    let uvs1 = mesh.uvs1.as_deref().unwrap_or_default();
    let mut w = SectionWriter::default();
    w.u32(material);
    w.u32(flags);
    w.u32(count(colors.len()));
    w.u32(count(uvs1.len()));
    w.array(colors);
    w.array(uvs1);
    let id = SectionId::of_mesh(SectionKind::MeshSurface, r, m);
    Some(Section {
        id,
        body: w.finish(),
    })
}

/// Decodes the surface section `id` (of the mesh `mesh`) into `mesh`, its material one of
/// `materials` (the rig's materials section).
pub(super) fn decode_mesh(
    table: &mut SectionTable<'_>,
    id: SectionId,
    mesh: &mut SkinnedMesh,
    materials: &[Arc<Material>],
) -> Result<(), FormatErrorKind> {
    let Some(body) = table.take_since(id, FIRST_MATERIAL_VERSION) else {
        return Ok(());
    };
    let mut rd = SectionReader::new(body, id);
    let material = rd.u32("material")?;
    let flags = rd.u32("flags")?;
    let color_count = rd.u32("colour count")?;
    let uv1_count = rd.u32("uv1 count")?;
    let colors: Vec<[f32; 4]> = rd.array(color_count, "colours")?;
    let uvs1: Vec<[f32; 2]> = rd.array(uv1_count, "uvs1")?;
    rd.finish()?;
    let corrupt = |reason| id.corrupt(reason);
    if flags & !(HAS_COLORS | HAS_UVS1) != 0 {
        return Err(corrupt(format!("unknown flags {flags:#x}")));
    }
    let vertices = mesh.positions.len();
    let stream = |has: bool, len: usize, what: &str| match (has, len) {
        (true, n) if n == vertices => Ok(true),
        (false, 0) => Ok(false),
        (has, n) => Err(corrupt(format!(
            "{n} {what} for {vertices} vertices (flag {has})"
        ))),
    };
    let has_colors = stream(flags & HAS_COLORS != 0, colors.len(), "colours")?;
    let has_uvs1 = stream(flags & HAS_UVS1 != 0, uvs1.len(), "uvs1")?;
    mesh.material = match material {
        NO_INDEX => None,
        i => Some(materials.get(i as usize).cloned().ok_or_else(|| {
            corrupt(format!(
                "material {i}, the rig has {} materials",
                materials.len()
            ))
        })?),
    };
    mesh.colors = has_colors.then_some(colors);
    mesh.uvs1 = has_uvs1.then_some(uvs1);
    Ok(())
}

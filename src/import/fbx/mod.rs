//! FBX (binary and ASCII) → raw animation data ([`RawAsset`]) through ufbx: the node forest
//! with ufbx's resolved local transforms, skin deformers, triangulated meshes split by material
//! with their materials (`materials.rs`) and blend shapes as morph targets (`blend_shapes.rs`),
//! and one clip per animation stack, converted to glTF's conventions (metres, Y up,
//! right-handed).

mod animations;
mod blend_shapes;
mod curves;
mod materials;
mod meshes;
mod scene;

pub use curves::{FBX_CURVE_ERROR, FBX_VIRTUAL_VERTEX, virtual_vertex_distances};
pub use scene::UNSCALED_SUFFIX;
mod skins;
mod uv_transform;

use std::path::Path;

use super::raw::RawAsset;
use crate::error::{ImportError, ImportErrorKind};

/// The first bytes of every binary FBX file.
const BINARY_MAGIC: &[u8] = b"Kaydara FBX Binary  \0";
/// How far into a text file the ASCII FBX header section is looked for.
const ASCII_LOOKAHEAD: usize = 64 * 1024;

/// Whether `bytes` look like an FBX file: the binary magic, or text that starts with the
/// `; FBX` comment line or has a `FBXHeaderExtension` section near its start (and is not glTF's
/// JSON or GLB).
pub fn is_fbx(bytes: &[u8]) -> bool {
    if bytes.starts_with(BINARY_MAGIC) {
        return true;
    }
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let text = &text[start..];
    if text.starts_with(b"; FBX") {
        return true;
    }
    // A glTF file is JSON (or GLB) and may quote any string.
    if text.starts_with(b"{") || text.starts_with(b"glTF") {
        return false;
    }
    let head = &text[..text.len().min(ASCII_LOOKAHEAD)];
    head.windows(b"FBXHeaderExtension".len())
        .any(|w| w == b"FBXHeaderExtension")
}

/// Imports an FBX file from memory; `name` labels errors; `base`, the FBX file's folder, is
/// where external textures are looked for (none: only embedded textures and absolute paths
/// load). A texture that cannot be found or decoded is dropped with a warning in its
/// material's [`Material::warnings`](crate::import::Material::warnings), never an error.
pub fn import_fbx(bytes: &[u8], name: &str, base: Option<&Path>) -> Result<RawAsset, ImportError> {
    let fail = |kind| ImportError::new(name, kind);
    let scene = load_scene(bytes).map_err(fail)?;
    let nodes = scene::read_nodes(&scene);
    let skins = skins::read_skins(&scene).map_err(fail)?;
    let mut materials = materials::Materials::new(base);
    let meshes = meshes::read_meshes(&scene, &mut materials).map_err(fail)?;
    let clips = animations::read_clips(&scene).map_err(fail)?;
    Ok(RawAsset {
        file: name.to_string(),
        nodes,
        skins,
        clips,
        meshes,
        morph_nodes: blend_shapes::morph_nodes(&scene).map_err(fail)?,
        extensions: Vec::new(),
    })
}

/// The ufbx scene the importer reads: the file parsed, converted to metres, Y up and
/// right-handed; geometric transforms and non-standard scale inheritance are folded into
/// geometry and local transforms (helper nodes where they cannot be), so that every node's world
/// matrix is its parent's times its local transform. Blender's materials are read as the PBR
/// values Blender wrote them from.
pub fn load_scene(bytes: &[u8]) -> Result<ufbx::SceneRoot, ImportErrorKind> {
    let opts = ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        geometry_transform_handling: ufbx::GeometryTransformHandling::ModifyGeometry,
        inherit_mode_handling: ufbx::InheritModeHandling::Compensate,
        generate_missing_normals: true,
        use_blender_pbr_material: true,
        file_format: ufbx::FileFormat::Fbx,
        no_format_from_extension: true,
        ..Default::default()
    };
    ufbx::load_memory(bytes, opts).map_err(|e| ImportErrorKind::Fbx(describe(&e)))
}

/// ufbx's error as one line: its kind and description.
fn describe(error: &ufbx::Error) -> String {
    let description: &str = &error.description;
    format!("{:?}: {description}", error.type_)
}

/// The name of an element, or `fallback` when the file gives none.
fn name_or(element: &ufbx::Element, fallback: impl FnOnce() -> String) -> String {
    if element.name.is_empty() {
        fallback()
    } else {
        element.name.to_string()
    }
}

/// A ufbx affine matrix as a glam matrix.
fn mat4(m: &ufbx::Matrix) -> glam::Mat4 {
    glam::Mat4::from_cols_array(&[
        m.m00 as f32,
        m.m10 as f32,
        m.m20 as f32,
        0.0,
        m.m01 as f32,
        m.m11 as f32,
        m.m21 as f32,
        0.0,
        m.m02 as f32,
        m.m12 as f32,
        m.m22 as f32,
        0.0,
        m.m03 as f32,
        m.m13 as f32,
        m.m23 as f32,
        1.0,
    ])
}

/// A ufbx vector as a glam vector.
fn vec3(v: ufbx::Vec3) -> glam::Vec3 {
    glam::Vec3::new(v.x as f32, v.y as f32, v.z as f32)
}

/// A ufbx quaternion as a glam quaternion.
fn quat(q: ufbx::Quat) -> glam::Quat {
    glam::Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
}

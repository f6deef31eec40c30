//! glTF 2.0 → raw animation data ([`RawAsset`]): node forest, skins, animations and skinned
//! meshes, validated once with typed errors. `.gltf` (external or data-URI buffers) and `.glb`,
//! including `KHR_mesh_quantization` attributes and `EXT_meshopt_compression` buffer views.

mod accessor;
mod accessor_rules;
mod animations;
mod document;
mod extensions;
mod mesh_rules;
mod meshes;
mod meshopt;
mod morph;
mod node_rules;
mod nodes;
pub mod raw;

use std::path::Path;

pub use extensions::{ExtensionHandling, ExtensionUse};
pub use meshes::MAX_INFLUENCES;
pub use raw::{
    Channel, Interpolation, RawAsset, RawClip, RawMesh, RawMorphNode, RawMorphTarget, RawNode,
    RawSkin, RawTrack, RawWeightTrack,
};

use crate::error::{ImportError, ImportErrorKind};

/// Imports a `.gltf` or `.glb` file from disk. External buffers resolve relative to its folder.
pub fn import_file(path: impl AsRef<Path>) -> Result<RawAsset, ImportError> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| ImportError::new(&file, ImportErrorKind::Io(e.to_string())))?;
    import_bytes(&bytes, &file, path.parent())
}

/// Imports glTF from memory. `name` labels errors; `base` resolves external buffer URIs (none:
/// only embedded and data-URI buffers load).
pub fn import_bytes(
    bytes: &[u8],
    name: &str,
    base: Option<&Path>,
) -> Result<RawAsset, ImportError> {
    let fail = |kind| ImportError::new(name, kind);
    let document::Loaded {
        document,
        buffers,
        extensions,
        ignored_channels,
    } = document::load(bytes, base).map_err(fail)?;
    accessor_rules::check_document(&document).map_err(fail)?;
    let quantized = extensions::uses(&extensions, extensions::MESH_QUANTIZATION);
    let nodes = nodes::read_nodes(&document).map_err(fail)?;
    node_rules::check_nodes(&document, &nodes).map_err(fail)?;
    let morph_nodes = morph::read_morph_nodes(&document).map_err(fail)?;
    let skins = nodes::read_skins(&document, &buffers, &nodes).map_err(fail)?;
    mesh_rules::check_meshes(&document, &buffers, quantized).map_err(fail)?;
    let clips =
        animations::read_animations(&document, &buffers, &ignored_channels).map_err(fail)?;
    let meshes = meshes::read_meshes(&document, &buffers, &skins, quantized).map_err(fail)?;
    Ok(RawAsset {
        file: name.to_string(),
        nodes,
        skins,
        clips,
        meshes,
        morph_nodes,
        extensions,
    })
}

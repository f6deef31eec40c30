//! glTF 2.0 and FBX → raw animation data ([`RawAsset`]): node forest, skins, animations and
//! skinned meshes, validated once with typed errors. `.gltf` (external or data-URI buffers) and
//! `.glb`, including `KHR_mesh_quantization` attributes and `EXT_meshopt_compression` buffer
//! views; FBX (binary or ASCII, through ufbx, see [`fbx`]). The format is recognised by content.
//! [`ImportSettings`] describe a file's unit and axes (`import_file_with`, `import_bytes_with`).

mod accessor;
mod accessor_rules;
mod animation_pointer;
mod animations;
mod correct;
mod document;
mod extensions;
pub mod fbx;
mod markers;
mod materials;
mod mesh_rules;
mod meshes;
mod meshopt;
mod morph;
mod node_rules;
mod nodes;
pub mod raw;
mod settings;

use std::path::Path;

pub use extensions::{ExtensionHandling, ExtensionUse};
pub use materials::{AlphaMode, Material, MaterialImage, Sampler, TextureRef, UvTransform, Wrap};
pub use meshes::MAX_INFLUENCES;
pub use raw::{
    Channel, ClipMarker, Interpolation, RawAsset, RawClip, RawMesh, RawMorphNode, RawMorphTarget,
    RawNode, RawSkin, RawTrack, RawWeightTrack,
};
pub use settings::{Axis, Correction, ImportSettings, SettingsError};

use crate::error::{ImportError, ImportErrorKind};

/// Imports a glTF (`.gltf`, `.glb`) or FBX file from disk, recognised by its content. External
/// glTF buffers resolve relative to its folder. A file named `.fbx` that is not FBX is an
/// [`ImportErrorKind::Fbx`] error.
pub fn import_file(path: impl AsRef<Path>) -> Result<RawAsset, ImportError> {
    import_file_with(path, &ImportSettings::default())
}

/// [`import_file`], reading the file with `settings` (its unit, axes and an extra root
/// transform). Invalid settings are an [`ImportErrorKind::Settings`] error.
pub fn import_file_with(
    path: impl AsRef<Path>,
    settings: &ImportSettings,
) -> Result<RawAsset, ImportError> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| ImportError::new(&file, ImportErrorKind::Io(e.to_string())))?;
    let named_fbx = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("fbx"));
    if named_fbx && !fbx::is_fbx(&bytes) {
        return Err(ImportError::new(
            &file,
            ImportErrorKind::Fbx(
                "named .fbx but has neither the binary FBX magic nor an ASCII FBX header".into(),
            ),
        ));
    }
    import_bytes_with(&bytes, &file, path.parent(), settings)
}

/// Imports glTF or FBX from memory, recognised by content (see [`fbx::is_fbx`]). `name` labels
/// errors; `base` resolves external glTF buffer and image URIs and FBX texture files (none:
/// only embedded and data-URI buffers load, and embedded FBX textures).
pub fn import_bytes(
    bytes: &[u8],
    name: &str,
    base: Option<&Path>,
) -> Result<RawAsset, ImportError> {
    import_bytes_with(bytes, name, base, &ImportSettings::default())
}

/// [`import_bytes`], reading the data with `settings`: every node's world matrix and every
/// skinned vertex becomes `correction × original` (see [`ImportSettings::correction`]). Invalid
/// settings are an [`ImportErrorKind::Settings`] error, reported before the data is read.
pub fn import_bytes_with(
    bytes: &[u8],
    name: &str,
    base: Option<&Path>,
    settings: &ImportSettings,
) -> Result<RawAsset, ImportError> {
    let correction = settings
        .correction()
        .map_err(|e| ImportError::new(name, ImportErrorKind::Settings(e)))?;
    let mut asset = import_plain(bytes, name, base)?;
    if !settings.is_identity() {
        correct::apply(&mut asset, &correction);
    }
    Ok(asset)
}

/// Imports glTF or FBX as the file describes itself.
fn import_plain(bytes: &[u8], name: &str, base: Option<&Path>) -> Result<RawAsset, ImportError> {
    if fbx::is_fbx(bytes) {
        return fbx::import_fbx(bytes, name, base);
    }
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
    let materials = materials::read_materials(&document, &buffers, base);
    let meshes =
        meshes::read_meshes(&document, &buffers, &skins, quantized, &materials).map_err(fail)?;
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

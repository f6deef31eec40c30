//! Bytes → validated glTF document and loaded buffers. Checks what the gltf crate would otherwise
//! panic on or let through (GLB header lengths, animation channel targets, the POSITION accessor
//! index, buffer URIs, zero-padded attribute names) before handing the data to it, and names the buffer in every buffer error.
//! Declared extensions are listed (and unsupported required ones refused) before validation;
//! meshopt-compressed buffer views are decoded after the buffers load.

use std::path::Path;

use gltf::Document;
use gltf::json;
use gltf::json::validation::{Checked, Validate};

use super::animation_pointer;
use super::extensions::{ExtensionUse, take_extensions};
use super::meshopt::{Fallback, decode_views, fallback_buffers};
use crate::error::ImportErrorKind;

/// A file's binary data: every buffer, and the decoded bytes of each compressed buffer view.
pub(crate) struct Buffers {
    /// Buffer contents in glTF index order (empty for a fallback buffer without data).
    pub buffers: Vec<gltf::buffer::Data>,
    /// Per buffer view: its decoded bytes when it is meshopt-compressed.
    pub decoded: Vec<Option<Vec<u8>>>,
}

/// A parsed, validated file with its data loaded.
pub(crate) struct Loaded {
    /// The glTF document.
    pub document: Document,
    /// Its buffers and decoded views.
    pub buffers: Buffers,
    /// The extensions it declares.
    pub extensions: Vec<ExtensionUse>,
    /// Per animation: how many channels were dropped for naming no target node.
    pub ignored_channels: Vec<usize>,
}

/// Size of the GLB file header and of a GLB chunk header.
const GLB_HEADER: usize = 12;
const CHUNK_HEADER: usize = 8;

/// Parses and validates `bytes` (`.gltf` JSON or `.glb`) and loads its buffers. External buffer
/// URIs resolve against `base`; without one, only embedded and data-URI buffers load.
pub(crate) fn load(bytes: &[u8], base: Option<&Path>) -> Result<Loaded, ImportErrorKind> {
    let bytes = check_glb(bytes)?;
    let Parsed {
        mut root,
        blob,
        ignored_channels,
        pointer_notes,
    } = parse(bytes)?;
    let mut extensions = take_extensions(&mut root)?;
    if let Some(pointer) = extensions
        .iter_mut()
        .find(|e| e.name == animation_pointer::ANIMATION_POINTER)
    {
        pointer.notes = pointer_notes;
    }
    check_gaps(&root)?;
    let document = Document::from_json(root).map_err(gltf_error)?;
    let buffers = load_buffers(&document, base, blob)?;
    let decoded = decode_views(&document, &buffers)?;
    Ok(Loaded {
        document,
        buffers: Buffers { buffers, decoded },
        extensions,
        ignored_channels,
    })
}

/// Splits a GLB into its JSON and BIN chunks (text glTF is all JSON), resolves
/// `KHR_animation_pointer` channels into core ones where sinew animates what they point at,
/// drops the animation channels that name no target node (glTF: such a channel should be
/// ignored; the pointers sinew does not animate are such channels), and deserializes the rest.
fn parse(bytes: &[u8]) -> Result<Parsed, ImportErrorKind> {
    let (text, blob) = if bytes.starts_with(b"glTF") {
        let glb = gltf::binary::Glb::from_slice(bytes).map_err(gltf_error)?;
        (glb.json.into_owned(), glb.bin.map(|b| b.into_owned()))
    } else {
        (bytes.to_vec(), None)
    };
    let mut value: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| invalid(e.to_string()))?;
    super::mesh_rules::check_attribute_names(&value)?;
    let pointer_notes = animation_pointer::resolve(&mut value)?;
    let ignored_channels = drop_channels_without_node(&mut value);
    let root = serde_json::from_value(value).map_err(|e| invalid(e.to_string()))?;
    Ok(Parsed {
        root,
        blob,
        ignored_channels,
        pointer_notes,
    })
}

/// The JSON document, the GLB binary chunk, the channels dropped per animation, and the notes
/// on `KHR_animation_pointer` channels.
struct Parsed {
    root: json::Root,
    blob: Option<Vec<u8>>,
    ignored_channels: Vec<usize>,
    pointer_notes: Vec<String>,
}

/// Removes every animation channel whose `target` has no `node`; returns how many per animation.
fn drop_channels_without_node(value: &mut serde_json::Value) -> Vec<usize> {
    let Some(animations) = value.get_mut("animations").and_then(|a| a.as_array_mut()) else {
        return Vec::new();
    };
    animations
        .iter_mut()
        .map(|animation| {
            let Some(channels) = animation.get_mut("channels").and_then(|c| c.as_array_mut())
            else {
                return 0;
            };
            let before = channels.len();
            channels.retain(|c| c.get("target").is_none_or(|t| t.get("node").is_some()));
            before - channels.len()
        })
        .collect()
}

fn invalid(reason: String) -> ImportErrorKind {
    ImportErrorKind::Gltf(reason)
}

fn gltf_error(error: gltf::Error) -> ImportErrorKind {
    match error {
        gltf::Error::Validation(errors) => invalid(
            errors
                .iter()
                .map(|(path, error)| format!("{path}: {error}"))
                .collect::<Vec<_>>()
                .join("; "),
        ),
        other => invalid(other.to_string()),
    }
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let word = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
}

/// Checks a GLB container's header and chunk lengths, returning the bytes its header declares
/// (trailing bytes are ignored). Text glTF passes through unchanged.
fn check_glb(bytes: &[u8]) -> Result<&[u8], ImportErrorKind> {
    if !bytes.starts_with(b"glTF") {
        return Ok(bytes);
    }
    let (Some(version), Some(length)) = (read_u32(bytes, 4), read_u32(bytes, 8)) else {
        return Err(invalid(format!(
            "GLB header is truncated: {} bytes, {GLB_HEADER} needed",
            bytes.len()
        )));
    };
    if version != 2 {
        return Err(invalid(format!(
            "GLB version {version} is not supported (only version 2)"
        )));
    }
    let length = length as usize;
    if length < GLB_HEADER + CHUNK_HEADER || length > bytes.len() {
        return Err(invalid(format!(
            "GLB header declares a length of {length} bytes, but the file has {} (and a GLB needs at least {})",
            bytes.len(),
            GLB_HEADER + CHUNK_HEADER
        )));
    }
    let bytes = &bytes[..length];
    let mut at = GLB_HEADER;
    for (index, name) in [(0, "JSON"), (1, "BIN")] {
        let remaining = bytes.len() - at;
        if remaining == 0 && index > 0 {
            break;
        }
        let (Some(chunk_length), Some(_)) = (read_u32(bytes, at), bytes.get(at + 4..at + 8)) else {
            return Err(invalid(format!(
                "GLB chunk {index} header is truncated: {remaining} bytes, {CHUNK_HEADER} needed"
            )));
        };
        let chunk_length = chunk_length as usize;
        let available = remaining - CHUNK_HEADER;
        if chunk_length > available {
            return Err(invalid(format!(
                "GLB {name} chunk declares {chunk_length} bytes, but only {available} follow its header"
            )));
        }
        at += CHUNK_HEADER + chunk_length;
    }
    Ok(bytes)
}

/// Validation the gltf crate skips (animation channel targets, which it later unwraps) or
/// performs by indexing without a bounds check (the POSITION accessor), reported like its own.
fn check_gaps(root: &json::Root) -> Result<(), ImportErrorKind> {
    let mut errors = Vec::new();
    let mut report = |path: &dyn Fn() -> json::Path, error: json::validation::Error| {
        errors.push(format!("{}: {error}", path()));
    };
    for (a, animation) in root.animations.iter().enumerate() {
        for (c, channel) in animation.channels.iter().enumerate() {
            channel.target.validate(
                root,
                || {
                    json::Path::new()
                        .field("animations")
                        .index(a)
                        .field("channels")
                        .index(c)
                        .field("target")
                },
                &mut report,
            );
        }
    }
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let position = primitive
                .attributes
                .get(&Checked::Valid(gltf::Semantic::Positions));
            if let Some(&index) = position
                && root.get(index).is_none()
            {
                report(
                    &|| {
                        json::Path::new()
                            .field("meshes")
                            .index(m)
                            .field("primitives")
                            .index(p)
                            .field("attributes")
                            .key("POSITION")
                    },
                    json::validation::Error::IndexOutOfBounds,
                );
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(invalid(errors.join("; ")))
    }
}

/// Whether a relative URI percent-decodes to UTF-8 (the gltf crate panics on one that does not).
fn percent_decodes_to_utf8(uri: &str) -> bool {
    let bytes = uri.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: Option<&u8>| b.and_then(|&b| (b as char).to_digit(16));
        match (bytes[i], hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((high * 16 + low) as u8);
                i += 3;
            }
            (b, _, _) => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    std::str::from_utf8(&decoded).is_ok()
}

/// Loads every buffer, each error naming its buffer. A meshopt fallback buffer is not loaded
/// when flagged, and may lack data when only compressed views refer to it.
fn load_buffers(
    document: &Document,
    base: Option<&Path>,
    mut blob: Option<Vec<u8>>,
) -> Result<Vec<gltf::buffer::Data>, ImportErrorKind> {
    let fallback = fallback_buffers(document)?;
    let mut buffers = Vec::with_capacity(document.buffers().len());
    for buffer in document.buffers() {
        let index = buffer.index();
        let fail = |reason: String| ImportErrorKind::Buffer {
            buffer: index,
            reason,
        };
        let source = buffer.source();
        let without_data = matches!(source, gltf::buffer::Source::Bin) && blob.is_none();
        match fallback[index] {
            Fallback::Flagged => {
                buffers.push(gltf::buffer::Data(Vec::new()));
                continue;
            }
            Fallback::Unflagged if without_data => {
                buffers.push(gltf::buffer::Data(Vec::new()));
                continue;
            }
            Fallback::Unflagged | Fallback::No => {}
        }
        if let gltf::buffer::Source::Uri(uri) = source
            && !uri.contains(':')
            && !percent_decodes_to_utf8(uri)
        {
            return Err(fail(format!(
                "URI {uri:?} does not percent-decode to UTF-8"
            )));
        }
        let data =
            gltf::buffer::Data::from_source_and_blob(source, base, &mut blob).map_err(|error| {
                fail(match (error, buffer.source()) {
                    (
                        gltf::Error::ExternalReferenceInSliceImport,
                        gltf::buffer::Source::Uri(uri),
                    ) => {
                        format!("external URI {uri:?} cannot be resolved without a base folder")
                    }
                    (gltf::Error::MissingBlob, _) => {
                        "refers to the GLB binary chunk, which the file does not have".into()
                    }
                    (error, gltf::buffer::Source::Uri(uri)) if !uri.starts_with("data:") => {
                        format!("cannot read {uri:?}: {error}")
                    }
                    (error, _) => error.to_string(),
                })
            })?;
        if data.len() < buffer.length() {
            return Err(fail(format!(
                "declares {} bytes but holds {}",
                buffer.length(),
                data.len()
            )));
        }
        buffers.push(data);
    }
    Ok(buffers)
}

//! `EXT_meshopt_compression`: buffer views whose bytes are stored compressed in another buffer
//! range. Each such view is checked against the extension's rules, then decoded with the
//! `meshopt` crate (attribute, triangle and index codecs, then the octahedral, quaternion or
//! exponential filter), so accessors read the decoded bytes as if the view held them. A fallback
//! buffer that only compressed views point into needs no data of its own.

use gltf::Document;
use serde::Deserialize;

use super::extensions::MESHOPT_COMPRESSION;
use crate::error::ImportErrorKind;

/// The most bytes one compressed view may decode to (256 MiB): the compressed stream does not
/// bound its own output, so a hostile `count` must not reach the allocator.
const MAX_DECODED_BYTES: usize = 1 << 28;

/// The largest element a compressed attribute stream may have, in bytes.
const MAX_ATTRIBUTE_STRIDE: usize = 256;

/// The bitstream a compressed view uses.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Mode {
    /// Vertex attribute codec (any byte layout).
    Attributes,
    /// Triangle-list index codec.
    Triangles,
    /// Index-sequence codec.
    Indices,
}

/// The transform applied after an attribute stream is decoded.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Filter {
    /// Bytes are used as decoded.
    #[default]
    None,
    /// Octahedral unit vectors (4 or 8 bytes).
    Octahedral,
    /// Max-component quaternions (8 bytes).
    Quaternion,
    /// Shared-exponent floats (4 bytes per component).
    Exponential,
}

/// The extension object of one buffer view.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Compression {
    buffer: usize,
    #[serde(default)]
    byte_offset: usize,
    byte_length: usize,
    byte_stride: usize,
    count: usize,
    mode: Mode,
    #[serde(default)]
    filter: Filter,
}

/// The buffer-level extension object (`{"fallback": true}`).
#[derive(Debug, Default, Deserialize)]
struct BufferFlag {
    #[serde(default)]
    fallback: bool,
}

/// How a buffer relates to compressed views.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// An ordinary buffer.
    No,
    /// Only compressed views point into it: it may hold no data.
    Unflagged,
    /// Marked `fallback`: it is never loaded.
    Flagged,
}

fn compression(view: &gltf::buffer::View<'_>) -> Result<Option<Compression>, ImportErrorKind> {
    let Some(value) = view.extension_value(MESHOPT_COMPRESSION) else {
        return Ok(None);
    };
    Compression::deserialize(value)
        .map(Some)
        .map_err(|e| ImportErrorKind::CompressedView {
            view: view.index(),
            reason: format!("invalid {MESHOPT_COMPRESSION} object: {e}"),
        })
}

fn buffer_flag(buffer: &gltf::Buffer<'_>) -> Result<bool, ImportErrorKind> {
    let Some(value) = buffer.extension_value(MESHOPT_COMPRESSION) else {
        return Ok(false);
    };
    BufferFlag::deserialize(value)
        .map(|f| f.fallback)
        .map_err(|e| ImportErrorKind::Buffer {
            buffer: buffer.index(),
            reason: format!("invalid {MESHOPT_COMPRESSION} object: {e}"),
        })
}

/// Classifies every buffer, and checks the extension's rule for flagged fallback buffers: only
/// compressed views may point into one, and no compressed stream may be read from one.
pub(crate) fn fallback_buffers(document: &Document) -> Result<Vec<Fallback>, ImportErrorKind> {
    let count = document.buffers().len();
    let mut plain_refs = vec![false; count];
    let mut compressed_refs = vec![false; count];
    let mut sources: Vec<(usize, usize)> = Vec::new();
    for view in document.views() {
        let buffer = view.buffer().index();
        match compression(&view)? {
            Some(c) => {
                compressed_refs[buffer] = true;
                sources.push((view.index(), c.buffer));
            }
            None => plain_refs[buffer] = true,
        }
    }
    let mut out = Vec::with_capacity(count);
    for buffer in document.buffers() {
        let b = buffer.index();
        let flagged = buffer_flag(&buffer)?;
        if flagged {
            let fail = |reason: String| ImportErrorKind::Buffer { buffer: b, reason };
            if plain_refs[b] {
                return Err(fail(
                    "is a meshopt fallback buffer, but an uncompressed buffer view refers to it"
                        .into(),
                ));
            }
            if let Some(&(view, _)) = sources.iter().find(|&&(_, source)| source == b) {
                return Err(fail(format!(
                    "is a meshopt fallback buffer, but buffer view {view} reads compressed data from it"
                )));
            }
        }
        out.push(match (flagged, compressed_refs[b] && !plain_refs[b]) {
            (true, _) => Fallback::Flagged,
            (false, true) => Fallback::Unflagged,
            (false, false) => Fallback::No,
        });
    }
    Ok(out)
}

/// Decodes every compressed buffer view: `Some(bytes)` (exactly the view's `byteLength`) at the
/// index of each compressed view, `None` elsewhere.
pub(crate) fn decode_views(
    document: &Document,
    buffers: &[gltf::buffer::Data],
) -> Result<Vec<Option<Vec<u8>>>, ImportErrorKind> {
    let mut out = Vec::with_capacity(document.views().len());
    for view in document.views() {
        let decoded = match compression(&view)? {
            Some(c) => Some(decode_view(&view, &c, buffers).map_err(|reason| {
                ImportErrorKind::CompressedView {
                    view: view.index(),
                    reason,
                }
            })?),
            None => None,
        };
        out.push(decoded);
    }
    Ok(out)
}

/// Checks one compressed view against the extension's rules, then decodes it.
fn decode_view(
    view: &gltf::buffer::View<'_>,
    c: &Compression,
    buffers: &[gltf::buffer::Data],
) -> Result<Vec<u8>, String> {
    check_layout(c)?;
    let stride = c.byte_stride;
    if let Some(parent) = view.stride()
        && parent != stride
    {
        return Err(format!(
            "byteStride {parent} differs from the compressed stream's byteStride {stride}"
        ));
    }
    let size = stride
        .checked_mul(c.count)
        .filter(|&size| size <= MAX_DECODED_BYTES)
        .ok_or_else(|| {
            format!(
                "{} elements of {stride} bytes exceed the {MAX_DECODED_BYTES}-byte limit",
                c.count
            )
        })?;
    if size != view.length() {
        return Err(format!(
            "byteLength {} is not byteStride {stride} times count {} ({size})",
            view.length(),
            c.count
        ));
    }
    let end = view.offset().checked_add(view.length());
    if end.is_none_or(|end| end > view.buffer().length()) {
        return Err(format!(
            "spans bytes {}..{} of buffer {}, which declares {} bytes",
            view.offset(),
            view.offset().saturating_add(view.length()),
            view.buffer().index(),
            view.buffer().length()
        ));
    }
    let source = source_bytes(c, buffers)?;
    Ok(match c.mode {
        Mode::Attributes => decode_attributes(source, c)?,
        Mode::Triangles if stride == 2 => {
            to_bytes16(meshopt::decode_index_buffer::<u16>(source, c.count).map_err(codec)?)
        }
        Mode::Triangles => {
            to_bytes32(meshopt::decode_index_buffer::<u32>(source, c.count).map_err(codec)?)
        }
        Mode::Indices if stride == 2 => {
            to_bytes16(meshopt::decode_index_sequence::<u16>(source, c.count).map_err(codec)?)
        }
        Mode::Indices => {
            to_bytes32(meshopt::decode_index_sequence::<u32>(source, c.count).map_err(codec)?)
        }
    })
}

/// The stride, count and filter rules of the extension, each of which the decoder also assumes.
fn check_layout(c: &Compression) -> Result<(), String> {
    let stride = c.byte_stride;
    match c.mode {
        Mode::Attributes => {
            if stride == 0 || !stride.is_multiple_of(4) || stride > MAX_ATTRIBUTE_STRIDE {
                return Err(format!(
                    "ATTRIBUTES byteStride {stride} is not a multiple of 4 between 4 and {MAX_ATTRIBUTE_STRIDE}"
                ));
            }
        }
        Mode::Triangles | Mode::Indices => {
            if stride != 2 && stride != 4 {
                return Err(format!(
                    "{:?} byteStride {stride} is neither 2 nor 4",
                    c.mode
                ));
            }
            if c.filter != Filter::None {
                return Err(format!("{:?} mode with filter {:?}", c.mode, c.filter));
            }
            if c.mode == Mode::Triangles && !c.count.is_multiple_of(3) {
                return Err(format!(
                    "TRIANGLES count {} is not a multiple of 3",
                    c.count
                ));
            }
        }
    }
    let allowed = match c.filter {
        Filter::None | Filter::Exponential => true,
        Filter::Octahedral => stride == 4 || stride == 8,
        Filter::Quaternion => stride == 8,
    };
    if !allowed {
        return Err(format!(
            "filter {:?} does not allow byteStride {stride}",
            c.filter
        ));
    }
    Ok(())
}

/// The compressed stream's bytes, checked against its buffer.
fn source_bytes<'b>(
    c: &Compression,
    buffers: &'b [gltf::buffer::Data],
) -> Result<&'b [u8], String> {
    let data = buffers
        .get(c.buffer)
        .ok_or_else(|| format!("compressed data buffer {} does not exist", c.buffer))?;
    c.byte_offset
        .checked_add(c.byte_length)
        .and_then(|end| data.get(c.byte_offset..end))
        .ok_or_else(|| {
            format!(
                "compressed data spans bytes {}..{} of buffer {}, which holds {} bytes",
                c.byte_offset,
                c.byte_offset.saturating_add(c.byte_length),
                c.buffer,
                data.len()
            )
        })
}

fn codec(error: meshopt::Error) -> String {
    format!("compressed data does not decode: {error}")
}

/// One element of `N` bytes: the attribute decoder's unit.
#[derive(Clone, Copy)]
struct Element<const N: usize>([u8; N]);

impl<const N: usize> Default for Element<N> {
    fn default() -> Self {
        Self([0; N])
    }
}

fn decode_elements<const N: usize>(source: &[u8], count: usize) -> Result<Vec<u8>, String> {
    let elements = meshopt::decode_vertex_buffer::<Element<N>>(source, count).map_err(codec)?;
    Ok(elements.iter().flat_map(|e| e.0).collect())
}

/// Decodes an attribute stream of any allowed stride (a multiple of 4 up to 256).
fn decode_attribute_bytes(source: &[u8], stride: usize, count: usize) -> Result<Vec<u8>, String> {
    macro_rules! by_stride {
        ($($n:literal)*) => {
            match stride {
                $($n => decode_elements::<$n>(source, count),)*
                _ => Err(format!("ATTRIBUTES byteStride {stride} is not supported")),
            }
        };
    }
    by_stride!(
        4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 104 108 112 116
        120 124 128 132 136 140 144 148 152 156 160 164 168 172 176 180 184 188 192 196 200 204
        208 212 216 220 224 228 232 236 240 244 248 252 256
    )
}

/// Decodes an attribute stream and applies its filter.
fn decode_attributes(source: &[u8], c: &Compression) -> Result<Vec<u8>, String> {
    match (c.filter, c.byte_stride) {
        (Filter::Octahedral, 4) => {
            let mut v = meshopt::decode_vertex_buffer::<[i8; 4]>(source, c.count).map_err(codec)?;
            meshopt::decode_filter_oct(&mut v);
            Ok(bytemuck::cast_slice(&v).to_vec())
        }
        (Filter::Octahedral, _) => {
            let mut v =
                meshopt::decode_vertex_buffer::<[i16; 4]>(source, c.count).map_err(codec)?;
            meshopt::decode_filter_oct(&mut v);
            Ok(v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect())
        }
        (Filter::Quaternion, _) => {
            let mut v =
                meshopt::decode_vertex_buffer::<[i16; 4]>(source, c.count).map_err(codec)?;
            meshopt::decode_filter_quat(&mut v);
            Ok(v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect())
        }
        (Filter::Exponential, stride) => {
            let bytes = decode_attribute_bytes(source, stride, c.count)?;
            // Each 32-bit component decodes on its own, so the stream is filtered as one
            // long run of single components.
            let mut words: Vec<[u32; 1]> = bytes
                .chunks_exact(4)
                .map(|w| [u32::from_le_bytes([w[0], w[1], w[2], w[3]])])
                .collect();
            meshopt::decode_filter_exp(&mut words);
            Ok(words.iter().flat_map(|w| w[0].to_le_bytes()).collect())
        }
        (Filter::None, stride) => decode_attribute_bytes(source, stride, c.count),
    }
}

fn to_bytes16(values: Vec<u16>) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn to_bytes32(values: Vec<u32>) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

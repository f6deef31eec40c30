//! A bounds-checked glTF accessor reader. It checks the format against what the usage allows and
//! every byte range against its buffer view and buffer before touching data, so malformed files
//! produce errors instead of panics. Handles strides, normalized integers and sparse accessors.

use gltf::accessor::{DataType, Dimensions};

use super::accessor_rules::{check_bounds, check_layout, check_sparse_order};
use super::document::Buffers;
use crate::error::ImportErrorKind;

/// The component types and element shapes one usage accepts.
pub(crate) struct Format {
    /// What the accessor is used for, for error messages.
    pub usage: &'static str,
    /// Accepted element shape.
    pub dims: Dimensions,
    /// Accepted float or non-normalized integer component types.
    pub plain: &'static [DataType],
    /// Accepted normalized integer component types.
    pub normalized: &'static [DataType],
    /// A vertex attribute: its view may define `byteStride`, and elements are 4-byte aligned.
    pub vertex: bool,
    /// `min` and `max` must be defined (animation inputs; POSITION is checked by validation).
    pub bounds: bool,
}

fn component_count(dims: Dimensions) -> usize {
    dims.multiplicity()
}

fn component_size(t: DataType) -> usize {
    t.size()
}

/// A component type an accessor can be read into.
pub(crate) trait Component: Copy + Default {
    /// Decodes one component of type `t` from `bytes`.
    fn decode(bytes: &[u8], t: DataType, normalized: bool) -> Self;
    /// The value, exactly, for comparisons with `min` and `max`.
    fn to_f64(self) -> f64;
}

impl Component for f32 {
    fn decode(bytes: &[u8], t: DataType, normalized: bool) -> Self {
        read_component(bytes, t, normalized)
    }

    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// Exact integers (triangle indices can exceed `f32`'s 2^24 exact range).
impl Component for u32 {
    fn decode(bytes: &[u8], t: DataType, _normalized: bool) -> Self {
        match t {
            DataType::U8 => u32::from(bytes[0]),
            DataType::U16 => u32::from(u16::from_le_bytes([bytes[0], bytes[1]])),
            DataType::U32 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
            // Integer usages never accept these; decode them as their float value.
            _ => read_component(bytes, t, false) as u32,
        }
    }

    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

fn read_component(bytes: &[u8], t: DataType, normalized: bool) -> f32 {
    match t {
        DataType::I8 => {
            let v = bytes[0] as i8 as f32;
            if normalized { (v / 127.0).max(-1.0) } else { v }
        }
        DataType::U8 => {
            let v = bytes[0] as f32;
            if normalized { v / 255.0 } else { v }
        }
        DataType::I16 => {
            let v = i16::from_le_bytes([bytes[0], bytes[1]]) as f32;
            if normalized {
                (v / 32767.0).max(-1.0)
            } else {
                v
            }
        }
        DataType::U16 => {
            let v = u16::from_le_bytes([bytes[0], bytes[1]]) as f32;
            if normalized { v / 65535.0 } else { v }
        }
        DataType::U32 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as f32,
        DataType::F32 => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
    }
}

/// The most components an accessor without a buffer view may hold (256 MiB of `f32`).
const MAX_ZERO_FILLED_COMPONENTS: usize = 1 << 26;

fn out_of_range(accessor: usize, reason: String) -> ImportErrorKind {
    ImportErrorKind::AccessorOutOfRange { accessor, reason }
}

/// The bytes of a buffer view (decoded, for a compressed one), checked against its buffer.
fn view_bytes<'b>(
    view: &gltf::buffer::View<'_>,
    buffers: &'b Buffers,
    accessor: usize,
) -> Result<&'b [u8], ImportErrorKind> {
    if let Some(Some(decoded)) = buffers.decoded.get(view.index()) {
        return Ok(decoded);
    }
    let buffer = view.buffer().index();
    let data = buffers.buffers.get(buffer).ok_or(ImportErrorKind::Buffer {
        buffer,
        reason: "not loaded".into(),
    })?;
    let start = view.offset();
    let end = start.checked_add(view.length()).ok_or_else(|| {
        out_of_range(
            accessor,
            format!("buffer view {} length overflows", view.index()),
        )
    })?;
    if end > data.len() || end > view.buffer().length() {
        return Err(out_of_range(
            accessor,
            format!(
                "buffer view {} spans bytes {start}..{end} of buffer {buffer} ({} bytes)",
                view.index(),
                data.len().min(view.buffer().length())
            ),
        ));
    }
    Ok(&data[start..end])
}

/// Reads `count` elements of `comps` components each from `bytes` at `offset` with `stride`.
#[allow(clippy::too_many_arguments)]
fn read_elements<T: Component>(
    bytes: &[u8],
    offset: usize,
    stride: usize,
    count: usize,
    comps: usize,
    t: DataType,
    normalized: bool,
    accessor: usize,
    out: &mut Vec<T>,
) -> Result<(), ImportErrorKind> {
    let csize = component_size(t);
    let elem = comps * csize;
    if count > 0 {
        let last_end = (count - 1)
            .checked_mul(stride)
            .and_then(|v| v.checked_add(offset))
            .and_then(|v| v.checked_add(elem))
            .ok_or_else(|| out_of_range(accessor, "byte range overflows".into()))?;
        if last_end > bytes.len() {
            return Err(out_of_range(
                accessor,
                format!(
                    "{count} elements at offset {offset} stride {stride} need {last_end} bytes, the view has {}",
                    bytes.len()
                ),
            ));
        }
    }
    out.reserve(count * comps);
    for i in 0..count {
        let base = offset + i * stride;
        for c in 0..comps {
            let at = base + c * csize;
            out.push(T::decode(&bytes[at..at + csize], t, normalized));
        }
    }
    Ok(())
}

/// Reads `count` sparse indices exactly (as integers, never through `f32`).
fn read_indices(
    bytes: &[u8],
    offset: usize,
    count: usize,
    t: gltf::accessor::sparse::IndexType,
    accessor: usize,
) -> Result<Vec<usize>, ImportErrorKind> {
    use gltf::accessor::sparse::IndexType;
    let (size, decode): (usize, fn(&[u8]) -> usize) = match t {
        IndexType::U8 => (1, |b| b[0] as usize),
        IndexType::U16 => (2, |b| u16::from_le_bytes([b[0], b[1]]) as usize),
        IndexType::U32 => (4, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize),
    };
    let end = count
        .checked_mul(size)
        .and_then(|v| v.checked_add(offset))
        .ok_or_else(|| out_of_range(accessor, "sparse index range overflows".into()))?;
    let Some(range) = bytes.get(offset..end) else {
        return Err(out_of_range(
            accessor,
            format!(
                "{count} sparse indices at offset {offset} need {end} bytes, the view has {}",
                bytes.len()
            ),
        ));
    };
    Ok(range.chunks_exact(size).map(decode).collect())
}

/// Checks that `accessor` has an element shape and component type that `format` accepts.
pub(crate) fn check_format(
    accessor: &gltf::Accessor<'_>,
    format: &Format,
) -> Result<(), ImportErrorKind> {
    let t = accessor.data_type();
    let normalized = accessor.normalized();
    let allowed = if normalized {
        format.normalized
    } else {
        format.plain
    };
    if accessor.dimensions() != format.dims || !allowed.contains(&t) {
        return Err(ImportErrorKind::AccessorFormat {
            accessor: accessor.index(),
            usage: format.usage.to_string(),
            found: format!(
                "{:?} {:?}{}",
                accessor.dimensions(),
                t,
                if normalized { " normalized" } else { "" }
            ),
        });
    }
    Ok(())
}

/// Reads an accessor as flat components: `f32` (normalized integers mapped to `[0, 1]` or
/// `[-1, 1]`) or exact `u32` integers, after checking its format against `format`, its layout
/// against glTF's alignment rules and all ranges against the buffers; then checks its sparse
/// index order and its `min`/`max` against the data. Returns the data and the number of
/// components per element.
pub(crate) fn read_accessor<T: Component>(
    accessor: &gltf::Accessor<'_>,
    buffers: &Buffers,
    format: &Format,
) -> Result<(Vec<T>, usize), ImportErrorKind> {
    let index = accessor.index();
    let t = accessor.data_type();
    let normalized = accessor.normalized();
    check_format(accessor, format)?;
    check_layout(accessor, format)?;
    let comps = component_count(format.dims);
    let elem = comps * component_size(t);
    let count = accessor.count();
    let mut out = Vec::new();
    match accessor.view() {
        Some(view) => {
            let bytes = view_bytes(&view, buffers, index)?;
            let stride = view.stride().unwrap_or(elem);
            if stride < elem {
                return Err(out_of_range(
                    index,
                    format!("byte stride {stride} is smaller than the element size {elem}"),
                ));
            }
            read_elements(
                bytes,
                accessor.offset(),
                stride,
                count,
                comps,
                t,
                normalized,
                index,
                &mut out,
            )?;
        }
        None => {
            // Zero-filled, then patched by sparse values: nothing in the file bounds the count.
            if count > MAX_ZERO_FILLED_COMPONENTS / comps {
                return Err(out_of_range(
                    index,
                    format!(
                        "{count} elements without a buffer view; at most {} are accepted",
                        MAX_ZERO_FILLED_COMPONENTS / comps
                    ),
                ));
            }
            out.resize(count * comps, T::default());
        }
    }
    if let Some(sparse) = accessor.sparse() {
        let n = sparse.count();
        if n > count {
            return Err(out_of_range(
                index,
                format!("sparse count {n} exceeds accessor count {count}"),
            ));
        }
        let ib = view_bytes(&sparse.indices().view(), buffers, index)?;
        let idx = read_indices(
            ib,
            sparse.indices().offset(),
            n,
            sparse.indices().index_type(),
            index,
        )?;
        check_sparse_order(index, &idx)?;
        let vb = view_bytes(&sparse.values().view(), buffers, index)?;
        let mut values = Vec::with_capacity(n * comps);
        read_elements(
            vb,
            sparse.values().offset(),
            elem,
            n,
            comps,
            t,
            normalized,
            index,
            &mut values,
        )?;
        for (k, &i) in idx.iter().enumerate() {
            if i >= count {
                return Err(out_of_range(
                    index,
                    format!("sparse index {i} is not below the accessor count {count}"),
                ));
            }
            out[i * comps..(i + 1) * comps].copy_from_slice(&values[k * comps..(k + 1) * comps]);
        }
    }
    check_bounds(accessor, format, &out, comps)?;
    Ok((out, comps))
}

/// Float-only formats.
pub(crate) const F32: &[DataType] = &[DataType::F32];
/// Unsigned integer joint index formats.
pub(crate) const JOINT_TYPES: &[DataType] = &[DataType::U8, DataType::U16];
/// Normalized unsigned formats (weights, texture coordinates).
pub(crate) const UNORM: &[DataType] = &[DataType::U8, DataType::U16];
/// Every 8- and 16-bit integer type (normalized rotation and weight keys, quantized positions
/// and texture coordinates).
pub(crate) const INT8_INT16: &[DataType] =
    &[DataType::I8, DataType::U8, DataType::I16, DataType::U16];
/// Float or any 8- or 16-bit integer type, not normalized (quantized positions and texture
/// coordinates).
pub(crate) const F32_OR_INT8_INT16: &[DataType] = &[
    DataType::F32,
    DataType::I8,
    DataType::U8,
    DataType::I16,
    DataType::U16,
];
/// Normalized signed formats (quantized normals and tangents).
pub(crate) const SNORM: &[DataType] = &[DataType::I8, DataType::I16];
/// Index buffer formats.
pub(crate) const INDEX_TYPES: &[DataType] = &[DataType::U8, DataType::U16, DataType::U32];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_components_stay_exact_beyond_f32_precision() {
        let big = 16_777_217u32; // 2^24 + 1: not representable as f32
        assert_eq!(
            <u32 as Component>::decode(&big.to_le_bytes(), DataType::U32, false),
            big
        );
        assert_ne!(
            <f32 as Component>::decode(&big.to_le_bytes(), DataType::U32, false) as u32,
            big,
            "the float path rounds, which is why indices use the integer path"
        );
    }
}

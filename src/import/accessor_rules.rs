//! The glTF 2.0 accessor rules (specification §3.6) that the reader enforces beyond bounds
//! checks: element counts, data alignment, where `byteStride` may appear, the order of sparse
//! indices, and `min`/`max` that must match the data. Each breach is an
//! [`ImportErrorKind::AccessorRule`] naming the accessor.

use std::collections::BTreeMap;

use gltf::Document;
use gltf::accessor::DataType;

use super::accessor::{Component, Format};
use crate::error::ImportErrorKind;

fn rule(accessor: usize, reason: String) -> ImportErrorKind {
    ImportErrorKind::AccessorRule { accessor, reason }
}

/// Count, offsets and strides of `accessor` as `format` uses it (§3.6.4, data alignment): a
/// count of at least one; offsets (into the view and into the buffer) that are multiples of the
/// component size; `byteStride` only on views of vertex attributes and a multiple of the
/// component size; vertex attribute elements 4-byte aligned; no `byteStride` on sparse views.
pub(crate) fn check_layout(
    accessor: &gltf::Accessor<'_>,
    format: &Format,
) -> Result<(), ImportErrorKind> {
    let index = accessor.index();
    let fail = |reason: String| Err(rule(index, reason));
    let size = accessor.data_type().size();
    let element = size * accessor.dimensions().multiplicity();
    if accessor.count() == 0 {
        return fail("count is 0 (glTF requires at least 1)".into());
    }
    if let Some(view) = accessor.view() {
        let offset = accessor.offset();
        if !offset.is_multiple_of(size) || !(view.offset() + offset).is_multiple_of(size) {
            return fail(format!(
                "byteOffset {offset} (at byte {} of buffer {}) is not a multiple of the component size {size}",
                view.offset() + offset,
                view.buffer().index()
            ));
        }
        match (view.stride(), format.vertex) {
            (Some(stride), false) => {
                return fail(format!(
                    "its buffer view {} defines byteStride {stride}, which only vertex attribute views may ({})",
                    view.index(),
                    format.usage
                ));
            }
            (Some(stride), true) if !stride.is_multiple_of(size) => {
                return fail(format!(
                    "byteStride {stride} of buffer view {} is not a multiple of the component size {size}",
                    view.index()
                ));
            }
            _ => {}
        }
        let stride = view.stride().unwrap_or(element);
        if format.vertex && (!offset.is_multiple_of(4) || !stride.is_multiple_of(4)) {
            return fail(format!(
                "vertex attribute elements must be 4-byte aligned, but byteOffset is {offset} and the stride {stride}"
            ));
        }
    }
    if let Some(sparse) = accessor.sparse() {
        let indices = sparse.indices();
        let values = sparse.values();
        let index_size = indices.index_type().size();
        for (what, view, offset, align) in [
            ("indices", indices.view(), indices.offset(), index_size),
            ("values", values.view(), values.offset(), size),
        ] {
            if let Some(stride) = view.stride() {
                return fail(format!(
                    "sparse {what} buffer view {} defines byteStride {stride}",
                    view.index()
                ));
            }
            if !offset.is_multiple_of(align) || !(view.offset() + offset).is_multiple_of(align) {
                return fail(format!(
                    "sparse {what} byteOffset {offset} (at byte {} of buffer {}) is not a multiple of {align}",
                    view.offset() + offset,
                    view.buffer().index()
                ));
            }
        }
    }
    Ok(())
}

/// Sparse indices must increase strictly (§3.6.3).
pub(crate) fn check_sparse_order(
    accessor: usize,
    indices: &[usize],
) -> Result<(), ImportErrorKind> {
    match indices.windows(2).position(|w| w[1] <= w[0]) {
        Some(k) => Err(rule(
            accessor,
            format!(
                "sparse index {} follows {}: sparse indices must increase strictly",
                indices[k + 1],
                indices[k]
            ),
        )),
        None => Ok(()),
    }
}

/// A `min`/`max` entry as the data's components decode: rounded to `f32` for floats, through
/// the normalization equations for normalized integers (the bounds hold the stored integers).
fn decode_bound(value: f64, t: DataType, normalized: bool) -> f64 {
    let v = value as f32;
    f64::from(match (t, normalized) {
        (DataType::F32, _) => v,
        (DataType::I8, true) => (v / 127.0).max(-1.0),
        (DataType::U8, true) => v / 255.0,
        (DataType::I16, true) => (v / 32767.0).max(-1.0),
        (DataType::U16, true) => v / 65535.0,
        // Integers: exact in f64 (u32 indices included).
        _ => return value,
    })
}

/// `min` and `max` (§3.6.5): required where `format` says so; when present, one entry per
/// component, each equal to the data's extreme value (after sparse substitution). Skipped for
/// data holding NaN or infinity, which every usage refuses on its own.
pub(crate) fn check_bounds<T: Component>(
    accessor: &gltf::Accessor<'_>,
    format: &Format,
    data: &[T],
    comps: usize,
) -> Result<(), ImportErrorKind> {
    let index = accessor.index();
    // NaN and infinity are refused by each usage's own check, which names the object.
    if data.iter().any(|v| !v.to_f64().is_finite()) {
        return Ok(());
    }
    for (name, bound, pick) in [
        ("min", accessor.min(), f64::min as fn(f64, f64) -> f64),
        ("max", accessor.max(), f64::max),
    ] {
        let Some(bound) = bound else {
            if format.bounds {
                return Err(rule(
                    index,
                    format!("{} accessors must define {name}", format.usage),
                ));
            }
            continue;
        };
        let entries: Option<Vec<f64>> = bound
            .as_array()
            .map(|a| a.iter().map(serde_json::Value::as_f64).collect())
            .unwrap_or(None);
        let Some(entries) = entries.filter(|e| e.len() == comps) else {
            return Err(rule(
                index,
                format!("{name} must be an array of {comps} numbers, found {bound}"),
            ));
        };
        for (k, &entry) in entries.iter().enumerate() {
            let want = decode_bound(entry, accessor.data_type(), accessor.normalized());
            let Some(found) = data
                .iter()
                .skip(k)
                .step_by(comps)
                .map(|v| v.to_f64())
                .reduce(pick)
            else {
                continue;
            };
            if found != want {
                return Err(rule(
                    index,
                    format!(
                        "{name}[{k}] is {entry}, but the data's {name} of component {k} is {found}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// File-wide rules: an accessor without a buffer view defines no `byteOffset`, and a buffer
/// view shared by two or more vertex attribute accessors defines `byteStride`.
pub(crate) fn check_document(doc: &Document) -> Result<(), ImportErrorKind> {
    for (a, accessor) in doc.as_json().accessors.iter().enumerate() {
        if accessor.buffer_view.is_none() && accessor.byte_offset.is_some() {
            return Err(rule(a, "defines byteOffset but no bufferView".into()));
        }
    }
    let mut users: BTreeMap<usize, usize> = BTreeMap::new();
    for mesh in doc.meshes() {
        for prim in mesh.primitives() {
            let targets = prim.morph_targets().flat_map(|t| {
                [t.positions(), t.normals(), t.tangents()]
                    .into_iter()
                    .flatten()
            });
            for accessor in prim.attributes().map(|(_, a)| a).chain(targets) {
                let Some(view) = accessor.view() else {
                    continue;
                };
                match users.get(&view.index()) {
                    Some(&first) if first != accessor.index() && view.stride().is_none() => {
                        return Err(rule(
                            accessor.index(),
                            format!(
                                "shares buffer view {} with accessor {first} as vertex attributes, but the view defines no byteStride",
                                view.index()
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => {
                        users.insert(view.index(), accessor.index());
                    }
                }
            }
        }
    }
    Ok(())
}

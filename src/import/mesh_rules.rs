//! The glTF 2.0 rules on meshes (specification §3.7.2, with the `KHR_mesh_quantization` formats
//! when the file uses it), checked on every mesh of the file, skinned or not: at least one
//! primitive; attribute formats per semantic; one count for all attributes and morph target
//! attributes of a primitive, each morph target attribute also a base attribute; attribute sets
//! numbered from 0 without gaps or leading zeros; `JOINTS_n` beside `WEIGHTS_n`; indices
//! without the primitive restart value and below the vertex count; no joint with two non-zero
//! weights on one vertex; on skinned meshes, `JOINTS_0` and `WEIGHTS_0` in every primitive and
//! every joint value within the skin. Weight sums are not checked: glTF only asks that they be
//! close to 1 (a SHOULD), and skinned meshes are renormalized when read.

use std::collections::{BTreeMap, BTreeSet};

use gltf::Document;
use gltf::Semantic;
use gltf::accessor::{DataType, Dimensions};

use super::accessor::{F32, Format, UNORM, check_format, read_accessor};
use super::document::Buffers;
use super::meshes::{AttributeFormats, INDICES, JOINTS, WEIGHTS};
use super::morph::target_formats;
use crate::error::ImportErrorKind;

/// `COLOR_n`: RGB or RGBA, float or normalized unsigned bytes and shorts.
pub(crate) const COLORS_RGB: Format = Format {
    usage: "COLOR_n",
    dims: Dimensions::Vec3,
    plain: F32,
    normalized: UNORM,
    vertex: true,
    bounds: false,
};
pub(crate) const COLORS_RGBA: Format = Format {
    dims: Dimensions::Vec4,
    ..COLORS_RGB
};

/// Checks every mesh of `doc`. `quantized`: the file uses `KHR_mesh_quantization`.
pub(crate) fn check_meshes(
    doc: &Document,
    buffers: &Buffers,
    quantized: bool,
) -> Result<(), ImportErrorKind> {
    let formats = AttributeFormats::new(quantized);
    for mesh in doc.meshes() {
        if mesh.primitives().len() == 0 {
            return Err(ImportErrorKind::MeshRule {
                mesh: mesh.index(),
                reason: "has no primitives (glTF requires at least one)".into(),
            });
        }
        for prim in mesh.primitives() {
            check_primitive(&prim, buffers, &formats, quantized, mesh.index())?;
        }
    }
    // Each mesh once per joint count it is skinned with (nodes may share both).
    let mut skinned = BTreeSet::new();
    for node in doc.nodes() {
        if let (Some(mesh), Some(skin)) = (node.mesh(), node.skin())
            && skinned.insert((mesh.index(), skin.joints().len()))
        {
            for prim in mesh.primitives() {
                check_skinned(&prim, buffers, mesh.index(), skin.joints().len())?;
            }
        }
    }
    Ok(())
}

/// A primitive of a mesh a skin deforms (any mode) has `JOINTS_0` and `WEIGHTS_0`, and every
/// joint value it holds, weighted or not, is below the skin's joint count.
fn check_skinned(
    prim: &gltf::Primitive<'_>,
    buffers: &Buffers,
    mesh: usize,
    joint_count: usize,
) -> Result<(), ImportErrorKind> {
    let primitive = prim.index();
    for semantic in [Semantic::Joints(0), Semantic::Weights(0)] {
        if prim.get(&semantic).is_none() {
            return Err(ImportErrorKind::Primitive {
                mesh,
                primitive,
                reason: format!(
                    "no {} (every primitive of a skinned mesh needs JOINTS_0 and WEIGHTS_0)",
                    semantic_name(&semantic)
                ),
            });
        }
    }
    for (semantic, accessor) in prim.attributes() {
        if !matches!(semantic, Semantic::Joints(_)) {
            continue;
        }
        let (joints, _) = read_accessor::<u32>(&accessor, buffers, &JOINTS)?;
        if let Some(k) = joints.iter().position(|&j| j as usize >= joint_count) {
            return Err(ImportErrorKind::JointIndex {
                mesh,
                primitive,
                vertex: k / 4,
                joint: joints[k],
                joint_count,
            });
        }
    }
    Ok(())
}

/// Attribute names with a set index (`TEXCOORD_1`) write it without leading zeros
/// (`TEXCOORD_01` is not allowed). Checked on the JSON: parsing the names drops the zeros.
pub(crate) fn check_attribute_names(root: &serde_json::Value) -> Result<(), ImportErrorKind> {
    let meshes = root.get("meshes").and_then(|m| m.as_array());
    for (m, mesh) in meshes.into_iter().flatten().enumerate() {
        let primitives = mesh.get("primitives").and_then(|p| p.as_array());
        for (p, primitive) in primitives.into_iter().flatten().enumerate() {
            let attributes = primitive.get("attributes").and_then(|a| a.as_object());
            for name in attributes.into_iter().flat_map(|a| a.keys()) {
                let padded = ["TEXCOORD_", "COLOR_", "JOINTS_", "WEIGHTS_"]
                    .iter()
                    .filter_map(|base| name.strip_prefix(base))
                    .any(|set| set.len() > 1 && set.starts_with('0'));
                if padded {
                    return Err(ImportErrorKind::Primitive {
                        mesh: m,
                        primitive: p,
                        reason: format!(
                            "attribute {name} pads its set index with zeros (glTF forbids it)"
                        ),
                    });
                }
            }
        }
    }
    Ok(())
}

/// The glTF name of an attribute semantic.
fn semantic_name(semantic: &Semantic) -> String {
    match semantic {
        Semantic::Positions => "POSITION".into(),
        Semantic::Normals => "NORMAL".into(),
        Semantic::Tangents => "TANGENT".into(),
        Semantic::Colors(n) => format!("COLOR_{n}"),
        Semantic::TexCoords(n) => format!("TEXCOORD_{n}"),
        Semantic::Joints(n) => format!("JOINTS_{n}"),
        Semantic::Weights(n) => format!("WEIGHTS_{n}"),
        Semantic::Extras(name) => format!("_{name}"),
    }
}

/// The format an attribute of `semantic` must have (colors: by the accessor's own shape, which
/// may be `VEC3` or `VEC4`); none for application-specific (`_NAME`) attributes.
fn attribute_format<'f>(
    semantic: &Semantic,
    accessor: &gltf::Accessor<'_>,
    formats: &'f AttributeFormats,
) -> Option<&'f Format> {
    Some(match semantic {
        Semantic::Positions => formats.positions,
        Semantic::Normals => formats.normals,
        Semantic::Tangents => formats.tangents,
        Semantic::TexCoords(_) => formats.uvs,
        Semantic::Colors(_) if accessor.dimensions() == Dimensions::Vec4 => &COLORS_RGBA,
        Semantic::Colors(_) => &COLORS_RGB,
        Semantic::Joints(_) => &JOINTS,
        Semantic::Weights(_) => &WEIGHTS,
        Semantic::Extras(_) => return None,
    })
}

/// The largest value of an index component type: the primitive restart value, which glTF
/// indices must not hold.
fn restart_value(t: DataType) -> u32 {
    match t {
        DataType::U8 => u32::from(u8::MAX),
        DataType::U16 => u32::from(u16::MAX),
        _ => u32::MAX,
    }
}

/// Checks one primitive of mesh `mesh`: its attributes, morph targets, indices and weights.
fn check_primitive(
    prim: &gltf::Primitive<'_>,
    buffers: &Buffers,
    formats: &AttributeFormats,
    quantized: bool,
    mesh: usize,
) -> Result<(), ImportErrorKind> {
    let primitive = prim.index();
    let fail = |reason: String| ImportErrorKind::Primitive {
        mesh,
        primitive,
        reason,
    };
    // Set indices per indexed semantic, to check they run 0, 1, 2, ... without gaps.
    let mut sets: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    let mut vertices: Option<(String, usize)> = None;
    for (semantic, accessor) in prim.attributes() {
        let name = semantic_name(&semantic);
        match attribute_format(&semantic, &accessor, formats) {
            Some(format) => check_format(&accessor, format)?,
            // glTF allows UNSIGNED_INT only for indices.
            None if accessor.data_type() == DataType::U32 => {
                return Err(ImportErrorKind::AccessorFormat {
                    accessor: accessor.index(),
                    usage: name,
                    found: "UNSIGNED_INT (only indices may use it)".into(),
                });
            }
            None => {}
        }
        match &vertices {
            None => vertices = Some((name.clone(), accessor.count())),
            Some((first, n)) if *n != accessor.count() => {
                return Err(fail(format!(
                    "{name} has {} elements, {first} has {n} (all attributes of a primitive must have the same count)",
                    accessor.count()
                )));
            }
            Some(_) => {}
        }
        let set = match semantic {
            Semantic::Colors(n) => Some(("COLOR", n)),
            Semantic::TexCoords(n) => Some(("TEXCOORD", n)),
            Semantic::Joints(n) => Some(("JOINTS", n)),
            Semantic::Weights(n) => Some(("WEIGHTS", n)),
            _ => None,
        };
        if let Some((base, n)) = set {
            sets.entry(base).or_default().push(n);
        }
    }
    for (base, indices) in &mut sets {
        indices.sort_unstable();
        if let Some((k, &n)) = indices.iter().enumerate().find(|&(k, &n)| n as usize != k) {
            return Err(fail(format!(
                "has {base}_{n} but no {base}_{k} (attribute sets must be numbered from 0 without gaps)"
            )));
        }
    }
    let joint_sets = sets.get("JOINTS").map_or(0, Vec::len);
    let weight_sets = sets.get("WEIGHTS").map_or(0, Vec::len);
    if joint_sets != weight_sets {
        let n = joint_sets.min(weight_sets);
        return Err(fail(format!(
            "JOINTS_{n} and WEIGHTS_{n} must come together ({joint_sets} JOINTS sets, {weight_sets} WEIGHTS sets)"
        )));
    }
    let (first, n) = vertices.unwrap_or_else(|| ("POSITION".into(), 0));
    let target_format = target_formats(quantized);
    for (t, target) in prim.morph_targets().enumerate() {
        let attributes = [
            (Semantic::Positions, target.positions()),
            (Semantic::Normals, target.normals()),
            (Semantic::Tangents, target.tangents()),
        ];
        for ((semantic, accessor), format) in attributes.into_iter().zip(target_format) {
            let Some(accessor) = accessor else {
                continue;
            };
            let name = semantic_name(&semantic);
            if prim.get(&semantic).is_none() {
                return Err(fail(format!(
                    "morph target {t} displaces {name}, which the primitive does not have"
                )));
            }
            check_format(&accessor, format)?;
            if accessor.count() != n {
                return Err(fail(format!(
                    "{name} of morph target {t} has {} elements, {first} has {n}",
                    accessor.count()
                )));
            }
        }
    }
    if let Some(accessor) = prim.indices() {
        let (indices, _) = read_accessor::<u32>(&accessor, buffers, &INDICES)?;
        let restart = restart_value(accessor.data_type());
        if let Some(k) = indices.iter().position(|&i| i == restart) {
            return Err(fail(format!(
                "index {k} is {restart}, the primitive restart value of its component type (glTF forbids it)"
            )));
        }
        if let Some(&bad) = indices.iter().find(|&&i| i as usize >= n) {
            return Err(fail(format!(
                "index {bad} is not below the vertex count {n}"
            )));
        }
    }
    check_joint_weights(prim, buffers, joint_sets, fail)
}

/// No vertex names one joint with two non-zero weights (across all of its `JOINTS_n` sets).
fn check_joint_weights(
    prim: &gltf::Primitive<'_>,
    buffers: &Buffers,
    sets: usize,
    fail: impl Fn(String) -> ImportErrorKind,
) -> Result<(), ImportErrorKind> {
    let mut streams = Vec::with_capacity(sets);
    for n in 0..sets as u32 {
        let (Some(joints), Some(weights)) = (
            prim.get(&Semantic::Joints(n)),
            prim.get(&Semantic::Weights(n)),
        ) else {
            continue;
        };
        let (joints, _) = read_accessor::<u32>(&joints, buffers, &JOINTS)?;
        let (weights, _) = read_accessor::<f32>(&weights, buffers, &WEIGHTS)?;
        streams.push((joints, weights));
    }
    let vertices = streams.iter().map(|(j, _)| j.len() / 4).min().unwrap_or(0);
    let mut used = Vec::with_capacity(4 * sets);
    for v in 0..vertices {
        used.clear();
        for (joints, weights) in &streams {
            for k in 4 * v..4 * v + 4 {
                if weights[k] > 0.0 {
                    if used.contains(&joints[k]) {
                        return Err(fail(format!(
                            "vertex {v} gives joint {} two non-zero weights (glTF forbids it)",
                            joints[k]
                        )));
                    }
                    used.push(joints[k]);
                }
            }
        }
    }
    Ok(())
}

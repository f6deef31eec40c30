//! Skinned mesh primitives: vertex streams with up to [`MAX_INFLUENCES`] joint influences per
//! vertex (the strongest ones, when the file has more).

use gltf::Document;
use gltf::Semantic;
use gltf::accessor::Dimensions;
use gltf::mesh::Mode;

use super::accessor::{
    F32, F32_OR_INT8_INT16, Format, INDEX_TYPES, INT8_INT16, JOINT_TYPES, SNORM, UNORM,
    read_accessor,
};
use super::document::Buffers;
use super::mesh_rules::{COLORS_RGB, COLORS_RGBA};
use super::raw::{RawMesh, RawSkin};
pub use crate::baked::MAX_INFLUENCES;
use crate::error::ImportErrorKind;

/// Attribute formats of core glTF 2.0.
const POSITIONS: Format = Format {
    usage: "POSITION",
    dims: Dimensions::Vec3,
    plain: F32,
    normalized: &[],
    vertex: true,
    bounds: false,
};
const NORMALS: Format = Format {
    usage: "NORMAL",
    dims: Dimensions::Vec3,
    plain: F32,
    normalized: &[],
    vertex: true,
    bounds: false,
};
const TANGENTS: Format = Format {
    usage: "TANGENT",
    dims: Dimensions::Vec4,
    plain: F32,
    normalized: &[],
    vertex: true,
    bounds: false,
};
const UVS: Format = Format {
    usage: "TEXCOORD_0",
    dims: Dimensions::Vec2,
    plain: F32,
    normalized: UNORM,
    vertex: true,
    bounds: false,
};

/// The same attributes with the component types `KHR_mesh_quantization` adds.
const QUANTIZED_POSITIONS: Format = Format {
    usage: "POSITION (KHR_mesh_quantization)",
    plain: F32_OR_INT8_INT16,
    normalized: INT8_INT16,
    ..POSITIONS
};
const QUANTIZED_NORMALS: Format = Format {
    usage: "NORMAL (KHR_mesh_quantization)",
    normalized: SNORM,
    ..NORMALS
};
const QUANTIZED_TANGENTS: Format = Format {
    usage: "TANGENT (KHR_mesh_quantization)",
    normalized: SNORM,
    ..TANGENTS
};
const QUANTIZED_UVS: Format = Format {
    usage: "TEXCOORD_0 (KHR_mesh_quantization)",
    plain: F32_OR_INT8_INT16,
    normalized: INT8_INT16,
    ..UVS
};

/// The attribute formats a file may use.
pub(crate) struct AttributeFormats {
    /// `POSITION`.
    pub positions: &'static Format,
    /// `NORMAL`.
    pub normals: &'static Format,
    /// `TANGENT`.
    pub tangents: &'static Format,
    /// `TEXCOORD_n`.
    pub uvs: &'static Format,
    /// Normals and tangents may be quantized, so they are brought back to unit length.
    renormalize: bool,
    /// The file uses `KHR_mesh_quantization` (morph targets may be quantized too).
    quantized: bool,
}

impl AttributeFormats {
    pub(crate) fn new(quantized: bool) -> Self {
        if quantized {
            Self {
                positions: &QUANTIZED_POSITIONS,
                normals: &QUANTIZED_NORMALS,
                tangents: &QUANTIZED_TANGENTS,
                uvs: &QUANTIZED_UVS,
                renormalize: true,
                quantized,
            }
        } else {
            Self {
                positions: &POSITIONS,
                normals: &NORMALS,
                tangents: &TANGENTS,
                uvs: &UVS,
                renormalize: false,
                quantized,
            }
        }
    }
}
pub(crate) const JOINTS: Format = Format {
    usage: "JOINTS_n",
    dims: Dimensions::Vec4,
    plain: JOINT_TYPES,
    normalized: &[],
    vertex: true,
    bounds: false,
};
pub(crate) const WEIGHTS: Format = Format {
    usage: "WEIGHTS_n",
    dims: Dimensions::Vec4,
    plain: F32,
    normalized: UNORM,
    vertex: true,
    bounds: false,
};

pub(crate) const INDICES: Format = Format {
    usage: "indices",
    dims: Dimensions::Scalar,
    plain: INDEX_TYPES,
    normalized: &[],
    vertex: false,
    bounds: false,
};

/// Reads every triangle primitive of every mesh node: skinned where the node has a skin, rigid
/// (following the node, joint streams not read) where it has none. `quantized`: the file uses
/// `KHR_mesh_quantization`, so integer positions, normals, tangents and texture coordinates are
/// accepted (and converted to float: normalized types to `[-1, 1]` or `[0, 1]`, others as is).
pub(crate) fn read_meshes(
    doc: &Document,
    buffers: &Buffers,
    skins: &[RawSkin],
    quantized: bool,
    materials: &[std::sync::Arc<super::Material>],
) -> Result<Vec<RawMesh>, ImportErrorKind> {
    let formats = AttributeFormats::new(quantized);
    let mut out = Vec::new();
    for node in doc.nodes() {
        let Some(mesh) = node.mesh() else {
            continue;
        };
        let skin = node.skin().map(|s| s.index());
        let joint_count = skin.map(|s| skins[s].joints.len());
        for prim in mesh.primitives() {
            if prim.mode() != Mode::Triangles {
                continue;
            }
            let mut raw = read_primitive(&prim, buffers, &formats, mesh.index(), joint_count)?;
            raw.name = mesh
                .name()
                .map_or_else(|| format!("mesh{}", mesh.index()), str::to_string);
            raw.node = node.index();
            raw.skin = skin;
            raw.material = prim
                .material()
                .index()
                .and_then(|m| materials.get(m))
                .cloned();
            out.push(raw);
        }
    }
    Ok(out)
}

fn read_primitive(
    prim: &gltf::Primitive<'_>,
    buffers: &Buffers,
    formats: &AttributeFormats,
    mesh: usize,
    joint_count: Option<usize>,
) -> Result<RawMesh, ImportErrorKind> {
    let primitive = prim.index();
    let fail = |reason: String| ImportErrorKind::Primitive {
        mesh,
        primitive,
        reason,
    };
    let attr = |sem: Semantic| prim.get(&sem);
    let positions_acc = attr(Semantic::Positions).ok_or_else(|| fail("no POSITION".into()))?;
    let (p, _) = read_accessor::<f32>(&positions_acc, buffers, formats.positions)?;
    let n = p.len() / 3;
    if p.iter().any(|v| !v.is_finite()) {
        return Err(ImportErrorKind::NonFinite {
            object: format!("mesh {mesh} primitive {primitive} POSITION"),
        });
    }
    let read_n = |sem: Semantic, format: &Format| -> Result<Option<Vec<f32>>, ImportErrorKind> {
        let Some(acc) = attr(sem) else {
            return Ok(None);
        };
        let (data, comps) = read_accessor(&acc, buffers, format)?;
        if data.len() / comps != n {
            return Err(fail(format!(
                "{} has {} elements, POSITION has {n}",
                format.usage,
                data.len() / comps
            )));
        }
        Ok(Some(data))
    };
    let mut normals = read_n(Semantic::Normals, formats.normals)?;
    let uvs = read_n(Semantic::TexCoords(0), formats.uvs)?;
    let mut tangents = read_n(Semantic::Tangents, formats.tangents)?;
    let uvs1 = read_n(Semantic::TexCoords(1), formats.uvs)?;
    let colors = match attr(Semantic::Colors(0)).map(|a| a.dimensions()) {
        Some(Dimensions::Vec3) => read_n(Semantic::Colors(0), &COLORS_RGB)?
            .map(|d| d.chunks_exact(3).map(|c| [c[0], c[1], c[2], 1.0]).collect()),
        Some(_) => read_n(Semantic::Colors(0), &COLORS_RGBA)?.map(|d| {
            d.chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect()
        }),
        None => None,
    };
    let colors: Option<Vec<[f32; 4]>> = colors;
    for (name, data) in [
        ("NORMAL", &normals),
        ("TEXCOORD_0", &uvs),
        ("TANGENT", &tangents),
        ("TEXCOORD_1", &uvs1),
    ] {
        if data.iter().flatten().any(|v| !v.is_finite()) {
            return Err(ImportErrorKind::NonFinite {
                object: format!("mesh {mesh} primitive {primitive} {name}"),
            });
        }
    }
    if formats.renormalize {
        normals.iter_mut().for_each(|n| renormalize(n, 3));
        tangents.iter_mut().for_each(|t| renormalize(t, 4));
    }
    let (joints, weights, influences_cut) = match joint_count {
        Some(joint_count) => read_influences(&read_n, &fail, mesh, primitive, n, joint_count)?,
        // A rigid mesh follows its node: joint streams, if any, have no skin to refer to.
        None => (Vec::new(), Vec::new(), 0),
    };

    let mut indices = match prim.indices() {
        Some(acc) => {
            let (idx, _) = read_accessor::<u32>(&acc, buffers, &INDICES)?;
            if let Some(&bad) = idx.iter().find(|&&i| i as usize >= n) {
                return Err(fail(format!(
                    "index {bad} is not below the vertex count {n}"
                )));
            }
            idx
        }
        None => (0..n as u32).collect(),
    };
    // glTF only warns about a count that is not a whole number of triangles: the indices left
    // over after the last whole triangle draw nothing.
    let whole = indices.len() - indices.len() % 3;
    indices.truncate(whole);
    let targets = super::morph::read_targets(prim, buffers, mesh, n, formats.quantized)?;
    let to3 = |d: Option<Vec<f32>>| -> Vec<[f32; 3]> {
        d.map_or_else(
            || vec![[0.0; 3]; n],
            |d| d.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
        )
    };
    Ok(RawMesh {
        name: String::new(),
        node: 0,
        skin: None,
        positions: to3(Some(p)),
        normals: to3(normals),
        uvs: uvs.map_or_else(
            || vec![[0.0; 2]; n],
            |d| d.chunks_exact(2).map(|c| [c[0], c[1]]).collect(),
        ),
        tangents: tangents.map(|d| {
            d.chunks_exact(4)
                .map(|c| [c[0], c[1], c[2], c[3]])
                .collect()
        }),
        uvs1: uvs1.map(|d| d.chunks_exact(2).map(|c| [c[0], c[1]]).collect()),
        colors: colors.filter(|c| c.iter().flatten().all(|v| v.is_finite())),
        material: None,
        joints,
        weights,
        indices,
        targets,
        influences_cut,
    })
}

/// Influences per vertex (every `JOINTS_n`/`WEIGHTS_n` set, cut to the strongest
/// [`MAX_INFLUENCES`], renormalized) as skin joint indices and weights, and how many vertices
/// were cut.
#[allow(clippy::type_complexity)]
fn read_influences(
    read_n: &ReadAttribute<'_>,
    fail: &dyn Fn(String) -> ImportErrorKind,
    mesh: usize,
    primitive: usize,
    n: usize,
    joint_count: usize,
) -> Result<
    (
        Vec<[u16; MAX_INFLUENCES]>,
        Vec<[f32; MAX_INFLUENCES]>,
        usize,
    ),
    ImportErrorKind,
> {
    let sets = read_influence_sets(&read_n, &fail)?;
    let mut joints = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    let mut influences_cut = 0;
    let mut influences: Vec<(u32, f32)> = Vec::with_capacity(sets.len() * 4);
    for v in 0..n {
        influences.clear();
        for (j, w) in &sets {
            for k in 0..4 {
                influences.push((j[v * 4 + k] as u32, w[v * 4 + k]));
            }
        }
        let mut sum = 0.0;
        for &(j, w) in &influences {
            if !w.is_finite() || w < 0.0 {
                return Err(ImportErrorKind::ZeroWeights {
                    mesh,
                    primitive,
                    vertex: v,
                });
            }
            if w > 0.0 && j as usize >= joint_count {
                return Err(ImportErrorKind::JointIndex {
                    mesh,
                    primitive,
                    vertex: v,
                    joint: j,
                    joint_count,
                });
            }
            sum += w;
        }
        if !sum.is_finite() {
            return Err(ImportErrorKind::ZeroWeights {
                mesh,
                primitive,
                vertex: v,
            });
        }
        if sum == 0.0 {
            // No influence (valid glTF): kept all zero, baked as rigid with the character.
            joints.push([0; MAX_INFLUENCES]);
            weights.push([0.0; MAX_INFLUENCES]);
            continue;
        }
        if influences.iter().filter(|i| i.1 > 0.0).count() > MAX_INFLUENCES {
            influences_cut += 1;
        }
        // Keep the largest influences (stable for ties) and renormalize.
        influences.sort_by(|a, b| b.1.total_cmp(&a.1));
        influences.truncate(MAX_INFLUENCES);
        let kept: f32 = influences.iter().map(|i| i.1).sum();
        let mut jv = [0u16; MAX_INFLUENCES];
        let mut wv = [0f32; MAX_INFLUENCES];
        for (k, &(j, w)) in influences.iter().enumerate() {
            if w > 0.0 {
                jv[k] = j as u16;
                wv[k] = w / kept;
            }
        }
        joints.push(jv);
        weights.push(wv);
    }
    Ok((joints, weights, influences_cut))
}

/// Reads one vertex attribute of a primitive (`None` when absent), checking its element count.
type ReadAttribute<'a> =
    dyn Fn(Semantic, &Format) -> Result<Option<Vec<f32>>, ImportErrorKind> + 'a;

/// One `JOINTS_n` and `WEIGHTS_n` pair: flat components, four per vertex.
type InfluenceSet = (Vec<f32>, Vec<f32>);

/// Every `JOINTS_n`/`WEIGHTS_n` pair `read_n` finds, from set 0 up to the first one absent (flat
/// components, four per vertex). Set 0 is required; a set needs both accessors.
fn read_influence_sets(
    read_n: &ReadAttribute<'_>,
    fail: &dyn Fn(String) -> ImportErrorKind,
) -> Result<Vec<InfluenceSet>, ImportErrorKind> {
    let mut sets = Vec::new();
    for set in 0u32.. {
        let joints = read_n(Semantic::Joints(set), &JOINTS)?;
        let weights = read_n(Semantic::Weights(set), &WEIGHTS)?;
        match (joints, weights) {
            (Some(j), Some(w)) => sets.push((j, w)),
            (None, None) if set > 0 => break,
            (None, _) if set == 0 => return Err(fail("no JOINTS_0".into())),
            (_, None) if set == 0 => return Err(fail("no WEIGHTS_0".into())),
            _ => {
                return Err(fail(format!(
                    "JOINTS_{set} and WEIGHTS_{set} must come together"
                )));
            }
        }
    }
    Ok(sets)
}

/// Scales the `xyz` of every `stride`-component element to unit length (zero stays zero).
fn renormalize(data: &mut [f32], stride: usize) {
    for v in data.chunks_exact_mut(stride) {
        let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if length > 0.0 && length.is_finite() {
            v[..3].iter_mut().for_each(|c| *c /= length);
        }
    }
}

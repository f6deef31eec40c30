//! Skinned mesh primitives: vertex streams with the four strongest influences per vertex.

use gltf::Document;
use gltf::Semantic;
use gltf::accessor::Dimensions;
use gltf::mesh::Mode;

use super::accessor::{F32, Format, INDEX_TYPES, JOINT_TYPES, UNORM, read_accessor};
use super::raw::{RawMesh, RawSkin};
use crate::error::ImportErrorKind;

const POSITIONS: Format = Format {
    usage: "POSITION",
    dims: Dimensions::Vec3,
    plain: F32,
    normalized: &[],
};
const NORMALS: Format = Format {
    usage: "NORMAL",
    dims: Dimensions::Vec3,
    plain: F32,
    normalized: &[],
};
const TANGENTS: Format = Format {
    usage: "TANGENT",
    dims: Dimensions::Vec4,
    plain: F32,
    normalized: &[],
};
const UVS: Format = Format {
    usage: "TEXCOORD_0",
    dims: Dimensions::Vec2,
    plain: F32,
    normalized: UNORM,
};
const JOINTS: Format = Format {
    usage: "JOINTS_n",
    dims: Dimensions::Vec4,
    plain: JOINT_TYPES,
    normalized: &[],
};
const WEIGHTS: Format = Format {
    usage: "WEIGHTS_n",
    dims: Dimensions::Vec4,
    plain: F32,
    normalized: UNORM,
};
const INDICES: Format = Format {
    usage: "indices",
    dims: Dimensions::Scalar,
    plain: INDEX_TYPES,
    normalized: &[],
};

/// Reads every triangle primitive of every skinned mesh node.
pub(crate) fn read_skinned_meshes(
    doc: &Document,
    buffers: &[gltf::buffer::Data],
    skins: &[RawSkin],
) -> Result<Vec<RawMesh>, ImportErrorKind> {
    let mut out = Vec::new();
    for node in doc.nodes() {
        let (Some(mesh), Some(skin)) = (node.mesh(), node.skin()) else {
            continue;
        };
        let joint_count = skins[skin.index()].joints.len();
        for prim in mesh.primitives() {
            if prim.mode() != Mode::Triangles {
                continue;
            }
            let mut raw = read_primitive(&prim, buffers, mesh.index(), joint_count)?;
            raw.name = mesh
                .name()
                .map_or_else(|| format!("mesh{}", mesh.index()), str::to_string);
            raw.node = node.index();
            raw.skin = skin.index();
            out.push(raw);
        }
    }
    Ok(out)
}

fn read_primitive(
    prim: &gltf::Primitive<'_>,
    buffers: &[gltf::buffer::Data],
    mesh: usize,
    joint_count: usize,
) -> Result<RawMesh, ImportErrorKind> {
    let primitive = prim.index();
    let fail = |reason: String| ImportErrorKind::Primitive {
        mesh,
        primitive,
        reason,
    };
    let attr = |sem: Semantic| prim.get(&sem);
    let positions_acc = attr(Semantic::Positions).ok_or_else(|| fail("no POSITION".into()))?;
    let (p, _) = read_accessor::<f32>(&positions_acc, buffers, &POSITIONS)?;
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
    let normals = read_n(Semantic::Normals, &NORMALS)?;
    let uvs = read_n(Semantic::TexCoords(0), &UVS)?;
    let tangents = read_n(Semantic::Tangents, &TANGENTS)?;
    let joints0 =
        read_n(Semantic::Joints(0), &JOINTS)?.ok_or_else(|| fail("no JOINTS_0".into()))?;
    let weights0 =
        read_n(Semantic::Weights(0), &WEIGHTS)?.ok_or_else(|| fail("no WEIGHTS_0".into()))?;
    let joints1 = read_n(Semantic::Joints(1), &JOINTS)?;
    let weights1 = read_n(Semantic::Weights(1), &WEIGHTS)?;
    if joints1.is_some() != weights1.is_some() {
        return Err(fail("JOINTS_1 and WEIGHTS_1 must come together".into()));
    }

    let mut joints = Vec::with_capacity(n);
    let mut weights = Vec::with_capacity(n);
    for v in 0..n {
        let mut influences: Vec<(u32, f32)> = Vec::with_capacity(8);
        let mut gather = |j: &[f32], w: &[f32]| {
            for k in 0..4 {
                influences.push((j[v * 4 + k] as u32, w[v * 4 + k]));
            }
        };
        gather(&joints0, &weights0);
        if let (Some(j1), Some(w1)) = (&joints1, &weights1) {
            gather(j1, w1);
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
            joints.push([0; 4]);
            weights.push([0.0; 4]);
            continue;
        }
        // Keep the four largest influences (stable for ties) and renormalize.
        influences.sort_by(|a, b| b.1.total_cmp(&a.1));
        influences.truncate(4);
        let kept: f32 = influences.iter().map(|i| i.1).sum();
        let mut j4 = [0u16; 4];
        let mut w4 = [0f32; 4];
        for (k, &(j, w)) in influences.iter().enumerate() {
            if w > 0.0 {
                j4[k] = j as u16;
                w4[k] = w / kept;
            }
        }
        joints.push(j4);
        weights.push(w4);
    }

    let indices = match prim.indices() {
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
    if indices.len() % 3 != 0 {
        return Err(fail(format!(
            "{} indices is not a whole number of triangles",
            indices.len()
        )));
    }
    let to3 = |d: Option<Vec<f32>>| -> Vec<[f32; 3]> {
        d.map_or_else(
            || vec![[0.0; 3]; n],
            |d| d.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
        )
    };
    Ok(RawMesh {
        name: String::new(),
        node: 0,
        skin: 0,
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
        joints,
        weights,
        indices,
    })
}

//! FBX meshes → [`RawMesh`]es: every mesh instance split by material (ufbx's material parts),
//! triangulated, its per-corner attributes (position, normal, the first two UV sets, the first
//! colour set, tangents) merged into one vertex per distinct combination, each part with its
//! material (see [`super::materials`]) and, when a skin deformer deforms the mesh, each vertex's
//! strongest influences.

use std::collections::HashMap;

use glam::Vec3;

use super::materials::Materials;
use super::{blend_shapes, name_or, skins};
use crate::error::ImportErrorKind;
use crate::import::raw::RawMesh;

/// One [`RawMesh`] per material part with at least one triangle of each node that
/// instantiates a mesh, in node order, then part order. A mesh deformed by a skin deformer is
/// skinned by the first one (positions in its bind space, see [`skins`]); any other is rigid,
/// in its node's space.
pub(super) fn read_meshes(
    scene: &ufbx::Scene,
    materials: &mut Materials<'_>,
) -> Result<Vec<RawMesh>, ImportErrorKind> {
    let mut meshes = Vec::new();
    for node in scene.nodes.iter() {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        let index = mesh.element.typed_id as usize;
        let name = name_or(&mesh.element, || format!("mesh{index}"));
        let whole: Vec<u32>;
        let parts: Vec<(Option<&ufbx::Material>, &[u32])> = if mesh.material_parts.is_empty() {
            whole = (0..mesh.faces.len() as u32).collect();
            vec![(None, &whole[..])]
        } else {
            mesh.material_parts
                .iter()
                .map(|part| {
                    let m = part.index as usize;
                    let material = node.materials.get(m).or_else(|| mesh.materials.get(m));
                    (material.map(|r| &**r), part.face_indices.as_ref())
                })
                .collect()
        };
        for (material, faces) in parts {
            let mut raw = read_part(mesh, node, &name, faces)?;
            if raw.indices.is_empty() {
                continue;
            }
            raw.material = material.map(|m| materials.get(m, mesh));
            meshes.push(raw);
        }
    }
    Ok(meshes)
}

/// A merged vertex: the value index of each attribute (position, normal, UV sets 0 and 1,
/// colour, tangent, bitangent; 0 where absent).
type VertexKey = [u32; 7];

/// The faces `faces` of one mesh instance as a triangle list.
fn read_part(
    mesh: &ufbx::Mesh,
    node: &ufbx::Node,
    name: &str,
    faces: &[u32],
) -> Result<RawMesh, ImportErrorKind> {
    let fail = |reason: String| ImportErrorKind::Mesh {
        mesh: name.to_string(),
        reason,
    };
    let skin = skins::only_skin(mesh).map_err(fail)?;
    // Geometry space → the space the positions are stored in.
    let placed = match skin {
        Some(skin) => skins::geometry_to_bind(skin).ok_or_else(|| {
            fail("the bind pose of its geometry is not an invertible transform".into())
        })?,
        None => super::mat4(&node.geometry_to_node),
    };
    let normal_matrix = glam::Mat3::from_mat4(placed).inverse().transpose();
    let vector_matrix = glam::Mat3::from_mat4(placed);
    let mut out = RawMesh {
        name: name.to_string(),
        node: node.element.typed_id as usize,
        skin: skin.map(|s| s.element.typed_id as usize),
        ..Default::default()
    };
    if !mesh.vertex_position.exists {
        return Err(fail("no vertex positions".into()));
    }
    let uv1 = mesh
        .uv_sets
        .get(1)
        .map(|s| &s.vertex_uv)
        .filter(|v| v.exists);
    let colors = mesh.vertex_color.exists.then_some(&mesh.vertex_color);
    let tangents =
        (mesh.vertex_normal.exists && mesh.vertex_tangent.exists && mesh.vertex_bitangent.exists)
            .then_some((&mesh.vertex_tangent, &mesh.vertex_bitangent));
    let mut uvs1 = Vec::new();
    let mut vertex_colors = Vec::new();
    let mut vertex_tangents = Vec::new();
    let mut merged: HashMap<VertexKey, u32> = HashMap::new();
    let mut cut = Vec::new();
    // The FBX vertex (control point) of each vertex.
    let mut sources = Vec::new();
    let mut corners = vec![0u32; mesh.max_face_triangles * 3];
    for &f in faces {
        let face = *mesh
            .faces
            .get(f as usize)
            .ok_or_else(|| fail(format!("material part names face {f}, out of range")))?;
        if face.num_indices < 3 {
            continue;
        }
        let count = ufbx::triangulate_face(&mut corners, mesh, face) as usize;
        for &corner in corners.iter().take(count * 3) {
            let corner = corner as usize;
            let index = |indices: &[u32]| attribute_index(indices, corner, &fail);
            let key: VertexKey = [
                index(&mesh.vertex_position.indices)?,
                index(&mesh.vertex_normal.indices)?,
                index(&mesh.vertex_uv.indices)?,
                uv1.map_or(Ok(0), |v| index(&v.indices))?,
                colors.map_or(Ok(0), |c| index(&c.indices))?,
                tangents.map_or(Ok(0), |t| index(&t.0.indices))?,
                tangents.map_or(Ok(0), |t| index(&t.1.indices))?,
            ];
            let next = out.positions.len() as u32;
            let vertex = *merged.entry(key).or_insert(next);
            if vertex == next {
                sources.push(key[0]);
                let position = value(&mesh.vertex_position.values, key[0], &fail)?;
                out.positions
                    .push(placed.transform_point3(Vec3::from(position)).to_array());
                let normal = if mesh.vertex_normal.exists {
                    let n = value(&mesh.vertex_normal.values, key[1], &fail)?;
                    (normal_matrix * Vec3::from(n)).normalize_or_zero()
                } else {
                    Vec3::ZERO
                };
                out.normals.push(normal.to_array());
                out.uvs.push(if mesh.vertex_uv.exists {
                    uv(&mesh.vertex_uv.values, key[2], &fail)?
                } else {
                    [0.0; 2]
                });
                if let Some(v) = uv1 {
                    uvs1.push(uv(&v.values, key[3], &fail)?);
                }
                if let Some(c) = colors {
                    vertex_colors.push(linear_color(indexed(&c.values, key[4], "colour", &fail)?));
                }
                if let Some((t, b)) = tangents {
                    let t = vector_matrix * Vec3::from(value(&t.values, key[5], &fail)?);
                    let b = vector_matrix * Vec3::from(value(&b.values, key[6], &fail)?);
                    let t = t.normalize_or_zero();
                    // glTF's bitangent is `cross(normal, tangent) × w`, towards FBX's +V.
                    let w = if normal.cross(t).dot(b) < 0.0 {
                        -1.0
                    } else {
                        1.0
                    };
                    vertex_tangents.push(t.extend(w).to_array());
                }
                if let Some(skin) = skin {
                    let control_point = attribute_index(&mesh.vertex_indices, corner, &fail)?;
                    let (j, w, was_cut) =
                        skins::influences(skin, control_point as usize, &|r| fail(r))?;
                    out.joints.push(j);
                    out.weights.push(w);
                    if was_cut {
                        cut.push(control_point);
                    }
                }
            }
            out.indices.push(vertex);
        }
    }
    out.uvs1 = uv1.map(|_| uvs1);
    out.colors = colors.map(|_| vertex_colors);
    out.tangents = tangents.map(|_| vertex_tangents);
    cut.sort_unstable();
    cut.dedup();
    out.influences_cut = cut.len();
    out.targets = blend_shapes::targets(mesh, &sources, placed, &fail)?;
    Ok(out)
}

/// One UV by index, flipped to glTF's V (FBX's V runs up the image, glTF's down).
fn uv(
    values: &[ufbx::Vec2],
    index: u32,
    fail: &dyn Fn(String) -> ImportErrorKind,
) -> Result<[f32; 2], ImportErrorKind> {
    let uv = indexed(values, index, "uv", fail)?;
    Ok([uv.x as f32, 1.0 - uv.y as f32])
}

/// One attribute value by index (`what` names the attribute in the error).
fn indexed<'v, T>(
    values: &'v [T],
    index: u32,
    what: &str,
    fail: &dyn Fn(String) -> ImportErrorKind,
) -> Result<&'v T, ImportErrorKind> {
    values
        .get(index as usize)
        .ok_or_else(|| fail(format!("{what} index {index} out of range")))
}

/// An FBX vertex colour (sRGB, as modelling tools write and show them) as linear RGBA in
/// `[0, 1]`, alpha kept.
fn linear_color(c: &ufbx::Vec4) -> [f32; 4] {
    let linear = |v: f64| {
        let v = if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            1.0
        };
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let alpha = if c.w.is_finite() {
        c.w.clamp(0.0, 1.0)
    } else {
        1.0
    };
    [
        linear(c.x) as f32,
        linear(c.y) as f32,
        linear(c.z) as f32,
        alpha as f32,
    ]
}

/// The value index of one face corner (0 when the attribute is absent).
fn attribute_index(
    indices: &[u32],
    corner: usize,
    fail: &dyn Fn(String) -> ImportErrorKind,
) -> Result<u32, ImportErrorKind> {
    if indices.is_empty() {
        return Ok(0);
    }
    indices
        .get(corner)
        .copied()
        .ok_or_else(|| fail(format!("face corner {corner} has no attribute index")))
}

/// One vector value by index, as `f32`.
fn value(
    values: &[ufbx::Vec3],
    index: u32,
    fail: &dyn Fn(String) -> ImportErrorKind,
) -> Result<[f32; 3], ImportErrorKind> {
    let v = indexed(values, index, "attribute", fail)?;
    Ok([v.x as f32, v.y as f32, v.z as f32])
}

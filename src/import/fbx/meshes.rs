//! FBX meshes → [`RawMesh`]es: every mesh instance triangulated, its per-corner attributes
//! (position, normal, first UV set) merged into one vertex per distinct combination, and, when
//! a skin deformer deforms it, each vertex's strongest influences.

use std::collections::HashMap;

use glam::Vec3;

use super::{blend_shapes, name_or, skins};
use crate::error::ImportErrorKind;
use crate::import::raw::RawMesh;

/// One [`RawMesh`] per node that instantiates a mesh with at least one triangle, in node order.
/// A mesh deformed by a skin deformer is skinned by it (positions in its bind space,
/// see [`skins`]); any other is rigid, in its node's space.
pub(super) fn read_meshes(scene: &ufbx::Scene) -> Result<Vec<RawMesh>, ImportErrorKind> {
    let mut meshes = Vec::new();
    for node in scene.nodes.iter() {
        let Some(mesh) = node.mesh.as_ref() else {
            continue;
        };
        let index = mesh.element.typed_id as usize;
        let name = name_or(&mesh.element, || format!("mesh{index}"));
        let raw = read_mesh(mesh, node, &name)?;
        if !raw.indices.is_empty() {
            meshes.push(raw);
        }
    }
    Ok(meshes)
}

/// One mesh instance as a triangle list.
fn read_mesh(mesh: &ufbx::Mesh, node: &ufbx::Node, name: &str) -> Result<RawMesh, ImportErrorKind> {
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
    let mut out = RawMesh {
        name: name.to_string(),
        node: node.element.typed_id as usize,
        skin: skin.map(|s| s.element.typed_id as usize),
        ..Default::default()
    };
    if !mesh.vertex_position.exists {
        return Err(fail("no vertex positions".into()));
    }
    // Corner attributes → merged vertex: (position index, normal index, uv index).
    let mut merged: HashMap<(u32, u32, u32), u32> = HashMap::new();
    let mut cut = Vec::new();
    // The FBX vertex (control point) of each vertex.
    let mut sources = Vec::new();
    let mut corners = vec![0u32; mesh.max_face_triangles * 3];
    for face in mesh.faces.iter() {
        if face.num_indices < 3 {
            continue;
        }
        let count = ufbx::triangulate_face(&mut corners, mesh, *face) as usize;
        for &corner in corners.iter().take(count * 3) {
            let corner = corner as usize;
            let key = (
                attribute_index(&mesh.vertex_position.indices, corner, &fail)?,
                attribute_index(&mesh.vertex_normal.indices, corner, &fail)?,
                attribute_index(&mesh.vertex_uv.indices, corner, &fail)?,
            );
            let next = out.positions.len() as u32;
            let vertex = *merged.entry(key).or_insert(next);
            if vertex == next {
                sources.push(key.0);
                let position = value(&mesh.vertex_position.values, key.0, &fail)?;
                out.positions
                    .push(placed.transform_point3(Vec3::from(position)).to_array());
                out.normals.push(if mesh.vertex_normal.exists {
                    let n = value(&mesh.vertex_normal.values, key.1, &fail)?;
                    (normal_matrix * Vec3::from(n))
                        .normalize_or_zero()
                        .to_array()
                } else {
                    [0.0; 3]
                });
                out.uvs.push(if mesh.vertex_uv.exists {
                    let uv = mesh
                        .vertex_uv
                        .values
                        .get(key.2 as usize)
                        .ok_or_else(|| fail(format!("uv index {} out of range", key.2)))?;
                    // FBX's V runs up the image, glTF's down.
                    [uv.x as f32, 1.0 - uv.y as f32]
                } else {
                    [0.0; 2]
                });
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
    cut.sort_unstable();
    cut.dedup();
    out.influences_cut = cut.len();
    out.targets = blend_shapes::targets(mesh, &sources, placed, &fail)?;
    Ok(out)
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
    let v = values
        .get(index as usize)
        .ok_or_else(|| fail(format!("attribute index {index} out of range")))?;
    Ok([v.x as f32, v.y as f32, v.z as f32])
}

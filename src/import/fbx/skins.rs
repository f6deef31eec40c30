//! FBX skin deformers → [`RawSkin`]s: one joint per cluster (its bone node), an inverse bind
//! from the cluster's geometry-to-bone matrix, and the mesh nodes the deformer deforms. Bind
//! space is the world at bind time (as glTF files usually have it): a skinned mesh's positions
//! are its geometry placed where the first cluster's bind pose put it, so a skin matrix is the
//! joint's world matrix times the inverse of its bind pose. Also the per-vertex influences a
//! mesh reads from its deformer.

use glam::Mat4;

use super::{mat4, name_or};
use crate::error::ImportErrorKind;
use crate::import::MAX_INFLUENCES;
use crate::import::raw::RawSkin;

/// One [`RawSkin`] per skin deformer, in ufbx order (skin `i` is `scene.skin_deformers[i]`).
pub(super) fn read_skins(scene: &ufbx::Scene) -> Result<Vec<RawSkin>, ImportErrorKind> {
    let mut skins = Vec::with_capacity(scene.skin_deformers.len());
    for (s, skin) in scene.skin_deformers.iter().enumerate() {
        let name = name_or(&skin.element, || format!("skin{s}"));
        let fail = |reason: String| ImportErrorKind::Skin {
            skin: s,
            reason: format!("{name:?}: {reason}"),
        };
        if skin.clusters.is_empty() {
            return Err(fail("no clusters".into()));
        }
        let to_bind = geometry_to_bind(skin).ok_or_else(|| {
            fail("the bind pose of its geometry is not an invertible transform".into())
        })?;
        let from_bind = to_bind.inverse();
        let mut joints = Vec::with_capacity(skin.clusters.len());
        let mut inverse_binds = Vec::with_capacity(skin.clusters.len());
        for (c, cluster) in skin.clusters.iter().enumerate() {
            let Some(bone) = cluster.bone_node.as_ref() else {
                return Err(fail(format!(
                    "cluster {c} ({:?}) has no bone node",
                    cluster.element.name.as_ref() as &str
                )));
            };
            joints.push(bone.element.typed_id as usize);
            inverse_binds.push(mat4(&cluster.geometry_to_bone) * from_bind);
        }
        let id = skin.element.typed_id;
        let mesh_nodes: Vec<usize> = scene
            .nodes
            .iter()
            .filter(|node| {
                node.mesh
                    .as_ref()
                    .is_some_and(|m| m.skin_deformers.iter().any(|d| d.element.typed_id == id))
            })
            .map(|node| node.element.typed_id as usize)
            .collect();
        skins.push(RawSkin {
            name: Some(name.clone()),
            joints,
            inverse_binds,
            skeleton_root: None,
            mesh_nodes,
        });
    }
    Ok(skins)
}

/// The skin deformer of `mesh`, if any; a mesh that several deform (each with its own bind
/// pose and weights, which sinew cannot merge exactly) is refused.
pub(super) fn only_skin(mesh: &ufbx::Mesh) -> Result<Option<&ufbx::SkinDeformer>, String> {
    match mesh.skin_deformers.as_ref() {
        [] => Ok(None),
        [skin] => Ok(Some(skin)),
        several => Err(format!(
            "deformed by {} skin deformers; sinew skins a mesh with one",
            several.len()
        )),
    }
}

/// Where a skinned mesh's geometry sits at bind time (the first cluster's geometry-to-world
/// matrix), when that is a finite, invertible transform.
pub(super) fn geometry_to_bind(skin: &ufbx::SkinDeformer) -> Option<Mat4> {
    let m = mat4(&skin.clusters.first()?.geometry_to_world);
    let det = m.determinant();
    (m.is_finite() && det.is_finite() && det != 0.0).then_some(m)
}

/// The influences of one skin vertex: its strongest [`MAX_INFLUENCES`] as cluster (joint)
/// indices and weights summing to one, strongest first, unused slots zero; all zero when no
/// cluster weighs the vertex. Also whether weaker influences were cut.
pub(super) fn influences(
    skin: &ufbx::SkinDeformer,
    vertex: usize,
    fail: &dyn Fn(String) -> ImportErrorKind,
) -> Result<([u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES], bool), ImportErrorKind> {
    let mut joints = [0u16; MAX_INFLUENCES];
    let mut weights = [0f32; MAX_INFLUENCES];
    let Some(v) = skin.vertices.get(vertex) else {
        return Ok((joints, weights, false));
    };
    let begin = v.weight_begin as usize;
    let Some(all) = skin.weights.get(begin..begin + v.num_weights as usize) else {
        return Err(fail(format!("vertex {vertex}: skin weights out of range")));
    };
    let mut list: Vec<(u32, f64)> = Vec::with_capacity(all.len());
    for w in all {
        if !w.weight.is_finite() || w.weight < 0.0 {
            return Err(fail(format!(
                "vertex {vertex}: skin weight {} is negative or not finite",
                w.weight
            )));
        }
        if w.cluster_index as usize >= skin.clusters.len() {
            return Err(fail(format!(
                "vertex {vertex}: cluster {} but the skin has {}",
                w.cluster_index,
                skin.clusters.len()
            )));
        }
        if w.weight > 0.0 {
            list.push((w.cluster_index, w.weight));
        }
    }
    // Strongest first (stable for ties), cut to the strongest ones, renormalized.
    list.sort_by(|a, b| b.1.total_cmp(&a.1));
    let cut = list.len() > MAX_INFLUENCES;
    list.truncate(MAX_INFLUENCES);
    let sum: f64 = list.iter().map(|w| w.1).sum();
    if sum > 0.0 && sum.is_finite() {
        for (k, &(c, w)) in list.iter().enumerate() {
            joints[k] = c as u16;
            weights[k] = (w / sum) as f32;
        }
    }
    Ok((joints, weights, cut))
}

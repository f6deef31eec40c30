//! Skinned meshes baked from raw primitives: joint indices remapped to the skeleton, weights
//! checked, per-joint bounds.

use glam::Vec3;

use crate::baked::{MAX_INFLUENCES, MeshMorph, Skeleton, SkinnedMesh};
use crate::error::{ImportError, ImportErrorKind};
use crate::import::RawMesh;
use crate::math::Aabb;

impl SkinnedMesh {
    /// Bakes a raw primitive. `skin_joints[k]` is the skeleton joint of skin joint `k`; `file`
    /// names the source in errors. A rigid mesh (no skin, no joint streams) is bound with
    /// weight 1 to `skin_joints[0]`, its node's joint. A vertex whose weights are all zero gets
    /// weight 1 on the skeleton's [`Skeleton::model_joint`], so it moves rigidly with the
    /// instance.
    ///
    /// Fails when `skin_joints` names a joint `skeleton` does not have, a vertex names a skin
    /// joint `skin_joints` does not have, the streams' lengths disagree with the positions', the
    /// indices are not whole triangles of existing vertices, a position or weight is not
    /// finite (or a weight negative), or a vertex has no weights and the skeleton no model joint.
    pub fn build(
        raw: &RawMesh,
        skeleton: &Skeleton,
        skin_joints: &[u16],
        file: &str,
    ) -> Result<Self, ImportError> {
        // A rigid mesh has no joint streams: every vertex is bound to skin joint 0 alone.
        let filled;
        let raw = if raw.skin.is_none() && raw.joints.is_empty() && raw.weights.is_empty() {
            let n = raw.positions.len();
            let mut one = [0.0; MAX_INFLUENCES];
            one[0] = 1.0;
            filled = RawMesh {
                joints: vec![[0; MAX_INFLUENCES]; n],
                weights: vec![one; n],
                ..raw.clone()
            };
            &filled
        } else {
            raw
        };
        check(raw, skeleton, skin_joints).map_err(|kind| ImportError::new(file, kind))?;
        let rigid = raw.weights.iter().position(|w| w.iter().all(|&x| x == 0.0));
        let model_joint = match rigid {
            None => 0,
            Some(v) => skeleton.model_joint().ok_or_else(|| {
                ImportError::new(
                    file,
                    ImportErrorKind::Mesh {
                        mesh: raw.name.clone(),
                        reason: format!(
                            "vertex {v} has no weights and the skeleton has no model-space root joint"
                        ),
                    },
                )
            })? as u16,
        };
        let mut weights = raw.weights.clone();
        // Slots without weight name joint 0, so unused slots 5-8 stay all zero.
        let joints: Vec<[u16; MAX_INFLUENCES]> = raw
            .joints
            .iter()
            .zip(&mut weights)
            .map(|(j, w)| {
                if w.iter().all(|&x| x == 0.0) {
                    *w = [0.0; MAX_INFLUENCES];
                    w[0] = 1.0;
                    let mut only = [0; MAX_INFLUENCES];
                    only[0] = model_joint;
                    return only;
                }
                std::array::from_fn(|k| {
                    if w[k] > 0.0 {
                        skin_joints[j[k] as usize]
                    } else {
                        0
                    }
                })
            })
            .collect();
        let mut bind_aabb = Aabb::EMPTY;
        let mut joint_bounds = vec![Aabb::EMPTY; skeleton.joint_count()];
        for (v, p) in raw.positions.iter().enumerate() {
            let p = Vec3::from(*p);
            bind_aabb.grow(p);
            for (&j, &w) in joints[v].iter().zip(&weights[v]) {
                if w > 0.0 {
                    let local = skeleton.inverse_binds()[j as usize].transform_point3(p);
                    joint_bounds[j as usize].grow(local);
                }
            }
        }
        Ok(Self {
            name: raw.name.clone(),
            node: Some(raw.node as u32),
            skin: raw.skin.map(|s| s as u32),
            positions: raw.positions.clone(),
            normals: raw.normals.clone(),
            uvs: raw.uvs.clone(),
            tangents: raw.tangents.clone(),
            uvs1: raw.uvs1.clone(),
            colors: raw.colors.clone(),
            material: raw.material.clone(),
            joints,
            weights,
            indices: raw.indices.clone(),
            bind_aabb,
            joint_bounds,
            morph: MeshMorph::default(),
            influences_cut: raw.influences_cut,
        })
    }
}

/// Everything [`SkinnedMesh::build`] indexes or copies, checked before it does.
fn check(raw: &RawMesh, skeleton: &Skeleton, skin_joints: &[u16]) -> Result<(), ImportErrorKind> {
    let fail = |reason: String| ImportErrorKind::Mesh {
        mesh: raw.name.clone(),
        reason,
    };
    let joints = skeleton.joint_count();
    if let Some((k, &j)) = skin_joints
        .iter()
        .enumerate()
        .find(|&(_, &j)| j as usize >= joints)
    {
        return Err(ImportErrorKind::IndexOutOfRange {
            object: format!("mesh {:?} skin joint {k}", raw.name),
            what: "skeleton joint",
            index: j as usize,
            count: joints,
        });
    }
    let vertices = raw.positions.len();
    let streams = [
        ("normals", raw.normals.len()),
        ("uvs", raw.uvs.len()),
        ("tangents", raw.tangents.as_ref().map_or(vertices, Vec::len)),
        ("uvs1", raw.uvs1.as_ref().map_or(vertices, Vec::len)),
        ("colors", raw.colors.as_ref().map_or(vertices, Vec::len)),
        ("joints", raw.joints.len()),
        ("weights", raw.weights.len()),
    ];
    if let Some((name, len)) = streams.iter().find(|(_, len)| *len != vertices) {
        return Err(fail(format!("{len} {name} for {vertices} positions")));
    }
    for (v, influences) in raw.joints.iter().enumerate() {
        if let Some(&k) = influences
            .iter()
            .find(|&&k| k as usize >= skin_joints.len())
        {
            return Err(ImportErrorKind::IndexOutOfRange {
                object: format!("mesh {:?} vertex {v}", raw.name),
                what: "skin joint",
                index: k as usize,
                count: skin_joints.len(),
            });
        }
    }
    if !raw.indices.len().is_multiple_of(3) {
        return Err(fail(format!(
            "{} indices is not a whole number of triangles",
            raw.indices.len()
        )));
    }
    if let Some(&i) = raw.indices.iter().find(|&&i| i as usize >= vertices) {
        return Err(fail(format!(
            "index {i} is not below the vertex count {vertices}"
        )));
    }
    if let Some(v) = raw
        .positions
        .iter()
        .position(|p| !p.iter().all(|x| x.is_finite()))
    {
        return Err(ImportErrorKind::NonFinite {
            object: format!("mesh {:?} position {v}", raw.name),
        });
    }
    if let Some(v) = raw
        .weights
        .iter()
        .position(|w| !w.iter().all(|x| x.is_finite() && *x >= 0.0))
    {
        return Err(fail(format!(
            "weights of vertex {v} are negative or not finite"
        )));
    }
    Ok(())
}

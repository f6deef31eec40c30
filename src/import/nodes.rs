//! The node forest and the skins that pick joints out of it.

use glam::{Mat4, Quat, Vec3};
use gltf::Document;
use gltf::accessor::Dimensions;

use super::accessor::{F32, Format, read_accessor};
use super::raw::{RawNode, RawSkin};
use crate::error::ImportErrorKind;
use crate::math::{Sqt, normalize_or_identity};

/// Reads every node's local transform and parent, rejecting cycles, shared children and
/// non-finite or non-decomposable transforms.
pub(crate) fn read_nodes(doc: &Document) -> Result<Vec<RawNode>, ImportErrorKind> {
    let count = doc.nodes().len();
    let mut parents: Vec<Option<usize>> = vec![None; count];
    for node in doc.nodes() {
        for child in node.children() {
            let c = child.index();
            if c == node.index() {
                return Err(ImportErrorKind::NodeGraph {
                    node: c,
                    reason: "node is its own child".into(),
                });
            }
            if let Some(p) = parents[c] {
                return Err(ImportErrorKind::NodeGraph {
                    node: c,
                    reason: format!("node has two parents ({p} and {})", node.index()),
                });
            }
            parents[c] = Some(node.index());
        }
    }
    // A cycle leaves nodes that never reach a root.
    for start in 0..count {
        let mut at = start;
        let mut steps = 0;
        while let Some(p) = parents[at] {
            at = p;
            steps += 1;
            if steps > count {
                return Err(ImportErrorKind::NodeGraph {
                    node: start,
                    reason: "node hierarchy contains a cycle".into(),
                });
            }
        }
    }
    doc.nodes()
        .map(|node| {
            let i = node.index();
            let rest = match node.transform() {
                gltf::scene::Transform::Matrix { matrix } => {
                    let m = Mat4::from_cols_array_2d(&matrix);
                    if !m.is_finite() {
                        return Err(ImportErrorKind::NonFinite {
                            object: format!("node {i} matrix"),
                        });
                    }
                    let sqt = Sqt::from_mat4(&m);
                    let back = Mat4::from(sqt.to_affine());
                    let tol = 1e-4
                        * m.abs()
                            .to_cols_array()
                            .iter()
                            .fold(1.0f32, |a, &b| a.max(b));
                    if !back.abs_diff_eq(m, tol) {
                        return Err(ImportErrorKind::NonDecomposableMatrix { node: i });
                    }
                    sqt
                }
                gltf::scene::Transform::Decomposed {
                    translation,
                    rotation,
                    scale,
                } => {
                    let sqt = Sqt {
                        translation: Vec3::from(translation),
                        rotation: Quat::from_array(rotation),
                        scale: Vec3::from(scale),
                    };
                    if !sqt.is_finite() {
                        return Err(ImportErrorKind::NonFinite {
                            object: format!("node {i} transform"),
                        });
                    }
                    Sqt {
                        rotation: normalize_or_identity(sqt.rotation),
                        ..sqt
                    }
                }
            };
            Ok(RawNode {
                name: node
                    .name()
                    .map_or_else(|| format!("node{i}"), str::to_string),
                parent: parents[i],
                rest,
            })
        })
        .collect()
}

/// Reads every skin: joints, inverse binds (identity when absent), skeleton root, mesh nodes.
pub(crate) fn read_skins(
    doc: &Document,
    buffers: &[gltf::buffer::Data],
    nodes: &[RawNode],
) -> Result<Vec<RawSkin>, ImportErrorKind> {
    let ibm_format = Format {
        usage: "inverse bind matrices",
        dims: Dimensions::Mat4,
        plain: F32,
        normalized: &[],
    };
    doc.skins()
        .map(|skin| {
            let s = skin.index();
            let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
            if joints.is_empty() {
                return Err(ImportErrorKind::Skin {
                    skin: s,
                    reason: "skin has no joints".into(),
                });
            }
            let mut seen = vec![false; nodes.len()];
            for &j in &joints {
                if std::mem::replace(&mut seen[j], true) {
                    return Err(ImportErrorKind::Skin {
                        skin: s,
                        reason: format!("node {j} appears twice in the joint list"),
                    });
                }
            }
            let inverse_binds = match skin.inverse_bind_matrices() {
                None => vec![Mat4::IDENTITY; joints.len()],
                Some(acc) => {
                    let (data, _) = read_accessor(&acc, buffers, &ibm_format)?;
                    if data.len() != joints.len() * 16 {
                        return Err(ImportErrorKind::Skin {
                            skin: s,
                            reason: format!(
                                "{} inverse bind matrices for {} joints",
                                data.len() / 16,
                                joints.len()
                            ),
                        });
                    }
                    let mats: Vec<Mat4> =
                        data.chunks_exact(16).map(Mat4::from_cols_slice).collect();
                    if let Some(j) = mats.iter().position(|m| !m.is_finite()) {
                        return Err(ImportErrorKind::NonFinite {
                            object: format!("skin {s} inverse bind matrix {j}"),
                        });
                    }
                    mats
                }
            };
            let mesh_nodes = doc
                .nodes()
                .filter(|n| n.mesh().is_some() && n.skin().map(|k| k.index()) == Some(s))
                .map(|n| n.index())
                .collect();
            Ok(RawSkin {
                name: skin.name().map(str::to_string),
                joints,
                inverse_binds,
                skeleton_root: skin.skeleton().map(|n| n.index()),
                mesh_nodes,
            })
        })
        .collect()
}

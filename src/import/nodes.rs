//! The node forest and the skins that pick joints out of it.

use glam::{Mat3, Mat4, Quat, Vec3, Vec4};
use gltf::Document;
use gltf::accessor::Dimensions;

use super::accessor::{F32, Format, read_accessor};
use super::document::Buffers;
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
                let reason = if p == node.index() {
                    format!("node is listed twice as a child of node {p}")
                } else {
                    format!("node has two parents ({p} and {})", node.index())
                };
                return Err(ImportErrorKind::NodeGraph { node: c, reason });
            }
            parents[c] = Some(node.index());
        }
    }
    if let Some(node) = find_cycle(&parents) {
        return Err(ImportErrorKind::NodeGraph {
            node,
            reason: "node hierarchy contains a cycle".into(),
        });
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
                    decompose(&m).ok_or(ImportErrorKind::NonDecomposableMatrix { node: i })?
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

/// Decomposes a node matrix into translation, rotation and scale, or `None` when it has shear
/// or a projective row. Axes of zero scale (a flattened node) are allowed: their rotation axis
/// is completed from the others.
fn decompose(m: &Mat4) -> Option<Sqt> {
    let reproduces = |sqt: &Sqt| {
        let tolerance = 1e-4
            * m.abs()
                .to_cols_array()
                .iter()
                .fold(1.0f32, |a, &b| a.max(b));
        sqt.is_finite() && Mat4::from(sqt.to_affine()).abs_diff_eq(*m, tolerance)
    };
    let sqt = Sqt::from_mat4(m);
    if reproduces(&sqt) {
        return Some(sqt);
    }
    // glam divides by the scale, so a zero-scale axis gives no rotation: rebuild the rotation
    // from the axes that have length.
    let columns = [
        m.x_axis.truncate(),
        m.y_axis.truncate(),
        m.z_axis.truncate(),
    ];
    let scale = Vec3::from(columns.map(Vec3::length));
    let min_length = 1e-6 * scale.max_element().max(f32::MIN_POSITIVE);
    let axis = |k: usize| (scale[k] > min_length).then(|| columns[k] / scale[k]);
    let basis = match (axis(0), axis(1), axis(2)) {
        (Some(x), Some(y), None) => Mat3::from_cols(x, y, x.cross(y)),
        (Some(x), None, Some(z)) => Mat3::from_cols(x, z.cross(x), z),
        (None, Some(y), Some(z)) => Mat3::from_cols(y.cross(z), y, z),
        (Some(x), None, None) => {
            let y = x.any_orthonormal_vector();
            Mat3::from_cols(x, y, x.cross(y))
        }
        (None, Some(y), None) => {
            let z = y.any_orthonormal_vector();
            Mat3::from_cols(y.cross(z), y, z)
        }
        (None, None, Some(z)) => {
            let x = z.any_orthonormal_vector();
            Mat3::from_cols(x, z.cross(x), z)
        }
        (None, None, None) => Mat3::IDENTITY,
        // Three axes with length that glam could not decompose: shear.
        (Some(_), Some(_), Some(_)) => return None,
    };
    let sqt = Sqt {
        translation: m.w_axis.truncate(),
        rotation: normalize_or_identity(Quat::from_mat3(&basis)),
        scale,
    };
    reproduces(&sqt).then_some(sqt)
}

/// How far an inverse bind matrix's last row may be from `[0, 0, 0, 1]` (float noise).
const AFFINE_TOLERANCE: f32 = 1e-5;

/// A node on a parent cycle (one that never reaches a root), if any. Linear in the node count:
/// each node is walked once.
fn find_cycle(parents: &[Option<usize>]) -> Option<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unvisited,
        OnPath,
        ReachesRoot,
    }
    let mut state = vec![State::Unvisited; parents.len()];
    let mut path = Vec::new();
    for start in 0..parents.len() {
        let mut at = Some(start);
        while let Some(n) = at {
            match state[n] {
                State::ReachesRoot => break,
                State::OnPath => return Some(n),
                State::Unvisited => {
                    state[n] = State::OnPath;
                    path.push(n);
                    at = parents[n];
                }
            }
        }
        for n in path.drain(..) {
            state[n] = State::ReachesRoot;
        }
    }
    None
}

/// For every node, the first node at or above it (walking up the parents) that `stop` picks, or
/// its root when none does. Linear in the node count: each node's answer is found once.
fn first_above(nodes: &[RawNode], stop: impl Fn(usize) -> bool) -> Vec<usize> {
    const UNKNOWN: usize = usize::MAX;
    let mut found = vec![UNKNOWN; nodes.len()];
    let mut path = Vec::new();
    for start in 0..nodes.len() {
        let mut at = start;
        // The hierarchy has no cycles (checked when the nodes were read), so this ends.
        let answer = loop {
            if found[at] != UNKNOWN {
                break found[at];
            }
            path.push(at);
            match nodes[at].parent {
                Some(parent) if !stop(at) => at = parent,
                _ => break at,
            }
        };
        for n in path.drain(..) {
            found[n] = answer;
        }
    }
    found
}

/// The joints of skin `skin` share one root, and its `skeleton`, when given, is the closest
/// common root of the joints or an ancestor of it: a node every joint is at or below.
fn check_skeleton(
    skin: usize,
    joints: &[usize],
    skeleton: Option<usize>,
    roots: &[usize],
    nodes: &[RawNode],
) -> Result<(), ImportErrorKind> {
    let fail = |reason| Err(ImportErrorKind::Skin { skin, reason });
    if let Some(&first) = joints.first()
        && let Some(&other) = joints.iter().find(|&&j| roots[j] != roots[first])
    {
        return fail(format!(
            "joints {first} and {other} have no common root (glTF requires one)"
        ));
    }
    if let Some(skeleton) = skeleton {
        let at_or_below = first_above(nodes, |n| n == skeleton);
        if let Some(&j) = joints.iter().find(|&&j| at_or_below[j] != skeleton) {
            return fail(format!(
                "skeleton node {skeleton} is not the common root of the joints nor above it (joint {j} is not below it)"
            ));
        }
    }
    Ok(())
}

/// Reads every skin: joints, inverse binds (identity when absent), skeleton root, mesh nodes.
pub(crate) fn read_skins(
    doc: &Document,
    buffers: &Buffers,
    nodes: &[RawNode],
) -> Result<Vec<RawSkin>, ImportErrorKind> {
    let ibm_format = Format {
        usage: "inverse bind matrices",
        dims: Dimensions::Mat4,
        plain: F32,
        normalized: &[],
        vertex: false,
        bounds: false,
    };
    let roots = first_above(nodes, |_| false);
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
            let skeleton = skin.skeleton().map(|n| n.index());
            check_skeleton(s, &joints, skeleton, &roots, nodes)?;
            let inverse_binds = match skin.inverse_bind_matrices() {
                None => vec![Mat4::IDENTITY; joints.len()],
                Some(acc) => {
                    let (data, _) = read_accessor(&acc, buffers, &ibm_format)?;
                    // glTF: the count is at least the joint count; matrices past it are unused.
                    if data.len() < joints.len() * 16 {
                        return Err(ImportErrorKind::Skin {
                            skin: s,
                            reason: format!(
                                "{} inverse bind matrices for {} joints (glTF requires at least one per joint)",
                                data.len() / 16,
                                joints.len()
                            ),
                        });
                    }
                    let mats: Vec<Mat4> = data
                        .chunks_exact(16)
                        .take(joints.len())
                        .map(Mat4::from_cols_slice)
                        .collect();
                    if let Some(j) = mats.iter().position(|m| !m.is_finite()) {
                        return Err(ImportErrorKind::NonFinite {
                            object: format!("skin {s} inverse bind matrix {j}"),
                        });
                    }
                    if let Some(j) = mats
                        .iter()
                        .position(|m| !m.row(3).abs_diff_eq(Vec4::W, AFFINE_TOLERANCE)) {
                        return Err(ImportErrorKind::Skin {
                            skin: s,
                            reason: format!(
                                "inverse bind matrix {j} is not affine (its last row is {:?}, glTF requires [0, 0, 0, 1])",
                                mats[j].row(3).to_array()
                            ),
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

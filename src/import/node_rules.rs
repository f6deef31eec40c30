//! The glTF 2.0 rules on scenes and nodes (specification §3.5) beyond the shape of the
//! hierarchy, which `nodes` checks while reading it: scene roots, `matrix` against
//! translation/rotation/scale, unit rotations, what `skin` and `weights` need, and animated
//! nodes without `matrix`.

use gltf::Document;

use super::raw::RawNode;
use crate::error::ImportErrorKind;

/// How far a node rotation's length may be from 1 (glTF-Validator's threshold: a little above
/// the error of signed 8-bit quantization).
const UNIT_LENGTH_TOLERANCE: f32 = 0.00769;

fn node_rule(node: usize, reason: String) -> ImportErrorKind {
    ImportErrorKind::NodeRule { node, reason }
}

/// Checks every scene and node of `doc`, whose nodes were read into `nodes` (parents known).
pub(crate) fn check_nodes(doc: &Document, nodes: &[RawNode]) -> Result<(), ImportErrorKind> {
    check_scenes(doc, nodes)?;
    for (i, node) in doc.as_json().nodes.iter().enumerate() {
        let trs = [
            ("translation", node.translation.is_some()),
            ("rotation", node.rotation.is_some()),
            ("scale", node.scale.is_some()),
        ];
        if node.matrix.is_some()
            && let Some((name, _)) = trs.iter().find(|(_, present)| *present)
        {
            return Err(node_rule(
                i,
                format!("defines both matrix and {name} (glTF allows one or the other)"),
            ));
        }
        if let Some(rotation) = &node.rotation {
            let q = rotation.0;
            let length = q.iter().map(|c| c * c).sum::<f32>().sqrt();
            // NaN and infinity are reported as such when the node is read.
            if length.is_finite() && (length - 1.0).abs() > UNIT_LENGTH_TOLERANCE {
                return Err(node_rule(
                    i,
                    format!("rotation {q:?} has length {length}, not a unit quaternion"),
                ));
            }
        }
        if node.mesh.is_none() {
            for (property, present) in [
                ("skin", node.skin.is_some()),
                ("weights", node.weights.is_some()),
            ] {
                if present {
                    return Err(node_rule(
                        i,
                        format!("defines {property} but no mesh (glTF requires one)"),
                    ));
                }
            }
        }
    }
    check_animated_nodes(doc)
}

/// Every node a scene lists is a root, and listed once.
fn check_scenes(doc: &Document, nodes: &[RawNode]) -> Result<(), ImportErrorKind> {
    for scene in doc.scenes() {
        let mut listed = Vec::new();
        for node in scene.nodes() {
            let n = node.index();
            let fail = |reason| ImportErrorKind::Scene {
                scene: scene.index(),
                reason,
            };
            if listed.contains(&n) {
                return Err(fail(format!("lists node {n} twice")));
            }
            listed.push(n);
            if let Some(parent) = nodes.get(n).and_then(|node| node.parent) {
                return Err(fail(format!(
                    "lists node {n} as a root, but it is a child of node {parent}"
                )));
            }
        }
    }
    Ok(())
}

/// A node that an animation channel targets defines no `matrix` (glTF: "only TRS properties
/// MAY be present").
fn check_animated_nodes(doc: &Document) -> Result<(), ImportErrorKind> {
    for animation in doc.animations() {
        for (c, channel) in animation.channels().enumerate() {
            let node = channel.target().node();
            let matrix = doc.as_json().nodes.get(node.index()).map(|n| n.matrix);
            if matches!(matrix, Some(Some(_))) {
                return Err(ImportErrorKind::ChannelRule {
                    animation: animation.index(),
                    channel: c,
                    reason: format!(
                        "targets node {}, which defines matrix (an animated node must use translation, rotation and scale)",
                        node.index()
                    ),
                });
            }
        }
    }
    Ok(())
}

//! The FBX node forest: every ufbx node (its synthetic scene root first) with the local
//! transform ufbx resolved from pre/post rotation, pivots, offsets and scale inheritance.

use super::{name_or, quat, vec3};
use crate::import::raw::RawNode;
use crate::math::Sqt;

/// Name given to ufbx's synthetic scene root, as FBX files call it.
const ROOT_NAME: &str = "RootNode";

/// One [`RawNode`] per ufbx node, in ufbx order (node `i` is `scene.nodes[i]`, parents come
/// before their children).
pub(super) fn read_nodes(scene: &ufbx::Scene) -> Vec<RawNode> {
    scene
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| RawNode {
            name: if node.is_root && node.element.name.is_empty() {
                ROOT_NAME.to_string()
            } else {
                name_or(&node.element, || format!("node{i}"))
            },
            parent: node.parent.as_ref().map(|p| p.element.typed_id as usize),
            rest: sqt(&node.local_transform),
        })
        .collect()
}

/// A ufbx transform as sinew's translation-rotation-scale.
pub(super) fn sqt(t: &ufbx::Transform) -> Sqt {
    Sqt {
        translation: vec3(t.translation),
        rotation: quat(t.rotation),
        scale: vec3(t.scale),
    }
}

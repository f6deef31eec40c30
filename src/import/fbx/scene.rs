//! The FBX node forest: every ufbx node (its synthetic scene root first) with the local
//! transform ufbx resolved from pre/post rotation, pivots, offsets and scale inheritance.
//!
//! Where a model's scale cannot be compensated in its children's transforms (Maya's and
//! MotionBuilder's segment scale compensation with non-uniform or animated scale), ufbx adds a
//! nameless scale helper under it that carries the model's scale, and links the model's skin
//! clusters and normally inheriting children to the helper. The helper is then the joint the
//! file's model is, so it takes the model's name, and the model's own node, the unscaled parent
//! of the compensating children, is named [`UNSCALED_SUFFIX`] after it.

use super::{name_or, quat, vec3};
use crate::import::raw::RawNode;
use crate::math::Sqt;

/// Name given to ufbx's synthetic scene root, as FBX files call it.
const ROOT_NAME: &str = "RootNode";

/// Appended to the name of a model whose scale ufbx moved onto a helper node.
pub const UNSCALED_SUFFIX: &str = " (unscaled)";

/// One [`RawNode`] per ufbx node, in ufbx order (node `i` is `scene.nodes[i]`, parents come
/// before their children).
pub(super) fn read_nodes(scene: &ufbx::Scene) -> Vec<RawNode> {
    scene
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| RawNode {
            name: node_name(node, i),
            parent: node.parent.as_ref().map(|p| p.element.typed_id as usize),
            rest: sqt(&node.local_transform),
        })
        .collect()
}

/// The name of node `i`: the file's, the scene root's, the model's for its scale helper, or
/// `node{i}`.
fn node_name(node: &ufbx::Node, i: usize) -> String {
    let fallback = || format!("node{i}");
    if node.is_root && node.element.name.is_empty() {
        return ROOT_NAME.to_string();
    }
    if node.is_scale_helper
        && let Some(model) = node.parent.as_ref()
    {
        return name_or(&model.element, fallback);
    }
    let name = name_or(&node.element, fallback);
    if node.scale_helper.is_some() {
        return format!("{name}{UNSCALED_SUFFIX}");
    }
    name
}

/// A ufbx transform as sinew's translation-rotation-scale.
pub(super) fn sqt(t: &ufbx::Transform) -> Sqt {
    Sqt {
        translation: vec3(t.translation),
        rotation: quat(t.rotation),
        scale: vec3(t.scale),
    }
}

//! `KHR_animation_pointer`: animation channels whose target is a JSON pointer into the document
//! instead of a node and path. Before the document is parsed, pointers to a node's translation,
//! rotation, scale or morph weights, and to a mesh's morph weights (one channel per node that
//! draws the mesh), become the core channels they mean. Pointers to anything else (materials,
//! cameras, lights, extension data) keep their node-less target, which the parser then drops as
//! glTF asks, and are listed as notes on the extension.

use serde_json::{Value, json};

use crate::error::ImportErrorKind;

/// The extension's name.
pub const ANIMATION_POINTER: &str = "KHR_animation_pointer";

/// What a pointer names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pointer {
    /// A node's `translation`, `rotation`, `scale` or `weights`.
    Node { node: usize, path: &'static str },
    /// A mesh's default morph `weights`.
    MeshWeights { mesh: usize },
    /// A property sinew does not animate.
    Other,
}

/// The property `pointer` names: `/nodes/{i}/{path}` or `/meshes/{i}/weights`, else
/// [`Pointer::Other`]. A node or mesh index that is not a decimal number is an error.
fn parse(pointer: &str) -> Result<Pointer, String> {
    let parts: Vec<&str> = pointer.split('/').collect();
    let ["", collection @ ("nodes" | "meshes"), index, property] = parts.as_slice() else {
        return Ok(Pointer::Other);
    };
    let path = match *property {
        "translation" => "translation",
        "rotation" => "rotation",
        "scale" => "scale",
        "weights" => "weights",
        _ => return Ok(Pointer::Other),
    };
    let index: usize = index
        .parse()
        .map_err(|_| format!("pointer {pointer:?} has {index:?} where an index belongs"))?;
    Ok(match (*collection, path) {
        ("nodes", path) => Pointer::Node { node: index, path },
        (_, "weights") => Pointer::MeshWeights { mesh: index },
        _ => Pointer::Other,
    })
}

/// Whether the document lists the extension in `extensionsUsed`.
fn declared(value: &Value) -> bool {
    value
        .get("extensionsUsed")
        .and_then(Value::as_array)
        .is_some_and(|used| used.iter().any(|n| n == ANIMATION_POINTER))
}

/// Rewrites the pointer channels of a document that declares the extension into core channels
/// (see the module documentation) and returns one note per pointer it leaves to be dropped. A
/// pointer that is missing, not a string, or names a node or mesh the file does not have is an
/// [`ImportErrorKind::ChannelRule`] naming the animation and channel.
pub(crate) fn resolve(value: &mut Value) -> Result<Vec<String>, ImportErrorKind> {
    if !declared(value) {
        return Ok(Vec::new());
    }
    let count = |key: &str| value.get(key).and_then(Value::as_array).map_or(0, Vec::len);
    let (nodes, meshes) = (count("nodes"), count("meshes"));
    let mut drawn_by = vec![Vec::new(); meshes];
    for (n, node) in value
        .get("nodes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(mesh) = node.get("mesh").and_then(Value::as_u64)
            && let Some(users) = drawn_by.get_mut(mesh as usize)
        {
            users.push(n);
        }
    }
    let mut notes = Vec::new();
    let Some(animations) = value.get_mut("animations").and_then(Value::as_array_mut) else {
        return Ok(notes);
    };
    for (a, animation) in animations.iter_mut().enumerate() {
        let Some(channels) = animation.get_mut("channels").and_then(Value::as_array_mut) else {
            continue;
        };
        let mut added = Vec::new();
        for (c, channel) in channels.iter_mut().enumerate() {
            let rule = |reason: String| ImportErrorKind::ChannelRule {
                animation: a,
                channel: c,
                reason,
            };
            let Some(target) = channel.get("target") else {
                continue;
            };
            let Some(extension) = target
                .get("extensions")
                .and_then(|e| e.get(ANIMATION_POINTER))
            else {
                continue;
            };
            if target.get("node").is_some() {
                return Err(rule(format!(
                    "its target names a node and a {ANIMATION_POINTER} pointer"
                )));
            }
            let pointer = extension
                .get("pointer")
                .and_then(Value::as_str)
                .ok_or_else(|| rule(format!("its {ANIMATION_POINTER} has no pointer string")))?
                .to_string();
            let retarget = |channel: &mut Value, node: usize, path: &str| {
                channel["target"] = json!({ "node": node, "path": path });
            };
            match parse(&pointer).map_err(rule)? {
                Pointer::Node { node, .. } if node >= nodes => {
                    return Err(rule(format!(
                        "pointer {pointer:?} names node {node}, the file has {nodes}"
                    )));
                }
                Pointer::Node { node, path } => retarget(channel, node, path),
                Pointer::MeshWeights { mesh } if mesh >= meshes => {
                    return Err(rule(format!(
                        "pointer {pointer:?} names mesh {mesh}, the file has {meshes}"
                    )));
                }
                Pointer::MeshWeights { mesh } => match drawn_by[mesh].split_first() {
                    Some((&first, others)) => {
                        for &node in others {
                            let mut copy = channel.clone();
                            retarget(&mut copy, node, "weights");
                            added.push(copy);
                        }
                        retarget(channel, first, "weights");
                    }
                    None => notes.push(format!(
                        "animation {a} channel {c}: {pointer:?} animates a mesh no node draws \
                         (ignored)"
                    )),
                },
                Pointer::Other => notes.push(format!(
                    "animation {a} channel {c}: {pointer:?} is not a property sinew animates \
                     (ignored)"
                )),
            }
        }
        channels.extend(added);
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_name_node_and_mesh_properties() {
        let node = |node, path| Ok(Pointer::Node { node, path });
        assert_eq!(parse("/nodes/3/rotation"), node(3, "rotation"));
        assert_eq!(parse("/nodes/0/weights"), node(0, "weights"));
        assert_eq!(
            parse("/meshes/2/weights"),
            Ok(Pointer::MeshWeights { mesh: 2 })
        );
        assert_eq!(parse("/meshes/2/rotation"), Ok(Pointer::Other));
        assert_eq!(parse("/materials/0/emissiveFactor"), Ok(Pointer::Other));
        assert_eq!(parse("/nodes/0/extensions/x/y"), Ok(Pointer::Other));
        assert_eq!(parse("nodes/0/rotation"), Ok(Pointer::Other));
        assert!(parse("/nodes/first/rotation").is_err());
    }
}

//! The `sinew pose` report of baked rigs (a `.sinew` file): the same JSON as a glTF file's,
//! its skins from each rig's [`crate::baked::RigSkin`]s, its nodes from the rigs' joints.

use super::{
    AnimationRef, MorphWeightFrame, MorphWeightFrames, NodeFrame, NodeFrames, NodeSelection,
    PoseError, PoseEvaluator, PoseReport, PoseRequest, SkinFrame, SkinFrames, cols,
};
use crate::baked::{Channel, Rig};
use crate::instance::Layer;

/// Evaluates `request` on the baked `rigs` of file `file` with `evaluator`. Clip `N` is each
/// rig's clip `N` (a bake gives every rig the file's clips in file order); nodes are the joints'
/// source nodes (`Animated`: those a clip animates).
pub fn baked_pose_report(
    file: &str,
    rigs: &[Rig],
    request: &PoseRequest,
    evaluator: &mut dyn PoseEvaluator,
) -> Result<PoseReport, PoseError> {
    let count = rigs.iter().map(|r| r.clips.clip_count()).min().unwrap_or(0);
    let (frames, animation) = match &request.clip {
        None => (vec![(None, Vec::new())], None),
        Some((index, times)) => {
            let info = rigs
                .first()
                .and_then(|r| r.clips.clips().get(*index))
                .filter(|_| *index < count)
                .ok_or(PoseError::NoSuchAnimation {
                    index: *index,
                    count,
                })?;
            let frames: Vec<(Option<f32>, Vec<Layer>)> = times
                .iter()
                .map(|&t| (Some(t), vec![Layer::clip(*index as u32, t)]))
                .collect();
            let animation = AnimationRef {
                index: *index,
                name: Some(info.name.clone()).filter(|n| !n.is_empty()),
                duration: info.duration,
            };
            (frames, Some(animation))
        }
    };
    // Every rig at every time, evaluated once.
    let mut poses = Vec::with_capacity(rigs.len());
    for rig in rigs {
        let mut per_time = Vec::with_capacity(frames.len());
        for (_, layers) in &frames {
            per_time.push(
                evaluator
                    .evaluate(rig, layers)
                    .map_err(PoseError::Evaluate)?,
            );
        }
        poses.push(per_time);
    }
    let mut skins = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let names = rig.skeleton.names();
        let nodes = rig.skeleton.source_nodes();
        for skin in &rig.skins {
            let joints = || skin.joints.iter().map(|&j| j as usize);
            let mut mesh_nodes: Vec<usize> = rig
                .meshes
                .iter()
                .filter(|m| m.skin.is_some_and(|s| s as usize == skin.index))
                .filter_map(|m| m.node.map(|n| n as usize))
                .collect();
            mesh_nodes.sort_unstable();
            mesh_nodes.dedup();
            skins.push(SkinFrames {
                index: skin.index,
                name: Some(skin.name.clone()),
                joints: joints().map(|j| names[j].clone()).collect(),
                joint_nodes: joints().map(|j| nodes[j] as usize).collect(),
                mesh_nodes,
                frames: frames
                    .iter()
                    .zip(&poses[r])
                    .map(|((t, _), (models, palette))| SkinFrame {
                        t: *t,
                        world: joints().map(|j| cols(&models[j])).collect(),
                        skin: joints().map(|j| palette[j].to_cols_array()).collect(),
                    })
                    .collect(),
            });
        }
    }
    skins.sort_by_key(|s| s.index);
    let nodes = node_frames(rigs, request.nodes, &frames, &poses);
    let morph_weights = morph_weights(rigs, &frames, &poses);
    Ok(PoseReport {
        file: file.to_string(),
        animation,
        times: frames.iter().map(|f| f.0).collect(),
        skins,
        nodes,
        morph_weights,
    })
}

/// Model matrices and palette of every rig (outer) at every time (inner).
type Poses = [Vec<(Vec<glam::Affine3A>, Vec<crate::math::Mat3x4Rows>)>];

/// The selected nodes' world matrices: each joint's source node once (the first rig that has
/// it), ascending; `None` for [`NodeSelection::None`].
fn node_frames(
    rigs: &[Rig],
    selection: NodeSelection,
    frames: &[(Option<f32>, Vec<Layer>)],
    poses: &Poses,
) -> Option<NodeFrames> {
    if selection == NodeSelection::None {
        return None;
    }
    // (node, rig, joint)
    let mut picked: Vec<(usize, usize, usize)> = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let lib = &rig.clips;
        for (j, &node) in rig.skeleton.source_nodes().iter().enumerate() {
            let animated = (0..lib.clip_count())
                .any(|c| Channel::ALL.iter().any(|&ch| lib.is_animated(c, j, ch)));
            if selection == NodeSelection::All || animated {
                picked.push((node as usize, r, j));
            }
        }
    }
    picked.sort_by_key(|p| p.0);
    picked.dedup_by_key(|p| p.0);
    Some(NodeFrames {
        indices: picked.iter().map(|p| p.0).collect(),
        names: picked
            .iter()
            .map(|&(_, r, j)| rigs[r].skeleton.names()[j].clone())
            .collect(),
        frames: frames
            .iter()
            .enumerate()
            .map(|(t, (time, _))| NodeFrame {
                t: *time,
                world: picked
                    .iter()
                    .map(|&(_, r, j)| cols(&poses[r][t].0[j]))
                    .collect(),
            })
            .collect(),
    })
}

/// The weights of every mesh node with morph targets (each from the first rig that carries
/// it), ascending by node; `None` when no rig has any.
fn morph_weights(
    rigs: &[Rig],
    frames: &[(Option<f32>, Vec<Layer>)],
    poses: &Poses,
) -> Option<MorphWeightFrames> {
    // (node, rig, first weight, target count)
    let mut carried: Vec<(usize, usize, usize, usize)> = rigs
        .iter()
        .enumerate()
        .flat_map(|(r, rig)| {
            rig.morph.nodes().iter().map(move |m| {
                let first = m.first_weight as usize;
                (m.node as usize, r, first, m.target_count as usize)
            })
        })
        .collect();
    if carried.is_empty() {
        return None;
    }
    carried.sort_by_key(|c| c.0);
    carried.dedup_by_key(|c| c.0);
    let frames = frames
        .iter()
        .enumerate()
        .map(|(t, (time, _))| MorphWeightFrame {
            t: *time,
            weights: carried
                .iter()
                .map(|&(_, r, first, count)| {
                    let weights = crate::cpu::morph_weights(&rigs[r], &poses[r][t].1);
                    weights.get(first..first + count).unwrap_or(&[]).to_vec()
                })
                .collect(),
        })
        .collect();
    Some(MorphWeightFrames {
        nodes: carried.iter().map(|c| c.0).collect(),
        frames,
    })
}

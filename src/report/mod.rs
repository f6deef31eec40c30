//! The joint-matrix report `sinew pose` prints: world and skin matrices of every skin joint (and
//! optionally of nodes) at a list of times, in the JSON shape of the reference poses, plus the
//! morph weights of every mesh node with morph targets.

use glam::{Affine3A, Mat4};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::baked::Rig;
use crate::error::ImportError;
use crate::import::RawAsset;
use crate::instance::Layer;
use crate::math::Mat3x4Rows;

mod baked;
mod gpu_pose;
mod retarget_pose;

pub use baked::baked_pose_report;
pub use gpu_pose::GpuPose;
pub use retarget_pose::RetargetPose;

/// A whole report. Matrices are 16 column-major numbers relative to the glTF scene root.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoseReport {
    /// File name (without folders).
    pub file: String,
    /// The clip evaluated, `None` for the rest pose.
    pub animation: Option<AnimationRef>,
    /// The times evaluated (`[null]` for the rest pose).
    pub times: Vec<Option<f32>>,
    /// One entry per glTF skin.
    pub skins: Vec<SkinFrames>,
    /// World matrices of selected nodes, when asked for.
    #[serde(default)]
    pub nodes: Option<NodeFrames>,
    /// The morph weights applied at each time, when the file has morph targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub morph_weights: Option<MorphWeightFrames>,
}

/// The morph weights of every mesh node with morph targets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MorphWeightFrames {
    /// The mesh nodes (glTF node indices, ascending).
    pub nodes: Vec<usize>,
    /// One frame per time.
    pub frames: Vec<MorphWeightFrame>,
}

/// The morph weights of one time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MorphWeightFrame {
    /// The time, `None` for the rest pose.
    pub t: Option<f32>,
    /// Per node (in [`MorphWeightFrames::nodes`] order), one weight per morph target.
    pub weights: Vec<Vec<f32>>,
}

/// Which clip a report evaluates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnimationRef {
    /// glTF animation index.
    pub index: usize,
    /// Its name, if any.
    pub name: Option<String>,
    /// Its duration in seconds.
    pub duration: f32,
}

/// Matrices of one skin's joints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkinFrames {
    /// glTF skin index.
    pub index: usize,
    /// Skin name, if any.
    pub name: Option<String>,
    /// Joint names, in skin order.
    pub joints: Vec<String>,
    /// Joint node indices, in skin order.
    pub joint_nodes: Vec<usize>,
    /// Nodes whose mesh the skin deforms.
    pub mesh_nodes: Vec<usize>,
    /// One frame per time.
    pub frames: Vec<SkinFrame>,
}

/// One time of one skin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkinFrame {
    /// The time, `None` for the rest pose.
    pub t: Option<f32>,
    /// World matrix per joint.
    pub world: Vec<[f32; 16]>,
    /// `world × inverse bind` per joint.
    pub skin: Vec<[f32; 16]>,
}

/// World matrices of selected nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeFrames {
    /// Node indices.
    pub indices: Vec<usize>,
    /// Node names.
    pub names: Vec<String>,
    /// One frame per time.
    pub frames: Vec<NodeFrame>,
}

/// One time of the selected nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeFrame {
    /// The time, `None` for the rest pose.
    pub t: Option<f32>,
    /// World matrix per node.
    pub world: Vec<[f32; 16]>,
}

/// Which nodes a report lists besides the skins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeSelection {
    /// None.
    None,
    /// Every node an animation of the file targets.
    Animated,
    /// Every node of the file.
    All,
}

/// Something that evaluates one pose of a rig: returns the model matrix of every joint and the
/// palette block ([`Rig::palette_entries`]: one entry per joint, then the morph weights).
pub trait PoseEvaluator {
    /// Evaluates `rig` with `layers` at the identity world transform.
    fn evaluate(
        &mut self,
        rig: &Rig,
        layers: &[Layer],
    ) -> Result<(Vec<Affine3A>, Vec<Mat3x4Rows>), String>;
}

/// The CPU reference evaluator as a [`PoseEvaluator`].
pub struct CpuPose;

impl PoseEvaluator for CpuPose {
    fn evaluate(
        &mut self,
        rig: &Rig,
        layers: &[Layer],
    ) -> Result<(Vec<Affine3A>, Vec<Mat3x4Rows>), String> {
        crate::cpu::validate_layers(rig, &[], layers).map_err(|e| e.to_string())?;
        let n = rig.joint_count();
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
        crate::cpu::evaluate_pose(
            rig,
            &[],
            layers,
            &Affine3A::IDENTITY,
            &mut models,
            &mut palette,
        );
        Ok((models, palette))
    }
}

/// The CPU evaluator sampling compressed clips ([`crate::cpu::ClipSource::Compressed`]) as a
/// [`PoseEvaluator`]: each rig's clips are compressed to `budget` metres the first time it is
/// evaluated (or its stored compressed clips used).
pub struct CompressedCpuPose {
    budget: f32,
    /// Rigs evaluated so far (without meshes), with their compressed clips.
    rigs: Vec<Rig>,
}

impl CompressedCpuPose {
    /// An evaluator compressing clips to `budget` metres ([`crate::DEFAULT_ERROR_BUDGET`]).
    pub fn new(budget: f32) -> Self {
        Self {
            budget,
            rigs: Vec::new(),
        }
    }

    /// `rig` with compressed clips (built once per rig).
    fn compressed(&mut self, rig: &Rig) -> Result<&Rig, String> {
        let found = self
            .rigs
            .iter()
            .position(|r| r.skeleton == rig.skeleton && r.clips == rig.clips);
        let index = match found {
            Some(i) => i,
            None => {
                let compressed = match &rig.compressed {
                    Some(c) => c.clone(),
                    None => crate::baked::CompressedClips::build(rig, self.budget)
                        .map_err(|e| e.to_string())?,
                };
                self.rigs.push(Rig {
                    name: rig.name.clone(),
                    skeleton: rig.skeleton.clone(),
                    clips: rig.clips.clone(),
                    meshes: Vec::new(),
                    skins: rig.skins.clone(),
                    joint_bounds: rig.joint_bounds.clone(),
                    morph: rig.morph.clone(),
                    ik: rig.ik.clone(),
                    compressed: Some(compressed),
                });
                self.rigs.len() - 1
            }
        };
        Ok(&self.rigs[index])
    }
}

impl PoseEvaluator for CompressedCpuPose {
    fn evaluate(
        &mut self,
        rig: &Rig,
        layers: &[Layer],
    ) -> Result<(Vec<Affine3A>, Vec<Mat3x4Rows>), String> {
        crate::cpu::validate_layers(rig, &[], layers).map_err(|e| e.to_string())?;
        rig.check_parts()?;
        let rig = self.compressed(rig)?;
        let n = rig.joint_count();
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
        crate::cpu::evaluate_pose_from(
            rig,
            crate::cpu::ClipSource::Compressed,
            &[],
            layers,
            0,
            &Affine3A::IDENTITY,
            &mut models,
            &mut palette,
        );
        Ok((models, palette))
    }
}

/// A report request: which clip at which times (`None`: the rest pose) and which nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseRequest {
    /// Animation index and times, or `None` for the rest pose.
    pub clip: Option<(usize, Vec<f32>)>,
    /// Nodes to list.
    pub nodes: NodeSelection,
}

/// Errors of [`pose_report`].
#[derive(Debug, Error)]
pub enum PoseError {
    /// Baking the file failed.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The animation index does not exist.
    #[error("animation {index} does not exist (the file has {count})")]
    NoSuchAnimation {
        /// Index asked for.
        index: usize,
        /// Animations in the file.
        count: usize,
    },
    /// The evaluator failed.
    #[error("evaluation failed: {0}")]
    Evaluate(String),
}

fn cols(a: &Affine3A) -> [f32; 16] {
    Mat4::from(*a).to_cols_array()
}

/// Node rigs covering `selected` (each within [`crate::MAX_JOINTS`] including ancestors), with
/// `(position in selected, joint)` pairs telling where each selected node landed.
#[allow(clippy::type_complexity)]
fn node_rigs(
    asset: &RawAsset,
    selected: &[usize],
) -> Result<Vec<(Rig, Vec<(usize, usize)>)>, ImportError> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut closure = vec![false; asset.nodes.len()];
    let mut size = 0;
    for (slot, &node) in selected.iter().enumerate() {
        let mut added = Vec::new();
        let mut at = Some(node);
        while let Some(n) = at {
            if closure[n] {
                break;
            }
            added.push(n);
            at = asset.nodes[n].parent;
        }
        if groups.is_empty() || size + added.len() > crate::MAX_JOINTS {
            closure.iter_mut().for_each(|c| *c = false);
            groups.push(Vec::new());
            size = 0;
            added.clear();
            let mut at = Some(node);
            while let Some(n) = at {
                added.push(n);
                at = asset.nodes[n].parent;
            }
        }
        for &n in &added {
            closure[n] = true;
        }
        size += added.len();
        if let Some(g) = groups.last_mut() {
            g.push(slot);
        }
    }
    groups
        .into_iter()
        .map(|slots| {
            let nodes: Vec<usize> = slots.iter().map(|&s| selected[s]).collect();
            let rig = Rig::from_nodes(asset, &nodes, "nodes")?;
            let members = slots
                .iter()
                .filter_map(|&s| Some((s, rig.skeleton.joint_of_node(selected[s])?)))
                .collect();
            Ok((rig, members))
        })
        .collect()
}

/// Evaluates `request` on `asset` with `evaluator`.
pub fn pose_report(
    asset: &RawAsset,
    request: &PoseRequest,
    evaluator: &mut dyn PoseEvaluator,
) -> Result<PoseReport, PoseError> {
    pose_report_from(asset, asset, request, evaluator)
}

/// [`pose_report`] with the animation taken from `clips` (the file a retargeting evaluator
/// plays, [`RetargetPose`]): its index, name and duration come from there.
pub fn pose_report_from(
    asset: &RawAsset,
    clips: &RawAsset,
    request: &PoseRequest,
    evaluator: &mut dyn PoseEvaluator,
) -> Result<PoseReport, PoseError> {
    let frames: Vec<(Option<f32>, Vec<Layer>)> = match &request.clip {
        None => vec![(None, Vec::new())],
        Some((index, times)) => {
            if *index >= clips.clips.len() {
                return Err(PoseError::NoSuchAnimation {
                    index: *index,
                    count: clips.clips.len(),
                });
            }
            times
                .iter()
                .map(|&t| (Some(t), vec![Layer::clip(*index as u32, t)]))
                .collect()
        }
    };
    let animation = request.clip.as_ref().map(|(index, _)| AnimationRef {
        index: *index,
        name: Some(clips.clips[*index].name.clone()).filter(|n| !n.is_empty()),
        duration: clips.clips[*index].duration(),
    });
    let mut skins = Vec::new();
    let mut skin_rigs = Vec::with_capacity(asset.skins.len());
    for (s, skin) in asset.skins.iter().enumerate() {
        skin_rigs.push(Rig::from_skin(asset, s)?);
        let rig = &skin_rigs[s];
        let mut out = Vec::new();
        for (t, layers) in &frames {
            let (models, palette) = evaluator
                .evaluate(rig, layers)
                .map_err(PoseError::Evaluate)?;
            out.push(SkinFrame {
                t: *t,
                world: rig
                    .skins
                    .iter()
                    .flat_map(|s| &s.joints)
                    .map(|&j| cols(&models[j as usize]))
                    .collect(),
                skin: rig
                    .skins
                    .iter()
                    .flat_map(|s| &s.joints)
                    .map(|&j| palette[j as usize].to_cols_array())
                    .collect(),
            });
        }
        skins.push(SkinFrames {
            index: s,
            name: skin.name.clone(),
            joints: skin
                .joints
                .iter()
                .map(|&n| asset.nodes[n].name.clone())
                .collect(),
            joint_nodes: skin.joints.clone(),
            mesh_nodes: skin.mesh_nodes.clone(),
            frames: out,
        });
    }
    let selected: Vec<usize> = match request.nodes {
        NodeSelection::None => Vec::new(),
        NodeSelection::Animated => crate::bake::animated_nodes(asset),
        NodeSelection::All => (0..asset.nodes.len()).collect(),
    };
    let nodes = if request.nodes == NodeSelection::None {
        None
    } else {
        let rigs = node_rigs(asset, &selected)?;
        let mut out: Vec<NodeFrame> = frames
            .iter()
            .map(|(t, _)| NodeFrame {
                t: *t,
                world: vec![[0.0; 16]; selected.len()],
            })
            .collect();
        for (rig, members) in &rigs {
            for ((_, layers), frame) in frames.iter().zip(&mut out) {
                let (models, _) = evaluator
                    .evaluate(rig, layers)
                    .map_err(PoseError::Evaluate)?;
                for &(slot, joint) in members {
                    frame.world[slot] = cols(&models[joint]);
                }
            }
        }
        Some(NodeFrames {
            names: selected
                .iter()
                .map(|&n| asset.nodes[n].name.clone())
                .collect(),
            indices: selected,
            frames: out,
        })
    };
    let morph_weights = morph_weights(asset, &frames, &skin_rigs, evaluator)?;
    Ok(PoseReport {
        file: std::path::Path::new(&asset.file)
            .file_name()
            .map_or_else(|| asset.file.clone(), |f| f.to_string_lossy().into_owned()),
        animation,
        times: frames.iter().map(|f| f.0).collect(),
        skins,
        nodes,
        morph_weights,
    })
}

/// The weights of every mesh node with morph targets at each frame (`None` when the file has
/// none), each evaluated by a rig that carries the node: its skin's (or, for an unskinned node,
/// one whose skeleton holds it or an ancestor), else a node rig over it.
fn morph_weights(
    asset: &RawAsset,
    frames: &[(Option<f32>, Vec<Layer>)],
    skin_rigs: &[Rig],
    evaluator: &mut dyn PoseEvaluator,
) -> Result<Option<MorphWeightFrames>, PoseError> {
    if asset.morph_nodes.is_empty() {
        return Ok(None);
    }
    let nodes: Vec<usize> = asset.morph_nodes.iter().map(|n| n.node).collect();
    let mut out: Vec<MorphWeightFrame> = frames
        .iter()
        .map(|(t, _)| MorphWeightFrame {
            t: *t,
            weights: asset
                .morph_nodes
                .iter()
                .map(|n| n.weights.clone())
                .collect(),
        })
        .collect();
    let carries = |rig: &Rig, node: usize| rig.morph.node_of(node).is_some();
    let mut rigs: Vec<Rig> = skin_rigs
        .iter()
        .filter(|r| !r.morph.is_empty())
        .cloned()
        .collect();
    let uncarried: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|&n| !rigs.iter().any(|r| carries(r, n)))
        .collect();
    if !uncarried.is_empty() {
        rigs.extend(
            node_rigs(asset, &uncarried)?
                .into_iter()
                .map(|(rig, _)| rig),
        );
    }
    let mut done = vec![false; nodes.len()];
    for rig in &rigs {
        let slots: Vec<(usize, usize, usize)> = rig
            .morph
            .nodes()
            .iter()
            .filter_map(|m| {
                let k = nodes.iter().position(|&n| n == m.node as usize)?;
                let first = m.first_weight as usize;
                (!done[k]).then_some((k, first, first + m.target_count as usize))
            })
            .collect();
        if slots.is_empty() {
            continue;
        }
        for ((_, layers), frame) in frames.iter().zip(&mut out) {
            let (_, palette) = evaluator
                .evaluate(rig, layers)
                .map_err(PoseError::Evaluate)?;
            let weights = crate::cpu::morph_weights(rig, &palette);
            for &(k, start, end) in &slots {
                if let Some(w) = weights.get(start..end) {
                    frame.weights[k] = w.to_vec();
                }
            }
        }
        for &(k, _, _) in &slots {
            done[k] = true;
        }
    }
    Ok(Some(MorphWeightFrames { nodes, frames: out }))
}

//! The joint-matrix report `sinew pose` prints: world and skin matrices of every skin joint (and
//! optionally of nodes) at a list of times, in the JSON shape of the reference poses.

use glam::{Affine3A, Mat4};
use serde::{Deserialize, Serialize};

use crate::bake::Rig;
use crate::error::ImportError;
use crate::import::RawAsset;
use crate::instance::Layer;
use crate::math::Mat3x4Rows;

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

/// Something that evaluates one pose of a rig: returns model matrices and palette of every joint.
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
        let mut palette = vec![Mat3x4Rows::IDENTITY; n];
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

/// A report request: which clip at which times (`None`: the rest pose) and which nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct PoseRequest {
    /// Animation index and times, or `None` for the rest pose.
    pub clip: Option<(usize, Vec<f32>)>,
    /// Nodes to list.
    pub nodes: NodeSelection,
}

/// Errors of [`pose_report`].
#[derive(Debug)]
pub enum PoseError {
    /// Baking the file failed.
    Import(ImportError),
    /// The animation index does not exist.
    NoSuchAnimation {
        /// Index asked for.
        index: usize,
        /// Animations in the file.
        count: usize,
    },
    /// The evaluator failed.
    Evaluate(String),
}

impl std::fmt::Display for PoseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Import(e) => e.fmt(f),
            Self::NoSuchAnimation { index, count } => {
                write!(f, "animation {index} does not exist (the file has {count})")
            }
            Self::Evaluate(e) => write!(f, "evaluation failed: {e}"),
        }
    }
}

impl std::error::Error for PoseError {}

impl From<ImportError> for PoseError {
    fn from(e: ImportError) -> Self {
        Self::Import(e)
    }
}

fn cols(a: &Affine3A) -> [f32; 16] {
    Mat4::from(*a).to_cols_array()
}

/// Evaluates `request` on `asset` with `evaluator`.
pub fn pose_report(
    asset: &RawAsset,
    request: &PoseRequest,
    evaluator: &mut dyn PoseEvaluator,
) -> Result<PoseReport, PoseError> {
    let frames: Vec<(Option<f32>, Vec<Layer>)> = match &request.clip {
        None => vec![(None, Vec::new())],
        Some((index, times)) => {
            if *index >= asset.clips.len() {
                return Err(PoseError::NoSuchAnimation {
                    index: *index,
                    count: asset.clips.len(),
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
        name: Some(asset.clips[*index].name.clone()).filter(|n| !n.is_empty()),
        duration: asset.clips[*index].duration(),
    });
    let mut skins = Vec::new();
    for (s, skin) in asset.skins.iter().enumerate() {
        let rig = Rig::from_skin(asset, s)?;
        let mut out = Vec::new();
        for (t, layers) in &frames {
            let (models, palette) = evaluator
                .evaluate(&rig, layers)
                .map_err(PoseError::Evaluate)?;
            out.push(SkinFrame {
                t: *t,
                world: rig
                    .skin_joints
                    .iter()
                    .map(|&j| cols(&models[j as usize]))
                    .collect(),
                skin: rig
                    .skin_joints
                    .iter()
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
        let rig = Rig::from_nodes(asset, &selected, "nodes")?;
        let mut out = Vec::new();
        for (t, layers) in &frames {
            let (models, _) = evaluator
                .evaluate(&rig, layers)
                .map_err(PoseError::Evaluate)?;
            out.push(NodeFrame {
                t: *t,
                world: selected
                    .iter()
                    .map(|&n| {
                        rig.skeleton
                            .joint_of_node(n)
                            .map_or([0.0; 16], |j| cols(&models[j]))
                    })
                    .collect(),
            });
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
    Ok(PoseReport {
        file: std::path::Path::new(&asset.file)
            .file_name()
            .map_or_else(|| asset.file.clone(), |f| f.to_string_lossy().into_owned()),
        animation,
        times: frames.iter().map(|f| f.0).collect(),
        skins,
        nodes,
    })
}

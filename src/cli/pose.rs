//! `sinew pose`: joint matrices as JSON (see DESIGN: the shape of the reference poses).

use std::path::PathBuf;

use clap::{ArgGroup, Args, ValueEnum};
use sinew::report::{
    CompressedCpuPose, CpuPose, NodeSelection, PoseRequest, RetargetPose, pose_report,
    pose_report_from,
};
use sinew::{GpuContext, GpuPose};

use super::Backend;

/// Arguments of `sinew pose`: `--anim N --times T1,T2,...` or `--rest`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("pose").required(true).args(["anim", "rest"])))]
pub struct PoseArgs {
    /// The glTF (`.gltf`, `.glb`) or FBX file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Index of the animation to evaluate (0-based, in file order).
    #[arg(long, value_name = "N", requires = "times")]
    pub anim: Option<usize>,
    /// Times to evaluate, in seconds, comma-separated; clamped to the clip's keys (no looping).
    #[arg(
        long,
        value_name = "T1,T2,...",
        value_delimiter = ',',
        allow_hyphen_values = true,
        requires = "anim",
        value_parser = super::finite_seconds
    )]
    pub times: Vec<f32>,
    /// Print the rest pose instead: one frame with `t: null`.
    #[arg(long, conflicts_with = "times")]
    pub rest: bool,
    /// Which evaluator computes the matrices (both print the same numbers within tolerance).
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    pub backend: Backend,
    /// Evaluate from the clips compressed to the default error budget (0.1 mm) on the CPU,
    /// instead of the exact keys. The JSON names the evaluator that ran (`"backend"`) and the
    /// clip format it sampled (`"clips"`: `"exact"` or `"compressed"`).
    #[arg(long, conflicts_with = "backend")]
    pub resampled: bool,
    /// Which nodes' world matrices to list besides the skins [default: none, or animated when
    /// the file has no skin].
    #[arg(long, value_enum)]
    pub nodes: Option<Nodes>,
    /// Retargeting: the clips of another file.
    #[command(flatten)]
    pub retarget: super::retarget::RetargetFlags,
    /// How to read the file.
    #[command(flatten)]
    pub import: super::settings::ImportFlags,
}

/// The `--nodes` choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Nodes {
    /// No node listing.
    None,
    /// Every node the animation targets.
    Animated,
    /// Every node of the file.
    All,
}

impl PoseArgs {
    /// Evaluates the request and prints the report as one JSON object.
    pub fn run(&self) -> super::Result {
        let clip = self.anim.map(|anim| (anim, self.times.clone()));
        let asset = sinew::import_file_with(&self.file, &self.import.settings())?;
        let nodes = match self.nodes {
            None if asset.skins.is_empty() => NodeSelection::Animated,
            None | Some(Nodes::None) => NodeSelection::None,
            Some(Nodes::Animated) => NodeSelection::Animated,
            Some(Nodes::All) => NodeSelection::All,
        };
        let request = PoseRequest { clip, nodes };
        let (report, backend, clips) = if let Some(source) =
            self.retarget.source(&self.import.settings())?
        {
            if self.resampled || self.backend != Backend::Cpu {
                return Err("--clips-from evaluates on the CPU (exact clips)".into());
            }
            let path = self.retarget.clips_from.as_deref().unwrap_or(&self.file);
            let clips_asset = sinew::import_file_with(path, &self.import.settings())?;
            let mut evaluator = RetargetPose::new(source.rig, source.user, self.retarget.mirror);
            let report = pose_report_from(&asset, &clips_asset, &request, &mut evaluator)?;
            (report, Backend::Cpu, "retargeted")
        } else if self.resampled {
            let mut evaluator = CompressedCpuPose::new(sinew::DEFAULT_ERROR_BUDGET);
            let report = pose_report(&asset, &request, &mut evaluator)?;
            (report, Backend::Cpu, "compressed")
        } else {
            let report = match self.backend {
                Backend::Cpu => pose_report(&asset, &request, &mut CpuPose)?,
                Backend::Gpu => {
                    let context = GpuContext::new_headless()?;
                    pose_report(&asset, &request, &mut GpuPose::new(context))?
                }
            };
            (report, self.backend, "exact")
        };
        // The report names the evaluator and clip format that produced its numbers.
        let mut json = serde_json::to_value(&report)?;
        if let Some(object) = json.as_object_mut() {
            object.insert("backend".into(), backend.name().into());
            object.insert("clips".into(), clips.into());
        }
        super::print(&serde_json::to_string(&json)?)
    }
}

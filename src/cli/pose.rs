//! `sinew pose`: joint matrices as JSON (see DESIGN: the shape of the reference poses).

use std::path::PathBuf;

use clap::{ArgGroup, Args, ValueEnum};
use sinew::report::{
    CompressedCpuPose, CpuPose, NodeSelection, PoseEvaluator, PoseRequest, RetargetPose,
    baked_pose_report, pose_report, pose_report_from,
};
use sinew::{GpuContext, GpuPose};

use super::Backend;

/// Arguments of `sinew pose`: `--anim N --times T1,T2,...` or `--rest`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("pose").required(true).args(["anim", "rest"])))]
pub struct PoseArgs {
    /// The glTF (`.gltf`, `.glb`), FBX or baked (`.sinew`) file.
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
    #[arg(long, conflicts_with_all = ["backend", "compressed"])]
    pub resampled: bool,
    /// Evaluate the compressed clips a baked file stores (`sinew bake --compress`) on the CPU,
    /// instead of its exact keys (`"clips": "compressed"`); a file without them is refused.
    #[arg(long, conflicts_with = "backend")]
    pub compressed: bool,
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

/// What `sinew pose` evaluates: an imported file, or a baked one's rigs.
enum Source {
    /// A glTF or FBX file.
    Asset(sinew::RawAsset),
    /// A `.sinew` file.
    Baked(Vec<sinew::Rig>),
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
        let source = if self.file.extension().is_some_and(|e| e == "sinew") {
            Source::Baked(sinew::bake::file::read_file(&self.file)?)
        } else {
            Source::Asset(sinew::import_file_with(
                &self.file,
                &self.import.settings(),
            )?)
        };
        let skinned = match &source {
            Source::Asset(asset) => !asset.skins.is_empty(),
            Source::Baked(rigs) => rigs.iter().any(|r| !r.skins.is_empty()),
        };
        let nodes = match self.nodes {
            None if !skinned => NodeSelection::Animated,
            None | Some(Nodes::None) => NodeSelection::None,
            Some(Nodes::Animated) => NodeSelection::Animated,
            Some(Nodes::All) => NodeSelection::All,
        };
        let request = PoseRequest { clip, nodes };
        if self.compressed {
            let stores = matches!(&source, Source::Baked(rigs)
                if rigs.iter().all(|r| r.compressed.is_some()));
            if !stores {
                return Err(format!(
                    "{} stores no compressed clips (bake it with `sinew bake --compress`)",
                    self.file.display()
                )
                .into());
            }
        }
        let name = self.file.file_name().map_or_else(
            || self.file.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        let report = |evaluator: &mut dyn PoseEvaluator| match &source {
            Source::Asset(asset) => pose_report(asset, &request, evaluator),
            Source::Baked(rigs) => baked_pose_report(&name, rigs, &request, evaluator),
        };
        let (report, backend, clips) =
            if let Some(retarget) = self.retarget.source(&self.import.settings())? {
                if self.resampled || self.compressed || self.backend != Backend::Cpu {
                    return Err("--clips-from evaluates on the CPU (exact clips)".into());
                }
                let Source::Asset(asset) = &source else {
                    return Err("--clips-from plays clips on a glTF or FBX file's rig".into());
                };
                let path = self.retarget.clips_from.as_deref().unwrap_or(&self.file);
                let clips_asset = sinew::import_file_with(path, &self.import.settings())?;
                let mut evaluator =
                    RetargetPose::new(retarget.rig, retarget.user, self.retarget.mirror);
                let report = pose_report_from(asset, &clips_asset, &request, &mut evaluator)?;
                (report, Backend::Cpu, "retargeted")
            } else if self.resampled || self.compressed {
                let mut evaluator = CompressedCpuPose::new(sinew::DEFAULT_ERROR_BUDGET);
                (report(&mut evaluator)?, Backend::Cpu, "compressed")
            } else {
                let report = match self.backend {
                    Backend::Cpu => report(&mut CpuPose)?,
                    Backend::Gpu => {
                        let context = GpuContext::new_headless()?;
                        report(&mut GpuPose::new(context))?
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

//! `sinew render`: one character in one pose (or `--frames` poses, an animated PNG), lit and
//! shadowed on a ground plane, optionally with its skeleton drawn over it, framed from its
//! animated AABB.

use std::path::PathBuf;

use clap::{ArgGroup, Args, ValueEnum};
use glam::Affine3A;

use super::{Backend, CliError};
use sinew::render::{
    AnimatedPng, RenderTarget, Renderer, SkinningMode, Stage, StageCharacter, StageDesc, StageView,
};
use sinew::view::RecordEvaluator;
use sinew::{Aabb, CpuBackend, GpuBackend, GpuContext, InstanceRecord, Layer, Rig};

/// Arguments of `sinew render`: `--anim N --time T`, `--anim N --frames F`, or `--rest`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("pose").required(true).args(["anim", "rest"])))]
pub struct RenderArgs {
    /// The glTF (`.gltf`, `.glb`), FBX or `.sinew` file; every skinned mesh and rigid part is
    /// drawn.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Index of the animation to pose the character with (0-based, in file order); needs
    /// `--time` or `--frames`.
    #[arg(long, value_name = "N")]
    pub anim: Option<usize>,
    /// Time in the animation, in seconds (clamped to its keys).
    #[arg(
        long,
        value_name = "T",
        allow_hyphen_values = true,
        requires = "anim",
        conflicts_with = "frames",
        value_parser = super::finite_seconds
    )]
    pub time: Option<f32>,
    /// Write an animated PNG of F frames of the animation, from time 0 at `--fps` frames per
    /// second (looping over the clip), framed on every frame's box.
    #[arg(
        long,
        value_name = "F",
        requires = "anim",
        value_parser = clap::value_parser!(u32).range(1..=10_000)
    )]
    pub frames: Option<u32>,
    /// Frames per second of `--frames`.
    #[arg(
        long,
        value_name = "R",
        default_value_t = 30,
        requires = "frames",
        value_parser = clap::value_parser!(u32).range(1..=1000)
    )]
    pub fps: u32,
    /// Render the rest pose instead of an animation.
    #[arg(long, conflicts_with_all = ["time", "frames"])]
    pub rest: bool,
    /// The PNG file to write (an animated PNG with `--frames`).
    #[arg(long, value_name = "PNG")]
    pub out: PathBuf,
    /// Draw the skeleton over the mesh.
    #[arg(long)]
    pub bones: bool,
    /// Draw every mesh in a flat colour of its own instead of the file's materials.
    #[arg(long)]
    pub no_materials: bool,
    /// Width and height of the image, in pixels.
    #[arg(
        long,
        value_name = "PX",
        default_value_t = 512,
        value_parser = clap::value_parser!(u32).range(16..=4096)
    )]
    pub size: u32,
    /// How vertices are skinned.
    #[arg(long, value_enum, default_value_t = Skinning::Linear)]
    pub skinning: Skinning,
    /// Which evaluator computes the pose (the image is drawn on the GPU either way).
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    pub backend: Backend,
    /// How to read the file.
    #[command(flatten)]
    pub import: super::settings::ImportFlags,
}

/// The `--skinning` choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Skinning {
    /// Linear blend skinning.
    Linear,
    /// Dual-quaternion skinning.
    Dq,
}

impl Skinning {
    /// The renderer's mode.
    pub fn mode(self) -> SkinningMode {
        match self {
            Self::Linear => SkinningMode::Linear,
            Self::Dq => SkinningMode::DualQuaternion,
        }
    }
}

/// An evaluator of `drawn` (indices into `rigs`) on `backend`, each drawn rig's palette offset
/// and the palette entries they take.
fn poser(
    context: &GpuContext,
    rigs: &[Rig],
    drawn: &[usize],
    backend: Backend,
) -> super::Result<(RecordEvaluator, Vec<u32>, usize)> {
    match backend {
        Backend::Gpu => {
            let mut gpu = GpuBackend::new(context, rigs, &[])?;
            let offsets = drawn
                .iter()
                .map(|&r| gpu.allocate(r as u32).map(|b| b.offset))
                .collect::<Result<Vec<_>, _>>()?;
            let entries = gpu.palette_capacity() as usize;
            Ok((RecordEvaluator::gpu(gpu), offsets, entries))
        }
        Backend::Cpu => {
            let mut offsets = Vec::with_capacity(drawn.len());
            let mut next = 0u32;
            for &r in drawn {
                offsets.push(next);
                next += rigs[r].palette_entries() as u32;
            }
            let cpu = CpuBackend::new(rigs.to_vec(), Vec::new())?;
            let evaluator = RecordEvaluator::cpu(&context.device, cpu)?;
            Ok((evaluator, offsets, next as usize))
        }
    }
}

/// Evaluates `records` with `poser`; returns the box around them all.
fn pose(
    poser: &mut RecordEvaluator,
    context: &GpuContext,
    records: &[InstanceRecord],
    entries: usize,
) -> super::Result<Aabb> {
    poser.evaluate_at(context, 0.0, records, entries, &[])?;
    let mut aabb = Aabb::EMPTY;
    for b in poser.bounds() {
        aabb.merge(b);
    }
    Ok(aabb)
}

impl RenderArgs {
    /// `--anim` needs `--time` or `--frames` (a usage error otherwise).
    pub fn check(&self) -> Result<(), clap::Error> {
        if self.anim.is_some() && self.time.is_none() && self.frames.is_none() {
            return Err(super::usage_error(
                "render",
                clap::error::ErrorKind::MissingRequiredArgument,
                "--anim N needs --time T or --frames F",
            ));
        }
        Ok(())
    }

    /// Poses the file's skinned rigs, renders them lit and shadowed on a ground plane and
    /// writes the PNG.
    pub fn run(&self) -> super::Result {
        let progress = super::progress::steps("render");
        progress.set_message(format!("importing {}", self.file.display()));
        let written = self.render(&progress)?;
        progress.finish_and_clear();
        super::print(&written)
    }

    /// The times of the frames to draw: `--time`, `--frames` from 0 at `--fps` (wrapped over
    /// the clip's duration), or the rest pose (`None`).
    fn times(&self, rig: &Rig) -> Vec<Option<f32>> {
        match (self.anim, self.time, self.frames) {
            (Some(_), Some(time), _) => vec![Some(time)],
            (Some(anim), None, Some(frames)) => {
                let duration = rig.clips.clips().get(anim).map_or(0.0, |c| c.duration);
                (0..frames)
                    .map(|k| {
                        let t = k as f64 / f64::from(self.fps);
                        let t = if duration > 0.0 {
                            t % f64::from(duration)
                        } else {
                            0.0
                        };
                        Some(t as f32)
                    })
                    .collect()
            }
            _ => vec![None],
        }
    }

    /// Renders and saves the image; returns the line that describes it.
    fn render(&self, progress: &indicatif::ProgressBar) -> super::Result<String> {
        let (file, out, size) = (&self.file, &self.out, self.size);
        let rigs = super::load_rigs(file, &self.import.settings())?;
        progress.set_message("evaluating the pose");
        // Every rig with a skinned mesh: a character may be split over several skins.
        let drawn: Vec<usize> = (0..rigs.len())
            .filter(|&r| !rigs[r].meshes.is_empty())
            .collect();
        let Some(&first) = drawn.first() else {
            return Err(CliError::unusable(file, "no skinned mesh to render").into());
        };
        let clip_count = rigs[first].clips.clip_count();
        if let Some(anim) = self.anim.filter(|&a| a >= clip_count) {
            let reason = format!("--anim {anim}: the file has {clip_count} animation(s)");
            return Err(CliError::unusable(file, reason).into());
        }

        let context = GpuContext::new_headless()?;
        let (device, queue) = (&context.device, &context.queue);
        let renderer = Renderer::new(device)?;
        let (mut poser, offsets, entries) = poser(&context, &rigs, &drawn, self.backend)?;
        let records_at = |time: Option<f32>| {
            // No layer is the rest pose.
            let layers: Vec<Layer> = match (self.anim, time) {
                (Some(anim), Some(time)) => vec![Layer::clip(anim as u32, time)],
                _ => Vec::new(),
            };
            drawn
                .iter()
                .zip(&offsets)
                .map(|(&r, &offset)| {
                    InstanceRecord::new(r as u32, offset, &Affine3A::IDENTITY, &layers)
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let times = self.times(&rigs[first]);

        // The camera and the ground are framed on every frame's box, so the character stays
        // put in an animation.
        let mut aabb = Aabb::EMPTY;
        for &time in &times {
            aabb.merge(&pose(&mut poser, &context, &records_at(time)?, entries)?);
        }
        if aabb.is_empty() {
            return Err(CliError::NothingToDraw {
                what: out.display().to_string(),
                reason: "the posed character's box is empty",
            }
            .into());
        }
        let characters: Vec<StageCharacter> = drawn
            .iter()
            .zip(&offsets)
            .enumerate()
            .map(|(k, (&rig, &palette_offset))| StageCharacter {
                rig,
                palette_offset,
                aabb_index: k as u32,
                tint: [1.0; 3],
            })
            .collect();
        let (palette, aabbs) = poser.buffers();
        let desc = StageDesc {
            rigs: &rigs,
            characters: &characters,
            palette,
            aabbs,
            max_bone_overlays: if self.bones { characters.len() } else { 0 },
            materials: !self.no_materials,
        };
        let mut stage = Stage::new(device, queue, &renderer, &desc)?;
        stage.set_ground(device, queue, &renderer, &aabb)?;

        progress.set_message(format!(
            "drawing {size}x{size} (pipelines compile on first use)"
        ));
        let target = RenderTarget::new(device, &renderer, size, size, 2048)?;
        let view = StageView {
            camera: Stage::framing_camera(&aabb, target.aspect()),
            bones: self.bones,
            skinning: self.skinning.mode(),
            wireframe: false,
        };
        match self.frames {
            Some(frames) => {
                let mut apng = AnimatedPng::create(out, size, size, frames, self.fps)?;
                for &time in &times {
                    pose(&mut poser, &context, &records_at(time)?, entries)?;
                    stage.render(device, queue, &renderer, &target, &view, None)?;
                    apng.write_frame(&target.read_rgba8(device, queue)?)?;
                }
                apng.finish()?;
            }
            None => {
                // The buffers hold the last (only) pose evaluated above.
                stage.render(device, queue, &renderer, &target, &view, None)?;
                progress.set_message(format!("writing {}", out.display()));
                target.save_png(device, queue, out)?;
            }
        }
        let clip_name = |anim: usize| {
            rigs[first]
                .clips
                .clips()
                .get(anim)
                .map_or("", |c| c.name.as_str())
                .to_string()
        };
        let pose = match (self.anim, self.time, self.frames) {
            (Some(anim), Some(time), _) => {
                format!("animation {anim} ({:?}) at {time} s", clip_name(anim))
            }
            (Some(anim), None, Some(frames)) => format!(
                "animation {anim} ({:?}), {frames} frames at {} fps",
                clip_name(anim),
                self.fps
            ),
            _ => "rest pose".to_string(),
        };
        let names: Vec<String> = drawn
            .iter()
            .map(|&r| format!("{:?} ({} joints)", rigs[r].name, rigs[r].joint_count()))
            .collect();
        Ok(format!(
            "wrote {} ({size}x{size}): {}, {pose}, {} backend (exact clips), {}",
            out.display(),
            names.join(", "),
            self.backend.name(),
            context.adapter_summary()
        ))
    }
}

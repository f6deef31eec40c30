//! `sinew render`: one character in one pose, lit and shadowed on a ground plane, optionally
//! with its skeleton drawn over it, framed from its animated AABB and written to a PNG.

use std::path::PathBuf;

use clap::{ArgGroup, Args, ValueEnum};
use glam::{Affine3A, Vec3};

use super::{Backend, CliError};
use sinew::render::{
    BoneOverlay, Camera, RenderTarget, Renderer, Scene, ShadowSettings, SkinnedBatch,
    SkinnedBatchDesc, SkinnedInstance, SkinningMode, StaticMesh, bounding_sphere,
};
use sinew::{Aabb, CpuBackend, GpuBackend, GpuContext, InstanceRecord, Layer, Mat3x4Rows};

/// Mesh colours (linear rgb), one per mesh of the rig, repeating.
const MESH_COLORS: [[f32; 3]; 6] = [
    [0.80, 0.42, 0.26],
    [0.30, 0.50, 0.78],
    [0.42, 0.68, 0.36],
    [0.85, 0.72, 0.30],
    [0.62, 0.40, 0.72],
    [0.80, 0.80, 0.78],
];

/// Arguments of `sinew render`: `--anim N --time T` or `--rest`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("pose").required(true).args(["anim", "rest"])))]
pub struct RenderArgs {
    /// The glTF (`.gltf`, `.glb`) or FBX file; every skinned mesh and rigid part is drawn.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Index of the animation to pose the character with (0-based, in file order).
    #[arg(long, value_name = "N", requires = "time")]
    pub anim: Option<usize>,
    /// Time in the animation, in seconds (clamped to its keys).
    #[arg(
        long,
        value_name = "T",
        allow_hyphen_values = true,
        requires = "anim",
        value_parser = super::finite_seconds
    )]
    pub time: Option<f32>,
    /// Render the rest pose instead of an animation.
    #[arg(long, conflicts_with = "time")]
    pub rest: bool,
    /// The PNG file to write.
    #[arg(long, value_name = "PNG")]
    pub out: PathBuf,
    /// Draw the skeleton over the mesh.
    #[arg(long)]
    pub bones: bool,
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

impl RenderArgs {
    /// Poses the file's skinned rigs, renders them lit and shadowed on a ground plane and
    /// writes the PNG.
    pub fn run(&self) -> super::Result {
        let progress = super::progress::steps("render");
        progress.set_message(format!("importing {}", self.file.display()));
        let written = self.render(&progress)?;
        progress.finish_and_clear();
        super::print(&written)
    }

    /// Renders and saves the image; returns the line that describes it.
    fn render(&self, progress: &indicatif::ProgressBar) -> super::Result<String> {
        let (file, out, size) = (&self.file, &self.out, self.size);
        let skinning = match self.skinning {
            Skinning::Linear => SkinningMode::Linear,
            Skinning::Dq => SkinningMode::DualQuaternion,
        };
        let use_gpu = self.backend == Backend::Gpu;
        // No layer is the rest pose.
        let layers: Vec<Layer> = match (self.anim, self.time) {
            (Some(anim), Some(time)) => vec![Layer::clip(anim as u32, time)],
            _ => Vec::new(),
        };

        let asset = sinew::import_file_with(file, &self.import.settings())?;
        let rigs = sinew::bake_rigs(&asset)?;
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

        // One instance per drawn rig, palette blocks one after another (or allocated by the GPU
        // backend), box k for instance k.
        let mut offsets = Vec::with_capacity(drawn.len());
        let mut next = 0u32;
        for &r in &drawn {
            offsets.push(next);
            next += rigs[r].palette_entries() as u32;
        }
        let mut gpu_backend = if use_gpu {
            Some(GpuBackend::new(&context, &rigs, &[])?)
        } else {
            None
        };
        if let Some(backend) = gpu_backend.as_mut() {
            for (k, &r) in drawn.iter().enumerate() {
                offsets[k] = backend.allocate(r as u32)?.offset;
            }
        }
        let records = drawn
            .iter()
            .zip(&offsets)
            .map(|(&r, &offset)| {
                InstanceRecord::new(r as u32, offset, &Affine3A::IDENTITY, &layers)
            })
            .collect::<Result<Vec<_>, _>>()?;

        // The palette and boxes: evaluated on the GPU straight into its buffers, or on the CPU and
        // uploaded into buffers of the same shape.
        let uploaded;
        let (palette, aabbs, bounds) = match gpu_backend.as_mut() {
            Some(backend) => {
                backend.evaluate(&records)?;
                let bounds = backend.read_bounds(0..records.len())?;
                let backend = &*backend;
                (backend.palette_buffer(), backend.bounds_buffer(), bounds)
            }
            None => {
                let mut cpu = CpuBackend::new(rigs.clone(), Vec::new())?;
                let mut palette = vec![Mat3x4Rows::IDENTITY; next as usize];
                let mut bounds = vec![Aabb::EMPTY; records.len()];
                cpu.evaluate(&records, &mut palette, &mut bounds)?;
                let palette_buffer = sinew::render::create_palette_buffer(device, palette.len())?;
                sinew::render::write_palette(device, queue, &palette_buffer, 0, &palette)?;
                let aabb_buffer = sinew::render::create_aabb_buffer(device, bounds.len())?;
                sinew::render::write_aabbs(device, queue, &aabb_buffer, 0, &bounds)?;
                uploaded = (palette_buffer, aabb_buffer);
                (&uploaded.0, &uploaded.1, bounds)
            }
        };
        let mut aabb = Aabb::EMPTY;
        for b in &bounds {
            aabb.merge(b);
        }
        if aabb.is_empty() {
            return Err(CliError::NothingToDraw {
                what: out.display().to_string(),
                reason: "the posed character's box is empty",
            }
            .into());
        }

        let mut batches = Vec::with_capacity(drawn.len());
        let mut overlays = Vec::new();
        let mut color = 0;
        for (k, &r) in drawn.iter().enumerate() {
            let rig = &rigs[r];
            let colors: Vec<[f32; 3]> = (0..rig.meshes.len())
                .map(|m| MESH_COLORS[(color + m) % MESH_COLORS.len()])
                .collect();
            color += rig.meshes.len();
            let mut batch = SkinnedBatch::new(
                device,
                &renderer,
                &SkinnedBatchDesc {
                    label: &rig.name,
                    meshes: &rig.meshes,
                    mesh_colors: &colors,
                    capacity: 1,
                    palette,
                    aabbs,
                    preskin: false,
                },
            )?;
            batch.write_instances(
                queue,
                &[SkinnedInstance::new(
                    offsets[k],
                    rig.joint_count() as u32,
                    k as u32,
                    [1.0; 3],
                )],
            )?;
            batches.push(batch);
            if self.bones {
                overlays.push(BoneOverlay::new(
                    device,
                    &renderer,
                    &rig.skeleton,
                    palette,
                    offsets[k],
                    [1.0, 0.85, 0.1],
                )?);
            }
        }

        let (center, radius) = bounding_sphere(&aabb);
        let floor = Vec3::new(center.x, aabb.min[1], center.z);
        let ground = StaticMesh::ground_plane(
            device,
            queue,
            &renderer,
            floor,
            radius * 2.5,
            [0.55, 0.55, 0.52],
        )?;
        let mut shadow_bounds = aabb;
        shadow_bounds.grow(floor + Vec3::new(radius, 0.0, radius));
        shadow_bounds.grow(floor - Vec3::new(radius, 0.0, radius));

        progress.set_message(format!(
            "drawing {size}x{size} (pipelines compile on first use)"
        ));
        let target = RenderTarget::new(device, &renderer, size, size, 2048)?;
        let camera = Camera::frame_aabb(&aabb, Vec3::new(0.45, 0.3, 1.0), 0.7, target.aspect());
        let batch_refs: Vec<&SkinnedBatch> = batches.iter().collect();
        let statics = [&ground];
        let overlay_refs: Vec<&BoneOverlay> = overlays.iter().collect();
        let scene = Scene {
            shadow: Some(ShadowSettings::covering(shadow_bounds)),
            skinned: &batch_refs,
            statics: &statics,
            bones: &overlay_refs,
            skinning,
            ..Scene::new(camera)
        };
        renderer.render(device, queue, &target, &scene)?;
        progress.set_message(format!("writing {}", out.display()));
        target.save_png(device, queue, out)?;
        let pose = match (self.anim, self.time) {
            (Some(anim), Some(time)) => {
                let clip_name = rigs[first]
                    .clips
                    .clips()
                    .get(anim)
                    .map_or("", |c| c.name.as_str());
                format!("animation {anim} ({clip_name:?}) at {time} s")
            }
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

//! The crowd's rendered frames: framed on the front of the crowd, drawn from the palette the
//! timed evaluator produced (the GPU's buffers, or the CPU evaluator's output culled on the CPU
//! and uploaded for the characters in view or in the shadow map's frustum) with GPU culling
//! and shadows: the last frame saved as a PNG, every frame of `--frames-out` as an APNG.

use glam::Vec3;
use sinew::render::{
    Camera, CullFrusta, PaletteSegment, RenderTarget, Renderer, Scene, ShadowSettings,
    SkinnedBatch, SkinnedBatchDesc, SkinnedInstance, StaticMesh, aabb_in_frustum, bounding_sphere,
};
use sinew::{Aabb, GpuBackend, GpuContext, Rig};

use crate::cli::CliError;

use super::timed::{Evaluated, TimedRun};
use super::{Crowd, TINTS};

/// Size of the rendered frame in pixels.
const WIDTH: u32 = 1024;
const HEIGHT: u32 = 768;

/// The camera of the rendered frame for the characters' boxes `bounds` and the box around them
/// all: framed on the `framed` characters nearest the middle of the front edge, so poses are
/// readable; the rest of the crowd stretches away behind them. `None` when every box is empty.
pub(super) fn frame_camera(bounds: &[Aabb], aspect: f32, framed: usize) -> Option<(Camera, Aabb)> {
    frame_camera_front(bounds, aspect, framed).map(|(camera, all, _)| (camera, all))
}

/// [`frame_camera`] and the box of the framed characters.
fn frame_camera_front(bounds: &[Aabb], aspect: f32, framed: usize) -> Option<(Camera, Aabb, Aabb)> {
    let mut all = Aabb::EMPTY;
    for b in bounds {
        all.merge(b);
    }
    if all.is_empty() {
        return None;
    }
    let anchor = Vec3::new((all.min[0] + all.max[0]) * 0.5, 0.0, all.max[2]);
    let distance = |b: &Aabb| {
        let centre = (Vec3::from_slice(&b.min[..3]) + Vec3::from_slice(&b.max[..3])) * 0.5;
        (centre - anchor).with_y(0.0).length()
    };
    let mut nearest: Vec<&Aabb> = bounds.iter().filter(|b| !b.is_empty()).collect();
    let framed = framed.clamp(1, nearest.len());
    if framed > 0 {
        nearest.select_nth_unstable_by(framed - 1, |a, b| distance(a).total_cmp(&distance(b)));
    }
    let mut front = Aabb::EMPTY;
    for b in &nearest[..framed] {
        front.merge(b);
    }
    let camera = Camera::frame_aabb(&front, Vec3::new(0.35, 0.3, 1.0), 0.7, aspect);
    Some((camera, all, front))
}

/// Where the camera of [`frame_camera`] stands, for the characters' boxes `bounds`.
pub(super) fn camera_eye(bounds: &[Aabb], framed: usize) -> Option<Vec3> {
    let (camera, _) = frame_camera(bounds, WIDTH as f32 / HEIGHT as f32, framed)?;
    Some(camera.view.inverse().w_axis.truncate())
}

/// The GPU culling of the crowd on frames that are not drawn: the camera of [`frame_camera`]
/// and a batch over the GPU backend's palette and boxes, so each frame's verdicts reach the
/// next evaluation (characters out of view are skipped, `--skip-culled`).
pub(super) struct FrameCull {
    renderer: Renderer,
    batch: SkinnedBatch,
    camera: Camera,
    /// The camera's distance to the middle of the framed characters.
    near: f32,
    palette_entries: u32,
}

impl FrameCull {
    /// The culling of `crowd`'s GPU-resident characters, seen by the camera framed on `framed`
    /// of them now.
    pub(super) fn new(
        context: &GpuContext,
        rig: &Rig,
        crowd: &Crowd,
        gpu: &GpuBackend,
        framed: usize,
    ) -> crate::cli::Result<Self> {
        let device = &context.device;
        let renderer = Renderer::new(device)?;
        let slots = crowd.animator.slot_records();
        let bounds = gpu.read_bounds(0..slots.len())?;
        let Some((camera, _, front)) =
            frame_camera_front(&bounds, WIDTH as f32 / HEIGHT as f32, framed)
        else {
            return Err(CliError::NothingToDraw {
                what: "the crowd".into(),
                reason: "the crowd's animated boxes are empty",
            }
            .into());
        };
        let batch = crowd_batch(context, &renderer, rig, crowd, gpu)?;
        let eye = camera.view.inverse().w_axis.truncate();
        let centre = (Vec3::from_slice(&front.min[..3]) + Vec3::from_slice(&front.max[..3])) * 0.5;
        Ok(Self {
            renderer,
            batch,
            camera,
            near: (centre - eye).length().max(1e-3),
            palette_entries: gpu.palette_capacity(),
        })
    }

    /// The camera's distance to the middle of the framed characters.
    pub(super) fn near(&self) -> f32 {
        self.near
    }

    /// Where the camera stands.
    pub(super) fn eye(&self) -> Vec3 {
        self.camera.view.inverse().w_axis.truncate()
    }

    /// How many of the boxes in the GPU backend's first `slots` slots the camera's frustum
    /// keeps (one read-back, for the report).
    pub(super) fn in_view(&self, gpu: &GpuBackend, slots: usize) -> crate::cli::Result<usize> {
        let planes = self.camera.frustum_planes();
        let bounds = gpu.read_bounds(0..slots)?;
        Ok(bounds
            .iter()
            .filter(|b| aabb_in_frustum(&planes, b))
            .count())
    }

    /// Culls the crowd as evaluated last (rebuilding the batch when the palette grew).
    pub(super) fn run(
        &mut self,
        context: &GpuContext,
        rig: &Rig,
        crowd: &Crowd,
        gpu: &GpuBackend,
    ) -> crate::cli::Result {
        if gpu.palette_capacity() != self.palette_entries {
            self.batch = crowd_batch(context, &self.renderer, rig, crowd, gpu)?;
            self.palette_entries = gpu.palette_capacity();
        }
        let batches = [&self.batch];
        let scene = Scene {
            skinned: &batches,
            ..Scene::new(self.camera)
        };
        self.renderer
            .cull(&context.device, &context.queue, &scene)?;
        Ok(())
    }
}

/// A batch of every GPU-resident character of `crowd` over the backend's palette and boxes.
fn crowd_batch(
    context: &GpuContext,
    renderer: &Renderer,
    rig: &Rig,
    crowd: &Crowd,
    gpu: &GpuBackend,
) -> crate::cli::Result<SkinnedBatch> {
    let joints = rig.joint_count() as u32;
    let instances: Vec<SkinnedInstance> = (0u32..)
        .zip(crowd.animator.slot_records())
        .filter(|(_, r)| !r.is_empty())
        .enumerate()
        .map(|(i, (slot, r))| {
            SkinnedInstance::new(r.palette_offset, joints, slot, TINTS[i % TINTS.len()])
        })
        .collect();
    let mut batch = SkinnedBatch::new(
        &context.device,
        renderer,
        &SkinnedBatchDesc {
            label: "crowd",
            meshes: &rig.meshes,
            mesh_colors: &[],
            capacity: instances.len().max(1) as u32,
            palette: gpu.palette_segments(),
            aabbs: gpu.bounds_buffer(),
            preskin: false,
        },
    )?;
    batch.write_instances(&context.queue, &instances)?;
    batch.use_materials(&context.device, &context.queue, renderer, &rig.meshes)?;
    Ok(batch)
}

/// Draws frames of the crowd: a renderer, a target, and the framing of the first frame drawn
/// when it is kept for later ones (an animation whose camera stays put).
pub(super) struct Painter {
    renderer: Renderer,
    target: RenderTarget,
    keep_framing: bool,
    /// The camera, the box around the whole crowd and the shadow map's box.
    framing: Option<(Camera, Aabb, Aabb)>,
}

impl Painter {
    /// A painter of `WIDTH × HEIGHT` frames; with `keep_framing` every frame is seen as the
    /// first was.
    pub(super) fn new(context: &GpuContext, keep_framing: bool) -> crate::cli::Result<Self> {
        let renderer = Renderer::new(&context.device)?;
        let target = RenderTarget::new(&context.device, &renderer, WIDTH, HEIGHT, 2048)?;
        Ok(Self {
            renderer,
            target,
            keep_framing,
            framing: None,
        })
    }

    /// The width and height of its frames.
    pub(super) fn size(&self) -> (u32, u32) {
        (self.target.width(), self.target.height())
    }

    /// Renders the crowd's current frame from `frame`, the evaluator's palette and boxes,
    /// framing the front of the crowd (the first frame's framing when kept), and reads it back.
    /// `what` names the image in errors.
    pub(super) fn draw(
        &mut self,
        context: &GpuContext,
        rig: &Rig,
        crowd: &Crowd,
        frame: FramePalette<'_>,
        framed: usize,
        what: &std::path::Path,
    ) -> crate::cli::Result<sinew::render::RgbaImage> {
        let device = &context.device;
        let queue = &context.queue;
        let (renderer, target) = (&self.renderer, &self.target);
        let joints = rig.joint_count() as u32;
        let block = rig.palette_entries();
        // The GPU holds one record and box per tracking slot; the CPU one per record.
        let (records, bounds): (Vec<(u32, sinew::InstanceRecord)>, Vec<Aabb>) = match &frame {
            FramePalette::Gpu(g) => {
                let slots = crowd.animator.slot_records();
                let records = (0u32..)
                    .zip(slots.iter().copied())
                    .filter(|(_, r)| !r.is_empty())
                    .collect();
                (records, g.read_bounds(0..slots.len())?)
            }
            FramePalette::Cpu { bounds, .. } => {
                let records = (0u32..)
                    .zip(crowd.animator.records().iter().copied())
                    .collect();
                (records, bounds.to_vec())
            }
        };
        let framing = match self.framing.filter(|_| self.keep_framing) {
            Some(kept) => kept,
            None => {
                let Some((camera, all)) = frame_camera(&bounds, target.aspect(), framed) else {
                    return Err(nothing(what, "the crowd's animated boxes are empty").into());
                };
                // The shadow map covers the characters in view (and the ground around them),
                // not the whole crowd: fine enough to resolve their shadows, and its frustum,
                // the light's, takes in the characters just outside the view whose shadows
                // fall into it.
                let planes = camera.frustum_planes();
                let mut in_view = Aabb::EMPTY;
                for b in bounds.iter().filter(|b| aabb_in_frustum(&planes, b)) {
                    in_view.merge(b);
                }
                (camera, all, if in_view.is_empty() { all } else { in_view })
            }
        };
        self.framing = Some(framing);
        let (camera, all, shadowed) = framing;
        let lit = Scene {
            shadow: Some(ShadowSettings::covering(shadowed)),
            ..Scene::new(camera)
        };
        let out = what;

        let tint = |i: usize| TINTS[i % TINTS.len()];
        let uploaded;
        let (palette, aabbs, instances) = match frame {
            FramePalette::Gpu(g) => {
                let instances: Vec<SkinnedInstance> = records
                    .iter()
                    .enumerate()
                    .map(|(i, (aabb, r))| {
                        SkinnedInstance::new(r.palette_offset, joints, *aabb, tint(i))
                    })
                    .collect();
                (g.palette_segments(), g.bounds_buffer(), instances)
            }
            FramePalette::Cpu { palette: pose, .. } => {
                // The CPU evaluator's palette is in memory: cull on the CPU (the twin of the GPU
                // test) and upload only the characters in view or casting a shadow (in the light's
                // frustum), packed, rather than every palette.
                let frusta = CullFrusta::of(&lit);
                let visible: Vec<usize> = (0..records.len())
                    .filter(|&i| frusta.keeps(&bounds[i]))
                    .collect();
                if visible.is_empty() {
                    return Err(nothing(out, "no character is in view").into());
                }
                let n = block;
                let mut packed = Vec::with_capacity(visible.len() * n);
                let mut boxes = Vec::with_capacity(visible.len());
                let mut instances = Vec::with_capacity(visible.len());
                for (k, &i) in visible.iter().enumerate() {
                    let start = records[i].1.palette_offset as usize;
                    packed.extend_from_slice(&pose[start..start + n]);
                    boxes.push(bounds[i]);
                    instances.push(SkinnedInstance::new(
                        (k * n) as u32,
                        joints,
                        k as u32,
                        tint(i),
                    ));
                }
                let palette_buffer = sinew::render::create_palette_buffer(device, packed.len())?;
                sinew::render::write_palette(device, queue, &palette_buffer, 0, &packed)?;
                let aabb_buffer = sinew::render::create_aabb_buffer(device, boxes.len())?;
                sinew::render::write_aabbs(device, queue, &aabb_buffer, 0, &boxes)?;
                uploaded = ([PaletteSegment::whole(&palette_buffer)], aabb_buffer);
                (&uploaded.0[..], &uploaded.1, instances)
            }
        };
        let mut batch = SkinnedBatch::new(
            device,
            renderer,
            &SkinnedBatchDesc {
                label: "crowd",
                meshes: &rig.meshes,
                mesh_colors: &[],
                capacity: instances.len() as u32,
                palette,
                aabbs,
                preskin: false,
            },
        )?;
        batch.write_instances(queue, &instances)?;
        batch.use_materials(device, queue, renderer, &rig.meshes)?;
        let (center, radius) = bounding_sphere(&all);
        let floor = Vec3::new(center.x, all.min[1], center.z);
        let ground = StaticMesh::ground_plane(
            device,
            queue,
            renderer,
            floor,
            radius * 2.2,
            [0.55, 0.55, 0.52],
        )?;
        let batches = [&batch];
        let statics = [&ground];
        let scene = Scene {
            skinned: &batches,
            statics: &statics,
            ..lit
        };
        renderer.render(device, queue, target, &scene)?;
        Ok(target.read_rgba8(device, queue)?)
    }
}

/// Where a drawn frame's palette and boxes are.
pub(super) enum FramePalette<'a> {
    /// In the GPU backend's buffers, one box per slot.
    Gpu(&'a GpuBackend),
    /// In memory, at each record's offset, one box per record.
    Cpu {
        palette: &'a [sinew::Mat3x4Rows],
        bounds: &'a [Aabb],
    },
}

impl TimedRun {
    /// Renders the crowd's last timed frame from what its evaluator produced (never a second
    /// evaluation), framing the front of the crowd, and saves it as a PNG. Counts the
    /// characters in the culling camera's view first, where a GPU culling pass ran.
    pub(super) fn render(
        &mut self,
        context: &GpuContext,
        out: &std::path::Path,
        framed: usize,
    ) -> crate::cli::Result {
        if let (Some(c), Some(g)) = (&self.cull, self.gpu.as_ref()) {
            let slots = self.crowd.animator.slot_records().len();
            self.characters_in_view = Some(c.in_view(g, slots)?);
        }
        let frame = match (&self.evaluated, self.gpu.as_ref()) {
            (Evaluated::Gpu, Some(g)) => FramePalette::Gpu(g),
            (Evaluated::Cpu { palette, bounds }, None) => FramePalette::Cpu { palette, bounds },
            _ => return Err(nothing(out, "no evaluated palette to draw").into()),
        };
        let mut painter = Painter::new(context, false)?;
        let image = painter.draw(context, &self.rig, &self.crowd, frame, framed, out)?;
        image.save_png(out)?;
        Ok(())
    }
}

/// [`CliError::NothingToDraw`] for the image at `out`.
fn nothing(out: &std::path::Path, reason: &'static str) -> CliError {
    CliError::NothingToDraw {
        what: out.display().to_string(),
        reason,
    }
}

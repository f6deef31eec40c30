//! One frame of the viewer without a window: the state's records evaluated by the chosen
//! backend into palette and box buffers, then drawn by a [`Stage`] into a [`RenderTarget`].
//! The window draws the same frame into the texture it shows.

use super::ViewError;
use super::evaluator::RecordEvaluator;
use super::lod::{LOD_COLORS, kernel_levels, policy_levels, view_policy};
use super::state::{ViewBackend, ViewClips, ViewerState};
use super::timing::{FrameTimer, FrameTimes};
use crate::gpu::{ClipFormat, GpuOptions};
use crate::math::Aabb;
use crate::render::{Camera, RenderTarget, Renderer, Stage, StageCharacter, StageDesc, StageView};
use crate::{CpuBackend, GpuBackend, GpuContext};

/// Most characters drawn with their skeleton over them.
const MAX_BONE_OVERLAYS: usize = 64;

/// The viewer's frame: its evaluator and stage, rebuilt when the state's generation changes.
pub struct ViewerFrame {
    renderer: Renderer,
    evaluator: Option<RecordEvaluator>,
    stage: Option<Stage>,
    built: Option<u64>,
    placed: Vec<StageCharacter>,
    tinted: Vec<StageCharacter>,
    lod: Vec<usize>,
    pose_bounds: Aabb,
    bounds: Vec<Aabb>,
    joints: Vec<(String, glam::Vec3)>,
    timer: FrameTimer,
}

impl ViewerFrame {
    /// A frame for `device`.
    pub fn new(device: &wgpu::Device) -> Result<Self, ViewError> {
        Ok(Self {
            renderer: Renderer::new(device)?,
            evaluator: None,
            stage: None,
            built: None,
            placed: Vec::new(),
            tinted: Vec::new(),
            lod: Vec::new(),
            pose_bounds: Aabb::EMPTY,
            bounds: Vec::new(),
            joints: Vec::new(),
            timer: FrameTimer::new(),
        })
    }

    /// The renderer (for render targets).
    pub fn renderer(&self) -> &Renderer {
        &self.renderer
    }

    /// The box around every character as last evaluated.
    pub fn pose_bounds(&self) -> Aabb {
        self.pose_bounds
    }

    /// Each character's box (one per record of the animator) as last evaluated, or on the GPU
    /// backend as last read back without waiting (a frame or two late).
    pub fn bounds(&self) -> &[Aabb] {
        &self.bounds
    }

    /// The first character's joints (name, world position) as last evaluated, when the state
    /// asks for joint names.
    pub fn joints(&self) -> &[(String, glam::Vec3)] {
        &self.joints
    }

    /// The characters as last drawn, with their tints.
    pub fn characters(&self) -> &[StageCharacter] {
        &self.tinted
    }

    /// Each character's LOD level as last drawn (its tint is [`LOD_COLORS`] of it): with LOD
    /// colours on, the level the GPU kernel chose under the viewer's
    /// [`LodPolicy`](crate::LodPolicy) ([`view_policy`]), or on a CPU backend the level that
    /// policy gives ([`policy_levels`]); all 0 with them off.
    pub fn lod_levels(&self) -> &[usize] {
        &self.lod
    }

    /// How long a recent frame's stages took: GPU time where the device has timestamp
    /// queries (a frame or two late), else wall time (see [`FrameTimes::stages`]).
    pub fn times(&self) -> FrameTimes {
        self.timer.times()
    }

    /// Times stages with GPU timestamp queries where the device has them (`true`, the
    /// default), or with the wall clock only.
    pub fn set_gpu_timing(&mut self, on: bool) {
        if on != self.timer.uses_gpu() {
            self.timer.set_gpu(on);
            // The GPU evaluator times itself once asked; a new one is not.
            self.built = None;
        }
    }

    /// Evaluates the state's characters at its frame time and draws them into `target` seen
    /// by `camera`. Draws nothing (an empty frame) when no file is open.
    pub fn draw(
        &mut self,
        context: &GpuContext,
        state: &ViewerState,
        camera: &Camera,
        target: &RenderTarget,
    ) -> Result<(), ViewError> {
        let (device, queue) = (&context.device, &context.queue);
        let Some(animator) = state.animator() else {
            let scene = crate::render::Scene::new(*camera);
            self.renderer.render(device, queue, target, &scene)?;
            return Ok(());
        };
        if self.built != Some(state.generation()) {
            self.evaluator = None;
            self.stage = None;
            self.built = Some(state.generation());
        }
        let evaluator = match &mut self.evaluator {
            Some(e) => e,
            empty => {
                let mut made = make_evaluator(context, state)?;
                // The panels' boxes and LOD colours may be a frame or two late: no stall.
                made.set_late_bounds(true);
                if self.timer.uses_gpu() {
                    made.enable_timing()?;
                }
                empty.insert(made)
            }
        };
        let records = animator.records();
        let now = animator.frame_time();
        let capacity = animator.palette().capacity() as usize;
        self.timer.start();
        let overrides = morph_overrides(state, records);
        let policy = state.lod_colors.then(|| view_policy(camera, records));
        evaluator.set_lod_policy(policy);
        let rebuilt = evaluator.evaluate_at(context, now, records, capacity, &overrides)?;
        let bounds = evaluator.bounds().to_vec();
        let gpu_ms = match self.timer.uses_gpu() {
            true => evaluator.gpu_ms_async()?,
            false => None,
        };
        self.timer.evaluated(gpu_ms);
        let mut all = Aabb::EMPTY;
        for b in &bounds {
            all.merge(b);
        }
        self.pose_bounds = all;
        self.joints.clear();
        if let (true, Some(first)) = (state.show_joint_names, records.first()) {
            let rig = &state.rigs()[first.rig as usize];
            let n = rig.palette_entries() as u32;
            let block = evaluator.palette_block(first.palette_offset..first.palette_offset + n)?;
            let origins = crate::render::bind_space_origins(&rig.skeleton);
            for ((name, entry), origin) in rig.skeleton.names().iter().zip(&block).zip(origins) {
                let position = entry.to_affine().transform_point3(origin);
                self.joints.push((name.clone(), position));
            }
        }
        self.bounds = bounds.clone();

        self.timer.start();
        let characters: Vec<StageCharacter> = (0u32..)
            .zip(records)
            .map(|(k, r)| StageCharacter {
                rig: r.rig as usize,
                palette_offset: r.palette_offset,
                aabb_index: k,
                tint: [1.0; 3],
            })
            .collect();
        // The level the kernel chose (it applies the policy), or its CPU twin's.
        let lod = match &policy {
            None => vec![0; records.len()],
            Some(_) if evaluator.is_gpu() => kernel_levels(&bounds),
            Some(p) => policy_levels(p, records),
        };
        if rebuilt || self.stage.is_none() || characters != self.placed || lod != self.lod {
            let (palette, aabbs) = evaluator.buffers();
            let tinted: Vec<StageCharacter> = characters
                .iter()
                .zip(&lod)
                .map(|(c, &l)| StageCharacter {
                    tint: LOD_COLORS[l],
                    ..*c
                })
                .collect();
            let desc = StageDesc {
                rigs: state.rigs(),
                characters: &tinted,
                palette,
                aabbs,
                max_bone_overlays: MAX_BONE_OVERLAYS,
                materials: true,
            };
            let mut stage = Stage::new(device, queue, &self.renderer, &desc)?;
            // Under the framed box and every character (a crowd stands on it too).
            let mut ground = state.framing();
            ground.merge(&self.pose_bounds);
            stage.set_ground(device, queue, &self.renderer, &ground)?;
            self.stage = Some(stage);
            self.placed = characters;
            self.tinted = tinted;
            self.lod = lod;
        }
        let view = StageView {
            camera: *camera,
            bones: state.show_bones,
            skinning: state.skinning,
            wireframe: state.show_wireframe,
        };
        if let Some(stage) = &self.stage {
            let stamps = self.timer.scene_timestamps(context)?;
            stage.render(device, queue, &self.renderer, target, &view, stamps)?;
        }
        self.timer.drawn(context)?;
        Ok(())
    }
}

/// Where each hand-set morph weight goes (a float index into the palette: the weights follow
/// each instance's joint entries, 12 per entry) and its value.
fn morph_overrides(state: &ViewerState, records: &[crate::InstanceRecord]) -> Vec<(usize, f32)> {
    let overrides = state.morph_overrides();
    if overrides.is_empty() {
        return Vec::new();
    }
    let rigs = state.rigs();
    let mut out = Vec::new();
    for record in records {
        let Some(rig) = rigs.get(record.rig as usize) else {
            continue;
        };
        let first = (record.palette_offset as usize + rig.joint_count()) * 12;
        for (&(r, weight), &value) in overrides.range((record.rig, 0)..=(record.rig, u32::MAX)) {
            debug_assert_eq!(r, record.rig);
            if (weight as usize) < rig.morph.weight_count() {
                out.push((first + weight as usize, value));
            }
        }
    }
    out
}

/// The evaluator the state asks for.
fn make_evaluator(context: &GpuContext, state: &ViewerState) -> Result<RecordEvaluator, ViewError> {
    let rigs = state.rigs().to_vec();
    let masks = state.animator().map_or(&[][..], |a| a.masks()).to_vec();
    Ok(match state.backend() {
        ViewBackend::Cpu => RecordEvaluator::cpu(
            &context.device,
            match state.clips() {
                ViewClips::Exact => CpuBackend::new(rigs, masks)?,
                ViewClips::Compressed => CpuBackend::with_compressed(rigs, masks)?,
            },
        )?,
        ViewBackend::Gpu => {
            let clips = match state.clips() {
                ViewClips::Exact => ClipFormat::Exact,
                ViewClips::Compressed => ClipFormat::Compressed {
                    budget: crate::DEFAULT_ERROR_BUDGET,
                },
            };
            let options = GpuOptions {
                clips,
                ..GpuOptions::default()
            };
            RecordEvaluator::gpu(GpuBackend::with_options(context, &rigs, &masks, options)?)
        }
    })
}

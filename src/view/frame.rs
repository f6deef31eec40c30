//! One frame of the viewer without a window: the state's records evaluated by the chosen
//! backend into palette and box buffers, then drawn by a [`Stage`] into a [`RenderTarget`].
//! The window draws the same frame into the texture it shows.

use std::time::Instant;

use super::ViewError;
use super::evaluator::RecordEvaluator;
use super::state::{ViewBackend, ViewClips, ViewerState};
use crate::gpu::{ClipFormat, GpuOptions};
use crate::math::Aabb;
use crate::render::{Camera, RenderTarget, Renderer, Stage, StageCharacter, StageDesc, StageView};
use crate::{CpuBackend, GpuBackend, GpuContext, Mat3x4Rows};

/// Most characters drawn with their skeleton over them.
const MAX_BONE_OVERLAYS: usize = 64;

/// Distance bands of the LOD colours, in multiples of the camera's distance to its target
/// (the bands `sinew crowd --lod` switches levels at).
const LOD_BANDS: [f32; 3] = [2.0, 4.0, 8.0];

/// Tints of LOD levels 0 to 3 (linear rgb).
pub const LOD_COLORS: [[f32; 3]; 4] = [
    [1.0, 1.0, 1.0],
    [0.45, 0.85, 0.45],
    [0.95, 0.8, 0.3],
    [0.95, 0.35, 0.3],
];

/// Milliseconds each stage of the last frame took (wall clock; evaluation includes waiting
/// for the GPU).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameTimes {
    /// Evaluating the poses (and uploading them, on the CPU backend).
    pub evaluate: f64,
    /// Recording and submitting the draw.
    pub draw: f64,
}

/// The viewer's frame: its evaluator and stage, rebuilt when the state's generation changes.
pub struct ViewerFrame {
    renderer: Renderer,
    evaluator: Option<RecordEvaluator>,
    stage: Option<Stage>,
    built: Option<u64>,
    characters: Vec<StageCharacter>,
    lod: Vec<usize>,
    pose_bounds: Aabb,
    bounds: Vec<Aabb>,
    joints: Vec<(String, glam::Vec3)>,
    wireframe: Vec<[glam::Vec3; 3]>,
    times: FrameTimes,
}

impl ViewerFrame {
    /// A frame for `device`.
    pub fn new(device: &wgpu::Device) -> Result<Self, ViewError> {
        Ok(Self {
            renderer: Renderer::new(device)?,
            evaluator: None,
            stage: None,
            built: None,
            characters: Vec::new(),
            lod: Vec::new(),
            pose_bounds: Aabb::EMPTY,
            bounds: Vec::new(),
            joints: Vec::new(),
            wireframe: Vec::new(),
            times: FrameTimes::default(),
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

    /// Each character's box as last evaluated (one per record of the animator).
    pub fn bounds(&self) -> &[Aabb] {
        &self.bounds
    }

    /// The first character's joints (name, world position) as last evaluated, when the state
    /// asks for joint names.
    pub fn joints(&self) -> &[(String, glam::Vec3)] {
        &self.joints
    }

    /// The first character's triangles, skinned on the CPU from the evaluated palette (at
    /// most [`MAX_WIRE_TRIANGLES`]), when the state asks for the wireframe.
    pub fn wireframe(&self) -> &[[glam::Vec3; 3]] {
        &self.wireframe
    }

    /// How long the last frame's stages took.
    pub fn times(&self) -> FrameTimes {
        self.times
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
            empty => empty.insert(make_evaluator(context, state)?),
        };
        let records = animator.records();
        let now = animator.frame_time();
        let capacity = animator.palette().capacity() as usize;
        let start = Instant::now();
        let overrides = morph_overrides(state, records);
        let rebuilt = evaluator.evaluate_at(context, now, records, capacity, &overrides)?;
        let bounds = evaluator.bounds().to_vec();
        self.times.evaluate = ms_since(start);
        let mut all = Aabb::EMPTY;
        for b in &bounds {
            all.merge(b);
        }
        self.pose_bounds = all;
        self.joints.clear();
        self.wireframe.clear();
        let wanted = state.show_joint_names || state.show_wireframe;
        if let (true, Some(first)) = (wanted, records.first()) {
            let rig = &state.rigs()[first.rig as usize];
            let n = rig.palette_entries() as u32;
            let block = evaluator.palette_block(first.palette_offset..first.palette_offset + n)?;
            if state.show_joint_names {
                let origins = crate::render::bind_space_origins(&rig.skeleton);
                for ((name, entry), origin) in rig.skeleton.names().iter().zip(&block).zip(origins)
                {
                    let position = entry.to_affine().transform_point3(origin);
                    self.joints.push((name.clone(), position));
                }
            }
            if state.show_wireframe && block.len() == n as usize {
                self.wireframe = wire_triangles(rig, &block, state.skinning);
            }
        }
        self.bounds = bounds.clone();

        let start = Instant::now();
        let characters: Vec<StageCharacter> = (0u32..)
            .zip(records)
            .map(|(k, r)| StageCharacter {
                rig: r.rig as usize,
                palette_offset: r.palette_offset,
                aabb_index: k,
                tint: [1.0; 3],
            })
            .collect();
        let lod = lod_levels(camera, &bounds, state.lod_colors);
        if rebuilt || self.stage.is_none() || characters != self.characters || lod != self.lod {
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
            self.characters = characters;
            self.lod = lod;
        }
        let view = StageView {
            camera: *camera,
            bones: state.show_bones,
            skinning: state.skinning,
        };
        if let Some(stage) = &self.stage {
            stage.render(device, queue, &self.renderer, target, &view)?;
        }
        self.times.draw = ms_since(start);
        Ok(())
    }
}

/// Most triangles of the wireframe overlay.
pub const MAX_WIRE_TRIANGLES: usize = 20_000;

/// `rig`'s triangles morphed and skinned with the instance block `block` (CPU twin of the
/// vertex stage), up to [`MAX_WIRE_TRIANGLES`].
fn wire_triangles(
    rig: &crate::Rig,
    block: &[Mat3x4Rows],
    mode: crate::render::SkinningMode,
) -> Vec<[glam::Vec3; 3]> {
    let joints = rig.joint_count();
    let mut out = Vec::new();
    for mesh in &rig.meshes {
        let skinned: Vec<glam::Vec3> = (0..mesh.positions.len())
            .map(|v| {
                let (p, n) = crate::render::morph_vertex(
                    mesh,
                    v,
                    block,
                    joints,
                    glam::Vec3::from(mesh.positions[v]),
                    glam::Vec3::from(mesh.normals.get(v).copied().unwrap_or([0.0, 1.0, 0.0])),
                );
                let j = mesh.joints.get(v).copied().unwrap_or_default();
                let w = mesh.weights.get(v).copied().unwrap_or_default();
                crate::render::skin_vertex(mode, &block[..joints], j, w, p, n).position
            })
            .collect();
        for t in mesh.indices.chunks_exact(3) {
            if out.len() == MAX_WIRE_TRIANGLES {
                return out;
            }
            let at = |i: u32| skinned.get(i as usize).copied().unwrap_or_default();
            out.push([at(t[0]), at(t[1]), at(t[2])]);
        }
    }
    out
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

/// Each box's LOD level by its distance to the camera's eye, in bands of the camera's distance
/// to the nearest box (all level 0 when `on` is false).
fn lod_levels(camera: &Camera, bounds: &[Aabb], on: bool) -> Vec<usize> {
    if !on {
        return vec![0; bounds.len()];
    }
    let eye = camera.view.inverse().w_axis.truncate();
    let distance = |b: &Aabb| {
        let centre =
            (glam::Vec3::from_slice(&b.min[..3]) + glam::Vec3::from_slice(&b.max[..3])) * 0.5;
        (centre - eye).length()
    };
    let near = bounds
        .iter()
        .filter(|b| !b.is_empty())
        .map(distance)
        .fold(f32::INFINITY, f32::min)
        .max(1e-3);
    bounds
        .iter()
        .map(|b| {
            LOD_BANDS
                .iter()
                .filter(|&&band| distance(b) > band * near)
                .count()
        })
        .collect()
}

fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

//! The stage: the characters of one file on a lit, shadowed ground plane, each rig's meshes
//! with their materials (or in their own colours), optionally with its skeleton over it. `sinew render` and the viewer
//! both draw their frames with it, so a window shows what a PNG shows.

use glam::Vec3;

use super::batch::{SkinnedBatch, SkinnedBatchDesc};
use super::bones::BoneOverlay;
use super::camera::{Camera, ShadowSettings, bounding_sphere};
use super::error::RenderError;
use super::layout::SkinnedInstance;
use super::renderer::{Renderer, Scene};
use super::skinning::SkinningMode;
use super::static_pass::StaticMesh;
use super::target::RenderTarget;
use super::timestamps::SceneTimestamps;
use super::velocity::VelocityBatch;
use crate::baked::Rig;
use crate::gpu::PaletteSegment;
use crate::math::Aabb;

/// Mesh colours (linear rgb), one per mesh of the stage's rigs in order, repeating.
pub const STAGE_MESH_COLORS: [[f32; 3]; 6] = [
    [0.80, 0.42, 0.26],
    [0.30, 0.50, 0.78],
    [0.42, 0.68, 0.36],
    [0.85, 0.72, 0.30],
    [0.62, 0.40, 0.72],
    [0.80, 0.80, 0.78],
];

/// Ground colour (linear rgb).
const GROUND_COLOR: [f32; 3] = [0.55, 0.55, 0.52];

/// Bone overlay colour (linear rgb).
const BONE_COLOR: [f32; 3] = [1.0, 0.85, 0.1];

/// Direction from the framed box toward the camera of [`Stage::framing_camera`].
pub const STAGE_VIEW_DIRECTION: Vec3 = Vec3::new(0.45, 0.3, 1.0);

/// Vertical field of view of [`Stage::framing_camera`], in radians.
pub const STAGE_FOV_Y: f32 = 0.7;

/// One character on the stage: which rig, where its palette block and box are, its tint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageCharacter {
    /// Index into the stage's rigs.
    pub rig: usize,
    /// First palette entry of the character's block.
    pub palette_offset: u32,
    /// Index of the character's box in the box buffer.
    pub aabb_index: u32,
    /// Colour (linear rgb) its meshes' colours are multiplied with.
    pub tint: [f32; 3],
}

/// What a [`Stage`] is made from.
#[derive(Clone, Copy, Debug)]
pub struct StageDesc<'a> {
    /// The rigs the characters play.
    pub rigs: &'a [Rig],
    /// The characters.
    pub characters: &'a [StageCharacter],
    /// The palette their offsets point into (see [`SkinnedBatchDesc::palette`]).
    pub palette: &'a [PaletteSegment],
    /// The box buffer their box indices point into.
    pub aabbs: &'a wgpu::Buffer,
    /// How many characters (the first ones) get a bone overlay.
    pub max_bone_overlays: usize,
    /// Draw meshes with the materials they carry (see [`SkinnedBatch::use_materials`]);
    /// meshes without one, or every mesh when off, draw in [`STAGE_MESH_COLORS`].
    pub materials: bool,
}

/// How a stage frame is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StageView {
    /// The camera.
    pub camera: Camera,
    /// Draw the characters' skeletons over them.
    pub bones: bool,
    /// Linear or dual-quaternion skinning.
    pub skinning: SkinningMode,
    /// Draw every character as its skinned wireframe (see [`Scene::wireframe`]).
    pub wireframe: bool,
}

/// The characters of some rigs over one palette and box buffer, a ground plane and bone
/// overlays: everything one frame of `sinew render` or the viewer draws.
#[derive(Debug)]
pub struct Stage {
    batches: Vec<SkinnedBatch>,
    overlays: Vec<BoneOverlay>,
    ground: Option<StaticMesh>,
    shadow_bounds: Aabb,
}

impl Stage {
    /// One batch per rig the characters play (in order of first appearance) holding its
    /// characters, and bone overlays. Each mesh gets the next colour of
    /// [`STAGE_MESH_COLORS`]. No ground until [`Stage::set_ground`].
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &Renderer,
        desc: &StageDesc<'_>,
    ) -> Result<Self, RenderError> {
        let mut order: Vec<usize> = Vec::new();
        for (k, character) in desc.characters.iter().enumerate() {
            if character.rig >= desc.rigs.len() {
                return Err(RenderError::invalid(
                    format!("stage character {k}"),
                    format!("rig {} of {}", character.rig, desc.rigs.len()),
                ));
            }
            if !order.contains(&character.rig) {
                order.push(character.rig);
            }
        }
        let mut batches = Vec::with_capacity(order.len());
        let mut color = 0;
        for &r in &order {
            let rig = &desc.rigs[r];
            let colors: Vec<[f32; 3]> = (0..rig.meshes.len())
                .map(|m| STAGE_MESH_COLORS[(color + m) % STAGE_MESH_COLORS.len()])
                .collect();
            color += rig.meshes.len();
            let instances: Vec<SkinnedInstance> = desc
                .characters
                .iter()
                .filter(|c| c.rig == r)
                .map(|c| {
                    SkinnedInstance::new(
                        c.palette_offset,
                        rig.joint_count() as u32,
                        c.aabb_index,
                        c.tint,
                    )
                })
                .collect();
            let mut batch = SkinnedBatch::new(
                device,
                renderer,
                &SkinnedBatchDesc {
                    label: &rig.name,
                    meshes: &rig.meshes,
                    mesh_colors: &colors,
                    capacity: instances.len() as u32,
                    palette: desc.palette,
                    aabbs: desc.aabbs,
                    preskin: false,
                },
            )?;
            batch.write_instances(queue, &instances)?;
            if desc.materials {
                batch.use_materials(device, queue, renderer, &rig.meshes)?;
            }
            batches.push(batch);
        }
        let overlays = desc
            .characters
            .iter()
            .take(desc.max_bone_overlays)
            .map(|c| {
                BoneOverlay::new(
                    device,
                    renderer,
                    &desc.rigs[c.rig].skeleton,
                    desc.palette,
                    c.palette_offset,
                    BONE_COLOR,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            batches,
            overlays,
            ground: None,
            shadow_bounds: Aabb::EMPTY,
        })
    }

    /// The camera that frames `aabb` as `sinew render` does, for an image of `aspect`
    /// (width / height).
    pub fn framing_camera(aabb: &Aabb, aspect: f32) -> Camera {
        Camera::frame_aabb(aabb, STAGE_VIEW_DIRECTION, STAGE_FOV_Y, aspect)
    }

    /// Lays a ground plane under `aabb` (at its lowest point, 2.5 times its bounding sphere's
    /// radius across) and fits the shadow map to the box and the ground around it.
    pub fn set_ground(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &Renderer,
        aabb: &Aabb,
    ) -> Result<(), RenderError> {
        let (center, radius) = bounding_sphere(aabb);
        let floor = Vec3::new(center.x, aabb.min[1], center.z);
        self.ground = Some(StaticMesh::ground_plane(
            device,
            queue,
            renderer,
            floor,
            radius * 2.5,
            GROUND_COLOR,
        )?);
        let mut shadow_bounds = *aabb;
        shadow_bounds.grow(floor + Vec3::new(radius, 0.0, radius));
        shadow_bounds.grow(floor - Vec3::new(radius, 0.0, radius));
        self.shadow_bounds = shadow_bounds;
        Ok(())
    }

    /// The scene of one frame seen as `view` says.
    fn scene<'a>(
        &self,
        view: &StageView,
        batches: &'a [&'a SkinnedBatch],
        statics: &'a [&'a StaticMesh],
        bones: &'a [&'a BoneOverlay],
    ) -> Scene<'a> {
        Scene {
            shadow: (!self.shadow_bounds.is_empty())
                .then(|| ShadowSettings::covering(self.shadow_bounds)),
            skinned: batches,
            statics,
            bones: if view.bones { bones } else { &[] },
            skinning: view.skinning,
            wireframe: view.wireframe,
            ..Scene::new(view.camera)
        }
    }

    /// Draws one frame into `target` and submits it (see [`Renderer::render`]), writing the
    /// GPU timestamps of its stages where `timestamps` says (see [`Scene::timestamps`]).
    pub fn render(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &Renderer,
        target: &RenderTarget,
        view: &StageView,
        timestamps: Option<SceneTimestamps<'_>>,
    ) -> Result<(), RenderError> {
        let batches: Vec<&SkinnedBatch> = self.batches.iter().collect();
        let statics: Vec<&StaticMesh> = self.ground.iter().collect();
        let bones: Vec<&BoneOverlay> = self.overlays.iter().collect();
        let scene = Scene {
            timestamps,
            ..self.scene(view, &batches, &statics, &bones)
        };
        renderer.render(device, queue, target, &scene)
    }

    /// The stage's batches for a [`VelocityPass`](super::VelocityPass) encoded after
    /// [`Stage::render`] (with the frame's [`StageView::skinning`]): the previous palette parallel
    /// to the stage's palette
    /// ([`GpuBackend::previous_palette_segments`](crate::GpuBackend::previous_palette_segments)),
    /// the stamps and the last evaluation's stamp. The characters' `aabb_index` must be their
    /// resident slots.
    pub fn velocity_batches<'a>(
        &'a self,
        previous: &'a [PaletteSegment],
        stamps: &'a wgpu::Buffer,
        stamp: u32,
    ) -> Vec<VelocityBatch<'a>> {
        self.batches
            .iter()
            .map(|batch| VelocityBatch {
                batch,
                previous,
                stamps,
                stamp,
            })
            .collect()
    }
}

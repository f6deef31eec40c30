//! Rendering animated characters with wgpu: the skinned vertex pass, crowds with GPU frustum
//! culling and indirect draws, shadow mapping, compute pre-skinning, a bone overlay and
//! offscreen capture to PNG. Morph targets are applied before skinning, at the weights the
//! evaluator writes after each instance's joint entries.
//!
//! Every function takes the host's `&wgpu::Device` and `&wgpu::Queue`; nothing here creates a
//! device. The renderer reads the palette (one [`Mat3x4Rows`](crate::Mat3x4Rows) per joint and
//! instance, world transform included) and the animated boxes from `&wgpu::Buffer`s: the ones
//! the GPU evaluator writes, or ones filled from [`CpuBackend`](crate::CpuBackend) results with
//! [`create_palette_buffer`] / [`write_palette`] and [`create_aabb_buffer`] / [`write_aabbs`].
//!
//! ```no_run
//! # fn demo(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<(), Box<dyn std::error::Error>> {
//! use sinew::render::{Camera, PaletteSegment, Renderer, RenderTarget, Scene, SkinnedBatch,
//!     SkinnedBatchDesc, SkinnedInstance};
//! let rig = sinew::bake_rigs(&sinew::import_file("assets/humanoid.glb")?)?.remove(0);
//! let joints = rig.joint_count();
//! let mut cpu = sinew::CpuBackend::new(vec![rig.clone()], Vec::new())?;
//! let world = glam::Affine3A::IDENTITY;
//! let records = [sinew::InstanceRecord::new(0, 0, &world, &[sinew::Layer::clip(0, 0.5)])?];
//! let mut palette = vec![sinew::Mat3x4Rows::IDENTITY; joints];
//! let mut aabbs = [sinew::Aabb::EMPTY];
//! cpu.evaluate(&records, &mut palette, &mut aabbs)?;
//!
//! let renderer = Renderer::new(device)?;
//! let palette_buffer = sinew::render::create_palette_buffer(device, joints)?;
//! sinew::render::write_palette(device, queue, &palette_buffer, 0, &palette)?;
//! let aabb_buffer = sinew::render::create_aabb_buffer(device, 1)?;
//! sinew::render::write_aabbs(device, queue, &aabb_buffer, 0, &aabbs)?;
//! let mut batch = SkinnedBatch::new(device, &renderer, &SkinnedBatchDesc {
//!     label: "hero", meshes: &rig.meshes, mesh_colors: &[], capacity: 1,
//!     palette: &[PaletteSegment::whole(&palette_buffer)], aabbs: &aabb_buffer, preskin: false,
//! })?;
//! batch.write_instances(queue, &[SkinnedInstance::new(0, joints as u32, 0, [0.8, 0.5, 0.3])])?;
//! let target = RenderTarget::new(device, &renderer, 256, 256, 1024)?;
//! let camera = Camera::frame_aabb(&aabbs[0], glam::Vec3::new(0.3, 0.2, 1.0), 0.8, 1.0);
//! let batches = [&batch];
//! renderer.render(device, queue, &target, &Scene { skinned: &batches, ..Scene::new(camera) })?;
//! target.save_png(device, queue, "hero.png")?;
//! # Ok(()) }
//! ```
//!
//! Buffers may be larger than one storage binding (`max_storage_buffer_binding_size`, or
//! [`RendererOptions::max_binding`]): a batch is then drawn in pages, each binding windows of
//! the palette, the boxes and its own buffers (see [`SkinnedBatch`]).
//!
//! A host with its own renderer needs only the palette: include [`skinning_wgsl`] (or
//! [`SKINNING_WGSL`]) in its vertex shader, bind the palette with [`palette_layout_entry`] or
//! [`create_palette_bind_group_layout`], and call `sinew_skin_linear` or
//! `sinew_skin_dual_quat` with the instance's palette offset and the vertex's up to eight
//! influences as a `SinewInfluences` (see `examples/host_renderer.rs`). A palette larger than one binding is bound in
//! [`palette_windows`], each with [`create_palette_window_bind_group`]; offsets are then
//! relative to the window's first entry.
//!
//! Dual-quaternion skinning is a pipeline variant (the `DUAL_QUATERNION` override constant):
//! each influence's palette matrix is converted to a dual quaternion in the shader, per vertex.

mod apng;
mod batch;
mod bones;
mod brdf;
mod camera;
mod capture;
mod cull;
mod error;
mod layout;
mod materials;
mod morph;
mod motion;
mod paging;
mod palette_windows;
mod preskin;
mod renderer;
mod shader;
mod skinned_pass;
mod skinning;
mod sort;
mod stage;
mod static_pass;
mod target;
mod timestamps;
mod upload;
mod util;
mod velocity;
mod wire_pass;

pub use crate::gpu::{PaletteSegment, locate_block};
pub use apng::{AnimatedPng, ApngFrames, read_apng_frames};
pub use batch::{SkinnedBatch, SkinnedBatchDesc};
pub use bones::{BoneOverlay, bind_space_origins};
pub use brdf::{
    MIN_ROUGHNESS, PbrSurface, brdf_ambient, brdf_direct, brdf_distribution, brdf_fresnel,
    brdf_visibility, shade_pbr,
};
pub use camera::{
    Camera, CameraFraming, DirectionalLight, ShadowSettings, bounding_sphere, frustum_planes,
};
pub use capture::{RgbaImage, read_buffer, read_texture_rgba8};
pub use cull::{CULL_WORKGROUP_SIZE, CullFrusta, aabb_in_frustum};
pub use error::RenderError;
pub use layout::{
    BoneParams, CullParams, DrawIndexedArgs, FrameUniforms, MeshParams, PreskinParams,
    SkinnedInstance, SkinnedVertex, SortParams, StaticInstance, StaticVertex, normals_or_smooth,
};
pub use materials::{MaterialParams, MaterialVertex};
pub use morph::{morph_vertex, pack_deltas};
pub use motion::{
    PREVIOUS_SKINNING_WGSL, previous_block, previous_palette_layout_entries,
    previous_skinned_position, previous_skinned_position_dual_quat, previous_skinning_wgsl,
    velocity_ndc,
};
pub(crate) use paging::BindingLimits;
pub(crate) use palette_windows::paging_of;
pub use palette_windows::{
    PalettePaging, PaletteWindow, palette_paging, palette_window_of, palette_windows,
};
pub use preskin::PRESKIN_WORKGROUP_SIZE;
pub use renderer::{Renderer, RendererOptions, Scene};
pub use shader::{
    MORPH_WGSL, SKINNING_WGSL, bones_source, cull_source, layout_source, preskin_source,
    render_sources, skinned_source, skinning_wgsl, sort_source, static_source, velocity_source,
};
pub use skinning::{
    DualQuat, MIN_WEIGHT_SUM, PALETTE_ENTRY_SIZE, Skinned, SkinningMode, create_palette_bind_group,
    create_palette_bind_group_layout, create_palette_window_bind_group, palette_layout_entry,
    skin_vertex, skin_vertex_dual_quat, skin_vertex_linear,
};
pub use sort::{SORT_WORKGROUP_SIZE, blend_order, view_depth_plane};
pub use stage::{
    STAGE_FOV_Y, STAGE_MESH_COLORS, STAGE_VIEW_DIRECTION, Stage, StageCharacter, StageDesc,
    StageView,
};
pub use static_pass::{StaticMesh, StaticMeshDesc};
pub use target::{COLOR_FORMAT, DEPTH_FORMAT, RenderTarget, SHADOW_FORMAT};
pub use timestamps::{SCENE_STAGES, SceneTimestamps};
pub use upload::{create_aabb_buffer, create_palette_buffer, write_aabbs, write_palette};
pub use velocity::{
    VELOCITY_FORMAT, VelocityBatch, VelocityParams, VelocityPass, VelocityTarget,
    velocity_of_vertex,
};
pub use wire_pass::wire_indices;

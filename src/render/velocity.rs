//! The velocity pass (`wgsl/render/velocity.wgsl`): a skinned batch's visible instances drawn
//! into a [`VelocityTarget`], an `Rg16Float` texture whose texels hold each surface point's
//! screen-space velocity in normalized device coordinates: its position this frame minus its
//! position last frame (x right, y up; [`velocity_ndc`]), from the current palette and
//! view-projection and the previous palette ([`crate::GpuOptions::previous_palette`]) and
//! view-projection. Texels no instance covers are zero. Half the value times the target's
//! size is pixels (y flipped for texel rows).
//!
//! Opt-in: a host that asks creates a [`VelocityPass`] and a [`VelocityTarget`] and encodes
//! the pass after a frame ([`Renderer::encode`](super::Renderer::encode)) that drew the
//! batches: the pass draws each page's camera list as the frame's culling left it, with the
//! main pass's bind groups (palette window, instances, visible list, mesh), and binds the
//! previous palette's window beside them. Nothing else changes for callers that do not ask.
//! Morph targets are applied at the current weights for both positions (their own motion is
//! not in the velocity); both positions are skinned as the frame skinned them (linear blend or
//! dual quaternions, [`SkinningMode`]).

use glam::{Mat4, Vec2, Vec3};

use super::Renderer;
use super::batch::SkinnedBatch;
use super::capture::read_texture_rows;
use super::error::{RenderError, capture};
use super::layout::SkinnedVertex;
use super::motion::{previous_palette_layout_entries, velocity_ndc};
use super::shader::velocity_source;
use super::skinning::{SkinningMode, skin_vertex};
use super::target::DEPTH_FORMAT;
use super::util::{Lazy, shader_module, uniform_entry};
use crate::gpu::PaletteSegment;
use crate::math::Mat3x4Rows;

/// The velocity target's format: two 16-bit floats, NDC velocity x and y.
pub const VELOCITY_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg16Float;

/// The velocity pass's per-page parameters (group 3, binding 2). Twin of `VelocityParams` in
/// `wgsl/render/velocity.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct VelocityParams {
    /// This frame's view-projection (column-major).
    pub view_proj: [[f32; 4]; 4],
    /// Last frame's view-projection (column-major).
    pub previous_view_proj: [[f32; 4]; 4],
    /// The GPU backend's [`evaluated_stamp`](crate::GpuBackend::evaluated_stamp) after the
    /// frame's evaluation.
    pub stamp: u32,
    /// The page's first box: an instance's resident slot is it plus its `aabb_index`.
    pub slot_base: u32,
    /// Padding.
    pub pad: [u32; 2],
}

pub(crate) const VELOCITY_PARAMS_SIZE: u64 = std::mem::size_of::<VelocityParams>() as u64;
const _: () = assert!(VELOCITY_PARAMS_SIZE == 144);

/// A batch to draw into the velocity target, with its previous palette: the GPU backend's
/// [`previous_palette_segments`](crate::GpuBackend::previous_palette_segments) (one per segment
/// of the batch's palette, starting at the same entries),
/// [`evaluated_at_buffer`](crate::GpuBackend::evaluated_at_buffer) and
/// [`evaluated_stamp`](crate::GpuBackend::evaluated_stamp). The batch's instances'
/// `aabb_index` must be their resident slots, as the GPU backend's boxes are.
#[derive(Clone, Copy, Debug)]
pub struct VelocityBatch<'a> {
    /// The batch, drawn in a frame just before.
    pub batch: &'a SkinnedBatch,
    /// The previous palette, parallel to the batch's palette segments.
    pub previous: &'a [PaletteSegment],
    /// The evaluated-at stamps, one `u32` per slot.
    pub stamps: &'a wgpu::Buffer,
    /// The last evaluation's stamp.
    pub stamp: u32,
}

/// The colour (velocity) and depth textures of the velocity pass.
#[derive(Debug)]
pub struct VelocityTarget {
    velocity: wgpu::Texture,
    velocity_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
}

impl VelocityTarget {
    /// A `width` × `height` velocity target with its own depth buffer.
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Result<Self, RenderError> {
        if width == 0 || height == 0 {
            return Err(RenderError::invalid(
                "velocity target",
                format!("size {width}x{height} is empty"),
            ));
        }
        capture(device, || {
            let texture = |label: &str, format, usage| {
                device.create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width,
                        height,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
            };
            let velocity = texture(
                "sinew velocity target",
                VELOCITY_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT
                    | wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_SRC,
            );
            let depth = texture(
                "sinew velocity depth",
                DEPTH_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            );
            Ok(Self {
                velocity_view: velocity.create_view(&Default::default()),
                depth_view: depth.create_view(&Default::default()),
                velocity,
            })
        })
    }

    /// The velocity texture ([`VELOCITY_FORMAT`]).
    pub fn texture(&self) -> &wgpu::Texture {
        &self.velocity
    }

    /// Reads the velocity texture back: one NDC velocity per texel, rows top to bottom.
    pub fn read(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<Vec2>, RenderError> {
        let bytes = read_texture_rows(device, queue, &self.velocity, 4)?;
        let halves: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        Ok(halves
            .chunks_exact(2)
            .map(|h| {
                Vec2::new(
                    half::f16::from_bits(h[0]).to_f32(),
                    half::f16::from_bits(h[1]).to_f32(),
                )
            })
            .collect())
    }
}

/// The velocity pass's layout (group 3: previous palette window, stamps, parameters) and
/// pipelines (one per [`SkinningMode`], each created on first use).
#[derive(Debug)]
pub struct VelocityPass {
    skin_layout: wgpu::BindGroupLayout,
    pub(crate) layout: wgpu::BindGroupLayout,
    linear: Lazy<wgpu::RenderPipeline>,
    dual_quat: Lazy<wgpu::RenderPipeline>,
}

impl VelocityPass {
    /// The pass for batches made with `renderer`.
    pub fn new(device: &wgpu::Device, renderer: &Renderer) -> Self {
        let v = wgpu::ShaderStages::VERTEX;
        let [previous, stamps] = previous_palette_layout_entries(0, 1, v);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew velocity layout"),
            entries: &[previous, stamps, uniform_entry(2, v, VELOCITY_PARAMS_SIZE)],
        });
        Self {
            skin_layout: renderer.skinned.skin_layout.clone(),
            layout,
            linear: Lazy::default(),
            dual_quat: Lazy::default(),
        }
    }

    fn pipeline(
        &self,
        device: &wgpu::Device,
        mode: SkinningMode,
    ) -> Result<&wgpu::RenderPipeline, RenderError> {
        let lazy = match mode {
            SkinningMode::Linear => &self.linear,
            SkinningMode::DualQuaternion => &self.dual_quat,
        };
        lazy.get(|| {
            let module = shader_module(device, "sinew velocity shader", velocity_source())?;
            capture(device, || {
                let constants = [("DUAL_QUATERNION", mode.override_value())];
                let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("sinew velocity pipeline"),
                    bind_group_layouts: &[None, Some(&self.skin_layout), None, Some(&self.layout)],
                    immediate_size: 0,
                });
                Ok(
                    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                        label: Some("sinew velocity pipeline"),
                        layout: Some(&layout),
                        vertex: wgpu::VertexState {
                            module: &module,
                            entry_point: Some("vs_velocity"),
                            compilation_options: wgpu::PipelineCompilationOptions {
                                constants: &constants,
                                zero_initialize_workgroup_memory: false,
                            },
                            buffers: &[SkinnedVertex::layout()],
                        },
                        primitive: wgpu::PrimitiveState {
                            topology: wgpu::PrimitiveTopology::TriangleList,
                            cull_mode: None,
                            ..Default::default()
                        },
                        depth_stencil: Some(wgpu::DepthStencilState {
                            format: DEPTH_FORMAT,
                            depth_write_enabled: Some(true),
                            depth_compare: Some(wgpu::CompareFunction::Less),
                            stencil: Default::default(),
                            bias: Default::default(),
                        }),
                        multisample: Default::default(),
                        fragment: Some(wgpu::FragmentState {
                            module: &module,
                            entry_point: Some("fs_velocity"),
                            compilation_options: Default::default(),
                            targets: &[Some(wgpu::ColorTargetState {
                                format: VELOCITY_FORMAT,
                                blend: None,
                                write_mask: wgpu::ColorWrites::ALL,
                            })],
                        }),
                        multiview_mask: None,
                        cache: None,
                    }),
                )
            })
        })
    }

    /// Records the velocity pass into `encoder`: `target` cleared to zero velocity and far
    /// depth, then each batch's camera list (as the last encoded frame culled it) skinned as
    /// the frame skinned it (`skinning`, its [`Scene::skinning`](super::Scene::skinning)) and
    /// drawn with this frame's `view_proj` and last frame's `previous_view_proj`. Submit it
    /// after the frame's own commands (the lists are theirs).
    #[allow(clippy::too_many_arguments)]
    pub fn encode(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        target: &VelocityTarget,
        skinning: SkinningMode,
        view_proj: Mat4,
        previous_view_proj: Mat4,
        batches: &[VelocityBatch<'_>],
    ) -> Result<(), RenderError> {
        let pipeline = self.pipeline(device, skinning)?;
        let mut prepared = Vec::with_capacity(batches.len());
        for b in batches {
            let matrices = (view_proj, previous_view_proj);
            prepared.push(b.batch.velocity_groups(device, self, b, matrices)?);
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("sinew velocity pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &target.velocity_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &target.depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(pipeline);
        for (b, groups) in batches.iter().zip(&prepared) {
            b.batch.draw_velocity(&mut pass, groups);
        }
        Ok(())
    }
}

/// CPU twin of the velocity pass's vertex: `position` (morphed) skinned by `mode` with the
/// instance's current joint entries `current` and projected with `view_proj`, against it
/// skinned the same way with the entries it showed last frame `previous`
/// ([`previous_block`](super::previous_block)) and projected with `previous_view_proj`; the NDC
/// velocity of [`velocity_ndc`].
#[allow(clippy::too_many_arguments)]
pub fn velocity_of_vertex<const N: usize>(
    mode: SkinningMode,
    current: &[Mat3x4Rows],
    previous: &[Mat3x4Rows],
    joints: [u16; N],
    weights: [f32; N],
    position: Vec3,
    view_proj: Mat4,
    previous_view_proj: Mat4,
) -> Vec2 {
    // The previous positions' twins are these skinnings of the previous block.
    let now = skin_vertex(mode, current, joints, weights, position, Vec3::Y).position;
    let then = skin_vertex(mode, previous, joints, weights, position, Vec3::Y).position;
    velocity_ndc(
        view_proj * now.extend(1.0),
        previous_view_proj * then.extend(1.0),
    )
}

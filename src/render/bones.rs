//! The bone overlay (`wgsl/render/bones.wgsl`): a line from each joint to its parent, drawn
//! over the shaded character without depth test. Joint positions come from the same palette
//! buffer the skinned pass reads (palette entry × bind-space joint origin = model-space joint
//! origin), so nothing is read back. The overlay binds the palette window that holds its
//! instance's block, so the palette may exceed one storage binding.

use std::num::NonZeroU64;

use glam::Vec3;

use super::Renderer;
use super::error::{RenderError, capture};
use super::layout::BoneParams;
use super::shader::bones_source;
use super::skinning::{PALETTE_ENTRY_SIZE, palette_layout_entry};
use super::target::{COLOR_FORMAT, DEPTH_FORMAT, FrameLayouts};
use super::util::{Lazy, buffer_init, shader_module, storage_entry, uniform_entry};
use crate::baked::{NO_PARENT, Skeleton};
use crate::gpu::{PaletteSegment, locate_block};

/// The overlay's group-1 layout and pipeline.
#[derive(Debug)]
pub(crate) struct BonePass {
    pub(crate) layout: wgpu::BindGroupLayout,
    pipeline: Lazy<wgpu::RenderPipeline>,
}

impl BonePass {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let v = wgpu::ShaderStages::VERTEX;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew bone overlay layout"),
            entries: &[
                palette_layout_entry(0, v),
                storage_entry(1, v, true, 8),
                storage_entry(2, v, true, 16),
                uniform_entry(3, v, std::mem::size_of::<BoneParams>() as u64),
            ],
        });
        Self {
            layout,
            pipeline: Lazy::default(),
        }
    }

    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
        frame: &FrameLayouts,
    ) -> Result<&wgpu::RenderPipeline, RenderError> {
        self.pipeline.get(|| {
            let module = shader_module(device, "sinew bone overlay shader", bones_source())?;
            capture(device, || {
                let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("sinew bone overlay pipeline layout"),
                    bind_group_layouts: &[Some(&frame.main), Some(&self.layout)],
                    immediate_size: 0,
                });
                Ok(
                    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                        label: Some("sinew bone overlay pipeline"),
                        layout: Some(&layout),
                        vertex: wgpu::VertexState {
                            module: &module,
                            entry_point: Some("vs_bones"),
                            compilation_options: Default::default(),
                            buffers: &[],
                        },
                        primitive: wgpu::PrimitiveState {
                            topology: wgpu::PrimitiveTopology::LineList,
                            ..Default::default()
                        },
                        depth_stencil: Some(wgpu::DepthStencilState {
                            format: DEPTH_FORMAT,
                            depth_write_enabled: Some(false),
                            depth_compare: Some(wgpu::CompareFunction::Always),
                            stencil: Default::default(),
                            bias: Default::default(),
                        }),
                        multisample: Default::default(),
                        fragment: Some(wgpu::FragmentState {
                            module: &module,
                            entry_point: Some("fs_bones"),
                            compilation_options: Default::default(),
                            targets: &[Some(wgpu::ColorTargetState {
                                format: COLOR_FORMAT,
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
}

/// The bones of one skeleton instance, ready to draw over it.
#[derive(Debug)]
pub struct BoneOverlay {
    bone_count: u32,
    group: wgpu::BindGroup,
}

/// Each joint's origin in bind (mesh) space: the translation of its inverse bind matrix's
/// inverse. Joints without an inverse bind matrix (identity) sit at their model origin.
pub fn bind_space_origins(skeleton: &Skeleton) -> Vec<Vec3> {
    skeleton
        .inverse_binds()
        .iter()
        .map(|ibm| {
            let bind = ibm.inverse();
            if bind.is_finite() {
                Vec3::from(bind.translation)
            } else {
                Vec3::ZERO
            }
        })
        .collect()
}

impl BoneOverlay {
    /// The overlay of the instance of `skeleton` whose palette block starts at
    /// `palette_offset` in `palette` (its buffers, see
    /// [`SkinnedBatchDesc::palette`](super::SkinnedBatchDesc::palette)), in `color` (linear
    /// rgb). Errors when the block lies outside the palette's buffers.
    pub fn new(
        device: &wgpu::Device,
        renderer: &Renderer,
        skeleton: &Skeleton,
        palette: &[PaletteSegment],
        palette_offset: u32,
        color: [f32; 3],
    ) -> Result<Self, RenderError> {
        let bones: Vec<[u32; 2]> = skeleton
            .parents()
            .iter()
            .enumerate()
            .filter(|&(_, &p)| p != NO_PARENT)
            .map(|(j, &p)| [j as u32, u32::from(p)])
            .collect();
        let origins: Vec<[f32; 4]> = bind_space_origins(skeleton)
            .iter()
            .map(|o| o.extend(1.0).to_array())
            .collect();
        let joint_count = skeleton.joint_count() as u64;
        let (segment, at) = locate_block(palette, palette_offset, joint_count.max(1))
            .map_err(|reason| RenderError::invalid("bone overlay", reason))?;
        let palette = &palette[segment].buffer;
        let limits = renderer.binding_limits();
        let base = limits.window_start(at, PALETTE_ENTRY_SIZE);
        let (window_at, window_size) =
            limits.window_binding(base, PALETTE_ENTRY_SIZE, palette.size());
        let params = BoneParams {
            palette_offset: (at - base) as u32,
            joint_count: joint_count as u32,
            bone_count: bones.len() as u32,
            pad: 0,
            color: [color[0], color[1], color[2], 1.0],
        };
        capture(device, || {
            let bones_buffer = buffer_init(
                device,
                "sinew bone list",
                bytemuck::cast_slice(&bones),
                wgpu::BufferUsages::STORAGE,
            );
            let origins_buffer = buffer_init(
                device,
                "sinew bind-space joint origins",
                bytemuck::cast_slice(&origins),
                wgpu::BufferUsages::STORAGE,
            );
            let params_buffer = buffer_init(
                device,
                "sinew bone overlay params",
                bytemuck::bytes_of(&params),
                wgpu::BufferUsages::UNIFORM,
            );
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("sinew bone overlay bind group"),
                layout: &renderer.bones.layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: palette,
                            offset: window_at,
                            size: NonZeroU64::new(window_size),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: bones_buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: origins_buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: params_buffer.as_entire_binding(),
                    },
                ],
            });
            Ok(Self {
                bone_count: params.bone_count,
                group,
            })
        })
    }

    /// Lines drawn (joints with a parent).
    pub fn bone_count(&self) -> u32 {
        self.bone_count
    }

    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.bone_count == 0 {
            return;
        }
        pass.set_bind_group(1, &self.group, &[]);
        pass.draw(0..self.bone_count * 2, 0..1);
    }
}

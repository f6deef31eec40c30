//! The slot list of an indirect frame (`wgsl/lod_compact.wgsl`): before the evaluation, one
//! invocation per slot appends the slots the frame must run (due their update rate, in view or
//! due their culled refresh, or with GPU root motion) to a list after the boxes in the bounds
//! buffer, counting them into [`LodCompact::args`], which a second one-invocation dispatch turns
//! into the evaluation's `dispatch_workgroups_indirect` grid.

use std::num::NonZeroU64;

use super::pipeline::EvaluatePipeline;
use super::scope::capture;
use super::shader::{LOD_COMPACT_WORKGROUP_SIZE, lod_compact_shader_source};
use crate::error::GpuError;

/// Bytes of the indirect arguments: x, y, z workgroups and the count of listed slots.
const ARGS_BYTES: u64 = 16;

/// What the host writes to [`LodCompact::args`] before each indirect frame: no workgroup yet,
/// z = 1, count 0.
const ARGS_RESET: [u32; 4] = [0, 0, 1, 0];

/// Boxes after the slot boxes that hold the list of `slots` slots: eight f32 entries per box,
/// the count first.
pub(crate) fn list_boxes(slots: u64) -> u64 {
    (slots + 1).div_ceil(8)
}

/// The compaction pipelines of one backend and its indirect-arguments buffer.
#[derive(Debug)]
pub(crate) struct LodCompact {
    compact: wgpu::ComputePipeline,
    finalize: wgpu::ComputePipeline,
    args: wgpu::Buffer,
    args_group: wgpu::BindGroup,
}

impl LodCompact {
    /// Compiles the compaction module against `evaluate`'s group layouts and creates the
    /// arguments buffer. wgpu errors come back as [`GpuError::Validation`].
    pub(crate) fn new(
        device: &wgpu::Device,
        evaluate: &EvaluatePipeline,
    ) -> Result<Self, GpuError> {
        capture(device, || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("sinew lod compact module"),
                source: wgpu::ShaderSource::Wgsl(lod_compact_shader_source(evaluate.shape).into()),
            });
            let args_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("sinew lod args layout"),
                entries: &[wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: false },
                        has_dynamic_offset: false,
                        min_binding_size: NonZeroU64::new(ARGS_BYTES),
                    },
                    count: None,
                }],
            });
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("sinew lod compact pipeline layout"),
                // No library: its storage bindings and the frame's already make eight.
                bind_group_layouts: &[None, Some(&evaluate.frame_layout), Some(&args_layout)],
                immediate_size: 0,
            });
            let pipeline = |entry: &str| {
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some("sinew lod compact pipeline"),
                    layout: Some(&layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            };
            let args = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("sinew lod indirect args"),
                size: ARGS_BYTES,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let args_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("sinew lod args group"),
                layout: &args_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: args.as_entire_binding(),
                }],
            });
            Self {
                compact: pipeline("lod_compact"),
                finalize: pipeline("lod_finalize"),
                args,
                args_group,
            }
        })
    }

    /// The indirect arguments the evaluation dispatches with (offset 0).
    pub(crate) fn args(&self) -> &wgpu::Buffer {
        &self.args
    }

    /// Resets the arguments on `queue` (written before the next submission): no workgroup,
    /// z = 1, count 0.
    pub(crate) fn reset(&self, queue: &wgpu::Queue) {
        queue.write_buffer(&self.args, 0, bytemuck::cast_slice(&ARGS_RESET));
    }

    /// Records the compaction of `slots` slots into `pass`, ahead of the evaluation dispatch
    /// that reads the list (the same pass, so its timestamps cover both); `frame` is the
    /// evaluation's group 1 of the frame's one dispatch. Leaves group 2 bound.
    pub(crate) fn encode(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        frame: &wgpu::BindGroup,
        slots: u32,
        max_workgroups: u32,
    ) {
        let groups = slots.div_ceil(LOD_COMPACT_WORKGROUP_SIZE).max(1);
        let width = groups.min(max_workgroups.max(1));
        pass.set_bind_group(1, frame, &[]);
        pass.set_bind_group(2, &self.args_group, &[]);
        pass.set_pipeline(&self.compact);
        pass.dispatch_workgroups(width, groups.div_ceil(width), 1);
        pass.set_pipeline(&self.finalize);
        pass.dispatch_workgroups(1, 1, 1);
    }
}

//! The evaluate compute pipeline and its two bind group layouts: the library (group 0, bound
//! once) and one frame's instances and outputs (group 1).

use std::num::NonZeroU64;

use super::layout::{
    AABB_BYTES, FRAME_HEADER_BYTES, INSTANCE_RECORD_BYTES, JointDesc, LibraryParams,
    PALETTE_ENTRY_BYTES, RigDesc,
};
use super::scope::capture;
use super::shader::{
    EVALUATE_ENTRY_POINT, compressed_shader_source, evaluate_shader_source,
    previous_palette_shader_source,
};
use super::shape::EvaluateShape;
use crate::baked::TrackDesc;
use crate::error::GpuError;

/// The compiled evaluate kernel of one device.
#[derive(Debug)]
pub struct EvaluatePipeline {
    /// Layout of group 0: library params, rigs, joints, tracks (the clip words of compressed
    /// clips), scalars, key values.
    pub library_layout: wgpu::BindGroupLayout,
    /// Layout of group 1: dispatch header, instance records (read-write: root motion moves
    /// their worlds), palette, AABBs.
    pub frame_layout: wgpu::BindGroupLayout,
    /// Layout of group 2 in the pipelines that keep the previous palette
    /// ([`EvaluatePipeline::keeping_previous`]): the previous palette's window and the slots'
    /// evaluated-at stamps (`wgsl/previous_palette.wgsl`).
    pub previous_layout: Option<wgpu::BindGroupLayout>,
    /// The pipeline.
    pub pipeline: wgpu::ComputePipeline,
    /// Whether it samples compressed clips (`wgsl/decode.wgsl`) instead of key tracks.
    pub compressed: bool,
    /// How its workgroups group instances.
    pub shape: EvaluateShape,
}

/// Storage buffers the evaluate stage of a pipeline keeping the previous palette binds: the
/// library's five, the frame's three, the previous palette and the stamps.
pub const PREVIOUS_PALETTE_STORAGE_BUFFERS: u32 = 10;

fn size(bytes: u64) -> Option<NonZeroU64> {
    NonZeroU64::new(bytes)
}

fn entry(binding: u32, ty: wgpu::BufferBindingType, min: u64) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: size(min),
        },
        count: None,
    }
}

fn read_only(binding: u32, min: u64) -> wgpu::BindGroupLayoutEntry {
    entry(
        binding,
        wgpu::BufferBindingType::Storage { read_only: true },
        min,
    )
}

fn read_write(binding: u32, min: u64) -> wgpu::BindGroupLayoutEntry {
    entry(
        binding,
        wgpu::BufferBindingType::Storage { read_only: false },
        min,
    )
}

impl EvaluatePipeline {
    /// Compiles the module of `shape` (which the device's workgroup memory limit must allow:
    /// [`EvaluateShape::for_limits`]) and creates the pipeline. wgpu errors come back as
    /// [`GpuError::Validation`].
    pub fn new(device: &wgpu::Device, shape: EvaluateShape) -> Result<Self, GpuError> {
        Self::build(device, shape, false, false)
    }

    /// The pipeline of compressed clips: the same layouts, binding 3 of group 0 holding the
    /// clip words instead of track descriptors.
    pub fn compressed(device: &wgpu::Device, shape: EvaluateShape) -> Result<Self, GpuError> {
        Self::build(device, shape, true, false)
    }

    /// The pipeline (of compressed clips with `compressed`) that keeps the previous palette
    /// for motion vectors: group 2 binds its window and the evaluated-at stamps. Its stage
    /// reads and writes ten storage buffers
    /// ([`PREVIOUS_PALETTE_STORAGE_BUFFERS`]), two more than wgpu's default limit.
    pub fn keeping_previous(
        device: &wgpu::Device,
        shape: EvaluateShape,
        compressed: bool,
    ) -> Result<Self, GpuError> {
        Self::build(device, shape, compressed, true)
    }

    fn build(
        device: &wgpu::Device,
        shape: EvaluateShape,
        compressed: bool,
        previous: bool,
    ) -> Result<Self, GpuError> {
        let source = if previous {
            previous_palette_shader_source(shape, compressed)
        } else if compressed {
            compressed_shader_source(shape)
        } else {
            evaluate_shader_source(shape)
        };
        capture(device, || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("sinew evaluate module"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
            let library_layout =
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("sinew library layout"),
                    entries: &[
                        entry(
                            0,
                            wgpu::BufferBindingType::Uniform,
                            size_of::<LibraryParams>() as u64,
                        ),
                        read_only(1, size_of::<RigDesc>() as u64),
                        read_only(2, size_of::<JointDesc>() as u64),
                        // Track descriptors, or compressed clip words: the layout has no
                        // element type, so both pipelines share it.
                        read_only(3, size_of::<TrackDesc>() as u64),
                        read_only(4, 4),
                        read_only(5, 16),
                    ],
                });
            let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("sinew frame layout"),
                entries: &[
                    entry(0, wgpu::BufferBindingType::Uniform, FRAME_HEADER_BYTES),
                    read_write(1, INSTANCE_RECORD_BYTES),
                    read_write(2, PALETTE_ENTRY_BYTES),
                    read_write(3, AABB_BYTES),
                ],
            });
            let previous_layout = previous.then(|| {
                device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("sinew previous palette layout"),
                    entries: &[read_write(0, PALETTE_ENTRY_BYTES), read_write(1, 4)],
                })
            });
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("sinew evaluate pipeline layout"),
                bind_group_layouts: &[
                    Some(&library_layout),
                    Some(&frame_layout),
                    previous_layout.as_ref(),
                ],
                immediate_size: 0,
            });
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("sinew evaluate pipeline"),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(EVALUATE_ENTRY_POINT),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &[],
                    // Every workgroup value is written before it is read.
                    zero_initialize_workgroup_memory: false,
                },
                cache: None,
            });
            Self {
                library_layout,
                frame_layout,
                previous_layout,
                pipeline,
                compressed,
                shape,
            }
        })
    }
}

//! Compute pre-skinning (`wgsl/render/preskin.wgsl`): one dispatch per mesh and page of a
//! batch skins every vertex of every instance once per frame into a buffer of
//! [`StaticVertex`]es (instance-major, page by page), which the shadow and main passes then
//! read instead of skinning each vertex in both. Morph targets are applied first
//! ([`morph_vertex`](super::morph_vertex)); then linear or dual-quaternion skinning, as an
//! override constant; the CPU twins are [`skin_vertex_linear`](super::skin_vertex_linear) and
//! [`skin_vertex_dual_quat`](super::skin_vertex_dual_quat).
//!
//! Every instance of the batch is skinned, visible or not: the kernel's size is set on the CPU
//! from the instance count, not from the culled count.

use super::error::{RenderError, capture};
use super::layout::{MeshParams, PreskinParams, SkinnedInstance, SkinnedVertex, StaticVertex};
use super::shader::preskin_source;
use super::skinning::{SkinningMode, palette_layout_entry};
use super::util::{Lazy, shader_module, storage_entry, uniform_entry};

/// Invocations per workgroup of the pre-skinning kernel (`WORKGROUP_SIZE` in `preskin.wgsl`).
pub const PRESKIN_WORKGROUP_SIZE: u32 = 64;

/// The pre-skinning kernel's layout and its two pipelines (linear, dual quaternion).
#[derive(Debug)]
pub(crate) struct PreskinPass {
    pub(crate) layout: wgpu::BindGroupLayout,
    module: Lazy<wgpu::ShaderModule>,
    pipelines: [Lazy<wgpu::ComputePipeline>; 2],
}

impl PreskinPass {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let c = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew preskin layout"),
            entries: &[
                palette_layout_entry(0, c),
                storage_entry(1, c, true, std::mem::size_of::<SkinnedInstance>() as u64),
                storage_entry(2, c, true, std::mem::size_of::<SkinnedVertex>() as u64),
                uniform_entry(3, c, std::mem::size_of::<PreskinParams>() as u64),
                storage_entry(4, c, false, std::mem::size_of::<StaticVertex>() as u64),
                storage_entry(5, c, true, 4),
                uniform_entry(6, c, std::mem::size_of::<MeshParams>() as u64),
            ],
        });
        Self {
            layout,
            module: Lazy::default(),
            pipelines: Default::default(),
        }
    }

    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
        mode: SkinningMode,
    ) -> Result<&wgpu::ComputePipeline, RenderError> {
        let index = match mode {
            SkinningMode::Linear => 0,
            SkinningMode::DualQuaternion => 1,
        };
        self.pipelines[index].get(|| {
            let module = self
                .module
                .get(|| shader_module(device, "sinew preskin shader", preskin_source()))?;
            capture(device, || {
                let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("sinew preskin pipeline layout"),
                    bind_group_layouts: &[Some(&self.layout)],
                    immediate_size: 0,
                });
                let constants = [("DUAL_QUATERNION", mode.override_value())];
                Ok(
                    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(match mode {
                            SkinningMode::Linear => "sinew preskin pipeline (linear)",
                            SkinningMode::DualQuaternion => {
                                "sinew preskin pipeline (dual quaternion)"
                            }
                        }),
                        layout: Some(&layout),
                        module,
                        entry_point: Some("preskin"),
                        compilation_options: wgpu::PipelineCompilationOptions {
                            constants: &constants,
                            zero_initialize_workgroup_memory: false,
                        },
                        cache: None,
                    }),
                )
            })
        })
    }
}

//! The back-to-front order of a batch's blended draws ([`super::super::sort`]): per page, the
//! camera list's keys, the bitonic steps and the write-back, in one compute pass.

use super::SkinnedBatch;
use super::pages::sort_records;
use crate::render::Camera;
use crate::render::layout::{SortParams, dispatch_grid};
use crate::render::sort::{SORT_PARAMS_SIZE, SORT_WORKGROUP_SIZE, bitonic_steps, view_depth_plane};

impl SkinnedBatch {
    /// Records the back-to-front sort of each page's camera list ([`super::sort`]) for `camera`,
    /// when a mesh of the batch draws blended; `pipelines` are the sort's
    /// ([`SortPass::pipelines`](super::sort::SortPass::pipelines)).
    pub(crate) fn encode_blend_order(
        &self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        pipelines: [&wgpu::ComputePipeline; 3],
        camera: &Camera,
    ) {
        if !self.has_blended() || self.pages.is_empty() {
            return;
        }
        let stride = self.limits.uniform_stride(SORT_PARAMS_SIZE);
        let plane = view_depth_plane(camera).to_array();
        let records: u64 = self.pages.iter().map(|p| sort_records(p.count)).sum();
        let mut bytes = vec![0u8; (records * stride) as usize];
        let mut record = 0u64;
        let mut put = |params: SortParams| {
            let at = (record * stride) as usize;
            bytes[at..at + SORT_PARAMS_SIZE as usize].copy_from_slice(bytemuck::bytes_of(&params));
            record += 1;
            (at as u64) as wgpu::DynamicOffset
        };
        // (group, dispatch grid, pipeline, dynamic offset) in order.
        let mut dispatches = Vec::new();
        let [keys, step, write] = pipelines;
        for (page, groups) in self.pages.iter().zip(&self.groups) {
            let Some(group) = &groups.sort else { continue };
            let size = page.count.max(1).next_power_of_two();
            let (x, y, grid_width) = dispatch_grid(u64::from(size), SORT_WORKGROUP_SIZE);
            let base = SortParams {
                view_depth: plane,
                size,
                instance_count: page.count,
                grid_width,
                ..SortParams::default()
            };
            let first = put(base);
            dispatches.push((group, (x, y), keys, first));
            for (k, j) in bitonic_steps(size) {
                let at = put(SortParams { k, j, ..base });
                dispatches.push((group, (x, y), step, at));
            }
            dispatches.push((group, (x, y), write, first));
        }
        queue.write_buffer(&self.buffers.sort_params, 0, &bytes);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("sinew blend sort pass"),
            timestamp_writes: None,
        });
        for (group, (x, y), pipeline, offset) in dispatches {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[offset]);
            pass.dispatch_workgroups(x, y, 1);
        }
    }
}

//! A batch's commands each frame: the visible lists and indirect arguments (GPU culling, or
//! every instance), the pre-skinning dispatches and the indirect draws of one list.

use super::{CULL_PARAMS_SIZE, MeshSet, SkinnedBatch};
use crate::render::cull::{self, CullFrusta, DrawList};
use crate::render::error::RenderError;
use crate::render::layout::{CullParams, dispatch_grid};
use crate::render::paging::{DRAW_SIZE, VISIBLE_SIZE};
use crate::render::skinned_pass::VertexSource;
use crate::render::skinning::SkinningMode;
use crate::render::{Renderer, preskin};

impl SkinnedBatch {
    /// Records this frame's visible lists and indirect arguments: GPU culling against `frusta`
    /// (one dispatch per page, filling the camera's list and, when `frusta` has the light's
    /// planes, the light's; else that list is empty), or every instance in both lists when
    /// `frusta` is `None`.
    pub(crate) fn encode_visibility(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &Renderer,
        frusta: Option<&CullFrusta>,
    ) -> Result<(), RenderError> {
        if self.pages.is_empty() {
            return Ok(());
        }
        let b = &self.buffers;
        let Some(frusta) = frusta else {
            encoder.copy_buffer_to_buffer(&b.draws_all, 0, &b.draws, 0, self.bytes.draws);
            for page in &self.pages {
                let size = u64::from(page.count) * VISIBLE_SIZE;
                for at in [page.visible_at, page.light_visible_at] {
                    encoder.copy_buffer_to_buffer(&self.all_visible, 0, &b.visible, at, size);
                }
            }
            return Ok(());
        };
        let pipeline = renderer.cull.pipeline(device)?;
        let stride = self.limits.uniform_stride(CULL_PARAMS_SIZE) as usize;
        let mut params = vec![0u8; self.pages.len() * stride];
        let mut grids = Vec::with_capacity(self.pages.len());
        for (p, page) in self.pages.iter().enumerate() {
            let (x, y, grid_width) =
                dispatch_grid(u64::from(page.count), cull::CULL_WORKGROUP_SIZE);
            grids.push((x, y));
            let page_params = CullParams {
                planes: frusta.camera.map(|p| p.to_array()),
                light_planes: frusta.light.unwrap_or_default().map(|p| p.to_array()),
                instance_count: page.count,
                draw_count: self.meshes.len() as u32,
                grid_width,
                light_list: u32::from(frusta.light.is_some()),
            };
            params[p * stride..p * stride + CULL_PARAMS_SIZE as usize]
                .copy_from_slice(bytemuck::bytes_of(&page_params));
        }
        queue.write_buffer(&b.cull_params, 0, &params);
        encoder.copy_buffer_to_buffer(&b.draws_reset, 0, &b.draws, 0, self.bytes.draws);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("sinew cull pass"),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        for (groups, (x, y)) in self.groups.iter().zip(grids) {
            pass.set_bind_group(0, &groups.cull, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        Ok(())
    }

    /// Records the pre-skinning dispatches (one per mesh and page).
    pub(crate) fn encode_preskin(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &Renderer,
        mode: SkinningMode,
    ) -> Result<(), RenderError> {
        if !self.has_preskin() {
            return Err(RenderError::invalid(
                self.object(),
                "drawn pre-skinned but created without `preskin`",
            ));
        }
        if self.pages.is_empty() {
            return Ok(());
        }
        let pipeline = renderer.preskin.pipeline(device, mode)?;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("sinew preskin pass"),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        for (page, groups) in self.pages.iter().zip(&self.groups) {
            for (mesh, (kernel, _)) in self.meshes.iter().zip(&groups.preskin) {
                let (x, y, _) = dispatch_grid(
                    u64::from(page.count) * u64::from(mesh.vertex_count),
                    preskin::PRESKIN_WORKGROUP_SIZE,
                );
                pass.set_bind_group(0, kernel, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        Ok(())
    }

    /// Records the batch's draws of `list` (one indirect draw per mesh of `set` and page) into
    /// `pass`, whose group 0 is already bound and whose pipeline is `pipeline`.
    pub(crate) fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        pipeline: &wgpu::RenderPipeline,
        source: VertexSource,
        list: DrawList,
        set: MeshSet,
    ) {
        let preskinned = source == VertexSource::Preskinned;
        // The main pass reads materials; the shadow pass only positions.
        let main = list == DrawList::Camera;
        let l = list.index();
        let wire = set == MeshSet::Wire;
        let draws = match wire {
            false => &self.buffers.draws,
            true => &self.buffers.wire_draws,
        };
        pass.set_pipeline(pipeline);
        let drawn = self.meshes.iter().enumerate();
        for (m, mesh) in drawn.filter(|(_, mesh)| set.holds(mesh.blended)) {
            let mut slot = 0;
            if !preskinned {
                pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                slot = 1;
            }
            if main {
                pass.set_vertex_buffer(slot, mesh.material_vertices.slice(..));
                pass.set_bind_group(2, &mesh.material, &[]);
            }
            let indices = match wire {
                false => &mesh.indices,
                true => &mesh.wire_indices,
            };
            pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
            for (page, groups) in self.pages.iter().zip(&self.groups) {
                let group = match preskinned {
                    false => &groups.draw[m][l],
                    true => match groups.preskin.get(m) {
                        Some((_, drawn)) => &drawn[l],
                        None => continue,
                    },
                };
                pass.set_bind_group(1, group, &[]);
                pass.draw_indexed_indirect(draws, page.draws_at_of(list) + m as u64 * DRAW_SIZE);
            }
        }
    }
}

//! A batch's draws in the velocity pass ([`super::super::velocity`]): per page, the previous
//! palette's window (bound as the main pass binds the palette's), the stamps and the page's
//! parameters (its first box, which turns the page-relative `aabb_index` back into the
//! resident slot), beside the main pass's group of each mesh for the camera's list.

use std::num::NonZeroU64;

use glam::Mat4;

use super::SkinnedBatch;
use crate::render::cull::DrawList;
use crate::render::error::RenderError;
use crate::render::paging::DRAW_SIZE;
use crate::render::skinning::PALETTE_ENTRY_SIZE;
use crate::render::util::buffer_init;
use crate::render::velocity::{VELOCITY_PARAMS_SIZE, VelocityBatch, VelocityParams, VelocityPass};

/// The velocity pass's group 3 of each page of a batch.
#[derive(Debug)]
pub(crate) struct VelocityGroups(Vec<wgpu::BindGroup>);

impl SkinnedBatch {
    /// Checks `previous` against the batch's palette and makes each page's velocity group with
    /// this frame's and last frame's view-projections `matrices`.
    pub(crate) fn velocity_groups(
        &self,
        device: &wgpu::Device,
        pass: &VelocityPass,
        velocity: &VelocityBatch<'_>,
        matrices: (Mat4, Mat4),
    ) -> Result<VelocityGroups, RenderError> {
        let object = || format!("{} previous palette", self.object());
        if velocity.previous.len() != self.palette.len() {
            return Err(RenderError::invalid(
                object(),
                format!(
                    "{} segments for a palette of {}",
                    velocity.previous.len(),
                    self.palette.len()
                ),
            ));
        }
        for (k, (p, c)) in velocity.previous.iter().zip(&self.palette).enumerate() {
            if p.first_entry != c.first_entry || p.buffer.size() < c.buffer.size() {
                return Err(RenderError::invalid(
                    object(),
                    format!(
                        "segment {k} starts at entry {} with {} bytes, the palette's at {} with {}",
                        p.first_entry,
                        p.buffer.size(),
                        c.first_entry,
                        c.buffer.size()
                    ),
                ));
            }
        }
        if self.pages.is_empty() {
            return Ok(VelocityGroups(Vec::new()));
        }
        let stride = self.limits.uniform_stride(VELOCITY_PARAMS_SIZE);
        let mut bytes = vec![0u8; self.pages.len() * stride as usize];
        for (p, page) in self.pages.iter().enumerate() {
            let slot_base = u32::try_from(page.aabb_base).map_err(|_| {
                RenderError::invalid(
                    self.object(),
                    format!("page {p}'s first box {} is past u32", page.aabb_base),
                )
            })?;
            let params = VelocityParams {
                view_proj: matrices.0.to_cols_array_2d(),
                previous_view_proj: matrices.1.to_cols_array_2d(),
                stamp: velocity.stamp,
                slot_base,
                pad: [0; 2],
            };
            let at = p * stride as usize;
            bytes[at..at + VELOCITY_PARAMS_SIZE as usize]
                .copy_from_slice(bytemuck::bytes_of(&params));
        }
        let params = buffer_init(
            device,
            &format!("sinew {} velocity params", self.label),
            &bytes,
            wgpu::BufferUsages::UNIFORM,
        );
        let groups = self
            .pages
            .iter()
            .enumerate()
            .map(|(p, page)| {
                let segment = &velocity.previous[page.palette_segment];
                let (at, size) = self.limits.window_binding(
                    page.palette_base - u64::from(segment.first_entry),
                    PALETTE_ENTRY_SIZE,
                    segment.buffer.size(),
                );
                let binding = |binding, buffer, offset, size| wgpu::BindGroupEntry {
                    binding,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset,
                        size: NonZeroU64::new(size),
                    }),
                };
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(&format!(
                        "sinew {} page {p} velocity bind group",
                        self.label
                    )),
                    layout: &pass.layout,
                    entries: &[
                        binding(0, &segment.buffer, at, size),
                        binding(1, velocity.stamps, 0, velocity.stamps.size()),
                        binding(2, &params, p as u64 * stride, VELOCITY_PARAMS_SIZE),
                    ],
                })
            })
            .collect();
        Ok(VelocityGroups(groups))
    }

    /// Records the batch's velocity draws (one indirect draw per mesh and page, the camera's
    /// list) into `pass`, whose pipeline is the velocity pass's.
    pub(crate) fn draw_velocity(&self, pass: &mut wgpu::RenderPass<'_>, velocity: &VelocityGroups) {
        let l = DrawList::Camera.index();
        for (m, mesh) in self.meshes.iter().enumerate() {
            pass.set_vertex_buffer(0, mesh.vertices.slice(..));
            pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
            for ((page, groups), group) in self.pages.iter().zip(&self.groups).zip(&velocity.0) {
                pass.set_bind_group(1, &groups.draw[m][l], &[]);
                pass.set_bind_group(3, group, &[]);
                pass.draw_indexed_indirect(
                    &self.buffers.draws,
                    page.draws_at_of(DrawList::Camera) + m as u64 * DRAW_SIZE,
                );
            }
        }
    }
}

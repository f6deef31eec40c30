//! The page regions of a [`SkinnedBatch`]'s buffers: grown to hold a page plan, and the bind
//! groups that bind each page's windows.

use std::num::NonZeroU64;

use super::{
    COPY, CULL_PARAMS_SIZE, DRAWS, PRESKIN_PARAMS_SIZE, PRESKINNED, STORAGE, SkinnedBatch, UNIFORM,
};
use crate::render::cull::DrawList;
use crate::render::error::{RenderError, check_buffer_size};
use crate::render::paging::{
    AABB_SIZE, BindingLimits, DRAW_SIZE, INSTANCE_SIZE, Page, PagedBytes, VERTEX_SIZE, VISIBLE_SIZE,
};
use crate::render::skinning::PALETTE_ENTRY_SIZE;
use crate::render::sort::{SORT_PARAMS_SIZE, bitonic_steps};
use crate::render::util::buffer_zeroed;

/// The bind groups of one page.
#[derive(Debug)]
pub(super) struct PageGroups {
    pub(super) cull: wgpu::BindGroup,
    /// Per mesh, per list ([`DrawList::index`]).
    pub(super) draw: Vec<[wgpu::BindGroup; 2]>,
    /// Per mesh, when pre-skinning: the kernel's group and the pre-skinned draw's groups (per
    /// list).
    pub(super) preskin: Vec<(wgpu::BindGroup, [wgpu::BindGroup; 2])>,
    /// The blend sort's group, for a batch with a `BLEND` material.
    pub(super) sort: Option<wgpu::BindGroup>,
}

/// The buffers split into page regions.
#[derive(Debug)]
pub(super) struct PagedBuffers {
    pub(super) instances: wgpu::Buffer,
    /// Per page, the camera's list, then the light's.
    pub(super) visible: wgpu::Buffer,
    /// Per page, one [`DrawIndexedArgs`] per mesh for the camera's list, then as many for the
    /// light's, fed to `draw_indexed_indirect`.
    pub(super) draws: wgpu::Buffer,
    /// The draws with instance count 0: copied into `draws` before culling.
    pub(super) draws_reset: wgpu::Buffer,
    /// The draws with every instance of their page: copied into `draws` when culling is off.
    pub(super) draws_all: wgpu::Buffer,
    /// The wireframe's draws, at the offsets of `draws`: each mesh's edge list, with the
    /// instance count of the camera's list copied from `draws` each wireframe frame.
    pub(super) wire_draws: wgpu::Buffer,
    /// One [`CullParams`] per page, at uniform-aligned offsets.
    pub(super) cull_params: wgpu::Buffer,
    /// One [`PreskinParams`] per page and mesh, at uniform-aligned offsets.
    pub(super) preskin_params: wgpu::Buffer,
    /// The blend sort's (key, instance) pairs, reused page after page (grown only for a batch
    /// with a `BLEND` material).
    pub(super) sort_pairs: wgpu::Buffer,
    /// The blend sort's [`SortParams`](crate::render::SortParams), one per page and pass, at
    /// uniform-aligned offsets.
    pub(super) sort_params: wgpu::Buffer,
}

impl SkinnedBatch {
    /// Grows the paged buffers to hold `pages`; returns whether any was replaced.
    pub(super) fn reserve(
        &mut self,
        pages: &[Page],
        bytes: &PagedBytes,
    ) -> Result<bool, RenderError> {
        let limits = self.limits;
        let device = &self.device;
        let label = &self.label;
        let mut grown = false;
        let mut grow = |buffer: &mut wgpu::Buffer, needed: u64, usage, what: &str| {
            if buffer.size() >= needed {
                return Ok(());
            }
            check_buffer_size(needed, limits.max_buffer)?;
            *buffer = buffer_zeroed(device, &format!("sinew {label} {what}"), needed, usage);
            grown = true;
            Ok::<(), RenderError>(())
        };
        let b = &mut self.buffers;
        let pages_len = pages.len() as u64;
        grow(&mut b.instances, bytes.instances, STORAGE, "instances")?;
        let visible_usage = STORAGE | wgpu::BufferUsages::COPY_SRC;
        grow(
            &mut b.visible,
            bytes.visible,
            visible_usage,
            "visible instances",
        )?;
        grow(&mut b.draws, bytes.draws, DRAWS, "indirect draws")?;
        grow(
            &mut b.draws_reset,
            bytes.draws,
            COPY,
            "indirect draws reset",
        )?;
        grow(&mut b.draws_all, bytes.draws, COPY, "indirect draws, all")?;
        grow(&mut b.wire_draws, bytes.draws, DRAWS, "wireframe draws")?;
        let cull = pages_len * limits.uniform_stride(CULL_PARAMS_SIZE);
        grow(&mut b.cull_params, cull, UNIFORM, "cull params")?;
        let preskin =
            pages_len * self.meshes.len() as u64 * limits.uniform_stride(PRESKIN_PARAMS_SIZE);
        grow(&mut b.preskin_params, preskin, UNIFORM, "preskin params")?;
        if self.meshes.iter().any(|m| m.blended) {
            let (pairs, params) = sort_bytes(&limits, pages);
            grow(&mut b.sort_pairs, pairs, STORAGE, "blend sort pairs")?;
            grow(&mut b.sort_params, params, UNIFORM, "blend sort params")?;
        }
        for (m, (mesh, &needed)) in self.meshes.iter_mut().zip(&bytes.preskin).enumerate() {
            if let Some(output) = &mut mesh.preskinned {
                let what = format!("mesh {m} preskinned vertices");
                grow(output, needed, PRESKINNED, &what)?;
            }
        }
        Ok(grown)
    }

    /// The bind groups of page `p`.
    pub(super) fn page_groups(&self, p: usize, page: &Page) -> PageGroups {
        let count = u64::from(page.count);
        let b = &self.buffers;
        let instances = (&b.instances, page.instances_at, count * INSTANCE_SIZE);
        let visible = |list: DrawList| (&b.visible, page.visible_at_of(list), count * VISIBLE_SIZE);
        let draws_size = self.meshes.len() as u64 * DRAW_SIZE;
        let draws = |list: DrawList| (&b.draws, page.draws_at_of(list), draws_size);
        let segment = &self.palette[page.palette_segment];
        let (palette_at, palette_size) = self.limits.window_binding(
            page.palette_base - u64::from(segment.first_entry),
            PALETTE_ENTRY_SIZE,
            segment.buffer.size(),
        );
        let palette = (&segment.buffer, palette_at, palette_size);
        let (aabbs_at, aabbs_size) =
            self.limits
                .window_binding(page.aabb_base, AABB_SIZE, self.aabbs.size());
        let label = |what: &str| format!("sinew {} page {p} {what}", self.label);
        let group = |layout: &wgpu::BindGroupLayout,
                     what: &str,
                     entries: &[(u32, (&wgpu::Buffer, u64, u64))]| {
            let entries: Vec<wgpu::BindGroupEntry<'_>> = entries
                .iter()
                .map(|&(binding, (buffer, offset, size))| wgpu::BindGroupEntry {
                    binding,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset,
                        size: NonZeroU64::new(size),
                    }),
                })
                .collect();
            self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&label(what)),
                layout,
                entries: &entries,
            })
        };
        let cull = group(
            &self.layouts.cull,
            "cull bind group",
            &[
                (0, instances),
                (1, (&self.aabbs, aabbs_at, aabbs_size)),
                (
                    2,
                    (
                        &b.cull_params,
                        p as u64 * self.limits.uniform_stride(CULL_PARAMS_SIZE),
                        CULL_PARAMS_SIZE,
                    ),
                ),
                (3, visible(DrawList::Camera)),
                (4, draws(DrawList::Camera)),
                (5, visible(DrawList::Light)),
                (6, draws(DrawList::Light)),
            ],
        );
        let mut draw = Vec::new();
        let mut preskin = Vec::new();
        for (m, mesh) in self.meshes.iter().enumerate() {
            let params = (&mesh.params, 0, mesh.params.size());
            let deltas = (&self.morph_deltas, 0, self.morph_deltas.size());
            draw.push(DrawList::BOTH.map(|list| {
                group(
                    &self.layouts.skin,
                    &format!("mesh {m} {list:?} list draw bind group"),
                    &[
                        (0, palette),
                        (1, instances),
                        (2, visible(list)),
                        (3, params),
                        (5, deltas),
                    ],
                )
            }));
            if let (Some(output), Some(&at)) = (&mesh.preskinned, page.preskin_at.get(m)) {
                let output = (
                    output,
                    at,
                    count * u64::from(mesh.vertex_count) * VERTEX_SIZE,
                );
                let stride = self.limits.uniform_stride(PRESKIN_PARAMS_SIZE);
                let params_at = (p * self.meshes.len() + m) as u64 * stride;
                let kernel = group(
                    &self.layouts.preskin,
                    &format!("mesh {m} preskin bind group"),
                    &[
                        (0, palette),
                        (1, instances),
                        (2, (&mesh.vertices, 0, mesh.vertices.size())),
                        (3, (&b.preskin_params, params_at, PRESKIN_PARAMS_SIZE)),
                        (4, output),
                        (5, deltas),
                        (6, params),
                    ],
                );
                let drawn = DrawList::BOTH.map(|list| {
                    group(
                        &self.layouts.preskinned,
                        &format!("mesh {m} {list:?} list preskinned draw bind group"),
                        &[(1, instances), (2, visible(list)), (3, params), (4, output)],
                    )
                });
                preskin.push((kernel, drawn));
            }
        }
        let sort = self.meshes.iter().any(|m| m.blended).then(|| {
            let pairs_size = u64::from(page.count.next_power_of_two()) * SORT_PAIR_SIZE;
            group(
                &self.layouts.sort,
                "blend sort bind group",
                &[
                    (0, instances),
                    (1, (&self.aabbs, aabbs_at, aabbs_size)),
                    (2, visible(DrawList::Camera)),
                    (3, draws(DrawList::Camera)),
                    (4, (&b.sort_pairs, 0, pairs_size)),
                    (5, (&b.sort_params, 0, SORT_PARAMS_SIZE)),
                ],
            )
        });
        PageGroups {
            cull,
            draw,
            preskin,
            sort,
        }
    }
}

/// Bytes of one (key, instance) pair of the blend sort.
pub(super) const SORT_PAIR_SIZE: u64 = 8;

/// The blend sort's pair and parameter bytes for `pages`: pairs for the largest page (rounded
/// up to a power of two), one parameter record per page and pass.
pub(super) fn sort_bytes(limits: &BindingLimits, pages: &[Page]) -> (u64, u64) {
    let largest = pages.iter().map(|p| p.count).max().unwrap_or(1);
    let pairs = u64::from(largest.max(1).next_power_of_two()) * SORT_PAIR_SIZE;
    let records: u64 = pages.iter().map(|p| sort_records(p.count)).sum();
    (
        limits.align(pairs),
        records.max(1) * limits.uniform_stride(SORT_PARAMS_SIZE),
    )
}

/// Parameter records the blend sort of a page of `count` instances uses: one for the key and
/// write-back dispatches, one per bitonic pass.
pub(super) fn sort_records(count: u32) -> u64 {
    1 + bitonic_steps(count.max(1).next_power_of_two()).len() as u64
}

//! Binding windows: how the render passes read buffers larger than one storage binding.
//!
//! A device binds at most `max_storage_buffer_binding_size` bytes of a buffer at a time, from an
//! offset aligned to `min_storage_buffer_offset_alignment`. [`BindingLimits`] holds those limits;
//! `palette_windows.rs` splits a palette into such windows for a host's own draws and for the
//! GPU evaluator's buffers. A [`SkinnedBatch`](super::SkinnedBatch) splits its
//! instance list into pages ([`plan_pages`]): greedy over the list in order, a page is a run of
//! consecutive instances whose palette blocks lie in one aligned palette window and whose boxes
//! lie in one aligned AABB window, and whose instance, visible-list and pre-skinned regions fit
//! one binding. Each page gets its own aligned regions of the batch's instance, visible-list and
//! indirect-draw buffers (two of the last two: the camera's list and the light's) and of the
//! pre-skinned buffers, and its instances are stored with offsets relative to
//! its windows, so the shaders index every binding from 0.

use std::mem::size_of;

use super::cull::DrawList;
use super::error::RenderError;
use super::layout::{DrawIndexedArgs, SkinnedInstance, StaticVertex};
use super::skinning::PALETTE_ENTRY_SIZE;
use crate::baked::MAX_PALETTE_BLOCK;
use crate::math::Aabb;

pub(crate) const INSTANCE_SIZE: u64 = size_of::<SkinnedInstance>() as u64;
pub(crate) const AABB_SIZE: u64 = size_of::<Aabb>() as u64;
pub(crate) const VISIBLE_SIZE: u64 = 4;
pub(crate) const DRAW_SIZE: u64 = size_of::<DrawIndexedArgs>() as u64;
pub(crate) const VERTEX_SIZE: u64 = size_of::<StaticVertex>() as u64;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The device limits the render passes bind by, with the storage binding optionally smaller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BindingLimits {
    /// Largest storage binding, bytes.
    pub(crate) max_binding: u64,
    /// Alignment of a storage binding's offset, bytes.
    pub(crate) storage_alignment: u64,
    /// Alignment of a uniform binding's offset, bytes.
    pub(crate) uniform_alignment: u64,
    /// Largest buffer, bytes.
    pub(crate) max_buffer: u64,
}

impl BindingLimits {
    /// `limits` with the storage binding capped at `max_binding` (when given).
    pub(crate) fn from_limits(limits: &wgpu::Limits, max_binding: Option<u64>) -> Self {
        let device_max = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        Self {
            max_binding: max_binding.map_or(device_max, |b| b.min(device_max)),
            storage_alignment: u64::from(limits.min_storage_buffer_offset_alignment).max(4),
            uniform_alignment: u64::from(limits.min_uniform_buffer_offset_alignment).max(4),
            max_buffer: limits.max_buffer_size,
        }
    }

    /// The limits, or [`RenderError::LimitExceeded`] when the binding cannot hold the largest
    /// palette block ([`MAX_PALETTE_BLOCK`] entries: joints, then morph weights) wherever it
    /// starts.
    pub(crate) fn checked(self) -> Result<Self, RenderError> {
        let needed = self.smallest_palette_binding();
        if self.max_binding < needed {
            return Err(RenderError::LimitExceeded {
                limit: "max_storage_buffer_binding_size",
                needed,
                available: self.max_binding,
            });
        }
        Ok(self)
    }

    /// The smallest binding, in bytes, that holds the largest palette block wherever it starts.
    pub(crate) fn smallest_palette_binding(&self) -> u64 {
        (MAX_PALETTE_BLOCK as u64 + self.step(PALETTE_ENTRY_SIZE)) * PALETTE_ENTRY_SIZE
    }

    /// Elements of `size` bytes from one aligned binding offset to the next.
    pub(crate) fn step(&self, size: u64) -> u64 {
        self.storage_alignment / gcd(size, self.storage_alignment)
    }

    /// The first element of the aligned window that starts at or just before `element`.
    pub(crate) fn window_start(&self, element: u64, size: u64) -> u64 {
        let step = self.step(size);
        element / step * step
    }

    /// Elements of `size` bytes in one binding.
    pub(crate) fn window_len(&self, size: u64) -> u64 {
        self.max_binding / size
    }

    /// Whether elements `lo..hi` lie in one aligned window.
    fn in_one_window(&self, lo: u64, hi: u64, size: u64) -> bool {
        self.window_start(lo, size) + self.window_len(size) >= hi
    }

    /// `bytes` rounded up to a storage binding offset.
    pub(crate) fn align(&self, bytes: u64) -> u64 {
        bytes.next_multiple_of(self.storage_alignment)
    }

    /// The stride of uniform records of `size` bytes bound at successive offsets.
    pub(crate) fn uniform_stride(&self, size: u64) -> u64 {
        size.next_multiple_of(self.uniform_alignment)
    }

    /// The binding `(offset, size)` in bytes of the window of `size`-byte elements starting at
    /// `first`, in a buffer of `buffer_bytes`.
    pub(crate) fn window_binding(&self, first: u64, size: u64, buffer_bytes: u64) -> (u64, u64) {
        let offset = first * size;
        let len = (buffer_bytes / size)
            .saturating_sub(first)
            .min(self.window_len(size));
        (offset, len * size)
    }
}

/// One page of a batch: consecutive instances drawn with one set of bindings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Page {
    /// First instance (its index in the list the batch was given) and instance count.
    pub(crate) first: u32,
    pub(crate) count: u32,
    /// The palette buffer (segment) the page binds.
    pub(crate) palette_segment: usize,
    /// First palette entry and first box of the page's windows: its stored instances' offsets
    /// are relative to them.
    pub(crate) palette_base: u64,
    pub(crate) aabb_base: u64,
    /// Byte offsets of the page's regions in the instance, visible-list and indirect-draw
    /// buffers (the camera's list and draws, then the light's) and (per mesh, when
    /// pre-skinning) the pre-skinned vertex buffers.
    pub(crate) instances_at: u64,
    pub(crate) visible_at: u64,
    pub(crate) draws_at: u64,
    pub(crate) light_visible_at: u64,
    pub(crate) light_draws_at: u64,
    pub(crate) preskin_at: Vec<u64>,
}

impl Page {
    /// Byte offset of the page's visible list `list` in the visible-list buffer.
    pub(crate) fn visible_at_of(&self, list: DrawList) -> u64 {
        match list {
            DrawList::Camera => self.visible_at,
            DrawList::Light => self.light_visible_at,
        }
    }

    /// Byte offset of the page's indirect draws of `list` in the indirect-draw buffer.
    pub(crate) fn draws_at_of(&self, list: DrawList) -> u64 {
        match list {
            DrawList::Camera => self.draws_at,
            DrawList::Light => self.light_draws_at,
        }
    }
}

/// The bytes each paged buffer must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PagedBytes {
    pub(crate) instances: u64,
    pub(crate) visible: u64,
    pub(crate) draws: u64,
    /// Per mesh (empty without pre-skinning).
    pub(crate) preskin: Vec<u64>,
}

/// What the pages are cut from besides the instances.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PageInputs<'a> {
    /// The palette's buffers: the entries each holds (first, one past the last), by first.
    pub(crate) palette: &'a [(u64, u64)],
    /// Boxes in the AABB buffer.
    pub(crate) aabb_count: u64,
    /// Indirect draws per page (one per mesh).
    pub(crate) draw_count: u64,
    /// Vertices per mesh, when the batch pre-skins (else empty).
    pub(crate) preskin_vertices: &'a [u32],
    /// Palette entries of morph weights after each instance's joint entries.
    pub(crate) morph_entries: u64,
}

/// The pages of an instance list, and the instances as the batch stores them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PagePlan {
    pub(crate) pages: Vec<Page>,
    /// Every page's instances at its region, offsets relative to its windows; zero padding.
    pub(crate) staged: Vec<SkinnedInstance>,
    pub(crate) bytes: PagedBytes,
}

/// The page being grown.
struct Open {
    first: u32,
    count: u32,
    /// The palette buffer, and the entries the page's blocks span in it.
    segment: usize,
    palette: (u64, u64),
    aabbs: (u64, u64),
}

/// Cuts `instances` into pages under `limits` (see the module doc). Errors (as the reason an
/// instance is refused) when an instance's palette block or box lies outside its buffer or
/// cannot fit one window.
pub(crate) fn plan_pages(
    limits: &BindingLimits,
    instances: &[SkinnedInstance],
    inputs: &PageInputs<'_>,
) -> Result<PagePlan, String> {
    let per_instance = inputs
        .preskin_vertices
        .iter()
        .map(|&v| u64::from(v) * VERTEX_SIZE)
        .fold(INSTANCE_SIZE, u64::max);
    let max_count = limits.max_binding / per_instance;
    if max_count == 0 {
        return Err(format!(
            "one instance needs {per_instance} bytes of a binding; the limit is {}",
            limits.max_binding
        ));
    }
    let mut open: Vec<Open> = Vec::new();
    for (i, inst) in instances.iter().enumerate() {
        let first = u64::from(inst.palette_offset);
        let end = first + u64::from(inst.joint_count.max(1)) + inputs.morph_entries;
        let segment = inputs
            .palette
            .partition_point(|s| s.0 <= first)
            .saturating_sub(1);
        let Some(&(base, segment_end)) = inputs.palette.get(segment) else {
            return Err(format!("instance {i}: the palette has no buffer"));
        };
        if end > segment_end {
            let whole = inputs.palette.last().map_or(0, |s| s.1);
            return Err(if segment + 1 == inputs.palette.len() {
                format!(
                    "instance {i}: palette block {first}..{end} lies past the palette's {whole} entries"
                )
            } else {
                format!(
                    "instance {i}: palette block {first}..{end} does not fit the palette buffer \
                     of entries {base}..{segment_end}"
                )
            });
        }
        // Within the segment's buffer.
        let (lo, hi) = (first - base, end - base);
        if !limits.in_one_window(lo, hi, PALETTE_ENTRY_SIZE) {
            return Err(format!(
                "instance {i}: palette block {first}..{end} does not fit one binding window of \
                 {} bytes",
                limits.max_binding
            ));
        }
        let a = u64::from(inst.aabb_index);
        if a >= inputs.aabb_count {
            return Err(format!(
                "instance {i}: box {a} lies past the AABB buffer's {} boxes",
                inputs.aabb_count
            ));
        }
        let joins = open.last().is_some_and(|page| {
            let palette = (page.palette.0.min(lo), page.palette.1.max(hi));
            let aabbs = (page.aabbs.0.min(a), page.aabbs.1.max(a + 1));
            u64::from(page.count) < max_count
                && page.segment == segment
                && limits.in_one_window(palette.0, palette.1, PALETTE_ENTRY_SIZE)
                && limits.in_one_window(aabbs.0, aabbs.1, AABB_SIZE)
        });
        match open.last_mut() {
            Some(page) if joins => {
                page.count += 1;
                page.palette = (page.palette.0.min(lo), page.palette.1.max(hi));
                page.aabbs = (page.aabbs.0.min(a), page.aabbs.1.max(a + 1));
            }
            _ => open.push(Open {
                first: i as u32,
                count: 1,
                segment,
                palette: (lo, hi),
                aabbs: (a, a + 1),
            }),
        }
    }

    let mut plan = PagePlan {
        bytes: PagedBytes {
            preskin: vec![0; inputs.preskin_vertices.len()],
            ..PagedBytes::default()
        },
        ..PagePlan::default()
    };
    let region = |at: &mut u64, bytes: u64| {
        let start = *at;
        *at = limits.align(start + bytes);
        start
    };
    for page in &open {
        let count = u64::from(page.count);
        let bytes = &mut plan.bytes;
        let preskin_at = inputs
            .preskin_vertices
            .iter()
            .zip(&mut bytes.preskin)
            .map(|(&v, at)| region(at, count * u64::from(v) * VERTEX_SIZE))
            .collect();
        plan.pages.push(Page {
            first: page.first,
            count: page.count,
            palette_segment: page.segment,
            palette_base: inputs.palette[page.segment].0
                + limits.window_start(page.palette.0, PALETTE_ENTRY_SIZE),
            aabb_base: limits.window_start(page.aabbs.0, AABB_SIZE),
            instances_at: region(&mut bytes.instances, count * INSTANCE_SIZE),
            visible_at: region(&mut bytes.visible, count * VISIBLE_SIZE),
            draws_at: region(&mut bytes.draws, inputs.draw_count * DRAW_SIZE),
            light_visible_at: region(&mut bytes.visible, count * VISIBLE_SIZE),
            light_draws_at: region(&mut bytes.draws, inputs.draw_count * DRAW_SIZE),
            preskin_at,
        });
    }
    plan.staged = vec![SkinnedInstance::default(); (plan.bytes.instances / INSTANCE_SIZE) as usize];
    for page in &plan.pages {
        let first = page.first as usize;
        let source = &instances[first..first + page.count as usize];
        let at = (page.instances_at / INSTANCE_SIZE) as usize;
        for (slot, inst) in plan.staged[at..].iter_mut().zip(source) {
            *slot = SkinnedInstance {
                palette_offset: (u64::from(inst.palette_offset) - page.palette_base) as u32,
                aabb_index: (u64::from(inst.aabb_index) - page.aabb_base) as u32,
                ..*inst
            };
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::palette_windows::paging_of;

    fn limits(max_binding: u64) -> BindingLimits {
        BindingLimits {
            max_binding,
            storage_alignment: 256,
            uniform_alignment: 256,
            max_buffer: 1 << 31,
        }
    }

    fn crowd(count: u32, joints: u32) -> Vec<SkinnedInstance> {
        (0..count)
            .map(|i| SkinnedInstance::new(i * joints, joints, i, [1.0; 3]))
            .collect()
    }

    fn inputs(palette_entries: u64, aabb_count: u64) -> PageInputs<'static> {
        PageInputs {
            palette: Vec::leak(vec![(0, palette_entries)]),
            aabb_count,
            draw_count: 2,
            preskin_vertices: &[],
            morph_entries: 0,
        }
    }

    #[test]
    fn pages_keep_every_block_and_box_inside_aligned_windows() {
        let l = limits(64 << 10);
        let list = crowd(3000, 57);
        let plan = plan_pages(&l, &list, &inputs(3000 * 57, 3000)).unwrap(); // ok: unit test
        assert!(plan.pages.len() > 100, "{} pages", plan.pages.len());
        let mut next = 0;
        for page in &plan.pages {
            assert_eq!(page.first, next);
            next += page.count;
            assert_eq!(page.palette_base * PALETTE_ENTRY_SIZE % 256, 0);
            assert_eq!(page.aabb_base * AABB_SIZE % 256, 0);
            let regions = [
                page.instances_at,
                page.visible_at,
                page.draws_at,
                page.light_visible_at,
                page.light_draws_at,
            ];
            for at in regions {
                assert_eq!(at % 256, 0);
            }
            assert!(page.light_visible_at >= page.visible_at + u64::from(page.count) * 4);
            assert!(page.light_draws_at >= page.draws_at + 2 * DRAW_SIZE);
            for k in 0..page.count as usize {
                let source = list[page.first as usize + k];
                let stored = plan.staged[(page.instances_at / INSTANCE_SIZE) as usize + k];
                assert_eq!(
                    u64::from(stored.palette_offset) + page.palette_base,
                    u64::from(source.palette_offset)
                );
                let end = u64::from(stored.palette_offset + stored.joint_count);
                assert!(end <= l.window_len(PALETTE_ENTRY_SIZE));
                assert!(u64::from(stored.aabb_index) < l.window_len(AABB_SIZE));
            }
        }
        assert_eq!(next, 3000);
    }

    #[test]
    fn pages_of_a_palette_in_several_buffers_bind_the_buffer_of_each_block() {
        // Windows of 1365 entries every 1040, each its own buffer; 57-entry blocks straddle
        // the windows' starts.
        let l = limits(64 << 10);
        let paging = paging_of(&l);
        let total = 3000 * 57u64;
        let stride = u64::from(paging.stride);
        let buffers: Vec<(u64, u64)> = (0..total.div_ceil(stride))
            .map(|k| {
                (
                    k * stride,
                    (k * stride + u64::from(paging.window_entries)).min(total),
                )
            })
            .collect();
        let list = crowd(3000, 57);
        let plan = plan_pages(
            &l,
            &list,
            &PageInputs {
                palette: &buffers,
                ..inputs(0, 3000)
            },
        )
        .unwrap(); // ok: unit test
        for page in &plan.pages {
            let (first, end) = buffers[page.palette_segment];
            assert!(page.palette_base >= first);
            for k in 0..page.count as usize {
                let block = u64::from(list[page.first as usize + k].palette_offset);
                assert_eq!(
                    page.palette_segment,
                    (block / stride) as usize,
                    "a block is drawn from the buffer of the window it starts in"
                );
                assert!(block + 57 <= end);
            }
        }
        let ends_past = [SkinnedInstance::new(total as u32 - 10, 57, 0, [1.0; 3])];
        assert!(
            plan_pages(
                &l,
                &ends_past,
                &PageInputs {
                    palette: &buffers,
                    ..inputs(0, 1)
                }
            )
            .is_err()
        );
    }

    #[test]
    fn one_page_when_everything_fits() {
        let (list, sizes) = (crowd(500, 57), inputs(500 * 57, 500));
        let plan = plan_pages(&limits(128 << 20), &list, &sizes).unwrap(); // ok: unit test
        assert_eq!(plan.pages.len(), 1);
        assert_eq!(plan.staged[..500], crowd(500, 57)[..]);
        let empty = plan_pages(&limits(128 << 20), &[], &inputs(1, 1)).unwrap(); // ok: unit test
        assert!(empty.pages.is_empty() && empty.bytes.instances == 0);
    }

    #[test]
    fn instance_and_preskin_regions_fit_one_binding() {
        let vertices = [1000u32, 10];
        let inputs = PageInputs {
            preskin_vertices: &vertices,
            ..inputs(100 * 57, 100)
        };
        let plan = plan_pages(&limits(1 << 20), &crowd(100, 57), &inputs).unwrap(); // ok: unit test
        for page in &plan.pages {
            assert!(u64::from(page.count) * 1000 * VERTEX_SIZE <= 1 << 20);
        }
        assert_eq!(plan.pages.len(), 3);
    }

    #[test]
    fn out_of_range_and_oversized_blocks_are_refused() {
        let l = limits(64 << 10);
        assert!(plan_pages(&l, &crowd(3, 57), &inputs(100, 3)).is_err());
        assert!(plan_pages(&l, &crowd(3, 57), &inputs(1000, 2)).is_err());
        let huge = [SkinnedInstance::new(0, 5000, 0, [1.0; 3])];
        assert!(plan_pages(&l, &huge, &inputs(5000, 1)).is_err());
    }
}

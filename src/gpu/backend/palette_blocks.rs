//! The GPU backend's palette: blocks allocated per instance (first fit, growing without moving
//! blocks, [`crate::palette`]), the buffers a vertex shader reads, and reading them back.

use std::ops::Range;

use super::GpuBackend;
use crate::error::{EvalError, GpuError};
use crate::gpu::layout::PALETTE_ENTRY_BYTES;
use crate::gpu::readback::{ReadRange, palette_from_bytes};
use crate::gpu::{PaletteSegment, locate_block};
use crate::math::Mat3x4Rows;
use crate::palette::PaletteBlock;

impl GpuBackend {
    /// Palette entries per instance of rig `rig` ([`crate::Rig::palette_entries`]), if it exists.
    pub fn palette_entries(&self, rig: u32) -> Option<usize> {
        self.library
            .rigs()
            .get(rig as usize)
            .map(|r| r.palette_entries)
    }

    /// A palette block for one instance of rig `rig` ([`crate::Rig::palette_entries`] entries; the
    /// palette grows if needed).
    pub fn allocate(&mut self, rig: u32) -> Result<PaletteBlock, GpuError> {
        let entries = self.palette_entries(rig).ok_or(EvalError::NoSuchRig {
            rig,
            rig_count: self.rig_count(),
        })?;
        self.allocate_entries(entries as u32)
    }

    /// A palette block of `len` entries (growing the palette if needed).
    pub fn allocate_entries(&mut self, len: u32) -> Result<PaletteBlock, GpuError> {
        self.loss.check()?;
        self.palette.allocate(&self.device, &self.queue, len)
    }

    /// Frees a block from [`GpuBackend::allocate`].
    pub fn free(&mut self, block: PaletteBlock) -> Result<(), GpuError> {
        self.palette.free(block)
    }

    /// Grows the palette to at least `entries` entries, for callers that lay out palette
    /// offsets themselves instead of allocating blocks.
    pub fn reserve_palette(&mut self, entries: u32) -> Result<(), GpuError> {
        self.loss.check()?;
        self.palette.reserve(&self.device, &self.queue, entries)
    }

    /// Palette capacity in entries.
    pub fn palette_capacity(&self) -> u32 {
        self.palette.capacity()
    }

    /// The palette's buffers (48-byte [`crate::Mat3x4Rows`] entries), for a vertex shader to
    /// read: one buffer while the palette fits one storage binding, else one per binding window
    /// ([`PaletteSegment`]; a block lives in the last buffer starting at or before its first
    /// entry, [`crate::gpu::locate_block`]). Buffers are replaced or added when the palette
    /// grows.
    pub fn palette_segments(&self) -> &[PaletteSegment] {
        self.palette.segments()
    }

    /// The windows the palette is bound in, fixed by the device's limits: a block is read
    /// only from the window it starts in (an animator places inertialization blocks by them,
    /// [`crate::runtime::Animator::set_palette_windows`]).
    pub fn palette_paging(&self) -> crate::render::PalettePaging {
        self.palette.paging()
    }

    /// Reads palette entries `range` back. A range across several of the palette's buffers
    /// reads each resident instance's block from the buffer its block lives in, and other
    /// entries from the buffer of the window they fall in.
    pub fn read_palette(&self, range: Range<u32>) -> Result<Vec<Mat3x4Rows>, GpuError> {
        let len = range.end.saturating_sub(range.start);
        let end = u64::from(range.start) + u64::from(len);
        self.check_palette_end(end)?;
        let segments = self.palette.segments();
        if len == 0 || locate_block(segments, range.start, u64::from(len)).is_ok() {
            let bytes = self.read(&[self.palette_range(range.start, len)?])?;
            return Ok(bytes
                .first()
                .map_or_else(Vec::new, |b| palette_from_bytes(b)));
        }
        // Every buffer's part of the range, then each entry from the buffer that owns it.
        let start = u64::from(range.start);
        let parts: Vec<(usize, Range<u64>)> = segments
            .iter()
            .enumerate()
            .filter_map(|(k, s)| {
                let lo = start.max(u64::from(s.first_entry));
                let hi = end.min(s.end());
                (lo < hi).then_some((k, lo..hi))
            })
            .collect();
        let reads: Vec<ReadRange<'_>> = parts
            .iter()
            .map(|(k, r)| ReadRange {
                buffer: &segments[*k].buffer,
                offset: (r.start - u64::from(segments[*k].first_entry)) * PALETTE_ENTRY_BYTES,
                size: (r.end - r.start) * PALETTE_ENTRY_BYTES,
            })
            .collect();
        let read: Vec<Vec<Mat3x4Rows>> = self
            .read(&reads)?
            .iter()
            .map(|b| palette_from_bytes(b))
            .collect();
        let window_of = |e: u64| segments.partition_point(|s| u64::from(s.first_entry) <= e) - 1;
        let mut owner: Vec<usize> = (start..end).map(window_of).collect();
        let rigs = self.library.rigs();
        for rec in self.table.records() {
            let Some(rig) = rigs.get(rec.rig as usize) else {
                continue;
            };
            let (lo, hi) = (
                u64::from(rec.palette_offset),
                u64::from(rec.palette_offset) + rig.palette_entries as u64,
            );
            let k = window_of(lo);
            for e in lo.max(start)..hi.min(end) {
                owner[(e - start) as usize] = k;
            }
        }
        let entry = |e: u64, k: usize| {
            let p = parts.iter().position(|(j, _)| *j == k)?;
            read[p].get((e - parts[p].1.start) as usize).copied()
        };
        (start..end)
            .zip(owner)
            .map(|(e, k)| {
                entry(e, k).ok_or_else(|| {
                    GpuError::Validation(format!("palette entry {e} is in no buffer"))
                })
            })
            .collect()
    }

    /// The read of the block of `len` entries from palette entry `offset`, in the buffer it
    /// lives in.
    pub(super) fn palette_range(&self, offset: u32, len: u32) -> Result<ReadRange<'_>, GpuError> {
        let end = u64::from(offset) + u64::from(len);
        self.check_palette_end(end)?;
        let segments = self.palette.segments();
        let (k, at) =
            locate_block(segments, offset, u64::from(len)).map_err(GpuError::Validation)?;
        Ok(ReadRange {
            buffer: &segments[k].buffer,
            offset: at * PALETTE_ENTRY_BYTES,
            size: u64::from(len) * PALETTE_ENTRY_BYTES,
        })
    }

    /// An error when palette entry `end` lies past the palette's capacity.
    fn check_palette_end(&self, end: u64) -> Result<(), GpuError> {
        if end > u64::from(self.palette.capacity()) {
            return Err(EvalError::OutputSize {
                expected: end as usize,
                found: self.palette.capacity() as usize,
            }
            .into());
        }
        Ok(())
    }
}

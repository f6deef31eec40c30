//! The GPU backend's palette: blocks allocated per instance (first fit, growing without moving
//! blocks, [`crate::palette`]) and the buffer a vertex shader reads.

use super::GpuBackend;
use crate::error::{EvalError, GpuError};
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

    /// The palette buffer (48-byte [`crate::Mat3x4Rows`] entries), for a vertex shader to read. It is
    /// replaced when the palette grows.
    pub fn palette_buffer(&self) -> &wgpu::Buffer {
        self.palette.buffer()
    }
}

//! Where the windows a dispatch binds start: binding offsets must be multiples of the device's
//! offset alignment, so a palette too large for one binding is bound in overlapping windows, and
//! a dispatch's bounds are bound from the aligned slot at or before its first.

use super::GpuBackend;
use crate::gpu::layout::{AABB_BYTES, PALETTE_ENTRY_BYTES};

/// `x` rounded up to a multiple of `alignment`.
pub(super) fn align_up(x: u64, alignment: u64) -> u64 {
    x.div_ceil(alignment) * alignment
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The slot at or before `first` whose AABB starts at a binding-offset-aligned byte.
pub(super) fn bounds_base(first: u32, alignment: u64) -> u32 {
    ((u64::from(first) * AABB_BYTES) / alignment * alignment / AABB_BYTES) as u32
}

impl GpuBackend {
    /// Palette entries per window when the palette needs more than one binding, else `None`.
    pub(super) fn window_stride(&self) -> Option<u32> {
        let capacity = u64::from(self.palette.capacity()) * PALETTE_ENTRY_BYTES;
        if capacity <= self.palette_binding {
            return None;
        }
        // Window starts must be binding-offset aligned; windows overlap by the longest palette
        // block so every block starting inside a window ends inside its binding.
        let step = self.offset_alignment / gcd(PALETTE_ENTRY_BYTES, self.offset_alignment);
        let entries = self.palette_binding / PALETTE_ENTRY_BYTES - self.block_overlap;
        Some(((entries / step) * step) as u32)
    }
}

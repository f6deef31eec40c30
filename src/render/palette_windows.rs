//! Palette windows: the fixed paging of a palette larger than one storage binding into
//! aligned windows that overlap by the longest palette block ([`PalettePaging`]), what a host
//! binds per window ([`palette_windows`]) and what the GPU evaluator gives a buffer each.

use super::error::RenderError;
use super::paging::BindingLimits;
use super::skinning::PALETTE_ENTRY_SIZE;
use crate::baked::MAX_PALETTE_BLOCK;

/// A range of palette entries that one storage binding holds, starting at an aligned offset:
/// what a host binds with
/// [`create_palette_window_bind_group`](super::create_palette_window_bind_group).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PaletteWindow {
    /// First entry of the window: the shader's palette offsets are relative to it.
    pub first_entry: u32,
    /// Entries in the window.
    pub entries: u32,
}

impl PaletteWindow {
    /// Whether the block of `entries` entries from palette entry `first_entry` lies inside.
    pub fn contains(&self, first_entry: u32, entries: u32) -> bool {
        let (start, end) = (u64::from(self.first_entry), self.end());
        let block_end = u64::from(first_entry) + u64::from(entries);
        u64::from(first_entry) >= start && block_end <= end
    }

    /// One past the last entry.
    pub fn end(&self) -> u64 {
        u64::from(self.first_entry) + u64::from(self.entries)
    }
}

/// Where [`palette_windows`] starts windows on a device: a palette larger than one binding gets a
/// window of `window_entries` entries every `stride` entries. Fixed by the device's limits, so a
/// growing palette keeps its earlier windows' starts and a block's window
/// ([`PalettePaging::window_of`]) never changes: a host may give each window a buffer of its own
/// (entries `k * stride ..` of the palette in buffer `k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PalettePaging {
    /// Entries one storage binding holds.
    pub window_entries: u32,
    /// Entries from one window's start to the next (aligned to the binding offset alignment,
    /// at most `window_entries - MAX_PALETTE_BLOCK`).
    pub stride: u32,
}

impl PalettePaging {
    /// The window (from the first, at 0) that holds a block of up to [`MAX_PALETTE_BLOCK`]
    /// entries starting at palette entry `first_entry`: [`palette_window_of`] for a palette
    /// larger than one binding (which [`palette_windows`] binds whole, as window 0, otherwise).
    pub fn window_of(&self, first_entry: u32) -> u32 {
        first_entry / self.stride
    }

    /// Entries of window `window` that a palette of `palette_entries` entries fills.
    pub fn window_len(&self, window: u32, palette_entries: u32) -> u32 {
        let start = u64::from(window) * u64::from(self.stride);
        (u64::from(palette_entries).saturating_sub(start)).min(u64::from(self.window_entries))
            as u32
    }
}

/// The paging of palettes on a device with `limits` (`device.limits()`, or a copy with a smaller
/// `max_storage_buffer_binding_size`). Errors when one binding cannot hold the largest palette
/// block wherever it starts.
pub fn palette_paging(limits: &wgpu::Limits) -> Result<PalettePaging, RenderError> {
    Ok(paging_of(
        &BindingLimits::from_limits(limits, None).checked()?,
    ))
}

/// The paging of palettes under `limits` (already [`BindingLimits::checked`]).
pub(crate) fn paging_of(limits: &BindingLimits) -> PalettePaging {
    let len = limits.window_len(PALETTE_ENTRY_SIZE);
    let stride = limits.window_start(len - MAX_PALETTE_BLOCK as u64, PALETTE_ENTRY_SIZE);
    let clamp = |x: u64| x.min(u64::from(u32::MAX)) as u32;
    PalettePaging {
        window_entries: clamp(len),
        stride: clamp(stride),
    }
}

/// The windows a host binds to draw from a palette of `palette_entries` entries on a device
/// with `limits` (`device.limits()`, or a copy with a smaller `max_storage_buffer_binding_size`).
///
/// One window covers a palette that fits one binding. A larger palette gets windows starting
/// every `stride` entries (at offsets aligned to `min_storage_buffer_offset_alignment`) and
/// overlapping by [`MAX_PALETTE_BLOCK`] entries, so a block of up to that many entries (any
/// rig's [`Rig::palette_entries`](crate::Rig::palette_entries)) starting at entry `o` lies
/// inside window [`palette_window_of`]`(windows, o)`: the last one starting at or before `o`
/// ([`palette_paging`] gives `stride`).
/// Draw each window's instances with its bind group and the palette offset `o - first_entry`.
/// Errors when the binding is too small to hold such a block.
pub fn palette_windows(
    limits: &wgpu::Limits,
    palette_entries: u32,
) -> Result<Vec<PaletteWindow>, RenderError> {
    let paging = palette_paging(limits)?;
    let total = u64::from(palette_entries);
    if total <= u64::from(paging.window_entries) {
        return Ok((total > 0)
            .then_some(PaletteWindow {
                first_entry: 0,
                entries: palette_entries,
            })
            .into_iter()
            .collect());
    }
    let mut windows: Vec<PaletteWindow> = Vec::new();
    while windows.last().is_none_or(|w| w.end() < total) {
        let index = windows.len() as u32;
        windows.push(PaletteWindow {
            first_entry: index * paging.stride,
            entries: paging.window_len(index, palette_entries),
        });
    }
    Ok(windows)
}

/// The index of the window of `windows` (from [`palette_windows`]) that holds the block starting
/// at palette entry `first_entry`: the last window starting at or before it.
pub fn palette_window_of(windows: &[PaletteWindow], first_entry: u32) -> Option<usize> {
    windows
        .partition_point(|w| w.first_entry <= first_entry)
        .checked_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_windows_hold_every_block_starting_in_them() {
        let mut device = wgpu::Limits {
            max_storage_buffer_binding_size: 64 << 10,
            ..wgpu::Limits::default()
        };
        let total = 20_000;
        let windows = palette_windows(&device, total).unwrap(); // ok: unit test
        assert!(windows.len() > 10);
        for w in &windows {
            assert_eq!(u64::from(w.first_entry) * PALETTE_ENTRY_SIZE % 256, 0);
            assert!(u64::from(w.entries) * PALETTE_ENTRY_SIZE <= 64 << 10);
        }
        for start in (0..total - MAX_PALETTE_BLOCK as u32).step_by(7) {
            let k = palette_window_of(&windows, start).unwrap(); // ok: unit test
            assert!(
                windows[k].contains(start, MAX_PALETTE_BLOCK as u32),
                "{start}"
            );
        }
        assert_eq!(windows.last().unwrap().end(), u64::from(total)); // ok: unit test
        assert_eq!(palette_windows(&device, 100).unwrap().len(), 1); // ok: unit test
        assert!(palette_windows(&device, 0).unwrap().is_empty()); // ok: unit test
        device.max_storage_buffer_binding_size = 4096;
        assert!(palette_windows(&device, 100).is_err());
    }
}

//! A palette held in several buffers. One buffer cannot exceed the device's `max_buffer_size`,
//! nor one binding its `max_storage_buffer_binding_size`, so a large palette is kept as
//! segments: buffer `k` holds the palette's entries from `first_entry` on, one binding window
//! each ([`PalettePaging`](crate::render::PalettePaging)). Consecutive windows overlap by the
//! longest palette block, so a block lives whole in the segment of the window it starts in:
//! the last segment starting at or before its first entry ([`locate_block`]).

use super::layout::PALETTE_ENTRY_BYTES;

/// One buffer of a palette: its entry 0 is palette entry `first_entry`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaletteSegment {
    /// The palette entry the buffer starts at.
    pub first_entry: u32,
    /// [`crate::Mat3x4Rows`] entries.
    pub buffer: wgpu::Buffer,
}

impl PaletteSegment {
    /// A palette held in one buffer: the segment of the whole of `buffer`.
    pub fn whole(buffer: &wgpu::Buffer) -> Self {
        Self {
            first_entry: 0,
            buffer: buffer.clone(),
        }
    }

    /// Entries the buffer holds.
    pub fn entries(&self) -> u64 {
        self.buffer.size() / PALETTE_ENTRY_BYTES
    }

    /// One past the last palette entry the buffer holds.
    pub fn end(&self) -> u64 {
        u64::from(self.first_entry) + self.entries()
    }
}

/// Where the block of `len` entries starting at palette entry `first` lives in `segments`
/// (sorted by `first_entry`, the first at 0): the index of the last segment starting at or
/// before `first`, and the block's first entry in that buffer. The reason as text when no
/// segment holds the whole block.
pub fn locate_block(
    segments: &[PaletteSegment],
    first: u32,
    len: u64,
) -> Result<(usize, u64), String> {
    let end = u64::from(first) + len;
    let k = segments
        .partition_point(|s| s.first_entry <= first)
        .checked_sub(1)
        .ok_or_else(|| format!("palette block {first}..{end}: the palette has no buffer"))?;
    let segment = &segments[k];
    if end > segment.end() {
        let whole = segments.last().map_or(0, PaletteSegment::end);
        return Err(if k + 1 == segments.len() {
            format!("palette block {first}..{end} lies past the palette's {whole} entries")
        } else {
            format!(
                "palette block {first}..{end} does not fit the palette buffer of entries {}..{}",
                segment.first_entry,
                segment.end()
            )
        });
    }
    Ok((k, u64::from(first - segment.first_entry)))
}

//! Uniform segments: consecutive uniform runs of a compressed clip's frames, stored in its
//! data words.

use std::borrow::Cow;

use bytemuck::{Pod, Zeroable};

use super::CompressedClip;

/// The most segments of one clip; a clip whose keys need more is framed on one grid.
pub const MAX_SEGMENTS: usize = 16;

/// Words of one [`ClipSegment`] in [`super::CompressedClips::data`].
pub const SEGMENT_WORDS: usize = size_of::<ClipSegment>() / 4;

/// One uniform run of a clip's frames (16 bytes, stored in the data words): frames
/// `first_frame..=first_frame + intervals` at `start + i / rate`, its last frame the next
/// segment's first. [`super::CompressedClips::from_parts`] accepts a table of 2..=
/// [`MAX_SEGMENTS`] inside the data, starting at 0 s on frame 0, each segment with a finite
/// positive rate and at least one interval, starting where the previous one ends (frame, and
/// time within a thousandth of its step), the last on the clip's last frame at or after its
/// duration.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ClipSegment {
    /// Clip time of the segment's first frame (seconds; 0 for the first segment).
    pub start: f32,
    /// Frames per second inside the segment.
    pub rate: f32,
    /// Index of the segment's first frame in the clip's frame records.
    pub first_frame: u32,
    /// Frames after the first (at least 1).
    pub intervals: u32,
}

const _: () = assert!(SEGMENT_WORDS == 4);

impl ClipSegment {
    /// Clip time of the segment's last frame, computed in f64.
    pub fn end(&self) -> f64 {
        f64::from(self.start) + f64::from(self.intervals) / f64::from(self.rate)
    }
}

/// The segments of `record`: its table `table` when it has one, else its uniform grid as one
/// segment (a one-frame clip: no interval).
pub(crate) fn effective<'a>(
    record: &CompressedClip,
    table: &'a [ClipSegment],
) -> Cow<'a, [ClipSegment]> {
    if table.is_empty() {
        Cow::Owned(vec![ClipSegment {
            start: 0.0,
            rate: record.rate,
            first_frame: 0,
            intervals: record.frame_count.saturating_sub(1),
        }])
    } else {
        Cow::Borrowed(table)
    }
}

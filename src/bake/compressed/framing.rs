//! Where a compressed clip's frames lie: one uniform grid, or uniform segments of its keys,
//! and how a framing is refined where raw frames miss the budget.

use super::segments::{finest_rate, frame_total, key_segments, refine};
use crate::baked::grid::{ClipGrid, MAX_CLIP_FRAMES};
use crate::baked::{Channel, ClipLibrary, ClipSegment, Interpolation};

/// Where a clip's frames lie: one grid of `rate`, or uniform segments.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Framing {
    /// Frames per second of the one grid (with segments: the finest segment's).
    pub rate: f32,
    /// The segments; empty for one grid.
    pub segments: Vec<ClipSegment>,
}

impl Framing {
    /// The step halved where `missed` (one flag per interval of a clip of `duration` seconds)
    /// is true: one grid's whole when every interval is missed, else the runs of missed
    /// intervals on segments of their own ([`refine`]); every segment's, or the grid's, when
    /// that needs too many segments.
    pub(super) fn refined(&self, missed: &[bool], duration: f32) -> Self {
        let doubled = Self {
            rate: self.rate * 2.0,
            segments: Vec::new(),
        };
        let grid;
        let segments = if self.segments.is_empty() {
            if missed.iter().all(|&m| m) {
                return doubled;
            }
            grid = [ClipSegment {
                start: 0.0,
                rate: self.rate,
                first_frame: 0,
                intervals: frame_count(duration, self.rate) as u32 - 1,
            }];
            &grid[..]
        } else {
            &self.segments[..]
        };
        match refine(segments, missed) {
            Some(segments) if segments.len() > 1 => Self {
                rate: finest_rate(&segments),
                segments,
            },
            Some(_) => doubled,
            None if self.segments.is_empty() => doubled,
            None => Self {
                rate: self.rate * 2.0,
                segments: refine(&self.segments, &[]).unwrap_or_default(),
            },
        }
    }

    /// The finest rate.
    pub(super) fn finest_rate(&self) -> f32 {
        if self.segments.is_empty() {
            self.rate
        } else {
            finest_rate(&self.segments)
        }
    }

    /// Frames of a clip of `duration` seconds.
    pub(super) fn frame_count(&self, duration: f32) -> usize {
        if self.segments.is_empty() {
            frame_count(duration, self.rate)
        } else {
            frame_total(&self.segments)
        }
    }
}

/// The first framing of clip `clip`: the uniform segments of its keys when they need more than
/// one and it has no cubic splines ([`key_segments`]), else one grid ([`clip_rate`]).
pub(super) fn clip_framing(lib: &ClipLibrary, clip: usize, grid: &ClipGrid) -> Framing {
    let rate = clip_rate(lib, clip, grid);
    let segments = if has_cubic(lib, clip) {
        None
    } else {
        key_segments(lib, clip)
    };
    match segments {
        Some(segments) if frame_total(&segments) < MAX_CLIP_FRAMES as usize => Framing {
            rate: finest_rate(&segments),
            segments,
        },
        _ => Framing {
            rate,
            segments: Vec::new(),
        },
    }
}

/// Whether a track of clip `clip` with more than one key is a cubic spline.
fn has_cubic(lib: &ClipLibrary, clip: usize) -> bool {
    (0..lib.joint_count()).any(|j| {
        Channel::ALL.iter().any(|&ch| {
            let d = lib.track(clip, j, ch);
            d.key_count > 1 && d.interpolation == Interpolation::CubicSpline as u32
        })
    }) || (0..lib.weight_chunk_count()).any(|k| {
        lib.weight_track(clip, k).is_some_and(|d| {
            d.key_count > 1 && d.interpolation == Interpolation::CubicSpline as u32
        })
    })
}

/// The first rate of clip `clip`: its own key grid when it has one and no cubic splines (every
/// key a frame, no more frames than keys), else the fast mode's rate `grid` (cubic factor,
/// doubling on fast turns, frame cap).
fn clip_rate(lib: &ClipLibrary, clip: usize, grid: &ClipGrid) -> f32 {
    let cubic = has_cubic(lib, clip);
    match grid.key_grid {
        Some(keys) if !cubic && keys <= grid.rate => keys,
        _ => grid.rate,
    }
}

/// Number of frames covering `0..=duration` at `rate`: one for a pose, else at least 2.
pub(super) fn frame_count(duration: f32, rate: f32) -> usize {
    if duration <= 0.0 {
        return 1;
    }
    let intervals = (f64::from(duration) * f64::from(rate) - 1e-3)
        .ceil()
        .clamp(1.0, f64::from(MAX_CLIP_FRAMES - 1));
    intervals as usize + 1
}

//! The uniform frame grid a clip is resampled on: the fast CPU mode's frames and the compressed
//! encoder's first rate. The rule is described with the resampled format
//! (`src/cpu/fast/resampled.rs`).

use super::sample::sample_track;
use super::{Channel, ClipLibrary, Interpolation};

/// The rate clips are resampled at when none is asked for (frames per second).
pub const DEFAULT_RATE: f32 = 30.0;
/// The lowest resampling rate accepted; lower requests are raised to it.
pub const MIN_RATE: f32 = 1.0;
/// The highest resampling rate accepted; higher requests are lowered to it.
pub const MAX_RATE: f32 = 240.0;

/// Clips with CUBICSPLINE tracks are resampled at this multiple of the requested rate (at most
/// [`MAX_RATE`]): a chord of a cubic strays from it as the square of its length.
pub const CUBIC_RATE_FACTOR: f32 = 4.0;

/// The most a rotation may turn between two frames (radians, 20°) before the clip's rate is
/// doubled: normalized lerp then stays within 0.2 mrad of slerp.
pub const MAX_FRAME_ANGLE: f32 = 20.0 * std::f32::consts::PI / 180.0;

/// The most frames one clip is resampled into: memory and bake time grow with the frame count,
/// and a file can name any duration.
pub const MAX_CLIP_FRAMES: u32 = 1 << 16;

/// Relative tolerance within which key intervals count as equal and key times as on a grid.
const GRID_TOLERANCE: f64 = 1e-4;

/// The grid of one clip: its rate, the key grid its keys lie on (if any), its duration (finite,
/// at least 0) and the number of frames covering it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipGrid {
    /// Frames per second.
    pub rate: f32,
    /// The uniform grid (keys per second) every key lies on, when there is one.
    pub key_grid: Option<f32>,
    /// The clip's duration (seconds).
    pub duration: f32,
    /// Frames covering `0..=duration`.
    pub frames: usize,
}

/// The grid clip `clip` of `lib` is resampled on for the requested `rate` (already sanitized).
pub fn clip_grid(lib: &ClipLibrary, clip: usize, rate: f32) -> ClipGrid {
    let joints = lib.joint_count();
    let duration = lib.clips()[clip].duration;
    let duration = if duration.is_finite() {
        duration.max(0.0)
    } else {
        0.0
    };
    let key_grid = key_grid(lib, clip);
    // Cubic splines bend between keys: four times the frames keep the chords close.
    let cubic = (0..joints).any(|j| {
        Channel::ALL.iter().any(|&ch| {
            let d = lib.track(clip, j, ch);
            d.key_count > 1 && d.interpolation == Interpolation::CubicSpline as u32
        })
    });
    let rate = if cubic {
        (rate * CUBIC_RATE_FACTOR).min(MAX_RATE)
    } else {
        rate
    };
    // The highest rate at which the clip fits in MAX_CLIP_FRAMES frames.
    let fitting_rate = if duration > 0.0 {
        ((f64::from(MAX_CLIP_FRAMES) - 2.0) / f64::from(duration)) as f32
    } else {
        f32::INFINITY
    };
    let mut clip_rate = match key_grid {
        Some(grid) => grid * (rate / grid).round().max(1.0),
        None => rate,
    }
    .min(fitting_rate);
    // Normalized lerp strays from slerp as the cube of the angle: double the rate (keys stay
    // on frames) while some rotation turns too far between two frames.
    while clip_rate * 2.0 <= MAX_RATE.min(fitting_rate)
        && max_frame_angle(lib, clip, duration, clip_rate) > MAX_FRAME_ANGLE
    {
        clip_rate *= 2.0;
    }
    let frames = frame_count(duration, clip_rate);
    ClipGrid {
        rate: clip_rate,
        key_grid,
        duration,
        frames,
    }
}

/// Number of frames covering `0..=duration` at `rate` (at least 2, at most
/// [`MAX_CLIP_FRAMES`]).
fn frame_count(duration: f32, rate: f32) -> usize {
    let intervals = (f64::from(duration) * f64::from(rate) - 1e-3)
        .ceil()
        .clamp(0.0, f64::from(MAX_CLIP_FRAMES - 1));
    (intervals as usize + 1).max(2)
}

/// The largest angle (radians) any rotation of `clip` turns between two frames at `rate`.
fn max_frame_angle(lib: &ClipLibrary, clip: usize, duration: f32, rate: f32) -> f32 {
    let frames = frame_count(duration, rate);
    let mut worst = 0.0f32;
    for joint in 0..lib.joint_count() {
        let desc = lib.track(clip, joint, Channel::Rotation);
        if desc.key_count < 2 {
            continue;
        }
        let at = |f: usize| {
            let t = ((f as f64 / f64::from(rate)) as f32).min(duration);
            sample_track(lib, desc, true, t)
        };
        let mut prev = at(0);
        for f in 1..frames {
            let q = at(f);
            let cos = prev.dot(q).abs().min(1.0);
            worst = worst.max(2.0 * cos.acos());
            prev = q;
        }
    }
    worst
}

/// `rate` clamped into `MIN_RATE..=MAX_RATE`, NaN replaced by [`DEFAULT_RATE`].
pub fn sanitize_rate(rate: f32) -> f32 {
    if rate.is_nan() {
        DEFAULT_RATE
    } else {
        rate.clamp(MIN_RATE, MAX_RATE)
    }
}

/// The coarsest uniform grid (keys per second, at most [`MAX_RATE`]) on which every key time
/// of every track of `clip` with more than one key lies, when there is one: the key rate of an
/// exporter's uniform sampling, or a multiple of it when some keys were dropped or shifted by a
/// fraction of a frame (Fox's "Run": 24 Hz keys, a gap of 0.2 s, then 24 Hz keys again on the
/// 120 Hz grid).
fn key_grid(lib: &ClipLibrary, clip: usize) -> Option<f32> {
    let mut times: Vec<f64> = Vec::new();
    let mut min_step = f64::INFINITY;
    for joint in 0..lib.joint_count() {
        for channel in Channel::ALL {
            let desc = lib.track(clip, joint, channel);
            let n = desc.key_count as usize;
            if n < 2 {
                continue;
            }
            let t0 = desc.time_offset as usize;
            let keys = &lib.times()[t0..t0 + n];
            for w in keys.windows(2) {
                min_step = min_step.min(f64::from(w[1]) - f64::from(w[0]));
            }
            times.extend(keys.iter().map(|&t| f64::from(t)));
        }
    }
    if times.is_empty() || min_step <= 0.0 {
        return None;
    }
    times.sort_unstable_by(f64::total_cmp);
    times.dedup();
    let mut base = 1.0 / min_step;
    if (base - base.round()).abs() <= GRID_TOLERANCE * base {
        base = base.round();
    }
    (1..=8)
        .map(|m| base * m as f64)
        .take_while(|&rate| rate <= f64::from(MAX_RATE) * (1.0 + GRID_TOLERANCE))
        .find(|&rate| {
            times.iter().all(|&t| {
                let x = t * rate;
                (x - x.round()).abs() <= 1e-3 + GRID_TOLERANCE * 1e-2 * x
            })
        })
        .map(|rate| rate as f32)
}

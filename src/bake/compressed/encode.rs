//! Building compressed clips: each clip sampled on its frame grid, constant and rest channels
//! stripped, the others given a range, a bit rate ([`super::bit_rates`]) and packed.

use glam::Vec4;
use half::f16;

use super::bit_rates::ClipPlan;
use super::error::{exact_weights, measure};
use super::segments::{finest_rate, frame_times, frame_total, key_segments, refine};
use super::{
    ChannelCode, ChannelKind, ClipSegment, CompressedClip, CompressedClips, MAX_ERROR_BUDGET,
    MIN_ERROR_BUDGET, VIRTUAL_VERTEX_DISTANCE, channel_kind,
};
use crate::bake::{ClipLibrary, Rig};
use crate::cpu::decode::{dequantize, range_bounds, rotation_from_stored, stored_rotation};
use crate::cpu::fast::{DEFAULT_RATE, MAX_CLIP_FRAMES, MAX_RATE, ResampledClip, ResampledClips};
use crate::cpu::sample_track;
use crate::error::EvalError;
use crate::import::{Channel, Interpolation};

/// Channels whose every frame lies within this of one value are constant; within this of the
/// rest value, at rest (absolute, per component).
const CONSTANT_TOLERANCE: f32 = 1e-7;

/// A rotation component may be dropped and rebuilt from the unit norm when its magnitude stays
/// at least this over the clip (the rebuilt value's error is then at most `√3` times the stored
/// components'); below it the rotation is stored whole.
const MIN_DROPPED: f32 = 0.5;

/// One channel of one clip sampled at its frames.
#[derive(Clone, Debug)]
pub(super) enum Sampled {
    /// The rig's rest value (no data).
    Rest,
    /// One value for the whole clip.
    Constant(Vec4),
    /// A value per frame (rotations signed so the dropped component is `>= 0`) and its range
    /// words.
    Animated {
        /// STEP track: frames are held.
        step: bool,
        /// Rotation layout ([`ChannelCode::layout`]; [`ChannelCode::DROP_W`] for the others).
        layout: u32,
        /// The value at each frame.
        frames: Vec<Vec4>,
        /// Range word per stored component, `None` when a bound does not fit in f16.
        ranges: Option<[u32; 4]>,
    },
}

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
    fn refined(&self, missed: &[bool], duration: f32) -> Self {
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
    fn finest_rate(&self) -> f32 {
        if self.segments.is_empty() {
            self.rate
        } else {
            finest_rate(&self.segments)
        }
    }

    /// Frames of a clip of `duration` seconds.
    fn frame_count(&self, duration: f32) -> usize {
        if self.segments.is_empty() {
            frame_count(duration, self.rate)
        } else {
            frame_total(&self.segments)
        }
    }
}

/// One clip's frames and every channel sampled on them.
#[derive(Clone, Debug)]
pub(super) struct ClipFrames {
    /// The grid (offsets left 0).
    pub record: CompressedClip,
    /// The segment table (empty for one grid).
    pub segments: Vec<ClipSegment>,
    /// Per channel (`joint * 3 + channel`, then weight chunks).
    pub channels: Vec<Sampled>,
}

impl CompressedClips {
    /// Compresses every clip of `rig` so that ACL's error (see [`super::DEFAULT_ERROR_BUDGET`])
    /// stays within `budget` metres wherever the rig's rate limits allow, and every morph
    /// weight within [`super::WEIGHT_ERROR_BUDGET`]. `budget` is clamped into
    /// `MIN_ERROR_BUDGET..=MAX_ERROR_BUDGET` (NaN means the default). Fails with
    /// [`EvalError::InvalidRig`] when the rig's parts disagree or its clips do not fit the
    /// format (more data than 24-bit value indices reach).
    pub fn build(rig: &Rig, budget: f32) -> Result<Self, EvalError> {
        Self::build_in_units(rig, budget, 1.0)
    }

    /// [`CompressedClips::build`] for a rig modelled in other units than metres (Fox, in
    /// centimetres: 100): the budget, the virtual vertices' distance and the measured error
    /// stay in metres. `units_per_metre` that is not a positive number means 1.
    pub fn build_in_units(rig: &Rig, budget: f32, units_per_metre: f32) -> Result<Self, EvalError> {
        let upm = if units_per_metre.is_finite() && units_per_metre > 0.0 {
            units_per_metre
        } else {
            1.0
        };
        let invalid = |reason: String| EvalError::InvalidRig {
            rig: 0,
            name: rig.name.clone(),
            reason,
        };
        rig.check_parts().map_err(invalid)?;
        let budget = if budget.is_nan() {
            super::DEFAULT_ERROR_BUDGET
        } else {
            budget.clamp(MIN_ERROR_BUDGET, MAX_ERROR_BUDGET)
        };
        let lib = &rig.clips;
        let resampled = ResampledClips::build(lib, DEFAULT_RATE);
        let joints = rig.joint_count();
        let chunks = lib.weight_chunk_count();
        let mut clips = Vec::with_capacity(lib.clip_count());
        let mut channels = Vec::with_capacity(lib.clip_count() * (joints * 3 + chunks));
        let mut data = Vec::new();
        let mut max_error = 0.0f32;
        for (clip, grid) in resampled.clips().iter().enumerate() {
            let framing = clip_framing(lib, clip, grid);
            let plan = plan_clip(
                rig,
                clip,
                framing,
                budget * upm,
                VIRTUAL_VERTEX_DISTANCE * upm,
            );
            max_error = max_error.max(plan.error);
            let record = pack(&plan, clip, &mut channels, &mut data).map_err(invalid)?;
            clips.push(record);
        }
        let out = Self::from_parts(
            joints as u32,
            chunks as u32,
            clips,
            channels,
            data,
            budget,
            max_error,
        )
        .map_err(|e| invalid(e.to_string()))?;
        // The figure stored is the decoder's own, measured again on the packed words.
        let measured = (0..out.clips.len())
            .map(|c| measure(rig, &out, c, upm))
            .fold(0.0f32, f32::max);
        Ok(Self {
            max_error: measured,
            ..out
        })
    }
}

impl Rig {
    /// Compresses the rig's clips to `budget` metres ([`CompressedClips::build`]) and keeps
    /// them in [`Rig::compressed`].
    pub fn compress(&mut self, budget: f32) -> Result<(), EvalError> {
        self.compressed = Some(CompressedClips::build(self, budget)?);
        Ok(())
    }
}

/// Samples clip `clip` on `framing`, halving the step (of one grid, or of the runs of
/// intervals that miss, on segments of their own; up to the fast mode's limits) while even raw
/// frames pass most of the budget (leaving too little to quantization) and halving at least
/// halves that error (an error that stays, such as the f32 rounding of a far joint, is not
/// worth frames), then chooses every channel's bit rate.
fn plan_clip(rig: &Rig, clip: usize, framing: Framing, budget: f32, vertex: f32) -> ClipPlan<'_> {
    let mut framing = framing;
    let duration = rig.clips.clips()[clip].duration;
    let mut plan = ClipPlan::raw(rig, clip, sample_clip(rig, clip, &framing), budget, vertex);
    loop {
        if plan.frames_suffice() {
            break;
        }
        let finer_framing = framing.refined(&plan.intervals_missing_budget(), duration);
        if finer_framing.finest_rate() > MAX_RATE
            || finer_framing.frame_count(duration) >= MAX_CLIP_FRAMES as usize
        {
            break;
        }
        let finer = ClipPlan::raw(
            rig,
            clip,
            sample_clip(rig, clip, &finer_framing),
            budget,
            vertex,
        );
        if !finer.improves_on(&plan) {
            break;
        }
        plan = finer;
        framing = finer_framing;
    }
    plan.choose_bits()
}

/// The first framing of clip `clip`: the uniform segments of its keys when they need more than
/// one and it has no cubic splines ([`key_segments`]), else one grid ([`clip_rate`]).
fn clip_framing(lib: &ClipLibrary, clip: usize, grid: &ResampledClip) -> Framing {
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
fn clip_rate(lib: &ClipLibrary, clip: usize, grid: &ResampledClip) -> f32 {
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

/// Samples every channel of `clip` at the frames of `framing` and sorts it: rest, constant or
/// animated.
pub(super) fn sample_clip(rig: &Rig, clip: usize, framing: &Framing) -> ClipFrames {
    let lib = &rig.clips;
    let duration = lib.clips()[clip].duration;
    let rate = framing.finest_rate();
    let times: Vec<f32> = if framing.segments.is_empty() {
        (0..frame_count(duration, rate))
            .map(|f| ((f as f64 / f64::from(rate)) as f32).min(duration))
            .collect()
    } else {
        frame_times(&framing.segments, duration)
    };
    let count = times.len();
    let joints = rig.joint_count();
    let chunks = lib.weight_chunk_count();
    let mut channels = Vec::with_capacity(joints * 3 + chunks);
    for k in 0..joints * 3 + chunks {
        let kind = channel_kind(joints, k);
        let (rest, frames, track_rest, step) = if kind == ChannelKind::Weights {
            let chunk = k - joints * 3;
            let rest = lib.value(lib.weight_default_offset() + chunk);
            let desc = lib.weight_track(clip, chunk);
            let frames = times
                .iter()
                .map(|&t| exact_weights(lib, clip, chunk, t))
                .collect();
            let fallback = desc.is_none_or(|d| {
                d.key_count < 2 && d.value_offset as usize == lib.weight_default_offset() + chunk
            });
            let step = desc.is_some_and(|d| d.interpolation == Interpolation::Step as u32);
            (rest, frames, fallback, step)
        } else {
            let (joint, channel) = (k / 3, Channel::ALL[k % 3]);
            let rest_sqt = rig.skeleton.rest_pose()[joint];
            let rest = match channel {
                Channel::Translation => rest_sqt.translation.extend(0.0),
                Channel::Rotation => Vec4::from(rest_sqt.rotation),
                Channel::Scale => rest_sqt.scale.extend(0.0),
            };
            let desc = lib.track(clip, joint, channel);
            let rotation = channel == Channel::Rotation;
            let frames = times
                .iter()
                .map(|&t| {
                    let v = sample_track(lib, desc, rotation, t);
                    if rotation && v.w < 0.0 { -v } else { v }
                })
                .collect();
            let step = desc.interpolation == Interpolation::Step as u32;
            (rest, frames, !lib.is_animated(clip, joint, channel), step)
        };
        channels.push(classify(kind, rest, frames, track_rest, step));
    }
    ClipFrames {
        record: CompressedClip {
            rate,
            duration,
            frame_count: count as u32,
            ..CompressedClip::default()
        },
        segments: framing.segments.clone(),
        channels,
    }
}

/// Rest when the track is the rest fallback or every frame equals `rest` within the tolerance
/// (rotations: `rest` or `-rest`), constant when every frame equals the first, else animated.
fn classify(
    kind: ChannelKind,
    rest: Vec4,
    frames: Vec<Vec4>,
    track_rest: bool,
    step: bool,
) -> Sampled {
    let near = |a: Vec4, b: Vec4| (a - b).abs().max_element() <= CONSTANT_TOLERANCE;
    let at_rest = |v: Vec4| near(v, rest) || (kind == ChannelKind::Rotation && near(v, -rest));
    if track_rest || frames.iter().all(|&v| at_rest(v)) {
        return Sampled::Rest;
    }
    let first = frames[0];
    if frames.iter().all(|&v| near(v, first)) {
        return Sampled::Constant(first);
    }
    let (layout, frames) = if kind == ChannelKind::Rotation {
        rotation_layout(frames)
    } else {
        (ChannelCode::DROP_W, frames)
    };
    let ranges = ranges(kind, layout, &frames);
    Sampled::Animated {
        step,
        layout,
        frames,
        ranges,
    }
}

/// The layout of an animated rotation channel and its frames signed for it: drop the
/// component whose smallest magnitude over the frames is largest (each frame negated where it
/// is negative), or store all four when even that one falls below [`MIN_DROPPED`].
fn rotation_layout(frames: Vec<Vec4>) -> (u32, Vec<Vec4>) {
    let smallest = |c: usize| {
        frames
            .iter()
            .map(|v| v[c].abs())
            .fold(f32::INFINITY, f32::min)
    };
    // Component index of each dropping layout, w first so it wins ties.
    let (layout, c, least) = [
        (ChannelCode::DROP_W, 3),
        (ChannelCode::DROP_X, 0),
        (ChannelCode::DROP_Y, 1),
        (ChannelCode::DROP_Z, 2),
    ]
    .into_iter()
    .map(|(layout, c)| (layout, c, smallest(c)))
    .fold((ChannelCode::DROP_W, 3, f32::NEG_INFINITY), |best, x| {
        if x.2 > best.2 { x } else { best }
    });
    if least < MIN_DROPPED {
        return (ChannelCode::FULL_ROTATION, frames);
    }
    let frames = frames
        .into_iter()
        .map(|v| if v[c] < 0.0 { -v } else { v })
        .collect();
    (layout, frames)
}

/// The components of `v` a channel of kind `kind` in `layout` stores, in order.
#[inline]
fn stored(kind: ChannelKind, layout: u32, v: Vec4) -> Vec4 {
    if kind == ChannelKind::Rotation {
        stored_rotation(layout, v)
    } else {
        v
    }
}

/// Components stored per frame by a channel of kind `kind` in `layout`.
#[inline]
fn stored_count(kind: ChannelKind, layout: u32) -> usize {
    ChannelCode::default()
        .with_layout(layout)
        .stored_components(kind)
}

/// The range words of `frames` (one per stored component), `None` when a bound or extent does
/// not fit in f16.
fn ranges(kind: ChannelKind, layout: u32, frames: &[Vec4]) -> Option<[u32; 4]> {
    let mut words = [0u32; 4];
    for (c, word) in words
        .iter_mut()
        .enumerate()
        .take(stored_count(kind, layout))
    {
        let value = |v: &Vec4| stored(kind, layout, *v)[c];
        let lo = frames.iter().map(value).fold(f32::INFINITY, f32::min);
        let hi = frames.iter().map(value).fold(f32::NEG_INFINITY, f32::max);
        let min = f16_at_most(lo)?;
        let extent = f16_at_least(f64::from(hi) - f64::from(min.to_f32()))?;
        *word = u32::from(min.to_bits()) | (u32::from(extent.to_bits()) << 16);
    }
    Some(words)
}

/// The largest finite f16 at most `x`.
fn f16_at_most(x: f32) -> Option<f16> {
    let mut h = f16::from_f32(x);
    if h.to_f32() > x {
        h = match h.to_bits() {
            0x0000 => f16::from_bits(0x8001),
            b if b & 0x8000 == 0 => f16::from_bits(b - 1),
            b => f16::from_bits(b + 1),
        };
    }
    h.is_finite().then_some(h)
}

/// The smallest finite f16 at least `x` (`x >= 0`).
fn f16_at_least(x: f64) -> Option<f16> {
    let mut h = f16::from_f64(x.max(0.0));
    while f64::from(h.to_f32()) < x {
        h = f16::from_bits(h.to_bits() + 1);
        if !h.is_finite() {
            return None;
        }
    }
    h.is_finite().then_some(h)
}

/// The `bits`-bit integer whose dequantized value is nearest to `v` in range word `range`.
pub(super) fn quantize(v: f32, bits: u32, range: u32) -> u32 {
    let (min, extent) = range_bounds(range);
    let top = (1u32 << bits) - 1;
    if extent <= 0.0 {
        return 0;
    }
    let guess = (f64::from(v - min) / f64::from(extent) * f64::from(top))
        .round()
        .clamp(0.0, f64::from(top)) as u32;
    let err = |q: u32| (dequantize(q, bits, min, extent) - v).abs();
    let mut best = guess;
    for q in [guess.saturating_sub(1), (guess + 1).min(top)] {
        if err(q) < err(best) {
            best = q;
        }
    }
    best
}

/// Frame value `v` of an animated channel of kind `kind` in `layout` as the decoder reads it
/// at `bits` bits.
pub(super) fn decoded(
    kind: ChannelKind,
    layout: u32,
    v: Vec4,
    bits: u32,
    ranges: &[u32; 4],
) -> Vec4 {
    let s = stored(kind, layout, v);
    let count = stored_count(kind, layout);
    let mut out = [0.0f32; 4];
    for (c, o) in out.iter_mut().enumerate().take(count) {
        *o = if bits == ChannelCode::RAW_BITS {
            s[c]
        } else {
            let (min, extent) = range_bounds(ranges[c]);
            dequantize(quantize(s[c], bits, ranges[c]), bits, min, extent)
        };
    }
    match kind {
        ChannelKind::Rotation => rotation_from_stored(layout, Vec4::from_array(out)),
        _ => Vec4::from_array(out),
    }
}

/// Writes the `bits` low bits of `value` at bit `bit` of `words`.
fn write_bits(words: &mut [u32], bit: usize, bits: u32, value: u32) {
    let (word, shift) = (bit / 32, (bit % 32) as u32);
    words[word] |= value << shift;
    if shift + bits > 32 {
        words[word + 1] |= value >> (32 - shift);
    }
}

/// Appends clip `clip` of `plan` to `channels` and `data` and returns its record. Fails when a
/// value index passes 24 bits.
fn pack(
    plan: &ClipPlan,
    clip: usize,
    channels: &mut Vec<ChannelCode>,
    data: &mut Vec<u32>,
) -> Result<CompressedClip, String> {
    let frames = &plan.frames;
    let joints = plan.joints;
    let mut record = frames.record;
    record.channel_offset = channels.len() as u32;
    let index = |data: &Vec<u32>| -> Result<u32, String> {
        u32::try_from(data.len())
            .ok()
            .filter(|&i| i <= ChannelCode::MAX_INDEX)
            .ok_or_else(|| format!("clip {clip}: compressed data passes 2^24 words"))
    };
    if !frames.segments.is_empty() {
        record.segment_offset = index(data)?;
        record.segment_count = frames.segments.len() as u32;
        data.extend_from_slice(bytemuck::cast_slice(&frames.segments));
    }
    let mut cursor = 0usize;
    let mut placed = Vec::with_capacity(frames.channels.len());
    for (k, sampled) in frames.channels.iter().enumerate() {
        let kind = channel_kind(joints, k);
        let code = match sampled {
            Sampled::Rest => ChannelCode::rest(),
            Sampled::Constant(v) => {
                let at = index(data)?;
                data.extend(
                    v.to_array()[..kind.constant_words()]
                        .iter()
                        .map(|x| x.to_bits()),
                );
                ChannelCode::constant(at)
            }
            Sampled::Animated {
                step,
                layout,
                ranges,
                ..
            } => {
                let bits = plan.bits[k];
                let count = stored_count(kind, *layout);
                let at = match (bits, ranges) {
                    (ChannelCode::RAW_BITS, _) | (_, None) => 0,
                    (_, Some(r)) => {
                        let at = index(data)?;
                        data.extend_from_slice(&r[..count]);
                        at
                    }
                };
                let first = u32::try_from(cursor)
                    .ok()
                    .filter(|&b| b <= ChannelCode::FIRST_BIT_MASK)
                    .ok_or_else(|| format!("clip {clip}: a frame record passes 2^29 bits"))?;
                let code = ChannelCode::animated(bits, *step, at, first).with_layout(*layout);
                cursor += count * bits as usize;
                code
            }
        };
        placed.push(code);
    }
    record.frame_words = cursor.div_ceil(32) as u32;
    record.frame_offset = data.len() as u32;
    let words = record.frame_words as usize;
    let start = data.len();
    data.resize(start + words * record.frame_count as usize, 0);
    for (k, sampled) in frames.channels.iter().enumerate() {
        let Sampled::Animated {
            frames: values,
            layout,
            ranges,
            ..
        } = sampled
        else {
            continue;
        };
        let kind = channel_kind(joints, k);
        let code = placed[k];
        let bits = code.bits();
        for (f, v) in values.iter().enumerate() {
            let rec = &mut data[start + f * words..start + (f + 1) * words];
            let v = stored(kind, *layout, *v);
            for c in 0..code.stored_components(kind) {
                let q = match ranges {
                    Some(r) if bits != ChannelCode::RAW_BITS => quantize(v[c], bits, r[c]),
                    _ => v[c].to_bits(),
                };
                write_bits(rec, code.first_bit() as usize + c * bits as usize, bits, q);
            }
        }
    }
    channels.extend(placed);
    Ok(record)
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3, Vec4};

    use super::{ChannelCode, rotation_layout};

    fn turns(axis: Vec3, angles: &[f32]) -> Vec<Vec4> {
        angles
            .iter()
            .map(|&a| {
                let q = Vec4::from(Quat::from_axis_angle(axis, a));
                if q.w < 0.0 { -q } else { q }
            })
            .collect()
    }

    #[test]
    fn rotations_drop_the_component_that_stays_largest() {
        use std::f32::consts::PI;
        // Small turns keep w near 1.
        let (layout, _) = rotation_layout(turns(Vec3::Y, &[0.1, 0.3, -0.2]));
        assert_eq!(layout, ChannelCode::DROP_W);
        // Around half a turn about x, w passes 0 and x stays near 1; frames come back signed
        // so that x >= 0.
        let (layout, frames) = rotation_layout(turns(Vec3::X, &[0.9 * PI, PI, 1.1 * PI]));
        assert_eq!(layout, ChannelCode::DROP_X);
        assert!(frames.iter().all(|v| v.x >= 0.0), "{frames:?}");
        let (layout, _) = rotation_layout(turns(Vec3::Z, &[0.8 * PI, 1.2 * PI]));
        assert_eq!(layout, ChannelCode::DROP_Z);
        let (layout, _) = rotation_layout(turns(Vec3::Y, &[0.8 * PI, 1.2 * PI]));
        assert_eq!(layout, ChannelCode::DROP_Y);
        // A full spin: no component stays above one half.
        let spin: Vec<f32> = (0..8).map(|i| i as f32 * PI / 4.0).collect();
        let (layout, _) = rotation_layout(turns(Vec3::Z, &spin));
        assert_eq!(layout, ChannelCode::FULL_ROTATION);
    }
}

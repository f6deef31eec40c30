//! Sampling one clip's channels on its frames and sorting them: rest and constant channels
//! stripped, animated ones given a rotation layout and range words.

use glam::Vec4;

use super::error::exact_weights;
use super::framing::{Framing, frame_count};
use super::quantize::ranges;
use super::segments::frame_times;
use crate::baked::sample::sample_track;
use crate::baked::{
    Channel, ChannelCode, ChannelKind, ClipSegment, CompressedClip, Interpolation, Rig,
    channel_kind,
};

/// Channels whose every frame lies within this of one value are constant; within this of the
/// rest value, at rest (per component, relative to magnitudes above 1): exporters leave float
/// noise of about 1e-6 on still channels, and a rotation this far off moves a vertex 1 m away
/// by about 15 µm.
const CONSTANT_TOLERANCE: f32 = 4e-6;

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
/// (rotations: `rest` or `-rest`), constant when every frame equals the middle of their range
/// (rotations signed like the first, the middle normalized), else animated.
fn classify(
    kind: ChannelKind,
    rest: Vec4,
    frames: Vec<Vec4>,
    track_rest: bool,
    step: bool,
) -> Sampled {
    let near = |a: Vec4, b: Vec4| {
        let tolerance = b.abs().max(Vec4::ONE) * CONSTANT_TOLERANCE;
        (a - b).abs().cmple(tolerance).all()
    };
    let rotation = kind == ChannelKind::Rotation;
    let at_rest = |v: Vec4| near(v, rest) || (rotation && near(v, -rest));
    if track_rest || frames.iter().all(|&v| at_rest(v)) {
        return Sampled::Rest;
    }
    let first = frames[0];
    let aligned = |v: Vec4| {
        if rotation && v.dot(first) < 0.0 {
            -v
        } else {
            v
        }
    };
    let (lo, hi) = frames.iter().map(|&v| aligned(v)).fold(
        (Vec4::splat(f32::INFINITY), Vec4::splat(f32::NEG_INFINITY)),
        |(lo, hi), v| (lo.min(v), hi.max(v)),
    );
    let middle = (lo + hi) * 0.5;
    let middle = if rotation {
        middle.normalize_or(first)
    } else {
        middle
    };
    if frames.iter().all(|&v| near(aligned(v), middle)) {
        return Sampled::Constant(middle);
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

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3, Vec4};

    use super::rotation_layout;
    use crate::baked::ChannelCode;

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

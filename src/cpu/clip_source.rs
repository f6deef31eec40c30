//! Which clips the CPU evaluator samples: the exact key tracks, or the rig's compressed clips
//! (the twin of the GPU's compressed path). Everything after sampling is the same.

use glam::Vec4;

use crate::baked::compressed::decode::{
    sample_channel, sample_joint_compressed, sample_weight_chunk_compressed,
};
use crate::baked::sample::{sample_joint, sample_track};
use crate::baked::{Channel, Rig};
use crate::math::Sqt;

/// Where a layer's clip values come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClipSource {
    /// The baked key tracks ([`Rig::clips`]), sampled exactly.
    #[default]
    Exact,
    /// The rig's compressed clips ([`Rig::compressed`]); a rig without them is sampled exactly.
    Compressed,
}

/// Joint `joint` of `clip` at `time`, from `source`.
#[inline]
pub fn sample_joint_from(
    rig: &Rig,
    source: ClipSource,
    clip: usize,
    joint: usize,
    time: f32,
) -> Sqt {
    match (source, &rig.compressed) {
        (ClipSource::Compressed, Some(c)) => sample_joint_compressed(rig, c, clip, joint, time),
        _ => sample_joint(&rig.clips, clip, joint, time),
    }
}

/// Channel `channel` of joint `joint` of `clip` at `time`, from `source`: translation and scale
/// as `(x, y, z, 0)`, rotation as unit `xyzw` (one channel of [`sample_joint_from`]).
#[inline]
pub fn sample_channel_from(
    rig: &Rig,
    source: ClipSource,
    clip: usize,
    joint: usize,
    channel: Channel,
    time: f32,
) -> Vec4 {
    match (source, &rig.compressed) {
        (ClipSource::Compressed, Some(c)) => {
            let rest = rig.skeleton.rest_pose()[joint];
            let rest = match channel {
                Channel::Translation => rest.translation.extend(0.0),
                Channel::Rotation => Vec4::from(rest.rotation),
                Channel::Scale => rest.scale.extend(0.0),
            };
            sample_channel(c, clip, joint * 3 + channel as usize, rest, time)
        }
        _ => {
            let track = rig.clips.track(clip, joint, channel);
            sample_track(&rig.clips, track, channel == Channel::Rotation, time)
        }
    }
}

/// Morph weight chunk `chunk` of `clip` at `time`, from `source` (`None` when the rig has no
/// such chunk).
#[inline]
pub fn sample_weight_chunk_from(
    rig: &Rig,
    source: ClipSource,
    clip: usize,
    chunk: usize,
    time: f32,
) -> Option<Vec4> {
    let lib = &rig.clips;
    let desc = lib.weight_track(clip, chunk)?;
    Some(match (source, &rig.compressed) {
        (ClipSource::Compressed, Some(c)) => {
            sample_weight_chunk_compressed(rig, c, clip, chunk, time)
        }
        _ => sample_track(lib, desc, false, time),
    })
}

//! Which clips the CPU evaluator samples: the exact key tracks, or the rig's compressed clips
//! (the twin of the GPU's compressed path). Everything after sampling is the same.

use glam::Vec4;

use super::decode::{sample_joint_compressed, sample_weight_chunk_compressed};
use super::sample::{sample_joint, sample_track};
use crate::bake::Rig;
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

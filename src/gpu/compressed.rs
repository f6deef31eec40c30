//! Compressed clips as the compressed kernel reads them (`wgsl/decode.wgsl`): per rig, its clip
//! descriptors, channel codes and data words back to back in the track binding.

use std::borrow::Cow;

use crate::baked::{ChannelCode, CompressedClip, CompressedClips, Rig};
use crate::error::GpuError;

/// The compressed clips of rig `index` of an upload: its stored [`Rig::compressed`], else built
/// within `budget`. Fails when stored clips do not match the rig (joints, weight chunks,
/// clips).
pub(crate) fn compressed_clips(
    rig: &Rig,
    index: usize,
    budget: f32,
) -> Result<Cow<'_, CompressedClips>, GpuError> {
    let clips = match &rig.compressed {
        Some(stored) => Cow::Borrowed(stored),
        None => Cow::Owned(CompressedClips::build(rig, budget)?),
    };
    let reason = if clips.joint_count() != rig.joint_count() {
        Some(format!(
            "its compressed clips have {} joints, the rig {}",
            clips.joint_count(),
            rig.joint_count()
        ))
    } else if clips.weight_chunks() != rig.clips.weight_chunk_count() {
        Some(format!(
            "its compressed clips have {} weight chunks, the rig {}",
            clips.weight_chunks(),
            rig.clips.weight_chunk_count()
        ))
    } else if clips.clips().len() != rig.clips.clip_count() {
        Some(format!(
            "it has {} compressed clips and {} clips",
            clips.clips().len(),
            rig.clips.clip_count()
        ))
    } else {
        None
    };
    match reason {
        Some(reason) => Err(GpuError::IncompatibleRig { rig: index, reason }),
        None => Ok(clips),
    }
}

/// Words of one [`CompressedClip`] in the track binding.
pub const CLIP_DESC_WORDS: usize = size_of::<CompressedClip>() / 4;

/// The words of `clips` in the compressed kernel's track binding: the clip descriptors
/// ([`CLIP_DESC_WORDS`] each), the channel codes (2 words each), the rest masks (one word per
/// clip and joint: bit `c` set when its channel `c` is REST), then the data words.
pub fn clip_words(clips: &CompressedClips) -> impl Iterator<Item = u32> + '_ {
    let descs: &[u32] = bytemuck::cast_slice(clips.clips());
    let codes: &[u32] = bytemuck::cast_slice(clips.channels());
    let joints = clips.joint_count();
    let masks = (0..clips.clips().len())
        .flat_map(move |c| (0..joints).map(move |j| rest_mask(&clips.clip_channels(c)[j * 3..])));
    descs
        .iter()
        .chain(codes)
        .copied()
        .chain(masks)
        .chain(clips.data().iter().copied())
}

/// The rest mask of a joint in one clip, from its channel codes (translation, rotation,
/// scale first): bit `c` set when channel `c` holds the rest value (a REST code), so sampling
/// the joint reads the codes of the others only.
fn rest_mask(codes: &[ChannelCode]) -> u32 {
    codes
        .iter()
        .take(3)
        .enumerate()
        .filter(|(_, code)| code.is_rest())
        .fold(0, |mask, (c, _)| mask | 1 << c)
}

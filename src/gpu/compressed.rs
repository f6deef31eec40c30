//! Compressed clips as the compressed kernel reads them (`wgsl/decode.wgsl`): per rig, its clip
//! descriptors, channel codes and data words back to back in the track binding.

use std::borrow::Cow;

use crate::bake::{CompressedClip, CompressedClips, Rig};
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
/// ([`CLIP_DESC_WORDS`] each), the channel codes (2 words each), then the data words.
pub fn clip_words(clips: &CompressedClips) -> impl Iterator<Item = u32> + '_ {
    let descs: &[u32] = bytemuck::cast_slice(clips.clips());
    let codes: &[u32] = bytemuck::cast_slice(clips.channels());
    descs.iter().chain(codes).chain(clips.data()).copied()
}

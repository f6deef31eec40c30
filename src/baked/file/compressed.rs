//! The compressed clips section of a `.sinew` file (layout in `file.rs`, since version 4):
//! written only for a rig whose clips are compressed; decoding checks everything through
//! [`CompressedClips::from_parts`] and against the rig's clips.

use super::container::{Section, SectionId, SectionKind, SectionTable};
use super::section::{SectionReader, SectionWriter, count};
use crate::baked::{ClipLibrary, CompressedClip, CompressedClips};
use crate::error::FormatErrorKind;

/// The first format version with compressed clips sections.
pub(super) const FIRST_COMPRESSED_VERSION: u32 = 4;

/// The first format version whose clip records may have segment tables (before, those two
/// words were padding, zero).
pub(super) const FIRST_SEGMENT_VERSION: u32 = 5;

/// The first format version whose channel codes may store components in fewer bits than
/// their channel's rate (before, bits 17..=28 of a code's bit offset were the first bit's high
/// bits, zero in every record of a valid rig).
pub(super) const FIRST_REDUCTION_VERSION: u32 = 8;

/// The compressed clips section of rig `r`, when it has compressed clips.
pub(super) fn rig_section(clips: Option<&CompressedClips>, r: u32) -> Option<Section> {
    let c = clips?;
    let mut w = SectionWriter::default();
    w.u32(count(c.joint_count()));
    w.u32(count(c.weight_chunks()));
    w.u32(count(c.clips().len()));
    w.u32(count(c.channels().len()));
    w.u32(count(c.data().len()));
    w.u32(c.budget().to_bits());
    w.u32(c.max_error().to_bits());
    w.array(c.clips());
    w.array(c.channels());
    w.array(c.data());
    Some(Section {
        id: SectionId::of(SectionKind::Compressed, r),
        body: w.finish(),
    })
}

/// Decodes the compressed clips section of rig `r` (none: the rig has no compressed clips, as
/// in every file before version 4), checked against the rig's `clips`.
pub(super) fn decode_rig(
    table: &mut SectionTable<'_>,
    r: u32,
    clips: &ClipLibrary,
) -> Result<Option<CompressedClips>, FormatErrorKind> {
    if table.version < FIRST_COMPRESSED_VERSION {
        return Ok(None);
    }
    let id = SectionId::of(SectionKind::Compressed, r);
    let Some(body) = table.take_optional(id) else {
        return Ok(None);
    };
    let mut rd = SectionReader::new(body, id);
    let joints = rd.u32("joint count")?;
    let chunks = rd.u32("weight chunk count")?;
    let clip_count = rd.u32("clip count")?;
    let channel_count = rd.u32("channel count")?;
    let word_count = rd.u32("data word count")?;
    let budget = f32::from_bits(rd.u32("budget")?);
    let max_error = f32::from_bits(rd.u32("max error")?);
    let records = rd.array(clip_count, "clip records")?;
    let channels = rd.array(channel_count, "channel codes")?;
    let data = rd.array(word_count, "data words")?;
    rd.finish()?;
    let corrupt = |reason: String| FormatErrorKind::Corrupt {
        section: id.to_string(),
        reason,
    };
    if table.version < FIRST_SEGMENT_VERSION {
        let padded = records
            .iter()
            .position(|c: &CompressedClip| c.segment_offset != 0 || c.segment_count != 0);
        if let Some(c) = padded {
            return Err(corrupt(format!(
                "clip {c}: padding is not zero in a version {} file",
                table.version
            )));
        }
    }
    if table.version < FIRST_REDUCTION_VERSION {
        let reduced = channels.iter().position(|c: &crate::baked::ChannelCode| {
            c.first_bit() != c.bit_offset & !(7 << crate::baked::ChannelCode::LAYOUT_SHIFT)
        });
        if let Some(k) = reduced {
            return Err(corrupt(format!(
                "channel code {k}: a first bit past 2^17 in a version {} file",
                table.version
            )));
        }
    }
    let compressed =
        CompressedClips::from_parts(joints, chunks, records, channels, data, budget, max_error)
            .map_err(|e| corrupt(e.to_string()))?;
    if compressed.joint_count() != clips.joint_count()
        || compressed.weight_chunks() != clips.weight_chunk_count()
        || compressed.clips().len() != clips.clip_count()
    {
        return Err(corrupt(format!(
            "{} clips of {} joints and {} weight chunks; the clips section has {} clips of {} \
             joints and {} weight chunks",
            compressed.clips().len(),
            compressed.joint_count(),
            compressed.weight_chunks(),
            clips.clip_count(),
            clips.joint_count(),
            clips.weight_chunk_count()
        )));
    }
    Ok(Some(compressed))
}

//! The checks of [`CompressedClips::from_parts`]: everything the decoders index is inside its
//! array and every value they read is finite.

use half::f16;

use super::{
    ChannelCode, ChannelKind, ClipSegment, CompressedClips, MAX_ERROR_BUDGET, MAX_SEGMENTS,
    MIN_ERROR_BUDGET, SEGMENT_WORDS,
};
use crate::baked::{MAX_JOINTS, MAX_MORPH_WEIGHTS, WEIGHTS_PER_CHUNK};
use crate::error::CompressedError;

/// Checks every part of `c` (see [`CompressedClips::from_parts`]).
pub(super) fn check(c: &CompressedClips) -> Result<(), CompressedError> {
    let fail = |object: String, reason: String| Err(CompressedError::new(object, reason));
    if c.joint_count as usize > MAX_JOINTS {
        return fail(
            "joint count".into(),
            format!("{} joints, at most {MAX_JOINTS}", c.joint_count),
        );
    }
    if c.weight_chunks as usize > MAX_MORPH_WEIGHTS / WEIGHTS_PER_CHUNK {
        return fail(
            "weight chunks".into(),
            format!(
                "{} chunks, at most {}",
                c.weight_chunks,
                MAX_MORPH_WEIGHTS / WEIGHTS_PER_CHUNK
            ),
        );
    }
    if !(MIN_ERROR_BUDGET..=MAX_ERROR_BUDGET).contains(&c.budget) {
        return fail(
            "budget".into(),
            format!(
                "{} m is not within {MIN_ERROR_BUDGET}..={MAX_ERROR_BUDGET}",
                c.budget
            ),
        );
    }
    if !(c.max_error.is_finite() && c.max_error >= 0.0) {
        return fail(
            "max error".into(),
            format!("{} is not a finite length", c.max_error),
        );
    }
    let per_clip = c.channels_per_clip();
    if c.channels.len() != c.clips.len() * per_clip {
        return fail(
            "channels".into(),
            format!(
                "{} channel codes for {} clips of {per_clip} channels",
                c.channels.len(),
                c.clips.len()
            ),
        );
    }
    let words = c.data.len() as u64;
    for (i, clip) in c.clips.iter().enumerate() {
        let object = || format!("clip {i}");
        if !(clip.rate.is_finite() && clip.rate > 0.0) {
            return fail(
                object(),
                format!("rate {} is not a positive number", clip.rate),
            );
        }
        if !(clip.duration.is_finite() && clip.duration >= 0.0) {
            return fail(
                object(),
                format!("duration {} is not a length", clip.duration),
            );
        }
        if clip.frame_count == 0 {
            return fail(object(), "no frames".into());
        }
        if clip.segment_count == 0 {
            if clip.segment_offset != 0 {
                return fail(
                    object(),
                    format!("segment offset {} without segments", clip.segment_offset),
                );
            }
            let covered = f64::from(clip.frame_count - 1) / f64::from(clip.rate);
            if covered < f64::from(clip.duration) * (1.0 - 1e-5) - 1e-6 {
                return fail(
                    object(),
                    format!(
                        "{} frames at {} Hz end before the duration {} s",
                        clip.frame_count, clip.rate, clip.duration
                    ),
                );
            }
        } else {
            check_segments(c, i)?;
        }
        if clip.channel_offset as usize != i * per_clip {
            return fail(
                object(),
                format!(
                    "channel offset {} is not {} (clip × channels per clip)",
                    clip.channel_offset,
                    i * per_clip
                ),
            );
        }
        let end = u64::from(clip.frame_offset)
            + u64::from(clip.frame_count) * u64::from(clip.frame_words);
        if end > words {
            return fail(
                object(),
                format!(
                    "frames end at word {end}, past the {words} data words (offset {}, {} frames \
                     of {} words)",
                    clip.frame_offset, clip.frame_count, clip.frame_words
                ),
            );
        }
        let codes = &c.channels[i * per_clip..(i + 1) * per_clip];
        for (k, &code) in codes.iter().enumerate() {
            check_channel(c, i, k, code)
                .map_err(|reason| CompressedError::new(format!("clip {i} channel {k}"), reason))?;
        }
    }
    Ok(())
}

/// Checks the segment table of clip `i` (`segment_count > 0`): 2..=[`MAX_SEGMENTS`] segments
/// inside the data, starting at 0 s on frame 0, each with a finite positive rate and at least
/// one interval, starting where the previous one ends (time and frame), strictly later, the
/// last ending on the clip's last frame at or after its duration.
fn check_segments(c: &CompressedClips, i: usize) -> Result<(), CompressedError> {
    let clip = &c.clips[i];
    let fail = |object: String, reason: String| Err(CompressedError::new(object, reason));
    let object = || format!("clip {i} segments");
    let count = clip.segment_count as usize;
    if !(2..=MAX_SEGMENTS).contains(&count) {
        return fail(
            object(),
            format!("{count} segments, not 2..={MAX_SEGMENTS}"),
        );
    }
    if clip.frame_count < 2 {
        return fail(object(), "segments on a one-frame clip".into());
    }
    let end = u64::from(clip.segment_offset) + (count * SEGMENT_WORDS) as u64;
    if end > c.data.len() as u64 {
        return fail(
            object(),
            format!(
                "the table ends at word {end}, past the {} data words",
                c.data.len()
            ),
        );
    }
    let segments = c.segments(i);
    let mut frame = 0u64;
    let mut previous: Option<&ClipSegment> = None;
    for (k, s) in segments.iter().enumerate() {
        let object = || format!("clip {i} segment {k}");
        if !(s.rate.is_finite() && s.rate > 0.0) {
            return fail(
                object(),
                format!("rate {} is not a positive number", s.rate),
            );
        }
        if !s.start.is_finite() {
            return fail(object(), format!("start {} is not a time", s.start));
        }
        if s.intervals == 0 {
            return fail(object(), "no interval".into());
        }
        if u64::from(s.first_frame) != frame {
            return fail(
                object(),
                format!(
                    "first frame {} is not {frame} (where the previous segment ends)",
                    s.first_frame
                ),
            );
        }
        match previous {
            None if s.start != 0.0 => {
                return fail(object(), format!("starts at {} s, not 0", s.start));
            }
            Some(p) => {
                let step = 1.0 / f64::from(p.rate);
                let gap = (p.end() - f64::from(s.start)).abs();
                if s.start <= p.start || gap > 1e-3 * step + 1e-6 {
                    return fail(
                        object(),
                        format!(
                            "starts at {} s, not where the previous segment ends ({} s)",
                            s.start,
                            p.end()
                        ),
                    );
                }
            }
            None => {}
        }
        frame += u64::from(s.intervals);
        previous = Some(s);
    }
    if frame + 1 != u64::from(clip.frame_count) {
        return fail(
            object(),
            format!(
                "segments hold {} frames, the clip {}",
                frame + 1,
                clip.frame_count
            ),
        );
    }
    let last_end = previous.map_or(0.0, ClipSegment::end);
    if last_end < f64::from(clip.duration) * (1.0 - 1e-5) - 1e-6 {
        return fail(
            object(),
            format!(
                "the last segment ends at {last_end} s, before the duration {} s",
                clip.duration
            ),
        );
    }
    Ok(())
}

/// Checks channel `k` of clip `clip`; the reason when it is unusable.
fn check_channel(
    c: &CompressedClips,
    clip: usize,
    k: usize,
    code: ChannelCode,
) -> Result<(), String> {
    let kind = c.channel_kind(k);
    let bits = code.bits();
    let index = code.index() as usize;
    if !(bits <= ChannelCode::MAX_QUANTIZED_BITS || bits == ChannelCode::RAW_BITS) {
        return Err(format!("bit rate {bits} is not 0..=24 or 32"));
    }
    let word = |i: usize| {
        c.data.get(i).copied().ok_or_else(|| {
            format!(
                "value index {index} reads word {i}, past the {} data words",
                c.data.len()
            )
        })
    };
    if bits == 0 {
        if code.bit_offset != 0 {
            return Err(format!(
                "bit offset {} on a channel without frames",
                code.bit_offset
            ));
        }
        if code.is_rest() {
            return if index == 0 {
                Ok(())
            } else {
                Err(format!("rest channel with value index {index}"))
            };
        }
        for i in index..index + kind.constant_words() {
            let v = f32::from_bits(word(i)?);
            if !v.is_finite() {
                return Err(format!("constant component {} is {v}", i - index));
            }
        }
        return Ok(());
    }
    if code.is_rest() {
        return Err("rest flag on an animated channel".into());
    }
    let layout = code.layout();
    let most = if kind == ChannelKind::Rotation {
        ChannelCode::FULL_ROTATION
    } else {
        ChannelCode::DROP_W
    };
    if layout > most {
        return Err(format!(
            "layout {layout} (bits 29..=31 of the bit offset) is not 0..={most} for a {kind:?} \
             channel"
        ));
    }
    let comps = code.stored_components(kind);
    for comp in 0..4 {
        let r = code.reduction(comp);
        let allowed = if bits == ChannelCode::RAW_BITS || comp >= comps {
            0
        } else {
            bits - 1
        };
        if r > allowed {
            return Err(format!(
                "component {comp} is {r} bits below the bit rate {bits}, at most {allowed}"
            ));
        }
    }
    let frame_bits = u64::from(c.clips[clip].frame_words) * 32;
    let end = u64::from(code.first_bit()) + u64::from(code.record_bits(kind));
    if end > frame_bits {
        return Err(format!(
            "components end at bit {end}, past the {frame_bits}-bit frame record"
        ));
    }
    if bits == ChannelCode::RAW_BITS {
        if index != 0 {
            return Err(format!("raw channel with value index {index}"));
        }
        let cc = &c.clips[clip];
        for f in 0..cc.frame_count as usize {
            let record = cc.frame_offset as usize + f * cc.frame_words as usize;
            for comp in 0..comps {
                let bit = code.first_bit() as usize + comp * 32;
                let lo = c.data[record + bit / 32] >> (bit % 32);
                let hi = if bit.is_multiple_of(32) {
                    0
                } else {
                    c.data[record + bit / 32 + 1] << (32 - bit % 32)
                };
                let v = f32::from_bits(lo | hi);
                if !v.is_finite() {
                    return Err(format!("frame {f} component {comp} is {v}"));
                }
            }
        }
        return Ok(());
    }
    for comp in 0..comps {
        let range = word(index + comp)?;
        let min = f16::from_bits(range as u16).to_f32();
        let extent = f16::from_bits((range >> 16) as u16).to_f32();
        if !(min.is_finite() && extent.is_finite() && extent >= 0.0) {
            return Err(format!(
                "range of component {comp} (min {min}, extent {extent}) is not finite with \
                 extent ≥ 0"
            ));
        }
    }
    Ok(())
}

//! Packing one planned clip into the format's words: channel codes, constants, range words,
//! the segment table and the bit-packed frame records.

use super::bit_rates::ClipPlan;
use super::quantize::{quantize, stored, stored_count};
use super::sample::Sampled;
use crate::baked::{ChannelCode, CompressedClip, channel_kind};

/// Writes the `bits` low bits of `value` at bit `bit` of `words`.
fn write_bits(words: &mut [u32], bit: usize, bits: u32, value: u32) {
    let (word, shift) = (bit / 32, (bit % 32) as u32);
    words[word] |= value << shift;
    if shift + bits > 32 {
        words[word + 1] |= value >> (32 - shift);
    }
}

/// Bit positions inside a frame record for channels of `sizes` bits (0: no frames), and the
/// record's length in bits: the channels back to back in channel order, with no padding. A
/// channel may then span one word more than its bits need (each component still spans at most
/// two adjacent words): placing each in its fewest words left about an eighth of a motion
/// capture's frame bits unused, for one word fewer read on some channels.
fn place(sizes: &[usize]) -> (Vec<usize>, usize) {
    let mut bit = 0;
    let at = sizes
        .iter()
        .map(|&size| {
            let start = bit;
            bit += size;
            start
        })
        .collect();
    (at, bit)
}

/// Appends clip `clip` of `plan` to `channels` and `data` and returns its record. Fails when a
/// value index passes 24 bits.
pub(super) fn pack(
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
    let sizes: Vec<usize> = frames
        .channels
        .iter()
        .enumerate()
        .map(|(k, sampled)| match sampled {
            Sampled::Animated { layout, .. } => (0..stored_count(channel_kind(joints, k), *layout))
                .map(|c| (plan.bits[k] - plan.reductions[k][c]) as usize)
                .sum(),
            _ => 0,
        })
        .collect();
    let (first_bits, record_bits) = place(&sizes);
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
                let first = u32::try_from(first_bits[k])
                    .ok()
                    .filter(|&b| b <= ChannelCode::FIRST_BIT_MASK)
                    .ok_or_else(|| format!("clip {clip}: a frame record passes 2^29 bits"))?;
                ChannelCode::animated(bits, *step, at, first)
                    .with_layout(*layout)
                    .with_reductions(plan.reductions[k])
            }
        };
        placed.push(code);
    }
    record.frame_words = record_bits.div_ceil(32) as u32;
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
        for (f, v) in values.iter().enumerate() {
            let rec = &mut data[start + f * words..start + (f + 1) * words];
            let v = stored(kind, *layout, *v);
            for c in 0..code.stored_components(kind) {
                let bits = code.component_bits(c);
                let q = match ranges {
                    Some(r) if bits != ChannelCode::RAW_BITS => quantize(v[c], bits, r[c]),
                    _ => v[c].to_bits(),
                };
                write_bits(rec, code.component_bit(c) as usize, bits, q);
            }
        }
    }
    channels.extend(placed);
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::place;

    #[test]
    fn channels_lie_back_to_back() {
        let sizes = [24, 0, 12, 36, 9, 30, 96, 8];
        let (at, bits) = place(&sizes);
        assert_eq!(at, vec![0, 24, 24, 36, 72, 81, 111, 207]);
        assert_eq!(bits, sizes.iter().sum::<usize>());
        assert_eq!(place(&[47, 47]), (vec![0, 47], 94));
        assert_eq!(place(&[]), (vec![], 0));
    }
}

//! The components an animated channel stores, their f16 range words, and their quantization
//! as the decoders read it back.

use glam::Vec4;
use half::f16;

use crate::baked::compressed::decode::{
    dequantize, range_bounds, rotation_from_stored, stored_rotation,
};
use crate::baked::{ChannelCode, ChannelKind};

/// The components of `v` a channel of kind `kind` in `layout` stores, in order.
#[inline]
pub(super) fn stored(kind: ChannelKind, layout: u32, v: Vec4) -> Vec4 {
    if kind == ChannelKind::Rotation {
        stored_rotation(layout, v)
    } else {
        v
    }
}

/// Components stored per frame by a channel of kind `kind` in `layout`.
#[inline]
pub(super) fn stored_count(kind: ChannelKind, layout: u32) -> usize {
    ChannelCode::default()
        .with_layout(layout)
        .stored_components(kind)
}

/// The range words of `frames` (one per stored component), `None` when a bound or extent does
/// not fit in f16.
pub(super) fn ranges(kind: ChannelKind, layout: u32, frames: &[Vec4]) -> Option<[u32; 4]> {
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
/// with component `c` at `bits[c]` bits.
pub(super) fn decoded(
    kind: ChannelKind,
    layout: u32,
    v: Vec4,
    bits: [u32; 4],
    ranges: &[u32; 4],
) -> Vec4 {
    let s = stored(kind, layout, v);
    let count = stored_count(kind, layout);
    let mut out = [0.0f32; 4];
    for (c, o) in out.iter_mut().enumerate().take(count) {
        let bits = bits[c];
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

/// Per stored component of an animated channel at `bits` bits with range words `ranges`: how
/// many bits fewer keep its step within that of the widest component (the largest `r` with
/// `2^r × extent ≤ widest extent`, below `bits` and at most [`ChannelCode::MAX_REDUCTION`]).
pub(super) fn reductions(kind: ChannelKind, layout: u32, bits: u32, ranges: &[u32; 4]) -> [u32; 4] {
    let mut out = [0; 4];
    if bits == ChannelCode::RAW_BITS || bits < 2 {
        return out;
    }
    let count = stored_count(kind, layout);
    let extents: Vec<f32> = ranges[..count].iter().map(|&r| range_bounds(r).1).collect();
    let widest = extents.iter().copied().fold(0.0f32, f32::max);
    for (c, &e) in extents.iter().enumerate() {
        let most = (bits - 1).min(ChannelCode::MAX_REDUCTION);
        out[c] = (0..=most)
            .rev()
            .find(|&r| f64::from(e) * f64::from(1u32 << r) <= f64::from(widest))
            .unwrap_or(0);
    }
    out
}

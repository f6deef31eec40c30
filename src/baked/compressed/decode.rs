//! Stage 1, sample, from compressed clips: the value of one channel at one clip time, with the
//! operations (and their f32 order) of the WGSL decoder, so both agree to rounding. The format
//! is described in [`super`]; the exact twin is `src/baked/sample.rs`.

use glam::{Quat, Vec3, Vec4};
use half::f16;

use crate::baked::{ChannelCode, ChannelKind, ClipSegment, CompressedClip, CompressedClips, Rig};
use crate::math::Sqt;

/// Frame `f` and blend factor `u` of clip time `time` in clip `clip` whose segment table is
/// `segments` (empty: one grid): the value is that of frames `f` and `f + 1` blended by `u` (a
/// one-frame clip: frame 0, `u = 0`). Times clamp to the clip, find their segment by a scan
/// and snap to a frame within 1e-4 of a frame.
#[inline]
pub fn frame_position(clip: &CompressedClip, segments: &[ClipSegment], time: f32) -> (u32, f32) {
    if clip.frame_count < 2 {
        return (0, 0.0);
    }
    let t = time.max(0.0).min(clip.duration);
    let (start, rate, first, intervals) = match segments.split_first() {
        None => (0.0, clip.rate, 0, clip.frame_count - 1),
        Some((&s0, rest)) => {
            let mut s = s0;
            for &next in rest {
                if t >= next.start {
                    s = next;
                } else {
                    break;
                }
            }
            (s.start, s.rate, s.first_frame, s.intervals)
        }
    };
    let x = (t - start) * rate;
    let nearest = (x + 0.5).floor();
    let x = if (x - nearest).abs() <= 1e-4 {
        nearest
    } else {
        x
    };
    let f = x.floor().min(intervals.saturating_sub(1) as f32);
    (first + f as u32, (x - f).min(1.0))
}

/// The `bits`-bit integer (1..=32) at bit `bit` of the records in `data`: bit `i` is bit
/// `i % 32` of word `i / 32`; the value may span two adjacent words.
#[inline]
pub fn read_bits(data: &[u32], bit: usize, bits: u32) -> u32 {
    let word = bit / 32;
    let shift = (bit % 32) as u32;
    let mut value = data[word] >> shift;
    if shift + bits > 32 {
        value |= data[word + 1] << (32 - shift);
    }
    if bits >= 32 {
        value
    } else {
        value & ((1u32 << bits) - 1)
    }
}

/// Range word `range` (`min_f16 | extent_f16 << 16`) as `(min, extent)`.
#[inline]
pub fn range_bounds(range: u32) -> (f32, f32) {
    (
        f16::from_bits(range as u16).to_f32(),
        f16::from_bits((range >> 16) as u16).to_f32(),
    )
}

/// Integer `q` of `bits` bits (1..=24) in range `min, extent`:
/// `fma(extent, q * (1 / (2^bits − 1)), min)`.
#[inline]
pub fn dequantize(q: u32, bits: u32, min: f32, extent: f32) -> f32 {
    let scale = 1.0 / ((1u32 << bits) - 1) as f32;
    extent.mul_add(q as f32 * scale, min)
}

/// A rotation from its stored components `s` in layout `layout` (see
/// [`ChannelCode::layout`]), as unit `xyzw`: the rebuilt component
/// `sqrt(max(0, 1 - (s0² + s1² + s2²)))` (>= 0) goes back to its place between the three
/// stored ones, kept in `xyzw` order; [`ChannelCode::FULL_ROTATION`] normalizes all four.
#[inline]
pub fn rotation_from_stored(layout: u32, s: Vec4) -> Vec4 {
    if layout == ChannelCode::FULL_ROTATION {
        let len = s.length();
        return if len > 0.0 && len.is_finite() {
            s / len
        } else {
            Vec4::W
        };
    }
    let d = (1.0 - (s.x * s.x + s.y * s.y + s.z * s.z)).max(0.0).sqrt();
    match layout {
        ChannelCode::DROP_X => Vec4::new(d, s.x, s.y, s.z),
        ChannelCode::DROP_Y => Vec4::new(s.x, d, s.y, s.z),
        ChannelCode::DROP_Z => Vec4::new(s.x, s.y, d, s.z),
        _ => Vec4::new(s.x, s.y, s.z, d),
    }
}

/// The stored components of rotation `q` (unit `xyzw`) in layout `layout`: the three kept,
/// in `xyzw` order, then the dropped one (all four in `xyzw` order for
/// [`ChannelCode::FULL_ROTATION`]).
#[inline]
pub fn stored_rotation(layout: u32, q: Vec4) -> Vec4 {
    match layout {
        ChannelCode::DROP_X => Vec4::new(q.y, q.z, q.w, q.x),
        ChannelCode::DROP_Y => Vec4::new(q.x, q.z, q.w, q.y),
        ChannelCode::DROP_Z => Vec4::new(q.x, q.y, q.w, q.z),
        _ => q,
    }
}

/// The stored components of animated channel `code` (of kind `kind`) in frame `frame` of clip
/// record `clip`, dequantized (rotations rebuilt as unit `xyzw`; translation and scale
/// `w = 0`).
#[inline]
pub fn decode_frame(
    data: &[u32],
    clip: &CompressedClip,
    code: ChannelCode,
    kind: ChannelKind,
    frame: u32,
) -> Vec4 {
    let record = (clip.frame_offset + frame * clip.frame_words) as usize;
    let mut v = [0.0f32; 4];
    for (c, out) in v.iter_mut().take(code.stored_components(kind)).enumerate() {
        let bits = code.component_bits(c);
        let q = read_bits(data, record * 32 + code.component_bit(c) as usize, bits);
        *out = if bits == ChannelCode::RAW_BITS {
            f32::from_bits(q)
        } else {
            let (min, extent) = range_bounds(data[code.index() as usize + c]);
            dequantize(q, bits, min, extent)
        };
    }
    match kind {
        ChannelKind::Rotation => rotation_from_stored(code.layout(), Vec4::from_array(v)),
        _ => Vec4::from_array(v),
    }
}

/// Coefficients of the slerp correction in [`interpolate_rotation`]: `k = e (C0 + e C1 +
/// s (C2 + e C3))` with `e = 1 − d`, `s = (u − ½)²` (the form of Kapoulkine's "Approximating
/// slerp", 2015, refit): a least-squares fit of the exact `k` between frames up to 90° apart, with `k = 0` at `d = 1` so that close frames (most of them)
/// stay close to slerp: `C0 ≈ ⅔` is the small-angle limit.
const SLERP_FIT: [f32; 4] = [0.66537, 0.14839, -0.011094, 0.66037];

/// Unit rotations `a` and `b` (`xyzw`) blended by `u` along their shorter arc, within about
/// 1e-6 rad of slerp up to 60° apart (normalized lerp: 5e-3 rad at 60°): `b` is negated when
/// `d = dot(a, b) < 0`, `u` moves to `u + u (u − ½)(u − 1) k(d, u)` (exact at 0, ½ and 1),
/// then `a + (b − a) · u` is normalized (the identity when its length is 0 or not finite).
#[inline]
pub fn interpolate_rotation(a: Vec4, b: Vec4, u: f32) -> Vec4 {
    let mut d = a.dot(b);
    let b = if d < 0.0 {
        d = -d;
        -b
    } else {
        b
    };
    let e = 1.0 - d;
    let h = u - 0.5;
    let s = h * h;
    let [c0, c1, c2, c3] = SLERP_FIT;
    let k = e * (c0 + e * c1 + s * (c2 + e * c3));
    let u = u + u * h * (u - 1.0) * k;
    let v = a + (b - a) * u;
    let len = v.length();
    if len > 0.0 && len.is_finite() {
        v / len
    } else {
        Vec4::W
    }
}

/// Blends decoded frames `a` and `b` by `u`: `a + (b − a) · u`; rotations by
/// [`interpolate_rotation`]; STEP channels take `a` (`b` when `u == 1`).
#[inline]
pub fn blend_frames(kind: ChannelKind, step: bool, a: Vec4, b: Vec4, u: f32) -> Vec4 {
    if step {
        return if u >= 1.0 { b } else { a };
    }
    if kind != ChannelKind::Rotation {
        return a + (b - a) * u;
    }
    interpolate_rotation(a, b, u)
}

/// Channel `channel` (an index inside the clip's channels) of clip `clip` at clip time `time`;
/// `rest` is its rest value (taken by REST channels). Rotations come out as unit `xyzw`.
#[inline]
pub fn sample_channel(
    clips: &CompressedClips,
    clip: usize,
    channel: usize,
    rest: Vec4,
    time: f32,
) -> Vec4 {
    let record = &clips.clips()[clip];
    let code = clips.channels()[record.channel_offset as usize + channel];
    let kind = clips.channel_kind(channel);
    let data = clips.data();
    if !code.is_animated() {
        if code.is_rest() {
            return rest;
        }
        let i = code.index() as usize;
        let word = |k: usize| f32::from_bits(data[i + k]);
        return match kind.constant_words() {
            4 => Vec4::new(word(0), word(1), word(2), word(3)),
            _ => Vec4::new(word(0), word(1), word(2), 0.0),
        };
    }
    let (f, u) = frame_position(record, clips.segments(clip), time);
    let a = decode_frame(data, record, code, kind, f);
    if record.frame_count < 2 {
        return a;
    }
    let b = decode_frame(data, record, code, kind, f + 1);
    blend_frames(kind, code.is_step(), a, b, u)
}

/// Joint `joint` of compressed clip `clip` at `time`; REST channels take the rest pose of
/// `rig`'s skeleton. `clips` must be built for `rig` (same joints and clips).
#[inline]
pub fn sample_joint_compressed(
    rig: &Rig,
    clips: &CompressedClips,
    clip: usize,
    joint: usize,
    time: f32,
) -> Sqt {
    let rest = rig.skeleton.rest_pose()[joint];
    let t = sample_channel(clips, clip, joint * 3, rest.translation.extend(0.0), time);
    let r = sample_channel(clips, clip, joint * 3 + 1, Vec4::from(rest.rotation), time);
    let s = sample_channel(clips, clip, joint * 3 + 2, rest.scale.extend(0.0), time);
    Sqt {
        translation: Vec3::new(t.x, t.y, t.z),
        rotation: Quat::from_vec4(r),
        scale: Vec3::new(s.x, s.y, s.z),
    }
}

/// Morph weight chunk `chunk` of compressed clip `clip` at `time`; REST chunks take the rig's
/// default weights.
#[inline]
pub fn sample_weight_chunk_compressed(
    rig: &Rig,
    clips: &CompressedClips,
    clip: usize,
    chunk: usize,
    time: f32,
) -> Vec4 {
    let lib = &rig.clips;
    let rest = lib.value(lib.weight_default_offset() + chunk);
    sample_channel(clips, clip, clips.joint_count() * 3 + chunk, rest, time)
}

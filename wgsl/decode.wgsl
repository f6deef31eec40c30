// Stage 1, sample, from compressed clips (`CompressedClips` in src/baked/compressed/mod.rs):
// uniform frames, each channel constant, at its rest value, or quantized in its range. Twin of
// src/baked/compressed/decode.rs, same math in the same order. Replaces wgsl/sample.wgsl in the
// compressed pipeline, with the same interface: `prepare_layers`, `sample_layer_joint`,
// `sample_layer_weights` and `sample_channel`.

// Binding 3 of the compressed pipeline: per rig from `rig.track_offset`, its clip descriptors
// (CLIP_DESC_WORDS words each, `CompressedClip`), its channel codes (CHANNEL_CODE_WORDS words
// each, `ChannelCode`), its rest masks (per clip, one word per joint: bit c set when the
// joint's channel c is REST; `clip_words` in src/gpu/compressed.rs), then its data words.
// Offsets inside a rig's block are the rig's own.
@group(0) @binding(3) var<storage, read> clip_words: array<u32>;

const CLIP_DESC_WORDS: u32 = 8u;
// A segment of a clip's table (`ClipSegment`): start, rate (f32), first frame, intervals.
const SEGMENT_WORDS: u32 = 4u;
const CHANNEL_CODE_WORDS: u32 = 2u;
const CODE_RATE_BITS: u32 = 0x3fu;
const CODE_STEP: u32 = 0x40u;
const CODE_REST: u32 = 0x80u;
const CODE_INDEX_SHIFT: u32 = 8u;
// The second word of a channel code: the first bit (bits 0..=16), each component's bit
// reduction (3 bits each from bit 17), a rotation's layout (bits 29..=31).
const CODE_FIRST_BIT_MASK: u32 = 0x1ffffu;
const CODE_REDUCTION_SHIFT: u32 = 17u;
const CODE_REDUCTION_MASK: u32 = 7u;
const CODE_LAYOUT_SHIFT: u32 = 29u;
// Rotation layouts: the component rebuilt from the unit norm (w, x, y, z), or all four stored.
const LAYOUT_DROP_X: u32 = 1u;
const LAYOUT_DROP_Y: u32 = 2u;
const LAYOUT_DROP_Z: u32 = 3u;
const LAYOUT_FULL: u32 = 4u;
// Bit rate of a component stored as raw f32 bits.
const RATE_RAW: u32 = 32u;
// A frame position this close to an integer is that frame.
const FRAME_SNAP: f32 = 1e-4;
// The stored channels of a clip's weight chunk follow its joints' channels.
const CHANNEL_WEIGHTS: u32 = 3u;

// Where a clip is at one clip time: the first word of frame f's record (in `clip_words`), the
// words from it to frame f + 1's (0 for a one-frame clip), the position u between them, and the
// indices in `clip_words` of the clip's first channel code and first rest mask.
struct ClipFrame {
    record: u32,
    next: u32,
    u: f32,
    channels: u32,
    rests: u32,
}

// First channel code word of `rig`.
fn rig_channel_base(rig: RigDesc) -> u32 {
    return rig.track_offset + rig.clip_count * CLIP_DESC_WORDS;
}

// First rest mask word of `rig`: after its clips' channel codes (joint_count x 3 +
// weight_chunks per clip).
fn rig_rest_base(rig: RigDesc) -> u32 {
    let per_clip = rig.joint_count * 3u + rig.weight_chunks;
    return rig_channel_base(rig) + rig.clip_count * per_clip * CHANNEL_CODE_WORDS;
}

// First data word of `rig`: after its clips' rest masks (joint_count per clip).
fn rig_data_base(rig: RigDesc) -> u32 {
    return rig_rest_base(rig) + rig.clip_count * rig.joint_count;
}

// Clip `clip` of `rig` at clip time `time`: t = clamp(time, 0, duration); its segment the last
// whose start <= t (without a table one: start 0, rate, first frame 0, frame_count - 1
// intervals); x = (t - start) x rate, snapped to a near integer; i = min(floor(x),
// intervals - 1), u = min(x - i, 1), frame first + i.
fn clip_frame(rig: RigDesc, clip: u32, time: f32) -> ClipFrame {
    let desc = rig.track_offset + clip * CLIP_DESC_WORDS;
    var rate = bitcast<f32>(clip_words[desc]);
    let duration = bitcast<f32>(clip_words[desc + 1u]);
    let frame_count = clip_words[desc + 2u];
    let channel_offset = clip_words[desc + 3u];
    let frame_offset = clip_words[desc + 4u];
    let frame_words = clip_words[desc + 5u];
    let segment_count = clip_words[desc + 7u];
    let record = rig_data_base(rig) + frame_offset;
    let channels = rig_channel_base(rig) + channel_offset * CHANNEL_CODE_WORDS;
    let rests = rig_rest_base(rig) + clip * rig.joint_count;
    if frame_count < 2u {
        return ClipFrame(record, 0u, 0.0, channels, rests);
    }
    let t = clamp(time, 0.0, duration);
    var start = 0.0;
    var first = 0u;
    var intervals = frame_count - 1u;
    if segment_count > 0u {
        let table = rig_data_base(rig) + clip_words[desc + 6u];
        var at = table;
        for (var s = 1u; s < segment_count; s++) {
            if t < bitcast<f32>(clip_words[table + s * SEGMENT_WORDS]) {
                break;
            }
            at = table + s * SEGMENT_WORDS;
        }
        start = bitcast<f32>(clip_words[at]);
        rate = bitcast<f32>(clip_words[at + 1u]);
        first = clip_words[at + 2u];
        intervals = clip_words[at + 3u];
    }
    var x = (t - start) * rate;
    let nearest = floor(x + 0.5);
    if abs(x - nearest) <= FRAME_SNAP {
        x = nearest;
    }
    let f = min(floor(x), f32(intervals - 1u));
    return ClipFrame(
        record + (first + u32(f)) * frame_words,
        frame_words,
        min(x - f, 1.0),
        channels,
        rests,
    );
}

// The words of a channel's stored bits in one frame record, in registers: four 32-bit
// components at any bit shift span at most five words (`lo`, then `hi`).
struct FrameWindow {
    lo: vec4<u32>,
    hi: u32,
}

// The `count` words of the frame record at word `record` that hold a channel's bits, from the
// word of bit `bit_offset` on: each frame's words are read once, not once per component.
fn read_window(record: u32, bit_offset: u32, count: u32) -> FrameWindow {
    let first = record + (bit_offset >> 5u);
    var w = FrameWindow(vec4<u32>(0u), 0u);
    for (var i = 0u; i < min(count, 4u); i++) {
        w.lo[i] = clip_words[first + i];
    }
    if count > 4u {
        w.hi = clip_words[first + 4u];
    }
    return w;
}

// Word `i` (0..=4) of window `w`.
fn window_word(w: FrameWindow, i: u32) -> u32 {
    return select(w.lo[min(i, 3u)], w.hi, i >= 4u);
}

// The `bits`-bit integer at bit `bit` of window `w` (bit 0: bit 0 of its first word): one
// word, or the two adjacent words it straddles.
fn window_bits(w: FrameWindow, bit: u32, bits: u32) -> u32 {
    let at = bit >> 5u;
    let shift = bit & 31u;
    var q = window_word(w, at) >> shift;
    if shift + bits > 32u {
        q |= window_word(w, at + 1u) << (32u - shift);
    }
    if bits < 32u {
        q &= (1u << bits) - 1u;
    }
    return q;
}

// Stored component `c` of `bits` bits (0 < bits <= 32) at bit `bit` of the windows `a` and
// `b` of its channel's two frames: raw f32 bits, or dequantized in the range word at
// `range + c` (min | extent << 16, as f16) by fma(extent, q x scale, min) with
// scale = 1 / (2^bits - 1) (a correctly rounded division, as on the CPU: WGSL lets a driver
// round it less well; lavapipe and llvmpipe do not).
fn decode_component(
    a: FrameWindow,
    b: FrameWindow,
    bit: u32,
    bits: u32,
    range: u32,
    c: u32,
) -> vec2<f32> {
    let qa = window_bits(a, bit, bits);
    let qb = window_bits(b, bit, bits);
    if bits >= RATE_RAW {
        return vec2<f32>(bitcast<f32>(qa), bitcast<f32>(qb));
    }
    // Exact: every f16 is an f32 (drivers keep f16 subnormals here; lavapipe does).
    let scale = 1.0 / f32((1u << bits) - 1u);
    let r = unpack2x16float(clip_words[range + c]);
    return vec2<f32>(fma(r.y, f32(qa) * scale, r.x), fma(r.y, f32(qb) * scale, r.x));
}

// A rotation from its stored components `s` in layout `order`: the three kept (xyzw order)
// with the dropped one, d = sqrt(max(1 - (s0² + s1² + s2²), 0)) >= 0, put back in its place;
// or all four divided by their length (LAYOUT_FULL; the identity when it is 0). The encoder
// drops a component that stays >= 0.5, so d is never the root of nearly equal numbers.
fn rotation_from_stored(s: vec4<f32>, order: u32) -> vec4<f32> {
    if order == LAYOUT_FULL {
        let len = sqrt(dot(s, s));
        if len > 0.0 && len <= F32_MAX {
            return s / len;
        }
        return QUAT_IDENTITY;
    }
    let d = sqrt(max(1.0 - (s.x * s.x + s.y * s.y + s.z * s.z), 0.0));
    switch order {
        case LAYOUT_DROP_X: {
            return vec4<f32>(d, s.x, s.y, s.z);
        }
        case LAYOUT_DROP_Y: {
            return vec4<f32>(s.x, d, s.y, s.z);
        }
        case LAYOUT_DROP_Z: {
            return vec4<f32>(s.x, s.y, d, s.z);
        }
        default: {
            return vec4<f32>(s.x, s.y, s.z, d);
        }
    }
}

// Coefficients of the slerp correction in `interpolate_rotation` (SLERP_FIT in
// src/baked/compressed/decode.rs): k = e (C0 + e C1 + s (C2 + e C3)), e = 1 - d, s = (u - 0.5)^2.
const SLERP_FIT_0: f32 = 0.66537;
const SLERP_FIT_1: f32 = 0.14839;
const SLERP_FIT_2: f32 = -0.011094;
const SLERP_FIT_3: f32 = 0.66037;

// Unit rotations `a` and `b` blended by `u` along their shorter arc, close to slerp: b negated
// when d = dot(a, b) < 0, u moved to u + u (u - 0.5) (u - 1) k(d, u), then a + (b - a) u
// normalized (the identity when its length is 0 or not finite).
fn interpolate_rotation(a: vec4<f32>, b_in: vec4<f32>, u_in: f32) -> vec4<f32> {
    var b = b_in;
    var d = dot(a, b);
    if d < 0.0 {
        d = -d;
        b = -b;
    }
    let e = 1.0 - d;
    let h = u_in - 0.5;
    let s = h * h;
    let k = e * (SLERP_FIT_0 + e * SLERP_FIT_1 + s * (SLERP_FIT_2 + e * SLERP_FIT_3));
    let u = u_in + u_in * h * (u_in - 1.0) * k;
    let v = a + (b - a) * u;
    let len = sqrt(dot(v, v));
    if len > 0.0 && len <= F32_MAX {
        return v / len;
    }
    return QUAT_IDENTITY;
}

// Channel `channel` of the clip at `frame` (joint j's T, R, S at 3j + CHANNEL_*, weight chunk k
// at 3 x joint_count + k), of kind `kind` (CHANNEL_* or CHANNEL_WEIGHTS); `rest` is its value
// for a REST code.
fn decode_channel(rig: RigDesc, frame: ClipFrame, channel: u32, kind: u32, rest: vec4<f32>) -> vec4<f32> {
    let at = frame.channels + channel * CHANNEL_CODE_WORDS;
    let code = clip_words[at];
    if (code & CODE_REST) != 0u {
        return rest;
    }
    let index = rig_data_base(rig) + (code >> CODE_INDEX_SHIFT);
    let rotation = kind == CHANNEL_ROTATION;
    if (code & CODE_RATE_BITS) == 0u {
        let v = vec3<f32>(
            bitcast<f32>(clip_words[index]),
            bitcast<f32>(clip_words[index + 1u]),
            bitcast<f32>(clip_words[index + 2u]),
        );
        var w = 0.0;
        if rotation || kind == CHANNEL_WEIGHTS {
            w = bitcast<f32>(clip_words[index + 3u]);
        }
        return vec4<f32>(v, w);
    }
    let offset_word = clip_words[at + 1u];
    let bit_offset = offset_word & CODE_FIRST_BIT_MASK;
    let order = offset_word >> CODE_LAYOUT_SHIFT;
    let bits = code & CODE_RATE_BITS;
    // Each component's bits: the rate less its reduction.
    let cuts = offset_word >> CODE_REDUCTION_SHIFT;
    let b0 = bits - (cuts & CODE_REDUCTION_MASK);
    let b1 = bits - ((cuts >> 3u) & CODE_REDUCTION_MASK);
    let b2 = bits - ((cuts >> 6u) & CODE_REDUCTION_MASK);
    let b3 = bits - ((cuts >> 9u) & CODE_REDUCTION_MASK);
    // Both frames at once (a one-frame clip reads frame 0 twice), each frame's words once,
    // each range once.
    let four = kind == CHANNEL_WEIGHTS || (rotation && order == LAYOUT_FULL);
    let shift = bit_offset & 31u;
    let count = (shift + b0 + b1 + b2 + select(0u, b3, four) + 31u) / 32u;
    let wa = read_window(frame.record, bit_offset, count);
    let wb = read_window(frame.record + frame.next, bit_offset, count);
    let x = decode_component(wa, wb, shift, b0, index, 0u);
    let y = decode_component(wa, wb, shift + b0, b1, index, 1u);
    let z = decode_component(wa, wb, shift + b0 + b1, b2, index, 2u);
    var w = vec2<f32>(0.0);
    if four {
        w = decode_component(wa, wb, shift + b0 + b1 + b2, b3, index, 3u);
    }
    var a = vec4<f32>(x.x, y.x, z.x, w.x);
    var b = vec4<f32>(x.y, y.y, z.y, w.y);
    if rotation {
        a = rotation_from_stored(a, order);
        b = rotation_from_stored(b, order);
    }
    if frame.next == 0u || ((code & CODE_STEP) != 0u && frame.u < 1.0) {
        return a;
    }
    if (code & CODE_STEP) != 0u {
        return b;
    }
    if rotation {
        return interpolate_rotation(a, b, frame.u);
    }
    return a + (b - a) * frame.u;
}

// Every resolved layer's clip position at its time, resolved once per instance (lane k for
// instance k of the workgroup, entries as `wg_layers`).
var<workgroup> wg_frames: array<ClipFrame, MAX_LAYERS * GROUP_INSTANCES>;

// Lane k, after `resolve_layers`: the frame position of every resolved layer of instance k.
fn prepare_layers(rig: RigDesc, k: u32) {
    for (var l = 0u; l < wg_layer_count[k]; l++) {
        let i = k * MAX_LAYERS + l;
        let layer = wg_layers[i];
        if layer.clip < rig.clip_count {
            wg_frames[i] = clip_frame(rig, layer.clip, layer.time);
        } else if layer.map != NO_MAP {
            // A retargeted layer decodes its map's source rig's clip.
            wg_frames[i] = clip_frame(rigs[retarget_row(layer.map).x], layer.source_clip, layer.time);
        }
    }
}

// Joint `joint` of `rig` in resolved layer `layer` (its clip exists); `rest` is the joint's rest
// pose. A retargeted layer decodes the entry's source joint in its source rig's clip (from the
// source joint's rest) and retargets it (wgsl/retarget.wgsl), as wgsl/sample.wgsl does.
fn sample_layer_joint(rig: RigDesc, layer: u32, joint: u32, rest: Sqt) -> Sqt {
    let map = wg_layers[layer].map;
    if map == NO_MAP {
        return decode_joint(rig, wg_frames[layer], joint, rest);
    }
    return retarget_decoded(map, joint, wg_frames[layer]);
}

// Joint `joint` of the target rig in a layer retargeted through `map`, at `frame` of the source
// rig's clip: the entry's source joint decoded (from the source joint's rest) and retargeted
// (wgsl/retarget.wgsl), as wgsl/sample.wgsl does.
fn retarget_decoded(map: u32, joint: u32, frame: ClipFrame) -> Sqt {
    let row = retarget_row(map);
    let entry = row.y + joint * RETARGET_ENTRY_VEC4S;
    let source = retarget_source(entry);
    var sample = Sqt(vec3<f32>(0.0), QUAT_IDENTITY, vec3<f32>(1.0));
    if source != RETARGET_NO_SOURCE {
        let source_rig = rigs[row.x];
        let at = source_rig.joint_offset + source;
        let source_rest = Sqt(
            joints[at].rest_translation,
            joints[at].rest_rotation,
            joints[at].rest_scale,
        );
        sample = decode_joint(source_rig, frame, source, source_rest);
    }
    return retarget_sample(entry, row.w, sample);
}

// Joint `joint` of `rig` in the resolved layer `l` (its clip exists), its frame position found
// here (an inertialized transition's capture, at other times than the frame's).
fn sample_frame_layer_joint(rig: RigDesc, l: FrameLayer, joint: u32, rest: Sqt) -> Sqt {
    if l.map == NO_MAP {
        return decode_joint(rig, clip_frame(rig, l.clip, l.time), joint, rest);
    }
    let source_rig = rigs[retarget_row(l.map).x];
    return retarget_decoded(l.map, joint, clip_frame(source_rig, l.source_clip, l.time));
}

// Joint `joint` of `rig` at clip position `frame`; `rest` is the joint's rest pose, the value of
// its REST channels. The joint's rest mask says which those are, so only the other channels'
// codes are read.
fn decode_joint(rig: RigDesc, frame: ClipFrame, joint: u32, rest: Sqt) -> Sqt {
    let first = joint * 3u;
    let rests = clip_words[frame.rests + joint];
    var pose = rest;
    if (rests & (1u << CHANNEL_TRANSLATION)) == 0u {
        let t = vec4<f32>(rest.translation, 0.0);
        pose.translation = decode_channel(rig, frame, first, CHANNEL_TRANSLATION, t).xyz;
    }
    if (rests & (1u << CHANNEL_ROTATION)) == 0u {
        pose.rotation = decode_channel(rig, frame, first + 1u, CHANNEL_ROTATION, rest.rotation);
    }
    if (rests & (1u << CHANNEL_SCALE)) == 0u {
        let s = vec4<f32>(rest.scale, 0.0);
        pose.scale = decode_channel(rig, frame, first + 2u, CHANNEL_SCALE, s).xyz;
    }
    return pose;
}

// Weight chunk `chunk` of `rig` in resolved layer `layer`; `rest` its default weights.
fn sample_layer_weights(rig: RigDesc, layer: u32, chunk: u32, rest: vec4<f32>) -> vec4<f32> {
    let channel = rig.joint_count * 3u + chunk;
    return decode_channel(rig, wg_frames[layer], channel, CHANNEL_WEIGHTS, rest);
}

// Channel `channel` (CHANNEL_*) of `joint` in clip `clip` of `rig` at clip time `time`.
// Only the channel's own rest value is read.
fn sample_channel(rig: RigDesc, clip: u32, joint: u32, channel: u32, time: f32) -> vec4<f32> {
    let at = rig.joint_offset + joint;
    var value: vec4<f32>;
    if channel == CHANNEL_ROTATION {
        value = joints[at].rest_rotation;
    } else if channel == CHANNEL_SCALE {
        value = vec4<f32>(joints[at].rest_scale.xyz, 0.0);
    } else {
        value = vec4<f32>(joints[at].rest_translation.xyz, 0.0);
    }
    return decode_channel(rig, clip_frame(rig, clip, time), joint * 3u + channel, channel, value);
}

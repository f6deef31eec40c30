// Stage 2 of an inertialized transition: on the capture frame each joint's offset between the
// outgoing pose and the incoming layers (and its velocity) goes into the instance's
// inertialization block; every frame until the transition ends the offset, decayed by a
// quintic, is added to the incoming layers' pose. Twin of src/cpu/inertial.rs (and of the
// record layout in src/inertialization.rs).

// An inertialization block is 1 + 2 x joints palette entries read as vec4s (three per entry):
// a header entry (serial, start, duration, INERTIAL_TAG in its first row), then INERTIAL_JOINT_VEC4S per
// joint (rotation vector and velocity, translation and velocity, scale and velocity).

const INERTIAL: u32 = 0x40000000u;
const INERTIAL_JOINT_VEC4S: u32 = 6u;
const INERTIAL_HEADER_VEC4S: u32 = 3u;
const INERTIAL_VELOCITY_STEP: f32 = 0.0009765625;
const INERTIAL_OUTGOING: u32 = 3u;
const INERTIAL_CHAINED: u32 = 4u;
const NO_BLOCK: u32 = 0xffffffffu;
// The last number of a captured block's header (INERTIAL_TAG in src/inertialization.rs).
const INERTIAL_TAG: f32 = 0x1p127f;

// Instance k: its block's first entry in the bound palette window (NO_BLOCK: not
// inertialized, the offset has decayed or the block lies outside the window), 1 on its capture
// frame, and the start and duration (f32 bits) the block's header held before.
var<workgroup> wg_inertial: array<vec4<u32>, GROUP_INSTANCES>;

// `vec4` `v` of the block at palette entry `block` (of the bound window).
fn inertial_word(block: u32, v: u32) -> vec4<f32> {
    return palette[block + v / 3u].rows[v % 3u];
}

fn set_inertial_word(block: u32, v: u32, value: vec4<f32>) {
    palette[block + v / 3u].rows[v % 3u] = value;
}

// Lane k, stage 0: instance `slot`'s inertialization state for this frame.
fn inertial_begin(k: u32, slot: u32, rig: RigDesc) {
    var state = vec4<u32>(NO_BLOCK, 0u, 0u, 0u);
    if (records[slot].flags & INERTIAL) != 0u {
        let d = records[slot].layers[MAX_LAYERS - 1u];
        let n = min(rig.joint_count, MAX_JOINTS);
        let entries = 1u + 2u * n;
        let block = d.clip - header.palette_base;
        if d.clip >= header.palette_base && block < arrayLength(&palette)
            && entries <= arrayLength(&palette) - block {
            let held = palette[block].rows[0];
            let capture = held.x != d.weight || held.w != INERTIAL_TAG;
            // A decayed transition neither captures nor reads: its block may be another's now.
            if header.time - d.time < d.period {
                state = vec4<u32>(
                    block,
                    select(0u, 1u, capture),
                    bitcast<u32>(held.y),
                    bitcast<u32>(held.z),
                );
            }
        }
    }
    wg_inertial[k] = state;
}

// The decay at progress `s`: the weights of the offset and of velocity x duration (see
// `inertial_decay` in src/cpu/inertial.rs).
fn inertial_decay(s_in: f32) -> vec2<f32> {
    let s = clamp(s_in, 0.0, 1.0);
    let u = 1.0 - s;
    let p = 1.0 + s * s * (-10.0 + s * (20.0 + s * (-15.0 + 4.0 * s)));
    return vec2<f32>(p, s * (u * u) * (u * u));
}

fn inertial_decayed(x0: vec3<f32>, v0: vec3<f32>, elapsed: f32, duration: f32) -> vec3<f32> {
    if !(duration > 0.0) {
        return vec3<f32>(0.0);
    }
    let w = inertial_decay(elapsed / duration);
    return x0 * w.x + v0 * (duration * w.y);
}

// The rotation vector of unit quaternion `q`.
fn quat_log(q: vec4<f32>) -> vec3<f32> {
    let s = length(q.xyz);
    if s < 1e-7 {
        return q.xyz * 2.0;
    }
    return q.xyz * (2.0 * atan2(s, q.w) / s);
}

// The unit quaternion of rotation vector `r`.
fn quat_exp(r: vec3<f32>) -> vec4<f32> {
    let angle = length(r);
    if angle < 1e-7 {
        return normalize(vec4<f32>(0.5 * r, 1.0));
    }
    let k = sin(0.5 * angle) / angle;
    return vec4<f32>(r * k, cos(0.5 * angle));
}

// `pose` of joint `joint` with the offset of the block at `block` added, `elapsed` seconds
// into a decay of `duration`.
fn inertial_apply(block: u32, joint: u32, elapsed: f32, duration: f32, pose: Sqt) -> Sqt {
    let at = INERTIAL_HEADER_VEC4S + joint * INERTIAL_JOINT_VEC4S;
    let w = array<vec4<f32>, 6>(
        inertial_word(block, at),
        inertial_word(block, at + 1u),
        inertial_word(block, at + 2u),
        inertial_word(block, at + 3u),
        inertial_word(block, at + 4u),
        inertial_word(block, at + 5u),
    );
    let r = inertial_decayed(w[0].xyz, w[1].xyz, elapsed, duration);
    let t = inertial_decayed(w[2].xyz, w[3].xyz, elapsed, duration);
    let s = inertial_decayed(w[4].xyz, w[5].xyz, elapsed, duration);
    return Sqt(
        pose.translation + t,
        quat_normalize(quat_mul(quat_exp(r), pose.rotation)),
        pose.scale + s,
    );
}

// Layers `first`..`first + count - 1` of record `slot` blended at joint `joint` at frame
// time `now`: `blend_joint` over layers resolved at another time (the capture's).
fn blend_record_joint(
    rig: RigDesc,
    slot: u32,
    first: u32,
    count: u32,
    joint: u32,
    rest: Sqt,
    now: f32,
) -> Sqt {
    var layers: array<FrameLayer, MAX_LAYERS>;
    var weights = vec4<f32>(0.0);
    for (var l = 0u; l < count; l++) {
        layers[l] = frame_layer(records[slot].layers[first + l], rig, now);
    }
    var bottom = 0u;
    for (var l = count; l > 0u; l--) {
        let layer = layers[l - 1u];
        let w = layer.weight * mask_weight(layer.flags, joint);
        weights[l - 1u] = w;
        if hides_lower(rig, layer, w) {
            bottom = l - 1u;
            break;
        }
    }
    var pose = rest;
    for (var l = bottom; l < count; l++) {
        let layer = layers[l];
        let w = weights[l];
        if w <= 0.0 || !layer_plays(rig, layer) {
            continue;
        }
        let sample = sample_frame_layer_joint(rig, layer, joint, rest);
        pose = apply_layer(pose, sample, rest, w, layer.flags);
    }
    return pose;
}

// On instance k's capture frame: joint `joint`'s offset and velocity into its block (see
// `capture_inertialization` in src/cpu/inertial.rs). Each joint is one invocation's, which
// reads what a chained transition keeps of the block's offset before writing over it.
fn inertial_capture(rig: RigDesc, k: u32, joint: u32, rest: Sqt) {
    let state = wg_inertial[k];
    if state.x == NO_BLOCK || state.y == 0u {
        return;
    }
    let slot = wg_slot[k];
    let d = records[slot].layers[MAX_LAYERS - 1u];
    let incoming = wg_layer_count[k];
    var outgoing = d.flags & INERTIAL_OUTGOING;
    if incoming + outgoing >= MAX_LAYERS {
        outgoing = 0u;
    }
    let start = d.time;
    let before = start - INERTIAL_VELOCITY_STEP;
    let step = start - before;
    var o_now = blend_record_joint(rig, slot, incoming, outgoing, joint, rest, start);
    var o_prev = blend_record_joint(rig, slot, incoming, outgoing, joint, rest, before);
    if (d.flags & INERTIAL_CHAINED) != 0u {
        let old_start = bitcast<f32>(state.z);
        let old_duration = bitcast<f32>(state.w);
        o_now = inertial_apply(state.x, joint, start - old_start, old_duration, o_now);
        o_prev = inertial_apply(state.x, joint, before - old_start, old_duration, o_prev);
    }
    let i_now = blend_record_joint(rig, slot, 0u, incoming, joint, rest, start);
    let i_prev = blend_record_joint(rig, slot, 0u, incoming, joint, rest, before);
    var q = quat_mul(o_now.rotation, quat_conjugate(i_now.rotation));
    if q.w < 0.0 {
        q = -q;
    }
    var q_prev = quat_mul(o_prev.rotation, quat_conjugate(i_prev.rotation));
    if dot(q_prev, q) < 0.0 {
        q_prev = -q_prev;
    }
    let r = quat_log(q);
    let t = o_now.translation - i_now.translation;
    let s = o_now.scale - i_now.scale;
    let rate = 1.0 / step;
    let at = INERTIAL_HEADER_VEC4S + joint * INERTIAL_JOINT_VEC4S;
    let tv = (t - (o_prev.translation - i_prev.translation)) * rate;
    let sv = (s - (o_prev.scale - i_prev.scale)) * rate;
    set_inertial_word(state.x, at, vec4<f32>(r, 0.0));
    set_inertial_word(state.x, at + 1u, vec4<f32>((r - quat_log(q_prev)) * rate, 0.0));
    set_inertial_word(state.x, at + 2u, vec4<f32>(t, 0.0));
    set_inertial_word(state.x, at + 3u, vec4<f32>(tv, 0.0));
    set_inertial_word(state.x, at + 4u, vec4<f32>(s, 0.0));
    set_inertial_word(state.x, at + 5u, vec4<f32>(sv, 0.0));
}

// Joint `joint`'s blended `pose` of instance k with its offset at the frame time added.
fn inertial_joint(k: u32, joint: u32, pose: Sqt) -> Sqt {
    let state = wg_inertial[k];
    if state.x == NO_BLOCK {
        return pose;
    }
    let d = records[wg_slot[k]].layers[MAX_LAYERS - 1u];
    let elapsed = header.time - d.time;
    if elapsed >= d.period {
        return pose;
    }
    return inertial_apply(state.x, joint, elapsed, d.period, pose);
}

// Lane p of a pass, after every joint's capture: the header of instance k's block, on its
// capture frame.
fn inertial_finish(k: u32) {
    let state = wg_inertial[k];
    if state.x != NO_BLOCK && state.y != 0u {
        let d = records[wg_slot[k]].layers[MAX_LAYERS - 1u];
        palette[state.x].rows[0] = vec4<f32>(d.weight, d.time, d.period, INERTIAL_TAG);
    }
}

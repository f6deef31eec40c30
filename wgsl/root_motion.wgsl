// Stage 2b, root motion: for a record with GPU_ROOT_MOTION, its instance's lane moves the
// record's world by the root joint's held motion between the previous frame time and this one,
// before propagation, and writes it back. Twin of src/cpu/root_motion.rs, function for function and
// operation for operation (see there for the definition); `root_frame` and the frame functions
// are the twins of `RootFrame` in src/cpu/root_frame.rs. Translations and yaws are in model
// space.

const PI: f32 = 3.14159274;

// `a` wrapped into [-PI, PI) (the short way round).
fn short_angle(a: f32) -> f32 {
    let cycle = 2.0 * PI;
    let x = a + PI;
    return x - floor(x / cycle) * cycle - PI;
}

// The model-space frame of root motion for `joint` of `rig` as the root, from the rig's root
// frames (uploaded once: RootFrame::table). Read once per instance, by one lane.
fn root_frame(rig: RigDesc, joint: u32) -> RootFrame {
    let i = rig.frame_offset + joint * ROOT_FRAME_VEC4S;
    return RootFrame(
        mat3x3<f32>(key_values[i].xyz, key_values[i + 1u].xyz, key_values[i + 2u].xyz),
        mat3x3<f32>(key_values[i + 3u].xyz, key_values[i + 4u].xyz, key_values[i + 5u].xyz),
        key_values[i + 6u],
    );
}

// The yaw (radians about model +Y) of the root's local rotation `q`: the angle of the twist
// about +Y of its model-space rotation.
fn model_yaw(frame: RootFrame, q: vec4<f32>) -> f32 {
    let m = quat_mul(frame.rotation, q);
    return 2.0 * atan2(m.y, m.w);
}

// Channel `channel` of `joint` of `rig` in layer record `layer` at clip time `time`: its clip
// of `rig`, or for a retargeted layer (a map that fits: `layer_map_row`) the source joint's
// translation and rotation through the map's entry (wgsl/retarget.wgsl), so root motion
// follows the scaled root.
fn layer_channel(rig: RigDesc, layer: LayerRecord, joint: u32, channel: u32, time: f32) -> vec4<f32> {
    if (layer.clip >> LAYER_MAP_SHIFT) == 0u {
        return sample_channel(rig, layer.clip, joint, channel, time);
    }
    let row = retarget_row(layer_map_row(layer, rig));
    let entry = row.y + joint * RETARGET_ENTRY_VEC4S;
    let source = retarget_source(entry);
    var sample = Sqt(vec3<f32>(0.0), QUAT_IDENTITY, vec3<f32>(1.0));
    if source != RETARGET_NO_SOURCE {
        let clip = layer.clip & LAYER_CLIP;
        sample.translation =
            sample_channel(rigs[row.x], clip, source, CHANNEL_TRANSLATION, time).xyz;
        sample.rotation = sample_channel(rigs[row.x], clip, source, CHANNEL_ROTATION, time);
    }
    let out = retarget_sample(entry, row.w, sample);
    if channel == CHANNEL_ROTATION {
        return out.rotation;
    }
    return vec4<f32>(out.translation, 0.0);
}

// Translation of `joint` in `layer` of `rig` at clip time `time`.
fn root_translation(rig: RigDesc, layer: LayerRecord, joint: u32, time: f32) -> vec3<f32> {
    return layer_channel(rig, layer, joint, CHANNEL_TRANSLATION, time).xyz;
}

// Yaw (radians about model +Y) of `joint` in `layer` of `rig` at clip time `time`, `frame`
// being the joint's root frame.
fn root_yaw(rig: RigDesc, frame: RootFrame, layer: LayerRecord, joint: u32, time: f32) -> f32 {
    let q = layer_channel(rig, layer, joint, CHANNEL_ROTATION, time);
    return model_yaw(frame, q);
}

// The root's motion in `layer` between frame times `prev` and `now`: translation in xyz (root's
// parent space), yaw about model +Y in w when `yaw`. Zero for a clock that did not move.
fn layer_root_motion(
    rig: RigDesc,
    frame: RootFrame,
    layer: LayerRecord,
    joint: u32,
    prev: f32,
    now: f32,
    yaw: bool,
) -> vec4<f32> {
    if layer.rate == 0.0 && layer.rate_gain == 0.0 {
        return vec4<f32>(0.0);
    }
    let u_from = layer_unwrapped_time(layer, prev);
    let u_to = layer_unwrapped_time(layer, now);
    if u_from == u_to {
        return vec4<f32>(0.0);
    }
    let wrap = (layer.flags & LAYER_WRAP) >> LAYER_WRAP_SHIFT;
    let t_from = wrap_time(wrap, u_from, layer.period);
    let t_to = wrap_time(wrap, u_to, layer.period);
    var translation = root_translation(rig, layer, joint, t_to)
        - root_translation(rig, layer, joint, t_from);
    var turn = 0.0;
    if yaw {
        turn = short_angle(
            root_yaw(rig, frame, layer, joint, t_to)
                - root_yaw(rig, frame, layer, joint, t_from),
        );
    }
    // A zero-length clip (a pose) has no cycles to count, and moves nothing across them.
    if wrap == TIME_WRAP_LOOP && layer.period > 0.0 {
        let wraps = floor(u_to / layer.period) - floor(u_from / layer.period);
        if wraps != 0.0 {
            let end = root_translation(rig, layer, joint, layer.period);
            let start = root_translation(rig, layer, joint, 0.0);
            translation += (end - start) * wraps;
            if yaw {
                let cycle = short_angle(
                    root_yaw(rig, frame, layer, joint, layer.period)
                        - root_yaw(rig, frame, layer, joint, 0.0),
                );
                turn += cycle * wraps;
            }
        }
    }
    return vec4<f32>(translation, turn);
}

// The blended root motion of the base layers of record `slot` (with `flags`) between `prev`
// and `now`: translation in model space, held axes only; yaw about model +Y in w when held.
fn root_motion_delta(rig: RigDesc, slot: u32, flags: u32, prev: f32, now: f32) -> vec4<f32> {
    let joint = flags & ROOT_JOINT;
    if joint >= rig.joint_count {
        return vec4<f32>(0.0);
    }
    let frame = root_frame(rig, joint);
    let yaw = (flags & HOLD_ROOT_YAW) != 0u;
    let used = min(records[slot].layer_count, MAX_LAYERS);
    var motion = vec4<f32>(0.0);
    var above = 1.0;
    var k = min((flags & BASE_LAYERS) >> BASE_LAYERS_SHIFT, used);
    while k > 0u {
        k -= 1u;
        let layer = records[slot].layers[k];
        if layer.clip < rig.clip_count || layer_map_row(layer, rig) != NO_MAP {
            let w = clamp(layer_weight(layer, now), 0.0, 1.0);
            let share = w * above;
            above *= 1.0 - w;
            if share > 0.0 {
                motion += layer_root_motion(rig, frame, layer, joint, prev, now, yaw) * share;
            }
        }
    }
    motion = vec4<f32>(frame.to_model * motion.xyz, motion.w);
    if (flags & HOLD_ROOT_XYZ) == 0u {
        motion.y = 0.0;
        if (flags & HOLD_ROOT_XZ) == 0u {
            motion.x = 0.0;
            motion.z = 0.0;
        }
    }
    if !yaw {
        motion.w = 0.0;
    }
    return motion;
}

// `world` moved by `motion` (model-space translation in xyz, yaw in w): the translation goes
// through world's linear part, then the yaw turns it about its own +Y (world x RotY(yaw)).
fn move_world(world: Mat3x4Rows, motion: vec4<f32>) -> Mat3x4Rows {
    let s = sin(motion.w);
    let c = cos(motion.w);
    var out = world;
    for (var i = 0u; i < 3u; i++) {
        let r = world.rows[i];
        let moved = r.w + r.x * motion.x + r.y * motion.y + r.z * motion.z;
        out.rows[i] = vec4<f32>(c * r.x - s * r.z, r.y, s * r.x + c * r.z, moved);
    }
    return out;
}

// One evaluation's root motion of record `slot`, run by one lane: returns the world to evaluate
// under and writes a moved world (or cleared WORLD_PLACED flag) back to the record.
fn advance_root_motion(rig: RigDesc, slot: u32) -> Mat3x4Rows {
    let flags = records[slot].flags;
    let world = records[slot].world;
    if (flags & GPU_ROOT_MOTION) == 0u {
        return world;
    }
    if (flags & WORLD_PLACED) != 0u {
        records[slot].flags = flags & ~WORLD_PLACED;
        return world;
    }
    let delta = root_motion_delta(rig, slot, flags, header.prev_time, header.time);
    if all(delta == vec4<f32>(0.0)) {
        return world;
    }
    let moved = move_world(world, delta);
    records[slot].world = moved;
    return moved;
}

// Stage 2b, root motion: for a record with GPU_ROOT_MOTION, lane 0 moves the record's world by
// the root joint's held motion between the previous frame time and this one, before
// propagation, and writes it back. Twin of src/cpu/root_motion.rs, function for function and
// operation for operation (see there for the definition).

const PI: f32 = 3.14159274;

// `a` wrapped into [-PI, PI) (the short way round).
fn short_angle(a: f32) -> f32 {
    let cycle = 2.0 * PI;
    let x = a + PI;
    return x - floor(x / cycle) * cycle - PI;
}

// Translation of `joint` in `clip` of `rig` at clip time `time`.
fn root_translation(rig: RigDesc, clip: u32, joint: u32, time: f32) -> vec3<f32> {
    let desc = tracks[rig.track_offset + (clip * rig.joint_count + joint) * 3u + CHANNEL_TRANSLATION];
    return sample_track(rig, desc, false, time).xyz;
}

// Yaw (radians about +Y) of `joint` in `clip` of `rig` at clip time `time`.
fn root_yaw(rig: RigDesc, clip: u32, joint: u32, time: f32) -> f32 {
    let desc = tracks[rig.track_offset + (clip * rig.joint_count + joint) * 3u + CHANNEL_ROTATION];
    let q = sample_track(rig, desc, true, time);
    return 2.0 * atan2(q.y, q.w);
}

// The root's motion in `layer` between frame times `prev` and `now`: translation in xyz (root's
// parent space), yaw in w when `yaw`. Zero for a clock that did not move.
fn layer_root_motion(
    rig: RigDesc,
    layer: LayerRecord,
    joint: u32,
    prev: f32,
    now: f32,
    yaw: bool,
) -> vec4<f32> {
    if layer.rate == 0.0 {
        return vec4<f32>(0.0);
    }
    let u_from = layer.time + layer.rate * (prev - layer.anchor);
    let u_to = layer.time + layer.rate * (now - layer.anchor);
    if u_from == u_to {
        return vec4<f32>(0.0);
    }
    let wrap = (layer.flags & LAYER_WRAP) >> LAYER_WRAP_SHIFT;
    let t_from = wrap_time(wrap, u_from, layer.period);
    let t_to = wrap_time(wrap, u_to, layer.period);
    var translation = root_translation(rig, layer.clip, joint, t_to)
        - root_translation(rig, layer.clip, joint, t_from);
    var turn = 0.0;
    if yaw {
        turn = short_angle(
            root_yaw(rig, layer.clip, joint, t_to) - root_yaw(rig, layer.clip, joint, t_from),
        );
    }
    if wrap == TIME_WRAP_LOOP {
        let wraps = floor(u_to / layer.period) - floor(u_from / layer.period);
        if wraps != 0.0 {
            let end = root_translation(rig, layer.clip, joint, layer.period);
            let start = root_translation(rig, layer.clip, joint, 0.0);
            translation += (end - start) * wraps;
            if yaw {
                let cycle = short_angle(
                    root_yaw(rig, layer.clip, joint, layer.period)
                        - root_yaw(rig, layer.clip, joint, 0.0),
                );
                turn += cycle * wraps;
            }
        }
    }
    return vec4<f32>(translation, turn);
}

// The blended root motion of the base layers of record `slot` (with `flags`) between `prev`
// and `now`: translation in the root's parent space, held axes only; yaw in w when held.
fn root_motion_delta(rig: RigDesc, slot: u32, flags: u32, prev: f32, now: f32) -> vec4<f32> {
    let joint = flags & ROOT_JOINT;
    if joint >= rig.joint_count {
        return vec4<f32>(0.0);
    }
    let yaw = (flags & HOLD_ROOT_YAW) != 0u;
    let used = min(records[slot].layer_count, MAX_LAYERS);
    var motion = vec4<f32>(0.0);
    var above = 1.0;
    var k = min((flags & BASE_LAYERS) >> BASE_LAYERS_SHIFT, used);
    while k > 0u {
        k -= 1u;
        let layer = records[slot].layers[k];
        if layer.clip < rig.clip_count {
            let w = clamp(layer_weight(layer, now), 0.0, 1.0);
            let share = w * above;
            above *= 1.0 - w;
            if share > 0.0 {
                motion += layer_root_motion(rig, layer, joint, prev, now, yaw) * share;
            }
        }
    }
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

// `q` rotating `v`.
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let u = q.xyz;
    let t = cross(u, v) * 2.0;
    return v + t * q.w + cross(u, t);
}

// `v`, a direction in the rest-pose space of `joint`'s children, in model space: scaled and
// rotated by each rest transform from `joint` up to its root (`v` itself for NO_PARENT).
fn rest_direction_to_model(rig: RigDesc, joint: u32, v: vec3<f32>) -> vec3<f32> {
    var out = v;
    var j = joint;
    var steps = 0u;
    while j != NO_PARENT && j < rig.joint_count && steps < rig.joint_count {
        let desc = joints[rig.joint_offset + j];
        out = quat_rotate(desc.rest_rotation, out * desc.rest_scale.xyz);
        j = desc.parent;
        steps += 1u;
    }
    return out;
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
    let joint = flags & ROOT_JOINT;
    let parent = joints[rig.joint_offset + joint].parent;
    let local = rest_direction_to_model(rig, parent, delta.xyz);
    let moved = move_world(world, vec4<f32>(local, delta.w));
    records[slot].world = moved;
    return moved;
}

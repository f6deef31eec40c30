// Stage 2, blend: an instance's layers combined in SQT space with per-joint masks, then
// root-motion removal. Twins of `blend_joint` and `hold_root` in src/cpu/blend.rs.

// The rest (bind-time node) pose of joint `index` of the concatenated joint table.
fn rest_pose(index: u32) -> Sqt {
    return Sqt(
        joints[index].rest_translation.xyz,
        joints[index].rest_rotation,
        joints[index].rest_scale.xyz,
    );
}

// Mask weight of `joint` for a layer with `flags` (1 when the layer has no mask, 0 when the
// mask does not exist).
fn mask_weight(flags: u32, joint: u32) -> f32 {
    let mask = flags & LAYER_MASK;
    if mask == 0u {
        return 1.0;
    }
    if mask > library.mask_count {
        return 0.0;
    }
    return scalars[library.mask_offset + (mask - 1u) * MAX_JOINTS + joint];
}

// One layer of the instance at the frame time (stage 0): what every joint reads, resolved
// once per instance into workgroup memory instead of per joint from the record.
// A retargeted layer has clip RETARGETED_CLIP (the other stages skip it), its clip of the
// source rig in `source_clip` and its row of the retarget table in `map` (wgsl/retarget.wgsl);
// other layers have `map` NO_MAP.
struct FrameLayer {
    clip: u32,
    flags: u32,
    time: f32,
    weight: f32,
    source_clip: u32,
    map: u32,
}

// Instance k of the workgroup: its layers from entry k x MAX_LAYERS, and how many.
var<workgroup> wg_layers: array<FrameLayer, MAX_LAYERS * GROUP_INSTANCES>;
var<workgroup> wg_layer_count: array<u32, GROUP_INSTANCES>;

// Lane k: the layers of instance `slot` (instance k of the workgroup) at the frame time, into
// workgroup memory (read after the next barrier). Twin of `InstanceRecord::layers_at` in
// src/instance.rs.
fn resolve_layers(k: u32, slot: u32) {
    let count = min(records[slot].layer_count, MAX_LAYERS);
    let rig = rigs[records[slot].rig];
    for (var i = 0u; i < count; i++) {
        wg_layers[k * MAX_LAYERS + i] = frame_layer(records[slot].layers[i], rig, header.time);
    }
    wg_layer_count[k] = count;
}

// `layer` of an instance of `rig` resolved at frame time `now`.
fn frame_layer(layer: LayerRecord, rig: RigDesc, now: f32) -> FrameLayer {
    var clip = layer.clip;
    var map = NO_MAP;
    if (layer.clip >> LAYER_MAP_SHIFT) != 0u {
        clip = RETARGETED_CLIP;
        map = layer_map_row(layer, rig);
    }
    return FrameLayer(
        clip,
        layer.flags,
        layer_time(layer, now),
        layer_weight(layer, now),
        layer.clip & LAYER_CLIP,
        map,
    );
}

// Whether a resolved layer plays a clip: one of `rig`'s, or a source rig's through a map.
fn layer_plays(rig: RigDesc, layer: FrameLayer) -> bool {
    return layer.clip < rig.clip_count || layer.map != NO_MAP;
}

// Whether `layer`, at weight `w` at a joint, takes its sample whole there: an override at full
// weight, which hides the layers under it.
fn hides_lower(rig: RigDesc, layer: FrameLayer, w: f32) -> bool {
    return w >= 1.0 && (layer.flags & LAYER_ADDITIVE) == 0u && layer_plays(rig, layer);
}

// `pose` with a layer's `sample` applied at weight `w`: its delta from `rest` added for an
// additive layer (`flags`), else a blend toward it (the sample itself at full weight).
fn apply_layer(pose: Sqt, sample: Sqt, rest: Sqt, w: f32, flags: u32) -> Sqt {
    if (flags & LAYER_ADDITIVE) != 0u {
        return add_delta(pose, delta_from(sample, rest), w);
    }
    if w >= 1.0 {
        return sample;
    }
    return blend_toward(pose, sample, w);
}

// The blended local transform of `joint` of instance k of the workgroup: start from the rest
// pose, then apply each resolved layer, bottom first, with its weight times `mask[joint]`. The
// layers under the topmost override at full weight there (it takes its sample whole) are
// neither sampled nor their masks read: the result is the same.
fn blend_joint(rig: RigDesc, k: u32, joint: u32, rest: Sqt) -> Sqt {
    let count = wg_layer_count[k];
    // Each layer's weight here (MAX_LAYERS of them), top down to the first that hides the rest.
    var weights = vec4<f32>(0.0);
    var first = 0u;
    for (var l = count; l > 0u; l--) {
        let layer = wg_layers[k * MAX_LAYERS + l - 1u];
        let w = layer.weight * mask_weight(layer.flags, joint);
        weights[l - 1u] = w;
        if hides_lower(rig, layer, w) {
            first = l - 1u;
            break;
        }
    }
    var pose = rest;
    for (var l = first; l < count; l++) {
        let i = k * MAX_LAYERS + l;
        let layer = wg_layers[i];
        let w = weights[l];
        if w <= 0.0 || !layer_plays(rig, layer) {
            continue;
        }
        let sample = sample_layer_joint(rig, i, joint, rest);
        pose = apply_layer(pose, sample, rest, w, layer.flags);
    }
    return pose;
}

// The rotation about +Y in q's swing-twist decomposition (identity when undefined).
fn yaw_twist(q: vec4<f32>) -> vec4<f32> {
    return normalize_or_identity(vec4<f32>(0.0, q.y, 0.0, q.w));
}

// Root-motion removal for the joint named by instance `flags`: puts the held parts of `pose`
// back to the rest value in model space (the joint's root frame); every other joint's pose is
// returned unchanged.
fn hold_root(rig: RigDesc, rest: Sqt, flags: u32, joint: u32, pose: Sqt) -> Sqt {
    let hold = HOLD_ROOT_XZ | HOLD_ROOT_XYZ | HOLD_ROOT_YAW;
    if (flags & hold) == 0u || (flags & ROOT_JOINT) != joint {
        return pose;
    }
    let frame = root_frame(rig, joint);
    var out = pose;
    if (flags & HOLD_ROOT_XYZ) != 0u {
        out.translation = rest.translation;
    } else if (flags & HOLD_ROOT_XZ) != 0u {
        let moved = frame.to_model * pose.translation;
        let held = frame.to_model * rest.translation;
        out.translation = frame.from_model * vec3<f32>(held.x, moved.y, held.z);
    }
    if (flags & HOLD_ROOT_YAW) != 0u {
        // model = yaw * rest-of-pose; swap its yaw for the rest pose's, back in parent space.
        let model = quat_mul(frame.rotation, pose.rotation);
        let rest_yaw = yaw_twist(quat_mul(frame.rotation, rest.rotation));
        let swapped = quat_mul(rest_yaw, quat_conjugate(yaw_twist(model)));
        out.rotation = normalize_or_identity(
            quat_mul(quat_conjugate(frame.rotation), quat_mul(swapped, model)),
        );
    }
    return out;
}

// Stage 1, sample: the value of one track at one time. Twin of src/baked/sample.rs.
//
// The sample stage's interface to the other stages (wgsl/decode.wgsl has the same for
// compressed clips): `prepare_layers`, `sample_layer_joint`, `sample_layer_weights` and
// `sample_channel`.

@group(0) @binding(3) var<storage, read> tracks: array<TrackDesc>;

// Index k of the key pair [k, k + 1] around `t` among the `n` key times starting at
// `scalars[first]`, for `t` strictly inside the key range and n >= 2. Tries the key a uniform
// spacing predicts, then binary search; either way the unique k with
// times[k] <= t < times[k + 1].
fn find_key(first: u32, n: u32, t: f32) -> u32 {
    let last = n - 1u;
    let t0 = scalars[first];
    let guess = min(u32((t - t0) / (scalars[first + last] - t0) * f32(last)), last - 1u);
    if scalars[first + guess] <= t && t < scalars[first + guess + 1u] {
        return guess;
    }
    var lo = 0u;
    var hi = last;
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if scalars[first + mid] <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// Samples track `desc` of `rig` at `time` (clamped to its first and last key). Rotations come
// out as unit quaternions.
fn sample_track(rig: RigDesc, desc: TrackDesc, rotation: bool, time: f32) -> vec4<f32> {
    let n = desc.key_count;
    let t0 = rig.time_offset + desc.time_offset;
    let v0 = rig.value_offset + desc.value_offset;
    let cubic = desc.interpolation == INTERPOLATION_CUBIC;
    let stride = select(1u, 3u, cubic);
    let centre = select(0u, 1u, cubic);
    if n <= 1u || time <= scalars[t0] {
        return key_values[v0 + centre];
    }
    if time >= scalars[t0 + n - 1u] {
        return key_values[v0 + (n - 1u) * stride + centre];
    }
    let k = find_key(t0, n, time);
    let time_k = scalars[t0 + k];
    let dt = scalars[t0 + k + 1u] - time_k;
    let u = (time - time_k) / dt;
    let a = key_values[v0 + k * stride + centre];
    if desc.interpolation == INTERPOLATION_STEP {
        return a;
    }
    let b = key_values[v0 + (k + 1u) * stride + centre];
    if desc.interpolation == INTERPOLATION_LINEAR {
        if rotation {
            return slerp_shortest(a, b, u);
        }
        return lerp4(a, b, u);
    }
    let out0 = key_values[v0 + k * 3u + 2u];
    let in1 = key_values[v0 + (k + 1u) * 3u];
    let v = hermite(a, out0, in1, b, dt, u);
    if rotation {
        return normalize_or_identity(v);
    }
    return v;
}

// Samples joint `joint` of clip `clip` of `rig` at `time`. The three channels go through one
// loop so the track code is emitted once.
fn sample_joint(rig: RigDesc, clip: u32, joint: u32, time: f32) -> Sqt {
    let first = rig.track_offset + (clip * rig.joint_count + joint) * 3u;
    var out = Sqt(vec3<f32>(0.0), QUAT_IDENTITY, vec3<f32>(1.0));
    for (var channel = 0u; channel < 3u; channel++) {
        let v = sample_track(rig, tracks[first + channel], channel == CHANNEL_ROTATION, time);
        if channel == CHANNEL_TRANSLATION {
            out.translation = v.xyz;
        } else if channel == CHANNEL_ROTATION {
            out.rotation = v;
        } else {
            out.scale = v.xyz;
        }
    }
    return out;
}

// Lane k, after `resolve_layers`: nothing to prepare for exact clips.
fn prepare_layers(rig: RigDesc, k: u32) {}

// Joint `joint` of `rig` in resolved layer `layer` (its clip exists). `rest` is the joint's rest
// pose (unused here: exact clips have a track for every channel). A retargeted layer samples
// the entry's source joint in its source rig's clip and retargets it (wgsl/retarget.wgsl).
fn sample_layer_joint(rig: RigDesc, layer: u32, joint: u32, rest: Sqt) -> Sqt {
    return sample_frame_layer_joint(rig, wg_layers[layer], joint, rest);
}

// Joint `joint` of `rig` in the resolved layer `l` (its clip exists).
fn sample_frame_layer_joint(rig: RigDesc, l: FrameLayer, joint: u32, rest: Sqt) -> Sqt {
    if l.map == NO_MAP {
        return sample_joint(rig, l.clip, joint, l.time);
    }
    let row = retarget_row(l.map);
    let entry = row.y + joint * RETARGET_ENTRY_VEC4S;
    let source = retarget_source(entry);
    var sample = Sqt(vec3<f32>(0.0), QUAT_IDENTITY, vec3<f32>(1.0));
    if source != RETARGET_NO_SOURCE {
        sample = sample_joint(rigs[row.x], l.source_clip, source, l.time);
    }
    return retarget_sample(entry, row.w, sample);
}

// Weight chunk `chunk` of `rig` in resolved layer `layer`; `rest` its default weights.
fn sample_layer_weights(rig: RigDesc, layer: u32, chunk: u32, rest: vec4<f32>) -> vec4<f32> {
    let desc = tracks[rig.weight_track_offset + wg_layers[layer].clip * rig.weight_chunks + chunk];
    return sample_track(rig, desc, false, wg_layers[layer].time);
}

// Channel `channel` (CHANNEL_*) of `joint` in clip `clip` of `rig` at clip time `time`.
fn sample_channel(rig: RigDesc, clip: u32, joint: u32, channel: u32, time: f32) -> vec4<f32> {
    let desc = tracks[rig.track_offset + (clip * rig.joint_count + joint) * 3u + channel];
    return sample_track(rig, desc, channel == CHANNEL_ROTATION, time);
}

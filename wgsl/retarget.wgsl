// Stage 1b, retarget: a source rig's joint sample turned into a target joint's local transform
// by an entry of the retarget table (key_values from library.retarget_offset: the row count,
// one row per map and mirror (source rig, first entry, joint count, mirror axis), then the
// entries, RETARGET_ENTRY_VEC4S each: pre, post, (translation, scale factor), (source joint |
// flags << 16, constant scale)). Twin of src/baked/retarget_map/apply.rs (and src/math/mirror.rs).

const NO_MAP: u32 = 0xffffffffu;
// The clip of a retargeted layer as the other stages read it: no clip of the instance's rig.
const RETARGETED_CLIP: u32 = 0xfffffffeu;
const RETARGET_ENTRY_VEC4S: u32 = 4u;
const RETARGET_REFLECT: u32 = 1u;
const RETARGET_SOURCE_TRANSLATION: u32 = 2u;
const RETARGET_SOURCE_SCALE: u32 = 4u;
const RETARGET_NO_SOURCE: u32 = 0xffffu;

// Row `row` of the table: source rig, first entry (a key_values index), joint count, axis.
fn retarget_row(row: u32) -> vec4<u32> {
    return bitcast<vec4<u32>>(key_values[library.retarget_offset + 1u + row]);
}

// The row a layer record of an instance of `rig` plays through, or NO_MAP when it names no map
// or one that does not fit (no such row, another joint count, no such source rig or clip).
fn layer_map_row(layer: LayerRecord, rig: RigDesc) -> u32 {
    let map = layer.clip >> LAYER_MAP_SHIFT;
    let rows = bitcast<u32>(key_values[library.retarget_offset].x);
    let row = (map - 1u) * 2u + select(0u, 1u, (layer.flags & LAYER_MIRROR) != 0u);
    if map == 0u || row >= rows {
        return NO_MAP;
    }
    let r = retarget_row(row);
    if r.x >= library.rig_count || r.z != rig.joint_count
        || (layer.clip & LAYER_CLIP) >= rigs[r.x].clip_count {
        return NO_MAP;
    }
    return row;
}

// The source joint of entry `entry` (RETARGET_NO_SOURCE: none).
fn retarget_source(entry: u32) -> u32 {
    return bitcast<u32>(key_values[entry + 3u].x) & 0xffffu;
}

// `v` with its component along axis `axis` negated.
fn reflect_vector(axis: u32, v: vec3<f32>) -> vec3<f32> {
    var out = v;
    out[min(axis, 2u)] = -out[min(axis, 2u)];
    return out;
}

// The rotation a mirror image across the plane normal to `axis` turns by.
fn reflect_rotation(axis: u32, q: vec4<f32>) -> vec4<f32> {
    var v = -q.xyz;
    v[min(axis, 2u)] = -v[min(axis, 2u)];
    return vec4<f32>(v, q.w);
}

// `v` turned by unit quaternion `q`.
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    return quat_mul(quat_mul(q, vec4<f32>(v, 0.0)), quat_conjugate(q)).xyz;
}

// Entry `entry` (a key_values index) applied to its source joint's sample `sample`.
fn retarget_sample(entry: u32, axis: u32, sample: Sqt) -> Sqt {
    let pre = key_values[entry];
    let post = key_values[entry + 1u];
    let translation = key_values[entry + 2u];
    let tail = key_values[entry + 3u];
    let bits = bitcast<u32>(tail.x);
    let flags = bits >> 16u;
    var q = sample.rotation;
    var t = sample.translation;
    if (flags & RETARGET_REFLECT) != 0u {
        q = reflect_rotation(axis, q);
        t = reflect_vector(axis, t);
    }
    var out = Sqt(translation.xyz, pre, tail.yzw);
    let has_source = (bits & 0xffffu) != RETARGET_NO_SOURCE;
    if has_source {
        out.rotation = normalize_or_identity(quat_mul(quat_mul(pre, q), post));
    }
    if (flags & RETARGET_SOURCE_TRANSLATION) != 0u {
        out.translation = select(vec3<f32>(0.0), quat_rotate(pre, t) * translation.w, has_source);
    }
    if (flags & RETARGET_SOURCE_SCALE) != 0u {
        out.scale = sample.scale;
    }
    return out;
}

// Stage 5, animated AABB: each joint's joint-space vertex bounds moved by its model matrix,
// merged across the workgroup with integer atomics (WGSL has no float atomics) on an
// order-preserving float -> u32 encoding. Twin of src/cpu/aabb.rs.

// Encoded min x, y, z then max x, y, z of the instance a workgroup evaluates.
var<workgroup> wg_bounds: array<atomic<u32>, 6>;

// Encoding of +infinity and -infinity: the empty box.
const ORDER_KEY_POS_INF: u32 = 0xff800000u;
const ORDER_KEY_NEG_INF: u32 = 0x007fffffu;

// Maps a float to a u32 whose unsigned order is the float order.
fn order_key(f: f32) -> u32 {
    let bits = bitcast<u32>(f);
    if (bits & 0x80000000u) != 0u {
        return ~bits;
    }
    return bits | 0x80000000u;
}

// Inverse of `order_key`.
fn from_order_key(key: u32) -> f32 {
    if (key & 0x80000000u) != 0u {
        return bitcast<f32>(key & 0x7fffffffu);
    }
    return bitcast<f32>(~key);
}

// Empties the workgroup box; one lane calls it before the first barrier.
fn bounds_begin() {
    for (var i = 0u; i < 3u; i++) {
        atomicStore(&wg_bounds[i], ORDER_KEY_POS_INF);
        atomicStore(&wg_bounds[i + 3u], ORDER_KEY_NEG_INF);
    }
}

// The bounds of joint `joint` of `rig` moved by its model matrix, or None (min > max) when no
// vertex follows the joint.
fn joint_bounds(rig: RigDesc, joint: u32, model: Mat3x4Rows) -> Aabb {
    let index = rig.joint_offset + joint;
    if joints[index].has_bounds == 0u {
        return Aabb(vec4<f32>(F32_MAX), vec4<f32>(-F32_MAX));
    }
    return transform_aabb(model, joints[index].bounds_min.xyz, joints[index].bounds_max.xyz);
}

// Merges one lane's box into the workgroup box.
fn bounds_merge(lo: vec3<f32>, hi: vec3<f32>) {
    if lo.x > hi.x {
        return;
    }
    atomicMin(&wg_bounds[0], order_key(lo.x));
    atomicMin(&wg_bounds[1], order_key(lo.y));
    atomicMin(&wg_bounds[2], order_key(lo.z));
    atomicMax(&wg_bounds[3], order_key(hi.x));
    atomicMax(&wg_bounds[4], order_key(hi.y));
    atomicMax(&wg_bounds[5], order_key(hi.z));
}

// The merged box, after a barrier.
fn bounds_result() -> Aabb {
    return Aabb(
        vec4<f32>(
            from_order_key(atomicLoad(&wg_bounds[0])),
            from_order_key(atomicLoad(&wg_bounds[1])),
            from_order_key(atomicLoad(&wg_bounds[2])),
            0.0,
        ),
        vec4<f32>(
            from_order_key(atomicLoad(&wg_bounds[3])),
            from_order_key(atomicLoad(&wg_bounds[4])),
            from_order_key(atomicLoad(&wg_bounds[5])),
            0.0,
        ),
    );
}

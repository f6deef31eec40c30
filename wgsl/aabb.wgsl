// Stage 5, animated AABB: each joint's joint-space vertex bounds moved by its model matrix,
// merged across the workgroup with integer atomics (WGSL has no float atomics) on an
// order-preserving float -> u32 encoding. Twin of src/cpu/aabb.rs.

// Encoded min x, y, z then max x, y, z of each instance a workgroup evaluates (6 entries from
// 6 x its index in the workgroup).
var<workgroup> wg_bounds: array<atomic<u32>, 6u * GROUP_INSTANCES>;

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

// Empties the box of instance `k` of the workgroup; one lane calls it before a barrier.
fn bounds_begin(k: u32) {
    for (var i = 0u; i < 3u; i++) {
        atomicStore(&wg_bounds[6u * k + i], ORDER_KEY_POS_INF);
        atomicStore(&wg_bounds[6u * k + i + 3u], ORDER_KEY_NEG_INF);
    }
}

// The joint-space bounds of joint `index` (in `joints`), or None (min > max) when no vertex
// follows the joint (`bounded` false): read once per joint and pass, moved by each instance's
// model matrix.
fn joint_space_bounds(index: u32, bounded: bool) -> Aabb {
    if !bounded {
        return Aabb(vec4<f32>(F32_MAX), vec4<f32>(-F32_MAX));
    }
    return Aabb(vec4<f32>(joints[index].bounds_min, 0.0), vec4<f32>(joints[index].bounds_max, 0.0));
}

// Joint-space bounds `b` moved by a model matrix (None stays None).
fn joint_bounds(b: Aabb, model: Mat3x4Rows) -> Aabb {
    if b.min.x > b.max.x {
        return b;
    }
    return transform_aabb(model, b.min.xyz, b.max.xyz);
}

// Merges one lane's box into the box of instance `k`.
fn bounds_merge(k: u32, lo: vec3<f32>, hi: vec3<f32>) {
    if lo.x > hi.x {
        return;
    }
    let at = 6u * k;
    atomicMin(&wg_bounds[at], order_key(lo.x));
    atomicMin(&wg_bounds[at + 1u], order_key(lo.y));
    atomicMin(&wg_bounds[at + 2u], order_key(lo.z));
    atomicMax(&wg_bounds[at + 3u], order_key(hi.x));
    atomicMax(&wg_bounds[at + 4u], order_key(hi.y));
    atomicMax(&wg_bounds[at + 5u], order_key(hi.z));
}

// The merged box of instance `k`, after a barrier.
fn bounds_result(k: u32) -> Aabb {
    let at = 6u * k;
    return Aabb(
        vec4<f32>(
            from_order_key(atomicLoad(&wg_bounds[at])),
            from_order_key(atomicLoad(&wg_bounds[at + 1u])),
            from_order_key(atomicLoad(&wg_bounds[at + 2u])),
            0.0,
        ),
        vec4<f32>(
            from_order_key(atomicLoad(&wg_bounds[at + 3u])),
            from_order_key(atomicLoad(&wg_bounds[at + 4u])),
            from_order_key(atomicLoad(&wg_bounds[at + 5u])),
            0.0,
        ),
    );
}

// Back-to-front order of a page's camera list, for batches with `BLEND` materials. Assembled
// after layout.wgsl; CPU twin: `blend_order` in src/render/sort.rs.
//
// The culling kernel (or the copy of every instance when culling is off) leaves the page's
// visible instances in `visible`, `draws[0].instance_count` of them. `sort_keys` gives each one
// a key from the depth of its animated box's centre along the camera's view direction (the
// farther, the smaller the key) and pads the list to a power of two with keys that sort last;
// `sort_step` is one compare-exchange pass of a bitonic sort over (key, instance) pairs
// (`params.k`, `params.j`: the pass's block and distance), so ties break by instance index and
// the order is the same on every run; `sort_write` puts the sorted instances back. The draws
// of the page's blended meshes then composite its instances far to near (a draw's instances
// are drawn in order).

@group(0) @binding(0) var<storage, read> instances: array<SkinnedInstance>;
@group(0) @binding(1) var<storage, read> aabbs: array<Aabb>;
@group(0) @binding(2) var<storage, read_write> visible: array<u32>;
// The page's camera draws as words: word 1 is the first draw's instance count.
@group(0) @binding(3) var<storage, read> draws: array<u32>;
@group(0) @binding(4) var<storage, read_write> pairs: array<vec2<u32>>;
@group(0) @binding(5) var<uniform> params: SortParams;

const SORT_WORKGROUP_SIZE: u32 = 64u;
const PAD_KEY: u32 = 0xffffffffu;

fn sort_slot(group: vec3<u32>, lane: u32) -> u32 {
    return (group.y * params.grid_width + group.x) * SORT_WORKGROUP_SIZE + lane;
}

// Instances in the page's list: the culled count, within the list's bounds.
fn listed() -> u32 {
    var count = 0u;
    if (arrayLength(&draws) > 1u) {
        count = draws[1];
    }
    return min(min(count, params.instance_count), arrayLength(&visible));
}

// `d` as a u32 that orders like the float (negative values below positive ones).
fn ordered_bits(d: f32) -> u32 {
    let bits = bitcast<u32>(d);
    return select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
}

// The sort key of instance `i`: smaller for farther boxes (empty or missing boxes last).
fn sort_key(i: u32) -> u32 {
    if (i >= arrayLength(&instances)) {
        return PAD_KEY;
    }
    let a = instances[i].aabb_index;
    if (a >= arrayLength(&aabbs)) {
        return PAD_KEY;
    }
    let b = aabbs[a];
    if (!(b.min.x <= b.max.x && b.min.y <= b.max.y && b.min.z <= b.max.z)) {
        return PAD_KEY;
    }
    let centre = 0.5 * (b.min.xyz + b.max.xyz);
    let depth = dot(params.view_depth.xyz, centre) + params.view_depth.w;
    return ~ordered_bits(depth);
}

@compute @workgroup_size(64)
fn sort_keys(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    let slot = sort_slot(group, lane);
    if (slot >= params.size || slot >= arrayLength(&pairs)) {
        return;
    }
    if (slot < listed()) {
        let i = visible[slot];
        pairs[slot] = vec2<u32>(sort_key(i), i);
    } else {
        pairs[slot] = vec2<u32>(PAD_KEY, PAD_KEY);
    }
}

fn pair_after(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.x > b.x || (a.x == b.x && a.y > b.y);
}

@compute @workgroup_size(64)
fn sort_step(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    let slot = sort_slot(group, lane);
    let partner = slot ^ params.j;
    if (slot >= params.size || partner <= slot || partner >= min(params.size, arrayLength(&pairs))) {
        return;
    }
    let ascending = (slot & params.k) == 0u;
    let a = pairs[slot];
    let b = pairs[partner];
    if (pair_after(a, b) == ascending) {
        pairs[slot] = b;
        pairs[partner] = a;
    }
}

@compute @workgroup_size(64)
fn sort_write(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_index) lane: u32) {
    let slot = sort_slot(group, lane);
    if (slot >= listed() || slot >= arrayLength(&pairs)) {
        return;
    }
    visible[slot] = pairs[slot].y;
}

// GPU frustum culling. Assembled after layout.wgsl.
//
// One invocation per instance of a page of a batch tests the instance's animated AABB against
// the six frustum planes and appends the visible ones (page-local indices) to `visible`; the
// slot comes from an atomic increment of the page's first indirect draw's instance count, and
// every other draw of the page (one per mesh) counts the same instances. Every binding is the
// page's window or region. CPU twin: `aabb_in_frustum` in src/render/cull.rs.

@group(0) @binding(0) var<storage, read> instances: array<SkinnedInstance>;
@group(0) @binding(1) var<storage, read> aabbs: array<Aabb>;
@group(0) @binding(2) var<uniform> params: CullParams;
@group(0) @binding(3) var<storage, read_write> visible: array<u32>;
@group(0) @binding(4) var<storage, read_write> draws: array<DrawArgs>;

const WORKGROUP_SIZE: u32 = 64u;

// Whether the box may be visible: false when it is empty (or NaN), or lies entirely on the
// outer side of one plane. Conservative: a box near a frustum corner can pass all six planes.
fn aabb_in_frustum(b: Aabb) -> bool {
    if (!(b.min.x <= b.max.x && b.min.y <= b.max.y && b.min.z <= b.max.z)) {
        return false;
    }
    for (var i = 0u; i < 6u; i++) {
        let plane = params.planes[i];
        let corner = select(b.min.xyz, b.max.xyz, plane.xyz >= vec3<f32>(0.0));
        if (dot(plane.xyz, corner) + plane.w < 0.0) {
            return false;
        }
    }
    return true;
}

@compute @workgroup_size(64)
fn cull(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let i = (group.y * params.grid_width + group.x) * WORKGROUP_SIZE + lane;
    if (i >= params.instance_count || i >= arrayLength(&instances)) {
        return;
    }
    let a = instances[i].aabb_index;
    if (a >= arrayLength(&aabbs) || !aabb_in_frustum(aabbs[a])) {
        return;
    }
    let draw_count = min(params.draw_count, arrayLength(&draws));
    if (draw_count == 0u) {
        return;
    }
    let slot = atomicAdd(&draws[0].instance_count, 1u);
    if (slot < arrayLength(&visible)) {
        visible[slot] = i;
    }
    for (var d = 1u; d < draw_count; d++) {
        atomicAdd(&draws[d].instance_count, 1u);
    }
}

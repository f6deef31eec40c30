// GPU frustum culling, for the camera and the light in one dispatch. Assembled after
// layout.wgsl.
//
// One invocation per instance of a page of a batch reads the instance's animated AABB once and
// tests it against the camera's six frustum planes and (when `params.light_list` is 1) the
// light's, appending the instance (its page-local index) to each list whose frustum it may
// touch: `visible` (drawn by the main pass) and `light_visible` (drawn by the shadow pass). A
// list's slot comes from an atomic increment of the page's first indirect draw of that list, and
// every other draw of the list (one per mesh) counts the same instances. The verdict (in either
// list or in neither) is written to the box's max.w for the next frame's evaluation. Every
// binding is the page's window or region. CPU twin: `aabb_in_frustum` in src/render/cull.rs.

@group(0) @binding(0) var<storage, read> instances: array<SkinnedInstance>;
// read_write: the verdict goes to each tested box's max.w (1.0: in neither list, else 0.0),
// which the evaluate kernel reads next frame to skip culled instances (wgsl/lod.wgsl).
@group(0) @binding(1) var<storage, read_write> aabbs: array<Aabb>;
@group(0) @binding(2) var<uniform> params: CullParams;
@group(0) @binding(3) var<storage, read_write> visible: array<u32>;
@group(0) @binding(4) var<storage, read_write> draws: array<DrawArgs>;
@group(0) @binding(5) var<storage, read_write> light_visible: array<u32>;
@group(0) @binding(6) var<storage, read_write> light_draws: array<DrawArgs>;

const WORKGROUP_SIZE: u32 = 64u;

// Whether the non-empty box `b` may touch the camera's frustum (`light` false) or the light's:
// false when it lies entirely on the outer side of one plane. Conservative: a box near a frustum
// corner can pass all six. The planes are read from the uniform where they are (a private copy
// indexed at run time is slow on some drivers).
fn aabb_in_frustum(b: Aabb, light: bool) -> bool {
    for (var i = 0u; i < 6u; i++) {
        var plane = params.planes[i];
        if (light) {
            plane = params.light_planes[i];
        }
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
    if (a >= arrayLength(&aabbs)) {
        return;
    }
    let b = aabbs[a];
    // Empty or NaN boxes are in no list.
    if (!(b.min.x <= b.max.x && b.min.y <= b.max.y && b.min.z <= b.max.z)) {
        return;
    }
    let in_camera = aabb_in_frustum(b, false);
    let in_light = params.light_list == 1u && aabb_in_frustum(b, true);
    aabbs[a].max.w = select(1.0, 0.0, in_camera || in_light);
    if (in_camera) {
        let draw_count = min(params.draw_count, arrayLength(&draws));
        if (draw_count > 0u) {
            let slot = atomicAdd(&draws[0].instance_count, 1u);
            if (slot < arrayLength(&visible)) {
                visible[slot] = i;
            }
            for (var d = 1u; d < draw_count; d++) {
                atomicAdd(&draws[d].instance_count, 1u);
            }
        }
    }
    if (in_light) {
        let draw_count = min(params.draw_count, arrayLength(&light_draws));
        if (draw_count > 0u) {
            let slot = atomicAdd(&light_draws[0].instance_count, 1u);
            if (slot < arrayLength(&light_visible)) {
                light_visible[slot] = i;
            }
            for (var d = 1u; d < draw_count; d++) {
                atomicAdd(&light_draws[d].instance_count, 1u);
            }
        }
    }
}

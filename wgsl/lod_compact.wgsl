// The slot list of an indirect frame (assembled after common/layout.wgsl and lod.wgsl): one
// invocation per slot decides, from the same record, box verdict and header the evaluation
// reads, whether the slot must run this frame, and appends it to the list (wgsl/lod.wgsl)
// through an atomic count; `lod_finalize` then turns the count into the evaluation's indirect
// workgroup grid. Listed: every non-empty slot `lod_plan` finds due (in view, due its rate or
// its culled refresh, or not skipping while culled) and every slot with GPU_ROOT_MOTION
// (its world moves by the motion from the previous frame time, so it runs every frame; the
// evaluation still skips its pose when it is not due). Bound: the evaluation's group 1 (its one
// dispatch's header, records and box buffer) and the arguments in group 2; no group 0.

// x, y, z: the evaluation's dispatch; [3]: the count of listed slots. The host writes
// (0, 0, 1, 0) before the frame.
@group(2) @binding(0) var<storage, read_write> lod_args: array<atomic<u32>, 4>;

const COMPACT_WORKGROUP_SIZE: u32 = 64u;

// Entry `k` of the slot list.
fn lod_list_write(k: u32, value: f32) {
    let i = header.list_base + k / 8u;
    if i >= arrayLength(&bounds) {
        return;
    }
    let c = k % 8u;
    if c < 4u {
        bounds[i].min[c] = value;
    } else {
        bounds[i].max[c - 4u] = value;
    }
}

@compute @workgroup_size(64)
fn lod_compact(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let slot = id.y * groups.x * COMPACT_WORKGROUP_SIZE + id.x;
    if slot >= header.instance_count || slot >= arrayLength(&records) {
        return;
    }
    // Empty slots do nothing in the evaluation (the library is not bound here: a record of a
    // rig index past the library is listed and skipped there).
    if records[slot].rig == 0xffffffffu {
        return;
    }
    let flags = records[slot].flags;
    var listed = (flags & GPU_ROOT_MOTION) != 0u;
    if !listed {
        // Without GPU root motion the world the evaluation decides on is the record's.
        let out = header.first_instance + slot;
        let culled = out < header.list_base && bounds[out].max.w == 1.0;
        listed = lod_plan(slot, flags, records[slot].world, culled).y == 1u;
    }
    if listed {
        let k = atomicAdd(&lod_args[3], 1u);
        lod_list_write(k + 1u, f32(slot));
    }
}

// One invocation, after `lod_compact`: the count becomes list entry 0 and a grid of rows of
// `header.grid_width` workgroups of GROUP_INSTANCES entries each covering it (the evaluation
// maps group (x, y) to list indices from (y * grid_width + x) * GROUP_INSTANCES and skips
// those past the count).
@compute @workgroup_size(1)
fn lod_finalize() {
    let count = atomicLoad(&lod_args[3]);
    let groups = (count + GROUP_INSTANCES - 1u) / GROUP_INSTANCES;
    let width = max(header.grid_width, 1u);
    atomicStore(&lod_args[0], min(groups, width));
    atomicStore(&lod_args[1], (groups + width - 1u) / width);
    atomicStore(&lod_args[2], 1u);
    lod_list_write(0u, f32(count));
}

// The fused evaluation kernel: one workgroup per instance runs every stage in pipeline order
// (sample + blend -> root motion -> propagate -> IK -> skin -> animated AABB, and the morph
// weights) with the joint matrices in workgroup memory. The only per-joint global write is the 48-byte
// palette entry; the AABB is written once per instance, a root-motion world once per instance,
// and a rig with morph targets writes its weights after the joint entries. Twin of
// `evaluate_pose` in src/cpu/mod.rs (with `advance_root_motion` in src/cpu/root_motion.rs).

const WORKGROUP_SIZE: u32 = 16u;
// A rig index that never exists: the slot is skipped.
const NO_RIG: u32 = 0xffffffffu;

// The instance a workgroup evaluates, as lane 0 read it: rig, flags, and the world after root
// motion.
var<workgroup> wg_rig: u32;
var<workgroup> wg_flags: u32;
var<workgroup> wg_world: Mat3x4Rows;
var<workgroup> wg_offset: u32;

@compute @workgroup_size(WORKGROUP_SIZE)
fn evaluate(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let slot = group.y * header.grid_width + group.x;
    if slot >= header.instance_count {
        return;
    }
    // Lane 0 reads the record, moves its world by root motion (stage 2b, writing it back) and
    // resolves its layers at the frame time (stage 0); the other lanes take rig, flags, world,
    // palette offset and layers from workgroup memory. The records are
    // read_write, so the rig index reaches every lane through workgroupUniformLoad: everything
    // the barriers depend on is uniform across the workgroup.
    if lane == 0u {
        var rig_index = NO_RIG;
        if slot < arrayLength(&records) {
            rig_index = records[slot].rig;
            wg_flags = records[slot].flags;
            if rig_index < library.rig_count {
                wg_world = advance_root_motion(rigs[rig_index], slot);
                wg_offset = records[slot].palette_offset;
                resolve_layers(slot);
                prepare_layers(rigs[rig_index]);
            }
        }
        wg_rig = rig_index;
    }
    let rig_index = workgroupUniformLoad(&wg_rig);
    if rig_index >= library.rig_count {
        return;
    }
    let rig = rigs[rig_index];
    let n = min(rig.joint_count, MAX_JOINTS);
    let offset = wg_offset;
    let base = offset - header.palette_base;
    let morph_entries = (rig.weight_chunks + CHUNKS_PER_ENTRY - 1u) / CHUNKS_PER_ENTRY;
    // The block's IK entries (inputs the host writes) follow the morph weights.
    let ik_entries = base + n + morph_entries;
    let writable = offset >= header.palette_base
        && ik_entries + rig.ik_count <= arrayLength(&palette);
    let world = wg_world;
    let flags = wg_flags;

    if lane == 0u {
        bounds_begin();
    }
    // Stages 1 and 2: sample and blend each joint's layers, hold the root's motion if asked;
    // roots go under the world transform.
    for (var j = lane; j < n; j += WORKGROUP_SIZE) {
        let rest = rest_pose(rig.joint_offset + j);
        let local = hold_root(rig, rest, flags, j, blend_joint(rig, j, rest));
        begin_model(rig, j, sqt_to_affine(local), world);
    }
    workgroupBarrier();

    // Stage 3: one depth level at a time (level 0, the roots, is done).
    for (var level = 1u; level < rig.level_count; level++) {
        propagate_level(rig, level, lane, WORKGROUP_SIZE);
        workgroupBarrier();
    }

    // Stage 3b: IK, one constraint at a time: lane 0 solves it, every lane turns its joints of
    // the subtrees it moves. A rig without constraints skips the loop.
    for (var k = 0u; k < rig.ik_count; k++) {
        if lane == 0u {
            ik_solve(rig, k, writable, ik_entries + k);
        }
        workgroupBarrier();
        ik_apply(rig, lane, WORKGROUP_SIZE, n);
        workgroupBarrier();
    }

    // Stages 4 and 5: palette entries straight to global memory, bounds into workgroup atomics.
    var lo = vec3<f32>(F32_MAX);
    var hi = vec3<f32>(-F32_MAX);
    for (var j = lane; j < n; j += WORKGROUP_SIZE) {
        let model = wg_models[j];
        if writable {
            palette[base + j] = skin_joint(rig, j, model);
        }
        let b = joint_bounds(rig, j, model);
        lo = min(lo, b.min.xyz);
        hi = max(hi, b.max.xyz);
    }
    bounds_merge(lo, hi);
    // Stage 2c: the morph weights after the joint entries (the joint count is the rig's here:
    // a rig past MAX_JOINTS never bakes).
    if writable && n == rig.joint_count {
        write_morph_weights(rig, lane, base);
    }
    workgroupBarrier();
    let out = header.first_instance + slot;
    if lane == 0u && out < arrayLength(&bounds) {
        bounds[out] = bounds_result();
    }
}

// The fused evaluation kernel: one workgroup takes GROUP_INSTANCES instance slots and runs
// every stage in pipeline order (sample + blend -> root motion -> propagate -> IK -> skin ->
// animated AABB, and the morph weights) with the joint matrices in workgroup memory. Lane k
// sets up instance k (record, root motion, LOD, layers); then consecutive instances of one rig
// whose joints fit in `wg_models` are evaluated together in a pass: each lane reads a joint's
// rig data (rest pose, parent, inverse bind, bounds) once and applies it to every instance of
// the pass, and each depth level's barrier serves them all. The only per-joint global write is
// the 48-byte palette entry; the AABB is written once per instance, a root-motion world once
// per instance, and a rig with morph targets writes its weights after the joint entries. Twin
// of `evaluate_pose` in src/cpu/mod.rs (with `advance_root_motion` in src/cpu/root_motion.rs).

const WORKGROUP_SIZE: u32 = 16u;
// A rig index that never exists: the slot is skipped.
const NO_RIG: u32 = 0xffffffffu;

// The instances a workgroup evaluates, as their lanes read them: slot, rig (NO_RIG: not
// evaluated this frame), flags, the world after root motion, palette offset and joint LOD.
var<workgroup> wg_slot: array<u32, GROUP_INSTANCES>;
var<workgroup> wg_rig: array<u32, GROUP_INSTANCES>;
var<workgroup> wg_flags: array<u32, GROUP_INSTANCES>;
var<workgroup> wg_world: array<Mat3x4Rows, GROUP_INSTANCES>;
var<workgroup> wg_offset: array<u32, GROUP_INSTANCES>;
var<workgroup> wg_lod: array<u32, GROUP_INSTANCES>;
// Whether instance k's palette block lies in the bound window (`block_writable`), decided once.
var<workgroup> wg_writable: array<bool, GROUP_INSTANCES>;
// The pass in hand: its first instance, how many (0: none left) and their rig.
var<workgroup> wg_pass: vec3<u32>;

// Lane 0: the pass from instance `start` on: the next instance evaluated this frame and the
// following ones of the same rig whose joints fit in `wg_models` (PASS_JOINTS) together.
fn next_pass(start: u32) -> vec3<u32> {
    var first = start;
    while first < GROUP_INSTANCES && wg_rig[first] >= library.rig_count {
        first += 1u;
    }
    if first >= GROUP_INSTANCES {
        return vec3<u32>(GROUP_INSTANCES, 0u, NO_RIG);
    }
    let rig = wg_rig[first];
    let n = max(min(rigs[rig].joint_count, MAX_JOINTS), 1u);
    var count = 1u;
    while first + count < GROUP_INSTANCES && wg_rig[first + count] == rig
        && (count + 1u) * n <= PASS_JOINTS {
        count += 1u;
    }
    return vec3<u32>(first, count, rig);
}

// Whether instance `k` writes its palette block: it lies in the bound window, IK entries
// included.
fn block_writable(rig: RigDesc, k: u32) -> bool {
    let offset = wg_offset[k];
    let n = min(rig.joint_count, MAX_JOINTS);
    let morph_entries = (rig.weight_chunks + CHUNKS_PER_ENTRY - 1u) / CHUNKS_PER_ENTRY;
    return offset >= header.palette_base
        && offset - header.palette_base + n + morph_entries + rig.ik_count <= arrayLength(&palette);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn evaluate(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    // Stage 0: lane k takes entry k of the workgroup's GROUP_INSTANCES: a slot, or on an
    // indirect frame (HEADER_INDIRECT) a place in the slot list wgsl/lod_compact.wgsl
    // compacted. It reads the record, moves its world by root motion (stage 2b, writing it
    // back), decides whether it is evaluated this frame and at which joint LOD
    // (wgsl/lod.wgsl), resolves its layers at the frame time and empties its box. The records
    // are read_write, so what the barriers depend on reaches every lane through
    // workgroupUniformLoad.
    let index = (group.y * header.grid_width + group.x) * GROUP_INSTANCES;
    if lane < GROUP_INSTANCES {
        let k = lane;
        var rig_index = NO_RIG;
        var slot = NO_RIG;
        if index + k < header.instance_count {
            slot = lod_listed_slot(index + k);
        }
        if slot < header.instance_count && slot < arrayLength(&records) {
            rig_index = records[slot].rig;
            wg_flags[k] = records[slot].flags;
            if rig_index < library.rig_count {
                // Root motion moves the world every frame, evaluated or not (wgsl/lod.wgsl).
                wg_world[k] = advance_root_motion(rigs[rig_index], slot);
                let out = header.first_instance + slot;
                let culled = out < arrayLength(&bounds) && bounds[out].max.w == 1.0;
                let plan = lod_plan(slot, wg_flags[k], wg_world[k], culled);
                wg_lod[k] = plan.x;
                if plan.y == 0u {
                    rig_index = NO_RIG;
                } else {
                    wg_offset[k] = records[slot].palette_offset;
                    wg_writable[k] = block_writable(rigs[rig_index], k);
                    resolve_layers(k, slot);
                    prepare_layers(rigs[rig_index], k);
                    inertial_begin(k, slot, rigs[rig_index]);
                    bounds_begin(k);
                }
            } else {
                rig_index = NO_RIG;
            }
        }
        wg_slot[k] = slot;
        wg_rig[k] = rig_index;
    }
    workgroupBarrier();
    if lane == 0u {
        wg_pass = next_pass(0u);
    }
    var run = workgroupUniformLoad(&wg_pass);
    while run.y > 0u {
        evaluate_pass(rigs[run.z], run.x, run.y, lane);
        workgroupBarrier();
        if lane == 0u {
            wg_pass = next_pass(run.x + run.y);
        }
        run = workgroupUniformLoad(&wg_pass);
    }
}

// Instances `first`..`first + count - 1` of the workgroup, all of `rig`, their models at
// entries p x joint_count (p: place in the pass).
fn evaluate_pass(rig: RigDesc, first: u32, count: u32, lane: u32) {
    let n = min(rig.joint_count, MAX_JOINTS);

    // Motion vectors: the blocks' entries kept as the previous palette before they change
    // (wgsl/previous_palette.wgsl; a no-op without GpuOptions::previous_palette).
    keep_previous(rig, first, count, lane);

    // Stages 1 and 2: sample and blend each joint's layers, hold the root's motion if asked;
    // roots go under the world transform. Joints past an instance's `sampled` keep their rest
    // local transform (joint LOD).
    for (var j = lane; j < n; j += WORKGROUP_SIZE) {
        let rest = rest_pose(rig.joint_offset + j);
        let parent = pass_joint_begin(j, rig.joint_offset + j);
        for (var p = 0u; p < count; p++) {
            let k = first + p;
            var local = rest;
            inertial_capture(rig, k, j, rest);
            if j < lod_sampled(rig, wg_lod[k]) {
                let pose = inertial_joint(k, j, blend_joint(rig, k, j, rest));
                local = hold_root(rig, rest, wg_flags[k], j, pose);
            }
            begin_model(parent, p * n + j, sqt_to_affine(local), wg_world[k]);
        }
    }
    workgroupBarrier();
    // Stage 2d: the headers of blocks captured this frame, after every joint's capture.
    if lane < count {
        inertial_finish(first + lane);
    }

    // Stage 3: one depth level at a time (level 0, the roots, is done), every instance of the
    // pass at once.
    for (var level = 1u; level < rig.level_count; level++) {
        propagate_level(rig, level, count, lane, WORKGROUP_SIZE);
        workgroupBarrier();
    }

    // Stage 3b: IK, one constraint at a time: lane p solves it for instance p of the pass,
    // every lane turns the joints of the subtrees it moves. A rig without constraints skips the
    // loop. The block's IK entries (inputs the host writes) follow the morph weights.
    let morph_entries = (rig.weight_chunks + CHUNKS_PER_ENTRY - 1u) / CHUNKS_PER_ENTRY;
    for (var c = 0u; c < rig.ik_count; c++) {
        if lane < count {
            let k = first + lane;
            let goal = wg_offset[k] - header.palette_base + n + morph_entries + c;
            ik_solve(rig, c, wg_writable[k], goal, lane, lane * n);
        }
        workgroupBarrier();
        ik_apply(rig, count, lane, WORKGROUP_SIZE);
        workgroupBarrier();
    }

    // Stages 4 and 5: palette entries straight to global memory, bounds into workgroup atomics.
    // The inverse bind and joint-space bounds are read once per joint for the whole pass.
    var lo = array<vec3<f32>, GROUP_INSTANCES>();
    var hi = array<vec3<f32>, GROUP_INSTANCES>();
    for (var p = 0u; p < GROUP_INSTANCES; p++) {
        lo[p] = vec3<f32>(F32_MAX);
        hi[p] = vec3<f32>(-F32_MAX);
    }
    for (var j = lane; j < n; j += WORKGROUP_SIZE) {
        let inverse_bind = joints[rig.joint_offset + j].inverse_bind;
        let space = joint_space_bounds(rig.joint_offset + j, pass_bounded(j));
        for (var p = 0u; p < count; p++) {
            let k = first + p;
            let model = wg_models[p * n + j];
            if wg_writable[k] {
                palette[wg_offset[k] - header.palette_base + j] = skin_joint(model, inverse_bind);
            }
            let b = joint_bounds(space, model);
            lo[p] = min(lo[p], b.min.xyz);
            hi[p] = max(hi[p], b.max.xyz);
        }
    }
    for (var p = 0u; p < count; p++) {
        let k = first + p;
        bounds_merge(k, lo[p], hi[p]);
        // Stage 2c: the morph weights after the joint entries (the joint count is the rig's
        // here: a rig past MAX_JOINTS never bakes).
        if wg_writable[k] && n == rig.joint_count {
            write_morph_weights(rig, k, lane, wg_offset[k] - header.palette_base);
        }
    }
    workgroupBarrier();
    if lane < count {
        let k = first + lane;
        let out = header.first_instance + wg_slot[k];
        if out < arrayLength(&bounds) {
            // min.w: the joint LOD level the slot was evaluated at (what wgsl/lod.wgsl chose).
            var b = bounds_result(k);
            b.min.w = f32(wg_lod[k]);
            bounds[out] = b;
        }
    }
}

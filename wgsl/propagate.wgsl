// Stage 3, propagate: local transforms to model matrices, parent before child, one depth level
// at a time. Twin of src/baked/propagate.rs.

// The joint matrices of the instances a workgroup evaluates in one pass, instance k of the pass
// at entries k x joint_count..: local transforms until propagated, model matrices after
// (48 bytes x PASS_JOINTS: 12 KiB narrow, 24 KiB wide).
var<workgroup> wg_models: array<Mat3x4Rows, PASS_JOINTS>;
// Each joint of the pass's rig, read once per pass (stage 1): its parent (low 16 bits) for
// propagation and IK, which would otherwise read it again for every instance, and whether
// vertices follow it (PASS_BOUNDED) for the bounds (stage 5).
var<workgroup> wg_joints: array<u32, MAX_JOINTS>;
const PASS_BOUNDED: u32 = 0x10000u;

// Stage 1: keeps joint `j` (at `index` of the joint table) of the pass's rig in `wg_joints`
// and returns its parent.
fn pass_joint_begin(j: u32, index: u32) -> u32 {
    let parent = joints[index].parent;
    wg_joints[j] = parent | select(0u, PASS_BOUNDED, joints[index].has_bounds != 0u);
    return parent;
}

// The parent of joint `j` of the pass's rig.
fn pass_parent(j: u32) -> u32 {
    return wg_joints[j] & NO_PARENT;
}

// Whether vertices follow joint `j` of the pass's rig.
fn pass_bounded(j: u32) -> bool {
    return (wg_joints[j] & PASS_BOUNDED) != 0u;
}

// Turns the local transform of joint `joint` (parent `parent`) at entry `at` into its model
// matrix: `world x local` for a root, `local` for other joints until `propagate_level` reaches
// them.
fn begin_model(parent: u32, at: u32, local: Mat3x4Rows, world: Mat3x4Rows) {
    if parent == NO_PARENT {
        wg_models[at] = affine_mul(world, local);
    } else {
        wg_models[at] = local;
    }
}

// Joints of depth level `level` (>= 1) of the `count` instances of a pass, lane `lane` of the
// workgroup: model = parent's model x local. Their parents sit on the level above, already
// final. Lanes take (instance, joint) pairs, so one barrier per level serves every instance.
fn propagate_level(rig: RigDesc, level: u32, count: u32, lane: u32, lanes: u32) {
    let start = joints[rig.joint_offset + level].level_start;
    var end = rig.joint_count;
    if level + 1u < rig.level_count {
        end = joints[rig.joint_offset + level + 1u].level_start;
    }
    let width = end - start;
    let n = rig.joint_count;
    for (var item = lane; item < width * count; item += lanes) {
        let k = item / width;
        let j = start + item % width;
        let parent = pass_parent(j);
        if parent < j {
            wg_models[k * n + j] = affine_mul(wg_models[k * n + parent], wg_models[k * n + j]);
        }
    }
}

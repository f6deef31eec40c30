// Stage 3, propagate: local transforms to model matrices, parent before child, one depth level
// at a time. Twin of src/cpu/propagate.rs.

// The joint matrices of the instance a workgroup evaluates: local transforms until propagated,
// model matrices after (48 bytes x MAX_JOINTS = 12 KiB).
var<workgroup> wg_models: array<Mat3x4Rows, MAX_JOINTS>;

// Turns joint `joint`'s local transform into its model matrix: `world x local` for a root,
// `local` for other joints until `propagate_level` reaches them.
fn begin_model(rig: RigDesc, joint: u32, local: Mat3x4Rows, world: Mat3x4Rows) {
    if joints[rig.joint_offset + joint].parent == NO_PARENT {
        wg_models[joint] = affine_mul(world, local);
    } else {
        wg_models[joint] = local;
    }
}

// Joints of depth level `level` (>= 1), lane `lane` of the workgroup: model = parent's model x
// local. Their parents sit on the level above, already final.
fn propagate_level(rig: RigDesc, level: u32, lane: u32, lanes: u32) {
    let start = joints[rig.joint_offset + level].level_start;
    var end = rig.joint_count;
    if level + 1u < rig.level_count {
        end = joints[rig.joint_offset + level + 1u].level_start;
    }
    for (var j = start + lane; j < end; j += lanes) {
        let parent = joints[rig.joint_offset + j].parent;
        if parent < j {
            wg_models[j] = affine_mul(wg_models[parent], wg_models[j]);
        }
    }
}

// Motion vectors (GpuOptions::previous_palette): before an evaluated instance's palette block
// is overwritten, its joint and morph weight entries (the pose last shown, however many frames
// ago its update rate last evaluated it) are copied into `previous_palette`, the same window
// of a buffer parallel to the palette's, and its slot is stamped with the frame
// (`evaluated_at[slot] = frame + 1`). A skipped slot keeps its stamp, so a renderer reads the
// previous entries only where the stamp is the last evaluation's and the current ones
// otherwise (`sinew_previous_skin_*` in wgsl/render/skinning.wgsl). Only the pipeline of that
// option includes this file; the others include the empty `keep_previous` of
// src/gpu/shader.rs. Twin of `PreviousPalette::keep` in src/cpu/previous_palette.rs.

@group(2) @binding(0) var<storage, read_write> previous_palette: array<Mat3x4Rows>;
@group(2) @binding(1) var<storage, read_write> evaluated_at: array<u32>;

// Instances `first`..`first + count - 1` of the workgroup (a pass of `rig`): their joint and
// morph weight entries kept, their slots stamped, before any lane writes their blocks.
fn keep_previous(rig: RigDesc, first: u32, count: u32, lane: u32) {
    let n = min(rig.joint_count, MAX_JOINTS);
    var entries = n;
    if n == rig.joint_count {
        entries += (rig.weight_chunks + CHUNKS_PER_ENTRY - 1u) / CHUNKS_PER_ENTRY;
    }
    let kept = arrayLength(&previous_palette);
    for (var p = 0u; p < count; p++) {
        let k = first + p;
        if wg_writable[k] {
            let base = wg_offset[k] - header.palette_base;
            for (var e = lane; e < entries && base + e < kept; e += WORKGROUP_SIZE) {
                previous_palette[base + e] = palette[base + e];
            }
        }
    }
    if lane < count {
        let k = first + lane;
        let slot = header.slot_base + wg_slot[k];
        if wg_writable[k] && slot < arrayLength(&evaluated_at) {
            evaluated_at[slot] = header.frame + 1u;
        }
    }
    // The copies read what the skin stage's lanes are about to overwrite.
    storageBarrier();
}

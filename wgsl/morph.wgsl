// Stage 2c, morph weights: each instance's mesh-node weights, sampled per resolved layer (the
// clocks its joints use) and blended like joint translations, then written after the
// instance's joint entries in its palette block, 12 weights (3 chunks of 4) per entry. Twin of
// src/cpu/morph.rs.

const CHUNKS_PER_ENTRY: u32 = 3u;

// The blended weights of chunk `chunk` (4 consecutive weights) of `rig`: start from the
// defaults, then apply each resolved layer, bottom first, with its weight times the mask value
// of the chunk's mesh-node joint: override lerps toward the sample (takes it at weight >= 1),
// additive adds (sample - default) x weight.
fn blend_weight_chunk(rig: RigDesc, k: u32, chunk: u32) -> vec4<f32> {
    let rest = key_values[rig.value_offset + rig.morph_default_offset + chunk];
    let joint = u32(scalars[rig.morph_joint_offset + chunk]);
    var pose = rest;
    let count = wg_layer_count[k];
    for (var l = 0u; l < count; l++) {
        let i = k * MAX_LAYERS + l;
        let layer = wg_layers[i];
        let w = layer.weight * mask_weight(layer.flags, joint);
        if w <= 0.0 || layer.clip >= rig.clip_count {
            continue;
        }
        let sample = sample_layer_weights(rig, i, chunk, rest);
        if (layer.flags & LAYER_ADDITIVE) != 0u {
            pose = pose + (sample - rest) * w;
        } else if w >= 1.0 {
            pose = sample;
        } else {
            pose = lerp4(pose, sample, w);
        }
    }
    return pose;
}

// Lane `lane`'s share of the morph entries of instance k of the workgroup, of `rig`, whose
// block starts at `base` in the bound palette window: row k % 3 of entry joint_count + k / 3 holds chunk k; the
// rows of the last entry past the weights are zero.
fn write_morph_weights(rig: RigDesc, k: u32, lane: u32, base: u32) {
    let rows = (rig.weight_chunks + CHUNKS_PER_ENTRY - 1u) / CHUNKS_PER_ENTRY * CHUNKS_PER_ENTRY;
    for (var row = lane; row < rows; row += WORKGROUP_SIZE) {
        var value = vec4<f32>(0.0);
        if row < rig.weight_chunks {
            value = blend_weight_chunk(rig, k, row);
        }
        palette[base + rig.joint_count + row / CHUNKS_PER_ENTRY].rows[row % CHUNKS_PER_ENTRY] = value;
    }
}

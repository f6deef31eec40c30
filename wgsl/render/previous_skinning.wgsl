// sinew motion vectors: each vertex's skinned position as it was shown last frame (linear blend
// or dual-quaternion skinning, as the frame skinned it), for velocity targets (temporal anti-aliasing, motion blur). Include after the skinning snippet
// (wgsl/render/skinning.wgsl, whose `sinew_palette` it reads); every name starts with
// `sinew_`. It declares no binding: declare next to it, at the palette's window,
//     @group(G) @binding(P) var<storage, read> sinew_previous_palette: array<SinewBone>;
//     @group(G) @binding(S) var<storage, read> sinew_evaluated_at: array<u32>;
// or take them from `sinew::render::previous_skinning_wgsl(G, P, S)`. Bind the GPU backend's
// `previous_palette_segments()` like its palette (the same windows, the same offsets) and its
// `evaluated_at_buffer()` whole.
//
// `slot` is the instance's resident slot in the GPU backend (the index of its box), `stamp` the
// backend's `evaluated_stamp()` after the frame's evaluation. A slot the evaluation ran has the
// stamp: its previous pose is in the previous palette. Any other slot (skipped by its update
// rate, frozen, culled) still shows the pose it showed last frame: its current palette
// entries serve, and its skinned velocity is zero (camera motion stays in the previous
// view-projection the host applies).
//
// CPU twins: src/render/motion.rs.

// Palette entry `joint` of the instance (block at `offset`, as `sinew_bone`) as last shown.
fn sinew_previous_bone(slot: u32, stamp: u32, offset: u32, joint_count: u32, joint: u32) -> SinewBone {
    let entry = offset + min(joint, max(joint_count, 1u) - 1u);
    if (slot < arrayLength(&sinew_evaluated_at) && sinew_evaluated_at[slot] == stamp
        && entry < arrayLength(&sinew_previous_palette)) {
        return sinew_previous_palette[entry];
    }
    return sinew_palette[entry];
}

// The position `sinew_skin_linear` gave the vertex last frame: linear blend skinning by the
// previous bones (`sinew_previous_bone`). A vertex whose weights sum to zero is left as is.
fn sinew_previous_skinned_position(
    slot: u32,
    stamp: u32,
    offset: u32,
    joint_count: u32,
    influences: SinewInfluences,
    position: vec3<f32>,
) -> vec3<f32> {
    let w = sinew_weights(joint_count, influences);
    if (abs(w.total) < SINEW_MIN_WEIGHT_SUM) {
        return position;
    }
    var m = SinewBone(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < 8u; k++) {
        let wk = sinew_influence_weight(w.w0, w.w1, k);
        if (wk != 0.0) {
            let joint = sinew_influence_joint(influences, k);
            let b = sinew_previous_bone(slot, stamp, offset, joint_count, joint);
            m.row0 += b.row0 * wk;
            m.row1 += b.row1 * wk;
            m.row2 += b.row2 * wk;
        }
    }
    return sinew_transform_point(m, position);
}

// The position `sinew_skin_dual_quat` gave the vertex last frame: dual-quaternion skinning by
// the previous bones (`sinew_previous_bone`), in the same order. A vertex whose weights sum to
// zero is left as is.
fn sinew_previous_skinned_position_dual_quat(
    slot: u32,
    stamp: u32,
    offset: u32,
    joint_count: u32,
    influences: SinewInfluences,
    position: vec3<f32>,
) -> vec3<f32> {
    let w = sinew_weights(joint_count, influences);
    if (abs(w.total) < SINEW_MIN_WEIGHT_SUM) {
        return position;
    }
    let heaviest = sinew_influence_joint(influences, sinew_heaviest_influence(w.w0, w.w1));
    var sum = sinew_dual_quat_sum(sinew_previous_bone(slot, stamp, offset, joint_count, heaviest));
    for (var k = 0u; k < 8u; k++) {
        let wk = sinew_influence_weight(w.w0, w.w1, k);
        if (wk != 0.0) {
            let joint = sinew_influence_joint(influences, k);
            let b = sinew_previous_bone(slot, stamp, offset, joint_count, joint);
            sum = sinew_dual_quat_add(sum, b, wk);
        }
    }
    return sinew_dual_quat_apply(sum, w.total, position, vec3<f32>(0.0, 1.0, 0.0)).position;
}

// Screen-space velocity in normalized device coordinates: where the vertex is this frame minus
// where it was last frame, from its clip positions (current view-projection x current
// position, previous view-projection x previous position). x right, y up; half the NDC
// difference times the target size is pixels (y flipped for texel rows).
fn sinew_velocity_ndc(current_clip: vec4<f32>, previous_clip: vec4<f32>) -> vec2<f32> {
    return current_clip.xy / current_clip.w - previous_clip.xy / previous_clip.w;
}

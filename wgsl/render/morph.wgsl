// sinew morph targets, applied to a vertex before it is skinned: position += sum of w_i x dP_i,
// normal += sum of w_i x dN_i (skinning renormalizes the normal). For host vertex shaders as for
// sinew's own passes; assembled after skinning.wgsl, whose `sinew_morph_weight` reads the weights
// the evaluator wrote after the instance's joint entries in its palette block, 12 per entry.
//
// This file declares no binding. Declare the displacements next to it as
//     @group(G) @binding(B) var<storage, read> sinew_morph_deltas: array<f32>;
// laid out vertex-major as `sinew::render::pack_deltas` packs them: target t of vertex v of a
// mesh starts at `delta_base + (v * target_count + t) * 6` (dP.xyz, then dN.xyz), where
// `delta_base` is the mesh's first float in the buffer (0 for a buffer of one mesh).
// CPU twin: `morph_vertex` in src/render/morph.rs.

// The bind-space vertex `vertex` (its `position` and `normal`) of a mesh whose targets are the
// rig's morph weights `first_weight..first_weight + target_count`, with its targets applied at
// the weights of the instance whose palette block starts at `offset` (`joint_count` joint
// entries, then the weights). Targets with weight 0 are skipped.
fn sinew_morph_vertex(
    offset: u32,
    joint_count: u32,
    first_weight: u32,
    target_count: u32,
    delta_base: u32,
    vertex: u32,
    position: vec3<f32>,
    normal: vec3<f32>,
) -> SinewSkinned {
    var p = position;
    var n = normal;
    for (var t = 0u; t < target_count; t++) {
        let w = sinew_morph_weight(offset, joint_count, first_weight + t);
        if (w == 0.0) {
            continue;
        }
        let at = delta_base + (vertex * target_count + t) * 6u;
        if (at + 6u > arrayLength(&sinew_morph_deltas)) {
            break;
        }
        p += w * vec3<f32>(
            sinew_morph_deltas[at], sinew_morph_deltas[at + 1u], sinew_morph_deltas[at + 2u]);
        n += w * vec3<f32>(
            sinew_morph_deltas[at + 3u], sinew_morph_deltas[at + 4u], sinew_morph_deltas[at + 5u]);
    }
    return SinewSkinned(p, n);
}

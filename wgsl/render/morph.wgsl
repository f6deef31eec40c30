// Morph targets, applied to a vertex before it is skinned: position += sum of w_i x dP_i, normal
// += sum of w_i x dN_i (skinning renormalizes the normal). The weights are the ones the
// evaluator wrote after the instance's joint entries in its palette block, 12 per entry; the
// displacements of a batch's meshes share one buffer, vertex-major: target t of vertex v of a
// mesh starts at `morph_delta_offset + (v * morph_target_count + t) * 6` (dP.xyz, then dN.xyz).
// Assembled after layout.wgsl and skinning.wgsl (which reads the weights: `sinew_morph_weight`);
// the including pass declares `morph_deltas`.
// CPU twin: `morph_vertex` in src/render/morph.rs.

// The bind-space vertex `vertex` of the mesh `params` describes, with its morph targets applied
// at the instance's weights. Targets with weight 0 are skipped.
fn morph_vertex(
    offset: u32,
    joint_count: u32,
    params: MeshParams,
    vertex: u32,
    position: vec3<f32>,
    normal: vec3<f32>,
) -> SinewSkinned {
    var p = position;
    var n = normal;
    let count = params.morph_target_count;
    for (var t = 0u; t < count; t++) {
        let w = sinew_morph_weight(offset, joint_count, params.morph_first_weight + t);
        if (w == 0.0) {
            continue;
        }
        let at = params.morph_delta_offset + (vertex * count + t) * 6u;
        if (at + 6u > arrayLength(&morph_deltas)) {
            break;
        }
        p += w * vec3<f32>(morph_deltas[at], morph_deltas[at + 1u], morph_deltas[at + 2u]);
        n += w * vec3<f32>(morph_deltas[at + 3u], morph_deltas[at + 4u], morph_deltas[at + 5u]);
    }
    return SinewSkinned(p, n);
}

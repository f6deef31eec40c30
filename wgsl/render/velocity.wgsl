// The velocity pass: each visible instance of a skinned batch drawn into an Rg16Float target
// whose texels hold the screen-space velocity in normalized device coordinates, where the
// surface is this frame minus where it was last frame (x right, y up; `sinew_velocity_ndc`).
// Assembled after layout.wgsl, common.wgsl, skinning.wgsl (the palette at @group(1)
// @binding(0)), morph.wgsl, skinned.wgsl (the page's instances, visible list, mesh and morph
// displacements in group 1, as the main pass binds them) and previous_skinning.wgsl (the
// previous palette window at @group(3) @binding(0), the stamps at @group(3) @binding(1), these
// parameters at @group(3) @binding(2)); see
// src/render/shader.rs. CPU twin: src/render/velocity.rs.
//
// The vertex is morphed at the current weights (morph targets' own motion is not in the
// velocity), skinned with the current palette (linear blend, or dual quaternions under the
// main pass's `DUAL_QUATERNION` override, declared in skinned.wgsl) and projected with this
// frame's view-projection, then skinned the same way with the palette it showed last frame (`sinew_previous_skinned_position`: its
// slot is the page's first box plus its box index) and projected with last frame's. Both clip
// positions are interpolated and divided per fragment.

struct VelocityParams {
    view_proj: mat4x4<f32>,
    previous_view_proj: mat4x4<f32>,
    // The GPU backend's `evaluated_stamp()` after the frame's evaluation.
    stamp: u32,
    // The page's first box: an instance's resident slot is it plus the instance's
    // `aabb_index` (which is relative to the page's box window).
    slot_base: u32,
    pad0: u32,
    pad1: u32,
}

@group(3) @binding(2) var<uniform> velocity: VelocityParams;

struct VelocityVertex {
    @builtin(position) clip: vec4<f32>,
    @location(0) current: vec4<f32>,
    @location(1) previous: vec4<f32>,
}

@vertex
fn vs_velocity(
    v: SkinnedIn,
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) slot: u32,
) -> VelocityVertex {
    let i = drawn_instance(slot);
    if (i == NO_INSTANCE) {
        let away = vec4<f32>(2.0, 2.0, 2.0, 1.0);
        return VelocityVertex(away, away, away);
    }
    let inst = instances[i];
    let m = sinew_morph_vertex(
        inst.palette_offset,
        inst.joint_count,
        mesh.morph_first_weight,
        mesh.morph_target_count,
        mesh.morph_delta_offset,
        vertex,
        v.position,
        v.normal,
    );
    let influences = SinewInfluences(v.joints0, v.joints1, v.weights0, v.weights1);
    let slot_of_box = velocity.slot_base + inst.aabb_index;
    let offset = inst.palette_offset;
    var now: vec3<f32>;
    var then: vec3<f32>;
    if (DUAL_QUATERNION) {
        now = sinew_skin_dual_quat(offset, inst.joint_count, influences, m.position, m.normal).position;
        then = sinew_previous_skinned_position_dual_quat(slot_of_box, velocity.stamp, offset, inst.joint_count, influences, m.position);
    } else {
        now = sinew_skin_linear(offset, inst.joint_count, influences, m.position, m.normal).position;
        then = sinew_previous_skinned_position(slot_of_box, velocity.stamp, offset, inst.joint_count, influences, m.position);
    }
    let current = velocity.view_proj * vec4<f32>(now, 1.0);
    let previous = velocity.previous_view_proj * vec4<f32>(then, 1.0);
    return VelocityVertex(current, current, previous);
}

@fragment
fn fs_velocity(in: VelocityVertex) -> @location(0) vec2<f32> {
    return sinew_velocity_ndc(in.current, in.previous);
}

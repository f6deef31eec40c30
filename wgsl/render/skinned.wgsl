// The skinned render pass. Assembled after layout.wgsl, common.wgsl, skinning.wgsl (with the
// palette at @group(1) @binding(0)) and morph.wgsl; see src/render/shader.rs. Morph targets
// are applied before skinning.
//
// Instance `instance_index` of a draw is `instances[visible[instance_index]]`: `visible` is the
// compacted list the culling kernel writes (or every instance when culling is off). A draw
// covers one page of a batch: `instances`, `visible`, `preskinned` and the palette are that
// page's regions and window, and the instances' palette offsets are relative to the window. Vertices are
// skinned here, from the vertex buffer (`vs_skinned`, `vs_shadow_skinned`), or read from the
// buffer the pre-skinning kernel filled (`vs_preskinned`, `vs_shadow_preskinned`).

@group(1) @binding(1) var<storage, read> instances: array<SkinnedInstance>;
@group(1) @binding(2) var<storage, read> visible: array<u32>;
@group(1) @binding(3) var<uniform> mesh: MeshParams;
@group(1) @binding(4) var<storage, read> preskinned: array<PackedVertex>;
// The morph target displacements of the batch's meshes (see morph.wgsl).
@group(1) @binding(5) var<storage, read> sinew_morph_deltas: array<f32>;

// Dual-quaternion skinning instead of linear blend skinning (a pipeline variant).
override DUAL_QUATERNION: bool = false;

struct SkinnedIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Joints and weights 1-4, then 5-8 (`SkinnedVertex` in src/render/layout.rs).
    @location(2) joints0: vec4<u32>,
    @location(3) weights0: vec4<f32>,
    @location(4) joints1: vec4<u32>,
    @location(5) weights1: vec4<f32>,
}

const NO_INSTANCE: u32 = 0xffffffffu;

// The instance drawn as `slot`, or NO_INSTANCE when `slot` or the index it holds is out of
// range: the bounds guard of the vertex stage.
fn drawn_instance(slot: u32) -> u32 {
    if (slot >= arrayLength(&visible)) {
        return NO_INSTANCE;
    }
    let i = visible[slot];
    if (i >= arrayLength(&instances)) {
        return NO_INSTANCE;
    }
    return i;
}

// Vertex `vertex` morphed, then skinned.
fn skin_vertex(inst: SkinnedInstance, v: SkinnedIn, vertex: u32) -> SinewSkinned {
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
    if (DUAL_QUATERNION) {
        return sinew_skin_dual_quat(inst.palette_offset, inst.joint_count, influences, m.position, m.normal);
    }
    return sinew_skin_linear(inst.palette_offset, inst.joint_count, influences, m.position, m.normal);
}

// The pre-skinned vertex `vertex` of instance `i`, or false in `found` when out of range.
struct Preskinned {
    position: vec3<f32>,
    normal: vec3<f32>,
    found: bool,
}

fn fetch_preskinned(i: u32, vertex: u32) -> Preskinned {
    let index = i * mesh.vertex_count + vertex;
    if (vertex >= mesh.vertex_count || index >= arrayLength(&preskinned)) {
        return Preskinned(vec3<f32>(0.0), vec3<f32>(0.0, 1.0, 0.0), false);
    }
    let p = preskinned[index];
    return Preskinned(vec3<f32>(p.px, p.py, p.pz), vec3<f32>(p.nx, p.ny, p.nz), true);
}

fn instance_color(inst: SkinnedInstance) -> vec4<f32> {
    return vec4<f32>(inst.color.rgb * mesh.color.rgb, 1.0);
}

@vertex
fn vs_skinned(
    v: SkinnedIn,
    m: MaterialIn,
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) slot: u32,
) -> MaterialVertex {
    let i = drawn_instance(slot);
    if (i == NO_INSTANCE) {
        return offscreen_material_vertex();
    }
    let inst = instances[i];
    let s = skin_vertex(inst, v, vertex);
    // The tangent turns with the skin as a direction does: skinned as a normal is, at the
    // vertex's bind position (morph targets do not move tangents here).
    var tangent = vec3<f32>(0.0);
    if (material.alpha_texture_normal.z != 0.0) {
        let influences = SinewInfluences(v.joints0, v.joints1, v.weights0, v.weights1);
        if (DUAL_QUATERNION) {
            tangent = sinew_skin_dual_quat(inst.palette_offset, inst.joint_count, influences, v.position, m.tangent.xyz).normal;
        } else {
            tangent = sinew_skin_linear(inst.palette_offset, inst.joint_count, influences, v.position, m.tangent.xyz).normal;
        }
    }
    return material_vertex(s.position, s.normal, material_color(inst, m), m, tangent);
}

@vertex
fn vs_preskinned(
    m: MaterialIn,
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) slot: u32,
) -> MaterialVertex {
    let i = drawn_instance(slot);
    if (i == NO_INSTANCE) {
        return offscreen_material_vertex();
    }
    let p = fetch_preskinned(i, vertex);
    if (!p.found) {
        return offscreen_material_vertex();
    }
    // No skinned tangent here: the normal map is not applied (see src/render/materials.rs).
    return material_vertex(p.position, p.normal, material_color(instances[i], m), m, vec3<f32>(0.0));
}

@vertex
fn vs_shadow_skinned(
    v: SkinnedIn,
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) slot: u32,
) -> @builtin(position) vec4<f32> {
    let i = drawn_instance(slot);
    if (i == NO_INSTANCE) {
        return OFFSCREEN;
    }
    let s = skin_vertex(instances[i], v, vertex);
    return frame.light_view_proj * vec4<f32>(s.position, 1.0);
}

@vertex
fn vs_shadow_preskinned(
    @builtin(vertex_index) vertex: u32,
    @builtin(instance_index) slot: u32,
) -> @builtin(position) vec4<f32> {
    let i = drawn_instance(slot);
    if (i == NO_INSTANCE) {
        return OFFSCREEN;
    }
    let p = fetch_preskinned(i, vertex);
    if (!p.found) {
        return OFFSCREEN;
    }
    return frame.light_view_proj * vec4<f32>(p.position, 1.0);
}

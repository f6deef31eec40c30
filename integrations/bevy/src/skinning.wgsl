// sinew_bevy's vertex shader for `ExtendedMaterial<StandardMaterial, SinewSkinning>`, in the
// main passes and the prepasses (shadows included): the vertex is skinned from sinew's palette
// (one block per character, at the entity's `MeshTag`), then handed to Bevy's PBR fragment
// stage as its own vertex shader would. The palette entries include the character's world
// transform; the mesh entity's own transform (identity when spawned by the plugin) applies on
// top. sinew's skinning and morph functions (`SinewBone`, `sinew_bone`, `sinew_morph_vertex`,
// ...) are appended at load time.

#import bevy_pbr::{mesh_bindings, mesh_functions, view_transformations::position_world_to_clip}
#ifdef PREPASS_PIPELINE
#import bevy_pbr::prepass_io::{Vertex, VertexOutput}
#else
#import bevy_pbr::forward_io::{Vertex, VertexOutput}
#endif

@group(#{MATERIAL_BIND_GROUP}) @binding(100) var<storage, read> sinew_palette: array<SinewBone>;
// x: palette entries per character that are joints (the bounds guard of joint indices).
@group(#{MATERIAL_BIND_GROUP}) @binding(101) var<uniform> sinew_rig: vec4<u32>;
// The mesh's morph displacements, as `sinew::render::pack_deltas` lays them out (read by
// sinew's `sinew_morph_vertex`).
@group(#{MATERIAL_BIND_GROUP}) @binding(102) var<storage, read> sinew_morph_deltas: array<f32>;

struct SinewVertexSkin {
    @location(10) joints0: vec4<u32>,
    @location(11) weights0: vec4<f32>,
    @location(12) joints1: vec4<u32>,
    @location(13) weights1: vec4<f32>,
    @builtin(vertex_index) vertex_index: u32,
}

// The weighted sum of the influences' palette entries as a 4x4 matrix (identity for a vertex
// whose in-range weights sum to zero).
fn sinew_skin_matrix(offset: u32, joint_count: u32, skin: SinewVertexSkin) -> mat4x4<f32> {
    let influences = SinewInfluences(skin.joints0, skin.joints1, skin.weights0, skin.weights1);
    let w0 = sinew_guard_weights(joint_count, skin.joints0, skin.weights0);
    let w1 = sinew_guard_weights(joint_count, skin.joints1, skin.weights1);
    if (abs(dot(w0, vec4<f32>(1.0)) + dot(w1, vec4<f32>(1.0))) < SINEW_MIN_WEIGHT_SUM) {
        return mat4x4<f32>(
            vec4<f32>(1.0, 0.0, 0.0, 0.0),
            vec4<f32>(0.0, 1.0, 0.0, 0.0),
            vec4<f32>(0.0, 0.0, 1.0, 0.0),
            vec4<f32>(0.0, 0.0, 0.0, 1.0),
        );
    }
    let m = sinew_blend_bones(offset, joint_count, influences, w0, w1);
    return mat4x4<f32>(
        vec4<f32>(m.row0.x, m.row1.x, m.row2.x, 0.0),
        vec4<f32>(m.row0.y, m.row1.y, m.row2.y, 0.0),
        vec4<f32>(m.row0.z, m.row1.z, m.row2.z, 0.0),
        vec4<f32>(m.row0.w, m.row1.w, m.row2.w, 1.0),
    );
}

// A normal through `m`: its cofactor matrix (determinant x inverse transpose), sign-corrected
// for mirroring matrices, so scaled joints keep normals perpendicular to their surfaces.
fn sinew_normal_to_world(m: mat4x4<f32>, n: vec3<f32>) -> vec3<f32> {
    let a = m[0].xyz;
    let b = m[1].xyz;
    let c = m[2].xyz;
    let cof = cross(b, c) * n.x + cross(c, a) * n.y + cross(a, b) * n.z;
    let s = select(1.0, -1.0, dot(a, cross(b, c)) < 0.0);
    return sinew_normalize_or(cof * s, vec3<f32>(0.0, 1.0, 0.0));
}

@vertex
fn vertex(vertex: Vertex, skin: SinewVertexSkin) -> VertexOutput {
    var out: VertexOutput;
    let offset = mesh_functions::get_tag(vertex.instance_index);
    let mesh_world_from_local = mesh_functions::get_world_from_local(vertex.instance_index);
    let world_from_local = mesh_world_from_local * sinew_skin_matrix(offset, sinew_rig.x, skin);
    // The vertex's index in its mesh: Bevy packs meshes into shared buffers.
    let local_vertex = skin.vertex_index - mesh_bindings::mesh[vertex.instance_index].first_vertex_index;
#ifdef VERTEX_NORMALS
    let bind_normal = vertex.normal;
#else
    let bind_normal = vec3<f32>(0.0);
#endif
    let morphed = sinew_morph_vertex(
        offset, sinew_rig.x, sinew_rig.y, sinew_rig.z, 0u, local_vertex, vertex.position, bind_normal);
    let position = morphed.position;

    out.world_position = world_from_local * vec4<f32>(position, 1.0);
    out.position = position_world_to_clip(out.world_position.xyz);

#ifdef PREPASS_PIPELINE
#ifdef UNCLIPPED_DEPTH_ORTHO_EMULATION
    out.unclipped_depth = out.position.z;
    out.position.z = min(out.position.z, 1.0);
#endif
#ifdef MOTION_VECTOR_PREPASS
    // The previous frame's palette is not kept: skinned motion vectors are left out.
    out.previous_world_position = out.world_position;
#endif
#endif
    // Prepasses define these only when they output normals, as their vertex and output
    // structs hold them.
#ifdef VERTEX_NORMALS
    out.world_normal = sinew_normal_to_world(world_from_local, morphed.normal);
#endif
#ifdef VERTEX_TANGENTS
    out.world_tangent = mesh_functions::mesh_tangent_local_to_world(
        world_from_local, vertex.tangent, vertex.instance_index);
#endif

#ifdef VERTEX_UVS_A
    out.uv = vertex.uv;
#endif
#ifdef VERTEX_UVS_B
    out.uv_b = vertex.uv_b;
#endif
#ifdef VERTEX_COLORS
    out.color = vertex.color;
#endif
#ifdef VERTEX_OUTPUT_INSTANCE_INDEX
    out.instance_index = vertex.instance_index;
#endif
#ifdef VISIBILITY_RANGE_DITHER
    out.visibility_range_dither = mesh_functions::get_visibility_range_dither_level(
        vertex.instance_index, mesh_world_from_local[3]);
#endif
    return out;
}

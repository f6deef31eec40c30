// Compute pre-skinning: skins every vertex of one mesh for every instance of a page of a batch
// once per frame into `skinned` (the page's region, instance-major: entry
// `instance * vertex_count + vertex`), which the shadow and main passes then read instead of
// skinning again, morph targets applied first. Palette offsets are relative to the page's
// palette window. Assembled after layout.wgsl, skinning.wgsl (with the palette at @group(0)
// @binding(0)) and morph.wgsl.

@group(0) @binding(1) var<storage, read> instances: array<SkinnedInstance>;
@group(0) @binding(2) var<storage, read> vertices: array<PackedSkinnedVertex>;
@group(0) @binding(3) var<uniform> params: PreskinParams;
@group(0) @binding(4) var<storage, read_write> skinned: array<PackedVertex>;
// The morph target displacements of the batch's meshes, and this mesh's parameters (see
// morph.wgsl).
@group(0) @binding(5) var<storage, read> sinew_morph_deltas: array<f32>;
@group(0) @binding(6) var<uniform> mesh: MeshParams;

// Dual-quaternion skinning instead of linear blend skinning (a pipeline variant).
override DUAL_QUATERNION: bool = false;

const WORKGROUP_SIZE: u32 = 64u;

@compute @workgroup_size(64)
fn preskin(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let index = (group.y * params.grid_width + group.x) * WORKGROUP_SIZE + lane;
    if (params.vertex_count == 0u) {
        return;
    }
    let inst = index / params.vertex_count;
    let vertex = index % params.vertex_count;
    if (inst >= params.instance_count || inst >= arrayLength(&instances)
        || vertex >= arrayLength(&vertices) || index >= arrayLength(&skinned)) {
        return;
    }
    let v = vertices[vertex];
    let j = v.joints;
    let influences = SinewInfluences(
        vec4<u32>(j[0] & 0xffffu, j[0] >> 16u, j[1] & 0xffffu, j[1] >> 16u),
        vec4<u32>(j[2] & 0xffffu, j[2] >> 16u, j[3] & 0xffffu, j[3] >> 16u),
        vec4<f32>(v.weights[0], v.weights[1], v.weights[2], v.weights[3]),
        vec4<f32>(v.weights[4], v.weights[5], v.weights[6], v.weights[7]),
    );
    let record = instances[inst];
    let m = sinew_morph_vertex(
        record.palette_offset,
        record.joint_count,
        mesh.morph_first_weight,
        mesh.morph_target_count,
        mesh.morph_delta_offset,
        vertex,
        vec3<f32>(v.px, v.py, v.pz),
        vec3<f32>(v.nx, v.ny, v.nz),
    );
    let position = m.position;
    let normal = m.normal;
    var s: SinewSkinned;
    if (DUAL_QUATERNION) {
        s = sinew_skin_dual_quat(record.palette_offset, record.joint_count, influences, position, normal);
    } else {
        s = sinew_skin_linear(record.palette_offset, record.joint_count, influences, position, normal);
    }
    skinned[index] = PackedVertex(s.position.x, s.position.y, s.position.z, s.normal.x, s.normal.y, s.normal.z);
}

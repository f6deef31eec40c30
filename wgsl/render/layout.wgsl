// Structs the render passes share with Rust.
//
// Keep in sync with the Rust twins in src/render/layout.rs (`FrameUniforms`, `SkinnedInstance`,
// `MeshParams`, `StaticVertex` as `PackedVertex`, `SkinnedVertex` as `PackedSkinnedVertex`,
// `StaticInstance`, `CullParams`, `DrawIndexedArgs` as `DrawArgs`, `PreskinParams`,
// `BoneParams`, `SortParams`), `MaterialParams` in src/render/materials.rs and `Aabb` in src/math/aabb.rs. A unit test in src/render/layout.rs
// parses this file with naga and compares every member offset and struct size with Rust.

// Per frame and render target: camera, light and shadow settings.
struct FrameUniforms {
    view_proj: mat4x4<f32>,
    light_view_proj: mat4x4<f32>,
    // xyz: the direction light travels in (unit length); w: unused.
    light_direction: vec4<f32>,
    // rgb: light colour times intensity; w: unused.
    light_color: vec4<f32>,
    // rgb: ambient colour; w: unused.
    ambient_color: vec4<f32>,
    // x: 1 when the shadow map is valid, y: depth bias, z: one shadow-map texel in uv, w: unused.
    shadow: vec4<f32>,
    // xyz: the camera's position (the eye of specular highlights); w: unused.
    camera_position: vec4<f32>,
}

// A material of the skinned main pass (wgsl/render/material.wgsl).
struct MaterialParams {
    base_color: vec4<f32>,
    // x: alpha cutoff (negative: no mask), y: base colour texture, z: normal map, w: its scale.
    alpha_texture_normal: vec4<f32>,
    // x: base colour UV set, y: normal map UV set, z: vertex colours, w: 1 when the material
    // replaces the mesh colour (and shades with the metallic-roughness BRDF).
    sets: vec4<u32>,
    // x: metallic, y: roughness, z: occlusion strength, w: unused.
    metallic_roughness: vec4<f32>,
    // rgb: emissive factor; w: unused.
    emissive: vec4<f32>,
    // 1 where the material has the texture: x metallic-roughness, y occlusion, z emissive.
    textures: vec4<u32>,
    // The UV sets of those textures.
    texture_sets: vec4<u32>,
}

// One drawn skinned instance, as a page of a batch stores it: the offsets are relative to the
// palette and AABB windows the page binds.
struct SkinnedInstance {
    // First palette entry of the instance in the bound palette window.
    palette_offset: u32,
    // Joint entries of the instance's palette block (the rig's joint count); joints at or past
    // it are ignored, and the morph weights follow them.
    joint_count: u32,
    // Index of the instance's animated box in the bound AABB window.
    aabb_index: u32,
    pad: u32,
    // Base colour (linear rgb, a unused), multiplied with the mesh colour.
    color: vec4<f32>,
}

// One skinned mesh of a batch.
struct MeshParams {
    // Base colour (linear rgb, a unused).
    color: vec4<f32>,
    // Vertices of the mesh: the stride of one instance in the pre-skinned buffer.
    vertex_count: u32,
    // Morph targets: the weight of target 0 in the instance's weight vector, the target count
    // (0: none) and the first float of the mesh's displacements in the batch's morph buffer.
    morph_first_weight: u32,
    morph_target_count: u32,
    morph_delta_offset: u32,
}

// A static (or pre-skinned) vertex. Plain f32 members: 4-byte aligned, 24 bytes.
struct PackedVertex {
    px: f32,
    py: f32,
    pz: f32,
    nx: f32,
    ny: f32,
    nz: f32,
}

// A skinned vertex as the pre-skinning kernel reads it from the vertex buffer: 72 bytes.
struct PackedSkinnedVertex {
    px: f32,
    py: f32,
    pz: f32,
    nx: f32,
    ny: f32,
    nz: f32,
    // Eight joint indices as little-endian u16 pairs: joints[i] = j(2i) | j(2i + 1) << 16.
    joints: array<u32, 4>,
    // Their weights (slots 5-8 zero for a vertex with four influences or fewer).
    weights: array<f32, 8>,
}

// One instance of a static mesh: its world transform as three rows, and a colour.
struct StaticInstance {
    row0: vec4<f32>,
    row1: vec4<f32>,
    row2: vec4<f32>,
    color: vec4<f32>,
}

// An animated bounding box (`Aabb` in src/math/aabb.rs); empty when min > max.
struct Aabb {
    min: vec4<f32>,
    max: vec4<f32>,
}

// The culling kernel's inputs.
struct CullParams {
    // Camera frustum planes (xyz normal pointing inside, w distance): left, right, bottom, top,
    // near, far. They fill the camera's list (the main pass).
    planes: array<vec4<f32>, 6>,
    // The light's (shadow map's) frustum planes, same order: the light's list (the shadow pass).
    light_planes: array<vec4<f32>, 6>,
    instance_count: u32,
    // Indirect draws fed by the kernel per list: one per mesh of the batch.
    draw_count: u32,
    // Workgroups per row of the 2D dispatch grid.
    grid_width: u32,
    // 1 to fill the light's list too, 0 to leave it empty.
    light_list: u32,
}

// `wgpu::util::DrawIndexedIndirectArgs`, with the instance count counted up atomically.
struct DrawArgs {
    index_count: u32,
    instance_count: atomic<u32>,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

// The pre-skinning kernel's inputs.
struct PreskinParams {
    vertex_count: u32,
    instance_count: u32,
    // Workgroups per row of the 2D dispatch grid.
    grid_width: u32,
    pad: u32,
}

// The bone overlay of one instance.
struct BoneParams {
    // First palette entry of the instance in the bound palette window.
    palette_offset: u32,
    joint_count: u32,
    bone_count: u32,
    pad: u32,
    color: vec4<f32>,
}

// One pass of the back-to-front sort of a page's camera list (wgsl/render/sort.wgsl).
struct SortParams {
    // The camera's unit view direction (xyz) and -dot(direction, eye) (w): a point's depth in
    // front of the camera is dot(xyz, p) + w.
    view_depth: vec4<f32>,
    // Entries sorted: a power of two at least the page's instance count.
    size: u32,
    // Instances of the page.
    instance_count: u32,
    // Workgroups per row of the 2D dispatch grid.
    grid_width: u32,
    // The bitonic pass's block size and compare distance (`sort_step` only).
    k: u32,
    j: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// The wireframe of the skinned main pass (src/render/wire_pass.rs). Assembled after
// material.wgsl: the line-list pipelines run the skinned pass's own vertex stages
// (`vs_skinned`, `vs_preskinned`) over each mesh's edges, so a line follows the pose exactly as
// the filled triangles would; the fragment draws it unlit, in the vertex's material colour
// (base colour and instance tint) lifted toward white so dark meshes stay visible.

@fragment
fn fs_wire(v: MaterialVertex) -> @location(0) vec4<f32> {
    return vec4<f32>(mix(v.color.rgb, vec3<f32>(1.0), 0.35), 1.0);
}

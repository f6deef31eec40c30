// The bone overlay: one line from each joint to its parent, drawn over the shaded character.
// Assembled after layout.wgsl, common.wgsl and skinning.wgsl (with the palette at
// @group(1) @binding(0)).
//
// A joint's model-space origin is its palette entry applied to its bind-space origin (the
// translation of the inverse of its inverse bind matrix), so the overlay reads the same palette
// buffer the skinned pass does and needs no joint readback.

@group(1) @binding(1) var<storage, read> bones: array<vec2<u32>>;
@group(1) @binding(2) var<storage, read> bind_origins: array<vec4<f32>>;
@group(1) @binding(3) var<uniform> overlay: BoneParams;

struct BoneVertex {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_bones(@builtin(vertex_index) vertex: u32) -> BoneVertex {
    let b = vertex / 2u;
    if (b >= overlay.bone_count || b >= arrayLength(&bones)) {
        return BoneVertex(OFFSCREEN, vec4<f32>(0.0));
    }
    let pair = bones[b];
    let joint = select(pair.x, pair.y, (vertex & 1u) == 1u);
    if (joint >= overlay.joint_count || joint >= arrayLength(&bind_origins)) {
        return BoneVertex(OFFSCREEN, vec4<f32>(0.0));
    }
    let bone = sinew_palette[overlay.palette_offset + joint];
    let world = sinew_transform_point(bone, bind_origins[joint].xyz);
    return BoneVertex(frame.view_proj * vec4<f32>(world, 1.0), overlay.color);
}

@fragment
fn fs_bones(v: BoneVertex) -> @location(0) vec4<f32> {
    return v.color;
}

// The static (unskinned) mesh pass. Assembled after layout.wgsl and common.wgsl.
//
// Static vertices carry a position and a normal only; each instance has a world transform
// (three rows) and a colour.

@group(1) @binding(0) var<storage, read> static_instances: array<StaticInstance>;

struct StaticIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
}

fn static_world(inst: StaticInstance, p: vec3<f32>) -> vec3<f32> {
    let h = vec4<f32>(p, 1.0);
    return vec3<f32>(dot(inst.row0, h), dot(inst.row1, h), dot(inst.row2, h));
}

// The normal through the cofactor matrix of the 3x3 part (the inverse transpose up to scale),
// exact under non-uniform scale.
fn static_normal(inst: StaticInstance, n: vec3<f32>) -> vec3<f32> {
    let c0 = vec3<f32>(inst.row0.x, inst.row1.x, inst.row2.x);
    let c1 = vec3<f32>(inst.row0.y, inst.row1.y, inst.row2.y);
    let c2 = vec3<f32>(inst.row0.z, inst.row1.z, inst.row2.z);
    return cross(c1, c2) * n.x + cross(c2, c0) * n.y + cross(c0, c1) * n.z;
}

@vertex
fn vs_static(v: StaticIn, @builtin(instance_index) i: u32) -> LitVertex {
    if (i >= arrayLength(&static_instances)) {
        return offscreen_vertex();
    }
    let inst = static_instances[i];
    return lit_vertex(static_world(inst, v.position), static_normal(inst, v.normal), inst.color);
}

@vertex
fn vs_shadow_static(v: StaticIn, @builtin(instance_index) i: u32) -> @builtin(position) vec4<f32> {
    if (i >= arrayLength(&static_instances)) {
        return OFFSCREEN;
    }
    let world = static_world(static_instances[i], v.position);
    return frame.light_view_proj * vec4<f32>(world, 1.0);
}

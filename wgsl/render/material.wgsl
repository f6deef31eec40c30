// Materials of the skinned main pass. Assembled after brdf.wgsl and skinned.wgsl (see
// src/render/shader.rs); `MaterialParams` is in layout.wgsl; keep `MaterialIn` in sync with
// src/render/materials.rs.
//
// The vertex stage multiplies the base colour factor, the vertex colour and the instance tint
// (or, with the neutral material, the batch's mesh colour and the tint); the fragment stage
// multiplies the base colour texture, discards below the alpha cutoff, bends the normal by the
// normal map in the tangent frame, and shades with the metallic-roughness BRDF (brdf.wgsl:
// metallic and roughness factors times the metallic-roughness texture's blue and green,
// occlusion on the ambient light, emission added); the neutral material keeps the Lambert
// light of `shade`. `fs_material_blended` keeps the alpha of `BLEND` materials for the
// blended pipelines.

@group(2) @binding(0) var<uniform> material: MaterialParams;
@group(2) @binding(1) var base_color_texture: texture_2d<f32>;
@group(2) @binding(2) var base_color_sampler: sampler;
@group(2) @binding(3) var normal_texture: texture_2d<f32>;
@group(2) @binding(4) var normal_sampler: sampler;
@group(2) @binding(5) var metallic_roughness_texture: texture_2d<f32>;
@group(2) @binding(6) var metallic_roughness_sampler: sampler;
@group(2) @binding(7) var occlusion_texture: texture_2d<f32>;
@group(2) @binding(8) var occlusion_sampler: sampler;
@group(2) @binding(9) var emissive_texture: texture_2d<f32>;
@group(2) @binding(10) var emissive_sampler: sampler;

// Per-vertex material streams (`MaterialVertex`).
struct MaterialIn {
    @location(6) uv0: vec2<f32>,
    @location(7) uv1: vec2<f32>,
    @location(8) color: vec4<f32>,
    @location(9) tangent: vec4<f32>,
}

// A lit vertex with what the material reads.
struct MaterialVertex {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
    @location(3) uv0: vec2<f32>,
    @location(4) uv1: vec2<f32>,
    @location(5) tangent: vec4<f32>,
}

fn offscreen_material_vertex() -> MaterialVertex {
    return MaterialVertex(OFFSCREEN, vec3<f32>(0.0), vec3<f32>(0.0, 1.0, 0.0), vec4<f32>(0.0),
        vec2<f32>(0.0), vec2<f32>(0.0), vec4<f32>(0.0));
}

// The base colour of a vertex of `inst`: the material's factor (times the vertex colour) and
// the instance tint, or the neutral material's mesh colour and tint.
fn material_color(inst: SkinnedInstance, m: MaterialIn) -> vec4<f32> {
    if (material.sets.w == 0u) {
        return instance_color(inst);
    }
    var c = material.base_color * vec4<f32>(inst.color.rgb, 1.0);
    if (material.sets.z != 0u) {
        c = c * m.color;
    }
    return c;
}

fn material_vertex(
    world: vec3<f32>,
    normal: vec3<f32>,
    color: vec4<f32>,
    m: MaterialIn,
    tangent: vec3<f32>,
) -> MaterialVertex {
    return MaterialVertex(frame.view_proj * vec4<f32>(world, 1.0), world, normal, color, m.uv0,
        m.uv1, vec4<f32>(tangent, m.tangent.w));
}

fn uv_set(v: MaterialVertex, which: u32) -> vec2<f32> {
    return select(v.uv0, v.uv1, which == 1u);
}

// The lit colour of `v` and its alpha (below a mask's cutoff: discarded).
fn material_fragment(v: MaterialVertex, front: bool) -> vec4<f32> {
    var color = v.color;
    if (material.alpha_texture_normal.y != 0.0) {
        color = color * textureSample(base_color_texture, base_color_sampler, uv_set(v, material.sets.x));
    }
    if (material.alpha_texture_normal.x >= 0.0 && color.a < material.alpha_texture_normal.x) {
        discard;
    }
    var n = normalize_or_up(v.normal);
    if (material.alpha_texture_normal.z != 0.0) {
        let mapped = textureSample(normal_texture, normal_sampler, uv_set(v, material.sets.y)).xyz;
        let t_raw = v.tangent.xyz - n * dot(n, v.tangent.xyz);
        if (dot(t_raw, t_raw) > 1e-12) {
            let t = normalize(t_raw);
            let b = cross(n, t) * select(1.0, -1.0, v.tangent.w < 0.0);
            let s = material.alpha_texture_normal.w;
            let local = (mapped * 2.0 - 1.0) * vec3<f32>(s, s, 1.0);
            n = normalize_or_up(t * local.x + b * local.y + n * local.z);
        }
    }
    n = select(-n, n, front);
    if (material.sets.w == 0u) {
        return vec4<f32>(shade(color.rgb, v.world, n), color.a);
    }
    var surface = PbrSurface(color.rgb, material.metallic_roughness.x,
        material.metallic_roughness.y, 1.0, material.emissive.rgb);
    if (material.textures.x != 0u) {
        let mr = textureSample(metallic_roughness_texture, metallic_roughness_sampler,
            uv_set(v, material.texture_sets.x));
        surface.roughness *= mr.g;
        surface.metallic *= mr.b;
    }
    if (material.textures.y != 0u) {
        let o = textureSample(occlusion_texture, occlusion_sampler,
            uv_set(v, material.texture_sets.y)).r;
        surface.occlusion = 1.0 + material.metallic_roughness.z * (o - 1.0);
    }
    if (material.textures.z != 0u) {
        surface.emissive *= textureSample(emissive_texture, emissive_sampler,
            uv_set(v, material.texture_sets.z)).rgb;
    }
    return vec4<f32>(shade_pbr(surface, v.world, n), color.a);
}

// The metallic-roughness shading of `s` at `world` with unit normal `n`: the directional light
// (shadowed), the ambient term (occluded) and the emission. CPU twin: `shade_pbr` in
// src/render/brdf.rs (with full shadow visibility).
fn shade_pbr(s: PbrSurface, world: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let v = normalize_or_up(frame.camera_position.xyz - world);
    let l = -frame.light_direction.xyz;
    let direct = frame.light_color.rgb * brdf_direct(s, n, l, v) * shadow_visibility(world);
    return direct + brdf_ambient(s, frame.ambient_color.rgb) + s.emissive;
}

@fragment
fn fs_material(v: MaterialVertex, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    return vec4<f32>(material_fragment(v, front).rgb, 1.0);
}

// `BLEND` materials: the alpha goes to the pipeline's blend state.
@fragment
fn fs_material_blended(
    v: MaterialVertex,
    @builtin(front_facing) front: bool,
) -> @location(0) vec4<f32> {
    return material_fragment(v, front);
}

// What every lit render pass shares: the frame bindings (camera, light, shadow map) and the
// shading. Prepended to skinned.wgsl, static.wgsl and bones.wgsl after layout.wgsl.
//
// Group 0 of the main pass binds all three; the shadow pass binds only `frame`, and its entry
// points read nothing else.

@group(0) @binding(0) var<uniform> frame: FrameUniforms;
@group(0) @binding(1) var shadow_map: texture_depth_2d;
@group(0) @binding(2) var shadow_sampler: sampler_comparison;

// A lit vertex: clip position, world position and normal, flat base colour.
struct LitVertex {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
}

// A clip position outside the view volume: what the vertex stage emits for an instance that
// fails its bounds guard, so the triangle is clipped away.
const OFFSCREEN: vec4<f32> = vec4<f32>(0.0, 0.0, -2.0, 1.0);

fn lit_vertex(world: vec3<f32>, normal: vec3<f32>, color: vec4<f32>) -> LitVertex {
    return LitVertex(frame.view_proj * vec4<f32>(world, 1.0), world, normal, color);
}

fn offscreen_vertex() -> LitVertex {
    return LitVertex(OFFSCREEN, vec3<f32>(0.0), vec3<f32>(0.0, 1.0, 0.0), vec4<f32>(0.0));
}

// Fraction of the directional light reaching `world`: 3x3 percentage-closer filtering of the
// shadow map; 1 outside the map or when shadows are off.
fn shadow_visibility(world: vec3<f32>) -> f32 {
    if (frame.shadow.x == 0.0) {
        return 1.0;
    }
    let clip = frame.light_view_proj * vec4<f32>(world, 1.0);
    let ndc = clip.xyz / clip.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0 || ndc.z < 0.0) {
        return 1.0;
    }
    let depth = ndc.z - frame.shadow.y;
    let texel = frame.shadow.z;
    var lit = 0.0;
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            let at = uv + vec2<f32>(f32(x), f32(y)) * texel;
            lit += textureSampleCompareLevel(shadow_map, shadow_sampler, at, depth);
        }
    }
    return lit / 9.0;
}

// One directional light (Lambert, shadowed) plus ambient, on a flat base colour.
fn shade(color: vec3<f32>, world: vec3<f32>, normal: vec3<f32>) -> vec3<f32> {
    let n = normalize_or_up(normal);
    let diffuse = max(dot(n, -frame.light_direction.xyz), 0.0);
    let light = frame.ambient_color.rgb + frame.light_color.rgb * (diffuse * shadow_visibility(world));
    return color * light;
}

fn normalize_or_up(v: vec3<f32>) -> vec3<f32> {
    let len2 = dot(v, v);
    if (len2 > 1e-20) {
        return v * inverseSqrt(len2);
    }
    return vec3<f32>(0.0, 1.0, 0.0);
}

@fragment
fn fs_lit(v: LitVertex, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let n = select(-v.normal, v.normal, front);
    return vec4<f32>(shade(v.color.rgb, v.world, n), 1.0);
}

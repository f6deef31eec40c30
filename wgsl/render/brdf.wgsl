// The metallic-roughness BRDF of glTF as three.js's MeshStandardMaterial evaluates it: GGX
// distribution, Smith-GGX correlated visibility, Schlick Fresnel with F0 = mix(0.04, base,
// metallic), Lambert diffuse base × (1 − metallic) / π. Pure functions, no bindings; assembled
// after common.wgsl in the skinned pass (see src/render/shader.rs).
//
// CPU twin: src/render/brdf.rs, function for function; keep them in sync.

const BRDF_PI: f32 = 3.141592653589793;
// three.js's floor on roughness: a mirror's highlight would be a single point.
const BRDF_MIN_ROUGHNESS: f32 = 0.0525;

// What a surface point is made of, after its textures.
struct PbrSurface {
    base: vec3<f32>,
    metallic: f32,
    roughness: f32,
    occlusion: f32,
    emissive: vec3<f32>,
}

// GGX (Trowbridge-Reitz) normal distribution, alpha = roughness².
fn brdf_distribution(alpha: f32, n_h: f32) -> f32 {
    let a2 = alpha * alpha;
    let d = n_h * n_h * (a2 - 1.0) + 1.0;
    return a2 / (BRDF_PI * d * d);
}

// Height-correlated Smith-GGX visibility (the geometry term over 4 n·l n·v).
fn brdf_visibility(alpha: f32, n_l: f32, n_v: f32) -> f32 {
    let a2 = alpha * alpha;
    let gv = n_l * sqrt(a2 + (1.0 - a2) * n_v * n_v);
    let gl = n_v * sqrt(a2 + (1.0 - a2) * n_l * n_l);
    return 0.5 / max(gv + gl, 1e-6);
}

// Schlick's Fresnel, F90 = 1.
fn brdf_fresnel(f0: vec3<f32>, v_h: f32) -> vec3<f32> {
    let x = 1.0 - v_h;
    let x2 = x * x;
    return f0 + (vec3<f32>(1.0) - f0) * (x2 * x2 * x);
}

// π × BRDF × n·l for unit vectors: the normal `n`, toward the light `l`, toward the eye `v`.
// Times a light's colour it is the light reflected toward the eye (the π is three.js's legacy
// light units, in which a white Lambert surface facing a light of colour c reflects c, as
// sinew's unlit-by-material shading does).
fn brdf_direct(s: PbrSurface, n: vec3<f32>, l: vec3<f32>, v: vec3<f32>) -> vec3<f32> {
    let n_l = clamp(dot(n, l), 0.0, 1.0);
    if (n_l <= 0.0) {
        return vec3<f32>(0.0);
    }
    let n_v = clamp(dot(n, v), 0.0, 1.0);
    let h_raw = l + v;
    var h = n;
    if (dot(h_raw, h_raw) > 1e-12) {
        h = normalize(h_raw);
    }
    let n_h = clamp(dot(n, h), 0.0, 1.0);
    let v_h = clamp(dot(v, h), 0.0, 1.0);
    let roughness = clamp(s.roughness, BRDF_MIN_ROUGHNESS, 1.0);
    let alpha = roughness * roughness;
    let metallic = clamp(s.metallic, 0.0, 1.0);
    let f0 = mix(vec3<f32>(0.04), s.base, metallic);
    let specular = brdf_fresnel(f0, v_h) * (brdf_visibility(alpha, n_l, n_v) * brdf_distribution(alpha, n_h));
    let diffuse = s.base * ((1.0 - metallic) / BRDF_PI);
    return (diffuse + specular) * (BRDF_PI * n_l);
}

// The ambient light reflected: diffuse only (no environment map, as three.js without one),
// darkened by the occlusion.
fn brdf_ambient(s: PbrSurface, ambient: vec3<f32>) -> vec3<f32> {
    return ambient * s.base * ((1.0 - clamp(s.metallic, 0.0, 1.0)) * s.occlusion);
}

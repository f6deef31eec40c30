//! The metallic-roughness BRDF of glTF as three.js's `MeshStandardMaterial` evaluates it: GGX
//! distribution, Smith-GGX height-correlated visibility, Schlick Fresnel with
//! `F0 = mix(0.04, base, metallic)`, Lambert diffuse `base × (1 − metallic) / π`; under sinew's
//! one directional light (shadowed) and ambient term, with occlusion on the ambient only and
//! emission added. Materials shade with it; meshes without one keep the Lambert light.
//!
//! Twin of `wgsl/render/brdf.wgsl`, function for function; keep them in sync. Light colours
//! are in three.js's legacy units: a white Lambert surface facing a light of colour `c`
//! reflects `c` (the BRDF is multiplied by π).

use glam::Vec3;

/// three.js's floor on roughness (a mirror's highlight would be a single point).
pub const MIN_ROUGHNESS: f32 = 0.0525;

/// What a surface point is made of, after its textures. Twin of `PbrSurface`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PbrSurface {
    /// Base colour (linear rgb).
    pub base: Vec3,
    /// Metalness in `[0, 1]`.
    pub metallic: f32,
    /// Perceptual roughness in `[0, 1]` (floored at [`MIN_ROUGHNESS`]).
    pub roughness: f32,
    /// Ambient occlusion in `[0, 1]` (1: none).
    pub occlusion: f32,
    /// Emitted colour (linear rgb).
    pub emissive: Vec3,
}

/// GGX (Trowbridge-Reitz) normal distribution, `alpha = roughness²`.
pub fn brdf_distribution(alpha: f32, n_h: f32) -> f32 {
    let a2 = alpha * alpha;
    let d = n_h * n_h * (a2 - 1.0) + 1.0;
    a2 / (std::f32::consts::PI * d * d)
}

/// Height-correlated Smith-GGX visibility (the geometry term over `4 n·l n·v`).
pub fn brdf_visibility(alpha: f32, n_l: f32, n_v: f32) -> f32 {
    let a2 = alpha * alpha;
    let gv = n_l * (a2 + (1.0 - a2) * n_v * n_v).sqrt();
    let gl = n_v * (a2 + (1.0 - a2) * n_l * n_l).sqrt();
    0.5 / (gv + gl).max(1e-6)
}

/// Schlick's Fresnel with `F90 = 1`.
pub fn brdf_fresnel(f0: Vec3, v_h: f32) -> Vec3 {
    let x = 1.0 - v_h;
    let x2 = x * x;
    f0 + (Vec3::ONE - f0) * (x2 * x2 * x)
}

/// `π × BRDF × n·l` for unit vectors: the normal `n`, toward the light `l`, toward the eye `v`.
/// Times a light's colour, the light reflected toward the eye.
pub fn brdf_direct(s: &PbrSurface, n: Vec3, l: Vec3, v: Vec3) -> Vec3 {
    use std::f32::consts::PI;
    let n_l = n.dot(l).clamp(0.0, 1.0);
    if n_l <= 0.0 {
        return Vec3::ZERO;
    }
    let n_v = n.dot(v).clamp(0.0, 1.0);
    let h_raw = l + v;
    let h = if h_raw.dot(h_raw) > 1e-12 {
        h_raw.normalize()
    } else {
        n
    };
    let n_h = n.dot(h).clamp(0.0, 1.0);
    let v_h = v.dot(h).clamp(0.0, 1.0);
    let roughness = s.roughness.clamp(MIN_ROUGHNESS, 1.0);
    let alpha = roughness * roughness;
    let metallic = s.metallic.clamp(0.0, 1.0);
    let f0 = Vec3::splat(0.04).lerp(s.base, metallic);
    let specular =
        brdf_fresnel(f0, v_h) * (brdf_visibility(alpha, n_l, n_v) * brdf_distribution(alpha, n_h));
    let diffuse = s.base * ((1.0 - metallic) / PI);
    (diffuse + specular) * (PI * n_l)
}

/// The ambient light reflected: diffuse only (no environment map, as three.js without one),
/// darkened by the occlusion.
pub fn brdf_ambient(s: &PbrSurface, ambient: Vec3) -> Vec3 {
    ambient * s.base * ((1.0 - s.metallic.clamp(0.0, 1.0)) * s.occlusion)
}

/// The colour a surface point shows (linear, before the target's sRGB encoding): the direct
/// light of `light_color` travelling along `light_direction` (shadow-free), the ambient term
/// and the emission. `n` is the unit normal and `to_eye` the unit direction toward the camera.
/// Twin of `shade_pbr` in `wgsl/render/material.wgsl` with full shadow visibility.
pub fn shade_pbr(
    s: &PbrSurface,
    n: Vec3,
    to_eye: Vec3,
    light_direction: Vec3,
    light_color: Vec3,
    ambient: Vec3,
) -> Vec3 {
    let l = -light_direction.normalize_or(Vec3::NEG_Y);
    light_color * brdf_direct(s, n, l, to_eye) + brdf_ambient(s, ambient) + s.emissive
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface(base: Vec3, metallic: f32, roughness: f32) -> PbrSurface {
        PbrSurface {
            base,
            metallic,
            roughness,
            occlusion: 1.0,
            emissive: Vec3::ZERO,
        }
    }

    fn close(a: Vec3, b: Vec3) {
        assert!(a.abs_diff_eq(b, 1e-5), "{a} != {b} (diff {})", a - b);
    }

    #[test]
    fn head_on_light_matches_the_formulas_by_hand() {
        // n = l = v: n·h = v·h = 1, so F = F0, D = 1 / (π α²) and V = 1 / 4, with α = r².
        let n = Vec3::Z;
        for (metallic, roughness) in [(0.0, 1.0), (0.0, 0.5), (1.0, 0.5), (0.3, 0.8)] {
            let base = Vec3::new(0.8, 0.4, 0.2);
            let alpha: f32 = roughness * roughness;
            let d = 1.0 / (std::f32::consts::PI * alpha * alpha);
            let v = 0.25;
            let f0 = Vec3::splat(0.04).lerp(base, metallic);
            let expected = base * (1.0 - metallic) + f0 * (d * v * std::f32::consts::PI);
            close(
                brdf_direct(&surface(base, metallic, roughness), n, n, n),
                expected,
            );
        }
    }

    #[test]
    fn grazing_and_back_lit_points_get_no_direct_light() {
        let s = surface(Vec3::ONE, 0.0, 0.5);
        close(brdf_direct(&s, Vec3::Z, -Vec3::Z, Vec3::Z), Vec3::ZERO);
        close(brdf_direct(&s, Vec3::Z, Vec3::X, Vec3::Z), Vec3::ZERO);
        // Light and eye opposite (no half vector): finite.
        let l = Vec3::new(0.6, 0.0, 0.8);
        let v = -l;
        assert!(brdf_direct(&s, Vec3::Z, l, v).is_finite());
    }

    #[test]
    fn metals_have_no_diffuse_and_occlusion_darkens_only_the_ambient() {
        let base = Vec3::new(0.9, 0.6, 0.3);
        let metal = surface(base, 1.0, 0.6);
        close(brdf_ambient(&metal, Vec3::ONE), Vec3::ZERO);
        let occluded = PbrSurface {
            occlusion: 0.25,
            ..surface(base, 0.0, 0.6)
        };
        close(brdf_ambient(&occluded, Vec3::ONE), base * 0.25);
        let open = surface(base, 0.0, 0.6);
        let (n, l, v) = (Vec3::Z, Vec3::new(0.0, 0.6, 0.8), Vec3::Z);
        close(brdf_direct(&occluded, n, l, v), brdf_direct(&open, n, l, v));
    }

    #[test]
    fn a_rough_dielectric_reads_close_to_lambert() {
        // Roughness 1, metallic 0: the diffuse term is Lambert's, the specular a few percent.
        let base = Vec3::new(0.5, 0.5, 0.5);
        let l = Vec3::new(0.0, 0.6, 0.8);
        let c = brdf_direct(&surface(base, 0.0, 1.0), Vec3::Z, l, Vec3::Z);
        let lambert = base * 0.8;
        assert!(
            c.cmpge(lambert).all() && c.cmplt(lambert + 0.05).all(),
            "{c}"
        );
    }

    #[test]
    fn smoother_surfaces_have_brighter_highlights() {
        let (n, l) = (Vec3::Z, Vec3::new(0.0, 0.6, 0.8));
        let mirror = Vec3::new(0.0, -0.6, 0.8);
        let at = |r| brdf_direct(&surface(Vec3::ONE, 1.0, r), n, l, mirror).x;
        assert!(at(0.2) > at(0.5) && at(0.5) > at(1.0));
    }
}

//! The metallic-roughness shading: a panel facing the camera, drawn with a known material under
//! the default light, shows at its centre the colour the CPU twin of the BRDF
//! (`sinew::render::shade_pbr`) computes for that point, through the metallic-roughness,
//! occlusion and emissive textures' channels and colour spaces too.

use std::sync::Arc;

use glam::Vec3;
use sinew::import::{Material, MaterialImage, Sampler, TextureRef};
use sinew::render::{DirectionalLight, PbrSurface, shade_pbr};

use super::materials::{coloured_triangle, draw_triangles};

/// Where the camera of `draw_triangles` stands.
const EYE: Vec3 = Vec3::new(0.0, 0.0, 3.0);

/// A 1×1 texture of `texel`.
fn texel(name: &str, texel: [u8; 4]) -> Option<TextureRef> {
    Some(TextureRef {
        image: Arc::new(MaterialImage {
            name: name.into(),
            width: 1,
            height: 1,
            rgba8: texel.to_vec(),
        }),
        sampler: Sampler::default(),
        uv_set: 0,
    })
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb8(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    255.0
        * if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
}

/// The panel's centre pixel drawn with `material` (base colour from its factor, white
/// vertices), and what the CPU twin expects there for `surface`.
fn centre_pixel(material: Material, surface: PbrSurface) -> Option<([u8; 4], [f32; 3])> {
    let centre = Vec3::ZERO;
    let panel = coloured_triangle(centre, [1.0; 4], material);
    let pixels = draw_triangles(&[panel], true, &[centre])?;
    let light = DirectionalLight::default();
    let to_eye = (EYE - centre).normalize();
    let c = shade_pbr(
        &surface,
        Vec3::Z,
        to_eye,
        light.direction,
        light.color,
        light.ambient,
    );
    Some((pixels[0], c.to_array().map(linear_to_srgb8)))
}

fn assert_close(got: [u8; 4], expected: [f32; 3], what: &str) {
    for k in 0..3 {
        assert!(
            (f32::from(got[k]) - expected[k]).abs() <= 3.0,
            "{what}: GPU {got:?}, CPU {expected:?} (channel {k} off by {})",
            f32::from(got[k]) - expected[k]
        );
    }
}

#[test]
fn a_panel_shows_the_cpu_brdf_at_its_centre() {
    let cases = [
        // (base, metallic, roughness, emissive)
        (Vec3::new(0.8, 0.3, 0.2), 0.0, 0.5, Vec3::ZERO),
        (Vec3::new(0.9, 0.7, 0.3), 1.0, 0.3, Vec3::ZERO),
        (
            Vec3::new(0.2, 0.5, 0.9),
            0.5,
            0.8,
            Vec3::new(0.1, 0.0, 0.05),
        ),
        (Vec3::new(0.6, 0.6, 0.6), 0.0, 0.0, Vec3::ZERO),
    ];
    for (base, metallic, roughness, emissive) in cases {
        let material = Material {
            base_color: base.extend(1.0).to_array(),
            metallic,
            roughness,
            emissive: emissive.to_array(),
            ..Material::default()
        };
        let surface = PbrSurface {
            base,
            metallic,
            roughness,
            occlusion: 1.0,
            emissive,
        };
        let Some((got, expected)) = centre_pixel(material, surface) else {
            return;
        };
        assert_close(
            got,
            expected,
            &format!("base {base}, metallic {metallic}, roughness {roughness}"),
        );
    }
}

#[test]
fn textures_scale_metal_roughness_occlusion_and_emission_by_their_channels() {
    let base = Vec3::new(0.7, 0.5, 0.4);
    // Blue: metallic 0.6 × 128/255; green: roughness 0.9 × 200/255; red (occlusion) 64/255
    // at strength 0.5; emission (sRGB) 255, 128, 0 times factor 0.2, 0.4, 1.
    let material = Material {
        base_color: base.extend(1.0).to_array(),
        metallic: 0.6,
        roughness: 0.9,
        metallic_roughness_texture: texel("metal-rough", [17, 200, 128, 255]),
        occlusion_texture: texel("occlusion", [64, 99, 99, 255]),
        occlusion_strength: 0.5,
        emissive: [0.2, 0.4, 1.0],
        emissive_texture: texel("emission", [255, 128, 0, 255]),
        ..Material::default()
    };
    let surface = PbrSurface {
        base,
        metallic: 0.6 * 128.0 / 255.0,
        roughness: 0.9 * 200.0 / 255.0,
        occlusion: 1.0 + 0.5 * (64.0 / 255.0 - 1.0),
        emissive: Vec3::new(0.2, 0.4 * srgb_to_linear(128.0 / 255.0), 0.0),
    };
    let Some((got, expected)) = centre_pixel(material, surface) else {
        return;
    };
    assert_close(got, expected, "textured");
}

//! Texture UV transforms (glTF's `KHR_texture_transform`): a panel whose base colour texture
//! carries a transform draws as the same panel with the transform applied to its UVs on the CPU
//! (`UvTransform::apply`) and none on the texture, and unlike the panel without it.

use std::sync::Arc;

use glam::Vec3;
use sinew::baked::UvTransform;
use sinew::import::{Material, MaterialImage, Sampler, TextureRef};

use super::materials::{coloured_triangle, draw_triangles};

/// A 4×4 image of distinct colours, sampled nearest and repeating.
fn patches(transform: UvTransform) -> TextureRef {
    let rgba8 = (0..16u8)
        .flat_map(|i| [i * 16, 255 - i * 13, (i % 4) * 80, 255])
        .collect();
    TextureRef {
        image: Arc::new(MaterialImage {
            name: "patches".into(),
            width: 4,
            height: 4,
            rgba8,
        }),
        sampler: Sampler {
            mag_linear: false,
            min_linear: false,
            ..Sampler::default()
        },
        uv_set: 0,
        transform,
    }
}

/// The panel's pixels at `points`, its UVs `uvs`, drawn with the texture moved by `transform`.
fn draw(uvs: [[f32; 2]; 3], transform: UvTransform, points: &[Vec3]) -> Option<Vec<[u8; 4]>> {
    let material = Material {
        metallic: 0.0,
        base_color_texture: Some(patches(transform)),
        ..Material::default()
    };
    let mut panel = coloured_triangle(Vec3::ZERO, [1.0; 4], material);
    panel.uvs = uvs.to_vec();
    draw_triangles(&[panel], true, points)
}

#[test]
fn a_texture_transform_moves_uvs_as_the_cpu_does() {
    let transform = UvTransform {
        offset: [0.3, 0.6],
        rotation: 0.7,
        scale: [1.5, 0.8],
    };
    let uvs = [[0.0, 0.0], [1.0, 0.0], [0.5, 1.0]];
    // Points well inside the triangle (-0.4, -0.4), (0.4, -0.4), (0, 0.4).
    let points: Vec<Vec3> = (0..5)
        .flat_map(|i| (0..5).map(move |j| (i, j)))
        .map(|(i, j)| {
            let y = -0.3 + 0.13 * i as f32;
            let half = 0.35 * (0.4 - y) / 0.8;
            Vec3::new(-half + 2.0 * half * j as f32 / 4.0, y, 0.0)
        })
        .collect();
    let Some(moved) = draw(uvs, transform, &points) else {
        return;
    };
    let applied = draw(
        uvs.map(|uv| transform.apply(uv)),
        UvTransform::IDENTITY,
        &points,
    )
    .expect("the device drew the first panel");
    let plain = draw(uvs, UvTransform::IDENTITY, &points).expect("the device drew the first panel");
    let same = |a: &[u8; 4], b: &[u8; 4]| a.iter().zip(b).all(|(x, y)| x.abs_diff(*y) <= 2);
    let agree = moved
        .iter()
        .zip(&applied)
        .filter(|(a, b)| same(a, b))
        .count();
    let differ = moved
        .iter()
        .zip(&plain)
        .filter(|(a, b)| !same(a, b))
        .count();
    // Nearest sampling may flip a point that lies on a texel edge.
    assert!(
        agree >= points.len() - 2,
        "{agree} of {} points agree with the UVs moved on the CPU: {moved:?} against {applied:?}",
        points.len()
    );
    assert!(
        differ >= points.len() / 2,
        "only {differ} of {} points moved: the transform is not applied",
        points.len()
    );
}

//! `BLEND` materials draw far to near per instance: two half-transparent characters of one
//! batch, one behind the other, show the near one's colour on top whichever comes first in the
//! instance list, with culling on or off; the CPU twin orders their boxes the same way.

use glam::{Affine3A, Vec3};
use sinew::import::{AlphaMode, Material};
use sinew::render::PaletteSegment;
use sinew::render::{
    Camera, RenderTarget, Scene, SkinnedBatch, SkinnedBatchDesc, SkinnedInstance, blend_order,
    view_depth_plane,
};
use sinew::{Aabb, Mat3x4Rows};

use super::fixtures::{box_around, gpu};
use super::materials::coloured_triangle;

/// Where the two characters stand: near the camera, and one unit behind.
const NEAR: Vec3 = Vec3::new(0.0, 0.0, 0.0);
const FAR: Vec3 = Vec3::new(0.0, 0.0, -1.0);

fn camera() -> Camera {
    Camera::look_at(
        Vec3::new(0.0, 0.0, 3.0),
        Vec3::ZERO,
        Vec3::Y,
        1.0,
        1.0,
        0.1,
        10.0,
    )
}

/// The centre pixel of a red character at `NEAR` and a blue one at `FAR` (both half
/// transparent), listed in `order` (`true`: near first).
fn draw_pair(near_first: bool, cull: bool) -> Option<[u8; 4]> {
    let gpu = gpu()?;
    let (device, queue) = (gpu.device(), gpu.queue());
    let material = Material {
        metallic: 0.0,
        alpha: AlphaMode::Blend,
        ..Material::default()
    };
    let meshes = [coloured_triangle(
        Vec3::ZERO,
        [1.0, 1.0, 1.0, 0.5],
        material,
    )];
    let palette = sinew::render::create_palette_buffer(device, 2).unwrap();
    let places = [NEAR, FAR];
    let entries = places.map(|p| Mat3x4Rows::from_affine(&Affine3A::from_translation(p)));
    sinew::render::write_palette(device, queue, &palette, 0, &entries).unwrap();
    let aabbs = sinew::render::create_aabb_buffer(device, 2).unwrap();
    let boxes: Vec<Aabb> = places
        .iter()
        .map(|&p| box_around(p, Vec3::new(0.5, 0.5, 0.1)))
        .collect();
    sinew::render::write_aabbs(device, queue, &aabbs, 0, &boxes).unwrap();
    let mut batch = SkinnedBatch::new(
        device,
        &gpu.renderer,
        &SkinnedBatchDesc {
            label: "blend order test",
            meshes: &meshes,
            mesh_colors: &[[1.0; 3]],
            capacity: 2,
            palette: &[PaletteSegment::whole(&palette)],
            aabbs: &aabbs,
            preskin: false,
        },
    )
    .unwrap();
    let red = SkinnedInstance::new(0, 1, 0, [1.0, 0.0, 0.0]);
    let blue = SkinnedInstance::new(1, 1, 1, [0.0, 0.0, 1.0]);
    let instances = if near_first { [red, blue] } else { [blue, red] };
    batch
        .use_materials(device, queue, &gpu.renderer, &meshes)
        .unwrap();
    batch.write_instances(queue, &instances).unwrap();
    let batches = [&batch];
    let scene = Scene {
        skinned: &batches,
        cull,
        ..Scene::new(camera())
    };
    let target = RenderTarget::new(device, &gpu.renderer, 64, 64, 16).unwrap();
    gpu.renderer.render(device, queue, &target, &scene).unwrap();
    let image = target.read_rgba8(device, queue).unwrap();
    let (x, y, _) = camera().to_pixel(Vec3::new(0.0, -0.1, 0.0), 64, 64);
    Some(image.pixel(x as u32, y as u32).unwrap())
}

#[test]
fn the_near_half_transparent_character_is_on_top_in_either_order() {
    for cull in [false, true] {
        let Some(near_first) = draw_pair(true, cull) else {
            return;
        };
        let far_first = draw_pair(false, cull).unwrap();
        // Red over (blue over the background): red carries half, blue a quarter.
        for (what, p) in [("near first", near_first), ("far first", far_first)] {
            assert!(
                p[0] > p[2] + 20,
                "cull {cull}, {what}: the near red should be on top: {p:?}"
            );
        }
        for k in 0..3 {
            assert!(
                near_first[k].abs_diff(far_first[k]) <= 1,
                "cull {cull}: {near_first:?} (near first) vs {far_first:?} (far first)"
            );
        }
    }
}

#[test]
fn the_cpu_twin_orders_boxes_far_to_near() {
    let plane = view_depth_plane(&camera());
    let boxes = [NEAR, FAR].map(|p| box_around(p, Vec3::splat(0.5)));
    assert_eq!(blend_order(plane, &boxes), [1, 0]);
}

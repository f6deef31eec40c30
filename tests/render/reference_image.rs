//! The default rig against a committed reference image.

use glam::{Affine3A, Vec3};
use sinew::Rig;
use sinew::render::{RgbaImage, Scene, ShadowSettings, StaticMesh, bounding_sphere};

use super::common;
use super::common::rigs::humanoid;
use super::fixtures::{
    Gpu, PIXEL_THRESHOLD, REFERENCE_TOLERANCE, batch, camera_for, differing_fraction, gpu,
    output_dir, pose, render,
};

/// The reference scene: the default rig walking, lit, shadowed on a ground plane, 256².
fn humanoid_reference(gpu: &Gpu, rig: &Rig) -> RgbaImage {
    let walk = rig.clips.find_clip("walk").unwrap_or(0) as u32;
    let posed = pose(gpu, rig, &[(walk, 0.4, Affine3A::IDENTITY)]);
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let aabb = posed.aabbs[0];
    let (center, radius) = bounding_sphere(&aabb);
    let floor = Vec3::new(center.x, aabb.min[1], center.z);
    let ground = StaticMesh::ground_plane(
        gpu.device(),
        gpu.queue(),
        &gpu.renderer,
        floor,
        radius * 2.0,
        [0.5, 0.5, 0.48],
    )
    .unwrap();
    let mut shadow_bounds = aabb;
    shadow_bounds.grow(floor + Vec3::new(radius, 0.0, radius));
    shadow_bounds.grow(floor - Vec3::new(radius, 0.0, radius));
    let batches = [&batch];
    let statics = [&ground];
    let scene = Scene {
        shadow: Some(ShadowSettings::covering(shadow_bounds)),
        skinned: &batches,
        statics: &statics,
        ..Scene::new(camera_for(&aabb))
    };
    render(gpu, "humanoid_walk", 256, &scene)
}

#[test]
fn humanoid_walk_matches_the_reference_image() {
    let Some(gpu) = gpu() else { return };
    let rig = humanoid();
    let image = humanoid_reference(gpu, &rig);
    let reference = common::repo().join("tests/reference/humanoid_walk.png");
    if std::env::var("SINEW_BLESS").is_ok_and(|v| v == "1") {
        let checking = common::in_ci() || common::gpu_required();
        assert!(
            !checking,
            "SINEW_BLESS=1 under CI or REQUIRE_GPU would skip the comparison"
        );
        image.save_png(&reference).unwrap();
        eprintln!("blessed {}", reference.display());
        return;
    }
    let expected = RgbaImage::load_png(&reference)
        .unwrap_or_else(|e| panic!("{e}\nrun with SINEW_BLESS=1 to create the reference image"));
    let fraction = differing_fraction(&image, &expected, PIXEL_THRESHOLD);
    eprintln!(
        "{:.3}% of pixels differ from the reference by more than {PIXEL_THRESHOLD}/255",
        fraction * 100.0
    );
    assert!(
        fraction <= REFERENCE_TOLERANCE,
        "{:.3}% of pixels differ by more than {PIXEL_THRESHOLD}/255 from {} (tolerance {}%); \
         the render is in {}; if the change is intended, rerun with SINEW_BLESS=1",
        fraction * 100.0,
        reference.display(),
        REFERENCE_TOLERANCE * 100.0,
        output_dir().display()
    );
    // The character is posed and lit: many distinct colours, not a flat silhouette.
    let mut colours: Vec<[u8; 4]> = image
        .pixels
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(
        colours.len() > 50,
        "only {} distinct colours",
        colours.len()
    );
}

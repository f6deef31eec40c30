//! Bone overlay.

use glam::Affine3A;
use sinew::render::{BoneOverlay, Scene};

use super::common::rigs::humanoid;
use super::fixtures::{batch, camera_for, gpu, pose, render, screen_rect};

#[test]
fn bone_overlay_draws_lines_over_the_character() {
    let Some(gpu) = gpu() else { return };
    let rig = humanoid();
    let posed = pose(gpu, &rig, &[(0, 0.5, Affine3A::IDENTITY)]);
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let colour = [0.0, 1.0, 0.0];
    let overlay = BoneOverlay::new(
        gpu.device(),
        &gpu.renderer,
        &rig.skeleton,
        &posed.palette_buffers,
        0,
        colour,
    )
    .unwrap();
    assert_eq!(overlay.bone_count() as usize, rig.joint_count() - 1);
    let batches = [&batch];
    let overlays = [&overlay];
    let camera = camera_for(&posed.aabbs[0]);
    let scene = Scene {
        skinned: &batches,
        bones: &overlays,
        ..Scene::new(camera)
    };
    let size = 256;
    let image = render(gpu, "humanoid_bones", size, &scene);
    let (x0, y0, x1, y1) = screen_rect(&camera, &posed.aabbs[0], size);
    let mut green = 0;
    for y in 0..size {
        for x in 0..size {
            if image.pixel(x, y) == Some([0, 255, 0, 255]) {
                green += 1;
                assert!(
                    (x as f32) >= x0 - 1.0
                        && (x as f32) <= x1 + 1.0
                        && (y as f32) >= y0 - 1.0
                        && (y as f32) <= y1 + 1.0,
                    "bone pixel ({x}, {y}) outside the character's box"
                );
            }
        }
    }
    assert!(green > 200, "only {green} bone pixels");
}

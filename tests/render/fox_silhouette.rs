//! Fox.glb: the silhouette stays inside the projected animated AABB and moves with the clip.

use glam::Affine3A;
use sinew::render::Scene;

use super::fixtures::{Posed, batch, camera_for, fox, gpu, pose, render, screen_rect, union};

#[test]
fn fox_pixels_lie_inside_the_projected_aabb_and_the_silhouette_moves() {
    let Some(gpu) = gpu() else { return };
    let Some(rig) = fox() else { return };
    let clip = rig.clips.find_clip("Walk").unwrap_or(0) as u32;
    let times = [0.1, 0.5];
    let posed = pose(
        gpu,
        &rig,
        &[
            (clip, times[0], Affine3A::IDENTITY),
            (clip, times[1], Affine3A::IDENTITY),
        ],
    );
    let camera = camera_for(&union(&posed.aabbs));
    let size = 256;
    let black = wgpu::Color::BLACK;
    let mut masks = Vec::new();
    for (i, time) in times.iter().enumerate() {
        let one = Posed {
            instances: vec![posed.instances[i]],
            palette: Vec::new(),
            aabbs: Vec::new(),
            palette_buffers: posed.palette_buffers.clone(),
            aabb_buffer: posed.aabb_buffer.clone(),
        };
        let batch = batch(gpu, &rig.meshes, &one, false);
        let batches = [&batch];
        let scene = Scene {
            clear_color: black,
            skinned: &batches,
            ..Scene::new(camera)
        };
        let image = render(gpu, &format!("fox_walk_{time}"), size, &scene);
        let (x0, y0, x1, y1) = screen_rect(&camera, &posed.aabbs[i], size);
        let mut mask = vec![false; (size * size) as usize];
        for y in 0..size {
            for x in 0..size {
                let p = image.pixel(x, y).unwrap();
                if p[..3] == [0, 0, 0] {
                    continue;
                }
                mask[(y * size + x) as usize] = true;
                let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
                assert!(
                    cx >= x0 - 1.0 && cx <= x1 + 1.0 && cy >= y0 - 1.0 && cy <= y1 + 1.0,
                    "t = {time}: pixel ({x}, {y}) = {p:?} lies outside the projected AABB \
                     ({x0:.1}, {y0:.1})..({x1:.1}, {y1:.1})"
                );
            }
        }
        let covered = mask.iter().filter(|&&m| m).count();
        assert!(
            covered > (size * size / 50) as usize,
            "t = {time}: the fox covers only {covered} pixels"
        );
        masks.push(mask);
    }
    let changed = masks[0]
        .iter()
        .zip(&masks[1])
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        changed > (size * size / 200) as usize,
        "the silhouette changed in only {changed} pixels between t = {} and t = {}",
        times[0],
        times[1]
    );
}

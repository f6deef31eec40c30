//! The wireframe: each mesh's edges once, drawn by the skinned pass's own vertex stages as
//! lines, on every instance, following the pose (linear and dual-quaternion skinning, in the
//! vertex stage or pre-skinned).

use glam::{Affine3A, Vec3};
use sinew::Mat3x4Rows;
use sinew::render::PaletteSegment;
use sinew::render::{RgbaImage, Scene, SkinningMode, wire_indices};

use super::common::rigs::humanoid;
use super::fixtures::{
    PIXEL_THRESHOLD, Posed, SAME_SCENE_TOLERANCE, batch, camera_for, differing_fraction, gpu, pose,
    render, screen_rect, union,
};

#[test]
fn wire_indices_list_each_edge_once() {
    // Two triangles sharing the edge 1-2 (in opposite directions), and a degenerate one.
    let lines = wire_indices(&[0, 1, 2, 2, 1, 3, 4, 4, 5, 9]);
    assert_eq!(lines, [0, 1, 1, 2, 2, 0, 1, 3, 3, 2, 4, 5]);
    assert!(wire_indices(&[]).is_empty());
}

/// Whether pixel `p` differs from `background`.
fn differs(p: &[u8], background: &[u8]) -> bool {
    p.iter()
        .zip(background)
        .take(3)
        .any(|(a, b)| a.abs_diff(*b) > PIXEL_THRESHOLD)
}

/// Which pixels differ from the image's top-left pixel (the clear colour here).
fn foreground(image: &RgbaImage) -> Vec<bool> {
    let background = image.pixels[..4].to_vec();
    image
        .pixels
        .chunks_exact(4)
        .map(|p| differs(p, &background))
        .collect()
}

/// `mask` grown by one pixel in every direction.
fn dilated(mask: &[bool], size: usize) -> Vec<bool> {
    let mut out = mask.to_vec();
    for y in 0..size {
        for x in 0..size {
            if !mask[y * size + x] {
                continue;
            }
            for (dx, dy) in [
                (-1i64, 0i64),
                (1, 0),
                (0, -1),
                (0, 1),
                (-1, -1),
                (1, 1),
                (-1, 1),
                (1, -1),
            ] {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if (0..size as i64).contains(&nx) && (0..size as i64).contains(&ny) {
                    out[ny as usize * size + nx as usize] = true;
                }
            }
        }
    }
    out
}

/// The fraction of `lines` pixels that lie in `inside`.
fn fraction_inside(lines: &[bool], inside: &[bool]) -> f64 {
    let total = lines.iter().filter(|&&l| l).count().max(1);
    let kept = lines.iter().zip(inside).filter(|&(&l, &i)| l && i).count();
    kept as f64 / total as f64
}

/// `posed` with every palette entry of instance `i` its world transform: the bind pose.
fn bind_pose(
    gpu: &super::fixtures::Gpu,
    posed: &Posed,
    worlds: &[Affine3A],
    block: usize,
) -> Posed {
    let mut palette = posed.palette.clone();
    for (i, world) in worlds.iter().enumerate() {
        palette[i * block..(i + 1) * block].fill(Mat3x4Rows::from_affine(world));
    }
    let palette_buffer = sinew::render::create_palette_buffer(gpu.device(), palette.len()).unwrap();
    sinew::render::write_palette(gpu.device(), gpu.queue(), &palette_buffer, 0, &palette).unwrap();
    let aabb_buffer = sinew::render::create_aabb_buffer(gpu.device(), posed.aabbs.len()).unwrap();
    sinew::render::write_aabbs(gpu.device(), gpu.queue(), &aabb_buffer, 0, &posed.aabbs).unwrap();
    Posed {
        palette,
        aabbs: posed.aabbs.clone(),
        palette_buffers: vec![PaletteSegment::whole(&palette_buffer)],
        aabb_buffer,
        instances: posed.instances.clone(),
    }
}

#[test]
fn wireframe_draws_every_instance_skinned_as_the_filled_pass() {
    let Some(gpu) = gpu() else { return };
    let rig = humanoid();
    let block = rig.palette_entries();
    let worlds: Vec<Affine3A> = (0..3)
        .map(|k| Affine3A::from_translation(Vec3::new(1.2 * (k as f32 - 1.0), 0.0, 0.0)))
        .collect();
    // Three clips (as many as the rig has), each at a time where it moves away from the bind pose.
    let clips = rig.clips.clip_count() as u32;
    let poses: Vec<(u32, f32, Affine3A)> = (0u32..)
        .zip(&worlds)
        .map(|(k, w)| (k % clips, 0.3 + 0.25 * k as f32, *w))
        .collect();
    let posed = pose(gpu, &rig, &poses);
    let rest = bind_pose(gpu, &posed, &worlds, block);
    let size = 256usize;
    let camera = camera_for(&union(&posed.aabbs));
    let posed_batch = batch(gpu, &rig.meshes, &posed, false);
    let rest_batch = batch(gpu, &rig.meshes, &rest, false);
    let preskinned_batch = batch(gpu, &rig.meshes, &posed, true);
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let draw = |b: &sinew::render::SkinnedBatch, wireframe: bool, name: &str| {
            let batches = [b];
            let scene = Scene {
                skinned: &batches,
                skinning: mode,
                wireframe,
                preskin: b.has_preskin(),
                ..Scene::new(camera)
            };
            render(
                gpu,
                &format!("wireframe-{name}-{mode:?}"),
                size as u32,
                &scene,
            )
        };
        let filled = draw(&posed_batch, false, "filled");
        let wire = draw(&posed_batch, true, "posed");
        let rest_filled = draw(&rest_batch, false, "rest-filled");
        let rest_wire = draw(&rest_batch, true, "rest");
        // Pre-skinned vertices draw the same lines.
        let preskinned = draw(&preskinned_batch, true, "preskinned");
        let differ = differing_fraction(&preskinned, &wire, PIXEL_THRESHOLD);
        assert!(
            differ <= SAME_SCENE_TOLERANCE,
            "{mode:?}: pre-skinned wireframe differs in {differ}"
        );

        let differ = differing_fraction(&filled, &wire, PIXEL_THRESHOLD);
        assert!(
            differ > 0.01,
            "{mode:?}: wireframe and filled differ in {differ}"
        );
        let lines = foreground(&wire);
        // Line pixels on every instance's character.
        for (i, aabb) in posed.aabbs.iter().enumerate() {
            let (x0, y0, x1, y1) = screen_rect(&camera, aabb, size as u32);
            let (x0, y0) = (x0.max(0.0) as usize, y0.max(0.0) as usize);
            let (x1, y1) = ((x1 as usize).min(size - 1), (y1 as usize).min(size - 1));
            let on = (y0..=y1)
                .flat_map(|y| (x0..=x1).map(move |x| y * size + x))
                .filter(|&k| lines[k])
                .count();
            assert!(on > 30, "{mode:?}: instance {i} has {on} line pixels");
        }
        // The lines follow the pose the filled pass drew, not the bind pose.
        let in_posed = fraction_inside(&lines, &dilated(&foreground(&filled), size));
        let in_rest = fraction_inside(&lines, &dilated(&foreground(&rest_filled), size));
        let rest_in_rest = fraction_inside(
            &foreground(&rest_wire),
            &dilated(&foreground(&rest_filled), size),
        );
        assert!(
            in_posed > 0.97 && rest_in_rest > 0.97,
            "{mode:?}: {in_posed} of the posed lines in the posed silhouette, {rest_in_rest} of \
             the bind-pose lines in the bind-pose one"
        );
        assert!(
            in_rest < 0.8,
            "{mode:?}: {in_rest} of the posed lines in the bind-pose silhouette"
        );
    }
}

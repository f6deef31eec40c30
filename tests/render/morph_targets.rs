//! Morph targets.

use glam::{Affine3A, Quat, Vec3};
use sinew::render::{DirectionalLight, Scene, ShadowSettings, SkinningMode, skin_vertex};
use sinew::{GpuBackend, SkinnedMesh};

use super::common::rigs::morph_rig;
use super::fixtures::{
    PAGED_BINDING, PIXEL_THRESHOLD, Posed, SAME_SCENE_TOLERANCE, batch, camera_for, check_preskin,
    check_preskin_on, differing_fraction, gpu, pose, records, render, tinted_instances, union,
};

/// The vertex stage morphs like pre-skinning does (which is checked against the CPU twins
/// below), and the morph targets change the picture.
#[test]
fn in_shader_morphing_draws_like_preskinned_morphing() {
    let Some(gpu) = gpu() else { return };
    let rig = morph_rig();
    let poses = [
        (0, 0.5, Affine3A::IDENTITY),
        (2, 0.9, Affine3A::from_translation(Vec3::new(1.2, 0.0, 0.0))),
        (
            1,
            0.5,
            Affine3A::from_rotation_translation(Quat::from_rotation_y(0.8), Vec3::X * -1.2),
        ),
    ];
    let posed = pose(gpu, &rig, &poses);
    let morphed = batch(gpu, &rig.meshes, &posed, true);
    let all = union(&posed.aabbs);
    let mut images = Vec::new();
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let batches = [&morphed];
        let mut scene = Scene {
            skinned: &batches,
            skinning: mode,
            shadow: Some(ShadowSettings::covering(all)),
            light: DirectionalLight::default(),
            ..Scene::new(camera_for(&all))
        };
        let in_shader = render(gpu, &format!("morph_in_shader_{mode:?}"), 192, &scene);
        scene.preskin = true;
        let preskinned = render(gpu, &format!("morph_preskinned_{mode:?}"), 192, &scene);
        let fraction = differing_fraction(&in_shader, &preskinned, PIXEL_THRESHOLD);
        assert!(
            fraction <= SAME_SCENE_TOLERANCE,
            "{mode:?}: {:.3}% of pixels differ",
            fraction * 100.0
        );
        images.push(in_shader);
    }
    let plain: Vec<SkinnedMesh> = rig
        .meshes
        .iter()
        .map(|m| SkinnedMesh {
            morph: Default::default(),
            ..m.clone()
        })
        .collect();
    let unmorphed = batch(gpu, &plain, &posed, false);
    let batches = [&unmorphed];
    let scene = Scene {
        skinned: &batches,
        shadow: Some(ShadowSettings::covering(all)),
        light: DirectionalLight::default(),
        ..Scene::new(camera_for(&all))
    };
    let without = render(gpu, "morph_without_targets", 192, &scene);
    let fraction = differing_fraction(&images[0], &without, PIXEL_THRESHOLD);
    assert!(
        fraction > 0.01,
        "the targets changed {:.3}% of pixels",
        fraction * 100.0
    );
}

/// Pre-skinning applies the morph targets at the weights the GPU evaluator wrote, then skins:
/// what the CPU twins compute from the same palette (linear and dual quaternion).
#[test]
fn preskinned_morphed_vertices_equal_cpu_morph_then_skinning() {
    let Some(gpu) = gpu() else { return };
    let rig = morph_rig();
    let joints = rig.joint_count();
    let block = rig.palette_entries();
    let poses = [
        (0, 0.25, Affine3A::IDENTITY),
        (1, 0.5, Affine3A::from_rotation_y(0.7)),
        (
            2,
            0.3,
            Affine3A::from_translation(Vec3::new(1.0, 0.0, -0.5)),
        ),
        (3, 0.6, Affine3A::from_scale(Vec3::splat(1.5))),
    ];
    let mut backend = GpuBackend::new(&gpu.context, std::slice::from_ref(&rig), &[]).unwrap();
    let entries = (block * poses.len()) as u32;
    backend.reserve_palette(entries).unwrap();
    backend.evaluate(&records(&rig, &poses)).unwrap();
    let posed = Posed {
        palette: backend.read_palette(0..entries).unwrap(),
        aabbs: backend.read_bounds(0..poses.len()).unwrap(),
        palette_buffers: backend.palette_segments().to_vec(),
        aabb_buffer: backend.bounds_buffer().clone(),
        instances: tinted_instances(poses.len(), block, joints),
    };
    let mut moved = 0.0f32;
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let skinned = check_preskin(gpu, &rig.meshes, joints, &posed, mode);
        // The targets moved the vertices: skinning the bind-space vertices alone differs.
        for (mesh, out) in rig.meshes.iter().zip(&skinned) {
            let n = mesh.vertex_count();
            for (i, inst) in posed.instances.iter().enumerate() {
                let at = inst.palette_offset as usize;
                for v in 0..n {
                    let plain = skin_vertex(
                        mode,
                        &posed.palette[at..at + joints],
                        mesh.joints[v],
                        mesh.weights[v],
                        Vec3::from(mesh.positions[v]),
                        Vec3::from(mesh.normals[v]),
                    );
                    moved =
                        moved.max((Vec3::from(out[i * n + v].position) - plain.position).length());
                }
            }
        }
    }
    assert!(moved > 0.05, "the morph targets moved no vertex ({moved})");

    // In pages: a crowd whose palette spans many windows of the paged renderer (each block
    // holds the joints and the weights, so the weights lie in the page's window too).
    let poses: Vec<(u32, f32, Affine3A)> = (0..1000)
        .map(|i| {
            let x = (i % 40) as f32 * 0.8;
            let z = (i / 40) as f32 * 0.8;
            (
                i % 4,
                0.05 * (i % 17) as f32,
                Affine3A::from_translation(Vec3::new(x, 0.0, -z)),
            )
        })
        .collect();
    let posed = pose(gpu, &rig, &poses);
    assert!(posed.palette.len() as u64 * 48 > 2 * PAGED_BINDING);
    check_preskin_on(
        gpu,
        &gpu.paged,
        &rig.meshes,
        joints,
        &posed,
        SkinningMode::Linear,
    );
}

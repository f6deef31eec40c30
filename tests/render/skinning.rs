//! Skinning: pre-skinned against CPU, dual quaternion against linear.

use glam::{Affine3A, Quat, Vec3};
use sinew::render::PaletteSegment;
use sinew::render::{
    DirectionalLight, Scene, ShadowSettings, SkinnedInstance, SkinningMode, bounding_sphere,
};
use sinew::{Aabb, Mat3x4Rows};

use super::common;
use super::common::rigs::{humanoid, influences_rig};
use super::fixtures::{
    PIXEL_THRESHOLD, Posed, SAME_SCENE_TOLERANCE, batch, camera_for, check_preskin,
    differing_fraction, fox, gpu, pose, render, three_poses, triangle_mesh, union,
};

#[test]
fn preskinned_vertices_equal_cpu_skinning() {
    let Some(gpu) = gpu() else { return };
    let mut rigs = vec![humanoid()];
    rigs.extend(fox());
    if rigs.is_empty() {
        return;
    }
    for rig in &rigs {
        let posed = pose(gpu, rig, &three_poses(rig));
        check_preskin(
            gpu,
            &rig.meshes,
            rig.joint_count(),
            &posed,
            SkinningMode::Linear,
        );
        check_preskin(
            gpu,
            &rig.meshes,
            rig.joint_count(),
            &posed,
            SkinningMode::DualQuaternion,
        );
    }
}

#[test]
fn preskin_leaves_zero_weight_and_out_of_range_vertices_in_bind_pose() {
    let Some(gpu) = gpu() else { return };
    let mut mesh = triangle_mesh();
    mesh.positions.push([0.3, 0.2, 0.1]);
    mesh.normals.push([0.0, 1.0, 0.0]);
    mesh.uvs.push([0.0; 2]);
    mesh.joints = [[0, 0, 0, 0], [1, 0, 0, 0], [9, 9, 0, 0], [0, 1, 0, 0]]
        .map(common::eight)
        .to_vec();
    mesh.weights = [
        [0.0; 4],
        [0.5, 0.5, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
        [0.25, 0.75, 0.0, 0.0],
    ]
    .map(common::eight)
    .to_vec();
    mesh.indices = vec![0, 1, 2, 1, 3, 2];
    let palette = [
        Mat3x4Rows::from_affine(&Affine3A::from_rotation_translation(
            Quat::from_rotation_z(0.5),
            Vec3::new(1.0, 2.0, 3.0),
        )),
        Mat3x4Rows::from_affine(&Affine3A::from_rotation_translation(
            Quat::from_rotation_x(-0.8),
            Vec3::new(-1.0, 0.0, 0.5),
        )),
    ];
    let palette_buffer = sinew::render::create_palette_buffer(gpu.device(), 2).unwrap();
    sinew::render::write_palette(gpu.device(), gpu.queue(), &palette_buffer, 0, &palette).unwrap();
    let aabb_buffer = sinew::render::create_aabb_buffer(gpu.device(), 1).unwrap();
    let posed = Posed {
        palette: palette.to_vec(),
        aabbs: vec![Aabb {
            min: [-2.0, -2.0, -2.0, 0.0],
            max: [2.0, 2.0, 2.0, 0.0],
        }],
        palette_buffers: vec![PaletteSegment::whole(&palette_buffer)],
        aabb_buffer,
        instances: vec![SkinnedInstance::new(0, 2, 0, [1.0; 3])],
    };
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let skinned = check_preskin(gpu, std::slice::from_ref(&mesh), 2, &posed, mode);
        assert_eq!(
            skinned[0][0].position,
            [0.0, 0.0, 0.0],
            "zero weights: bind pose"
        );
    }
}

#[test]
fn dual_quaternion_and_linear_skinning_agree_on_an_unscaled_pose() {
    let Some(gpu) = gpu() else { return };
    let rig = humanoid();
    let walk = rig.clips.find_clip("walk").unwrap_or(0) as u32;
    let posed = pose(gpu, &rig, &[(walk, 0.3, Affine3A::from_rotation_y(0.4))]);
    for (j, m) in posed.palette.iter().enumerate() {
        let a = m.to_affine().matrix3;
        for c in [a.x_axis, a.y_axis, a.z_axis] {
            assert!(
                (c.length() - 1.0).abs() < 1e-4,
                "joint {j} is scaled: {m:?}"
            );
        }
    }
    let joints = rig.joint_count();
    let linear = check_preskin(gpu, &rig.meshes, joints, &posed, SkinningMode::Linear);
    let dual = check_preskin(
        gpu,
        &rig.meshes,
        joints,
        &posed,
        SkinningMode::DualQuaternion,
    );
    let (_, radius) = bounding_sphere(&posed.aabbs[0]);
    let mut worst: f32 = 0.0;
    for (m, mesh) in rig.meshes.iter().enumerate() {
        for (v, ((l, q), weights)) in linear[m]
            .iter()
            .zip(&dual[m])
            .zip(&mesh.weights)
            .enumerate()
        {
            let d = Vec3::from(l.position).distance(Vec3::from(q.position));
            worst = worst.max(d);
            let rigid = weights.iter().any(|&w| w >= 0.9999);
            if rigid {
                assert!(
                    d <= 1e-4 * radius.max(1.0),
                    "rigid vertex {v} differs by {d}"
                );
            }
            assert!(
                d <= 0.03 * radius,
                "vertex {v} differs by {d} (radius {radius})"
            );
        }
    }
    eprintln!("dual quaternion vs linear: largest vertex difference {worst} (radius {radius})");

    // And the images agree closely.
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let batches = [&batch];
    let mut scene = Scene {
        skinned: &batches,
        ..Scene::new(camera_for(&posed.aabbs[0]))
    };
    let lbs = render(gpu, "humanoid_linear", 192, &scene);
    scene.skinning = SkinningMode::DualQuaternion;
    let dq = render(gpu, "humanoid_dual_quaternion", 192, &scene);
    let fraction = differing_fraction(&lbs, &dq, PIXEL_THRESHOLD);
    assert!(
        fraction <= 0.03,
        "{:.3}% of pixels differ",
        fraction * 100.0
    );
}

#[test]
fn preskinned_render_equals_in_shader_render() {
    let Some(gpu) = gpu() else { return };
    let rig = humanoid();
    let posed = pose(gpu, &rig, &three_poses(&rig));
    let batch = batch(gpu, &rig.meshes, &posed, true);
    let batches = [&batch];
    let all = union(&posed.aabbs);
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let mut scene = Scene {
            skinned: &batches,
            skinning: mode,
            shadow: Some(ShadowSettings::covering(all)),
            light: DirectionalLight::default(),
            ..Scene::new(camera_for(&all))
        };
        let in_shader = render(gpu, &format!("three_in_shader_{mode:?}"), 192, &scene);
        scene.preskin = true;
        let preskinned = render(gpu, &format!("three_preskinned_{mode:?}"), 192, &scene);
        let fraction = differing_fraction(&in_shader, &preskinned, PIXEL_THRESHOLD);
        assert!(
            fraction <= SAME_SCENE_TOLERANCE,
            "{mode:?}: {:.3}% of pixels differ",
            fraction * 100.0
        );
    }
}

#[test]
fn eight_influence_preskinned_vertices_equal_cpu_skinning() {
    let Some(gpu) = gpu() else { return };
    let rig = influences_rig();
    let posed = pose(gpu, &rig, &three_poses(&rig));
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        check_preskin(gpu, &rig.meshes, rig.joint_count(), &posed, mode);
    }
}

#[test]
fn eight_influence_in_shader_render_equals_preskinned_render() {
    let Some(gpu) = gpu() else { return };
    let rig = influences_rig();
    let posed = pose(gpu, &rig, &three_poses(&rig));
    let all = union(&posed.aabbs);
    // Influences 5-8 dropped: what a vertex pass that read only four slots would draw.
    let mut four = rig.meshes.clone();
    for mesh in &mut four {
        mesh.weights.iter_mut().for_each(|w| w[4..].fill(0.0));
    }
    let full = batch(gpu, &rig.meshes, &posed, true);
    let cut = batch(gpu, &four, &posed, false);
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let full_batches = [&full];
        let mut scene = Scene {
            skinned: &full_batches,
            skinning: mode,
            cull: false,
            ..Scene::new(camera_for(&all))
        };
        let in_shader = render(gpu, &format!("influences_in_shader_{mode:?}"), 128, &scene);
        scene.preskin = true;
        let preskinned = render(gpu, &format!("influences_preskinned_{mode:?}"), 128, &scene);
        let fraction = differing_fraction(&in_shader, &preskinned, PIXEL_THRESHOLD);
        assert!(
            fraction <= SAME_SCENE_TOLERANCE,
            "{mode:?}: {:.3}% of pixels differ",
            fraction * 100.0
        );
        let cut_batches = [&cut];
        let four_only = Scene {
            skinned: &cut_batches,
            preskin: false,
            ..scene
        };
        let four_only = render(gpu, &format!("influences_four_{mode:?}"), 128, &four_only);
        let fraction = differing_fraction(&in_shader, &four_only, PIXEL_THRESHOLD);
        assert!(
            fraction > 4.0 * SAME_SCENE_TOLERANCE,
            "{mode:?}: dropping influences 5-8 changes only {:.3}% of pixels",
            fraction * 100.0
        );
    }
}

//! Eight influences per vertex (synthetic/influences.glb: 5 to 8 per vertex in mesh 0, the
//! strongest 8 of 9 to 12 in mesh 1).

use glam::{Affine3A, Quat, Vec3, Vec4};
use sinew::cpu::evaluate_pose;
use sinew::{Layer, Mat3x4Rows, Rig};

use super::common;
use super::common::rigs::influences_rig;
use super::fixtures::{axis_angle, joint, skin_by_hand, skinned_fixture};

/// The palette of `rig` at `t` of clip 0 under a rotated, moved and uniformly scaled world.
fn influences_palette(rig: &Rig, t: f32) -> Vec<Mat3x4Rows> {
    let n = rig.joint_count();
    let world = Affine3A::from_scale_rotation_translation(
        Vec3::splat(1.5),
        axis_angle([0.3, 1.0, 0.2], 40.0),
        Vec3::new(2.0, -1.0, 0.5),
    );
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    evaluate_pose(
        rig,
        &[],
        &[Layer::clip(0, t)],
        &world,
        &mut models,
        &mut palette,
    );
    palette
}

fn assert_skinned_close(got: Vec3, expected: Vec3, what: &str) {
    for i in 0..3 {
        assert!(
            (got[i] - expected[i]).abs() <= common::SKIN_TOLERANCE * expected[i].abs().max(1.0),
            "{what}: {got} vs {expected}"
        );
    }
}

#[test]
fn eight_influence_linear_skinning_is_the_weighted_sum_of_transformed_points() {
    let rig = influences_rig();
    let mut most = 0;
    for t in [0.2, 0.65] {
        let palette = influences_palette(&rig, t);
        for (m, mesh) in rig.meshes.iter().enumerate() {
            for v in 0..mesh.vertex_count() {
                let p = Vec3::from(mesh.positions[v]);
                let mut expected = Vec3::ZERO;
                for k in 0..8 {
                    let joint = mesh.joints[v][k] as usize;
                    expected += mesh.weights[v][k] * palette[joint].to_affine().transform_point3(p);
                }
                most = most.max(mesh.weights[v].iter().filter(|&&w| w > 0.0).count());
                let got = sinew::render::skin_vertex_linear(
                    &palette,
                    mesh.joints[v],
                    mesh.weights[v],
                    p,
                    Vec3::from(mesh.normals[v]),
                );
                assert_skinned_close(
                    got.position,
                    expected,
                    &format!("t {t} mesh {m} vertex {v}"),
                );
            }
        }
    }
    assert_eq!(most, 8, "vertices with eight influences");
}

/// Dual-quaternion skinning written out with glam's quaternions: rotations blended along the
/// heaviest influence's hemisphere, translation from the blended dual part, scale blended
/// linearly.
fn dual_quat_by_hand(
    palette: &[Mat3x4Rows],
    joints: &[u16; 8],
    weights: &[f32; 8],
    p: Vec3,
) -> Vec3 {
    let parts: Vec<(Vec3, Quat, Vec3)> = joints
        .iter()
        .map(|&j| {
            palette[j as usize]
                .to_affine()
                .to_scale_rotation_translation()
        })
        .collect();
    let heaviest = (0..8).fold(0, |h, k| if weights[k] > weights[h] { k } else { h });
    let pivot = parts[heaviest].1;
    let (mut real, mut dual) = (Vec4::ZERO, Vec4::ZERO);
    let mut scale = Vec3::ZERO;
    for ((s, r, t), &w) in parts.iter().zip(weights) {
        let w_signed = if pivot.dot(*r) < 0.0 { -w } else { w };
        real += Vec4::from(*r) * w_signed;
        dual += Vec4::from(Quat::from_xyzw(t.x, t.y, t.z, 0.0) * *r) * (0.5 * w_signed);
        scale += *s * w;
    }
    let len = real.length();
    let r = Quat::from_vec4(real / len);
    let d = Quat::from_vec4(dual / len);
    let t = (d * r.conjugate()) * 2.0;
    r * (p * scale / weights.iter().sum::<f32>()) + Vec3::new(t.x, t.y, t.z)
}

#[test]
fn eight_influence_dual_quaternion_skinning_matches_a_hand_computation() {
    let rig = influences_rig();
    for t in [0.2, 0.65] {
        let palette = influences_palette(&rig, t);
        for (m, mesh) in rig.meshes.iter().enumerate() {
            for v in 0..mesh.vertex_count() {
                let p = Vec3::from(mesh.positions[v]);
                let expected = dual_quat_by_hand(&palette, &mesh.joints[v], &mesh.weights[v], p);
                let got = sinew::render::skin_vertex_dual_quat(
                    &palette,
                    mesh.joints[v],
                    mesh.weights[v],
                    p,
                    Vec3::from(mesh.normals[v]),
                );
                assert_skinned_close(
                    got.position,
                    expected,
                    &format!("t {t} mesh {m} vertex {v}"),
                );
            }
        }
    }
}

#[test]
fn animated_aabb_holds_every_eight_influence_vertex() {
    let rig = influences_rig();
    let n = rig.joint_count();
    for t in [0.0, 0.3, 0.8] {
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; n];
        let world = Affine3A::from_rotation_z(0.7);
        let aabb = evaluate_pose(
            &rig,
            &[],
            &[Layer::clip(0, t)],
            &world,
            &mut models,
            &mut palette,
        );
        for mesh in &rig.meshes {
            for v in 0..mesh.vertex_count() {
                let s = sinew::render::skin_vertex_linear(
                    &palette,
                    mesh.joints[v],
                    mesh.weights[v],
                    Vec3::from(mesh.positions[v]),
                    Vec3::Y,
                );
                assert!(
                    aabb.contains(s.position, common::AABB_TOLERANCE),
                    "t {t} vertex {v} at {} outside {aabb:?}",
                    s.position
                );
            }
        }
    }
}

#[test]
fn a_joint_named_only_in_influence_slot_six_bounds_its_vertices() {
    // Vertex 0 gets a third of its weight from C (skin joint 2) in slot 6; C is thrown 1000
    // units away, so the box must reach towards it.
    let mut f = skinned_fixture();
    let mesh = &mut f.asset.meshes[0];
    mesh.joints[0] = [0, 1, 3, 2, 0, 2, 0, 0];
    mesh.weights[0] = [0.4, 0.3, 0.0, 0.0, 0.0, 0.3, 0.0, 0.0];
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    let c = joint(&rig, "C");
    assert!(!rig.meshes[0].joint_bounds[c].is_empty(), "C has bounds");
    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    let aabb = evaluate_pose(
        &rig,
        &[],
        &[Layer::clip(0, 0.5)],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    let p = skin_by_hand(&f, &rig, &palette)[0];
    assert!(p.x > 200.0, "vertex 0 follows C: {p}");
    assert!(aabb.contains(p, 1e-4), "vertex 0 at {p} outside {aabb:?}");
}

//! Propagation and skin matrices

use glam::{Affine3A, Mat4, Quat, Vec3};
use sinew::cpu::{evaluate_pose, local_to_model, skin_palette};
use sinew::{ImportErrorKind, MAX_JOINTS, Mat3x4Rows, Rig, Sqt, bake_rigs};

use super::common::assert_matrix_close;
use super::fixtures::{Fixture, affine_from, at, cols, joint, rz, trs};

/// J0 → J1 → J2, rest identity (locals are given explicitly).
fn chain3() -> Fixture {
    let mut f = Fixture::new();
    let j0 = f.node("J0", None, Sqt::IDENTITY);
    let j1 = f.node("J1", Some(j0), Sqt::IDENTITY);
    f.node("J2", Some(j1), Sqt::IDENTITY);
    f
}

/// J0: T (1, 0, 0) Rz(90°); J1: T (0, 2, 0) S 2; J2: T (1, 0, 0).
fn chain3_locals() -> [Sqt; 3] {
    [
        trs([1.0, 0.0, 0.0], rz(90.0), [1.0; 3]),
        trs([0.0, 2.0, 0.0], Quat::IDENTITY, [2.0; 3]),
        at([1.0, 0.0, 0.0]),
    ]
}

/// By hand: M0 p = (1 - y, x, z); M1 p = M0((0, 2, 0) + 2p) = (-1 - 2y, 2x, 2z);
/// M2 p = M1(p + (1, 0, 0)) = (-1 - 2y, 2 + 2x, 2z).
fn chain3_models() -> [[f32; 16]; 3] {
    [
        affine_from(
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
        ),
        affine_from(
            [0.0, 2.0, 0.0],
            [-2.0, 0.0, 0.0],
            [0.0, 0.0, 2.0],
            [-1.0, 0.0, 0.0],
        ),
        affine_from(
            [0.0, 2.0, 0.0],
            [-2.0, 0.0, 0.0],
            [0.0, 0.0, 2.0],
            [-1.0, 2.0, 0.0],
        ),
    ]
}

#[test]
fn propagation_multiplies_local_transforms_down_a_chain() {
    let rig = chain3().node_rig();
    let mut models = [Affine3A::IDENTITY; 3];
    local_to_model(
        &rig.skeleton,
        &Affine3A::IDENTITY,
        &chain3_locals(),
        &mut models,
    );
    for (j, expected) in chain3_models().iter().enumerate() {
        assert_matrix_close(&cols(&models[j]), expected, &format!("model of J{j}"));
    }
}

#[test]
fn propagation_applies_the_instance_world_transform_at_the_root() {
    let rig = chain3().node_rig();
    // world p = 2p + (10, 20, 30): M2' p = 2 M2 p + (10, 20, 30) = (8 - 4y, 24 + 4x, 30 + 4z).
    let world = Affine3A::from_scale_rotation_translation(
        Vec3::splat(2.0),
        Quat::IDENTITY,
        Vec3::new(10.0, 20.0, 30.0),
    );
    let mut models = [Affine3A::IDENTITY; 3];
    local_to_model(&rig.skeleton, &world, &chain3_locals(), &mut models);
    let expected = affine_from(
        [0.0, 4.0, 0.0],
        [-4.0, 0.0, 0.0],
        [0.0, 0.0, 4.0],
        [8.0, 24.0, 30.0],
    );
    assert_matrix_close(&cols(&models[2]), &expected, "model of J2 under world");
}

#[test]
fn evaluated_palette_of_a_node_rig_includes_the_world_transform() {
    // The same chain as rest pose, through evaluate_pose (inverse binds are identity, so the
    // palette is the model matrices). world p = Rz(180°) p + (0, 0, 7).
    let mut f = Fixture::new();
    let l = chain3_locals();
    let j0 = f.node("J0", None, l[0]);
    let j1 = f.node("J1", Some(j0), l[1]);
    f.node("J2", Some(j1), l[2]);
    let rig = f.node_rig();
    let world = Affine3A::from_rotation_translation(rz(180.0), Vec3::new(0.0, 0.0, 7.0));
    let mut models = [Affine3A::IDENTITY; 3];
    let mut palette = [Mat3x4Rows::IDENTITY; 3];
    evaluate_pose(&rig, &[], &[], &world, &mut models, &mut palette);
    // Rz(180°)(-1 - 2y, 2 + 2x, 2z) + (0, 0, 7) = (1 + 2y, -2 - 2x, 7 + 2z).
    let expected = affine_from(
        [0.0, -2.0, 0.0],
        [2.0, 0.0, 0.0],
        [0.0, 0.0, 2.0],
        [1.0, -2.0, 7.0],
    );
    assert_matrix_close(&palette[2].to_cols_array(), &expected, "palette of J2");
}

#[test]
fn propagation_includes_a_non_joint_ancestor() {
    // Scene (not a joint: T (0, 0, 5), S 3) → Hip (T (1, 0, 0) Rz(90°)) → Knee (T (0, 2, 0)).
    let mut f = Fixture::new();
    let scene = f.node(
        "Scene",
        None,
        trs([0.0, 0.0, 5.0], Quat::IDENTITY, [3.0; 3]),
    );
    let hip = f.node("Hip", Some(scene), trs([1.0, 0.0, 0.0], rz(90.0), [1.0; 3]));
    let knee = f.node("Knee", Some(hip), at([0.0, 2.0, 0.0]));
    f.skin_with_binds(&[hip, knee], vec![Mat4::IDENTITY; 2]);
    let rigs = bake_rigs(&f.asset).unwrap();
    let rig = &rigs[0];
    assert_eq!(rig.joint_count(), 3, "Scene is pulled into the skeleton");
    let mut models = [Affine3A::IDENTITY; 3];
    let mut palette = [Mat3x4Rows::IDENTITY; 3];
    evaluate_pose(
        rig,
        &[],
        &[],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    // Hip p = 3 (1 - y, x, z) + (0, 0, 5); Knee p = Hip(p + (0, 2, 0)) = (-3 - 3y, 3x, 5 + 3z).
    let hip_expected = affine_from(
        [0.0, 3.0, 0.0],
        [-3.0, 0.0, 0.0],
        [0.0, 0.0, 3.0],
        [3.0, 0.0, 5.0],
    );
    let knee_expected = affine_from(
        [0.0, 3.0, 0.0],
        [-3.0, 0.0, 0.0],
        [0.0, 0.0, 3.0],
        [-3.0, 0.0, 5.0],
    );
    assert_matrix_close(&cols(&models[joint(rig, "Hip")]), &hip_expected, "Hip");
    assert_matrix_close(&cols(&models[joint(rig, "Knee")]), &knee_expected, "Knee");
}

#[test]
fn skin_palette_is_model_times_inverse_bind() {
    let mut f = chain3();
    // Inverse binds: J0 T (-1, 0, 0), J1 S 0.5, J2 identity.
    f.skin_with_binds(
        &[0, 1, 2],
        vec![
            Mat4::from_translation(Vec3::new(-1.0, 0.0, 0.0)),
            Mat4::from_scale(Vec3::splat(0.5)),
            Mat4::IDENTITY,
        ],
    );
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    let models = chain3_models().map(|m| Affine3A::from_mat4(Mat4::from_cols_array(&m)));
    let mut palette = [Mat3x4Rows::IDENTITY; 3];
    skin_palette(&rig.skeleton, &models, &mut palette);
    // P0 p = M0(p - (1, 0, 0)) = (1 - y, x - 1, z); P1 p = M1(p / 2) = (-1 - y, x, z).
    let expected = [
        affine_from(
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, -1.0, 0.0],
        ),
        affine_from(
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [-1.0, 0.0, 0.0],
        ),
        chain3_models()[2],
    ];
    for (j, e) in expected.iter().enumerate() {
        assert_matrix_close(&palette[j].to_cols_array(), e, &format!("palette of J{j}"));
    }
}

#[test]
fn rest_pose_palette_is_identity_when_inverse_binds_undo_the_rest_pose() {
    let mut f = Fixture::new();
    let l = chain3_locals();
    let j0 = f.node("J0", None, l[0]);
    let j1 = f.node("J1", Some(j0), l[1]);
    let j2 = f.node("J2", Some(j1), l[2]);
    f.skin(&[j2, j0, j1]);
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    let mut models = [Affine3A::IDENTITY; 3];
    let mut palette = [Mat3x4Rows::IDENTITY; 3];
    evaluate_pose(
        &rig,
        &[],
        &[],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    let identity = Mat4::IDENTITY.to_cols_array();
    for (j, p) in palette.iter().enumerate() {
        assert_matrix_close(&p.to_cols_array(), &identity, &format!("palette {j}"));
    }
}

/// `n` joints in a chain, each T (0, 1, 0) and Rz(`angle` radians) under the previous one.
fn long_chain(n: usize, angle: f32) -> Fixture {
    let mut f = Fixture::new();
    let q = Quat::from_xyzw(0.0, 0.0, (angle / 2.0).sin(), (angle / 2.0).cos());
    let mut parent = None;
    for i in 0..n {
        parent = Some(f.node(&format!("J{i}"), parent, trs([0.0, 1.0, 0.0], q, [1.0; 3])));
    }
    f
}

#[test]
fn a_chain_of_max_joints_matches_the_closed_form() {
    let n = MAX_JOINTS;
    let angle = 0.02f32;
    let f = long_chain(n, angle);
    let rig = Rig::from_nodes(&f.asset, &[n - 1], "chain").unwrap();
    assert_eq!(rig.joint_count(), n, "joint count");
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    evaluate_pose(
        &rig,
        &[],
        &[],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    // Joint k's model is (T R)^(k+1): its origin is Σ_{i<k+1} Rz(i a)(0, 1, 0) and its rotation
    // Rz((k+1) a). Σ_{i<n} sin(i a) = sin(n a/2) sin((n-1) a/2) / sin(a/2), and likewise with
    // cos((n-1) a/2) for the cosines.
    let a = f64::from(angle);
    let nf = n as f64;
    let common = (nf * a / 2.0).sin() / (a / 2.0).sin();
    let sum_sin = common * ((nf - 1.0) * a / 2.0).sin();
    let sum_cos = common * ((nf - 1.0) * a / 2.0).cos();
    let (s, c) = ((nf * a).sin() as f32, (nf * a).cos() as f32);
    let expected = affine_from(
        [c, s, 0.0],
        [-s, c, 0.0],
        [0.0, 0.0, 1.0],
        [-sum_sin as f32, sum_cos as f32, 0.0],
    );
    let tip = joint(&rig, &format!("J{}", n - 1));
    assert_matrix_close(&cols(&models[tip]), &expected, "tip model matrix");
}

#[test]
fn a_chain_of_max_joints_plus_one_is_too_many() {
    let n = MAX_JOINTS + 1;
    let f = long_chain(n, 0.02);
    let err = Rig::from_nodes(&f.asset, &[n - 1], "chain").unwrap_err();
    match err.kind {
        ImportErrorKind::TooManyJoints { count, limit, .. } => {
            assert_eq!((count, limit), (n, MAX_JOINTS), "count and limit");
        }
        other => panic!("expected TooManyJoints, got {other:?}"),
    }
}

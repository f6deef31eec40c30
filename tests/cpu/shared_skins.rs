//! Skins sharing one skeleton

use glam::{Affine3A, Mat4, Vec3};
use sinew::cpu::evaluate_pose;
use sinew::import::RawMesh;
use sinew::{ImportErrorKind, MAX_JOINTS, Mat3x4Rows, Rig, bake_rigs};

use super::common::{self, assert_matrix_close, assert_vec_close};
use super::fixtures::{Fixture, at, rz, trs};

/// A one-vertex mesh of `skin` fully weighted to skin joint `joint`.
fn point_mesh(name: &str, skin: usize, joint: u16) -> RawMesh {
    RawMesh {
        name: name.to_string(),
        skin: Some(skin),
        positions: vec![[0.0; 3]; 3],
        normals: vec![[0.0; 3]; 3],
        uvs: vec![[0.0; 2]; 3],
        joints: vec![common::eight([joint, 0, 0, 0]); 3],
        weights: vec![common::eight([1.0, 0.0, 0.0, 0.0]); 3],
        indices: vec![0, 1, 2],
        ..RawMesh::default()
    }
}

#[test]
fn two_skins_binding_one_node_differently_share_one_rig_with_an_alias_joint() {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    let a = f.node("A", Some(root), trs([0.0, 1.0, 0.0], rz(90.0), [1.0; 3]));
    let b = f.node("B", Some(a), at([0.0, 1.0, 0.0]));
    f.skin(&[a, b]);
    let alias_bind = Mat4::from_translation(Vec3::new(-5.0, 0.0, 0.0));
    let root_bind = Mat4::from_translation(Vec3::new(0.0, 0.0, 3.0));
    f.skin_with_binds(&[b, root], vec![alias_bind, root_bind]);
    f.asset.meshes = vec![point_mesh("first", 0, 1), point_mesh("second", 1, 0)];

    let rigs = bake_rigs(&f.asset).unwrap();
    assert_eq!(rigs.len(), 1, "one skeleton, one rig");
    let rig = &rigs[0];
    assert_eq!(rig.joint_count(), 4, "Root, A, B and B's alias");
    assert_eq!(rig.skins.len(), 2);
    assert_eq!(
        rig.skins.iter().map(|s| s.index).collect::<Vec<_>>(),
        [0, 1]
    );
    let (s0, s1) = (&rig.skins[0].joints, &rig.skins[1].joints);
    assert_ne!(s0[1], s1[0], "B is bound twice with different binds");
    assert_eq!(rig.meshes[0].joints[0][0], s0[1]);
    assert_eq!(rig.meshes[1].joints[0][0], s1[0]);

    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    evaluate_pose(
        rig,
        &[],
        &[],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    let model_b = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0))
        * Mat4::from_quat(rz(90.0))
        * Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let expected = [
        (s0[1], Mat4::IDENTITY, "skin 0 joint B"),
        (s1[0], model_b * alias_bind, "skin 1 joint B (alias)"),
        (s1[1], root_bind, "skin 1 joint Root"),
    ];
    for (j, m, what) in expected {
        assert_matrix_close(
            &palette[j as usize].to_cols_array(),
            &m.to_cols_array(),
            what,
        );
    }
}

#[test]
fn skins_under_different_roots_stay_separate_rigs() {
    let mut f = Fixture::new();
    let r0 = f.node("R0", None, at([0.0, 0.0, 0.0]));
    let r1 = f.node("R1", None, at([1.0, 0.0, 0.0]));
    f.skin(&[r0]);
    f.skin(&[r1]);
    let rigs = bake_rigs(&f.asset).unwrap();
    assert_eq!(rigs.len(), 2);
    assert_eq!(rigs[1].skins[0].index, 1);
}

#[test]
fn skins_too_many_joints_together_are_split_into_one_rig_each() {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    let half = MAX_JOINTS / 2 + 10;
    let first: Vec<usize> = (0..half)
        .map(|i| f.node(&format!("a{i}"), Some(root), at([i as f32, 0.0, 0.0])))
        .collect();
    let second: Vec<usize> = (0..half)
        .map(|i| f.node(&format!("b{i}"), Some(root), at([0.0, i as f32, 0.0])))
        .collect();
    f.skin(&first);
    f.skin(&second);
    let rigs = bake_rigs(&f.asset).unwrap();
    assert_eq!(
        rigs.len(),
        2,
        "{} joints together exceed the limit",
        2 * half + 1
    );
    for (s, rig) in rigs.iter().enumerate() {
        assert_eq!(rig.joint_count(), half + 1);
        assert_eq!(rig.skins.len(), 1);
        assert_eq!(rig.skins[0].index, s);
    }
}

#[test]
fn robot_expressive_bakes_to_one_rig_with_both_skinned_meshes() {
    let Some(dir) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(dir.join("gltf/RobotExpressive.glb")).unwrap();
    assert_eq!(asset.skins.len(), 2);
    let rigs = bake_rigs(&asset).unwrap();
    assert_eq!(rigs.len(), 1, "two skins on one skeleton");
    assert_eq!(rigs[0].skins.len(), 2);
    let skinned = asset.meshes.len();
    assert_eq!(rigs[0].meshes.len(), skinned);
    assert!(rigs[0].joint_count() <= MAX_JOINTS);
}

#[test]
fn recursive_skeletons_bakes_every_skin_within_the_joint_limit() {
    let Some(dir) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(dir.join("gltf/RecursiveSkeletons.glb")).unwrap();
    let rigs = bake_rigs(&asset).unwrap();
    let mut skins: Vec<usize> = rigs
        .iter()
        .flat_map(|r| r.skins.iter().map(|s| s.index))
        .collect();
    skins.sort_unstable();
    assert_eq!(skins, (0..asset.skins.len()).collect::<Vec<_>>());
    for rig in &rigs {
        assert!(rig.joint_count() <= MAX_JOINTS, "{}", rig.name);
        assert_eq!(rig.clips.joint_count(), rig.joint_count());
    }
}

#[test]
fn a_rig_of_no_skins_is_refused() {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    f.skin(&[root]);
    let err = Rig::from_skins(&f.asset, &[]).unwrap_err();
    assert!(
        matches!(err.kind, ImportErrorKind::NotFound { .. }),
        "{err}"
    );
}

#[test]
fn a_vertex_without_weights_moves_rigidly_with_the_instance() {
    let mut f = Fixture::new();
    let root = f.node("Root", None, trs([2.0, 0.0, 0.0], rz(30.0), [1.0; 3]));
    let arm = f.node("Arm", Some(root), at([0.0, 1.0, 0.0]));
    f.skin(&[root, arm]);
    let mut mesh = point_mesh("body", 0, 1);
    let bind = [1.0, 2.0, 3.0];
    mesh.positions[2] = bind;
    mesh.weights[2] = [0.0; 8];
    f.asset.meshes = vec![mesh];
    let rigs = bake_rigs(&f.asset).unwrap();
    let rig = &rigs[0];
    assert_eq!(rig.joint_count(), 3, "Root, Arm and the model joint");
    let n = rig.joint_count();
    let world = Affine3A::from_rotation_translation(rz(45.0), Vec3::new(10.0, -1.0, 0.5));
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    evaluate_pose(rig, &[], &[], &world, &mut models, &mut palette);
    let m = &rig.meshes[0];
    let skinned = sinew::render::skin_vertex_linear(
        &palette,
        m.joints[2],
        m.weights[2],
        Vec3::from(bind),
        Vec3::Z,
    );
    assert_vec_close(
        &skinned.position.to_array(),
        &world.transform_point3(Vec3::from(bind)).to_array(),
        common::MATRIX_TOLERANCE,
        "vertex without weights",
    );
}

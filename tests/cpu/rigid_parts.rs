//! Rigid parts: meshes on nodes without a skin follow their node, drawn with the rig of their
//! hierarchy (or a node rig when no skin shares it).

use glam::{Affine3A, Mat4, Quat, Vec3};
use sinew::cpu::evaluate_pose;
use sinew::import::RawMesh;
use sinew::render::{SkinningMode, skin_vertex};
use sinew::report::{CpuPose, NodeSelection, PoseRequest, pose_report};
use sinew::{Channel, Layer, Mat3x4Rows, Rig, SkinnedMesh, bake_rigs};

use super::common;
use super::fixtures::{Fixture, at, linear, qv, rz, trs};

/// A one-triangle rigid mesh on `node` (no skin, no joint streams).
fn rigid_mesh(name: &str, node: usize) -> RawMesh {
    RawMesh {
        name: name.to_string(),
        node,
        skin: None,
        positions: vec![[0.5, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 0.5]],
        normals: vec![[0.0, 0.0, 1.0]; 3],
        uvs: vec![[0.0; 2]; 3],
        indices: vec![0, 1, 2],
        ..RawMesh::default()
    }
}

/// The rig's palette for `layers` (instance at the origin).
fn palette_of(rig: &Rig, layers: &[Layer]) -> Vec<Mat3x4Rows> {
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    evaluate_pose(
        rig,
        &[],
        layers,
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    palette
}

/// `rig`'s mesh named `name`.
fn mesh<'a>(rig: &'a Rig, name: &str) -> &'a SkinnedMesh {
    rig.meshes
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("rig {:?} has no mesh {name:?}", rig.name))
}

/// Asserts every vertex of rigid mesh `m`, skinned on the CPU with `palette`, lands at `world` ×
/// its position.
fn assert_follows(m: &SkinnedMesh, palette: &[Mat3x4Rows], world: Mat4) {
    let mesh = &m.name;
    assert_eq!(m.skin, None, "{mesh} is rigid");
    for v in 0..m.vertex_count() {
        let p = Vec3::from(m.positions[v]);
        let got = skin_vertex(
            SkinningMode::Linear,
            palette,
            m.joints[v],
            m.weights[v],
            p,
            Vec3::from(m.normals[v]),
        )
        .position;
        let expected = world.transform_point3(p);
        for k in 0..3 {
            let tol = common::MATRIX_TOLERANCE * expected[k].abs().max(1.0);
            assert!(
                (got[k] - expected[k]).abs() <= tol,
                "{mesh} vertex {v}: drawn at {got}, its node puts it at {expected}"
            );
        }
    }
}

#[test]
fn rigid_meshes_follow_their_nodes_in_the_skin_rig_and_a_node_rig() {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    let a = f.node("A", Some(root), at([0.0, 1.0, 0.0]));
    let b = f.node("B", Some(a), trs([0.0, 1.0, 0.0], Quat::IDENTITY, [2.0; 3]));
    // Not a joint: a helper node under B carrying a part.
    let c = f.node("C", Some(b), at([1.0, 0.0, 0.0]));
    // Another hierarchy: an animated prop, and a static one nothing moves.
    let prop = f.node("Prop", None, at([5.0, 0.0, 0.0]));
    let still = f.node("Still", None, at([-5.0, 0.0, 0.0]));
    f.skin(&[a, b]);
    f.clip(
        "turn",
        vec![
            linear(
                a,
                Channel::Rotation,
                &[0.0, 1.0],
                &[qv(Quat::IDENTITY), qv(rz(90.0))],
            ),
            linear(
                prop,
                Channel::Rotation,
                &[0.0, 1.0],
                &[qv(Quat::IDENTITY), qv(rz(-90.0))],
            ),
        ],
    );
    f.asset.meshes = vec![
        // On joint B, whose inverse bind is not the identity: an alias joint carries it.
        rigid_mesh("on B", b),
        rigid_mesh("on C", c),
        rigid_mesh("on Prop", prop),
        rigid_mesh("on Still", still),
    ];

    let rigs = bake_rigs(&f.asset).unwrap();
    assert_eq!(rigs.len(), 2, "the skin's rig and one node rig");
    let (skin_rig, node_rig) = (&rigs[0], &rigs[1]);
    let names = |r: &Rig| r.meshes.iter().map(|m| m.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(skin_rig), ["on B", "on C"]);
    assert_eq!(
        names(node_rig),
        ["on Prop"],
        "a static hierarchy is not drawn"
    );
    let b_joint = skin_rig.skins[0].joints[1];
    assert_ne!(
        skin_rig.meshes[0].joints[0][0], b_joint,
        "B's skin joint is bound with its inverse bind; the part needs the identity"
    );

    // At t = 1: A turned 90° about z, Prop -90°.
    let turned_a = Mat4::from_translation(Vec3::Y) * Mat4::from_quat(rz(90.0));
    let b_world =
        turned_a * Mat4::from_scale_rotation_translation(Vec3::splat(2.0), Quat::IDENTITY, Vec3::Y);
    let c_world = b_world * Mat4::from_translation(Vec3::X);
    let prop_world = Mat4::from_translation(Vec3::new(5.0, 0.0, 0.0)) * Mat4::from_quat(rz(-90.0));
    let layers = [Layer::clip(0, 1.0)];
    let palette = palette_of(skin_rig, &layers);
    assert_follows(mesh(skin_rig, "on B"), &palette, b_world);
    assert_follows(mesh(skin_rig, "on C"), &palette, c_world);
    let palette = palette_of(node_rig, &layers);
    assert_follows(mesh(node_rig, "on Prop"), &palette, prop_world);
}

#[test]
fn robot_expressive_draws_all_fourteen_meshes_and_its_rigid_parts_follow_pose_node_worlds() {
    let Some(shared) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(shared.join("gltf/RobotExpressive.glb")).unwrap();
    let rigs = bake_rigs(&asset).unwrap();
    assert_eq!(
        rigs.len(),
        1,
        "two skins on one skeleton, twelve parts: one rig"
    );
    let rig = &rigs[0];
    let mut nodes: Vec<u32> = rig.meshes.iter().filter_map(|m| m.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    assert_eq!(nodes.len(), 14, "mesh nodes drawn: {nodes:?}");
    let rigid = rig.meshes.iter().filter(|m| m.skin.is_none()).count();
    assert_eq!(
        rigid,
        rig.meshes.len() - 4,
        "all but the hands' 4 primitives are rigid"
    );

    // `sinew pose --nodes all`'s world matrices, for two clips at two times.
    for (clip, t) in [(0usize, 1.0f32), (6, 0.4)] {
        let request = PoseRequest {
            clip: Some((clip, vec![t])),
            nodes: NodeSelection::All,
        };
        let report = pose_report(&asset, &request, &mut CpuPose).unwrap();
        let worlds = report.nodes.unwrap().frames.remove(0).world;
        let palette = palette_of(rig, &[Layer::clip(clip as u32, t)]);
        for m in rig.meshes.iter().filter(|m| m.skin.is_none()) {
            let node = m.node.unwrap() as usize;
            let world = Mat4::from_cols_array(&worlds[node]);
            assert_follows(m, &palette, world);
        }
    }
}

//! Root motion

use glam::{Affine3A, Quat, Vec2, Vec3};
use hecs::{Entity, World};
use sinew::import::RawNode;
use sinew::runtime::{Animated, Animator, BlendSpaceDef, RootTranslation, Transform};
use sinew::{InstanceRecord, Rig, Sqt};

use super::common;
use super::fixtures::{
    DT, animator, assert_close, joint, models, palette, record, run, sample, spawn_walker,
    test_rig, z_up_rig,
};

#[test]
fn root_motion_over_loops_sums_to_the_clip_displacement() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_walker(&a, &mut world, "walk", Transform::IDENTITY);
    // Uneven steps that cross the seam: 0.13 × 10 = 1.3 s, then 0.7 s to complete two loops.
    run(&mut a, &mut world, 10, 0.13);
    a.update(&mut world, 0.7).unwrap();
    let t = world.get::<&Transform>(e).unwrap().translation;
    // walk moves 1 m (last key - first key) per loop.
    common::assert_vec_close(&t.to_array(), &[0.0, 0.0, 2.0], 1e-5, "after two loops");
    // One step spanning 2.5 loops.
    a.update(&mut world, 2.5).unwrap();
    let t = world.get::<&Transform>(e).unwrap().translation;
    common::assert_vec_close(&t.to_array(), &[0.0, 0.0, 4.5], 1e-5, "after 4.5 loops");
}

#[test]
fn root_motion_is_removed_from_the_pose() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_walker(&a, &mut world, "walk", Transform::IDENTITY);
    run(&mut a, &mut world, 20, DT);
    let moved = world.get::<&Transform>(e).unwrap().translation;
    assert!(moved.z > 0.3, "the entity moved forward ({moved})");
    let root = joint(&a, "Root");
    let rec = record(&a, &world, e);
    assert_eq!(rec.flags & InstanceRecord::ROOT_JOINT, root as u32);
    assert_ne!(rec.flags & InstanceRecord::HOLD_ROOT_XZ, 0);
    // The root's model translation is the entity's, plus the rest XZ (zero) and the clip's Y bob.
    let m = models(&a, &world, e)[root];
    assert_close(m.translation.x, moved.x, 1e-5, "root x");
    assert_close(m.translation.z, moved.z, 1e-5, "root z");
    assert!(m.translation.y > 0.0, "the vertical bob stays in the pose");
    // The same through the CPU backend (inverse binds are identity: palette = model).
    let p = palette(&mut a, &world, e)[root];
    assert_close(p[11], moved.z, 1e-5, "palette root z");
}

#[test]
fn root_motion_follows_the_entity_orientation() {
    let mut a = animator();
    let mut world = World::new();
    let facing_x =
        Transform::IDENTITY.with_rotation(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
    let e = spawn_walker(&a, &mut world, "walk", facing_x);
    run(&mut a, &mut world, 5, 0.1);
    let t = world.get::<&Transform>(e).unwrap().translation;
    common::assert_vec_close(
        &t.to_array(),
        &[0.5, 0.0, 0.0],
        1e-5,
        "half a loop toward +X",
    );
}

#[test]
fn root_yaw_turns_the_entity_and_leaves_the_pose() {
    let mut a = animator();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.playback(0, "turn").unwrap(),
        a.root_motion(0, "Root", RootTranslation::Xz, true).unwrap(),
    ));
    run(&mut a, &mut world, 10, 0.1);
    let rotation = world.get::<&Transform>(e).unwrap().rotation;
    common::assert_quat_close(rotation, Quat::from_rotation_y(0.5), "yaw after one loop");
    let root = joint(&a, "Root");
    let m = models(&a, &world, e)[root];
    let (_, pose_rotation, _) = m.to_scale_rotation_translation();
    common::assert_quat_close(pose_rotation, rotation, "the pose adds no yaw of its own");
}

#[test]
fn root_motion_blends_with_the_blend_weights() {
    let mut a = animator();
    let space = a
        .add_blend_space(
            0,
            "gait",
            &BlendSpaceDef {
                x: "speed".to_string(),
                y: None,
                samples: vec![sample("walk", 1.0, 0.0), sample("run", 3.0, 0.0)],
            },
        )
        .unwrap();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.blend_space_fade(0, space, Vec2::new(2.0, 0.0)).unwrap(),
        a.root_motion(0, "Root", RootTranslation::Xz, false)
            .unwrap(),
    ));
    run(&mut a, &mut world, 60, DT);
    // Half walk (1 m per 1 s), half run (1.8 m per 0.6 s), on a shared phase of
    // 0.5 × 1 + 0.5 × 0.6 = 0.8 s per cycle: (0.5 × 1 + 0.5 × 1.8) / 0.8 = 1.75 m/s.
    let t = world.get::<&Transform>(e).unwrap().translation;
    assert_close(t.z, 1.75, 1e-4, "distance after 1 s");
}

// Root motion in model space: rigs exported Z-up, with rotated nodes above the root.

/// Rest node `name` under `parent` with translation `t`, rotation `r` and uniform scale `s`.
pub(crate) fn posed_node(name: &str, parent: Option<usize>, t: Vec3, r: Quat, s: f32) -> RawNode {
    RawNode {
        name: name.to_string(),
        parent,
        rest: Sqt {
            translation: t,
            rotation: r,
            scale: Vec3::splat(s),
        },
    }
}

/// Rest-pose model matrices of `rig`.
fn rest_models(rig: &Rig) -> Vec<Affine3A> {
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    sinew::cpu::local_to_model(
        &rig.skeleton,
        &Affine3A::IDENTITY,
        rig.skeleton.rest_pose(),
        &mut models,
    );
    models
}

/// Plays `clip` on `rig` from `start` with root motion of `root` (XZ, and yaw if `yaw`) for
/// `steps` updates of `dt`. After every update: the entity stayed at its height (root motion
/// along the world's XZ plane) and the root's model-space X and Z (in the entity's frame) are
/// the rest pose's. Returns the animator, world and entity, and the root's model-space heights.
fn walk_checking_the_ground_plane(
    rig: &Rig,
    root: &str,
    clip: &str,
    yaw: bool,
    start: Transform,
    steps: usize,
    dt: f32,
) -> (Animator, World, Entity, Vec<f32>) {
    let mut a = Animator::new(vec![rig.clone()]).unwrap();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        start,
        a.playback(0, clip).unwrap(),
        a.root_motion(0, root, RootTranslation::Xz, yaw).unwrap(),
    ));
    let j = joint(&a, root);
    let rest = rest_models(rig)[j].translation;
    let mut heights = Vec::new();
    for step in 0..steps {
        a.update(&mut world, dt).unwrap();
        let transform = *world.get::<&Transform>(e).unwrap();
        assert_close(
            transform.translation.y,
            start.translation.y,
            common::EXACT_TOLERANCE,
            &format!("{clip}: entity height after update {step}"),
        );
        let root_world = models(&a, &world, e)[j].translation;
        let in_model = transform
            .to_affine()
            .inverse()
            .transform_point3(root_world.into());
        let what = format!("{clip}: held root model X/Z after update {step}");
        common::assert_vec_close(
            &[in_model.x, in_model.z],
            &[rest.x, rest.z],
            common::EXACT_TOLERANCE,
            &what,
        );
        heights.push(in_model.y);
    }
    (a, world, e, heights)
}

#[test]
fn root_frames_walked_up_equal_the_table() {
    for rig in [z_up_rig(), test_rig()] {
        let table = sinew::cpu::RootFrame::table(&rig);
        let models = rest_models(&rig);
        for (j, frame) in table.iter().enumerate() {
            assert_eq!(
                sinew::cpu::RootFrame::of_root(&rig, j),
                *frame,
                "{} joint {j}",
                rig.name
            );
            let parent = rig.skeleton.parents()[j];
            let expected = if parent == sinew::NO_PARENT {
                Vec3::X
            } else {
                models[parent as usize].transform_vector3(Vec3::X)
            };
            let got = frame.vector_to_model(Vec3::X);
            common::assert_vec_close(&got.to_array(), &expected.to_array(), 1e-6, "x axis");
            let back = frame.vector_from_model(got);
            common::assert_vec_close(&back.to_array(), &[1.0, 0.0, 0.0], 1e-6, "round trip");
        }
    }
}

#[test]
fn z_up_root_motion_moves_along_the_ground_and_holds_model_xz() {
    let rig = z_up_rig();
    let start = Transform {
        translation: Vec3::new(1.0, 0.5, -2.0),
        rotation: Quat::from_rotation_y(0.3),
        scale: Vec3::ONE,
    };
    let (_, world, e, heights) =
        walk_checking_the_ground_plane(&rig, "Root", "walk", false, start, 10, 0.1);
    // One cycle: the model-space displacement 2 × (sin 0.7, 0, cos 0.7), turned by the entity.
    let cycle = Vec3::new(2.0 * 0.7f32.sin(), 0.0, 2.0 * 0.7f32.cos());
    let expected = start.translation + start.rotation * cycle;
    let t = world.get::<&Transform>(e).unwrap().translation;
    common::assert_vec_close(
        &t.to_array(),
        &expected.to_array(),
        common::EXACT_TOLERANCE,
        "after one cycle",
    );
    // The bob (parent +Z, model +Y, scaled by 2) stays in the pose.
    let (lo, hi) = heights
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), &y| (l.min(y), h.max(y)));
    assert!(hi - lo > 0.05, "the root bobs in the pose ({lo} to {hi})");
}

#[test]
fn z_up_root_yaw_turns_about_world_up_and_leaves_the_pose() {
    let rig = z_up_rig();
    let start = Transform::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let (a, world, e, _) =
        walk_checking_the_ground_plane(&rig, "Root", "turn", true, start, 10, 0.1);
    let rotation = world.get::<&Transform>(e).unwrap().rotation;
    common::assert_quat_close(rotation, Quat::from_rotation_y(0.5), "yaw after one cycle");
    // The pose keeps the root's rest yaw: its world rotation is the entity's times its rest
    // model rotation.
    let root = joint(&a, "Root");
    let (_, rest, _) = rest_models(&rig)[root].to_scale_rotation_translation();
    let (_, posed, _) = models(&a, &world, e)[root].to_scale_rotation_translation();
    common::assert_quat_close(posed, rotation * rest, "the pose adds no yaw of its own");
}

#[test]
fn cesium_man_root_motion_stays_on_the_ground_plane() {
    let Some(shared) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(shared.join("gltf/CesiumMan.glb")).unwrap();
    let rig = Rig::from_skin(&asset, 0).unwrap();
    let a = Animator::new(vec![rig.clone()]).unwrap();
    let root = a.root_joint(0).unwrap() as usize;
    let name = rig.skeleton.names()[root].clone();
    assert_ne!(
        rig.skeleton.parents()[root],
        sinew::NO_PARENT,
        "the root sits under Z_UP and Armature"
    );
    let clip = rig.clips.clips()[0].name.clone();
    let start = Transform {
        translation: Vec3::new(-3.0, 0.25, 4.0),
        rotation: Quat::from_rotation_y(-1.1),
        scale: Vec3::ONE,
    };
    for yaw in [false, true] {
        let (_, _, _, heights) =
            walk_checking_the_ground_plane(&rig, &name, &clip, yaw, start, 60, 1.0 / 30.0);
        // The walk's bob (the root's parent-space Z) is model Y: it stays in the pose.
        let (lo, hi) = heights
            .iter()
            .fold((f32::MAX, f32::MIN), |(l, h), &y| (l.min(y), h.max(y)));
        assert!(hi - lo > 0.02, "the root bobs in the pose ({lo} to {hi})");
    }
}

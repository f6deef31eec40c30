//! Retargeted entities (`Retargeted`, `Animator::add_retarget_map`): an entity of one rig
//! playing another rig's clips through a registered map writes records whose layers name the
//! map (and its mirror), and snapshots and controller configurations keep the choice.

use glam::Affine3A;
use hecs::World;
use sinew::baked::retarget_map::RetargetMap;
use sinew::cpu::{local_to_model, retarget_pose};
use sinew::math::MirrorPlane;
use sinew::runtime::{
    Animated, Animator, AnimatorConfig, Attachment, ClipLayer, ControllerConfig, Layers, Playback,
    Retargeted, RootMotion, RootTranslation, RuntimeError, RuntimeSnapshot, Transform,
};
use sinew::{LayerRecord, Rig, Sqt};

use super::fixtures::{DT, run, test_asset, test_rig, z_up_rig};

/// The test rig (rig 0) and a source rig of the same skeleton named "source" whose clips are
/// the test rig's without "idle", so its clip indices differ from the target's by one; the map
/// is the identity (every joint, translations included, as the source's).
fn retarget_animator() -> (Animator, u32) {
    let mut asset = test_asset();
    asset.clips.remove(0);
    let mut source = Rig::from_skin(&asset, 0).unwrap();
    source.name = "source".to_string();
    let target = test_rig();
    let map = RetargetMap::identity(&target.skeleton);
    let mut a = Animator::new(vec![target, source]).unwrap();
    let m = a.add_retarget_map(1, 0, map).unwrap();
    (a, m)
}

#[test]
fn retargeted_entities_write_records_naming_the_map() {
    let (mut a, map) = retarget_animator();
    let mut world = World::new();
    let walk = a.clip(1, "walk").unwrap();
    let wave = a.clip(1, "wave").unwrap();
    assert_ne!(
        walk,
        a.clip(0, "walk").unwrap(),
        "the rigs number their clips apart"
    );
    let layers = Layers::from_layers(&[ClipLayer::new(wave).with_weight(0.5)]).unwrap();
    let plain = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        Playback::new(walk),
        Retargeted::new(map),
        layers,
    ));
    let mirrored = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        Playback::new(walk),
        Retargeted::new(map).mirrored(),
    ));
    let own = world.spawn((Animated::new(0), Transform::IDENTITY, Playback::new(walk)));
    run(&mut a, &mut world, 3, DT);
    let rec = a.record_of(&world, plain).unwrap();
    assert_eq!(rec.rig, 0, "the record is the target rig's");
    assert_eq!(rec.layer_count, 2);
    assert_eq!(
        rec.layers[0].retarget(),
        Some((map as usize, walk as usize))
    );
    assert_eq!(
        rec.layers[1].retarget(),
        Some((map as usize, wave as usize))
    );
    assert!(
        rec.layers[..2]
            .iter()
            .all(|l| l.flags & LayerRecord::MIRROR == 0)
    );
    // The clock runs on the source clip's timeline.
    let duration = a.rigs()[1].clips.clips()[walk as usize].duration;
    assert_eq!(rec.layers[0].period, duration);
    let rec = a.record_of(&world, mirrored).unwrap();
    assert_eq!(
        rec.layers[0].retarget(),
        Some((map as usize, walk as usize))
    );
    assert_ne!(rec.layers[0].flags & LayerRecord::MIRROR, 0);
    // Without the component the clip is the entity's own rig's.
    let rec = a.record_of(&world, own).unwrap();
    assert_eq!(rec.layers[0].retarget(), None);
    assert_eq!(rec.layers[0].clip, walk);
}

#[test]
fn a_map_that_does_not_fit_is_refused_and_an_unknown_one_plays_rest() {
    let (mut a, map) = retarget_animator();
    // A map between other skeletons.
    let z_up = z_up_rig();
    let wrong = RetargetMap::build(&z_up.skeleton, &z_up.skeleton, None).unwrap();
    let err = a.add_retarget_map(1, 0, wrong).unwrap_err();
    assert!(
        matches!(err, RuntimeError::InvalidRetargetMap { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("source"), "{err}");
    let mut world = World::new();
    let walk = a.clip(1, "walk").unwrap();
    // A map that does not exist, and one whose target is another rig (rig 1 is its source).
    let unknown = world.spawn((
        Animated::new(0),
        Playback::new(walk),
        Retargeted::new(map + 1),
    ));
    let other_rig = world.spawn((Animated::new(1), Playback::new(walk), Retargeted::new(map)));
    let err = a.update(&mut world, DT).unwrap_err();
    assert!(
        matches!(err, RuntimeError::InvalidComponent { .. }),
        "{err:?}"
    );
    for e in [unknown, other_rig] {
        assert_eq!(a.record_of(&world, e).unwrap().layer_count, 0, "rest pose");
    }
}

/// Root motion on the CPU reads the root through the map, as the kernel does: through the
/// identity map the entity travels as the source rig's own entity does, and through its mirror
/// the same with X negated.
#[test]
fn root_motion_on_the_cpu_follows_the_map() {
    let (mut a, map) = retarget_animator();
    let mut world = World::new();
    let turn = a.clip(1, "turn").unwrap();
    let root = a.root_joint(0).unwrap();
    let mut spawn = |rig: u32, through: Option<Retargeted>| {
        let e = world.spawn((
            Animated::new(rig),
            Transform::IDENTITY,
            Playback::new(turn).with_speed(0.9),
            RootMotion::new(root, RootTranslation::Xz, true),
        ));
        if let Some(r) = through {
            world.insert_one(e, r).unwrap();
        }
        e
    };
    let own = spawn(1, None);
    let plain = spawn(0, Some(Retargeted::new(map)));
    let mirrored = spawn(0, Some(Retargeted::new(map).mirrored()));
    run(&mut a, &mut world, 50, DT);
    let at = |e| *world.get::<&Transform>(e).unwrap();
    let (own, plain, mirrored) = (at(own), at(plain), at(mirrored));
    assert!(own.translation.length() > 0.5, "{own:?}");
    assert!(
        plain.translation.abs_diff_eq(own.translation, 1e-5),
        "{plain:?} {own:?}"
    );
    assert!(plain.rotation.abs_diff_eq(own.rotation, 1e-5));
    let flipped = own.translation * glam::Vec3::new(-1.0, 1.0, 1.0);
    assert!(
        mirrored.translation.abs_diff_eq(flipped, 1e-5),
        "{mirrored:?} {own:?}"
    );
}

/// The animator's CPU evaluation and attachments follow the map: the pose is the CPU twin's
/// (`retarget_pose`) at the record's clip time, mirrored or not, and an attachment sits on the
/// retargeted joint.
#[test]
fn cpu_evaluation_and_attachments_follow_the_map() {
    let (mut a, map) = retarget_animator();
    let mut world = World::new();
    let wave = a.clip(1, "wave").unwrap();
    let entities: Vec<_> = [false, true]
        .into_iter()
        .map(|mirror| {
            let through = match mirror {
                true => Retargeted::new(map).mirrored(),
                false => Retargeted::new(map),
            };
            world.spawn((
                Animated::new(0),
                Transform::IDENTITY,
                Playback::new(wave),
                through,
            ))
        })
        .collect();
    let hand = world.spawn((Transform::IDENTITY, Attachment::new(entities[0], "Arm")));
    run(&mut a, &mut world, 40, DT);
    let now = a.frame_time();
    let arm = a.joint(0, "Arm").unwrap() as usize;
    let pose = a.evaluate_cpu().unwrap();
    let palette = pose.palette.to_vec();
    let bindings = a.retarget_maps().to_vec();
    let (target, source) = (&a.rigs()[0], &a.rigs()[1]);
    let n = target.joint_count();
    for (e, mirror) in entities.iter().zip([false, true]) {
        let rec = *a.record_of(&world, *e).unwrap();
        let time = rec.layers_at(now).next().unwrap().time;
        let m = if mirror {
            &bindings[0].mirrored
        } else {
            &bindings[0].map
        };
        let mut locals = vec![Sqt::IDENTITY; n];
        retarget_pose(m, source, wave as usize, time, &mut locals);
        let mut models = vec![Affine3A::IDENTITY; n];
        local_to_model(&target.skeleton, &Affine3A::IDENTITY, &locals, &mut models);
        let start = rec.palette_offset as usize;
        for j in 0..n {
            // The test rig's inverse binds are identities: each entry is the joint's model.
            let got = palette[start + j].to_affine();
            assert!(
                got.abs_diff_eq(models[j], 1e-5),
                "mirror {mirror} joint {j}: {got:?} vs {:?}",
                models[j]
            );
        }
        if !mirror {
            let attached = world.get::<&Transform>(hand).unwrap().to_affine();
            assert!(attached.abs_diff_eq(models[arm], 1e-5), "{attached:?}");
        }
    }
    // The wave moves the arm, and the mirror moves it otherwise.
    let (plain, mirrored) = (
        a.record_of(&world, entities[0]).unwrap().palette_offset as usize,
        a.record_of(&world, entities[1]).unwrap().palette_offset as usize,
    );
    let moved = |i: usize| palette[i + arm].to_affine();
    assert!(!moved(plain).abs_diff_eq(moved(mirrored), 1e-3));
}

#[test]
fn snapshots_and_controllers_keep_the_retargeting() {
    let (mut a, map) = retarget_animator();
    let mut world = World::new();
    let walk = a.clip(1, "walk").unwrap();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        Playback::new(walk).with_speed(0.7),
        Retargeted::new(map).mirrored(),
    ));
    run(&mut a, &mut world, 20, DT);
    let json = a.save_state(&world).unwrap().to_json().unwrap();
    let (mut b, _) = retarget_animator();
    let mut restored = World::new();
    b.restore_state(&mut restored, &RuntimeSnapshot::from_json(&json).unwrap())
        .unwrap();
    assert_eq!(
        *restored.get::<&Retargeted>(e).unwrap(),
        Retargeted::new(map).mirrored()
    );
    run(&mut a, &mut world, 5, DT);
    run(&mut b, &mut restored, 5, DT);
    assert_eq!(a.record_of(&world, e), b.record_of(&restored, e));
    // Restored onto an animator without the map, the snapshot is refused.
    let mut bare = Animator::new(a.rigs().to_vec()).unwrap();
    let err = bare
        .restore_state(
            &mut World::new(),
            &RuntimeSnapshot::from_json(&json).unwrap(),
        )
        .unwrap_err();
    assert!(matches!(err, RuntimeError::BadSnapshot { .. }), "{err:?}");

    // The controller names the source rig and clip by name.
    let controller = a.controller(&world, e).unwrap();
    let text = controller.to_json().unwrap();
    assert!(text.contains("\"source\": \"source\""), "{text}");
    assert!(text.contains("\"mirror\": true"), "{text}");
    let mut fresh = World::new();
    let f = fresh.spawn(());
    b.apply_controller(&mut fresh, f, &ControllerConfig::from_json(&text).unwrap())
        .unwrap();
    assert_eq!(
        *fresh.get::<&Retargeted>(f).unwrap(),
        Retargeted::new(map).mirrored()
    );
    assert_eq!(fresh.get::<&Playback>(f).unwrap().clip, walk);
    // Without a map between the rigs the controller is refused.
    let err = bare
        .apply_controller(&mut fresh, f, &controller)
        .unwrap_err();
    assert!(
        matches!(err, RuntimeError::InvalidRetargetMap { .. }),
        "{err:?}"
    );
}

#[test]
fn the_configuration_keeps_retarget_maps_by_joint_name() {
    let (mut a, map) = retarget_animator();
    // A map built by matching, beside the identity: rotations corrected, root scaled.
    let rigs = a.rigs().to_vec();
    let built = RetargetMap::build(&rigs[1].skeleton, &rigs[0].skeleton, None).unwrap();
    let second = a.add_retarget_map(1, 0, built).unwrap();
    // And one mirrored across Z = 0.
    let identity = RetargetMap::identity(&rigs[0].skeleton);
    a.add_retarget_map_mirrored_across(1, 0, identity, MirrorPlane::Z)
        .unwrap();
    let json = a.config().to_json().unwrap();
    assert!(json.contains("\"retarget_maps\""), "{json}");
    assert_eq!(json.matches("\"mirror_plane\": \"z\"").count(), 1, "{json}");
    let config = AnimatorConfig::from_json(&json).unwrap();
    let mut b = Animator::new(rigs.clone()).unwrap();
    b.load_config(&config).unwrap();
    assert_eq!(b.retarget_maps().len(), 3);
    assert_eq!(b.retarget_maps()[2].mirrored.plane(), MirrorPlane::Z);
    for (m, n) in a.retarget_maps().iter().zip(b.retarget_maps()) {
        assert_eq!((m.source, m.target), (n.source, n.target));
        assert_eq!(m.map.entries(), n.map.entries());
        assert_eq!(m.mirrored.entries(), n.mirrored.entries());
    }
    assert_eq!(second, 1);
    // A snapshot restores onto the animator the configuration made.
    let mut world = World::new();
    let walk = a.clip(1, "walk").unwrap();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        Playback::new(walk),
        Retargeted::new(map).mirrored(),
    ));
    run(&mut a, &mut world, 10, DT);
    let snapshot = a.save_state(&world).unwrap();
    let mut restored = World::new();
    b.restore_state(&mut restored, &snapshot).unwrap();
    run(&mut a, &mut world, 3, DT);
    run(&mut b, &mut restored, 3, DT);
    assert_eq!(a.record_of(&world, e), b.record_of(&restored, e));

    // A damaged map is refused naming the rigs and the joint at fault.
    let mut bad = config.clone();
    bad.retarget_maps[0].joints[1].source = Some("nowhere".to_string());
    let err = Animator::new(rigs.clone())
        .unwrap()
        .load_config(&bad)
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, RuntimeError::InvalidRetargetMap { .. }),
        "{err:?}"
    );
    assert!(
        text.contains("nowhere") && text.contains("source"),
        "{text}"
    );
    let mut bad = config.clone();
    bad.retarget_maps[0].joints[0].pre = [0.0, 0.0, 0.0, 2.0];
    let err = Animator::new(rigs.clone()).unwrap().load_config(&bad);
    assert!(err.unwrap_err().to_string().contains("unit rotation"));
    let mut bad = config;
    bad.retarget_maps[0].joints.pop();
    let err = Animator::new(rigs).unwrap().load_config(&bad);
    assert!(err.unwrap_err().to_string().contains("has no entry"));
}

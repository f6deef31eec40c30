//! Clips of duration 0 (one key per track: a pose) play as a constant: in every loop mode and
//! direction, under both schedulings, in layers, cross-fades and state machines; their clock
//! stays at 0 and their events never fire.

use glam::{Quat, Vec2, Vec3};
use hecs::World;
use sinew::runtime::{
    Animator, ClipLayer, Clock, CrossFade, LoopMode, Motion, Playback, Scheduling, StateMachineDef,
    TransitionDef,
};
use sinew::{Rig, TimeWrap};

use super::fixtures::{
    DT, clip, clip_id, drain, joint, models, record, rotation, run, sample, spawn_machine,
    spawn_playing, spawn_walker, state_of, test_asset, translation,
};

/// The test rig plus "pose": the arm turned 0.7 rad about z and the root 0.5 m along z, each
/// one key at time 0.
fn pose_animator() -> Animator {
    let mut asset = test_asset();
    asset.clips.push(clip(
        "pose",
        vec![
            rotation(4, &[0.0], Vec3::Z, &[0.7]),
            translation(0, &[0.0], &[Vec3::new(0.0, 0.0, 0.5)]),
        ],
    ));
    let rig = Rig::from_skin(&asset, 0).unwrap();
    assert_eq!(rig.clips.clips().last().unwrap().duration, 0.0);
    Animator::new(vec![rig]).unwrap_or_else(|e| panic!("a pose clip is valid: {e}"))
}

/// Asserts the arm of `entity` holds the pose: turned 0.7 rad about z.
fn assert_posed(a: &Animator, world: &World, entity: hecs::Entity, what: &str) {
    let m = models(a, world, entity);
    let arm = m[joint(a, "Arm")];
    assert!(arm.is_finite(), "{what}: {arm:?}");
    let (_, r, _) = arm.to_scale_rotation_translation();
    let angle = r.angle_between(Quat::from_rotation_z(0.7));
    assert!(
        angle <= super::common::EXACT_TOLERANCE * 10.0,
        "{what}: arm rotation {r:?}"
    );
}

#[test]
fn pose_plays_as_a_constant_in_every_mode_direction_and_scheduling() {
    for scheduling in [Scheduling::PerFrame, Scheduling::EventDriven] {
        for mode in [LoopMode::Loop, LoopMode::Clamp, LoopMode::PingPong] {
            for speed in [1.0, -2.5] {
                let what = format!("{scheduling:?} {mode:?} at speed {speed}");
                let mut a = pose_animator();
                a.set_scheduling(scheduling);
                let pose = clip_id(&a, "pose");
                let mut world = World::new();
                let e = spawn_playing(
                    &mut world,
                    Playback::new(pose)
                        .with_mode(mode)
                        .with_speed(speed)
                        .with_time(0.3),
                );
                for frame in 0..4 {
                    run(&mut a, &mut world, 1, 0.37);
                    let time = world.get::<&Playback>(e).unwrap().time();
                    assert_eq!(time, 0.0, "{what}: playback time at frame {frame}");
                    let rec = record(&a, &world, e);
                    assert_eq!(rec.layers[0].time, 0.0, "{what}: record time");
                    assert_posed(&a, &world, e, &what);
                }
                a.scrub(&mut world, e, 5.0, true).unwrap();
                assert_eq!(world.get::<&Playback>(e).unwrap().time(), 0.0);
            }
        }
    }
}

#[test]
fn events_on_a_pose_never_fire() {
    let mut a = pose_animator();
    a.add_event(0, "pose", 0.0, "hit").unwrap();
    assert!(
        a.add_event(0, "pose", 0.1, "late").is_err(),
        "an event after the end of a pose"
    );
    let mut world = World::new();
    for mode in [LoopMode::Loop, LoopMode::Clamp, LoopMode::PingPong] {
        spawn_playing(
            &mut world,
            Playback::new(clip_id(&a, "pose")).with_mode(mode),
        );
    }
    run(&mut a, &mut world, 20, 0.1);
    assert!(
        drain(&mut a).is_empty(),
        "the clock of a pose does not move"
    );
}

#[test]
fn cross_fades_into_and_out_of_a_pose_are_continuous() {
    let mut a = pose_animator();
    let pose = clip_id(&a, "pose");
    let walk = clip_id(&a, "walk");
    let mut world = World::new();
    let e = world.spawn((
        sinew::runtime::Animated::new(0),
        sinew::runtime::Transform::IDENTITY,
        a.cross_fade(0, "walk").unwrap(),
    ));
    run(&mut a, &mut world, 3, DT);
    world
        .get::<&mut CrossFade>(e)
        .unwrap()
        .fade_to(Motion::Clip(pose), Clock::default(), 0.2);
    // The arm turns towards the pose step by step, never jumping back.
    let mut to_pose = f32::INFINITY;
    for frame in 0..6 {
        a.update(&mut world, 0.05).unwrap();
        let m = models(&a, &world, e);
        let (_, r, _) = m[joint(&a, "Arm")].to_scale_rotation_translation();
        let angle = r.angle_between(Quat::from_rotation_z(0.7));
        assert!(
            angle <= to_pose + 1e-5 && (frame == 0 || angle < 0.7),
            "frame {frame}: {angle} rad from the pose, {to_pose} before"
        );
        to_pose = angle;
        let rec = record(&a, &world, e);
        for layer in rec.used_layers() {
            assert!(layer.time.is_finite() && layer.weight.is_finite());
            if layer.clip == pose {
                assert_eq!(layer.time, 0.0);
            }
        }
    }
    let rec = record(&a, &world, e);
    assert_eq!((rec.layer_count, rec.layers[0].clip), (1, pose));
    assert_posed(&a, &world, e, "after the fade in");
    world
        .get::<&mut CrossFade>(e)
        .unwrap()
        .fade_to(Motion::Clip(walk), Clock::default(), 0.2);
    run(&mut a, &mut world, 6, 0.05);
    let rec = record(&a, &world, e);
    assert_eq!((rec.layer_count, rec.layers[0].clip), (1, walk));
}

#[test]
fn a_pose_layer_fades_in_over_a_playing_clip() {
    let mut a = pose_animator();
    let mut world = World::new();
    let e = spawn_playing(&mut world, Playback::new(clip_id(&a, "walk")));
    let mut layer = ClipLayer::new(clip_id(&a, "pose")).with_weight(0.0);
    layer.fade_weight(1.0, 0.5);
    world
        .insert_one(e, sinew::runtime::Layers::from_layers(&[layer]).unwrap())
        .unwrap();
    run(&mut a, &mut world, 5, 0.05);
    let rec = record(&a, &world, e);
    assert!((rec.layers[1].weight - 0.5).abs() <= 1e-5, "half way");
    assert_eq!(rec.layers[1].time, 0.0);
    run(&mut a, &mut world, 10, 0.05);
    assert_eq!(record(&a, &world, e).layers[1].weight, 1.0);
    assert_posed(&a, &world, e, "pose layer at full weight");
}

#[test]
fn a_pose_state_reaches_its_exit_time_at_once() {
    let mut a = pose_animator();
    let def = StateMachineDef::new("poser")
        .clip_state("pose", "pose")
        .clip_state("walk", "walk")
        .transition(TransitionDef::new("pose", "walk").after(1.0).fade(0.1));
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &def);
    run(&mut a, &mut world, 2, DT);
    assert_eq!(state_of(&a, &world, e), "walk");
}

#[test]
fn pose_records_keep_a_running_clock_at_time_0() {
    // What an application writes for a pose itself: the clip's duration as the period.
    let layer = sinew::LayerRecord::STILL.with_clock(0.0, 0.0, 1.0, TimeWrap::PingPong, 0.0);
    assert!(layer.is_well_formed());
    assert_eq!(layer.to_layer_at(3.7).time, 0.0);
}

#[test]
fn root_motion_of_a_pose_does_not_move_the_entity() {
    for scheduling in [Scheduling::PerFrame, Scheduling::EventDriven] {
        let mut a = pose_animator();
        a.set_scheduling(scheduling);
        let mut world = World::new();
        let e = spawn_walker(&a, &mut world, "pose", sinew::runtime::Transform::IDENTITY);
        run(&mut a, &mut world, 10, 0.1);
        let t = world
            .get::<&sinew::runtime::Transform>(e)
            .unwrap()
            .translation;
        assert_eq!(t, Vec3::ZERO, "{scheduling:?}: the entity stays put");
        assert_posed(&a, &world, e, "posed with root motion");
    }
}

#[test]
fn blend_spaces_over_poses_hold_them_and_keep_the_moving_clips_running() {
    let mut a = pose_animator();
    let space = |a: &mut Animator, name: &str, clips: [&str; 2]| {
        let def = sinew::runtime::BlendSpaceDef {
            x: "speed".to_string(),
            y: None,
            samples: vec![sample(clips[0], 0.0, 0.0), sample(clips[1], 1.0, 0.0)],
        };
        a.add_blend_space(0, name, &def).unwrap()
    };
    let mixed = space(&mut a, "pose to walk", ["pose", "walk"]);
    let still = space(&mut a, "pose to pose", ["pose", "pose"]);
    let mut world = World::new();
    let spawn = |a: &Animator, world: &mut World, space| {
        world.spawn((
            sinew::runtime::Animated::new(0),
            sinew::runtime::Transform::IDENTITY,
            a.blend_space_fade(0, space, Vec2::new(0.5, 0.0)).unwrap(),
        ))
    };
    let m = spawn(&a, &mut world, mixed);
    let s = spawn(&a, &mut world, still);
    let (pose, walk) = (clip_id(&a, "pose"), clip_id(&a, "walk"));
    let mut walk_times = Vec::new();
    for _ in 0..8 {
        a.update(&mut world, 0.05).unwrap();
        for e in [m, s] {
            for layer in record(&a, &world, e).used_layers() {
                assert!(layer.time.is_finite() && layer.weight.is_finite());
                if layer.clip == pose {
                    assert_eq!(layer.time, 0.0, "a pose in a blend space");
                }
                if e == m && layer.clip == walk {
                    walk_times.push(layer.time);
                }
            }
        }
        assert_posed(&a, &world, s, "a blend of two poses");
    }
    // Half weight on the pose halves the phase's length: walk runs at twice its speed.
    assert!(
        walk_times.windows(2).all(|w| w[1] > w[0]),
        "walk runs under the pose: {walk_times:?}"
    );
    let ran = walk_times[walk_times.len() - 1] - walk_times[0];
    let expected = 2.0 * 0.05 * (walk_times.len() - 1) as f32;
    assert!(
        (ran - expected).abs() <= 1e-4,
        "walk ran {ran} s, not {expected}"
    );
}

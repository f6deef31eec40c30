//! Content added to a running animator: rigs registered and clips appended while entities
//! play; the entities from before keep identical output, new entities use the new content.

use super::common::MATRIX_TOLERANCE;
use super::fixtures::{
    DT, animator, clip, distance, events_animator, locomotion, palette, rotation, run,
    spawn_playing, test_asset, test_rig, translation, z_up_rig,
};
use glam::Vec3;
use hecs::{Entity, World};
use sinew::Rig;
use sinew::import::RawClip;
use sinew::runtime::{Animated, Animator, Playback, RuntimeError, Scheduling, Transform, Value};

/// A clip over the test rig's joints that none of its clips is.
fn hop() -> RawClip {
    clip(
        "hop",
        vec![
            translation(
                0,
                &[0.0, 0.2, 0.4],
                &[Vec3::ZERO, Vec3::new(0.0, 0.5, 0.0), Vec3::ZERO],
            ),
            rotation(2, &[0.0, 0.4], Vec3::X, &[0.0, 0.3]),
        ],
    )
}

/// A second rig: the test rig's skeleton and clips under another name.
fn second_rig() -> Rig {
    let mut rig = test_rig();
    rig.name = "second".to_string();
    rig
}

/// The cast playing before content arrives: a state machine, a cross-fade and a playback.
fn early_cast(a: &mut Animator, world: &mut World) -> Vec<Entity> {
    let machine = a.add_state_machine(0, &locomotion()).unwrap();
    let sm = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.state_machine(machine).unwrap(),
    ));
    a.set_parameter(world, sm, "speed", Value::Float(1.0))
        .unwrap();
    let fades = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.cross_fade(0, "run").unwrap(),
    ));
    let walker = spawn_playing(world, a.playback(0, "walk").unwrap());
    vec![sm, fades, walker]
}

#[test]
fn added_rigs_and_clips_leave_playing_entities_identical_and_serve_new_ones() {
    for scheduling in [Scheduling::PerFrame, Scheduling::EventDriven] {
        let mut a = events_animator();
        a.set_scheduling(scheduling);
        let mut world = World::new();
        let cast = early_cast(&mut a, &mut world);
        let mut b = events_animator();
        b.set_scheduling(scheduling);
        let mut twin = World::new();
        let twin_cast = early_cast(&mut b, &mut twin);
        run(&mut a, &mut world, 20, DT);
        run(&mut b, &mut twin, 20, DT);

        // Content streams in while they play.
        let added = a.add_clips(0, &[hop()]).unwrap();
        assert_eq!(added, 6..7);
        assert_eq!(a.clip(0, "hop").unwrap(), 6);
        let second = a.add_rig(second_rig()).unwrap();
        assert_eq!(second, 1);
        let hopper = spawn_playing(&mut world, Playback::new(6));
        let other = world.spawn((
            Animated::new(second),
            Transform::IDENTITY,
            a.playback(second, "run").unwrap(),
        ));
        // Events registered before stay; new clips take events too.
        a.add_event(0, "hop", 0.2, "top").unwrap();

        // References for the new content: animators made with it from the start.
        let mut asset = test_asset();
        asset.clips.push(hop());
        let mut with_hop = Animator::new(vec![Rig::from_skin(&asset, 0).unwrap()]).unwrap();
        let mut hop_world = World::new();
        let hop_ref = spawn_playing(&mut hop_world, Playback::new(6));
        let mut alone = Animator::new(vec![second_rig()]).unwrap();
        let mut alone_world = World::new();
        let other_ref = spawn_playing(&mut alone_world, alone.playback(0, "run").unwrap());

        let mut tops = 0;
        for frame in 0..90 {
            a.update(&mut world, DT).unwrap();
            b.update(&mut twin, DT).unwrap();
            with_hop.update(&mut hop_world, DT).unwrap();
            alone.update(&mut alone_world, DT).unwrap();
            for (&e, &t) in cast.iter().zip(&twin_cast) {
                let (got, want) = (a.record_of(&world, e), b.record_of(&twin, t));
                assert_eq!(
                    got.map(|r| r.layers),
                    want.map(|r| r.layers),
                    "frame {frame}"
                );
                assert_eq!(
                    palette(&mut a, &world, e),
                    palette(&mut b, &twin, t),
                    "{scheduling:?}: entity {e:?} at frame {frame}"
                );
            }
            // The references run at other frame times: the same poses, up to rounding.
            let d = distance(
                &palette(&mut a, &world, hopper),
                &palette(&mut with_hop, &hop_world, hop_ref),
            );
            assert!(d <= MATRIX_TOLERANCE, "the added clip, frame {frame}: {d}");
            let d = distance(
                &palette(&mut a, &world, other),
                &palette(&mut alone, &alone_world, other_ref),
            );
            assert!(d <= MATRIX_TOLERANCE, "the added rig, frame {frame}: {d}");
            let mut events: Vec<(Entity, String)> = a
                .drain_events()
                .map(|e| (e.entity, e.name.to_string()))
                .collect();
            tops += events.iter().filter(|e| e.1 == "top").count();
            events.retain(|e| e.0 != hopper);
            let want: Vec<(Entity, String)> = b
                .drain_events()
                .map(|e| (e.entity, e.name.to_string()))
                .collect();
            assert_eq!(events, want, "events of the early cast, frame {frame}");
        }
        assert!(tops >= 3, "{tops} events on the added clip");
    }
}

#[test]
fn content_that_would_change_playing_entities_is_refused() {
    let mut a = animator();
    assert!(matches!(
        a.add_rig(test_rig()),
        Err(RuntimeError::DuplicateName { what: "rig", .. })
    ));
    assert!(matches!(
        a.add_clips(0, &[clip("walk", vec![])]),
        Err(RuntimeError::DuplicateName { what: "clip", .. })
    ));
    assert!(matches!(
        a.add_clips(3, &[hop()]),
        Err(RuntimeError::UnknownRig { .. })
    ));
    // A clip targeting a joint the rig does not have.
    let bad = clip(
        "bad",
        vec![translation(99, &[0.0, 1.0], &[Vec3::ZERO, Vec3::X])],
    );
    assert!(matches!(
        a.add_clips(0, &[bad]),
        Err(RuntimeError::InvalidRig { .. })
    ));
    // A re-bake whose first clip changed.
    let mut asset = test_asset();
    asset.clips.swap(0, 1);
    let e = a
        .replace_rig(0, Rig::from_skin(&asset, 0).unwrap())
        .unwrap_err();
    assert!(
        matches!(&e, RuntimeError::IncompatibleRig { reason, .. } if reason.contains("idle")),
        "{e}"
    );
    // Another skeleton.
    let mut rig = z_up_rig();
    rig.name = test_rig().name;
    assert!(matches!(
        a.replace_rig(0, rig),
        Err(RuntimeError::IncompatibleRig { .. })
    ));
    // Another name.
    assert!(matches!(
        a.replace_rig(0, second_rig()),
        Err(RuntimeError::IncompatibleRig { .. })
    ));
    // Nothing was changed by the refusals.
    assert_eq!(a.rigs().len(), 1);
    assert_eq!(a.rigs()[0], test_rig());
    // The same rig with more clips is accepted.
    let mut asset = test_asset();
    asset.clips.push(hop());
    a.replace_rig(0, Rig::from_skin(&asset, 0).unwrap())
        .unwrap();
    assert_eq!(a.clip(0, "hop").unwrap(), 6);
}

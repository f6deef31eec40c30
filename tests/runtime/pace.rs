//! Per-entity pace: speed and pause for entities driven by a state machine, a blend space or
//! layers, every clock and fade of the entity included.

use super::common::MATRIX_TOLERANCE;
use super::fixtures::{
    DT, animator, assert_close, clip_id, distance, locomotion, palette, run, sample, spawn_playing,
    state_of,
};
use glam::Vec2;
use hecs::{Entity, World};
use sinew::runtime::Pace;
use sinew::runtime::{
    Animated, Animator, BlendSpaceDef, ClipLayer, Layers, Playback, RuntimeError, Scheduling,
    StateMachine, Transform, Value,
};

/// A state machine entity fading idle → walk, a blend-space cross-fade and a playback whose
/// layer fades its weight: every kind of clock an entity can have.
fn paced_cast(a: &mut Animator, world: &mut World) -> Vec<Entity> {
    let machine = match a.state_machine_id("locomotion") {
        Ok(id) => id,
        Err(_) => a.add_state_machine(0, &locomotion()).unwrap(),
    };
    let space = match a.blend_space("gait") {
        Ok(space) => space,
        Err(_) => a
            .add_blend_space(
                0,
                "gait",
                &BlendSpaceDef {
                    x: "speed".to_string(),
                    y: None,
                    samples: vec![sample("walk", 1.0, 0.0), sample("run", 3.0, 0.0)],
                },
            )
            .unwrap(),
    };
    let sm = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.state_machine(machine).unwrap(),
    ));
    a.set_parameter(world, sm, "speed", Value::Float(1.0))
        .unwrap();
    let blend = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.blend_space_fade(0, space, Vec2::new(2.2, 0.0)).unwrap(),
    ));
    let mut layer = ClipLayer::new(clip_id(a, "wave")).with_weight(1.0);
    layer.fade_weight(0.2, 0.5);
    let layered = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.playback(0, "walk").unwrap(),
        Layers::from_layers(&[layer]).unwrap(),
    ));
    vec![sm, blend, layered]
}

fn poses(a: &mut Animator, world: &World, cast: &[Entity]) -> Vec<Vec<[f32; 12]>> {
    cast.iter().map(|&e| palette(a, world, e)).collect()
}

fn assert_poses_close(got: &[Vec<[f32; 12]>], want: &[Vec<[f32; 12]>], what: &str) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let d = distance(g, w);
        assert!(d <= MATRIX_TOLERANCE, "{what}, entity {i}: off by {d}");
    }
}

/// Entities at pace `pace` for `frames / pace` updates match entities at pace 1 for `frames`
/// updates at every matching instant, in both scheduling modes.
fn pace_scales_every_clock(scheduling: Scheduling) {
    for pace in [0.5f32, 2.0] {
        let mut normal = animator();
        let mut normal_world = World::new();
        let reference = paced_cast(&mut normal, &mut normal_world);
        let mut paced = animator();
        paced.set_scheduling(scheduling);
        let mut paced_world = World::new();
        let cast = paced_cast(&mut paced, &mut paced_world);
        for &e in &cast {
            paced
                .set_pace(&mut paced_world, e, Pace::with_speed(pace))
                .unwrap();
        }
        // The paced run takes steps of DT / pace: one of its updates is one reference update.
        let dt = DT / pace;
        for frame in 0..60 {
            normal.update(&mut normal_world, DT).unwrap();
            paced.update(&mut paced_world, dt).unwrap();
            let want = poses(&mut normal, &normal_world, &reference);
            let got = poses(&mut paced, &paced_world, &cast);
            assert_poses_close(&got, &want, &format!("pace {pace}, frame {frame}"));
            if frame == 5 && scheduling == Scheduling::PerFrame {
                // Mid-fade: the fade ran on entity time too (an event-driven entity's
                // components are brought up to date only when it is updated).
                let w = |world: &World, e| {
                    world
                        .get::<&StateMachine>(e)
                        .unwrap()
                        .fades()
                        .current_weight()
                };
                let (a, b) = (w(&paced_world, cast[0]), w(&normal_world, reference[0]));
                assert!(a > 0.0 && a < 1.0, "fading at frame 5: {a}");
                assert_close(a, b, 1e-5, "fade weight");
            }
        }
        assert_eq!(state_of(&paced, &paced_world, cast[0]), "walk");
    }
}

#[test]
fn pace_scales_every_clock_per_frame() {
    pace_scales_every_clock(Scheduling::PerFrame);
}

#[test]
fn pace_scales_every_clock_event_driven() {
    pace_scales_every_clock(Scheduling::EventDriven);
}

#[test]
fn paused_entities_hold_every_clock_and_fade_then_resume() {
    for scheduling in [Scheduling::PerFrame, Scheduling::EventDriven] {
        let mut a = animator();
        a.set_scheduling(scheduling);
        let mut world = World::new();
        let cast = paced_cast(&mut a, &mut world);
        let mut normal = animator();
        let mut normal_world = World::new();
        let reference = paced_cast(&mut normal, &mut normal_world);
        run(&mut a, &mut world, 6, DT);
        run(&mut normal, &mut normal_world, 6, DT);
        for &e in &cast {
            a.pause_entity(&mut world, e).unwrap();
        }
        a.update(&mut world, DT).unwrap();
        let held = poses(&mut a, &world, &cast);
        assert_poses_close(
            &held,
            &poses(&mut normal, &normal_world, &reference),
            "paused",
        );
        let weight = world
            .get::<&StateMachine>(cast[0])
            .unwrap()
            .fades()
            .current_weight();
        assert!(weight > 0.0 && weight < 1.0, "mid-fade: {weight}");
        for frame in 0..40 {
            a.update(&mut world, DT).unwrap();
            assert_eq!(poses(&mut a, &world, &cast), held, "paused, frame {frame}");
            if frame > 0 && scheduling == Scheduling::EventDriven {
                assert!(a.changed_slots().is_empty(), "a paused entity is asleep");
            }
        }
        let sm = *world.get::<&StateMachine>(cast[0]).unwrap();
        assert_eq!(sm.fades().current_weight(), weight);
        assert!(a.pace_of(&world, cast[0]).paused);
        for &e in &cast {
            a.resume_entity(&mut world, e).unwrap();
        }
        for frame in 0..30 {
            a.update(&mut world, DT).unwrap();
            normal.update(&mut normal_world, DT).unwrap();
            let want = poses(&mut normal, &normal_world, &reference);
            assert_poses_close(
                &poses(&mut a, &world, &cast),
                &want,
                &format!("{scheduling:?}: resumed, frame {frame}"),
            );
        }
    }
}

#[test]
fn pace_refuses_bad_speeds_and_unknown_entities() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_playing(&mut world, Playback::new(clip_id(&a, "walk")));
    for speed in [-1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(
            a.set_entity_speed(&mut world, e, speed),
            Err(RuntimeError::InvalidValue { .. })
        ));
    }
    let other = world.spawn((Transform::IDENTITY,));
    assert!(matches!(
        a.pause_entity(&mut world, other),
        Err(RuntimeError::NoSuchEntity { .. })
    ));
    assert_eq!(Pace::with_speed(-2.0).rate(), 0.0);
}

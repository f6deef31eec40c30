//! Blend-space inputs given as ramps

use glam::Vec2;
use hecs::{Entity, World};
use sinew::runtime::{
    Animated, Animator, BlendSpace, BlendSpaceDef, InputRamp, RuntimeError, Scheduling, Transform,
};

use super::fixtures::{DT, animator, assert_close, clip_id, record, sample};

/// The test rig with a 1D gait space (idle at 0, walk at 1, run at 2) and one entity playing
/// it at `input`.
fn gait(scheduling: Scheduling, input: f32) -> (Animator, World, Entity, u32) {
    let mut a = animator();
    a.set_scheduling(scheduling);
    let samples = [("idle", 0.0), ("walk", 1.0), ("run", 2.0)];
    let def = BlendSpaceDef {
        x: "speed".to_string(),
        y: None,
        samples: samples.iter().map(|&(c, x)| sample(c, x, 0.0)).collect(),
    };
    let space = a.add_blend_space(0, "gait", &def).unwrap();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.blend_space_fade(0, space, Vec2::new(input, 0.0)).unwrap(),
    ));
    a.update(&mut world, DT).unwrap();
    (a, world, e, space)
}

#[test]
fn ramps_that_are_not_finite_are_refused_with_a_typed_error() {
    let (a, mut world, e, space) = gait(Scheduling::PerFrame, 0.2);
    for (value, rate, until) in [
        (0.0, f32::NAN, 1.0),
        (f32::INFINITY, 1.0, 1.0),
        (0.0, 1.0, f32::NAN),
        (0.0, 1.0, -1.0),
    ] {
        let ramp = InputRamp {
            value: Vec2::new(value, 0.0),
            rate: Vec2::new(rate, 0.0),
            until,
        };
        assert!(matches!(
            a.set_blend_input_ramp(&mut world, e, space, ramp),
            Err(RuntimeError::InvalidValue { .. })
        ));
        assert!(InputRamp::new(ramp.value, ramp.rate, ramp.until).is_err());
    }
    let ramp = InputRamp::new(Vec2::ZERO, Vec2::X, 1.0).unwrap();
    let other = world.spawn((Transform::IDENTITY,));
    assert!(matches!(
        a.set_blend_input_ramp(&mut world, other, space, ramp),
        Err(RuntimeError::NoSuchEntity { .. })
    ));
}

/// Records written over `frames` updates of `e`, and after each the blend's weights checked
/// against the space's at the ramp's input then.
fn steer(
    a: &mut Animator,
    world: &mut World,
    e: Entity,
    frames: usize,
    input: impl Fn(f32) -> f32,
) -> usize {
    let mut written = 0;
    let mut elapsed = 0.0;
    for _ in 0..frames {
        a.update(world, DT).unwrap();
        elapsed += DT;
        let slot = a.slot_of(world, e).unwrap();
        written += usize::from(a.changed_slots().contains(&slot));
        // The record's weights at this frame time are the space's at the input now.
        let x = input(elapsed);
        let rec = record(a, world, e);
        let clip = |name| clip_id(a, name);
        let space =
            BlendSpace::one_d(&[(clip("idle"), 0.0), (clip("walk"), 1.0), (clip("run"), 2.0)]);
        let weights = space.unwrap().weights(Vec2::new(x, 0.0));
        let mut below = 0.0;
        let mut shares = Vec::new();
        for layer in rec.used_layers().iter().rev() {
            // Override weights bottom first: wₖ = cₖ / Σ_{i≤k} cᵢ; unwind from the top.
            shares.push((layer.clip, layer.weight));
        }
        let mut rest = 1.0;
        for (clip, w) in shares {
            let c = w * rest;
            rest -= c;
            below += c;
            assert_close(
                c,
                weights.weight_of(clip),
                2e-4,
                &format!("clip {clip} at input {x}"),
            );
        }
        assert_close(below, 1.0, 1e-4, "the shares sum to one");
    }
    written
}

#[test]
fn a_ramped_input_writes_its_record_once_per_region_and_holds_it_in_between() {
    let (mut a, mut world, e, space) = gait(Scheduling::PerFrame, 0.2);
    // From 0.2 at 0.4 per second for 3 s: it crosses walk's sample (at 1.0) at 2 s, then holds
    // at 1.4.
    let ramp = InputRamp::new(Vec2::new(0.2, 0.0), Vec2::new(0.4, 0.0), 3.0).unwrap();
    a.set_blend_input_ramp(&mut world, e, space, ramp).unwrap();
    let input = |t: f32| 0.2 + 0.4 * t.min(3.0);
    let written = steer(&mut a, &mut world, e, 240, input);
    // Set, the crossing, and the hold after the ramp (a record of the contributions' own).
    assert!(
        (2..=3).contains(&written),
        "{written} records written over 240 frames"
    );

    // The same input set every frame by hand writes a record each frame.
    let (mut b, mut world_b, f, space_b) = gait(Scheduling::PerFrame, 0.2);
    let mut by_hand = 0;
    for k in 1..=120 {
        let x = input(k as f32 * DT);
        world_b
            .get::<&mut sinew::runtime::CrossFade>(f)
            .unwrap()
            .set_blend_input(space_b, Vec2::new(x, 0.0));
        b.update(&mut world_b, DT).unwrap();
        let slot = b.slot_of(&world_b, f).unwrap();
        by_hand += usize::from(b.changed_slots().contains(&slot));
    }
    assert!(by_hand >= 100, "by hand: {by_hand} records over 120 frames");
}

#[test]
fn event_driven_entities_wake_only_where_the_ramp_leaves_its_region() {
    let (mut a, mut world, e, space) = gait(Scheduling::EventDriven, 1.8);
    // From 1.8 down at 0.5 per second: walk's sample at 1.6 s, idle's at 3.6 s, then holds.
    let ramp = InputRamp::new(Vec2::new(1.8, 0.0), Vec2::new(-0.5, 0.0), 10.0).unwrap();
    a.set_blend_input_ramp(&mut world, e, space, ramp).unwrap();
    let written = steer(&mut a, &mut world, e, 300, |t| (1.8 - 0.5 * t).max(0.0));
    assert!(
        (3..=4).contains(&written),
        "{written} records written over 300 frames"
    );
}

//! Sync markers: a synced transition starts its target in phase with its source by markers,
//! where the two cycles have other shapes.

use hecs::{Entity, World};
use sinew::runtime::{
    Animator, Compare, Motion, StateMachine, StateMachineDef, TransitionDef, Value,
};

use super::common;
use super::fixtures::{DT, animator, clip_id, float, run, set, spawn_machine, speed_is};

/// The markers of the walk as `(time, name)`.
fn walk_markers(a: &Animator) -> Vec<(f32, String)> {
    let markers = a.sync_markers(0, "walk").unwrap();
    markers
        .into_iter()
        .map(|(t, n)| (t, n.to_string()))
        .collect()
}

fn duration(a: &Animator, clip: &str) -> f32 {
    a.rigs()[0].clips.clips()[clip_id(a, clip) as usize].duration
}

fn walk_to_run(name: &str, sync: bool) -> StateMachineDef {
    let transition = TransitionDef::new("walk", "run")
        .fade(0.3)
        .when(speed_is(Compare::Ge, 3.0));
    StateMachineDef::new(name)
        .parameter(float("speed", Some(1.0)))
        .clip_state("walk", "walk")
        .clip_state("run", "run")
        .transition(if sync {
            transition.synced()
        } else {
            transition
        })
}

/// The walk's time when the transition fires (after `frames` updates and the firing one), and
/// the time the run starts at.
fn transition_times(a: &mut Animator, sync: bool, frames: usize) -> (f32, f32) {
    let mut world = World::new();
    let name = format!("gaits after {frames} frames, synced {sync}");
    let (_, e): (u32, Entity) = spawn_machine(a, &mut world, &walk_to_run(&name, sync));
    run(a, &mut world, frames, DT);
    let walk = {
        let sm = world.get::<&StateMachine>(e).unwrap();
        let (motion, clock) = sm.fades().current().unwrap();
        assert_eq!(*motion, Motion::Clip(clip_id(a, "walk")));
        clock.time
    };
    set(a, &mut world, e, "speed", Value::Float(4.0));
    a.update(&mut world, DT).unwrap();
    let sm = world.get::<&StateMachine>(e).unwrap();
    let (motion, clock) = sm.fades().current().unwrap();
    assert_eq!(*motion, Motion::Clip(clip_id(a, "run")));
    ((walk + DT) % duration(a, "walk"), clock.time)
}

#[test]
fn a_synced_transition_starts_the_target_between_the_same_markers() {
    let mut a = animator();
    let (dw, dr) = (duration(&a, "walk"), duration(&a, "run"));
    // The left foot a tenth into the walk and a third into the run; the run's right step
    // shorter than its left.
    a.add_sync_marker(0, "walk", 0.1 * dw, "left").unwrap();
    a.add_sync_marker(0, "walk", 0.6 * dw, "right").unwrap();
    a.add_sync_marker(0, "run", 0.35 * dr, "left").unwrap();
    a.add_sync_marker(0, "run", 0.7 * dr, "right").unwrap();
    let frames = (0.3 * dw / DT).round() as usize;
    let (walk, start) = transition_times(&mut a, true, frames);
    assert!(walk > 0.1 * dw && walk < 0.6 * dw, "walk at {walk}");
    let fraction = (walk - 0.1 * dw) / (0.5 * dw);
    let expected = 0.35 * dr + fraction * 0.35 * dr;
    assert!(
        (start - expected).abs() < 1e-4,
        "the run starts at {start}, between its markers at {expected}"
    );
    let normalized = walk / dw * dr;
    assert!(
        (expected - normalized).abs() > 0.02 * dr,
        "the markers must differ from normalized time here"
    );
    // Past the right marker: between right and the next cycle's left.
    let frames = (0.8 * dw / DT).round() as usize;
    let (walk, start) = transition_times(&mut a, true, frames);
    let fraction = (walk - 0.6 * dw) / (0.5 * dw);
    let expected = (0.7 * dr + fraction * 0.65 * dr) % dr;
    assert!(
        (start - expected).abs() < 1e-4,
        "{start} against {expected}"
    );

    // Unsynced, the run starts at its beginning.
    let (_, start) = transition_times(&mut a, false, frames);
    assert_eq!(start, 0.0);
}

#[test]
fn without_markers_a_synced_transition_keeps_the_normalized_time() {
    let mut a = animator();
    let (dw, dr) = (duration(&a, "walk"), duration(&a, "run"));
    let frames = (0.45 * dw / DT).round() as usize;
    let (walk, start) = transition_times(&mut a, true, frames);
    assert!((start - walk / dw * dr).abs() < 1e-4, "{start}");
}

#[test]
fn markers_are_checked_and_saved_with_the_configuration() {
    let mut a = animator();
    let dw = duration(&a, "walk");
    assert!(a.add_sync_marker(0, "walk", dw + 1.0, "left").is_err());
    assert!(a.add_sync_marker(0, "nope", 0.1, "left").is_err());
    a.add_sync_marker(0, "walk", 0.6 * dw, "right").unwrap();
    a.add_sync_marker(0, "walk", 0.1 * dw, "left").unwrap();
    let markers = walk_markers(&a);
    assert_eq!(
        markers,
        [
            (0.1 * dw, "left".to_string()),
            (0.6 * dw, "right".to_string())
        ]
    );
    let config = a.config();
    let mut b = animator();
    b.load_config(&config).unwrap();
    assert_eq!(walk_markers(&b), markers);
}

/// Foot contacts of the shipped humanoid's walk: each foot's lowest point, half a cycle apart.
#[test]
fn foot_contacts_are_the_feet_lowest_points() {
    let path = common::repo().join("assets/humanoid.glb");
    let rigs = sinew::bake_rigs(&sinew::import_file(&path).unwrap()).unwrap();
    let mut a = Animator::new(rigs).unwrap();
    let feet = [("left", "LeftFoot"), ("right", "RightFoot")];
    let times = a.mark_foot_contacts(0, "walk", &feet).unwrap();
    let d = duration(&a, "walk");
    let apart = (times[1] - times[0]).rem_euclid(d);
    assert!(
        (apart - 0.5 * d).abs() < 0.1 * d,
        "contacts at {times:?} in a {d} s walk"
    );
    // Densely sampled, no time puts a foot lower than its marker (by more than the refinement).
    let rig = &a.rigs()[0];
    let clip = clip_id(&a, "walk");
    let height = |joint: usize, t: f32| {
        let mut models = vec![glam::Affine3A::IDENTITY; rig.joint_count()];
        let mut palette = vec![sinew::Mat3x4Rows::IDENTITY; rig.palette_entries()];
        let layers = [sinew::Layer::clip(clip, t)];
        sinew::cpu::evaluate_pose(
            rig,
            &[],
            &layers,
            &glam::Affine3A::IDENTITY,
            &mut models,
            &mut palette,
        );
        models[joint].translation.y
    };
    for ((_, joint), &t) in feet.iter().zip(&times) {
        let j = rig.skeleton.find_joint(joint).unwrap();
        let at_marker = height(j, t);
        let lowest = (0..600)
            .map(|k| height(j, d * k as f32 / 600.0))
            .fold(f32::INFINITY, f32::min);
        assert!(
            at_marker <= lowest + 1e-3,
            "{joint}: {at_marker} at the marker, {lowest} lowest"
        );
    }
    assert_eq!(walk_markers(&a).len(), 2);
}

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

/// The walk and run's markers: the left foot a tenth into the walk and a third into the run,
/// the run's right step shorter than its left.
fn mark_gaits(a: &mut Animator) -> (f32, f32) {
    let (dw, dr) = (duration(a, "walk"), duration(a, "run"));
    a.add_sync_marker(0, "walk", 0.1 * dw, "left").unwrap();
    a.add_sync_marker(0, "walk", 0.6 * dw, "right").unwrap();
    a.add_sync_marker(0, "run", 0.35 * dr, "left").unwrap();
    a.add_sync_marker(0, "run", 0.6 * dr, "right").unwrap();
    (dw, dr)
}

/// Where `t` lies between a clip's left (at `left`) and right (at `right`) markers, as a phase
/// from 0 (left) through 1 (right) to 2 (left again).
fn stride_phase(t: f32, d: f32, left: f32, right: f32) -> f32 {
    let from_left = (t - left).rem_euclid(d);
    let step = (right - left).rem_euclid(d);
    if from_left < step {
        from_left / step
    } else {
        1.0 + (from_left - step) / (d - step)
    }
}

/// Asserts that the walk at `walk` and the run at `run` are at one stride phase.
fn assert_in_step(walk: f32, run: f32, dw: f32, dr: f32, what: &str) {
    let walk_phase = stride_phase(walk, dw, 0.1 * dw, 0.6 * dw);
    let run_phase = stride_phase(run, dr, 0.35 * dr, 0.6 * dr);
    let apart = (walk_phase - run_phase).abs();
    assert!(
        apart.min(2.0 - apart) < 1e-3,
        "{what}: walk at {walk} ({walk_phase}), run at {run} ({run_phase})"
    );
}

/// The walk's and run's sample times in `e`'s record now.
fn gait_times(a: &Animator, world: &World, e: Entity) -> (f32, f32) {
    let rec = super::fixtures::record(a, world, e);
    let time = |clip: u32| {
        rec.used_layers()
            .iter()
            .find(|l| l.clip == clip)
            .map(|l| l.time)
            .unwrap()
    };
    (time(clip_id(a, "walk")), time(clip_id(a, "run")))
}

fn spawn_gait(a: &mut Animator, world: &mut World, speed: f32) -> Entity {
    let def = sinew::runtime::BlendSpaceDef {
        x: "speed".to_string(),
        y: None,
        samples: vec![
            super::fixtures::sample("walk", 1.0, 0.0),
            super::fixtures::sample("run", 3.0, 0.0),
        ],
    };
    let space = a.add_blend_space(0, "gait", &def).unwrap();
    world.spawn((
        sinew::runtime::Animated::new(0),
        sinew::runtime::Transform::IDENTITY,
        a.blend_space_fade(0, space, glam::Vec2::new(speed, 0.0))
            .unwrap(),
    ))
}

#[test]
fn a_blend_space_of_marked_clips_passes_the_markers_together() {
    let mut a = animator();
    let (dw, dr) = mark_gaits(&mut a);
    let mut world = World::new();
    let e = spawn_gait(&mut a, &mut world, 2.0);
    let mut apart_by_normalized_time = 0.0f32;
    for _ in 0..150 {
        a.update(&mut world, DT).unwrap();
        let (walk, run) = gait_times(&a, &world, e);
        assert_in_step(walk, run, dw, dr, "");
        let normalized = ((walk - 0.1 * dw) / dw - (run - 0.35 * dr) / dr).rem_euclid(1.0);
        apart_by_normalized_time = apart_by_normalized_time.max(normalized.min(1.0 - normalized));
    }
    // The strides have other shapes: the clips' normalized times do drift apart.
    assert!(
        apart_by_normalized_time > 0.05,
        "{apart_by_normalized_time}"
    );
}

#[test]
fn event_driven_records_follow_the_marker_warp() {
    let mut records = Vec::new();
    for scheduling in [
        sinew::runtime::Scheduling::PerFrame,
        sinew::runtime::Scheduling::EventDriven,
    ] {
        let mut a = animator();
        a.set_scheduling(scheduling);
        mark_gaits(&mut a);
        let mut world = World::new();
        let e = spawn_gait(&mut a, &mut world, 1.6);
        let mut times = Vec::new();
        for _ in 0..150 {
            a.update(&mut world, DT).unwrap();
            times.push(gait_times(&a, &world, e));
        }
        records.push(times);
    }
    for (frame, (p, e)) in records[0].iter().zip(&records[1]).enumerate() {
        assert!(
            (p.0 - e.0).abs() < 1e-3 && (p.1 - e.1).abs() < 1e-3,
            "frame {frame}: per frame {p:?}, event-driven {e:?}"
        );
    }
}

/// Walk and run times, frame by frame, through a synced walk-to-run fade of `fade` seconds.
fn fade_times(scheduling: sinew::runtime::Scheduling, fade: f32) -> Vec<(f32, f32, f32)> {
    let mut a = animator();
    a.set_scheduling(scheduling);
    mark_gaits(&mut a);
    let def = StateMachineDef::new("held gaits")
        .parameter(float("speed", Some(1.0)))
        .clip_state("walk", "walk")
        .clip_state("run", "run")
        .transition(
            TransitionDef::new("walk", "run")
                .fade(fade)
                .when(speed_is(Compare::Ge, 3.0))
                .synced(),
        );
    let mut world = World::new();
    let (_, e): (u32, Entity) = spawn_machine(&mut a, &mut world, &def);
    run(&mut a, &mut world, 20, DT);
    set(&a, &mut world, e, "speed", Value::Float(4.0));
    let (walk, run_clip) = (clip_id(&a, "walk"), clip_id(&a, "run"));
    let mut out = Vec::new();
    for _ in 0..((fade / DT) as usize + 30) {
        a.update(&mut world, DT).unwrap();
        let rec = super::fixtures::record(&a, &world, e);
        let find = |clip| rec.used_layers().iter().find(|l| l.clip == clip).copied();
        let (w, r) = (find(walk), find(run_clip));
        let raw = a.record_of(&world, e).unwrap();
        let rate = raw
            .used_layers()
            .iter()
            .find(|l| l.clip == run_clip)
            .map_or(0.0, |l| l.rate);
        out.push((
            w.map_or(f32::NAN, |l| l.time),
            r.map_or(f32::NAN, |l| l.time),
            rate,
        ));
    }
    out
}

#[test]
fn a_synced_fade_holds_the_clips_in_phase_to_its_end() {
    let a = animator();
    let (dw, dr) = (duration(&a, "walk"), duration(&a, "run"));
    let fade = 1.2;
    let times = fade_times(sinew::runtime::Scheduling::PerFrame, fade);
    let mut frames_fading = 0;
    for (frame, &(walk, run, _)) in times.iter().enumerate() {
        if walk.is_nan() || run.is_nan() {
            continue;
        }
        frames_fading += 1;
        assert_in_step(walk, run, dw, dr, &format!("frame {frame}"));
    }
    // The fade crossed several markers, and once it ends the run plays at its own rate.
    assert!(frames_fading as f32 >= 0.9 * fade / DT, "{frames_fading}");
    let &(walk, _, rate) = times.last().unwrap();
    assert!(walk.is_nan(), "the walk has faded out");
    assert_eq!(rate, 1.0);
    // Event-driven, the records give the same times.
    let events = fade_times(sinew::runtime::Scheduling::EventDriven, fade);
    for (frame, (p, e)) in times.iter().zip(&events).enumerate() {
        let same = |x: f32, y: f32| (x.is_nan() && y.is_nan()) || (x - y).abs() < 1e-3;
        assert!(
            same(p.0, e.0) && same(p.1, e.1),
            "frame {frame}: per frame {p:?}, event-driven {e:?}"
        );
    }
}

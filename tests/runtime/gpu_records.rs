//! GPU-resident records

use hecs::{Entity, World};
use sinew::TimeWrap;
use sinew::runtime::{
    Animated, Animator, Attachment, ClipLayer, Clock, CrossFade, Event, Layers, LoopMode, Motion,
    Playback, RuntimeError, Scheduling, StateMachineDef, Transform, TransitionDef, Value,
};

use super::fixtures::{
    DT, animator, assert_close, clip_id, locomotion, models, playback_time, record, run, set,
    spawn_playing,
};

/// Distance between two times on a looping timeline of `period`.
fn loop_distance(a: f32, b: f32, period: f32) -> f32 {
    let d = (a - b).abs();
    d.min((period - d).abs())
}

/// A steadily playing entity's record is written once and then held: the evaluators derive its
/// clip time at every frame time from the record's clock. A speed change or a despawn writes
/// the slot again.
#[test]
fn records_are_written_only_when_the_motion_changes() {
    let mut a = animator();
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let duration = a.rigs()[0].clips.clips()[walk as usize].duration;
    let looping = spawn_playing(&mut world, Playback::new(walk).with_speed(1.3));
    let ping = spawn_playing(
        &mut world,
        Playback::new(walk)
            .with_mode(LoopMode::PingPong)
            .with_speed(-0.7),
    );
    let clamped = spawn_playing(&mut world, Playback::new(walk).with_mode(LoopMode::Clamp));
    a.update(&mut world, DT).unwrap();
    assert_eq!(a.changed_slots().len(), 3, "every new slot is written");
    let mut changed = 0;
    for _ in 0..600 {
        a.update(&mut world, DT).unwrap();
        changed += a.changed_slots().len();
        for e in [looping, ping, clamped] {
            let held = record(&a, &world, e).layers[0].time;
            let own = playback_time(&world, e);
            assert!(
                loop_distance(held, own, duration) <= 2e-4,
                "held record at {held}, the runtime's clock at {own}"
            );
        }
    }
    // Only the clamped clock's stop at the end of the clip changes a record.
    assert!(
        changed <= 1,
        "{changed} records written in 600 steady frames"
    );

    world.get::<&mut Playback>(looping).unwrap().clock.speed = 2.0;
    a.update(&mut world, DT).unwrap();
    assert_eq!(a.changed_slots().len(), 1, "a new speed writes one slot");
    let slot = a.changed_slots()[0] as usize;
    let held = a.record_of(&world, looping).unwrap();
    assert_eq!(a.slot_records()[slot], *held);
    assert!((held.layers[0].rate - 2.0).abs() < 1e-5);

    world.despawn(ping).unwrap();
    a.update(&mut world, DT).unwrap();
    assert_eq!(a.changed_slots().len(), 1, "a despawn empties one slot");
    let slot = a.changed_slots()[0] as usize;
    assert!(a.slot_records()[slot].is_empty());
}

/// Two hours of play at 60 Hz: the clip time the record gives at the frame time, and the
/// runtime's own clock, stay within 1 ms of the exact time, across epoch rebases.
#[test]
fn clocks_do_not_drift_over_hours_of_play() {
    let mut a = animator();
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let duration = a.rigs()[0].clips.clips()[walk as usize].duration;
    let speed = 0.9f32;
    let e = spawn_playing(&mut world, Playback::new(walk).with_speed(speed));
    let mut exact = 0.0f64;
    let mut written = 0;
    for frame in 0..2 * 3600 * 60 {
        a.update(&mut world, DT).unwrap();
        written += a.changed_slots().len();
        exact += f64::from(DT);
        if frame % 1009 == 0 {
            let want = (exact * f64::from(speed)).rem_euclid(f64::from(duration)) as f32;
            let held = record(&a, &world, e).layers[0].time;
            assert!(
                loop_distance(held, want, duration) <= 1e-3,
                "after {exact:.0} s: record gives {held}, exact {want}"
            );
            let own = playback_time(&world, e);
            assert!(
                loop_distance(own, want, duration) <= 1e-3,
                "after {exact:.0} s: clock at {own}, exact {want}"
            );
            assert!(f64::from(a.frame_time()) < sinew::runtime::EPOCH_SPAN + 1.0);
        }
    }
    assert!((a.elapsed() - exact).abs() < 1e-6);
    // The first write, one per epoch rebase, and at most one refit per epoch.
    let epochs = 1 + (exact / sinew::runtime::EPOCH_SPAN) as usize;
    assert!(
        written <= 2 * epochs,
        "{written} records written in two hours"
    );
}

/// A cross-fade is written as a fade in the record: the slot is written when it starts and
/// when it ends, not on every frame in between, and the record read at each frame time gives
/// the runtime's own weights.
#[test]
fn cross_fades_are_written_at_their_start_and_end_only() {
    let mut a = animator();
    let mut world = World::new();
    let run_clip = clip_id(&a, "run");
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.cross_fade(0, "walk").unwrap(),
    ));
    run(&mut a, &mut world, 3, DT);
    world
        .get::<&mut CrossFade>(e)
        .unwrap()
        .fade_to(Motion::Clip(run_clip), Clock::default(), 0.5);
    let mut writes = 0;
    for frame in 0..45 {
        a.update(&mut world, DT).unwrap();
        writes += a.changed_slots().len();
        let held = record(&a, &world, e);
        let fades = world.get::<&CrossFade>(e).unwrap().current_weight();
        if held.layer_count == 2 {
            assert_close(
                held.layers[1].weight,
                fades,
                2e-4,
                &format!("frame {frame}"),
            );
        }
    }
    // The fade's first visible frame, its end (the walk layer dropped) and nothing between.
    assert!(writes <= 3, "{writes} writes during a 30-frame fade");
}

/// One scripted scene, spawned the same way in every world it is given.
fn scheduling_scene(a: &mut Animator, world: &mut World) -> Vec<Entity> {
    let walk = clip_id(a, "walk");
    let run_clip = clip_id(a, "run");
    a.add_event(0, "walk", 0.25, "left").unwrap();
    a.add_event(0, "walk", 0.75, "right").unwrap();
    a.add_event(0, "run", 0.0, "start").unwrap();
    let id = a.add_state_machine(0, &locomotion()).unwrap();
    let timed = StateMachineDef::new("timed")
        .clip_state("walk", "walk")
        .clip_state("run", "run")
        .transition(TransitionDef::new("walk", "run").fade(0.3).after(1.5))
        .transition(TransitionDef::new("run", "walk").fade(0.2).after(2.0));
    let timed = a.add_state_machine(0, &timed).unwrap();
    let mut out = vec![
        spawn_playing(world, Playback::new(walk).with_speed(1.7)),
        spawn_playing(
            world,
            Playback::new(walk)
                .with_mode(LoopMode::PingPong)
                .with_speed(-2.3),
        ),
        spawn_playing(world, Playback::new(run_clip).with_mode(LoopMode::Clamp)),
        spawn_playing(world, Playback::new(walk).with_speed(9.0)),
    ];
    for machine in [id, id, timed] {
        let sm = a.state_machine(machine).unwrap();
        out.push(world.spawn((Animated::new(0), Transform::IDENTITY, sm)));
    }
    let layered = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.cross_fade(0, "walk").unwrap(),
        Layers::from_layers(&[ClipLayer::new(run_clip).with_weight(0.4)]).unwrap(),
    ));
    out.push(layered);
    let prop = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        Playback::new(run_clip),
        Attachment::new(out[0], "Arm"),
    ));
    out.push(prop);
    out
}

/// What the scene's script does at `frame`: parameters through the animator, components
/// changed directly and then touched.
fn scheduling_script(a: &mut Animator, world: &mut World, scene: &[Entity], frame: usize) {
    let speeds = [(20, 1.0), (70, 3.5), (110, 0.2), (150, 2.0), (200, 4.0)];
    for &(at, speed) in &speeds {
        if frame == at {
            set(a, world, scene[4], "speed", Value::Float(speed));
        }
        if frame == at + 13 {
            set(a, world, scene[5], "speed", Value::Float(4.5 - speed));
        }
    }
    if frame == 90 {
        world.get::<&mut CrossFade>(scene[7]).unwrap().fade_to(
            Motion::Clip(clip_id(a, "run")),
            Clock::default(),
            0.4,
        );
        a.touch(scene[7]);
    }
    if frame == 120 {
        world.get::<&mut Layers>(scene[7]).unwrap().as_mut_slice()[0].fade_weight(1.0, 0.5);
        a.touch(scene[7]);
        world.get::<&mut Playback>(scene[0]).unwrap().clock.speed = -0.8;
        a.touch(scene[0]);
    }
    if frame == 160 {
        a.scrub(world, scene[1], 0.3, true).unwrap();
    }
}

/// Event-driven updates give the same records (read at each frame time) and the same events,
/// per entity and in order, as updating every entity every frame: across wraps, several wraps
/// per update, reverse and ping-pong play, clamped ends, fades, exit times, parameter changes,
/// weight ramps and attachments.
#[test]
fn event_driven_updates_equal_per_frame_updates() {
    let mut per_frame = animator();
    let mut event_driven = animator();
    event_driven.set_scheduling(Scheduling::EventDriven);
    let (mut wa, mut wb) = (World::new(), World::new());
    let sa = scheduling_scene(&mut per_frame, &mut wa);
    let sb = scheduling_scene(&mut event_driven, &mut wb);
    assert_eq!(sa, sb);
    let mut updated = 0;
    let describe = |e: &Event<'_>| (e.entity, e.clip, e.name.to_string());
    for frame in 0..260 {
        scheduling_script(&mut per_frame, &mut wa, &sa, frame);
        scheduling_script(&mut event_driven, &mut wb, &sb, frame);
        per_frame.update(&mut wa, DT).unwrap();
        event_driven.update(&mut wb, DT).unwrap();
        updated += event_driven.records().len();
        let ea: Vec<_> = per_frame.drain_events().map(|e| describe(&e)).collect();
        let eb: Vec<_> = event_driven.drain_events().map(|e| describe(&e)).collect();
        for &entity in &sa {
            let pick = |v: &[(Entity, u32, String)]| -> Vec<(u32, String)> {
                v.iter()
                    .filter(|x| x.0 == entity)
                    .map(|x| (x.1, x.2.clone()))
                    .collect()
            };
            assert_eq!(pick(&ea), pick(&eb), "frame {frame}: events of {entity:?}");
            // The same pose: fade ends may land one update apart, when the fading layer's
            // weight is within rounding of 1.
            // A clip whose ends differ jumps where it wraps: times within rounding of the
            // wrap may sit on either side.
            let near_wrap = |a: &Animator, w: &World| {
                a.record_of(w, entity)
                    .unwrap()
                    .used_layers()
                    .iter()
                    .any(|l| {
                        let t = sinew::cpu::layer_time(l, a.frame_time());
                        l.wrap() != TimeWrap::None && (t < 1e-3 || l.period - t < 1e-3)
                    })
            };
            if near_wrap(&per_frame, &wa) || near_wrap(&event_driven, &wb) {
                continue;
            }
            let ma = models(&per_frame, &wa, entity);
            let mb = models(&event_driven, &wb, entity);
            for (j, (x, y)) in ma.iter().zip(&mb).enumerate() {
                let (x, y) = (glam::Mat4::from(*x), glam::Mat4::from(*y));
                for (p, q) in x.to_cols_array().iter().zip(&y.to_cols_array()) {
                    assert_close(
                        *p,
                        *q,
                        1e-3,
                        &format!("frame {frame}: {entity:?} joint {j}"),
                    );
                }
            }
        }
    }
    // The point of it: far fewer entity updates than entities × frames.
    assert!(
        updated < sa.len() * 260 / 3,
        "{updated} entity updates for {} entities over 260 frames",
        sa.len()
    );
}

/// Updates give bit-identical records and identical events whatever the thread count, in both
/// schedulings (both animate on every core: per-frame updates in batches of the world's
/// storage, event-driven ones in chunks of the due entities).
#[test]
fn updates_do_not_depend_on_the_thread_count() {
    let run_with = |scheduling: Scheduling, threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut a = animator();
            a.set_scheduling(scheduling);
            let mut world = World::new();
            let scene = scheduling_scene(&mut a, &mut world);
            // Enough entities for several parallel chunks and batches, with events at their
            // own rates.
            let walk = clip_id(&a, "walk");
            for k in 0..900 {
                let mode = [LoopMode::Loop, LoopMode::PingPong, LoopMode::Clamp][k % 3];
                let speed = 0.3 + 0.05 * (k % 300) as f32;
                spawn_playing(
                    &mut world,
                    Playback::new(walk).with_mode(mode).with_speed(speed),
                );
            }
            let mut log = Vec::new();
            for frame in 0..200 {
                scheduling_script(&mut a, &mut world, &scene, frame);
                a.update(&mut world, DT).unwrap();
                let events: Vec<_> = a
                    .drain_events()
                    .map(|e| (e.entity, e.clip, e.name.to_string()))
                    .collect();
                let records: Vec<u8> = match scheduling {
                    Scheduling::PerFrame => bytemuck::cast_slice(a.records()).to_vec(),
                    Scheduling::EventDriven => bytemuck::cast_slice(a.slot_records()).to_vec(),
                };
                log.push((events, records, a.changed_slots().to_vec()));
            }
            log
        })
    };
    for scheduling in [Scheduling::PerFrame, Scheduling::EventDriven] {
        let one = run_with(scheduling, 1);
        let three = run_with(scheduling, 3);
        assert!(
            one == three,
            "{scheduling:?}: records or events differ between 1 and 3 threads"
        );
    }
}

/// Errors are written one way (thiserror): a wrapping error names its cause as its `source`, so
/// reporters that walk the chain see why.
#[test]
fn wrapping_errors_expose_their_cause_as_source() {
    use std::error::Error;
    let cause = sinew::EvalError::NoSuchClip {
        clip: 7,
        clip_count: 2,
    };
    let runtime = RuntimeError::Eval(cause.clone());
    assert_eq!(
        runtime.source().map(|s| s.to_string()),
        Some(cause.to_string())
    );
    let gpu = sinew::GpuError::from(cause.clone());
    assert_eq!(gpu.to_string(), cause.to_string(), "transparent");
}

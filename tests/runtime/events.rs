//! Events

use hecs::World;
use sinew::runtime::{LoopMode, Playback};

use super::fixtures::{
    DT, animator, assert_close, clip_id, drain, events_animator, playback_time, run, spawn_playing,
};

#[test]
fn events_fire_once_per_crossing_across_loop_wraps() {
    let mut a = events_animator();
    let mut world = World::new();
    spawn_playing(&mut world, Playback::new(clip_id(&a, "walk")));
    // 0.07 s steps do not divide the clip: wraps land anywhere.
    run(&mut a, &mut world, 30, 0.07);
    assert_eq!(drain(&mut a), ["left", "right", "left", "right"]);
}

#[test]
fn one_large_step_fires_every_loop_it_spans() {
    let mut a = events_animator();
    let mut world = World::new();
    let e = spawn_playing(&mut world, Playback::new(clip_id(&a, "walk")));
    a.update(&mut world, 3.6).unwrap();
    let events: Vec<_> = a
        .drain_events()
        .map(|ev| (ev.entity, ev.name.to_string(), ev.clip))
        .collect();
    let names: Vec<_> = events.iter().map(|e| e.1.as_str()).collect();
    assert_eq!(
        names,
        ["left", "right", "left", "right", "left", "right", "left"]
    );
    assert!(
        events
            .iter()
            .all(|ev| ev.0 == e && ev.2 == clip_id(&a, "walk"))
    );
}

#[test]
fn reverse_playback_fires_events_in_reverse_order() {
    let mut a = events_animator();
    let mut world = World::new();
    spawn_playing(
        &mut world,
        Playback::new(clip_id(&a, "walk")).with_speed(-1.0),
    );
    run(&mut a, &mut world, 20, 0.1);
    assert_eq!(drain(&mut a), ["right", "left", "right", "left"]);
}

#[test]
fn ping_pong_fires_events_on_both_legs() {
    let mut a = events_animator();
    let mut world = World::new();
    spawn_playing(
        &mut world,
        Playback::new(clip_id(&a, "walk")).with_mode(LoopMode::PingPong),
    );
    run(&mut a, &mut world, 40, 0.05);
    assert_eq!(drain(&mut a), ["left", "right", "right", "left"]);
}

#[test]
fn events_at_the_loop_seam_fire_once_per_wrap() {
    let mut a = animator();
    a.add_event(0, "walk", 0.0, "start").unwrap();
    a.add_event(0, "walk", 1.0, "end").unwrap();
    let mut world = World::new();
    spawn_playing(&mut world, Playback::new(clip_id(&a, "walk")));
    run(&mut a, &mut world, 30, 0.1); // exactly three cycles, landing on the seam
    let events = drain(&mut a);
    assert_eq!(events.iter().filter(|e| *e == "start").count(), 3);
    assert_eq!(events.iter().filter(|e| *e == "end").count(), 3);
}

#[test]
fn scrubbing_fires_no_events_unless_asked() {
    let mut a = events_animator();
    let mut world = World::new();
    let e = spawn_playing(&mut world, Playback::new(clip_id(&a, "walk")));
    world.get::<&mut Playback>(e).unwrap().pause();
    a.update(&mut world, DT).unwrap();
    world.get::<&mut Playback>(e).unwrap().scrub(0.9);
    a.scrub(&mut world, e, 0.5, false).unwrap();
    a.update(&mut world, DT).unwrap();
    assert!(drain(&mut a).is_empty(), "silent scrubs");
    a.scrub(&mut world, e, 0.1, true).unwrap();
    assert_eq!(drain(&mut a), ["left"]);
    assert_close(playback_time(&world, e), 0.1, 1e-6, "scrubbed time");
}

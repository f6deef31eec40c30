//! Playback

use hecs::World;
use sinew::runtime::{LoopMode, Playback};

use super::fixtures::{
    animator, assert_close, clip_id, joint, models, playback_time, record, run, spawn_playing,
};

#[test]
fn looping_playback_wraps_past_the_end() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_playing(&mut world, Playback::new(clip_id(&a, "walk")));
    run(&mut a, &mut world, 13, 0.1);
    assert_close(playback_time(&world, e), 0.3, 1e-5, "walk time after 1.3 s");
    assert_close(
        record(&a, &world, e).layers[0].time,
        0.3,
        1e-5,
        "record time",
    );
}

#[test]
fn clamped_playback_stops_at_either_end() {
    let mut a = animator();
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let forward = spawn_playing(&mut world, Playback::new(walk).with_mode(LoopMode::Clamp));
    let backward = spawn_playing(
        &mut world,
        Playback::new(walk)
            .with_mode(LoopMode::Clamp)
            .with_speed(-2.0)
            .with_time(0.5),
    );
    run(&mut a, &mut world, 25, 0.1);
    assert_eq!(playback_time(&world, forward), 1.0);
    assert_eq!(playback_time(&world, backward), 0.0);
}

#[test]
fn negative_speed_plays_backwards_and_loops() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_playing(
        &mut world,
        Playback::new(clip_id(&a, "walk"))
            .with_speed(-1.0)
            .with_time(0.2),
    );
    run(&mut a, &mut world, 5, 0.1);
    assert_close(
        playback_time(&world, e),
        0.7,
        1e-5,
        "time after -0.5 s from 0.2",
    );
}

#[test]
fn ping_pong_bounces_between_the_ends() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_playing(
        &mut world,
        Playback::new(clip_id(&a, "walk")).with_mode(LoopMode::PingPong),
    );
    let mut times = Vec::new();
    for _ in 0..5 {
        run(&mut a, &mut world, 5, 0.1);
        times.push(playback_time(&world, e));
    }
    // 0.5 forward, 1.0 at the end, 0.5 coming back, 0.0 at the start, 0.5 forward again.
    for (got, want) in times.iter().zip([0.5, 1.0, 0.5, 0.0, 0.5]) {
        assert_close(*got, want, 1e-5, "ping-pong time");
    }
    assert!(!world.get::<&Playback>(e).unwrap().clock.is_reversed());
}

#[test]
fn paused_playback_holds_and_scrub_sets_the_time() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_playing(&mut world, Playback::new(clip_id(&a, "walk")));
    run(&mut a, &mut world, 3, 0.1);
    world.get::<&mut Playback>(e).unwrap().pause();
    run(&mut a, &mut world, 3, 0.1);
    assert_close(playback_time(&world, e), 0.3, 1e-5, "paused time");
    world.get::<&mut Playback>(e).unwrap().scrub(0.9);
    a.update(&mut world, 0.1).unwrap();
    assert_close(
        playback_time(&world, e),
        0.9,
        1e-6,
        "scrubbed, still paused",
    );
    world.get::<&mut Playback>(e).unwrap().resume();
    a.update(&mut world, 0.2).unwrap();
    assert_close(playback_time(&world, e), 0.1, 1e-5, "resumed and wrapped");
}

#[test]
fn entities_sharing_a_rig_animate_independently() {
    let mut a = animator();
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let slow = spawn_playing(&mut world, Playback::new(walk).with_speed(0.5));
    let fast = spawn_playing(&mut world, Playback::new(walk).with_speed(2.0));
    run(&mut a, &mut world, 2, 0.1);
    assert_close(playback_time(&world, slow), 0.1, 1e-6, "slow");
    assert_close(playback_time(&world, fast), 0.4, 1e-6, "fast");
    let (r1, r2) = (record(&a, &world, slow), record(&a, &world, fast));
    assert_ne!(r1.palette_offset, r2.palette_offset);
    let leg = joint(&a, "Leg");
    let (m1, m2) = (models(&a, &world, slow), models(&a, &world, fast));
    assert!(
        !m1[leg].abs_diff_eq(m2[leg], 1e-3),
        "different times give different poses"
    );
}

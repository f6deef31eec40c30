//! Cross-fades

use hecs::World;
use sinew::MAX_LAYERS;
use sinew::runtime::{Animated, ClipLayer, Clock, CrossFade, Layers, Motion, Transform};

use super::fixtures::{DT, animator, assert_close, clip_id, distance, palette, record, run};

#[test]
fn cross_fade_blends_both_clips_while_both_advance() {
    let mut a = animator();
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let run_clip = clip_id(&a, "run");
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.cross_fade(0, "walk").unwrap(),
    ));
    a.update(&mut world, 0.1).unwrap();
    world
        .get::<&mut CrossFade>(e)
        .unwrap()
        .fade_to(Motion::Clip(run_clip), Clock::default(), 0.4);
    run(&mut a, &mut world, 2, 0.1);
    let rec = record(&a, &world, e);
    assert_eq!(rec.layer_count, 2);
    assert_eq!((rec.layers[0].clip, rec.layers[1].clip), (walk, run_clip));
    assert_eq!(rec.layers[0].weight, 1.0);
    assert_close(rec.layers[1].weight, 0.5, 1e-5, "run half faded in");
    assert_close(rec.layers[0].time, 0.3, 1e-5, "walk keeps playing");
    assert_close(rec.layers[1].time, 0.2, 1e-5, "run plays from its start");
    run(&mut a, &mut world, 3, 0.1);
    let rec = record(&a, &world, e);
    assert_eq!((rec.layer_count, rec.layers[0].clip), (1, run_clip));
}

#[test]
fn interrupting_a_fade_mid_way_does_not_pop() {
    let mut a = animator();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.cross_fade(0, "idle").unwrap(),
    ));
    let walk = clip_id(&a, "walk");
    let run_clip = clip_id(&a, "run");
    run(&mut a, &mut world, 10, DT);
    world
        .get::<&mut CrossFade>(e)
        .unwrap()
        .fade_to(Motion::Clip(walk), Clock::default(), 0.5);
    let mut poses = Vec::new();
    for _ in 0..15 {
        a.update(&mut world, DT).unwrap();
        poses.push(palette(&mut a, &world, e));
    }
    // Mid-fade (walk at half weight), fade to a third clip.
    world
        .get::<&mut CrossFade>(e)
        .unwrap()
        .fade_to(Motion::Clip(run_clip), Clock::default(), 0.5);
    for _ in 0..2 {
        a.update(&mut world, DT).unwrap();
        poses.push(palette(&mut a, &world, e));
    }
    let n = poses.len();
    let before = distance(&poses[n - 4], &poses[n - 3]);
    let across = distance(&poses[n - 3], &poses[n - 2]);
    let after = distance(&poses[n - 2], &poses[n - 1]);
    assert!(
        across <= 1.5 * before.max(after) + 1e-5,
        "the pose jumped by {across} across the interruption; frame steps are {before} before \
         and {after} after"
    );
    assert_eq!(
        record(&a, &world, e).layer_count,
        3,
        "idle, walk and run all blend"
    );
}

#[test]
fn interruptions_beyond_the_layer_budget_stay_continuous() {
    let mut a = animator();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.cross_fade(0, "idle").unwrap(),
        // Two extra layers leave two for the base.
        Layers::from_layers(&[
            ClipLayer::additive(clip_id(&a, "breathe")).with_weight(0.3),
            ClipLayer::additive(clip_id(&a, "breathe")).with_weight(0.2),
        ])
        .unwrap(),
    ));
    run(&mut a, &mut world, 5, DT);
    let mut poses = vec![palette(&mut a, &world, e)];
    let clips = ["walk", "run", "wave", "turn", "walk"];
    let mut steps = Vec::new();
    for (i, name) in clips.iter().enumerate() {
        let c = clip_id(&a, name);
        world
            .get::<&mut CrossFade>(e)
            .unwrap()
            .fade_to(Motion::Clip(c), Clock::default(), 0.3);
        for _ in 0..(4 + i) {
            a.update(&mut world, DT).unwrap();
            assert!(record(&a, &world, e).layer_count as usize <= MAX_LAYERS);
            poses.push(palette(&mut a, &world, e));
            steps.push(distance(&poses[poses.len() - 2], &poses[poses.len() - 1]));
        }
    }
    // A pop would be a step far larger than the fade steps around it.
    let typical = {
        let mut sorted = steps.clone();
        sorted.sort_by(f32::total_cmp);
        sorted[sorted.len() / 2]
    };
    let worst = steps.iter().copied().fold(0.0, f32::max);
    assert!(
        worst <= 4.0 * typical + 1e-4,
        "largest frame step {worst} vs median {typical}: {steps:?}"
    );
}

#[test]
fn zero_duration_fade_is_an_instant_cut() {
    let mut a = animator();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.cross_fade(0, "walk").unwrap(),
    ));
    run(&mut a, &mut world, 3, DT);
    let run_clip = clip_id(&a, "run");
    world
        .get::<&mut CrossFade>(e)
        .unwrap()
        .fade_to(Motion::Clip(run_clip), Clock::default(), 0.0);
    a.update(&mut world, DT).unwrap();
    let rec = record(&a, &world, e);
    assert_eq!(rec.layer_count, 1);
    assert_eq!(rec.layers[0].clip, run_clip);
    assert_eq!(rec.layers[0].weight, 1.0);
    assert!(rec.layers[0].time.is_finite());
    assert!(!world.get::<&CrossFade>(e).unwrap().is_fading());
}

//! Persistence

use hecs::World;
use sinew::runtime::{
    Animated, AnimatorConfig, BlendSpaceDef, ClipLayer, ControllerConfig, Layers, MaskSpec,
    RootMotion, RootTranslation, RuntimeError, Transform, Value,
};

use super::fixtures::{DT, animator, clip_id, locomotion, record, run, sample, set, state_of};

#[test]
fn configuration_round_trips_through_json_and_runtime_state_resets() {
    let mut a = animator();
    let upper = a
        .add_mask(0, &MaskSpec::subtrees("upper", &["Chest"]))
        .unwrap();
    a.add_mask(0, &MaskSpec::joints("legs", &["Leg"])).unwrap();
    let machine = a.add_state_machine(0, &locomotion()).unwrap();
    a.add_event(0, "walk", 0.25, "left").unwrap();
    a.add_blend_space(
        0,
        "gait",
        &BlendSpaceDef {
            x: "speed".to_string(),
            y: None,
            samples: vec![sample("walk", 1.0, 0.0), sample("run", 3.0, 0.0)],
        },
    )
    .unwrap();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.state_machine(machine).unwrap(),
        Layers::from_layers(&[
            ClipLayer::new(clip_id(&a, "wave"))
                .with_mask(upper)
                .with_weight(0.75),
            ClipLayer::additive(clip_id(&a, "breathe")).with_speed(0.5),
        ])
        .unwrap(),
        a.root_motion(0, "Root", RootTranslation::Xz, false)
            .unwrap(),
    ));
    set(&a, &mut world, e, "speed", Value::Float(1.5));
    run(&mut a, &mut world, 30, DT);
    assert_eq!(state_of(&a, &world, e), "walk");

    let config = a.config().to_json().unwrap();
    let controller = a.controller(&world, e).unwrap().to_json().unwrap();
    assert!(
        config.contains("\"subtrees\"") && config.contains("\"Chest\""),
        "{config}"
    );
    assert!(controller.contains("\"speed\": 1.5"), "{controller}");

    let mut b = animator();
    b.load_config(&AnimatorConfig::from_json(&config).unwrap())
        .unwrap();
    let mut world_b = World::new();
    let loaded = world_b.spawn(());
    b.apply_controller(
        &mut world_b,
        loaded,
        &ControllerConfig::from_json(&controller).unwrap(),
    )
    .unwrap();
    assert_eq!(b.config().to_json().unwrap(), config);
    assert_eq!(
        b.controller(&world_b, loaded).unwrap().to_json().unwrap(),
        controller
    );

    // Runtime state starts afresh: initial state, clocks at 0 — then the parameters act.
    assert_eq!(state_of(&b, &world_b, loaded), "idle");
    assert_eq!(
        world_b.get::<&Layers>(loaded).unwrap().as_slice()[0]
            .playback
            .time(),
        0.0
    );
    b.update(&mut world_b, DT).unwrap();
    assert_eq!(state_of(&b, &world_b, loaded), "walk");
    let rec = record(&b, &world_b, loaded);
    let wave = rec.layers_at(0.0).find(|l| l.mask.is_some()).unwrap();
    assert_eq!(wave.mask, Some(b.mask("upper").unwrap()));
    assert_eq!(wave.weight, 0.75);
    assert_ne!(rec.flags, 0, "root motion restored");

    // Root motion on the GPU is saved as such.
    world_b
        .get::<&mut RootMotion>(loaded)
        .map(|mut r| *r = r.on_gpu())
        .unwrap();
    let on_gpu = b.controller(&world_b, loaded).unwrap();
    assert!(on_gpu.root_motion.as_ref().unwrap().gpu);
    b.apply_controller(&mut world_b, loaded, &on_gpu).unwrap();
    assert!(world_b.get::<&RootMotion>(loaded).unwrap().is_on_gpu());
}

#[test]
fn malformed_configuration_is_a_parse_error() {
    assert!(matches!(
        AnimatorConfig::from_json("{ \"masks\": 3 }"),
        Err(RuntimeError::Parse { .. })
    ));
    assert!(matches!(
        ControllerConfig::from_json("not json"),
        Err(RuntimeError::Parse { .. })
    ));
}

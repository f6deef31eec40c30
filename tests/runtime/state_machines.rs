//! State machines

use hecs::{Entity, World};
use sinew::runtime::{
    Animator, Compare, Condition, LoopMode, ParameterKind, RuntimeError, StateDef, StateMachine,
    StateMachineDef, StateMotion, TransitionDef, Value,
};

use super::fixtures::{
    DT, animator, assert_close, clip_id, distance, float, locomotion, palette, param, record, run,
    set, spawn_machine, speed_is, state_of,
};

/// Runs frames until the entity's state machine finishes its transition; returns the count.
fn frames_until_settled(a: &mut Animator, world: &mut World, e: Entity) -> usize {
    let mut frames = 0;
    while world.get::<&StateMachine>(e).unwrap().is_transitioning() {
        a.update(world, DT).unwrap();
        frames += 1;
        assert!(frames < 1000, "the transition never ends");
    }
    frames
}

#[test]
fn float_parameter_walks_idle_walk_run_idle_with_the_configured_fades() {
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &locomotion());
    run(&mut a, &mut world, 5, DT);
    assert_eq!(state_of(&a, &world, e), "idle");
    assert_eq!(record(&a, &world, e).layer_count, 1);
    for (speed, state, fade, from, to) in [
        (1.5, "walk", 0.2, "idle", "walk"),
        (4.0, "run", 0.3, "walk", "run"),
        (0.0, "idle", 0.25, "run", "idle"),
    ] {
        set(&a, &mut world, e, "speed", Value::Float(speed));
        a.update(&mut world, DT).unwrap();
        assert_eq!(state_of(&a, &world, e), state);
        a.update(&mut world, DT).unwrap();
        let rec = record(&a, &world, e);
        assert_eq!(rec.layer_count, 2, "{from} → {to} blends both");
        assert_eq!(rec.layers[0].clip, clip_id(&a, from));
        assert_eq!(rec.layers[1].clip, clip_id(&a, to));
        assert_close(rec.layers[1].weight, DT / fade, 1e-4, "first fade step");
        let frames = frames_until_settled(&mut a, &mut world, e) + 1;
        let expected = (fade / DT).round() as usize;
        assert!(
            frames.abs_diff(expected) <= 1,
            "{from} → {to} took {frames} frames, expected {expected}"
        );
        let rec = record(&a, &world, e);
        assert_eq!((rec.layer_count, rec.layers[0].clip), (1, clip_id(&a, to)));
    }
}

#[test]
fn triggers_fire_once_and_are_consumed() {
    let def = StateMachineDef::new("jumper")
        .parameter(param("jump", ParameterKind::Trigger))
        .clip_state("idle", "idle")
        .state(StateDef {
            name: "jump".to_string(),
            motion: StateMotion::Clip("wave".to_string()),
            speed: 4.0,
            mode: LoopMode::Clamp,
        })
        .transition(TransitionDef::new("idle", "jump").when(Condition::trigger("jump")))
        .transition(TransitionDef::new("jump", "idle").after(1.0));
    let mut a = animator();
    let mut world = World::new();
    let (id, e) = spawn_machine(&mut a, &mut world, &def);
    let jump = a.parameter(id, "jump").unwrap();
    world
        .get::<&mut StateMachine>(e)
        .unwrap()
        .params_mut()
        .trigger(jump)
        .unwrap();
    a.update(&mut world, DT).unwrap();
    assert_eq!(state_of(&a, &world, e), "jump");
    assert_eq!(
        world.get::<&StateMachine>(e).unwrap().params().get(jump),
        None
    );
    // The 2 s clip at speed 4 ends after 0.5 s; then back to idle, and no second jump.
    run(&mut a, &mut world, 35, DT);
    assert_eq!(state_of(&a, &world, e), "idle");
    run(&mut a, &mut world, 60, DT);
    assert_eq!(state_of(&a, &world, e), "idle");
}

#[test]
fn any_state_transitions_fire_from_every_state_but_not_into_themselves() {
    let def = locomotion()
        .parameter(param("stunned", ParameterKind::Bool))
        .clip_state("stun", "wave")
        .transition(TransitionDef::from_any("stun").when(Condition::new(
            "stunned",
            Compare::Eq,
            Value::Bool(true),
        )));
    for start_speed in [0.0, 1.5, 4.0] {
        let mut a = animator();
        let mut world = World::new();
        let (_, e) = spawn_machine(&mut a, &mut world, &def);
        set(&a, &mut world, e, "speed", Value::Float(start_speed));
        run(&mut a, &mut world, 80, DT);
        let before = state_of(&a, &world, e);
        set(&a, &mut world, e, "stunned", Value::Bool(true));
        a.update(&mut world, DT).unwrap();
        assert_eq!(state_of(&a, &world, e), "stun", "from {before}");
        run(&mut a, &mut world, 30, DT);
        let sm = *world.get::<&StateMachine>(e).unwrap();
        assert_eq!(state_of(&a, &world, e), "stun");
        assert!(
            sm.state_time() > 0.2,
            "stun was not restarted every frame (state time {})",
            sm.state_time()
        );
    }
}

#[test]
fn exit_time_waits_for_the_end_of_the_clip() {
    let def = StateMachineDef::new("once")
        .clip_state("wave", "wave")
        .clip_state("idle", "idle")
        .transition(TransitionDef::new("wave", "idle").after(1.0));
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &def);
    run(&mut a, &mut world, 19, 0.1); // 1.9 s of the 2 s clip
    assert_eq!(state_of(&a, &world, e), "wave");
    run(&mut a, &mut world, 2, 0.1);
    assert_eq!(state_of(&a, &world, e), "idle");
}

#[test]
fn exit_time_can_be_a_fraction_of_the_clip() {
    let def = StateMachineDef::new("half")
        .clip_state("wave", "wave")
        .clip_state("idle", "idle")
        .transition(TransitionDef::new("wave", "idle").after(0.5));
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &def);
    run(&mut a, &mut world, 9, 0.1);
    assert_eq!(state_of(&a, &world, e), "wave");
    run(&mut a, &mut world, 2, 0.1);
    assert_eq!(state_of(&a, &world, e), "idle");
}

/// 0: any → hit (trigger), 1: idle → walk (slow fade), 2: walk → run.
fn priorities() -> StateMachineDef {
    StateMachineDef::new("priorities")
        .parameter(float("speed", Some(0.0)))
        .parameter(param("hit", ParameterKind::Trigger))
        .clip_state("idle", "idle")
        .clip_state("walk", "walk")
        .clip_state("run", "run")
        .clip_state("hit", "wave")
        .transition(
            TransitionDef::from_any("hit")
                .fade(0.1)
                .when(Condition::trigger("hit")),
        )
        .transition(
            TransitionDef::new("idle", "walk")
                .fade(0.5)
                .when(speed_is(Compare::Gt, 0.5)),
        )
        .transition(
            TransitionDef::new("walk", "run")
                .fade(0.2)
                .when(speed_is(Compare::Gt, 3.0)),
        )
}

#[test]
fn a_higher_priority_transition_interrupts_one_in_flight() {
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &priorities());
    set(&a, &mut world, e, "speed", Value::Float(1.0));
    run(&mut a, &mut world, 10, DT);
    assert!(world.get::<&StateMachine>(e).unwrap().is_transitioning());
    let before = palette(&mut a, &world, e);
    set(&a, &mut world, e, "hit", Value::Bool(true));
    a.update(&mut world, DT).unwrap();
    assert_eq!(state_of(&a, &world, e), "hit", "interrupted mid-fade");
    let rec = record(&a, &world, e);
    assert_eq!(
        rec.layer_count, 2,
        "idle and walk still blend, hit starts at weight 0"
    );
    let after = palette(&mut a, &world, e);
    assert!(
        distance(&before, &after) < 0.05,
        "no pop at the interruption"
    );
}

#[test]
fn a_lower_priority_transition_waits_for_the_one_in_flight() {
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &priorities());
    set(&a, &mut world, e, "speed", Value::Float(5.0));
    run(&mut a, &mut world, 10, DT);
    assert_eq!(
        state_of(&a, &world, e),
        "walk",
        "walk → run may not interrupt idle → walk"
    );
    frames_until_settled(&mut a, &mut world, e);
    a.update(&mut world, DT).unwrap();
    assert_eq!(state_of(&a, &world, e), "run");
}

#[test]
fn conditions_on_unset_parameters_are_false() {
    let def = StateMachineDef::new("unset")
        .parameter(param("speed", ParameterKind::Float))
        .parameter(param("armed", ParameterKind::Bool))
        .clip_state("idle", "idle")
        .clip_state("walk", "walk")
        .clip_state("wave", "wave")
        .transition(TransitionDef::new("idle", "walk").when(speed_is(Compare::Ne, 0.0)))
        .transition(TransitionDef::new("idle", "wave").when(Condition::new(
            "armed",
            Compare::Ne,
            Value::Bool(true),
        )));
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &def);
    run(&mut a, &mut world, 5, DT);
    assert_eq!(
        state_of(&a, &world, e),
        "idle",
        "neither != holds on unset parameters"
    );
    set(&a, &mut world, e, "speed", Value::Float(2.0));
    a.update(&mut world, DT).unwrap();
    assert_eq!(state_of(&a, &world, e), "walk");
}

#[test]
fn a_transition_without_conditions_fires_at_once() {
    let def = StateMachineDef::new("chain")
        .clip_state("idle", "idle")
        .clip_state("walk", "walk")
        .transition(TransitionDef::new("idle", "walk"));
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &def);
    a.update(&mut world, DT).unwrap();
    assert_eq!(state_of(&a, &world, e), "walk");
}

#[test]
fn conditions_on_one_transition_are_anded_and_the_first_passing_fires() {
    let def = StateMachineDef::new("and")
        .parameter(float("speed", Some(0.0)))
        .parameter(param("grounded", ParameterKind::Bool))
        .parameter(param("gear", ParameterKind::Int))
        .clip_state("idle", "idle")
        .clip_state("walk", "walk")
        .clip_state("run", "run")
        .transition(
            TransitionDef::new("idle", "run")
                .when(speed_is(Compare::Gt, 1.0))
                .when(Condition::new("gear", Compare::Ge, Value::Int(2))),
        )
        .transition(
            TransitionDef::new("idle", "walk")
                .when(speed_is(Compare::Gt, 1.0))
                .when(Condition::new("grounded", Compare::Eq, Value::Bool(true))),
        );
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &def);
    set(&a, &mut world, e, "speed", Value::Float(2.0));
    set(&a, &mut world, e, "gear", Value::Int(1));
    a.update(&mut world, DT).unwrap();
    assert_eq!(
        state_of(&a, &world, e),
        "idle",
        "one condition of each fails"
    );
    set(&a, &mut world, e, "grounded", Value::Bool(true));
    set(&a, &mut world, e, "gear", Value::Int(2));
    a.update(&mut world, DT).unwrap();
    assert_eq!(
        state_of(&a, &world, e),
        "run",
        "both pass: the first listed fires"
    );
}

#[test]
fn float_equality_uses_a_tolerance() {
    let def = StateMachineDef::new("eq")
        .parameter(float("speed", Some(0.0)))
        .clip_state("idle", "idle")
        .clip_state("walk", "walk")
        .transition(TransitionDef::new("idle", "walk").when(speed_is(Compare::Eq, 1.0)));
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &def);
    set(&a, &mut world, e, "speed", Value::Float(1.002));
    a.update(&mut world, DT).unwrap();
    assert_eq!(state_of(&a, &world, e), "idle");
    set(&a, &mut world, e, "speed", Value::Float(1.0005));
    a.update(&mut world, DT).unwrap();
    assert_eq!(state_of(&a, &world, e), "walk");
}

#[test]
fn bad_state_machine_definitions_are_typed_errors() {
    let mut a = animator();
    let check = |a: &mut Animator, def: StateMachineDef| a.add_state_machine(0, &def).unwrap_err();
    assert!(matches!(
        check(&mut a, StateMachineDef::new("empty")),
        RuntimeError::EmptyStateMachine { .. }
    ));
    assert!(matches!(
        check(
            &mut a,
            StateMachineDef::new("s")
                .clip_state("idle", "idle")
                .transition(TransitionDef::new("idle", "fly"))
        ),
        RuntimeError::UnknownState { .. }
    ));
    assert!(matches!(
        check(
            &mut a,
            StateMachineDef::new("s")
                .clip_state("idle", "idle")
                .clip_state("idle", "walk")
        ),
        RuntimeError::DuplicateName { .. }
    ));
    assert!(matches!(
        check(&mut a, StateMachineDef::new("s").clip_state("idle", "swim")),
        RuntimeError::UnknownClip { .. }
    ));
    assert!(matches!(
        check(
            &mut a,
            StateMachineDef::new("s")
                .clip_state("idle", "idle")
                .transition(TransitionDef::new("idle", "idle").when(speed_is(Compare::Gt, 1.0)))
        ),
        RuntimeError::UnknownParameter { .. }
    ));
    assert!(matches!(
        check(
            &mut a,
            StateMachineDef::new("s")
                .parameter(param("on", ParameterKind::Bool))
                .clip_state("idle", "idle")
                .transition(TransitionDef::new("idle", "idle").when(Condition::new(
                    "on",
                    Compare::Gt,
                    Value::Bool(true)
                )))
        ),
        RuntimeError::ParameterType { .. }
    ));
    assert!(matches!(
        check(
            &mut a,
            StateMachineDef::new("s")
                .clip_state("idle", "idle")
                .transition(TransitionDef::new("idle", "idle").fade(-1.0))
        ),
        RuntimeError::InvalidValue { .. }
    ));
    let too_many = (0..=sinew::runtime::MAX_PARAMETERS).fold(
        StateMachineDef::new("s").clip_state("idle", "idle"),
        |d, i| d.parameter(param(&format!("p{i}"), ParameterKind::Int)),
    );
    assert!(matches!(
        check(&mut a, too_many),
        RuntimeError::TooManyParameters { .. }
    ));
}

#[test]
fn parameters_are_typed_and_named() {
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &locomotion());
    assert!(matches!(
        a.set_parameter(&mut world, e, "speed", Value::Bool(true)),
        Err(RuntimeError::ParameterType { .. })
    ));
    assert!(matches!(
        a.set_parameter(&mut world, e, "altitude", Value::Float(1.0)),
        Err(RuntimeError::UnknownParameter { .. })
    ));
    assert!(matches!(
        a.set_parameter(&mut world, e, "speed", Value::Float(f64::NAN)),
        Err(RuntimeError::ParameterType { .. })
    ));
    assert!(
        a.set_parameter(&mut world, e, "speed", Value::Int(2))
            .is_ok()
    );
}

#[test]
fn state_machine_definitions_load_from_json() {
    let text = r#"{
        "name": "from_text",
        "parameters": [{ "name": "speed", "kind": "float", "default": 0.0 }],
        "states": [
            { "name": "idle", "motion": { "clip": "idle" } },
            { "name": "move", "motion": { "blend_space": {
                "x": "speed",
                "samples": [{ "clip": "walk", "x": 1.0 }, { "clip": "run", "x": 3.0 }]
            } } }
        ],
        "transitions": [
            { "from": "idle", "to": "move", "duration": 0.2,
              "conditions": [{ "parameter": "speed", "op": ">", "value": 0.5 }] }
        ]
    }"#;
    let def: StateMachineDef = serde_json::from_str(text).unwrap();
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &def);
    set(&a, &mut world, e, "speed", Value::Float(2.0));
    a.update(&mut world, DT).unwrap();
    assert_eq!(state_of(&a, &world, e), "move");
    frames_until_settled(&mut a, &mut world, e);
    let rec = record(&a, &world, e);
    let clips: Vec<u32> = rec.layers_at(0.0).map(|l| l.clip).collect();
    assert_eq!(
        clips,
        [clip_id(&a, "walk"), clip_id(&a, "run")],
        "the blend space plays"
    );
}

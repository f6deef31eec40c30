//! Runtime snapshots: a long scripted run saved and restored at pseudo-random frames continues
//! bitwise identically, and damaged snapshots are typed errors.

use super::common::Rng;
use super::fixtures::{
    DT, animator, clip_id, float, param, run, sample, spawn_playing, speed_is, test_rig,
};
use glam::{Quat, Vec2, Vec3};
use hecs::{Entity, World};
use sinew::Mat3x4Rows;
use sinew::runtime::{
    Animated, Animator, Attachment, BlendSpaceDef, ClipLayer, Clock, Compare, Condition, CrossFade,
    Layers, LoopMode, MaskSpec, Motion, ParameterKind, Playback, RootTranslation, RuntimeError,
    Scheduling, StateDef, StateMachineDef, StateMotion, Transform, TransitionDef, Value,
};
use sinew::runtime::{InputRamp, RuntimeSnapshot, SNAPSHOT_VERSION};

/// A machine with a float `speed`, a trigger `jump` from any state and a blend-space state.
fn scripted_machine() -> StateMachineDef {
    StateMachineDef::new("scripted")
        .parameter(float("speed", Some(0.0)))
        .parameter(param("jump", ParameterKind::Trigger))
        .clip_state("idle", "idle")
        .state(StateDef {
            name: "move".to_string(),
            motion: StateMotion::BlendSpace(BlendSpaceDef {
                x: "speed".to_string(),
                y: None,
                samples: vec![sample("walk", 1.0, 0.0), sample("run", 3.0, 0.0)],
            }),
            speed: 1.0,
            mode: LoopMode::Loop,
        })
        .state(StateDef {
            name: "jump".to_string(),
            motion: StateMotion::Clip("wave".to_string()),
            speed: 2.0,
            mode: LoopMode::Clamp,
        })
        .transition(
            TransitionDef::new("idle", "move")
                .fade(0.2)
                .when(speed_is(Compare::Gt, 0.5)),
        )
        .transition(
            TransitionDef::new("move", "idle")
                .fade(0.3)
                .when(speed_is(Compare::Le, 0.5)),
        )
        .transition(
            TransitionDef::from_any("jump")
                .fade(0.1)
                .when(Condition::trigger("jump")),
        )
        .transition(TransitionDef::new("jump", "idle").fade(0.25).after(1.0))
}

/// An animator with the scripted configuration: events, a mask, a blend space, the machine.
fn scripted_animator() -> Animator {
    let mut a = animator();
    a.add_event(0, "walk", 0.25, "left").unwrap();
    a.add_event(0, "walk", 0.75, "right").unwrap();
    a.add_event(0, "run", 0.3, "stride").unwrap();
    a.add_event(0, "wave", 1.0, "waved").unwrap();
    a.add_mask(0, &MaskSpec::subtrees("arm", &["Arm"])).unwrap();
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
    a.add_state_machine(0, &scripted_machine()).unwrap();
    a
}

/// Spawns the scripted cast: two state machine entities (one with root motion), a cross-fade,
/// a walker with root motion, a playback with layers and a blend space.
fn spawn_cast(a: &Animator, world: &mut World) -> Vec<Entity> {
    let machine = a.state_machine_id("scripted").unwrap();
    let root = || a.root_motion(0, "Root", RootTranslation::Xz, true).unwrap();
    let mut cast = vec![
        world.spawn((
            Animated::new(0),
            Transform::IDENTITY,
            a.state_machine(machine).unwrap(),
        )),
        world.spawn((
            Animated::new(0),
            Transform::IDENTITY,
            a.state_machine(machine).unwrap(),
            root(),
        )),
        world.spawn((
            Animated::new(0),
            Transform::IDENTITY,
            a.cross_fade(0, "idle").unwrap(),
        )),
        world.spawn((
            Animated::new(0),
            Transform::IDENTITY,
            a.playback(0, "walk").unwrap().with_speed(1.3),
            root(),
        )),
    ];
    let mut layers = Layers::new();
    let mask = a.mask("arm").unwrap();
    layers
        .push(
            ClipLayer::new(clip_id(a, "wave"))
                .with_mask(mask)
                .with_weight(0.5),
        )
        .unwrap();
    layers
        .push(ClipLayer::additive(clip_id(a, "breathe")).with_speed(0.7))
        .unwrap();
    cast.push(world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.playback(0, "run").unwrap().with_mode(LoopMode::PingPong),
        layers,
    )));
    let space = a.blend_space("gait").unwrap();
    cast.push(world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.blend_space_fade(0, space, Vec2::new(1.5, 0.0)).unwrap(),
    )));
    // An animated entity attached to the walker's arm, and a prop on a state machine's chest.
    cast.push(world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.playback(0, "idle").unwrap(),
        Attachment::new(cast[3], "Arm").with_offset(Vec3::X, Quat::from_rotation_z(0.3)),
    )));
    cast.push(world.spawn((Transform::IDENTITY, Attachment::new(cast[1], "Chest"))));
    cast
}

/// What one frame of a scripted run produces.
#[derive(Debug, PartialEq)]
struct Frame {
    records: Vec<u32>,
    slot_records: Vec<u32>,
    entities: Vec<Entity>,
    changed: Vec<u32>,
    events: Vec<(Entity, String, u32)>,
    /// Transforms of the attached entities.
    attached: Vec<(Entity, Transform)>,
}

/// The script's changes before update `frame`, the same in every run: parameter changes,
/// triggers, cross-fades, layer weight fades, pauses and scrubs, drawn from the frame number.
fn script(a: &mut Animator, world: &mut World, cast: &[Entity], frame: usize) {
    let mut rng = Rng(0x5ca1_ab1e ^ frame as u64);
    let pick = rng.next();
    let clips = ["idle", "walk", "run", "turn"];
    if frame.is_multiple_of(23) {
        let speed = [0.0, 1.2, 2.5, 3.5][(pick % 4) as usize];
        let e = cast[(pick / 4 % 2) as usize];
        a.set_parameter(world, e, "speed", Value::Float(speed))
            .unwrap();
    }
    if frame % 97 == 41 {
        a.set_parameter(world, cast[(pick % 2) as usize], "jump", Value::Bool(true))
            .unwrap();
    }
    if frame % 31 == 7 {
        let clip = a.clip(0, clips[(pick % 4) as usize]).unwrap();
        let duration = 0.1 + 0.3 * rng.unit();
        world.get::<&mut CrossFade>(cast[2]).unwrap().fade_to(
            Motion::Clip(clip),
            Clock::new(LoopMode::Loop),
            duration,
        );
        a.touch(cast[2]);
    }
    if frame % 43 == 13 {
        let target = rng.unit();
        world.get::<&mut Layers>(cast[4]).unwrap().as_mut_slice()[0].fade_weight(target, 0.4);
        a.touch(cast[4]);
    }
    if frame % 59 == 17 {
        let speed = 0.25 + 1.5 * rng.unit();
        a.set_entity_speed(world, cast[(pick % 6) as usize], speed)
            .unwrap();
    }
    if frame % 151 == 90 {
        a.pause_entity(world, cast[1]).unwrap();
    }
    if frame % 151 == 130 {
        a.resume_entity(world, cast[1]).unwrap();
    }
    if frame % 113 == 70 {
        a.scrub(world, cast[3], rng.unit(), true).unwrap();
    }
    if frame % 67 == 5 {
        // The blend space's input as a ramp, across its samples and past them.
        let space = a.blend_space("gait").unwrap();
        let from = Vec2::new(0.5 + 3.0 * rng.unit(), 0.0);
        let rate = Vec2::new(2.0 * rng.unit() - 1.0, 0.0);
        let ramp = InputRamp::new(from, rate, 0.5 + 2.0 * rng.unit()).unwrap();
        a.set_blend_input_ramp(world, cast[5], space, ramp).unwrap();
    }
}

fn frame_of(a: &mut Animator, world: &World) -> Frame {
    let mut attached: Vec<(Entity, Transform)> = world
        .query::<(Entity, &Attachment, &Transform)>()
        .iter()
        .map(|(e, _, t)| (e, *t))
        .collect();
    attached.sort_by_key(|(e, _)| e.to_bits());
    let events = a
        .drain_events()
        .map(|e| (e.entity, e.name.to_string(), e.clip))
        .collect();
    Frame {
        records: bytemuck::cast_slice(a.records()).to_vec(),
        slot_records: bytemuck::cast_slice(a.slot_records()).to_vec(),
        entities: a.record_entities().to_vec(),
        changed: a.changed_slots().to_vec(),
        events,
        attached,
    }
}

const FRAMES: usize = 700;

/// Runs the script from frame `from` to [`FRAMES`] with uneven steps; `save` saves the state
/// after that update (before its events are drained) and stops.
fn play(
    a: &mut Animator,
    world: &mut World,
    cast: &[Entity],
    from: usize,
    save: Option<usize>,
) -> (Vec<Frame>, Option<String>) {
    let mut frames = Vec::new();
    for frame in from..FRAMES {
        script(a, world, cast, frame);
        let dt = DT * (0.5 + Rng(frame as u64).unit());
        a.update(world, dt).unwrap();
        if save == Some(frame) {
            let snapshot = a.save_state(world).unwrap();
            return (frames, Some(snapshot.to_json().unwrap()));
        }
        frames.push(frame_of(a, world));
    }
    (frames, None)
}

fn restored_run_matches(scheduling: Scheduling) {
    let mut a = scripted_animator();
    a.set_scheduling(scheduling);
    let mut world = World::new();
    let cast = spawn_cast(&a, &mut world);
    let (reference, _) = play(&mut a, &mut world, &cast, 0, None);
    let final_pose: Vec<Mat3x4Rows> = a.evaluate_cpu().unwrap().palette.to_vec();

    let mut rng = Rng(0xdecaf);
    let mut saves: Vec<usize> = (0..4).map(|_| 1 + rng.below(FRAMES - 2)).collect();
    saves.push(0);
    for at in saves {
        let mut a = scripted_animator();
        a.set_scheduling(scheduling);
        let mut world = World::new();
        let cast = spawn_cast(&a, &mut world);
        let (before, json) = play(&mut a, &mut world, &cast, 0, Some(at));
        assert_eq!(
            before[..],
            reference[..at],
            "frames before the save at {at}"
        );
        let json = json.expect("saved");
        // A fresh animator with the same configuration and an empty world.
        let mut b = Animator::new(vec![test_rig()]).unwrap();
        b.load_config(&a.config()).unwrap();
        let mut restored = World::new();
        let snapshot = RuntimeSnapshot::from_json(&json).unwrap();
        assert_eq!(snapshot.version(), SNAPSHOT_VERSION);
        assert_eq!(
            snapshot.entity_count(),
            cast.len() - 1,
            "the prop is not animated"
        );
        b.restore_state(&mut restored, &snapshot).unwrap();
        let mut frames = vec![frame_of(&mut b, &restored)];
        let (after, _) = play(&mut b, &mut restored, &cast, at + 1, None);
        frames.extend(after);
        for (i, (got, want)) in frames.iter().zip(&reference[at..]).enumerate() {
            assert_eq!(
                got,
                want,
                "{scheduling:?}: frame {} after restoring at {at}",
                at + i
            );
        }
        assert_eq!(frames.len(), FRAMES - at);
        let pose = b.evaluate_cpu().unwrap().palette.to_vec();
        assert_eq!(
            bytemuck::cast_slice::<_, u32>(&pose),
            bytemuck::cast_slice::<_, u32>(&final_pose),
            "final palette after restoring at {at}"
        );
    }
    // The script did what it is meant to exercise.
    let events: usize = reference.iter().map(|f| f.events.len()).sum();
    assert!(events > 20, "{events} events");
}

#[test]
fn snapshot_restored_run_is_bitwise_identical_per_frame() {
    restored_run_matches(Scheduling::PerFrame);
}

#[test]
fn snapshot_restored_run_is_bitwise_identical_event_driven() {
    restored_run_matches(Scheduling::EventDriven);
}

#[test]
fn snapshot_restores_onto_the_live_world_in_place() {
    let mut a = scripted_animator();
    let mut world = World::new();
    let cast = spawn_cast(&a, &mut world);
    let (_, json) = play(&mut a, &mut world, &cast, 0, Some(200));
    let snapshot = RuntimeSnapshot::from_json(&json.unwrap()).unwrap();
    let _ = a.drain_events().count();
    let reference: Vec<Frame> = (0..100)
        .map(|_| {
            a.update(&mut world, DT).unwrap();
            frame_of(&mut a, &world)
        })
        .collect();
    // Back to frame 200 on the same world: every entity continues as it did.
    a.restore_state(&mut world, &snapshot).unwrap();
    let _ = a.drain_events().count();
    for (i, want) in reference.iter().enumerate() {
        a.update(&mut world, DT).unwrap();
        assert_eq!(
            &frame_of(&mut a, &world),
            want,
            "frame {i} after the restore"
        );
    }
}

#[test]
fn snapshot_floats_round_trip_exactly() {
    let mut rng = Rng(0xf10a7);
    for _ in 0..100_000 {
        let x = f32::from_bits(rng.next() as u32);
        if !x.is_finite() {
            continue;
        }
        let text = serde_json::to_string(&x).unwrap();
        let back: f32 = serde_json::from_str(&text).unwrap();
        assert_eq!(back.to_bits(), x.to_bits(), "{x:e} written as {text}");
    }
    // A clock mid-loop with its f64 position survives a whole snapshot.
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_playing(
        &mut world,
        Playback::new(clip_id(&a, "walk")).with_speed(0.37),
    );
    run(&mut a, &mut world, 77, 0.0123);
    let json = a.save_state(&world).unwrap().to_json().unwrap();
    let mut restored = World::new();
    let mut b = animator();
    b.restore_state(&mut restored, &RuntimeSnapshot::from_json(&json).unwrap())
        .unwrap();
    assert_eq!(
        *restored.get::<&Playback>(e).unwrap(),
        *world.get::<&Playback>(e).unwrap()
    );
}

/// A saved snapshot of the scripted run as a JSON value, to damage.
fn saved_value() -> (serde_json::Value, Animator, World) {
    let mut a = scripted_animator();
    let mut world = World::new();
    let cast = spawn_cast(&a, &mut world);
    let (_, json) = play(&mut a, &mut world, &cast, 0, Some(120));
    (serde_json::from_str(&json.unwrap()).unwrap(), a, world)
}

fn restore_text(text: &str) -> Result<(), RuntimeError> {
    let snapshot = RuntimeSnapshot::from_json(text)?;
    let mut a = scripted_animator();
    a.restore_state(&mut World::new(), &snapshot)
}

fn damaged(edit: impl FnOnce(&mut serde_json::Value)) -> RuntimeError {
    let (mut value, _, _) = saved_value();
    edit(&mut value);
    restore_text(&value.to_string()).expect_err("a damaged snapshot is refused")
}

#[test]
fn snapshot_of_another_version_is_refused() {
    let e = damaged(|v| v["version"] = serde_json::json!(SNAPSHOT_VERSION + 1));
    assert_eq!(
        e,
        RuntimeError::SnapshotVersion {
            found: u64::from(SNAPSHOT_VERSION + 1),
            supported: SNAPSHOT_VERSION
        }
    );
    let e = damaged(|v| {
        v.as_object_mut().unwrap().remove("version");
    });
    assert!(matches!(e, RuntimeError::BadSnapshot { .. }), "{e:?}");
    let e = damaged(|v| v["version"] = serde_json::json!("one"));
    assert!(e.to_string().contains("version"), "{e}");
}

/// The first saved entity that has `component`.
fn with(v: &serde_json::Value, component: &str) -> usize {
    v["entities"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| e.get(component).is_some())
        .unwrap()
}

/// The first saved entity's `name` component.
fn component<'a>(v: &'a mut serde_json::Value, name: &str) -> &'a mut serde_json::Value {
    let i = with(v, name);
    &mut v["entities"][i][name]
}

#[test]
fn damaged_snapshots_are_typed_errors_naming_what_is_wrong() {
    let (value, _, _) = saved_value();
    let text = value.to_string();
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "truncated",
            Box::new(|_| {}),
            "not JSON", // checked on a truncated text below
        ),
        (
            "too many layers",
            Box::new(|v| component(v, "layers")["len"] = serde_json::json!(99)),
            "length 99",
        ),
        (
            "too many fades",
            Box::new(|v| component(v, "cross_fade")["len"] = serde_json::json!(77)),
            "length 77",
        ),
        (
            "unknown rig",
            Box::new(|v| v["entities"][0]["rig"] = serde_json::json!("nobody")),
            "nobody",
        ),
        (
            "wrong state",
            Box::new(|v| component(v, "state_machine")["state"] = serde_json::json!("fly")),
            "fly",
        ),
        (
            "unknown machine",
            Box::new(|v| component(v, "state_machine")["name"] = serde_json::json!("other")),
            "other",
        ),
        (
            "bad entity id",
            Box::new(|v| v["entities"][3]["entity"] = serde_json::json!(7)),
            "7 is not an entity id",
        ),
        (
            "attachment target",
            Box::new(|v| v["attachments"][0]["target"] = serde_json::json!(3)),
            "attachment: 3 is not an entity id",
        ),
        (
            "root joint",
            Box::new(|v| component(v, "root_motion")["joint"] = serde_json::json!(900)),
            "joint #900",
        ),
        (
            "unallocated block",
            Box::new(|v| v["animator"]["tracked"][0]["block"]["offset"] = serde_json::json!(5000)),
            "palette block",
        ),
        (
            "broken palette",
            Box::new(|v| v["animator"]["palette"]["used"] = serde_json::json!(3)),
            "palette counts 3",
        ),
        (
            "record words",
            Box::new(|v| {
                v["animator"]["records"].as_array_mut().unwrap().pop();
            }),
            "whole number",
        ),
        (
            "record slot",
            Box::new(|v| v["animator"]["record_slots"][0] = serde_json::json!(4000)),
            "slot 4000",
        ),
        (
            "infinite time",
            Box::new(|v| v["animator"]["now"] = serde_json::json!(null)),
            "animator.now",
        ),
    ];
    for (what, edit, needle) in cases {
        let text = if what == "truncated" {
            text[..text.len() / 2].to_string()
        } else {
            let mut v = value.clone();
            edit(&mut v);
            v.to_string()
        };
        let e = restore_text(&text).expect_err(what);
        assert!(
            matches!(e, RuntimeError::BadSnapshot { .. }),
            "{what}: {e:?}"
        );
        assert!(e.to_string().contains(needle), "{what}: {e}");
    }
}

#[test]
fn a_refused_snapshot_changes_nothing() {
    let (mut value, mut a, mut world) = saved_value();
    let _ = a.drain_events().count();
    let mut twin = scripted_animator();
    let mut twin_world = World::new();
    let cast = spawn_cast(&twin, &mut twin_world);
    let _ = play(&mut twin, &mut twin_world, &cast, 0, Some(120));
    let _ = twin.drain_events().count();
    value["animator"]["palette"]["used"] = serde_json::json!(1);
    let snapshot = RuntimeSnapshot::from_json(&value.to_string()).unwrap();
    assert!(a.restore_state(&mut world, &snapshot).is_err());
    for _ in 0..30 {
        a.update(&mut world, DT).unwrap();
        twin.update(&mut twin_world, DT).unwrap();
        assert_eq!(frame_of(&mut a, &world), frame_of(&mut twin, &twin_world));
    }
}

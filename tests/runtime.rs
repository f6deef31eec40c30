//! The animation runtime (`sinew::runtime`): playback, layers, cross-fades, state machines,
//! blend spaces, events, root motion, attachments, the system's bookkeeping and persistence.
//! Rigs are built here from raw data so that every expected number can be worked out by hand.

mod common;

use std::collections::VecDeque;

use glam::{Affine3A, Quat, Vec2, Vec3, Vec4};
use hecs::{Entity, World};
use sinew::import::{RawClip, RawNode, RawSkin, RawTrack};
use sinew::runtime::{
    Animated, Animator, AnimatorConfig, Attachment, BlendSample, BlendSpace, BlendSpaceDef,
    ClipLayer, Clock, Compare, Condition, ControllerConfig, CrossFade, Event, Layers, LoopMode,
    MaskSpec, Motion, ParameterDef, ParameterKind, Playback, RootMotion, RootTranslation,
    RuntimeError, Scheduling, StateDef, StateMachine, StateMachineDef, StateMotion, Transform,
    TransitionDef, Value,
};
use sinew::{
    BlendMode, Channel, InstanceRecord, Interpolation, MAX_LAYERS, RawAsset, Rig, Sqt, TimeWrap,
};

const DT: f32 = 1.0 / 60.0;

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

fn node(name: &str, parent: Option<usize>, t: Vec3) -> RawNode {
    RawNode {
        name: name.to_string(),
        parent,
        rest: Sqt {
            translation: t,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        },
    }
}

fn translation(target: usize, times: &[f32], values: &[Vec3]) -> RawTrack {
    RawTrack {
        target,
        channel: Channel::Translation,
        interpolation: Interpolation::Linear,
        times: times.to_vec(),
        values: values.iter().map(|v| v.extend(0.0)).collect(),
    }
}

fn rotation(target: usize, times: &[f32], axis: Vec3, angles: &[f32]) -> RawTrack {
    RawTrack {
        target,
        channel: Channel::Rotation,
        interpolation: Interpolation::Linear,
        times: times.to_vec(),
        values: angles
            .iter()
            .map(|&a| Vec4::from(Quat::from_axis_angle(axis, a)))
            .collect(),
    }
}

fn clip(name: &str, tracks: Vec<RawTrack>) -> RawClip {
    RawClip {
        name: name.to_string(),
        tracks,
        weights: Vec::new(),
    }
}

/// Nodes: 0 Root, 1 Hips, 2 Spine, 3 Chest, 4 Arm, 5 Leg. Root moves along +Z in walk (1 m per
/// 1 s cycle, bobbing in Y) and run (1.8 m per 0.6 s cycle); turn yaws the root by 0.5 rad.
fn test_asset() -> RawAsset {
    let nodes = vec![
        node("Root", None, Vec3::ZERO),
        node("Hips", Some(0), Vec3::new(0.0, 1.0, 0.0)),
        node("Spine", Some(1), Vec3::new(0.0, 0.2, 0.0)),
        node("Chest", Some(2), Vec3::new(0.0, 0.3, 0.0)),
        node("Arm", Some(3), Vec3::new(0.3, 0.0, 0.0)),
        node("Leg", Some(1), Vec3::new(0.1, -0.5, 0.0)),
    ];
    let (x, z) = (Vec3::X, Vec3::Z);
    let clips = vec![
        clip(
            "idle",
            vec![
                rotation(2, &[0.0, 0.5, 1.0], x, &[0.0, 0.1, 0.0]),
                translation(0, &[0.0, 1.0], &[Vec3::ZERO, Vec3::ZERO]),
            ],
        ),
        clip(
            "walk",
            vec![
                translation(
                    0,
                    &[0.0, 0.5, 1.0],
                    &[
                        Vec3::ZERO,
                        Vec3::new(0.0, 0.05, 0.5),
                        Vec3::new(0.0, 0.0, 1.0),
                    ],
                ),
                rotation(5, &[0.0, 0.5, 1.0], x, &[0.5, -0.5, 0.5]),
                rotation(2, &[0.0, 0.5, 1.0], x, &[0.05, 0.0, 0.05]),
            ],
        ),
        clip(
            "run",
            vec![
                translation(
                    0,
                    &[0.0, 0.3, 0.6],
                    &[
                        Vec3::ZERO,
                        Vec3::new(0.0, 0.1, 0.9),
                        Vec3::new(0.0, 0.0, 1.8),
                    ],
                ),
                rotation(5, &[0.0, 0.3, 0.6], x, &[0.9, -0.9, 0.9]),
                rotation(2, &[0.0, 0.3, 0.6], x, &[0.3, 0.2, 0.3]),
            ],
        ),
        clip(
            "wave",
            vec![rotation(4, &[0.0, 1.0, 2.0], z, &[0.0, 1.2, 0.0])],
        ),
        clip(
            "turn",
            vec![
                rotation(0, &[0.0, 1.0], Vec3::Y, &[0.0, 0.5]),
                translation(0, &[0.0, 1.0], &[Vec3::ZERO, Vec3::new(0.0, 0.0, 1.0)]),
            ],
        ),
        clip(
            "breathe",
            vec![translation(
                3,
                &[0.0, 0.5, 1.0],
                &[
                    Vec3::new(0.0, 0.3, 0.0),
                    Vec3::new(0.0, 0.35, 0.0),
                    Vec3::new(0.0, 0.3, 0.0),
                ],
            )],
        ),
    ];
    RawAsset {
        file: "<test rig>".to_string(),
        skins: vec![RawSkin {
            name: Some("body".to_string()),
            joints: (0..nodes.len()).collect(),
            inverse_binds: vec![glam::Mat4::IDENTITY; nodes.len()],
            skeleton_root: None,
            mesh_nodes: Vec::new(),
        }],
        nodes,
        clips,
        meshes: Vec::new(),
        morph_nodes: Vec::new(),
        extensions: Vec::new(),
    }
}

fn test_rig() -> Rig {
    Rig::from_skin(&test_asset(), 0).unwrap()
}

fn animator() -> Animator {
    Animator::new(vec![test_rig()]).unwrap()
}

fn clip_id(animator: &Animator, name: &str) -> u32 {
    animator.clip(0, name).unwrap()
}

fn joint(animator: &Animator, name: &str) -> usize {
    animator.joint(0, name).unwrap() as usize
}

fn run(animator: &mut Animator, world: &mut World, frames: usize, dt: f32) {
    for _ in 0..frames {
        animator.update(world, dt).unwrap();
    }
}

fn spawn_playing(world: &mut World, playback: Playback) -> Entity {
    world.spawn((Animated::new(0), Transform::IDENTITY, playback))
}

/// `entity`'s record of the last update, with its clocks and fades read at the frame time.
fn record(animator: &Animator, world: &World, entity: Entity) -> InstanceRecord {
    animator
        .record_of(world, entity)
        .expect("entity has a record")
        .resolved(animator.frame_time())
}

/// Model matrices of every joint of `entity`'s last record, from the CPU evaluator.
fn models(animator: &Animator, world: &World, entity: Entity) -> Vec<Affine3A> {
    let rec = record(animator, world, entity);
    let rig = &animator.rigs()[rec.rig as usize];
    let layers: Vec<_> = rec.layers_at(0.0).collect();
    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![sinew::Mat3x4Rows::IDENTITY; n];
    sinew::cpu::evaluate_pose_with_flags(
        rig,
        animator.masks(),
        &layers,
        rec.flags,
        &rec.world.to_affine(),
        &mut models,
        &mut palette,
    );
    models
}

/// `entity`'s palette entries from [`Animator::evaluate_cpu`] (the `CpuBackend`).
fn palette(animator: &mut Animator, world: &World, entity: Entity) -> Vec<[f32; 12]> {
    let rec = record(animator, world, entity);
    let n = animator.rigs()[rec.rig as usize].joint_count();
    let pose = animator.evaluate_cpu().unwrap();
    let start = rec.palette_offset as usize;
    pose.palette[start..start + n]
        .iter()
        .map(|m| bytemuck::cast(m.rows))
        .collect()
}

/// Largest element difference between two palettes.
fn distance(a: &[[f32; 12]], b: &[[f32; 12]]) -> f32 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f32::max)
}

fn drain(animator: &mut Animator) -> Vec<String> {
    animator
        .drain_events()
        .map(|e| e.name.to_string())
        .collect()
}

fn assert_close(a: f32, b: f32, tol: f32, what: &str) {
    assert!(
        (a - b).abs() <= tol,
        "{what}: got {a}, expected {b} (difference {})",
        (a - b).abs()
    );
}

fn float(name: &str, default: Option<f32>) -> ParameterDef {
    ParameterDef {
        name: name.to_string(),
        kind: ParameterKind::Float,
        default: default.map(|d| Value::Float(f64::from(d))),
    }
}

fn param(name: &str, kind: ParameterKind) -> ParameterDef {
    ParameterDef {
        name: name.to_string(),
        kind,
        default: None,
    }
}

fn speed_is(op: Compare, value: f32) -> Condition {
    Condition::new("speed", op, Value::Float(f64::from(value)))
}

/// idle ⇄ walk ⇄ run on a float `speed`, with fades of 0.2 / 0.3 / 0.25 s.
fn locomotion() -> StateMachineDef {
    StateMachineDef::new("locomotion")
        .parameter(float("speed", Some(0.0)))
        .clip_state("idle", "idle")
        .clip_state("walk", "walk")
        .clip_state("run", "run")
        .transition(
            TransitionDef::new("idle", "walk")
                .fade(0.2)
                .when(speed_is(Compare::Gt, 0.5)),
        )
        .transition(
            TransitionDef::new("walk", "run")
                .fade(0.3)
                .when(speed_is(Compare::Ge, 3.0)),
        )
        .transition(
            TransitionDef::new("walk", "idle")
                .fade(0.2)
                .when(speed_is(Compare::Le, 0.5)),
        )
        .transition(
            TransitionDef::new("run", "idle")
                .fade(0.25)
                .when(speed_is(Compare::Le, 0.5)),
        )
        .transition(
            TransitionDef::new("run", "walk")
                .fade(0.3)
                .when(speed_is(Compare::Lt, 3.0)),
        )
}

/// Registers `def` and spawns an entity driven by it.
fn spawn_machine(
    animator: &mut Animator,
    world: &mut World,
    def: &StateMachineDef,
) -> (u32, Entity) {
    let id = animator.add_state_machine(0, def).unwrap();
    let sm = animator.state_machine(id).unwrap();
    (id, world.spawn((Animated::new(0), Transform::IDENTITY, sm)))
}

fn state_of(animator: &Animator, world: &World, entity: Entity) -> String {
    let sm = world.get::<&StateMachine>(entity).unwrap();
    animator
        .state_name(sm.machine(), sm.state())
        .unwrap()
        .to_string()
}

fn set(animator: &Animator, world: &mut World, entity: Entity, name: &str, value: Value) {
    animator.set_parameter(world, entity, name, value).unwrap();
}

fn playback_time(world: &World, entity: Entity) -> f32 {
    world.get::<&Playback>(entity).unwrap().time()
}

// ---------------------------------------------------------------------------------------------
// Playback
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Layers
// ---------------------------------------------------------------------------------------------

#[test]
fn masked_override_layer_moves_only_its_subtree() {
    let mut a = animator();
    let upper = a
        .add_mask(0, &MaskSpec::subtrees("upper", &["Chest"]))
        .unwrap();
    let mut world = World::new();
    let idle = clip_id(&a, "idle");
    let wave = clip_id(&a, "wave");
    let plain = spawn_playing(&mut world, Playback::new(idle));
    let waving = spawn_playing(&mut world, Playback::new(idle));
    world
        .insert_one(
            waving,
            Layers::from_layers(&[ClipLayer::new(wave).with_mask(upper)]).unwrap(),
        )
        .unwrap();
    run(&mut a, &mut world, 30, DT);
    let rec = record(&a, &world, waving);
    assert_eq!(rec.layer_count, 2);
    assert_eq!(rec.layers[1].to_layer_at(0.0).mask, Some(upper));
    let (p, w) = (models(&a, &world, plain), models(&a, &world, waving));
    let arm = joint(&a, "Arm");
    let leg = joint(&a, "Leg");
    assert!(!p[arm].abs_diff_eq(w[arm], 1e-3), "the arm waves");
    assert!(p[leg].abs_diff_eq(w[leg], 1e-6), "the leg does not");
}

#[test]
fn additive_layer_adds_its_delta_at_its_weight() {
    let mut a = animator();
    let mut world = World::new();
    let idle = clip_id(&a, "idle");
    let breathe = clip_id(&a, "breathe");
    let e = spawn_playing(&mut world, Playback::new(idle).with_time(0.0));
    world
        .insert_one(
            e,
            Layers::from_layers(&[ClipLayer::additive(breathe).with_weight(0.5)]).unwrap(),
        )
        .unwrap();
    world.get::<&mut Playback>(e).unwrap().pause();
    // Breathe runs 0.5 s: the chest is 0.05 above rest there; half of it at weight 0.5.
    a.update(&mut world, 0.5).unwrap();
    let rec = record(&a, &world, e);
    assert_eq!(rec.layers[1].to_layer_at(0.0).mode, BlendMode::Additive);
    let m = models(&a, &world, e);
    let chest = joint(&a, "Chest");
    let spine = joint(&a, "Spine");
    let local = m[spine].inverse() * m[chest];
    assert_close(local.translation.y, 0.3 + 0.025, 1e-5, "chest height");
}

#[test]
fn layer_weight_fades_to_its_target() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_playing(&mut world, Playback::new(clip_id(&a, "idle")));
    let mut layer = ClipLayer::new(clip_id(&a, "wave")).with_weight(0.0);
    layer.fade_weight(1.0, 0.5);
    world
        .insert_one(e, Layers::from_layers(&[layer]).unwrap())
        .unwrap();
    run(&mut a, &mut world, 5, 0.05);
    assert_close(
        record(&a, &world, e).layers[1].weight,
        0.5,
        1e-5,
        "half way",
    );
    run(&mut a, &mut world, 10, 0.05);
    assert_eq!(record(&a, &world, e).layers[1].weight, 1.0);
}

#[test]
fn too_many_layers_and_unknown_mask_joints_are_errors() {
    let a = animator();
    let layers = [ClipLayer::new(0); MAX_LAYERS];
    assert!(matches!(
        Layers::from_layers(&layers),
        Err(RuntimeError::TooManyLayers { .. })
    ));
    let mut a = a;
    assert!(matches!(
        a.add_mask(0, &MaskSpec::subtrees("bad", &["Tail"])),
        Err(RuntimeError::UnknownJoint { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Cross-fades
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

fn events_animator() -> Animator {
    let mut a = animator();
    a.add_event(0, "walk", 0.25, "left").unwrap();
    a.add_event(0, "walk", 0.75, "right").unwrap();
    a
}

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

// ---------------------------------------------------------------------------------------------
// Root motion
// ---------------------------------------------------------------------------------------------

fn spawn_walker(a: &Animator, world: &mut World, name: &str, transform: Transform) -> Entity {
    world.spawn((
        Animated::new(0),
        transform,
        a.playback(0, name).unwrap(),
        a.root_motion(0, "Root", RootTranslation::Xz, false)
            .unwrap(),
    ))
}

#[test]
fn root_motion_over_loops_sums_to_the_clip_displacement() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_walker(&a, &mut world, "walk", Transform::IDENTITY);
    // Uneven steps that cross the seam: 0.13 × 10 = 1.3 s, then 0.7 s to complete two loops.
    run(&mut a, &mut world, 10, 0.13);
    a.update(&mut world, 0.7).unwrap();
    let t = world.get::<&Transform>(e).unwrap().translation;
    // walk moves 1 m (last key - first key) per loop.
    common::assert_vec_close(&t.to_array(), &[0.0, 0.0, 2.0], 1e-5, "after two loops");
    // One step spanning 2.5 loops.
    a.update(&mut world, 2.5).unwrap();
    let t = world.get::<&Transform>(e).unwrap().translation;
    common::assert_vec_close(&t.to_array(), &[0.0, 0.0, 4.5], 1e-5, "after 4.5 loops");
}

#[test]
fn root_motion_is_removed_from_the_pose() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_walker(&a, &mut world, "walk", Transform::IDENTITY);
    run(&mut a, &mut world, 20, DT);
    let moved = world.get::<&Transform>(e).unwrap().translation;
    assert!(moved.z > 0.3, "the entity moved forward ({moved})");
    let root = joint(&a, "Root");
    let rec = record(&a, &world, e);
    assert_eq!(rec.flags & InstanceRecord::ROOT_JOINT, root as u32);
    assert_ne!(rec.flags & InstanceRecord::HOLD_ROOT_XZ, 0);
    // The root's model translation is the entity's, plus the rest XZ (zero) and the clip's Y bob.
    let m = models(&a, &world, e)[root];
    assert_close(m.translation.x, moved.x, 1e-5, "root x");
    assert_close(m.translation.z, moved.z, 1e-5, "root z");
    assert!(m.translation.y > 0.0, "the vertical bob stays in the pose");
    // The same through the CPU backend (inverse binds are identity: palette = model).
    let p = palette(&mut a, &world, e)[root];
    assert_close(p[11], moved.z, 1e-5, "palette root z");
}

#[test]
fn root_motion_follows_the_entity_orientation() {
    let mut a = animator();
    let mut world = World::new();
    let facing_x =
        Transform::IDENTITY.with_rotation(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
    let e = spawn_walker(&a, &mut world, "walk", facing_x);
    run(&mut a, &mut world, 5, 0.1);
    let t = world.get::<&Transform>(e).unwrap().translation;
    common::assert_vec_close(
        &t.to_array(),
        &[0.5, 0.0, 0.0],
        1e-5,
        "half a loop toward +X",
    );
}

#[test]
fn root_yaw_turns_the_entity_and_leaves_the_pose() {
    let mut a = animator();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.playback(0, "turn").unwrap(),
        a.root_motion(0, "Root", RootTranslation::Xz, true).unwrap(),
    ));
    run(&mut a, &mut world, 10, 0.1);
    let rotation = world.get::<&Transform>(e).unwrap().rotation;
    common::assert_quat_close(rotation, Quat::from_rotation_y(0.5), "yaw after one loop");
    let root = joint(&a, "Root");
    let m = models(&a, &world, e)[root];
    let (_, pose_rotation, _) = m.to_scale_rotation_translation();
    common::assert_quat_close(pose_rotation, rotation, "the pose adds no yaw of its own");
}

#[test]
fn root_motion_blends_with_the_blend_weights() {
    let mut a = animator();
    let space = a
        .add_blend_space(
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
        a.blend_space_fade(0, space, Vec2::new(2.0, 0.0)).unwrap(),
        a.root_motion(0, "Root", RootTranslation::Xz, false)
            .unwrap(),
    ));
    run(&mut a, &mut world, 60, DT);
    // Half walk (1 m per 1 s), half run (1.8 m per 0.6 s), on a shared phase of
    // 0.5 × 1 + 0.5 × 0.6 = 0.8 s per cycle: (0.5 × 1 + 0.5 × 1.8) / 0.8 = 1.75 m/s.
    let t = world.get::<&Transform>(e).unwrap().translation;
    assert_close(t.z, 1.75, 1e-4, "distance after 1 s");
}

// Root motion in model space: rigs exported Z-up, with rotated nodes above the root.

/// Rest node `name` under `parent` with translation `t`, rotation `r` and uniform scale `s`.
fn posed_node(name: &str, parent: Option<usize>, t: Vec3, r: Quat, s: f32) -> RawNode {
    RawNode {
        name: name.to_string(),
        parent,
        rest: Sqt {
            translation: t,
            rotation: r,
            scale: Vec3::splat(s),
        },
    }
}

/// A rig exported Z-up: non-joint `Z_UP` (a quarter turn about -X: the parent's +Z is model
/// +Y) and `Armature` (0.7 rad about its +Z, the model's up, scale 2) above `Root`, which rests
/// turned 0.2 rad about its parent's +Z. In walk, the root moves 1 m along its parent's -Y per
/// 1 s cycle and bobs 0.05 m along its parent's +Z; in turn it turns 0.5 rad about its parent's
/// +Z. Model space, per cycle: walk moves `2 × (sin 0.7, 0, cos 0.7)`, turn yaws 0.5 rad.
fn z_up_rig() -> Rig {
    use std::f32::consts::FRAC_PI_2;
    let rest = Vec3::new(0.1, 0.2, 0.5);
    let nodes = vec![
        posed_node(
            "Z_UP",
            None,
            Vec3::ZERO,
            Quat::from_rotation_x(-FRAC_PI_2),
            1.0,
        ),
        posed_node(
            "Armature",
            Some(0),
            Vec3::new(0.3, -0.4, 0.1),
            Quat::from_rotation_z(0.7),
            2.0,
        ),
        posed_node("Root", Some(1), rest, Quat::from_rotation_z(0.2), 1.0),
        posed_node(
            "Hips",
            Some(2),
            Vec3::new(0.0, 0.0, 0.4),
            Quat::IDENTITY,
            1.0,
        ),
        posed_node(
            "Leg",
            Some(3),
            Vec3::new(0.1, 0.0, -0.4),
            Quat::IDENTITY,
            1.0,
        ),
    ];
    let clips = vec![
        clip(
            "walk",
            vec![
                translation(
                    2,
                    &[0.0, 0.5, 1.0],
                    &[
                        rest,
                        rest + Vec3::new(0.0, -0.5, 0.05),
                        rest + Vec3::new(0.0, -1.0, 0.0),
                    ],
                ),
                rotation(4, &[0.0, 0.5, 1.0], Vec3::X, &[0.5, -0.5, 0.5]),
            ],
        ),
        clip("turn", vec![rotation(2, &[0.0, 1.0], Vec3::Z, &[0.2, 0.7])]),
    ];
    let asset = RawAsset {
        file: "<z-up rig>".to_string(),
        skins: vec![RawSkin {
            name: Some("z_up".to_string()),
            joints: vec![2, 3, 4],
            inverse_binds: vec![glam::Mat4::IDENTITY; 3],
            skeleton_root: None,
            mesh_nodes: Vec::new(),
        }],
        nodes,
        clips,
        meshes: Vec::new(),
        ..RawAsset::default()
    };
    Rig::from_skin(&asset, 0).unwrap()
}

/// Rest-pose model matrices of `rig`.
fn rest_models(rig: &Rig) -> Vec<Affine3A> {
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    sinew::cpu::local_to_model(
        &rig.skeleton,
        &Affine3A::IDENTITY,
        rig.skeleton.rest_pose(),
        &mut models,
    );
    models
}

/// Plays `clip` on `rig` from `start` with root motion of `root` (XZ, and yaw if `yaw`) for
/// `steps` updates of `dt`. After every update: the entity stayed at its height (root motion
/// along the world's XZ plane) and the root's model-space X and Z (in the entity's frame) are
/// the rest pose's. Returns the animator, world and entity, and the root's model-space heights.
fn walk_checking_the_ground_plane(
    rig: &Rig,
    root: &str,
    clip: &str,
    yaw: bool,
    start: Transform,
    steps: usize,
    dt: f32,
) -> (Animator, World, Entity, Vec<f32>) {
    let mut a = Animator::new(vec![rig.clone()]).unwrap();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        start,
        a.playback(0, clip).unwrap(),
        a.root_motion(0, root, RootTranslation::Xz, yaw).unwrap(),
    ));
    let j = joint(&a, root);
    let rest = rest_models(rig)[j].translation;
    let mut heights = Vec::new();
    for step in 0..steps {
        a.update(&mut world, dt).unwrap();
        let transform = *world.get::<&Transform>(e).unwrap();
        assert_close(
            transform.translation.y,
            start.translation.y,
            common::EXACT_TOLERANCE,
            &format!("{clip}: entity height after update {step}"),
        );
        let root_world = models(&a, &world, e)[j].translation;
        let in_model = transform
            .to_affine()
            .inverse()
            .transform_point3(root_world.into());
        let what = format!("{clip}: held root model X/Z after update {step}");
        common::assert_vec_close(
            &[in_model.x, in_model.z],
            &[rest.x, rest.z],
            common::EXACT_TOLERANCE,
            &what,
        );
        heights.push(in_model.y);
    }
    (a, world, e, heights)
}

#[test]
fn root_frames_walked_up_equal_the_table() {
    for rig in [z_up_rig(), test_rig()] {
        let table = sinew::cpu::RootFrame::table(&rig);
        let models = rest_models(&rig);
        for (j, frame) in table.iter().enumerate() {
            assert_eq!(
                sinew::cpu::RootFrame::of_root(&rig, j),
                *frame,
                "{} joint {j}",
                rig.name
            );
            let parent = rig.skeleton.parents()[j];
            let expected = if parent == sinew::NO_PARENT {
                Vec3::X
            } else {
                models[parent as usize].transform_vector3(Vec3::X)
            };
            let got = frame.vector_to_model(Vec3::X);
            common::assert_vec_close(&got.to_array(), &expected.to_array(), 1e-6, "x axis");
            let back = frame.vector_from_model(got);
            common::assert_vec_close(&back.to_array(), &[1.0, 0.0, 0.0], 1e-6, "round trip");
        }
    }
}

#[test]
fn z_up_root_motion_moves_along_the_ground_and_holds_model_xz() {
    let rig = z_up_rig();
    let start = Transform {
        translation: Vec3::new(1.0, 0.5, -2.0),
        rotation: Quat::from_rotation_y(0.3),
        scale: Vec3::ONE,
    };
    let (_, world, e, heights) =
        walk_checking_the_ground_plane(&rig, "Root", "walk", false, start, 10, 0.1);
    // One cycle: the model-space displacement 2 × (sin 0.7, 0, cos 0.7), turned by the entity.
    let cycle = Vec3::new(2.0 * 0.7f32.sin(), 0.0, 2.0 * 0.7f32.cos());
    let expected = start.translation + start.rotation * cycle;
    let t = world.get::<&Transform>(e).unwrap().translation;
    common::assert_vec_close(
        &t.to_array(),
        &expected.to_array(),
        common::EXACT_TOLERANCE,
        "after one cycle",
    );
    // The bob (parent +Z, model +Y, scaled by 2) stays in the pose.
    let (lo, hi) = heights
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), &y| (l.min(y), h.max(y)));
    assert!(hi - lo > 0.05, "the root bobs in the pose ({lo} to {hi})");
}

#[test]
fn z_up_root_yaw_turns_about_world_up_and_leaves_the_pose() {
    let rig = z_up_rig();
    let start = Transform::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let (a, world, e, _) =
        walk_checking_the_ground_plane(&rig, "Root", "turn", true, start, 10, 0.1);
    let rotation = world.get::<&Transform>(e).unwrap().rotation;
    common::assert_quat_close(rotation, Quat::from_rotation_y(0.5), "yaw after one cycle");
    // The pose keeps the root's rest yaw: its world rotation is the entity's times its rest
    // model rotation.
    let root = joint(&a, "Root");
    let (_, rest, _) = rest_models(&rig)[root].to_scale_rotation_translation();
    let (_, posed, _) = models(&a, &world, e)[root].to_scale_rotation_translation();
    common::assert_quat_close(posed, rotation * rest, "the pose adds no yaw of its own");
}

#[test]
fn cesium_man_root_motion_stays_on_the_ground_plane() {
    let Some(shared) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(shared.join("gltf/CesiumMan.glb")).unwrap();
    let rig = Rig::from_skin(&asset, 0).unwrap();
    let a = Animator::new(vec![rig.clone()]).unwrap();
    let root = a.root_joint(0).unwrap() as usize;
    let name = rig.skeleton.names()[root].clone();
    assert_ne!(
        rig.skeleton.parents()[root],
        sinew::NO_PARENT,
        "the root sits under Z_UP and Armature"
    );
    let clip = rig.clips.clips()[0].name.clone();
    let start = Transform {
        translation: Vec3::new(-3.0, 0.25, 4.0),
        rotation: Quat::from_rotation_y(-1.1),
        scale: Vec3::ONE,
    };
    for yaw in [false, true] {
        let (_, _, _, heights) =
            walk_checking_the_ground_plane(&rig, &name, &clip, yaw, start, 60, 1.0 / 30.0);
        // The walk's bob (the root's parent-space Z) is model Y: it stays in the pose.
        let (lo, hi) = heights
            .iter()
            .fold((f32::MAX, f32::MIN), |(l, h), &y| (l.min(y), h.max(y)));
        assert!(hi - lo > 0.02, "the root bobs in the pose ({lo} to {hi})");
    }
}

// ---------------------------------------------------------------------------------------------
// Attachments
// ---------------------------------------------------------------------------------------------

#[test]
fn attachment_follows_the_joint_in_the_same_frame() {
    let mut a = animator();
    let mut world = World::new();
    let walker = spawn_walker(&a, &mut world, "walk", Transform::from_translation(Vec3::X));
    world
        .insert_one(
            walker,
            Layers::from_layers(&[ClipLayer::new(clip_id(&a, "wave"))]).unwrap(),
        )
        .unwrap();
    let offset =
        Affine3A::from_rotation_translation(Quat::from_rotation_z(0.3), Vec3::new(0.1, 0.0, 0.0));
    let sword = world.spawn((
        Transform::IDENTITY,
        Attachment::new(walker, "Arm")
            .with_offset(Vec3::new(0.1, 0.0, 0.0), Quat::from_rotation_z(0.3)),
    ));
    for _ in 0..7 {
        a.update(&mut world, 0.05).unwrap();
        let arm = joint(&a, "Arm");
        let expected = models(&a, &world, walker)[arm] * offset;
        let got = world.get::<&Attachment>(sword).unwrap().world();
        common::assert_matrix_close(
            &glam::Mat4::from(got).to_cols_array(),
            &glam::Mat4::from(expected).to_cols_array(),
            "attachment vs the CPU model matrix",
        );
        // And against the CPU backend's palette (identity inverse binds: palette = model).
        let p = palette(&mut a, &world, walker)[arm];
        let backend = sinew::Mat3x4Rows {
            rows: bytemuck::cast(p),
        }
        .to_affine()
            * offset;
        common::assert_matrix_close(
            &glam::Mat4::from(got).to_cols_array(),
            &glam::Mat4::from(backend).to_cols_array(),
            "attachment vs CpuBackend",
        );
        let t = world.get::<&Transform>(sword).unwrap().translation;
        common::assert_vec_close(
            &t.to_array(),
            &expected.translation.to_array(),
            1e-4,
            "attachment transform",
        );
    }
}

// ---------------------------------------------------------------------------------------------
// State machines
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Blend spaces
// ---------------------------------------------------------------------------------------------

fn sample(clip: &str, x: f32, y: f32) -> BlendSample {
    BlendSample {
        clip: clip.to_string(),
        x,
        y,
    }
}

#[test]
fn blend_space_1d_weights_at_endpoints_and_midpoints() {
    let space = BlendSpace::one_d(&[(10, 0.0), (11, 1.5), (12, 4.0)]).unwrap();
    let check = |x: f32, expected: &[(u32, f32)]| {
        let w = space.weights(Vec2::new(x, 0.0));
        let sum: f32 = w.iter().map(|(_, w)| w).sum();
        assert_close(sum, 1.0, 1e-6, "weights sum");
        for &(clip, weight) in expected {
            assert_close(
                w.weight_of(clip),
                weight,
                1e-6,
                &format!("clip {clip} at x = {x}"),
            );
        }
    };
    check(-1.0, &[(10, 1.0)]);
    check(0.0, &[(10, 1.0)]);
    check(0.75, &[(10, 0.5), (11, 0.5)]);
    check(1.5, &[(11, 1.0)]);
    check(2.75, &[(11, 0.5), (12, 0.5)]);
    check(4.0, &[(12, 1.0)]);
    check(9.0, &[(12, 1.0)]);
    assert_eq!(space.weights(Vec2::new(0.75, 0.0)).len, 2);
}

#[test]
fn blend_space_2d_weights_sum_to_one_and_hit_the_samples() {
    let points = [
        (0, Vec2::new(0.0, 0.0)),
        (1, Vec2::new(0.0, 1.0)),
        (2, Vec2::new(0.0, 3.0)),
        (3, Vec2::new(-1.0, 0.0)),
        (4, Vec2::new(1.0, 0.0)),
        (5, Vec2::new(0.0, -1.0)),
        (6, Vec2::new(1.0, 1.0)),
    ];
    let space = BlendSpace::two_d(&points).unwrap();
    for &(clip, at) in &points {
        let w = space.weights(at);
        let sum: f32 = w.iter().map(|(_, w)| w).sum();
        assert_close(sum, 1.0, 1e-5, "sum at a sample");
        assert_close(w.weight_of(clip), 1.0, 1e-5, &format!("own weight at {at}"));
    }
    for p in [
        Vec2::new(0.3, 0.2),
        Vec2::new(-0.4, 1.1),
        Vec2::new(0.5, 2.0),
        Vec2::new(7.0, -3.0),
    ] {
        let w = space.weights(p);
        let sum: f32 = w.iter().map(|(_, w)| w).sum();
        assert_close(sum, 1.0, 1e-5, &format!("sum at {p}"));
        assert!(w.len <= 3 && w.iter().all(|(_, w)| w > 0.0));
        // Barycentric: the weighted sample positions give back the input (inside the hull).
        if p.x.abs() < 1.0 && p.y > -1.0 && p.y < 1.0 {
            let back = w
                .iter()
                .fold(Vec2::ZERO, |acc, (c, wt)| acc + points[c as usize].1 * wt);
            assert!(back.abs_diff_eq(p, 1e-5), "{back} vs {p}");
        }
    }
    assert!(matches!(
        BlendSpace::two_d(&[(0, Vec2::ZERO), (1, Vec2::X), (2, Vec2::X * 2.0)]),
        Err(RuntimeError::BadBlendSpace { .. })
    ));
}

#[test]
fn blend_space_clips_share_one_phase() {
    let mut a = animator();
    let space = a
        .add_blend_space(
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
        a.blend_space_fade(0, space, Vec2::new(1.5, 0.0)).unwrap(),
    ));
    for _ in 0..50 {
        a.update(&mut world, 0.037).unwrap();
        let rec = record(&a, &world, e);
        assert_eq!(rec.layer_count, 2);
        let (walk, run) = (rec.layers[0], rec.layers[1]);
        assert_close(walk.time / 1.0, run.time / 0.6, 1e-5, "normalized phases");
    }
}

// ---------------------------------------------------------------------------------------------
// The system
// ---------------------------------------------------------------------------------------------

#[test]
fn spawn_despawn_churn_keeps_the_palette_and_tracking_flat() {
    let mut a = animator();
    let walk = clip_id(&a, "walk");
    let mut world = World::new();
    let mut live = VecDeque::new();
    let mut baseline = None;
    for i in 0..100_000u32 {
        let e = spawn_playing(
            &mut world,
            Playback::new(walk).with_speed(1.0 + (i % 7) as f32 * 0.1),
        );
        live.push_back(e);
        if live.len() > 32 {
            world.despawn(live.pop_front().unwrap()).unwrap();
        }
        a.update(&mut world, DT).unwrap();
        assert_eq!(a.records().len(), live.len());
        let state = (
            a.palette().capacity(),
            a.palette().used(),
            a.tracked_entities(),
        );
        if i == 1_000 {
            baseline = Some(state);
        } else if let Some(b) = baseline {
            assert_eq!(state, b, "cycle {i}: (capacity, used, tracked) drifted");
        }
    }
    assert_eq!(a.tracked_entities(), 32);
    assert_eq!(a.palette().used(), 32 * a.rigs()[0].joint_count() as u32);
    // The records still evaluate.
    a.evaluate_cpu().unwrap();
}

#[test]
fn palette_blocks_of_live_entities_never_overlap() {
    let mut a = animator();
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let entities: Vec<_> = (0..20)
        .map(|_| spawn_playing(&mut world, Playback::new(walk)))
        .collect();
    a.update(&mut world, DT).unwrap();
    for e in entities.iter().step_by(3) {
        world.despawn(*e).unwrap();
    }
    for _ in 0..5 {
        spawn_playing(&mut world, Playback::new(walk));
    }
    a.update(&mut world, DT).unwrap();
    let n = a.rigs()[0].joint_count() as u32;
    let mut offsets: Vec<u32> = a.records().iter().map(|r| r.palette_offset).collect();
    offsets.sort_unstable();
    assert!(offsets.windows(2).all(|w| w[1] - w[0] >= n));
    a.evaluate_cpu().unwrap();
}

#[test]
fn invalid_inputs_are_typed_errors() {
    let mut a = animator();
    let mut world = World::new();
    assert!(matches!(
        a.update(&mut world, f32::NAN),
        Err(RuntimeError::InvalidValue { .. })
    ));
    assert!(matches!(
        a.clip(0, "swim"),
        Err(RuntimeError::UnknownClip { .. })
    ));
    assert!(matches!(
        a.joint(0, "Tail"),
        Err(RuntimeError::UnknownJoint { .. })
    ));
    assert!(matches!(
        a.clip(3, "walk"),
        Err(RuntimeError::UnknownRig { .. })
    ));
    assert!(matches!(
        a.add_event(0, "walk", 2.0, "late"),
        Err(RuntimeError::InvalidValue { .. })
    ));
    // A component naming a clip the rig lacks: reported, and the entity holds its rest pose.
    let e = spawn_playing(&mut world, Playback::new(99));
    assert!(matches!(
        a.update(&mut world, DT),
        Err(RuntimeError::InvalidComponent { .. })
    ));
    assert_eq!(record(&a, &world, e).layer_count, 0);
    a.evaluate_cpu().unwrap();
}

/// Checks that `Animator::new` refuses `rig` (renamed `broken`, after a valid rig) with
/// [`RuntimeError::InvalidRig`] naming it, its reason containing `needle`.
fn invalid_rig(mut rig: Rig, needle: &str) {
    let name = "broken".to_string();
    rig.name = name.clone();
    let err = Animator::new(vec![test_rig(), rig]).unwrap_err();
    assert!(
        matches!(&err, RuntimeError::InvalidRig { rig, reason } if *rig == name && reason.contains(needle)),
        "expected InvalidRig naming {name:?} and {needle:?}, got {err:?}"
    );
    assert!(
        err.to_string().contains(&name),
        "message {err} names the rig"
    );
}

#[test]
fn animator_refuses_a_rig_whose_clips_cover_another_skeleton() {
    let mut rig = test_rig();
    rig.clips = Rig::from_nodes(&test_asset(), &[2], "spine").unwrap().clips;
    invalid_rig(rig, "the clips cover 3 joints, the skeleton has 6");
}

#[test]
fn animator_refuses_a_rig_with_too_few_joint_bounds() {
    let mut rig = test_rig();
    rig.joint_bounds.pop();
    invalid_rig(rig, "5 joint bounds for 6 joints");
}

#[test]
fn animator_refuses_a_rig_whose_skin_joint_lies_outside_its_skeleton() {
    let mut rig = test_rig();
    rig.skins[0].joints.push(40);
    invalid_rig(rig, "skin 0 joint 6 is joint 40");
}

// ---------------------------------------------------------------------------------------------
// Persistence
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// The shipped humanoid, when present
// ---------------------------------------------------------------------------------------------

#[test]
fn humanoid_walks_with_root_motion_and_an_upper_body_wave() {
    let path = common::repo().join("assets/humanoid.glb");
    if !path.exists() {
        eprintln!("skipping: {} not generated yet", path.display());
        return;
    }
    let asset = sinew::import_file(&path).unwrap();
    let rigs = sinew::bake_rigs(&asset).unwrap();
    let mut a = Animator::new(rigs).unwrap();
    let upper = a
        .add_mask(0, &MaskSpec::subtrees("upper", &["Spine"]))
        .unwrap();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.playback(0, "walk").unwrap(),
        Layers::from_layers(&[ClipLayer::new(a.clip(0, "wave").unwrap()).with_mask(upper)])
            .unwrap(),
        a.root_motion(0, "Root", RootTranslation::Xz, false)
            .unwrap(),
    ));
    let duration = a.rigs()[0].clips.clips()[a.clip(0, "walk").unwrap() as usize].duration;
    let frames = (duration / DT).round() as usize;
    run(&mut a, &mut world, frames, duration / frames as f32);
    let moved = world.get::<&Transform>(e).unwrap().translation;
    assert!(moved.z > 0.1, "walk moves the humanoid along +Z ({moved})");
    let pose = a.evaluate_cpu().unwrap();
    assert!(
        pose.palette
            .iter()
            .all(|m| m.rows.iter().flatten().all(|x| x.is_finite()))
    );
}

// ---------------------------------------------------------------------------------------------
// GPU-resident records

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
/// schedulings (event-driven updates animate on every core).
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
            // Enough entities for several parallel chunks, with events at their own rates.
            let walk = clip_id(&a, "walk");
            for k in 0..300 {
                let mode = [LoopMode::Loop, LoopMode::PingPong, LoopMode::Clamp][k % 3];
                let speed = 0.3 + 0.05 * k as f32;
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

// ---------------------------------------------------------------------------------------------
// Poses: clips of duration 0 (in a file of their own, sharing the fixtures above).
// ---------------------------------------------------------------------------------------------

#[path = "runtime/content.rs"]
mod content;
#[path = "runtime/pace.rs"]
mod pace;
#[path = "runtime/poses.rs"]
mod poses;
#[path = "runtime/snapshot.rs"]
mod snapshot;

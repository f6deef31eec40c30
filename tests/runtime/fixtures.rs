//! Fixtures: rigs built from raw data, so that every expected number can be worked out by
//! hand, and the helpers that spawn, run and inspect animated entities.

use glam::{Affine3A, Quat, Vec3, Vec4};
use hecs::{Entity, World};
use sinew::import::{RawClip, RawNode, RawSkin, RawTrack};
use sinew::runtime::{
    Animated, Animator, BlendSample, Compare, Condition, ParameterDef, ParameterKind, Playback,
    RootTranslation, StateMachine, StateMachineDef, Transform, TransitionDef, Value,
};
use sinew::{Channel, InstanceRecord, Interpolation, RawAsset, Rig, Sqt};

use super::root_motion::posed_node;

pub(crate) const DT: f32 = 1.0 / 60.0;

pub(crate) fn node(name: &str, parent: Option<usize>, t: Vec3) -> RawNode {
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

pub(crate) fn translation(target: usize, times: &[f32], values: &[Vec3]) -> RawTrack {
    RawTrack {
        target,
        channel: Channel::Translation,
        interpolation: Interpolation::Linear,
        times: times.to_vec(),
        values: values.iter().map(|v| v.extend(0.0)).collect(),
    }
}

pub(crate) fn rotation(target: usize, times: &[f32], axis: Vec3, angles: &[f32]) -> RawTrack {
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

pub(crate) fn clip(name: &str, tracks: Vec<RawTrack>) -> RawClip {
    RawClip {
        name: name.to_string(),
        tracks,
        weights: Vec::new(),
        markers: Vec::new(),
    }
}

/// Nodes: 0 Root, 1 Hips, 2 Spine, 3 Chest, 4 Arm, 5 Leg. Root moves along +Z in walk (1 m per
/// 1 s cycle, bobbing in Y) and run (1.8 m per 0.6 s cycle); turn yaws the root by 0.5 rad.
pub(crate) fn test_asset() -> RawAsset {
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

pub(crate) fn test_rig() -> Rig {
    Rig::from_skin(&test_asset(), 0).unwrap()
}

pub(crate) fn animator() -> Animator {
    Animator::new(vec![test_rig()]).unwrap()
}

pub(crate) fn clip_id(animator: &Animator, name: &str) -> u32 {
    animator.clip(0, name).unwrap()
}

pub(crate) fn joint(animator: &Animator, name: &str) -> usize {
    animator.joint(0, name).unwrap() as usize
}

pub(crate) fn run(animator: &mut Animator, world: &mut World, frames: usize, dt: f32) {
    for _ in 0..frames {
        animator.update(world, dt).unwrap();
    }
}

pub(crate) fn spawn_playing(world: &mut World, playback: Playback) -> Entity {
    world.spawn((Animated::new(0), Transform::IDENTITY, playback))
}

/// `entity`'s record of the last update, with its clocks and fades read at the frame time.
pub(crate) fn record(animator: &Animator, world: &World, entity: Entity) -> InstanceRecord {
    animator
        .record_of(world, entity)
        .expect("entity has a record")
        .resolved(animator.frame_time())
}

/// Model matrices of every joint of `entity`'s last record, from the CPU evaluator.
pub(crate) fn models(animator: &Animator, world: &World, entity: Entity) -> Vec<Affine3A> {
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
pub(crate) fn palette(animator: &mut Animator, world: &World, entity: Entity) -> Vec<[f32; 12]> {
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
pub(crate) fn distance(a: &[[f32; 12]], b: &[[f32; 12]]) -> f32 {
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f32::max)
}

pub(crate) fn drain(animator: &mut Animator) -> Vec<String> {
    animator
        .drain_events()
        .map(|e| e.name.to_string())
        .collect()
}

pub(crate) fn assert_close(a: f32, b: f32, tol: f32, what: &str) {
    assert!(
        (a - b).abs() <= tol,
        "{what}: got {a}, expected {b} (difference {})",
        (a - b).abs()
    );
}

pub(crate) fn float(name: &str, default: Option<f32>) -> ParameterDef {
    ParameterDef {
        name: name.to_string(),
        kind: ParameterKind::Float,
        default: default.map(|d| Value::Float(f64::from(d))),
    }
}

pub(crate) fn param(name: &str, kind: ParameterKind) -> ParameterDef {
    ParameterDef {
        name: name.to_string(),
        kind,
        default: None,
    }
}

pub(crate) fn speed_is(op: Compare, value: f32) -> Condition {
    Condition::new("speed", op, Value::Float(f64::from(value)))
}

/// idle ⇄ walk ⇄ run on a float `speed`, with fades of 0.2 / 0.3 / 0.25 s.
pub(crate) fn locomotion() -> StateMachineDef {
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
pub(crate) fn spawn_machine(
    animator: &mut Animator,
    world: &mut World,
    def: &StateMachineDef,
) -> (u32, Entity) {
    let id = animator.add_state_machine(0, def).unwrap();
    let sm = animator.state_machine(id).unwrap();
    (id, world.spawn((Animated::new(0), Transform::IDENTITY, sm)))
}

pub(crate) fn state_of(animator: &Animator, world: &World, entity: Entity) -> String {
    let sm = world.get::<&StateMachine>(entity).unwrap();
    animator
        .state_name(sm.machine(), sm.state())
        .unwrap()
        .to_string()
}

pub(crate) fn set(
    animator: &Animator,
    world: &mut World,
    entity: Entity,
    name: &str,
    value: Value,
) {
    animator.set_parameter(world, entity, name, value).unwrap();
}

pub(crate) fn playback_time(world: &World, entity: Entity) -> f32 {
    world.get::<&Playback>(entity).unwrap().time()
}

pub(crate) fn events_animator() -> Animator {
    let mut a = animator();
    a.add_event(0, "walk", 0.25, "left").unwrap();
    a.add_event(0, "walk", 0.75, "right").unwrap();
    a
}

pub(crate) fn spawn_walker(
    a: &Animator,
    world: &mut World,
    name: &str,
    transform: Transform,
) -> Entity {
    world.spawn((
        Animated::new(0),
        transform,
        a.playback(0, name).unwrap(),
        a.root_motion(0, "Root", RootTranslation::Xz, false)
            .unwrap(),
    ))
}

/// A rig exported Z-up: non-joint `Z_UP` (a quarter turn about -X: the parent's +Z is model
/// +Y) and `Armature` (0.7 rad about its +Z, the model's up, scale 2) above `Root`, which rests
/// turned 0.2 rad about its parent's +Z. In walk, the root moves 1 m along its parent's -Y per
/// 1 s cycle and bobs 0.05 m along its parent's +Z; in turn it turns 0.5 rad about its parent's
/// +Z. Model space, per cycle: walk moves `2 × (sin 0.7, 0, cos 0.7)`, turn yaws 0.5 rad.
pub(crate) fn z_up_rig() -> Rig {
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

pub(crate) fn sample(clip: &str, x: f32, y: f32) -> BlendSample {
    BlendSample {
        clip: clip.to_string(),
        x,
        y,
    }
}

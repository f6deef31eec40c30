//! Root motion accumulated on the GPU.

use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};
use sinew::import::{RawClip, RawNode, RawSkin, RawTrack};
use sinew::{
    Channel, GpuBackend, GpuContext, InstanceRecord, Interpolation, Layer, Mat3x4Rows, RawAsset,
    Rig, Sqt, TimeWrap,
};

use super::fixtures::gpu;
use super::oracle::{assert_evaluated_matches_cpu, palette_len};

/// Nodes: 0 Armature (rotated and scaled, so the root's parent space is not model space),
/// 1 Root, 2 Hips, 3 Leg. `walk` moves the root 1 m along +Z per 1 s cycle (swaying in X,
/// bobbing in Y), `run` 1.8 m per 0.6 s, `turn` yaws it 0.5 rad while moving 1 m, `wave` moves
/// only the leg.
pub(crate) fn walker_rig() -> Rig {
    let node = |name: &str, parent, translation, rotation, scale| RawNode {
        name: name.to_string(),
        parent,
        rest: Sqt {
            translation,
            rotation,
            scale,
        },
    };
    let nodes = vec![
        node(
            "Armature",
            None,
            Vec3::new(0.3, 0.0, -0.2),
            Quat::from_rotation_y(0.4) * Quat::from_rotation_x(0.1),
            Vec3::new(1.2, 1.0, 0.8),
        ),
        node("Root", Some(0), Vec3::ZERO, Quat::IDENTITY, Vec3::ONE),
        node("Hips", Some(1), Vec3::Y, Quat::IDENTITY, Vec3::ONE),
        node(
            "Leg",
            Some(2),
            Vec3::new(0.1, -0.5, 0.0),
            Quat::IDENTITY,
            Vec3::ONE,
        ),
    ];
    let translation = |times: &[f32], values: &[Vec3]| RawTrack {
        target: 1,
        channel: Channel::Translation,
        interpolation: Interpolation::Linear,
        times: times.to_vec(),
        values: values.iter().map(|v| v.extend(0.0)).collect(),
    };
    let rotation = |target, times: &[f32], axis: Vec3, angles: &[f32]| RawTrack {
        target,
        channel: Channel::Rotation,
        interpolation: Interpolation::Linear,
        times: times.to_vec(),
        values: angles
            .iter()
            .map(|&a| Vec4::from(Quat::from_axis_angle(axis, a)))
            .collect(),
    };
    let clip = |name: &str, tracks| RawClip {
        name: name.to_string(),
        tracks,
        weights: Vec::new(),
        markers: Vec::new(),
    };
    let clips = vec![
        clip(
            "walk",
            vec![
                translation(
                    &[0.0, 0.5, 1.0],
                    &[Vec3::ZERO, Vec3::new(0.1, 0.05, 0.5), Vec3::Z],
                ),
                rotation(3, &[0.0, 0.5, 1.0], Vec3::X, &[0.5, -0.5, 0.5]),
            ],
        ),
        clip(
            "run",
            vec![
                translation(
                    &[0.0, 0.3, 0.6],
                    &[
                        Vec3::ZERO,
                        Vec3::new(0.0, 0.1, 0.9),
                        Vec3::new(0.2, 0.0, 1.8),
                    ],
                ),
                rotation(3, &[0.0, 0.3, 0.6], Vec3::X, &[0.9, -0.9, 0.9]),
            ],
        ),
        clip(
            "turn",
            vec![
                rotation(1, &[0.0, 1.0], Vec3::Y, &[0.0, 0.5]),
                translation(&[0.0, 1.0], &[Vec3::ZERO, Vec3::Z]),
            ],
        ),
        clip(
            "wave",
            vec![rotation(3, &[0.0, 1.0, 2.0], Vec3::Z, &[0.0, 1.2, 0.0])],
        ),
    ];
    let asset = RawAsset {
        file: "<walker>".to_string(),
        skins: vec![RawSkin {
            name: Some("walker".to_string()),
            joints: (0..nodes.len()).collect(),
            inverse_binds: vec![Mat4::IDENTITY; nodes.len()],
            skeleton_root: None,
            mesh_nodes: Vec::new(),
        }],
        nodes,
        clips,
        meshes: Vec::new(),
        morph_nodes: Vec::new(),
        extensions: Vec::new(),
    };
    Rig::from_skin(&asset, 0).unwrap()
}

/// Frame times of `frames` frames of uneven length from 0.
pub(crate) fn frame_times(frames: usize) -> Vec<f32> {
    let steps = [1.0 / 60.0, 1.0 / 30.0, 1.0 / 45.0];
    let mut t = 0.0f64;
    (0..frames)
        .map(|i| {
            let now = t as f32;
            t += steps[i % 3];
            now
        })
        .collect()
}

/// Asserts that two worlds agree: translations within 1e-4 of their size (at least 1), axes
/// within 1e-4.
pub(crate) fn assert_world_close(gpu: &Affine3A, cpu: &Affine3A, what: &str) {
    let (g, c) = (Vec3::from(gpu.translation), Vec3::from(cpu.translation));
    let tol = 1e-4 * c.abs().max_element().max(1.0);
    assert!(
        (g - c).abs().max_element() <= tol,
        "{what}: translation {g} vs {c} (difference {})",
        (g - c).abs().max_element()
    );
    let (gm, cm) = (
        Mat4::from(*gpu).to_cols_array(),
        Mat4::from(*cpu).to_cols_array(),
    );
    for i in 0..12 {
        assert!(
            (gm[i] - cm[i]).abs() <= 1e-4,
            "{what}: axis element {i}: {} vs {}",
            gm[i],
            cm[i]
        );
    }
}

/// Root-motion records of the walker: a looping walk, a ping-pong turn with yaw, a reversed
/// turn, a cross-fade from walk into run (under an extra layer that carries no root motion),
/// all three axes, and a record without the flag.
pub(crate) fn root_motion_records(rig: &Rig) -> Vec<InstanceRecord> {
    let root = rig.skeleton.find_joint("Root").unwrap() as u32;
    let clip = |name| rig.clips.find_clip(name).unwrap() as u32;
    let layer = |name, time| Layer::clip(clip(name), time).to_record();
    let xz = root | InstanceRecord::HOLD_ROOT_XZ;
    let yaw = InstanceRecord::HOLD_ROOT_YAW;
    let turned = Affine3A::from_scale_rotation_translation(
        Vec3::splat(1.5),
        Quat::from_rotation_y(1.0),
        Vec3::new(3.0, 0.5, -2.0),
    );
    let mut records = Vec::new();
    let mut push = |flags: u32, world: Affine3A, layers: &[sinew::LayerRecord]| {
        let n = rig.joint_count() as u32;
        let mut rec = InstanceRecord::new(0, records.len() as u32 * n, &world, &[]).unwrap();
        rec.flags = flags;
        rec.layer_count = layers.len() as u32;
        rec.layers[..layers.len()].copy_from_slice(layers);
        records.push(rec);
    };
    let base = InstanceRecord::gpu_root_motion;
    push(
        xz | base(1),
        Affine3A::IDENTITY,
        &[layer("walk", 0.2).with_clock(0.2, 0.0, 1.0, TimeWrap::Loop, 1.0)],
    );
    push(
        xz | yaw | base(1),
        turned,
        &[layer("turn", 0.7).with_clock(0.7, 0.1, 1.3, TimeWrap::PingPong, 1.0)],
    );
    push(
        xz | yaw | base(1),
        Affine3A::from_translation(Vec3::new(-4.0, 0.0, 7.0)),
        &[layer("turn", 0.4).with_clock(0.4, 0.0, -0.8, TimeWrap::Loop, 1.0)],
    );
    let mut wave = layer("wave", 0.0).with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, 2.0);
    wave.weight = 0.6;
    push(
        xz | base(2),
        turned,
        &[
            layer("walk", 0.0).with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, 1.0),
            layer("run", 0.1)
                .with_clock(0.1, 0.0, 1.0, TimeWrap::Loop, 0.6)
                .with_fade(0.0, 0.5, 1.25, 1.0),
            wave,
        ],
    );
    push(
        root | InstanceRecord::HOLD_ROOT_XYZ | base(1),
        Affine3A::from_translation(Vec3::new(1.0, 2.0, 3.0)),
        &[layer("run", 0.0).with_clock(0.0, 0.0, 0.9, TimeWrap::Clamp, 0.6)],
    );
    push(
        xz,
        turned,
        &[layer("walk", 0.0).with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, 1.0)],
    );
    records
}

/// Over 120 uneven frames, worlds moved by the kernel equal the CPU twin's
/// ([`sinew::cpu::advance_root_motion`]) on the same records and frame times, the pose is
/// evaluated under the moved world, and unchanged records upload nothing.
#[test]
fn gpu_root_motion_matches_the_cpu_twin_over_many_frames() {
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let rigs = [rig.clone()];
    let records = root_motion_records(&rig);
    let slots: Vec<u32> = (0..records.len() as u32).collect();
    let mut cpu = records.clone();
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    let times = frame_times(120);
    let mut prev = None;
    for (frame, &now) in times.iter().enumerate() {
        backend.evaluate_at(now, &records).unwrap();
        for rec in &mut cpu {
            sinew::cpu::advance_root_motion(&rig, rec, prev.unwrap_or(now), now);
        }
        prev = Some(now);
        if frame > 0 {
            assert_eq!(backend.last_frame().records_uploaded, 0, "frame {frame}");
        }
        if frame % 30 == 29 || frame + 1 == times.len() {
            let worlds = backend.read_worlds(&slots).unwrap();
            for (i, (g, c)) in worlds.iter().zip(&cpu).enumerate() {
                assert_world_close(
                    g,
                    &c.world.to_affine(),
                    &format!("frame {frame}, record {i}"),
                );
            }
        }
    }
    let end = cpu[0].world.to_affine().translation;
    assert!(
        end.length() > 2.0,
        "the walk moved ({end}); the rest of the records move as the CPU says"
    );
    assert_eq!(cpu[5].world, records[5].world, "no flag: the world stays");
    let now = *times.last().unwrap();
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &cpu, now, &|i| {
        format!("pose under the moved world, record {i}")
    });
}

/// What [`run_root_motion_paths`] ends with: per entity, the runtime's transform, the GPU's
/// world and the CPU twin's record; and the last frame time.
pub(crate) struct RootMotionPaths {
    pub(crate) transforms: Vec<sinew::runtime::Transform>,
    pub(crate) gpu: Vec<Affine3A>,
    pub(crate) twin: Vec<InstanceRecord>,
    pub(crate) now: f32,
}

/// Plays `spawns` (a playback, and whether yaw is extracted) on entities of `rig` from `start`
/// with XZ root motion of joint `root` for `frames` uneven updates, three ways: the runtime's
/// CPU `RootMotion` moving each `Transform`, the GPU moving the resident records' worlds
/// (placed at the first update, any later world ignored), and the CPU twin of the GPU path
/// ([`sinew::cpu::advance_root_motion`]) on the same records. Asserts that the three agree at
/// the end; the GPU last evaluated the returned twin records at `now`.
pub(crate) fn run_root_motion_paths(
    ctx: &GpuContext,
    rig: &Rig,
    root: &str,
    spawns: &[(sinew::runtime::Playback, bool)],
    start: sinew::runtime::Transform,
    frames: usize,
) -> (GpuBackend, RootMotionPaths) {
    use sinew::runtime::{Animated, Animator, RootTranslation, Transform};
    let mut animator = Animator::new(vec![rig.clone()]).unwrap();
    let mut world = hecs::World::new();
    let entities: Vec<hecs::Entity> = spawns
        .iter()
        .map(|&(playback, yaw)| {
            let motion = animator
                .root_motion(0, root, RootTranslation::Xz, yaw)
                .unwrap();
            world.spawn((Animated::new(0), start, playback, motion))
        })
        .collect();
    let mut backend = GpuBackend::new(ctx, std::slice::from_ref(rig), &[]).unwrap();
    let slots: Vec<u32> = (0..entities.len() as u32).collect();
    let dts = [1.0 / 60.0, 1.0 / 30.0, 1.0 / 45.0];
    let mut twin: Vec<InstanceRecord> = Vec::new();
    let mut prev = 0.0;
    for frame in 0..frames {
        animator.update(&mut world, dts[frame % 3]).unwrap();
        let now = animator.frame_time();
        backend
            .reserve_palette(animator.palette().capacity())
            .unwrap();
        for (slot, &e) in entities.iter().enumerate() {
            let mut rec = *animator.record_of(&world, e).unwrap();
            rec.flags |= InstanceRecord::gpu_root_motion(1);
            if frame == 0 {
                // Placed where the runtime's first update left the entity.
                backend.set_record_world(slot as u32, &rec).unwrap();
                twin.push(rec);
            } else {
                let moved = twin[slot].world;
                twin[slot] = InstanceRecord {
                    world: moved,
                    ..rec
                };
                sinew::cpu::advance_root_motion(rig, &mut twin[slot], prev, now);
                // Any other world is the GPU's own.
                rec.world = Mat3x4Rows::IDENTITY;
                backend.set_record(slot as u32, &rec).unwrap();
            }
        }
        backend.evaluate_resident(now).unwrap();
        prev = now;
    }
    let gpu = backend.read_worlds(&slots).unwrap();
    let transforms: Vec<Transform> = entities
        .iter()
        .map(|&e| *world.get::<&Transform>(e).unwrap())
        .collect();
    for (i, ((transform, g), t)) in transforms.iter().zip(&gpu).zip(&twin).enumerate() {
        let what = format!("{}: entity {i} after {frames} updates", rig.name);
        assert_world_close(
            g,
            &transform.to_affine(),
            &format!("{what}, GPU vs runtime"),
        );
        assert_world_close(g, &t.world.to_affine(), &format!("{what}, GPU vs CPU twin"));
    }
    let now = prev;
    (
        backend,
        RootMotionPaths {
            transforms,
            gpu,
            twin,
            now,
        },
    )
}

/// The runtime's CPU `RootMotion` moving a `Transform` and the GPU moving the record's world
/// from the same records agree: a looping walk, a ping-pong turn with yaw, a reversed walk.
#[test]
fn gpu_root_motion_matches_the_runtime_transform() {
    use sinew::runtime::{Animator, LoopMode, Transform};
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let animator = Animator::new(vec![rig.clone()]).unwrap();
    let start = Transform {
        translation: Vec3::new(1.0, 0.0, -2.0),
        rotation: Quat::from_rotation_y(0.7),
        scale: Vec3::ONE,
    };
    let walk = animator.playback(0, "walk").unwrap();
    let turn = animator.playback(0, "turn").unwrap();
    let spawns = [
        (walk, false),
        (turn.with_mode(LoopMode::PingPong).with_speed(1.3), true),
        (walk.with_speed(-0.8), true),
    ];
    let (_, paths) = run_root_motion_paths(ctx, &rig, "Root", &spawns, start, 90);
    for (i, transform) in paths.transforms.iter().enumerate() {
        let moved = (transform.translation - start.translation).length();
        assert!(moved > 0.3, "entity {i} moved {moved}");
    }
}

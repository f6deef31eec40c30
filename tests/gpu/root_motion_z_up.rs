//! Root motion on Z-up rigs, across transitions and teleports.

use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};
use sinew::import::{RawClip, RawNode, RawSkin, RawTrack};
use sinew::{Channel, GpuBackend, Interpolation, Mat3x4Rows, RawAsset, Rig, Sqt, TimeWrap};

use super::common;
use super::fixtures::{chain_rig, gpu, load, shared_file};
use super::oracle::{assert_evaluated_matches_cpu, palette_len};
use super::root_motion::{
    assert_world_close, frame_times, root_motion_records, run_root_motion_paths, walker_rig,
};

/// A rig exported Z-up: non-joint `Z_UP` (a quarter turn about -X: the parent's +Z is model
/// +Y) and `Armature` (0.7 rad about its +Z, scale 2) above `Root`. `walk` moves the root 1 m
/// along its parent's -Y per 1 s cycle, bobbing along its parent's +Z; `turn` turns it 0.5 rad
/// about its parent's +Z (model +Y) while it walks.
fn z_up_rig() -> Rig {
    use std::f32::consts::FRAC_PI_2;
    let node = |name: &str, parent, translation, rotation, scale| RawNode {
        name: name.to_string(),
        parent,
        rest: Sqt {
            translation,
            rotation,
            scale: Vec3::splat(scale),
        },
    };
    let rest = Vec3::new(0.1, 0.2, 0.5);
    let nodes = vec![
        node(
            "Z_UP",
            None,
            Vec3::ZERO,
            Quat::from_rotation_x(-FRAC_PI_2),
            1.0,
        ),
        node(
            "Armature",
            Some(0),
            Vec3::new(0.3, -0.4, 0.1),
            Quat::from_rotation_z(0.7),
            2.0,
        ),
        node("Root", Some(1), rest, Quat::from_rotation_z(0.2), 1.0),
        node(
            "Hips",
            Some(2),
            Vec3::new(0.0, 0.0, 0.4),
            Quat::IDENTITY,
            1.0,
        ),
    ];
    let walk = RawTrack {
        target: 2,
        channel: Channel::Translation,
        interpolation: Interpolation::Linear,
        times: vec![0.0, 0.5, 1.0],
        values: [
            Vec3::ZERO,
            Vec3::new(0.0, -0.5, 0.05),
            Vec3::new(0.0, -1.0, 0.0),
        ]
        .map(|v| (rest + v).extend(0.0))
        .to_vec(),
    };
    let turn = RawTrack {
        target: 2,
        channel: Channel::Rotation,
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: [0.2, 0.7]
            .map(|a| Vec4::from(Quat::from_rotation_z(a)))
            .to_vec(),
    };
    let clip = |name: &str, tracks| RawClip {
        name: name.to_string(),
        tracks,
        ..RawClip::default()
    };
    let asset = RawAsset {
        file: "<z-up rig>".to_string(),
        skins: vec![RawSkin {
            name: Some("z_up".to_string()),
            joints: vec![2, 3],
            inverse_binds: vec![Mat4::IDENTITY; 2],
            skeleton_root: None,
            mesh_nodes: Vec::new(),
        }],
        nodes,
        clips: vec![
            clip("walk", vec![walk.clone()]),
            clip("turn", vec![walk, turn]),
        ],
        meshes: Vec::new(),
        ..RawAsset::default()
    };
    Rig::from_skin(&asset, 0).unwrap()
}

/// On rigs with rotated nodes above the root (a generated Z-up rig; CesiumMan when
/// `../shared` is there), root motion is in model space on every path: the runtime, the GPU
/// and its CPU twin agree; every world stays at its height, upright (yaw turns about world
/// +Y), and the GPU's held pose keeps the root's model-space X and Z at rest.
#[test]
fn gpu_root_motion_is_in_model_space_on_z_up_rigs() {
    use sinew::runtime::{Animator, LoopMode, Transform};
    let Some(ctx) = gpu() else { return };
    let mut cases = vec![(z_up_rig(), "walk", "turn")];
    if let Some(path) = shared_file("CesiumMan.glb") {
        let rig = load(&path).remove(0);
        cases.push((rig, "", ""));
    }
    let start = Transform {
        translation: Vec3::new(-1.0, 0.75, 3.0),
        rotation: Quat::from_rotation_y(-0.4),
        scale: Vec3::ONE,
    };
    for (rig, walk, turn) in cases {
        let animator = Animator::new(vec![rig.clone()]).unwrap();
        let root = animator.root_joint(0).unwrap() as usize;
        assert_ne!(
            rig.skeleton.parents()[root],
            sinew::NO_PARENT,
            "{}",
            rig.name
        );
        let first = rig.clips.clips()[0].name.as_str();
        let pick = |name: &'static str| if name.is_empty() { first } else { name };
        let walk = animator.playback(0, pick(walk)).unwrap();
        let turn = animator.playback(0, pick(turn)).unwrap();
        let spawns = [
            (walk, false),
            (walk.with_speed(-0.8), true),
            (turn.with_speed(1.3), true),
            (turn.with_mode(LoopMode::PingPong), true),
        ];
        let name = rig.skeleton.names()[root].clone();
        let (mut backend, paths) = run_root_motion_paths(ctx, &rig, &name, &spawns, start, 75);
        for (i, g) in paths.gpu.iter().enumerate() {
            let what = format!("{}: entity {i}", rig.name);
            assert!(
                (g.translation.y - start.translation.y).abs() <= common::EXACT_TOLERANCE,
                "{what}: the world left the ground plane: {} to {}",
                start.translation.y,
                g.translation.y
            );
            let up = Vec3::from(g.matrix3.y_axis);
            assert!(
                up.abs_diff_eq(Vec3::Y, common::EXACT_TOLERANCE),
                "{what}: up is {up}"
            );
        }
        if rig.name == "z_up" {
            let moved = (Vec3::from(paths.gpu[0].translation) - start.translation).length();
            assert!(moved > 1.0, "the walk moved {moved}");
            let x = Vec3::from(paths.gpu[2].matrix3.x_axis);
            let turned = x.angle_between(start.rotation * Vec3::X);
            assert!(turned > 0.5, "the turn turned the world {turned} rad");
        }
        // The held pose, as the GPU evaluated it under its worlds.
        let rigs = [rig.clone()];
        assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &paths.twin, paths.now, &|i| {
            format!("{}: held pose of entity {i}", rig.name)
        });
        let palette = backend
            .read_palette(0..palette_len(&rigs, &paths.twin) as u32)
            .unwrap();
        let mut rest = vec![Affine3A::IDENTITY; rig.joint_count()];
        sinew::cpu::local_to_model(
            &rig.skeleton,
            &Affine3A::IDENTITY,
            rig.skeleton.rest_pose(),
            &mut rest,
        );
        let bind = rig.skeleton.inverse_binds()[root].inverse();
        for (i, (rec, g)) in paths.twin.iter().zip(&paths.gpu).enumerate() {
            let model = palette[rec.palette_offset as usize + root].to_affine() * bind;
            let held = g.inverse().transform_point3(model.translation.into());
            let r = rest[root].translation;
            common::assert_vec_close(
                &[held.x, held.z],
                &[r.x, r.z],
                common::MATRIX_TOLERANCE,
                &format!("{}: entity {i}, GPU root model X/Z", rig.name),
            );
        }
    }
}

/// A root-motion record written again for a transition keeps the GPU's world (uploaded around
/// it, 208 bytes); `set_record_world` places it (256 bytes, no motion that frame); the
/// asynchronous read hands back earlier frames' worlds.
#[test]
fn transitions_keep_the_gpu_world_and_placing_teleports() {
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let rigs = [rig.clone()];
    let records = root_motion_records(&rig);
    let mut cpu = records.clone();
    let slots: Vec<u32> = (0..records.len() as u32).collect();
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    let times = frame_times(40);
    backend.evaluate_at(times[0], &records).unwrap();
    let whole = backend.last_frame();
    assert_eq!(whole.records_uploaded, records.len() as u64);
    let headers = whole.upload_bytes - records.len() as u64 * 256;
    let mut async_reads = Vec::new();
    let mut blocking = Vec::new();
    let teleport = Affine3A::from_rotation_translation(
        Quat::from_rotation_y(-0.3),
        Vec3::new(10.0, 0.0, 10.0),
    );
    for k in 1..times.len() {
        let (prev, now) = (times[k - 1], times[k]);
        let mut expected_bytes = headers;
        let mut expected_records = 0;
        if k == 10 {
            // A transition of record 0 (the walk restarts) with a stale world: 208 bytes.
            let mut rec = cpu[0];
            rec.layers[0] = rec.layers[0].with_clock(0.0, now, 1.2, TimeWrap::Loop, 1.0);
            cpu[0].layers = rec.layers;
            rec.world = Mat3x4Rows::from_affine(&Affine3A::from_translation(Vec3::splat(99.0)));
            assert!(backend.set_record(0, &rec).unwrap());
            expected_bytes += 208;
            expected_records += 1;
        }
        if k == 20 {
            // A teleport of record 1: the whole record, placed.
            cpu[1].world = Mat3x4Rows::from_affine(&teleport);
            backend.set_record_world(1, &cpu[1]).unwrap();
            expected_bytes += 256;
            expected_records += 1;
        }
        backend.evaluate_resident(now).unwrap();
        assert_eq!(
            backend.last_frame().upload_bytes,
            expected_bytes,
            "frame {k}"
        );
        assert_eq!(
            backend.last_frame().records_uploaded,
            expected_records,
            "frame {k}"
        );
        for (i, rec) in cpu.iter_mut().enumerate() {
            if !(k == 20 && i == 1) {
                sinew::cpu::advance_root_motion(&rig, rec, prev, now);
            }
        }
        if k == 20 {
            let placed = backend.read_worlds(&[1]).unwrap()[0];
            assert_eq!(
                Mat3x4Rows::from_affine(&placed),
                Mat3x4Rows::from_affine(&teleport),
                "placed exactly, not moved that frame"
            );
        }
        if (10..14).contains(&k) || (20..24).contains(&k) || k + 1 == times.len() {
            let worlds = backend.read_worlds(&slots).unwrap();
            for (i, (g, c)) in worlds.iter().zip(&cpu).enumerate() {
                assert_world_close(g, &c.world.to_affine(), &format!("frame {k}, record {i}"));
            }
        }
        if k >= 30 {
            blocking.push((now, backend.read_worlds(&slots).unwrap()));
            async_reads.extend(backend.read_worlds_async(&slots).unwrap());
        }
    }
    backend.wait().unwrap();
    async_reads.extend(backend.read_worlds_async(&[]).unwrap());
    assert!(!async_reads.is_empty(), "asynchronous reads arrive");
    let last = *times.last().unwrap();
    for read in &async_reads {
        assert_eq!(read.slots, slots);
        let (_, expected) = blocking
            .iter()
            .find(|(t, _)| *t == read.time)
            .expect("an asynchronous read belongs to an evaluated frame");
        assert_eq!(&read.worlds, expected, "frame time {}", read.time);
    }
    assert!(
        async_reads.windows(2).all(|w| w[0].time < w[1].time),
        "newer reads come later"
    );
    assert!(
        async_reads[..async_reads.len() - 1]
            .iter()
            .all(|r| r.time < last)
    );
    // The GPU holds the records written, around the worlds it owns.
    let resident = backend.read_resident(0..records.len() as u32).unwrap();
    for (i, (r, c)) in resident.iter().zip(&cpu).enumerate() {
        let mut expected = *c;
        expected.world = r.world;
        assert_eq!(*r, expected, "record {i}");
    }
}

/// A rig assembled by hand whose clips cover another skeleton is refused before any upload.
#[test]
fn backend_refuses_a_rig_whose_parts_disagree() {
    let Some(context) = gpu() else { return };
    let mut rig = chain_rig(4);
    rig.clips = chain_rig(2).clips;
    let err = GpuBackend::new(context, &[chain_rig(4), rig], &[]).unwrap_err();
    assert!(
        matches!(
            &err,
            sinew::GpuError::Eval(sinew::EvalError::InvalidRig { rig: 1, reason, .. })
                if reason.contains("the clips cover")
        ),
        "expected InvalidRig for rig 1, got {err:?}"
    );
}

//! Animation LOD in the fused kernel: update rates (every Nth frame, frozen), the distance
//! policy, joint LOD levels against their CPU twin, culled instances skipped and caught up, and
//! root motion across skipped frames. Each frame stays one dispatch: indirect after the first,
//! over the slots the compaction listed.

use glam::{Affine3A, Vec3};
use sinew::lod::{LodPolicy, UpdateRate, evaluation};
use sinew::render::{Camera, Renderer, Scene, SkinnedBatch, SkinnedBatchDesc, SkinnedInstance};
use sinew::{GpuBackend, GpuContext, InstanceRecord, Layer, Mat3x4Rows, Rig, TimeWrap};

use super::common::rigs::humanoid;
use super::fixtures::gpu;
use super::oracle::{assert_evaluated_matches_cpu, cpu_evaluate_at, palette_len};
use super::root_motion::{assert_world_close, frame_times, root_motion_records, walker_rig};

/// A record of `rig` in slot `slot` (palette blocks one after the other) at `x` along X,
/// playing clip 0 looping at rate 1 from frame time 0.
fn playing(rig: &Rig, slot: u32, x: f32, flags: u32) -> InstanceRecord {
    let block = rig.palette_entries() as u32;
    let world = Affine3A::from_translation(Vec3::new(x, 0.0, 0.0));
    let mut rec = InstanceRecord::new(0, slot * block, &world, &[Layer::clip(0, 0.0)]).unwrap();
    let period = rig
        .clips
        .clips()
        .first()
        .map_or(1.0, |c| c.duration.max(0.1));
    rec.layers[0] = rec.layers[0].with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, period);
    rec.flags = flags;
    rec
}

/// The palette block of `rec` in `palette`.
fn block<'a>(rig: &Rig, palette: &'a [Mat3x4Rows], rec: &InstanceRecord) -> &'a [Mat3x4Rows] {
    let start = rec.palette_offset as usize;
    &palette[start..start + rig.joint_count()]
}

/// Asserts that the block `got` equals the CPU's `cpu` (transform tolerance).
fn assert_block_close(got: &[Mat3x4Rows], cpu: &[Mat3x4Rows], what: &str) {
    for (j, (g, c)) in got.iter().zip(cpu).enumerate() {
        super::oracle::assert_transform_close(
            &g.to_cols_array(),
            &c.to_cols_array(),
            &format!("{what}, joint {j}"),
        );
    }
}

fn bits(palette: &[Mat3x4Rows]) -> Vec<u32> {
    palette
        .iter()
        .flat_map(|m| m.to_cols_array())
        .map(f32::to_bits)
        .collect()
}

/// Every N frames, frozen, and the distance policy: a slot is evaluated exactly on the frames
/// its twin ([`evaluation`]) says, then equals the CPU pose at that frame time, and keeps its
/// palette bit for bit on the others; every frame is one dispatch.
#[test]
fn update_rates_evaluate_on_due_frames_only() {
    let Some(ctx) = gpu() else { return };
    let rig = humanoid();
    let rigs = [rig.clone()];
    let every3 = UpdateRate::Every {
        interval: 3,
        phase: 1,
    }
    .bits();
    let policy = LodPolicy {
        eye: Vec3::ZERO,
        distances: [10.0, 20.0, 40.0],
        update_every: [1, 2, 4, 8],
        skip_culled: false,
    };
    let records = vec![
        playing(&rig, 0, 0.0, 0),
        playing(&rig, 1, 2.0, every3),
        playing(&rig, 2, 4.0, UpdateRate::Frozen.bits()),
        // The policy's: level 0 near the eye, level 2 (every 4 frames) far from it.
        playing(&rig, 3, 5.0, 0),
        playing(&rig, 4, 30.0, 0),
    ];
    let policy_slots = [3usize, 4];
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    backend.set_lod_policy(Some(policy));
    let len = palette_len(&rigs, &records) as u32;
    let mut previous: Option<Vec<Mat3x4Rows>> = None;
    let mut evaluated = [0u32; 5];
    for frame in 0..9u32 {
        let now = frame as f32 * 0.07;
        assert_eq!(backend.frame_index(), frame);
        backend.evaluate_at(now, &records).unwrap();
        assert_eq!(backend.dispatches_last_frame(), 1, "frame {frame}");
        let palette = backend.read_palette(0..len).unwrap();
        // What the CPU evaluates for each slot with the flags the kernel chose.
        let effective: Vec<InstanceRecord> = records
            .iter()
            .enumerate()
            .map(|(slot, rec)| {
                let mut r = *rec;
                if policy_slots.contains(&slot) {
                    let position = Vec3::from(rec.world.to_affine().translation);
                    r.flags |= policy.bits_at(slot as u32, position);
                }
                r
            })
            .collect();
        let (cpu, _) = cpu_evaluate_at(&rigs, &[], &effective, now);
        for (slot, rec) in records.iter().enumerate() {
            let position = Vec3::from(rec.world.to_affine().translation);
            let plan = evaluation(
                rec.flags,
                slot as u32,
                position,
                frame,
                false,
                frame == 0,
                Some(&policy),
            );
            let got = block(&rig, &palette, rec);
            match (plan, &previous) {
                (Some(_), _) => {
                    evaluated[slot] += 1;
                    let what = format!("frame {frame}, slot {slot}");
                    assert_block_close(got, block(&rig, &cpu, rec), &what);
                }
                (None, Some(prev)) => assert_eq!(
                    bits(got),
                    bits(block(&rig, prev, rec)),
                    "frame {frame}, slot {slot}: not due, the palette must not change"
                ),
                (None, None) => panic!("frame 0 evaluates every slot"),
            }
        }
        previous = Some(palette);
    }
    // Frame 0 runs all; then every frame; frames 2, 5, 8; never; every frame; frames 4 and 8
    // (slot 4 at level 2: every 4 frames, phase 4 % 4).
    assert_eq!(evaluated, [9, 4, 1, 9, 3]);
}

/// Joint LOD: the GPU palette at every level equals the CPU twin's (whose pose
/// `tests/cpu/lod.rs` checks), and the reduced pose differs from the full one.
#[test]
fn joint_lod_levels_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let rig = humanoid();
    let rigs = [rig.clone()];
    let n = rig.joint_count();
    assert!(
        rig.skeleton.lod_sampled_joints(1) < n,
        "LOD 1 drops joints of the humanoid"
    );
    let now = 0.4;
    let records: Vec<InstanceRecord> = (0..4u32)
        .map(|level| {
            let flags = InstanceRecord::default()
                .with_lod(UpdateRate::EveryFrame, level, false)
                .flags;
            playing(&rig, level, level as f32 * 2.0, flags)
        })
        .collect();
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    backend.evaluate_at(now, &records).unwrap();
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, now, &|i| {
        format!("LOD {i}")
    });
    let len = palette_len(&rigs, &records) as u32;
    let palette = backend.read_palette(0..len).unwrap();
    // The reduced pose is not the full one: level 3's rest-held joints differ from level 0's
    // (the same clip time; the worlds differ by a translation only).
    let cut = rig.skeleton.lod_sampled_joints(3);
    let linear = |level: usize| -> Vec<[f32; 9]> {
        block(&rig, &palette, &records[level])[cut..]
            .iter()
            .map(|m| {
                let c = m.to_cols_array();
                [c[0], c[1], c[2], c[4], c[5], c[6], c[8], c[9], c[10]]
            })
            .collect()
    };
    assert_ne!(linear(0), linear(3), "LOD 3 changes the deep joints");
}

/// Culling feeds the next frame: an instance the cull pass left out of the frustum is not
/// evaluated (its palette stays bit for bit, but for the every-`CULLED_REFRESH` refresh), and
/// on the frame after it is seen again it matches a fresh evaluation at that frame time.
/// A skinned batch of `records` (one instance each, in record order) reading `backend`'s
/// palette and boxes, for the culling tests.
fn crowd_batch(
    ctx: &GpuContext,
    renderer: &Renderer,
    backend: &GpuBackend,
    rig: &Rig,
    records: &[InstanceRecord],
    label: &str,
) -> SkinnedBatch {
    let mut batch = SkinnedBatch::new(
        &ctx.device,
        renderer,
        &SkinnedBatchDesc {
            label,
            meshes: &rig.meshes,
            mesh_colors: &[],
            capacity: records.len() as u32,
            palette: backend.palette_segments(),
            aabbs: backend.bounds_buffer(),
            preskin: false,
        },
    )
    .unwrap();
    let joints = rig.joint_count() as u32;
    let instances: Vec<SkinnedInstance> = records
        .iter()
        .enumerate()
        .map(|(i, r)| SkinnedInstance::new(r.palette_offset, joints, i as u32, [1.0; 3]))
        .collect();
    batch.write_instances(&ctx.queue, &instances).unwrap();
    batch
}

#[test]
fn culled_instances_skip_evaluation_and_catch_up_when_seen() {
    let Some(ctx) = gpu() else { return };
    let (device, queue) = (&ctx.device, &ctx.queue);
    let rig = humanoid();
    let rigs = [rig.clone()];
    let skip = InstanceRecord::SKIP_CULLED;
    // Slot 0 in front of the camera, slot 1 far to the side.
    let records = vec![playing(&rig, 0, 0.0, skip), playing(&rig, 1, 200.0, skip)];
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    let len = palette_len(&rigs, &records) as u32;
    backend.reserve_palette(len).unwrap();
    backend.evaluate_at(0.0, &records).unwrap();

    let renderer = Renderer::new(device).unwrap();
    let batch = crowd_batch(ctx, &renderer, &backend, &rig, &records, "lod");
    let batches = [&batch];
    let camera_at = |x: f32| {
        Camera::look_at(
            Vec3::new(x, 1.0, 6.0),
            Vec3::new(x, 1.0, 0.0),
            Vec3::Y,
            0.8,
            1.0,
            0.1,
            50.0,
        )
    };
    let cull = |x: f32| {
        let scene = Scene {
            skinned: &batches,
            ..Scene::new(camera_at(x))
        };
        renderer.cull(device, queue, &scene).unwrap();
    };
    cull(0.0);

    let mut previous = backend.read_palette(0..len).unwrap();
    let mut refreshed = 0;
    for frame in 1..10u32 {
        let now = frame as f32 * 0.05;
        backend.evaluate_at(now, &records).unwrap();
        assert_eq!(backend.dispatches_last_frame(), 1);
        cull(0.0);
        let palette = backend.read_palette(0..len).unwrap();
        let (cpu, _) = cpu_evaluate_at(&rigs, &[], &records, now);
        assert_block_close(
            block(&rig, &palette, &records[0]),
            block(&rig, &cpu, &records[0]),
            &format!("frame {frame}: the visible instance is evaluated"),
        );
        let due = evaluation(skip, 1, Vec3::X * 200.0, frame, true, false, None).is_some();
        let stale =
            bits(block(&rig, &palette, &records[1])) == bits(block(&rig, &previous, &records[1]));
        assert_eq!(
            stale, !due,
            "frame {frame}: culled slot 1 evaluated = {due}"
        );
        refreshed += usize::from(due);
        previous = palette;
    }
    assert_eq!(refreshed, 1, "one refresh in 9 frames");

    // The camera turns to slot 1: its box is current enough to pass, and the next frame
    // evaluates it fresh.
    cull(200.0);
    let now = 0.55;
    backend.evaluate_at(now, &records).unwrap();
    let palette = backend.read_palette(0..len).unwrap();
    let (cpu, _) = cpu_evaluate_at(&rigs, &[], &records, now);
    assert_block_close(
        block(&rig, &palette, &records[1]),
        block(&rig, &cpu, &records[1]),
        "seen again",
    );
}

/// Root motion moves worlds on every frame, evaluated or not: at one update in four the GPU's
/// worlds equal the CPU twin's, and a due frame poses under the moved world.
#[test]
fn root_motion_stays_correct_across_skipped_frames() {
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let rigs = [rig.clone()];
    let records: Vec<InstanceRecord> = root_motion_records(&rig)
        .into_iter()
        .map(|r| {
            r.with_lod(
                UpdateRate::Every {
                    interval: 4,
                    phase: 0,
                },
                0,
                false,
            )
        })
        .collect();
    let slots: Vec<u32> = (0..records.len() as u32).collect();
    let mut cpu = records.clone();
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    let times = frame_times(23);
    let mut prev = None;
    for &now in &times {
        backend.evaluate_at(now, &records).unwrap();
        for rec in &mut cpu {
            sinew::cpu::advance_root_motion(&rig, rec, prev.unwrap_or(now), now);
        }
        prev = Some(now);
    }
    // Frame 22 skipped every pose, yet the indirect frame listed every root-motion slot
    // (and only those).
    assert!(backend.last_frame().indirect);
    let mut listed = backend.read_slot_list().unwrap().expect("indirect").slots;
    listed.sort_unstable();
    let moving: Vec<u32> = slots
        .iter()
        .copied()
        .filter(|&s| records[s as usize].has_gpu_root_motion())
        .collect();
    assert!(moving.len() > 1 && moving.len() < slots.len());
    assert_eq!(
        listed, moving,
        "root-motion slots run every frame, the others not"
    );
    let worlds = backend.read_worlds(&slots).unwrap();
    for (i, (g, c)) in worlds.iter().zip(&cpu).enumerate() {
        assert_world_close(g, &c.world.to_affine(), &format!("record {i}"));
    }
    // Frames 0..=22 ran (frames 21 and 22 skipped the pose); frame 23 skips it too, 24 is due.
    let mut now = *times.last().unwrap() + 1.0 / 60.0;
    backend.evaluate_at(now, &records).unwrap();
    for rec in &mut cpu {
        sinew::cpu::advance_root_motion(&rig, rec, prev.unwrap_or(now), now);
    }
    prev = Some(now);
    assert_eq!(backend.frame_index(), 24, "frame 24 is next");
    now += 1.0 / 60.0;
    backend.evaluate_at(now, &records).unwrap();
    for rec in &mut cpu {
        sinew::cpu::advance_root_motion(&rig, rec, prev.unwrap_or(now), now);
    }
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &cpu, now, &|i| {
        format!("due frame under the moved world, record {i}")
    });
}

/// An indirect frame runs exactly the slots the compaction lists: those its twin
/// ([`evaluation`]) finds due (in view, due their rate, culled but due their refresh or not
/// skipping while culled); exactly their palettes change, the grid covers the list, and every
/// frame after the first stays one (indirect) dispatch.
#[test]
fn indirect_frames_evaluate_exactly_the_listed_slots() {
    let Some(ctx) = gpu() else { return };
    let (device, queue) = (&ctx.device, &ctx.queue);
    let rig = humanoid();
    let rigs = [rig.clone()];
    let skip = InstanceRecord::SKIP_CULLED;
    let every3 = UpdateRate::Every {
        interval: 3,
        phase: 1,
    }
    .bits();
    // (x, flags): in view, culled and skipping, culled and not skipping, in view at 1 in 3.
    let crowd = [
        (0.0, skip),
        (200.0, skip),
        (0.5, skip),
        (200.0, 0),
        (-0.5, skip | every3),
        (205.0, skip),
    ];
    let records: Vec<InstanceRecord> = crowd
        .iter()
        .enumerate()
        .map(|(i, &(x, flags))| playing(&rig, i as u32, x, flags))
        .collect();
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    let len = palette_len(&rigs, &records) as u32;
    backend.reserve_palette(len).unwrap();
    backend.evaluate_at(0.0, &records).unwrap();
    assert!(
        !backend.last_frame().indirect,
        "the first frame runs every slot"
    );
    assert_eq!(backend.read_slot_list().unwrap(), None);

    let renderer = Renderer::new(device).unwrap();
    let batch = crowd_batch(ctx, &renderer, &backend, &rig, &records, "lod list");
    let batches = [&batch];
    let camera = Camera::look_at(
        Vec3::new(0.0, 1.0, 6.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::Y,
        0.8,
        1.0,
        0.1,
        50.0,
    );
    let scene = Scene {
        skinned: &batches,
        ..Scene::new(camera)
    };
    renderer.cull(device, queue, &scene).unwrap();

    let mut previous = backend.read_palette(0..len).unwrap();
    let mut culled_refreshes = 0;
    for frame in 1..10u32 {
        backend.evaluate_at(frame as f32 * 0.05, &records).unwrap();
        let stats = backend.last_frame();
        assert!(stats.indirect, "frame {frame} is indirect");
        assert_eq!(
            stats.dispatches, 1,
            "frame {frame}: one evaluation dispatch"
        );
        renderer.cull(device, queue, &scene).unwrap();
        let expected: Vec<u32> = crowd
            .iter()
            .enumerate()
            .filter(|&(slot, &(x, flags))| {
                let culled = x > 100.0;
                evaluation(flags, slot as u32, Vec3::X * x, frame, culled, false, None).is_some()
            })
            .map(|(slot, _)| slot as u32)
            .collect();
        let list = backend
            .read_slot_list()
            .unwrap()
            .expect("an indirect frame");
        let mut listed = list.slots.clone();
        listed.sort_unstable();
        assert_eq!(listed, expected, "frame {frame}: the listed slots");
        let count = listed.len() as u32;
        let groups = count.div_ceil(backend.evaluate_shape().group_instances());
        assert_eq!(
            list.workgroups,
            [groups, u32::from(count > 0), 1],
            "frame {frame}: the indirect grid"
        );
        let palette = backend.read_palette(0..len).unwrap();
        let changed: Vec<u32> = records
            .iter()
            .enumerate()
            .filter(|(_, r)| bits(block(&rig, &palette, r)) != bits(block(&rig, &previous, r)))
            .map(|(slot, _)| slot as u32)
            .collect();
        assert_eq!(
            changed, expected,
            "frame {frame}: the palettes that changed"
        );
        culled_refreshes += expected.iter().filter(|&&s| s == 1 || s == 5).count();
        previous = palette;
    }
    assert_eq!(
        culled_refreshes, 2,
        "slots 1 and 5 refresh once each in 9 frames"
    );
}

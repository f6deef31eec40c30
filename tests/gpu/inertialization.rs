//! Inertialized transitions on the GPU against the CPU twin: the capture frame, the decay, the
//! end, and a chained interruption that reads the offset the block held.

use sinew::{
    CpuBackend, GpuBackend, Inertialization, InstanceRecord, Layer, LayerRecord, Mat3x4Rows, Rig,
    TimeWrap, inertial_block_entries,
};

use super::common::Rng;
use super::fixtures::{blend_rigs, gpu};
use super::oracle::{element_tolerance, palette_len};

/// The capture's velocity is a difference over 1/1024 s, so it carries the rounding of both
/// evaluators' poses times 1024: about 1.2e-4 rad/s per joint, up to 8e-6 rad once decayed
/// (`v₀ T q(s)`, `q` at most 0.082), which adds up along a chain (some 3e-4 at the 32nd joint
/// of the 40-joint chain). An offset wrong by anything real is off by far more.
const CAPTURE_FACTOR: f32 = 10.0;

/// A looping layer of a random clip of `rig`, anchored at frame time `anchor`.
fn random_layer(rig: &Rig, rng: &mut Rng, anchor: f32) -> LayerRecord {
    let clip = rng.below(rig.clips.clip_count()) as u32;
    let period = rig.clips.clips()[clip as usize].duration.max(0.1);
    Layer::clip(clip, 0.0).to_record().with_clock(
        rng.range(0.0, period),
        anchor,
        rng.range(0.5, 1.5),
        TimeWrap::Loop,
        period,
    )
}

/// Per rig a few instances inertialized at `start` from one or two outgoing layers (a
/// cross-fade in flight) to one incoming layer, each with its own block; and the incoming
/// layers.
fn inertialized_records(
    rigs: &[Rig],
    rng: &mut Rng,
    start: f32,
) -> (Vec<InstanceRecord>, Vec<LayerRecord>) {
    let (mut records, mut incoming) = (Vec::new(), Vec::new());
    let palette_blocks: usize = rigs.iter().map(|r| 3 * r.palette_entries()).sum();
    let (mut palette, mut block) = (0u32, palette_blocks as u32);
    for (r, rig) in rigs.iter().enumerate() {
        for k in 0..3 {
            let mut outgoing = vec![random_layer(rig, rng, 0.0)];
            if k == 1 {
                let fade_in = random_layer(rig, rng, 0.0).with_fade(0.0, start - 0.1, 2.0, 1.0);
                outgoing.push(fade_in);
            }
            let layer = random_layer(rig, rng, start);
            let mut rec = InstanceRecord::new(r as u32, palette, &rng.world(), &[]).unwrap();
            rec.layer_count = 1;
            rec.layers[0] = layer;
            let t = Inertialization {
                block,
                serial: 1,
                start,
                duration: rng.range(0.3, 0.9),
                outgoing: 0,
                chained: false,
            };
            records.push(rec.inertialized(&outgoing, t).unwrap());
            incoming.push(layer);
            palette += rig.palette_entries() as u32;
            block += inertial_block_entries(rig.joint_count() as u32);
        }
    }
    (records, incoming)
}

/// Asserts that the GPU's palette equals the CPU twin's (each evaluated at `now` already).
fn assert_palettes_match(
    backend: &mut GpuBackend,
    rigs: &[Rig],
    records: &[InstanceRecord],
    cpu: &[Mat3x4Rows],
    what: &str,
) {
    let len = palette_len(rigs, records);
    let gpu = backend.read_palette(0..len as u32).unwrap();
    for (i, rec) in records.iter().enumerate() {
        let start = rec.palette_offset as usize;
        for j in 0..rigs[rec.rig as usize].joint_count() {
            let (g, c) = (
                gpu[start + j].to_cols_array(),
                cpu[start + j].to_cols_array(),
            );
            for e in 0..16 {
                let tol = CAPTURE_FACTOR * element_tolerance(&c, e);
                assert!(
                    (g[e] - c[e]).abs() <= tol,
                    "{what}: record {i} joint {j} element {e}: GPU {g:?}, CPU {c:?}"
                );
            }
        }
    }
}

/// Palette entries of `records` with their inertialization blocks.
fn entries(rigs: &[Rig], records: &[InstanceRecord]) -> usize {
    let blocks = records.iter().map(|r| {
        let t = r.inertialization().unwrap();
        t.block_end(rigs[r.rig as usize].joint_count()) as usize
    });
    blocks.max().unwrap_or(0).max(palette_len(rigs, records))
}

fn evaluate_both(
    backend: &mut GpuBackend,
    cpu: &mut (CpuBackend, Vec<Mat3x4Rows>),
    rigs: &[Rig],
    records: &[InstanceRecord],
    now: f32,
    what: &str,
) {
    backend.evaluate_at(now, records).unwrap();
    let mut boxes = vec![sinew::Aabb::EMPTY; records.len()];
    cpu.0
        .evaluate_at(now, records, &mut cpu.1, &mut boxes)
        .unwrap();
    assert_palettes_match(backend, rigs, records, &cpu.1, &format!("{what} at {now}"));
}

#[test]
fn inertialized_transitions_match_the_cpu_twin_through_an_interruption() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(26);
    let rigs = blend_rigs();
    let (records, incoming) = inertialized_records(&rigs, &mut rng, 0.4);
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    let len = entries(&rigs, &records);
    backend.reserve_palette(len as u32).unwrap();
    let cpu_backend = CpuBackend::new(rigs.clone(), Vec::new()).unwrap();
    let mut cpu = (cpu_backend, vec![Mat3x4Rows::IDENTITY; len]);
    // The capture frame comes after the start; the offset decays, then is gone.
    for now in [0.45, 0.6, 0.8] {
        evaluate_both(&mut backend, &mut cpu, &rigs, &records, now, "first");
    }
    // Interrupted at 0.9 (some still decaying, some done) toward new clips, chained.
    let chained: Vec<InstanceRecord> = records
        .iter()
        .zip(&incoming)
        .map(|(rec, layer)| {
            let t = rec.inertialization().unwrap();
            let mut next = *rec;
            next = next.without_inertialization();
            next.layers[0] = random_layer(&rigs[rec.rig as usize], &mut rng, 0.9);
            let t = Inertialization {
                serial: 2,
                start: 0.9,
                chained: true,
                ..t
            };
            next.inertialized(std::slice::from_ref(layer), t).unwrap()
        })
        .collect();
    for now in [0.9, 1.1, 2.5] {
        evaluate_both(&mut backend, &mut cpu, &rigs, &chained, now, "chained");
    }
}

/// The animator's inertialized transitions (blocks from its palette allocator, event-driven
/// records kept resident) evaluate on the GPU as on its own CPU backend: the start, an
/// interruption (chained) and the end.
#[test]
fn animator_inertialized_transitions_match_its_cpu_evaluation() {
    let Some(ctx) = gpu() else { return };
    animator_against_its_cpu_evaluation(ctx, None);
}

/// The same in a palette bound in several windows, the animator told them: every block lies
/// in its character's window, where the kernel reads it (a block outside it would be a cut on
/// the GPU while the CPU inertializes).
#[test]
fn animator_inertialization_in_a_windowed_palette_matches_its_cpu_evaluation() {
    let Some(ctx) = gpu() else { return };
    animator_against_its_cpu_evaluation(ctx, Some(64 << 10));
}

/// Five characters (forty in palette windows of `binding` bytes) through inertialized
/// transitions, an interruption and their end, GPU against the animator's CPU evaluation.
fn animator_against_its_cpu_evaluation(ctx: &sinew::GpuContext, binding: Option<u64>) {
    let Some(path) = super::fixtures::repo_file("humanoid.glb") else {
        return;
    };
    let rigs = super::fixtures::load(&path);
    let clips: Vec<String> = rigs[0]
        .clips
        .clips()
        .iter()
        .map(|c| c.name.clone())
        .take(3)
        .collect();
    let mut a = sinew::runtime::Animator::new(vec![rigs[0].clone()]).unwrap();
    a.set_scheduling(sinew::runtime::Scheduling::EventDriven);
    let mut world = hecs::World::new();
    let options = sinew::gpu::GpuOptions {
        max_palette_binding: binding,
        ..sinew::gpu::GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, a.rigs(), &[], options).unwrap();
    let paging = backend.palette_paging();
    if binding.is_some() {
        a.set_palette_windows(sinew::PaletteWindows::new(paging, paging.stride / 2));
    }
    let count = if binding.is_some() { 40 } else { 5 };
    let entities: Vec<hecs::Entity> = (0..count)
        .map(|i| {
            let place = glam::Vec3::new(i as f32, 0.0, 0.0);
            world.spawn((
                sinew::runtime::Animated::new(0),
                sinew::runtime::Transform::from_translation(place),
                a.cross_fade(0, &clips[0]).unwrap(),
            ))
        })
        .collect();
    let dt = 1.0 / 60.0;
    let to = |a: &sinew::runtime::Animator, k: usize| {
        sinew::runtime::Motion::Clip(a.clip(0, &clips[k % clips.len()]).unwrap())
    };
    for frame in 0..40 {
        // Every entity starts an inertialized transition at frame 5; some are interrupted.
        for (i, e) in entities.iter().enumerate() {
            let k = match frame {
                5 => Some(1),
                12 if i % 2 == 0 => Some(2),
                30 if i == 1 => Some(0),
                _ => None,
            };
            if let Some(k) = k {
                let motion = to(&a, k);
                world
                    .get::<&mut sinew::runtime::CrossFade>(*e)
                    .unwrap()
                    .inertialize_to(motion, sinew::runtime::Clock::default(), 0.25);
                a.touch(*e);
            }
        }
        a.update(&mut world, dt).unwrap();
        backend.reserve_palette(a.palette().capacity()).unwrap();
        backend.set_slot_count(a.slot_records().len() as u32);
        for &slot in a.changed_slots() {
            backend
                .set_record(slot, &a.slot_records()[slot as usize])
                .unwrap();
        }
        backend.evaluate_resident(a.frame_time()).unwrap();
        if frame == 12 {
            let chained = (a.slot_records().iter())
                .filter(|r| r.inertialization().is_some_and(|t| t.chained));
            if binding.is_none() {
                assert_eq!(chained.count(), 3, "the interrupted ones chain");
            } else {
                assert!(chained.count() > 1, "interrupted ones chain");
            }
        }
        if frame == 6 && binding.is_some() {
            // Transitions in several windows.
            let windows: std::collections::BTreeSet<u32> = (a.slot_records().iter())
                .filter(|r| r.inertialization().is_some())
                .map(|r| r.palette_offset / paging.stride)
                .collect();
            assert!(windows.len() > 1, "{windows:?}");
        }
        let records = a.slot_records().to_vec();
        let cpu = a.evaluate_cpu().unwrap().palette.to_vec();
        assert_palettes_match(
            &mut backend,
            a.rigs(),
            &records,
            &cpu,
            &format!("frame {frame}"),
        );
    }
}

//! Morph weights, and weights set by hand over them (`RecordEvaluator`'s overrides).

use glam::Affine3A;
use sinew::{GpuBackend, InstanceRecord, Layer, TimeWrap};

use super::common::{self, Rng};
use super::fixtures::{
    chain_rig, fan_rig, gpu, masks_for_all, morph_rigs, random_layers, shared_file,
};
use super::oracle::{
    assert_backend_matches_cpu, assert_evaluated_matches_cpu, cpu_evaluate, pack, palette_len,
    sample_times,
};

#[test]
fn morph_weights_match_cpu_on_every_clip_layer_mask_and_fade() {
    let Some(ctx) = gpu() else { return };
    let rigs = morph_rigs();
    assert!(!rigs.is_empty(), "assets/synthetic/morph.glb is missing");
    let mut rng = Rng(7);
    let (masks, mask_ranges) = masks_for_all(&rigs, &mut rng);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        for clip in 0..rig.clips.clip_count() {
            for t in sample_times(rig, clip) {
                items.push((
                    r as u32,
                    0,
                    Affine3A::IDENTITY,
                    vec![Layer::clip(clip as u32, t)],
                ));
            }
        }
        let (base, count) = mask_ranges[r];
        for k in 0..40 {
            let layers = random_layers(rig, &mut rng, base, count, 2 + k % 3);
            items.push((r as u32, 0, rng.world(), layers));
        }
    }
    let records = pack(&rigs, &items);
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    assert_backend_matches_cpu(&mut backend, &rigs, &masks, &records, &|i| {
        let (r, _, _, layers) = &items[i];
        format!("rig {} layers {layers:?}", rigs[*r as usize].name)
    });
    // The comparison is not of zeros only: many records' weights are not.
    let (cpu_palette, _) = cpu_evaluate(&rigs, &masks, &records);
    let moving = records
        .iter()
        .filter(|rec| {
            let rig = &rigs[rec.rig as usize];
            let at = rec.palette_offset as usize;
            let w = sinew::cpu::morph_weights(rig, &cpu_palette[at..at + rig.palette_entries()]);
            w.iter().any(|&x| x != 0.0)
        })
        .count();
    assert!(
        moving * 10 > records.len(),
        "{moving} of {} records",
        records.len()
    );

    // Records evaluated at frame times: clocks, rates and fades drive the weights too.
    let rig = &rigs[0];
    let fading: Vec<InstanceRecord> = (0..6u32)
        .map(|i| {
            let layers = [
                Layer::clip(1, 0.0)
                    .to_record()
                    .with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, 0.8),
                Layer::clip(2, 0.0)
                    .to_record()
                    .with_clock(0.1 * i as f32, 0.0, 0.5, TimeWrap::Clamp, 1.2)
                    .with_fade(0.0, 0.0, 2.0, 1.0),
            ];
            let mut rec = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
            rec.layer_count = 2;
            rec.layers[..2].copy_from_slice(&layers);
            rec.palette_offset = i * rig.palette_entries() as u32;
            rec
        })
        .collect();
    let one = std::slice::from_ref(rig);
    let mut backend = GpuBackend::new(ctx, one, &[]).unwrap();
    backend
        .reserve_palette(palette_len(one, &fading) as u32)
        .unwrap();
    for now in [0.1, 0.3, 0.9] {
        backend.evaluate_at(now, &fading).unwrap();
        assert_eq!(
            backend.last_frame().morph_entries,
            6 * rig.morph.palette_entries() as u64,
            "morph entries written"
        );
        assert_evaluated_matches_cpu(&mut backend, one, &[], &fading, now, &|i| {
            format!("fading record {i} at {now}")
        });
    }
}

#[test]
fn pose_command_prints_the_same_morph_weights_on_both_backends() {
    let Some(_) = gpu() else { return };
    let mut runs = vec![(
        common::repo().join("assets/synthetic/morph.glb"),
        "2",
        "0,0.3,0.6,0.95",
    )];
    if let Some(path) = shared_file("RobotExpressive.glb") {
        runs.push((path, "0", "0.2,1.1,2.5"));
    }
    for (file, anim, times) in runs {
        let run = |backend: &str| -> serde_json::Value {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
                .arg("pose")
                .arg(&file)
                .args(["--anim", anim, "--times", times, "--backend", backend])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{} --backend {backend}: {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).unwrap()
        };
        let (gpu_json, cpu_json) = (run("gpu"), run("cpu"));
        let weights = |json: &serde_json::Value| -> Vec<Vec<Vec<f32>>> {
            json["morph_weights"]["frames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| serde_json::from_value(f["weights"].clone()).unwrap())
                .collect()
        };
        assert_eq!(
            gpu_json["morph_weights"]["nodes"],
            cpu_json["morph_weights"]["nodes"]
        );
        let (g, c) = (weights(&gpu_json), weights(&cpu_json));
        assert_eq!(g.len(), times.split(',').count());
        for (k, (gf, cf)) in g.iter().zip(&c).enumerate() {
            for (n, (gw, cw)) in gf.iter().zip(cf).enumerate() {
                common::assert_vec_close(
                    gw,
                    cw,
                    common::WEIGHT_TOLERANCE,
                    &format!("{} frame {k} node {n}", file.display()),
                );
            }
        }
    }
}

/// Content added while records are resident: a clip appended to a playing rig and a new rig,
/// uploaded with `update_rigs`, evaluate like the CPU; the records from before keep playing;
/// rigs that would change the uploaded ones are refused.
#[test]
fn rigs_and_clips_added_at_run_time_evaluate_like_the_cpu() {
    use sinew::runtime::{Animated, Animator, Playback, Transform};
    let Some(ctx) = gpu() else { return };
    let mut animator = Animator::new(vec![chain_rig(8)]).unwrap();
    let mut world = hecs::World::new();
    for clip in 0..3 {
        world.spawn((Animated::new(0), Transform::IDENTITY, Playback::new(clip)));
    }
    let mut backend = GpuBackend::new(ctx, animator.rigs(), animator.masks()).unwrap();
    let step = |animator: &mut Animator, world: &mut hecs::World, backend: &mut GpuBackend| {
        animator.update(world, 1.0 / 30.0).unwrap();
        backend
            .reserve_palette(animator.palette().capacity())
            .unwrap();
        for &slot in animator.changed_slots() {
            backend
                .set_record(slot, &animator.slot_records()[slot as usize])
                .unwrap();
        }
        let now = animator.frame_time();
        backend.evaluate_resident(now).unwrap();
        let records = animator.slot_records().to_vec();
        assert_evaluated_matches_cpu(
            backend,
            animator.rigs(),
            animator.masks(),
            &records,
            now,
            &|i| format!("slot {i} at {now}"),
        );
    };
    for _ in 0..5 {
        step(&mut animator, &mut world, &mut backend);
    }
    // Content streams in: a clip with half of the linear clip's tracks, and another rig.
    let mut half = animator.rigs()[0].clips.to_raw_clips()[0].clone();
    half.name = "half".to_string();
    half.tracks = half.tracks.into_iter().step_by(2).collect();
    let added = animator.add_clips(0, &[half]).unwrap();
    let fan = animator.add_rig(fan_rig(5)).unwrap();
    backend
        .update_rigs(animator.rigs(), animator.masks())
        .unwrap();
    world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        Playback::new(added.start),
    ));
    world.spawn((Animated::new(fan), Transform::IDENTITY, Playback::new(2)));
    for _ in 0..6 {
        step(&mut animator, &mut world, &mut backend);
    }
    assert_eq!(animator.slot_records().len(), 5);
    // Fewer rigs, or another rig in place of an uploaded one, are refused.
    let e = backend.update_rigs(&animator.rigs()[..1], &[]).unwrap_err();
    assert!(
        matches!(e, sinew::GpuError::IncompatibleRig { rig: 1, .. }),
        "{e}"
    );
    let swapped = [fan_rig(5), chain_rig(8)];
    let e = backend.update_rigs(&swapped, &[]).unwrap_err();
    assert!(
        matches!(e, sinew::GpuError::IncompatibleRig { rig: 0, .. }),
        "{e}"
    );
    // Still evaluating what was uploaded.
    step(&mut animator, &mut world, &mut backend);
}

/// The palette floats of `evaluator`'s first `len` entries.
fn palette_floats(evaluator: &sinew::view::RecordEvaluator, len: usize) -> Vec<f32> {
    let block = evaluator.palette_block(0..len as u32).unwrap();
    bytemuck::cast_slice::<sinew::Mat3x4Rows, f32>(&block).to_vec()
}

#[test]
fn morph_weight_overrides_match_the_cpu_and_change_the_weights_they_set() {
    use sinew::view::RecordEvaluator;
    let Some(ctx) = gpu() else { return };
    let rigs = morph_rigs();
    let rig = &rigs[0];
    assert!(rig.morph.weight_count() >= 2, "the morph rig has weights");
    // Four instances of rig 0 mid-clip, so the clips animate their weights.
    let items: Vec<(u32, u32, Affine3A, Vec<Layer>)> = (0..4)
        .map(|i| {
            let t = 0.2 + 0.15 * i as f32;
            (0, 0, Affine3A::IDENTITY, vec![Layer::clip(i % 2, t)])
        })
        .collect();
    let records = pack(&rigs, &items);
    let len = palette_len(&rigs, &records);
    // Each override is a palette float: the instance's weights follow its joint entries.
    let weight_float = |instance: usize, weight: usize| {
        (records[instance].palette_offset as usize + rig.joint_count()) * 12 + weight
    };
    let overrides = [
        (weight_float(0, 0), 0.75),
        (weight_float(2, 1), -0.5),
        (weight_float(3, 0), 0.35),
    ];
    let mut gpu_eval = RecordEvaluator::gpu(GpuBackend::new(ctx, &rigs, &[]).unwrap());
    let cpu = sinew::CpuBackend::new(rigs.clone(), Vec::new()).unwrap();
    let mut cpu_eval = RecordEvaluator::cpu(&ctx.device, cpu).unwrap();
    let mut evaluate = |overrides: &[(usize, f32)]| {
        gpu_eval
            .evaluate_at(ctx, 0.0, &records, len, overrides)
            .unwrap();
        cpu_eval
            .evaluate_at(ctx, 0.0, &records, len, overrides)
            .unwrap();
        (
            palette_floats(&gpu_eval, len),
            palette_floats(&cpu_eval, len),
        )
    };
    let (gpu_plain, cpu_plain) = evaluate(&[]);
    let (gpu_set, cpu_set) = evaluate(&overrides);
    for (what, gpu, cpu) in [
        ("without overrides", &gpu_plain, &cpu_plain),
        ("with overrides", &gpu_set, &cpu_set),
    ] {
        for (i, (g, c)) in gpu.iter().zip(cpu.iter()).enumerate() {
            let tolerance = common::MATRIX_TOLERANCE * c.abs().max(1.0);
            assert!(
                (g - c).abs() <= tolerance,
                "{what}: palette float {i}: GPU {g}, CPU {c}"
            );
        }
    }
    // The overrides replace what the clips gave, exactly; nothing else moves.
    for &(at, value) in &overrides {
        assert_eq!(gpu_set[at], value, "GPU float {at}");
        assert_eq!(cpu_set[at], value, "CPU float {at}");
        assert_ne!(
            gpu_plain[at], value,
            "float {at}: the clip gives another weight"
        );
    }
    for (i, (set, plain)) in gpu_set.iter().zip(&gpu_plain).enumerate() {
        if overrides.iter().all(|&(at, _)| at != i) {
            assert_eq!(set, plain, "GPU float {i}, not overridden");
        }
    }
    // The weights the renderer reads are the overridden ones.
    let block = |floats: &[f32], instance: usize| -> Vec<sinew::Mat3x4Rows> {
        let start = records[instance].palette_offset as usize;
        let entries: &[sinew::Mat3x4Rows] = bytemuck::cast_slice(floats);
        entries[start..start + rig.palette_entries()].to_vec()
    };
    let weights = sinew::cpu::morph_weights(rig, &block(&gpu_set, 2));
    assert_eq!(weights[1], -0.5);
    assert_ne!(
        weights,
        sinew::cpu::morph_weights(rig, &block(&gpu_plain, 2)),
        "instance 2's weights changed"
    );
}

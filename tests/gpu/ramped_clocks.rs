//! Clocks whose rate ramps with their fade (`LayerRecord::rate_gain`): a blend space's phase
//! while its input ramps.

use sinew::{GpuBackend, InstanceRecord};

use super::common::Rng;
use super::fixtures::{WRAPS, blend_rigs, gpu, random_layered_records};
use super::oracle::{assert_evaluated_matches_cpu, palette_len};
use super::root_motion::{assert_world_close, frame_times, root_motion_records, walker_rig};

/// Ramped clocks of every wrap mode, before, during and after their ramps, evaluate on the GPU
/// as on the CPU.
#[test]
fn ramped_clocks_match_cpu_before_during_and_after_their_ramps() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(27);
    let rigs = blend_rigs();
    let (masks, mut records) = random_layered_records(&rigs, &mut rng, 16);
    for rec in &mut records {
        let count = rec.layer_count as usize;
        for layer in &mut rec.layers[..count] {
            let d = rigs[rec.rig as usize].clips.clips()[layer.clip as usize]
                .duration
                .max(0.1);
            let wrap = WRAPS[rng.below(4)];
            let (anchor, rate) = (rng.range(0.0, 2.0), rng.range(0.2, 1.5));
            *layer = layer
                .with_clock(rng.range(0.0, d), anchor, rate, wrap, d)
                .with_fade(rng.range(0.0, 1.0), anchor, rng.range(0.3, 2.0), 1.0)
                .with_rate_gain(rng.range(-0.6, 0.9));
        }
    }
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    for now in [0.0, 0.8, 1.7, 3.1, 6.4] {
        backend.evaluate_at(now, &records).unwrap();
        assert_evaluated_matches_cpu(&mut backend, &rigs, &masks, &records, now, &|i| {
            format!("t = {now}: record {i} {:?}", records[i].used_layers())
        });
    }
}

/// Root motion under ramped clocks: the kernel's worlds equal the CPU twin's over many frames,
/// with no record uploaded after the first, and the ramp changes the distance walked.
#[test]
fn root_motion_under_ramped_clocks_matches_the_cpu_twin() {
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let rigs = [rig.clone()];
    let steady = root_motion_records(&rig);
    let mut records = steady.clone();
    for rec in &mut records {
        let count = rec.layer_count as usize;
        for layer in &mut rec.layers[..count] {
            // From its rate at 0.3 s to 1.8 times it at 1.3 s.
            let fade = if layer.fade_rate > 0.0 {
                *layer
            } else {
                layer.with_fade(layer.weight, 0.3, 1.0, 1.0)
            };
            *layer = fade.with_rate_gain(0.8 * layer.rate);
        }
    }
    let slots: Vec<u32> = (0..records.len() as u32).collect();
    let (mut cpu, mut still) = (records.clone(), steady.clone());
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    let times = frame_times(90);
    let mut prev = None;
    for (frame, &now) in times.iter().enumerate() {
        backend.evaluate_at(now, &records).unwrap();
        let from = prev.unwrap_or(now);
        for (rec, steady) in cpu.iter_mut().zip(&mut still) {
            sinew::cpu::advance_root_motion(&rig, rec, from, now);
            sinew::cpu::advance_root_motion(&rig, steady, from, now);
        }
        prev = Some(now);
        if frame > 0 {
            assert_eq!(backend.last_frame().records_uploaded, 0, "frame {frame}");
        }
    }
    let worlds = backend.read_worlds(&slots).unwrap();
    for (i, (g, c)) in worlds.iter().zip(&cpu).enumerate() {
        assert_world_close(g, &c.world.to_affine(), &format!("record {i}"));
    }
    let walked = |r: &InstanceRecord| r.world.to_affine().translation.length();
    assert!(
        walked(&cpu[0]) > walked(&still[0]) + 0.3,
        "the ramped walk went further ({} against {})",
        walked(&cpu[0]),
        walked(&still[0])
    );
    let now = *times.last().unwrap();
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &cpu, now, &|i| {
        format!("pose under the moved world, record {i}")
    });
}

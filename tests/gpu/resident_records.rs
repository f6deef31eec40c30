//! Running clocks, fades and resident records.

use glam::{Affine3A, Vec3};
use sinew::gpu::GpuOptions;
use sinew::{GpuBackend, Layer, Rig, TimeWrap};

use super::common::Rng;
use super::fixtures::{
    WRAPS, blend_rigs, crowd_rigs, gpu, random_items, random_layered_records, synthetic_asset,
};
use super::oracle::{assert_evaluated_matches_cpu, pack, palette_len};

/// Layers with running clocks (every wrap mode, both directions) and fades (ramps, blend-space
/// shares) evaluate on the GPU as on the CPU at frame times across wraps and fade ends.
#[test]
fn clocks_and_fades_in_records_match_cpu_at_every_frame_time() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(11);
    let rigs = blend_rigs();
    let (masks, mut records) = random_layered_records(&rigs, &mut rng, 24);
    for rec in &mut records {
        let count = rec.layer_count as usize;
        for layer in &mut rec.layers[..count] {
            let d = rigs[rec.rig as usize].clips.clips()[layer.clip as usize]
                .duration
                .max(0.1);
            let wrap = WRAPS[rng.below(4)];
            let rate = rng.range(-2.0, 2.0);
            *layer = layer.with_clock(rng.range(0.0, 2.0 * d), rng.range(0.0, 3.0), rate, wrap, d);
            if rng.below(2) == 0 {
                let share = rng.range(0.1, 1.0);
                *layer = layer.with_fade(
                    rng.range(0.0, 1.0),
                    rng.range(0.0, 4.0),
                    rng.range(0.2, 4.0),
                    share.max(layer.weight.min(1.0)),
                );
            }
        }
    }
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    let len = palette_len(&rigs, &records);
    backend.reserve_palette(len as u32).unwrap();
    for now in [0.0, 0.37, 1.9, 4.25, 9.6] {
        backend.evaluate_at(now, &records).unwrap();
        assert_evaluated_matches_cpu(&mut backend, &rigs, &masks, &records, now, &|i| {
            format!("t = {now}: record {i} {:?}", records[i].used_layers())
        });
    }
}

/// A clip of duration 0 (each track one key: a pose) under running clocks of every wrap, with
/// its duration as the period, alone and over a moving clip: the GPU holds it at time 0 as the
/// CPU does, at every frame time.
#[test]
fn pose_clips_under_running_clocks_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let parents: Vec<Option<usize>> = (0..6usize).map(|j| j.checked_sub(1)).collect();
    let mut asset = synthetic_asset("posed", &parents, Vec3::new(0.0, 0.1, 0.0));
    let mut pose = asset.clips[0].clone();
    pose.name = "pose".into();
    for track in &mut pose.tracks {
        track.times.truncate(1);
        track.values.truncate(1);
    }
    asset.clips.push(pose);
    let rig = Rig::from_skin(&asset, 0).unwrap();
    let pose = rig.clips.clips().len() as u32 - 1;
    assert_eq!(rig.clips.clips()[pose as usize].duration, 0.0);
    let rigs = vec![rig];
    let mut items = Vec::new();
    for _ in &WRAPS {
        for _ in 0..2 {
            let under = Layer {
                weight: 0.5,
                ..Layer::clip(pose, 0.0)
            };
            items.push((0, 0, Affine3A::IDENTITY, vec![Layer::clip(0, 0.3), under]));
            items.push((0, 0, Affine3A::IDENTITY, vec![Layer::clip(pose, 0.0)]));
        }
    }
    let mut records = pack(&rigs, &items);
    for (i, rec) in records.iter_mut().enumerate() {
        let wrap = WRAPS[i / 4];
        let rate = if i % 4 < 2 { 1.25 } else { -2.0 };
        let last = rec.layer_count as usize - 1;
        rec.layers[last] = rec.layers[last].with_clock(0.0, 0.2, rate, wrap, 0.0);
        if last > 0 {
            rec.layers[0] = rec.layers[0].with_clock(0.3, 0.0, 1.0, TimeWrap::Loop, 1.5);
        }
    }
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    for now in [0.0, 0.37, 1.9, 4.25] {
        backend.evaluate_at(now, &records).unwrap();
        assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, now, &|i| {
            format!("t = {now}: pose record {i} {:?}", records[i].used_layers())
        });
    }
}

/// Resident slots: only records that differ from what a slot holds go up, in one upload; the
/// GPU's copy equals the records written, and evaluating it equals the CPU at the frame time.
#[test]
fn resident_uploads_write_exactly_the_changed_records() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(5);
    let rigs = crowd_rigs();
    let items = random_items(&rigs, &mut rng, 90, true);
    let mut records = pack(&rigs, &items);
    let options = GpuOptions {
        initial_palette_entries: 256,
        max_palette_binding: Some(64 << 10),
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    backend.evaluate_at(0.5, &records).unwrap();
    let first = backend.last_frame();
    assert_eq!(first.records_uploaded, records.len() as u64);
    let header_bytes = first.upload_bytes - records.len() as u64 * 256;
    assert!(first.dispatches > 1, "the palette spans several windows");

    // Nothing changed: only the dispatch headers (the frame time) go up.
    backend.evaluate_resident(1.0).unwrap();
    assert_eq!(backend.last_frame().records_uploaded, 0);
    assert_eq!(backend.last_frame().upload_bytes, header_bytes);
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, 1.0, &|i| {
        format!("unchanged record {i}")
    });

    // Three slots get new layers, one is written with what it holds: three records go up.
    for &slot in &[3usize, 4, 60] {
        let rec = &mut records[slot];
        rec.layers[0] = rec.layers[0].with_clock(0.1, 1.0, 1.5, TimeWrap::Loop, 0.8);
        assert!(backend.set_record(slot as u32, rec).unwrap());
    }
    assert!(!backend.set_record(10, &records[10]).unwrap());
    backend.evaluate_resident(1.75).unwrap();
    assert_eq!(backend.last_frame().records_uploaded, 3);
    assert_eq!(backend.last_frame().upload_bytes, 3 * 256 + header_bytes);
    let resident = backend.read_resident(0..records.len() as u32).unwrap();
    assert!(
        resident == records,
        "the GPU holds exactly the records written"
    );
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, 1.75, &|i| {
        format!("after the update, record {i}")
    });

    // An emptied slot is skipped; the others are still evaluated.
    backend.clear_record(7);
    backend.evaluate_resident(2.0).unwrap();
    assert_eq!(backend.last_frame().records_uploaded, 1);
}

/// Boxes read without waiting are the boxes of the evaluation they are tagged with, arrive in
/// order and arrive at all.
#[test]
fn asynchronous_bounds_reads_equal_the_blocking_reads_of_their_frame() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(9);
    let rigs = crowd_rigs();
    let items = random_items(&rigs, &mut rng, 40, false);
    let mut records = pack(&rigs, &items);
    for rec in &mut records {
        rec.layers[0] = rec.layers[0].with_clock(0.0, 1.0, 1.5, TimeWrap::Loop, 1.0);
    }
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    backend.evaluate_at(0.0, &records).unwrap();
    let (mut blocking, mut reads) = (Vec::new(), Vec::new());
    for frame in 1..=12u64 {
        backend.evaluate_resident(frame as f32 / 10.0).unwrap();
        blocking.push(backend.read_bounds(0..records.len()).unwrap());
        reads.extend(backend.read_bounds_async(frame).unwrap());
    }
    backend.wait().unwrap();
    reads.extend(backend.read_bounds_async(13).unwrap());
    assert!(!reads.is_empty(), "asynchronous reads arrive");
    assert!(
        reads.windows(2).all(|w| w[0].tag < w[1].tag),
        "newer reads come later"
    );
    for read in &reads {
        let expected = &blocking[read.tag as usize - 1];
        assert_eq!(
            &read.bounds[..expected.len()],
            &expected[..],
            "frame {}",
            read.tag
        );
        assert!((read.time - read.tag as f32 / 10.0).abs() < 1e-6);
    }
    assert!(
        blocking.windows(2).any(|w| w[0] != w[1]),
        "the boxes move between frames"
    );
}

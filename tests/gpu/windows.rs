//! Palettes and records larger than one binding: windows.

use sinew::gpu::GpuOptions;
use sinew::{GpuBackend, TimeWrap};

use super::common::Rng;
use super::fixtures::{crowd_rigs, gpu, random_items, shuffle};
use super::oracle::{assert_backend_matches_cpu, assert_evaluated_matches_cpu, pack, palette_len};

#[test]
fn palettes_and_records_larger_than_one_binding_are_evaluated_in_windows() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(7);
    let rigs = crowd_rigs();
    let options = GpuOptions {
        initial_palette_entries: 256,
        max_palette_binding: Some(64 << 10),
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    let items = random_items(&rigs, &mut rng, 300, true);
    let mut records = pack(&rigs, &items);
    let len = palette_len(&rigs, &records);
    assert!(len * 48 > 4 * (64 << 10), "palette of {len} entries");
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
        format!("windowed record {i}")
    });
    let windows = backend.dispatches_last_frame();
    assert!(windows >= 4, "{windows} dispatches");
    // Out of palette order: more dispatches, same results.
    records.swap(0, 150);
    records.swap(10, 290);
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
        format!("windowed, shuffled record {i}")
    });
    assert!(backend.dispatches_last_frame() > windows);

    // Records past one binding too (16 KiB: 64 records per binding), with running clocks.
    let options = GpuOptions {
        initial_palette_entries: 256,
        max_palette_binding: Some(64 << 10),
        max_record_binding: Some(16 << 10),
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    let mut records = pack(&rigs, &items);
    for rec in &mut records {
        let d = rigs[rec.rig as usize].clips.clips()[rec.layers[0].clip as usize]
            .duration
            .max(0.1);
        rec.layers[0] = rec.layers[0].with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, d);
    }
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    backend.evaluate_at(1.3, &records).unwrap();
    assert!(
        backend.dispatches_last_frame() >= records.len() as u32 / 64,
        "{} dispatches for {} records",
        backend.dispatches_last_frame(),
        records.len()
    );
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, 1.3, &|i| {
        format!("record {i} past one record binding")
    });
}

#[test]
fn windowed_frames_whose_plans_change_every_frame_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(43);
    let rigs = crowd_rigs();
    // 64 KiB palette windows and 16 records per record binding: a shuffled frame splits into a
    // dispatch almost per record, and the split moves from frame to frame.
    let options = GpuOptions {
        initial_palette_entries: 256,
        max_palette_binding: Some(64 << 10),
        max_record_binding: Some(4 << 10),
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    let mut dispatches = 0;
    for frame in 0..12 {
        let count = 60 + rng.below(240);
        let items = random_items(&rigs, &mut rng, count, true);
        let mut records = pack(&rigs, &items);
        if frame % 4 != 3 {
            shuffle(&mut records, &mut rng);
        }
        let now = 0.1 * frame as f32;
        backend
            .reserve_palette(palette_len(&rigs, &records) as u32)
            .unwrap();
        backend.evaluate_at(now, &records).unwrap();
        dispatches += backend.dispatches_last_frame();
        assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, now, &|i| {
            format!("frame {frame} of {count} records: record {i}")
        });
    }
    // Hundreds of bind groups made and dropped as the plans change.
    assert!(dispatches > 800, "{dispatches} dispatches in 12 frames");
}

/// A palette past one binding is kept in one buffer per window: growing splits one buffer into
/// several without losing a block (not even one straddling a window's start), every block is
/// read from the buffer it lives in, and the evaluation across the buffers equals the CPU's.
#[test]
fn a_palette_split_into_buffers_keeps_every_block() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(11);
    let rigs = crowd_rigs();
    let options = GpuOptions {
        initial_palette_entries: 64,
        max_palette_binding: Some(64 << 10),
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    // A few records that fit the first window, evaluated while the palette is one buffer.
    let items = random_items(&rigs, &mut rng, 40, false);
    let records = pack(&rigs, &items);
    let len = palette_len(&rigs, &records) as u32;
    assert!(u64::from(len) * 48 < 64 << 10);
    backend.reserve_palette(len).unwrap();
    backend.evaluate_at(0.4, &records).unwrap();
    assert_eq!(backend.palette_segments().len(), 1);
    let before = backend.read_palette(0..len).unwrap();

    // Growing past the binding: the blocks keep their entries, read from their windows' buffers.
    backend.reserve_palette(20 * 1365).unwrap();
    let segments = backend.palette_segments();
    assert!(segments.len() >= 20, "{} buffers", segments.len());
    let stride = segments[1].first_entry;
    assert!(
        records.iter().any(|r| {
            let end = r.palette_offset + rigs[r.rig as usize].palette_entries() as u32;
            r.palette_offset < stride && end > stride
        }),
        "no block straddles the second window's start"
    );
    assert!(
        backend.read_palette(0..len).unwrap() == before,
        "splitting the palette changed what its blocks hold"
    );
    for (i, r) in records.iter().enumerate() {
        let n = rigs[r.rig as usize].palette_entries() as u32;
        let start = r.palette_offset as usize;
        assert!(
            backend
                .read_palette(r.palette_offset..r.palette_offset + n)
                .unwrap()
                == before[start..start + n as usize],
            "block of record {i}"
        );
    }

    // Many more records, across every buffer: GPU == CPU, and one dispatch per buffer at least.
    let items = random_items(&rigs, &mut rng, 600, true);
    let records = pack(&rigs, &items);
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
        format!("record {i} of a palette in several buffers")
    });
    let windows = records
        .iter()
        .map(|r| r.palette_offset / stride)
        .max()
        .unwrap()
        + 1;
    assert!(windows >= 10, "{windows} windows hold records");
    assert!(backend.dispatches_last_frame() >= windows);
}

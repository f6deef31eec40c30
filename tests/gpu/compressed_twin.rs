//! The compressed-clip kernel against its CPU twin on the same compressed clips: every asset,
//! clips on segments, blends with masks, cross-fades and additive layers, rigs added at run time
//! and root motion.

use super::common::{self, Rng};
use super::compressed::{
    assert_compressed_matches_cpu, assert_rebuilt_close, compressed_backend, counting_backend,
    hand_built,
};
use super::fixtures::{
    all_assets, blend_rigs, chain_rig, every_clip_items, every_shape, gpu, load, masks_for_all,
    morph_rigs, random_flags, random_layers,
};
use super::oracle::{pack, palette_len};
use glam::{Affine3A, Vec3};
use sinew::gpu::{ClipFormat, GpuOptions};
use sinew::{Aabb, CpuBackend, GpuBackend, InstanceRecord, Layer, Mat3x4Rows, Rig, TimeWrap};

/// `rigs` with their clips compressed at the default budget.
fn compressed(mut rigs: Vec<Rig>) -> Vec<Rig> {
    for rig in &mut rigs {
        rig.compress(sinew::DEFAULT_ERROR_BUDGET).unwrap();
    }
    rigs
}

#[test]
fn every_asset_matches_the_cpu_twin_on_compressed_clips() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(11);
    let files = all_assets();
    assert!(!files.is_empty());
    let mut reduced = false;
    for path in files {
        let rigs = compressed(load(&path));
        // Components stored in fewer bits than their channel's rate are decoded too.
        reduced |= rigs.iter().filter_map(|r| r.compressed.as_ref()).any(|c| {
            c.channels()
                .iter()
                .any(|k| (0..4).any(|i| k.reduction(i) > 0))
        });
        let items = every_clip_items(&rigs, &mut rng);
        let records = pack(&rigs, &items);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_compressed_matches_cpu(ctx, &rigs, &[], &records, &|i| {
            let (r, _, _, layers) = &items[i];
            format!("{name} rig {r} layers {layers:?}")
        });
    }
    assert!(
        reduced,
        "no asset's compressed clips store a component in fewer bits"
    );
}

#[test]
fn clips_on_segments_match_the_cpu_twin_at_and_around_their_boundaries() {
    let Some(ctx) = gpu() else { return };
    let humanoid = load(&common::repo().join("assets/humanoid.glb")).remove(0);
    let rigs = compressed(vec![common::with_key_gap(&humanoid, 0)]);
    let c = rigs[0].compressed.as_ref().unwrap();
    let segments = c.segments(0).to_vec();
    assert!(segments.len() > 1, "{segments:?}");
    // Each segment's start, a hair and a frame's fraction either side, and past both ends.
    let duration = c.clips()[0].duration;
    let mut times = vec![-0.5, duration, duration + 0.5];
    for s in &segments {
        for d in [-1e-3, -1e-6, 0.0, 1e-6, 1e-3, 0.3 / s.rate, 0.5 / s.rate] {
            times.push(s.start + d);
        }
    }
    let items: Vec<(u32, u32, Affine3A, Vec<Layer>)> = times
        .iter()
        .map(|&t| (0, 0, Affine3A::IDENTITY, vec![Layer::clip(0, t)]))
        .collect();
    let records = pack(&rigs, &items);
    assert_compressed_matches_cpu(ctx, &rigs, &[], &records, &|i| format!("t {}", times[i]));
    // Lane 0 reads the segment table once per layer, scanning it from segment 1.
    let mut backend = counting_backend(ctx, &rigs);
    let one = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[Layer::clip(0, 0.0)]).unwrap();
    backend.evaluate(&[one]).unwrap();
    let first = backend.last_frame().bytes_read.unwrap();
    let last = segments.last().unwrap().start + 1e-3;
    let late = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[Layer::clip(0, last)]).unwrap();
    backend.evaluate(&[late]).unwrap();
    // The scan compares every later start instead of one: each 4 bytes.
    let scanned = (segments.len() as u64 - 2) * 4;
    assert!(segments.len() > 2, "{segments:?}");
    assert_eq!(backend.last_frame().bytes_read, Some(first + scanned));
    // Root motion samples the root at both frame ends, each sample scanning the segments at
    // its clip time there: a moving record in the last segment instead of the first reads the
    // extra starts once for its layer and twice for the root's translation, four times with
    // the yaw.
    let root = humanoid.skeleton.find_joint("Root").unwrap() as u32;
    let moved_reads = |start: f32, yaw: bool| {
        let mut rec = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
        rec.flags = root | InstanceRecord::HOLD_ROOT_XZ | InstanceRecord::gpu_root_motion(1);
        if yaw {
            rec.flags |= InstanceRecord::HOLD_ROOT_YAW;
        }
        rec.layer_count = 1;
        rec.layers[0] = Layer::clip(0, start).to_record().with_clock(
            start,
            0.0,
            1.0,
            TimeWrap::Clamp,
            duration,
        );
        let mut backend = counting_backend(ctx, &rigs);
        backend.evaluate_at(0.0, &[rec]).unwrap();
        backend.evaluate_at(1e-3, &[rec]).unwrap();
        backend.last_frame().bytes_read.unwrap()
    };
    for (yaw, samples) in [(false, 2), (true, 4)] {
        assert_eq!(
            moved_reads(last, yaw),
            moved_reads(0.0, yaw) + (1 + samples) * scanned,
            "yaw {yaw}"
        );
    }
}

#[test]
fn cross_fades_masks_additive_layers_and_root_holds_match_the_cpu_twin_on_compressed_clips() {
    let contexts = every_shape();
    if contexts.is_empty() {
        return;
    }
    let mut rng = Rng(12);
    let mut rigs = blend_rigs();
    rigs.extend(morph_rigs());
    let rigs = compressed(rigs);
    let (masks, mask_ranges) = masks_for_all(&rigs, &mut rng);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let (base, count) = mask_ranges[r];
        for k in 0..40 {
            let layers = random_layers(rig, &mut rng, base, count, 2 + k % 3);
            let flags = random_flags(&mut rng, rig.joint_count());
            items.push((r as u32, flags, rng.world(), layers));
        }
    }
    let records = pack(&rigs, &items);
    // Runs of 40 records of a rig: whole passes of either shape.
    for ctx in contexts {
        let shape = ctx.evaluate_shape();
        assert_compressed_matches_cpu(ctx, &rigs, &masks, &records, &|i| {
            let (r, flags, _, layers) = &items[i];
            format!(
                "{shape:?}, rig {} flags {flags:#x} layers {layers:?}",
                rigs[*r as usize].name
            )
        });
    }
}

#[test]
fn rigs_added_at_run_time_are_compressed_at_upload_and_match_the_cpu_twin() {
    let Some(ctx) = gpu() else { return };
    let (hand, _) = hand_built();
    let mut backend = compressed_backend(ctx, std::slice::from_ref(&hand));
    // The added rig has no stored compressed clips: the backend compresses it at the budget.
    let added = chain_rig(5);
    assert!(added.compressed.is_none());
    backend
        .update_rigs(&[hand.clone(), added.clone()], &[])
        .unwrap();
    let twin = compressed(vec![hand, added]);
    let items: Vec<(u32, u32, Affine3A, Vec<Layer>)> = (0..3)
        .map(|clip| {
            let layers = vec![Layer::clip(clip, 0.3 + 0.4 * clip as f32)];
            (1, 0, Affine3A::from_translation(Vec3::X), layers)
        })
        .collect();
    let records = pack(&twin, &items);
    let len = palette_len(&twin, &records);
    backend.reserve_palette(len as u32).unwrap();
    backend.evaluate(&records).unwrap();
    let palette = backend.read_palette(0..len as u32).unwrap();
    let mut cpu = CpuBackend::with_compressed(twin.clone(), Vec::new()).unwrap();
    let mut cpu_palette = vec![Mat3x4Rows::IDENTITY; len];
    let mut cpu_bounds = vec![Aabb::EMPTY; records.len()];
    cpu.evaluate(&records, &mut cpu_palette, &mut cpu_bounds)
        .unwrap();
    for (i, rec) in records.iter().enumerate() {
        let block = &cpu_palette[rec.palette_offset as usize..];
        for (j, want) in block.iter().take(twin[1].joint_count()).enumerate() {
            let got = palette[rec.palette_offset as usize + j].to_cols_array();
            assert_rebuilt_close(
                &got,
                &want.to_cols_array(),
                &format!("record {i} joint {j}"),
            );
        }
    }
}

/// Root motion on compressed clips: over 120 uneven frames of the walker compressed at a
/// coarse budget, the compressed kernel's worlds equal the compressed CPU twin's
/// ([`CpuBackend::advance_root_motion`] of [`CpuBackend::with_compressed`]) within the exact
/// path's tolerance, and lie measurably off the exact twin's.
#[test]
fn compressed_root_motion_matches_the_compressed_cpu_twin() {
    let Some(ctx) = gpu() else { return };
    let mut rig = super::root_motion::walker_rig();
    rig.compress(common::COARSE_BUDGET_M).unwrap();
    let rigs = [rig.clone()];
    let records = super::root_motion::root_motion_records(&rig);
    let slots: Vec<u32> = (0..records.len() as u32).collect();
    let twin = CpuBackend::with_compressed(rigs.to_vec(), Vec::new()).unwrap();
    let (mut cpu, mut exact) = (records.clone(), records.clone());
    let options = GpuOptions {
        clips: ClipFormat::Compressed {
            budget: common::COARSE_BUDGET_M,
        },
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    let mut prev = None;
    for now in super::root_motion::frame_times(120) {
        backend.evaluate_at(now, &records).unwrap();
        let from = prev.unwrap_or(now);
        for (c, e) in cpu.iter_mut().zip(&mut exact) {
            twin.advance_root_motion(c, from, now).unwrap();
            sinew::cpu::advance_root_motion(&rig, e, from, now);
        }
        prev = Some(now);
    }
    let worlds = backend.read_worlds(&slots).unwrap();
    let mut off = 0.0f32;
    for (i, ((g, c), e)) in worlds.iter().zip(&cpu).zip(&exact).enumerate() {
        super::root_motion::assert_world_close(g, &c.world.to_affine(), &format!("record {i}"));
        let e = Vec3::from(e.world.to_affine().translation);
        off = off.max((Vec3::from(g.translation) - e).abs().max_element());
    }
    assert!(
        off > common::COARSE_ROOT_OFFSET_M,
        "the coarse budget moves the compressed roots off the exact ones ({off})"
    );
}

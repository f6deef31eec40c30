//! Synthetic extremes and random crowds.

use sinew::gpu::EvaluateShape;
use sinew::{GpuBackend, InstanceRecord, JointMask, Layer, PaletteBlock};

use super::common::Rng;
use super::fixtures::{
    chain_rig, crowd_rigs, every_shape, fan_rig, gpu, masks_for, random_flags, random_layers,
    repo_rig_or,
};
use super::oracle::{assert_backend_matches_cpu, pack, sample_times};

#[test]
fn synthetic_chain_and_fan_of_256_joints_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(3);
    let rigs = vec![
        repo_rig_or("synthetic/chain256.glb", || chain_rig(256)),
        repo_rig_or("synthetic/fan.glb", || fan_rig(256)),
    ];
    assert_eq!(rigs[0].joint_count(), 256);
    assert_eq!(rigs[0].skeleton.level_count(), 256);
    assert_eq!(rigs[1].joint_count(), 256);
    assert_eq!(rigs[1].skeleton.level_count(), 2);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        for clip in 0..rig.clips.clip_count() {
            for t in sample_times(rig, clip) {
                items.push((r as u32, 0, rng.world(), vec![Layer::clip(clip as u32, t)]));
            }
        }
        for _ in 0..8 {
            let layers = random_layers(rig, &mut rng, 0, 0, 2);
            items.push((r as u32, 0, rng.world(), layers));
        }
    }
    let records = pack(&rigs, &items);
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
        let (r, _, _, layers) = &items[i];
        format!("rig {} layers {layers:?}", rigs[*r as usize].name)
    });
}

#[test]
fn random_crowd_of_mixed_rigs_in_any_order_matches_cpu() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(4);
    let rigs = crowd_rigs();
    let masks: Vec<JointMask> = rigs
        .iter()
        .map(|r| masks_for(r, &mut rng).remove(0))
        .collect();
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    // Churn the allocator so blocks land in holes, out of record order.
    let mut blocks: Vec<(u32, PaletteBlock)> = Vec::new();
    let mut records = Vec::new();
    let mut described = Vec::new();
    while records.len() < 1200 {
        let r = rng.below(rigs.len()) as u32;
        let block = backend.allocate(r).unwrap();
        if rng.below(5) == 0 {
            blocks.push((r, block));
            continue;
        }
        let rig = &rigs[r as usize];
        let count = 1 + rng.below(3);
        let layers = random_layers(rig, &mut rng, r, 1, count);
        let mut rec = InstanceRecord::new(r, block.offset, &rng.world(), &layers).unwrap();
        rec.flags = random_flags(&mut rng, rig.joint_count());
        described.push(format!("rig {} layers {layers:?}", rig.name));
        records.push(rec);
        if rng.below(4) == 0
            && let Some((_, b)) = blocks.pop()
        {
            backend.free(b).unwrap();
        }
    }
    assert!(
        records
            .windows(2)
            .any(|w| w[0].palette_offset > w[1].palette_offset),
        "the crowd should not be in palette order"
    );
    assert_backend_matches_cpu(&mut backend, &rigs, &masks, &records, &|i| {
        format!("crowd record {i}: {}", described[i])
    });
    assert_eq!(backend.dispatches_last_frame(), 1);
}

#[test]
fn runs_of_one_rig_evaluated_together_in_a_workgroup_match_cpu() {
    let contexts = every_shape();
    if contexts.is_empty() {
        return;
    }
    // Every device runs the narrow shape.
    assert!(
        contexts
            .iter()
            .any(|c| c.evaluate_shape() == EvaluateShape::NARROW)
    );
    let mut rng = Rng(21);
    // 3 joints: a whole workgroup's slots in one pass; 64: exactly four (narrow shape) or
    // eight (wide) fit; 100: two or five per pass; 256: one or two per pass.
    let rigs = vec![
        chain_rig(3),
        repo_rig_or("synthetic/rig64.glb", || chain_rig(64)),
        fan_rig(100),
        repo_rig_or("synthetic/chain256.glb", || chain_rig(256)),
    ];
    assert_eq!(rigs[1].joint_count(), 64);
    assert_eq!(rigs[3].joint_count(), 256);
    let mut items = Vec::new();
    // Runs of every length from 1 to 9 of each rig, so passes start and end at every place in
    // a workgroup and break where the rig changes or its joints no longer fit.
    for len in 1..=9 {
        for (r, rig) in rigs.iter().enumerate() {
            for _ in 0..len {
                let count = 1 + rng.below(3);
                let layers = random_layers(rig, &mut rng, 0, 0, count);
                let flags = random_flags(&mut rng, rig.joint_count());
                items.push((r as u32, flags, rng.world(), layers));
            }
        }
    }
    let records = pack(&rigs, &items);
    // Every shape the device runs (both on Mesa's lavapipe and llvmpipe).
    for ctx in contexts {
        let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
        let shape = backend.evaluate_shape();
        assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
            let (r, _, _, layers) = &items[i];
            format!(
                "{shape:?}, record {i}: rig {} layers {layers:?}",
                rigs[*r as usize].name
            )
        });
    }
}

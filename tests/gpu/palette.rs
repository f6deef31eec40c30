//! The palette allocator.

use glam::{Affine3A, Vec3};
use sinew::gpu::GpuOptions;
use sinew::{GpuBackend, GpuError, InstanceRecord, Layer, PaletteBlock};

use super::common::Rng;
use super::fixtures::{chain_rig, gpu};
use super::oracle::{assert_transform_close, cpu_evaluate};

#[test]
fn palette_growth_and_reuse_keep_existing_blocks() {
    let Some(ctx) = gpu() else { return };
    let rigs = vec![chain_rig(24)];
    let options = GpuOptions {
        initial_palette_entries: 64,
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    let a = backend.allocate(0).unwrap();
    let b = backend.allocate(0).unwrap();
    assert_eq!((a.offset, b.offset), (0, 24));
    let world = Affine3A::from_translation(Vec3::new(1.0, 2.0, 3.0));
    let records = [
        InstanceRecord::new(0, a.offset, &world, &[Layer::clip(0, 0.3)]).unwrap(),
        InstanceRecord::new(0, b.offset, &world, &[Layer::clip(2, 0.9)]).unwrap(),
    ];
    backend.evaluate(&records).unwrap();
    let before = backend.read_palette(0..48).unwrap();
    // Twenty more blocks: the palette grows (several times) by copying on the GPU.
    let more: Vec<PaletteBlock> = (0..20).map(|_| backend.allocate(0).unwrap()).collect();
    assert!(backend.palette_capacity() >= 22 * 24);
    assert_eq!(backend.read_palette(0..48).unwrap(), before);
    // Free A and a middle block; first fit reuses A's entries; B is untouched by a frame that
    // does not include it.
    backend.free(a).unwrap();
    assert!(matches!(backend.free(a), Err(GpuError::BadBlock { .. })));
    backend.free(more[5]).unwrap();
    let c = backend.allocate(0).unwrap();
    assert_eq!(c.offset, a.offset);
    let frame = [InstanceRecord::new(0, c.offset, &world, &[Layer::clip(1, 1.2)]).unwrap()];
    backend.evaluate(&frame).unwrap();
    assert_eq!(backend.read_palette(24..48).unwrap(), before[24..48]);
    let (cpu, _) = cpu_evaluate(&rigs, &[], &frame);
    let gpu = backend.read_palette(0..24).unwrap();
    for j in 0..24 {
        assert_transform_close(
            &gpu[j].to_cols_array(),
            &cpu[j].to_cols_array(),
            &format!("reused block joint {j}"),
        );
    }
    for blk in more
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 5)
        .map(|(_, b)| *b)
    {
        backend.free(blk).unwrap();
    }
    backend.free(b).unwrap();
    backend.free(c).unwrap();
}

#[test]
fn palette_allocator_churn_never_overlaps_or_leaks() {
    // No device needed: the bookkeeping behind `GpuBackend::allocate` and `free`.
    let mut rng = Rng(8);
    let mut a = sinew::PaletteAllocator::with_capacity(1024);
    let mut live: Vec<PaletteBlock> = Vec::new();
    for step in 0..20_000 {
        if live.len() < 60 && rng.below(3) != 0 {
            live.push(a.allocate(1 + rng.below(67) as u32).unwrap());
        } else if !live.is_empty() {
            let i = rng.below(live.len());
            assert!(a.free(live.swap_remove(i)));
        }
        if step % 500 == 0 {
            let mut sorted = live.clone();
            sorted.sort_by_key(|b| b.offset);
            for w in sorted.windows(2) {
                assert!(w[0].end() <= w[1].offset, "{w:?} overlap");
            }
            assert!(sorted.last().is_none_or(|b| b.end() <= a.capacity()));
            assert_eq!(a.used(), live.iter().map(|b| b.len).sum::<u32>());
        }
    }
    for b in live.drain(..) {
        assert!(a.free(b));
    }
    assert_eq!((a.used(), a.free_ranges()), (0, 1));
    assert!(
        a.capacity() <= 4 * 60 * 67,
        "capacity grew to {}",
        a.capacity()
    );
}

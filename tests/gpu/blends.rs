//! Blends: masks, additive layers, root holds; the same bits on fresh backends.

use sinew::GpuBackend;

use super::common::Rng;
use super::fixtures::{blend_rigs, gpu, masks_for_all, random_flags, random_layers, shuffle};
use super::oracle::{assert_backend_matches_cpu, pack, palette_len};

#[test]
fn layered_blends_with_masks_additive_layers_and_root_holds_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(2);
    let rigs = blend_rigs();
    let (masks, mask_ranges) = masks_for_all(&rigs, &mut rng);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let (base, count) = mask_ranges[r];
        for k in 0..120 {
            let layers = random_layers(rig, &mut rng, base, count, 2 + k % 3);
            let flags = random_flags(&mut rng, rig.joint_count());
            items.push((r as u32, flags, rng.world(), layers));
        }
    }
    let records = pack(&rigs, &items);
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    assert_backend_matches_cpu(&mut backend, &rigs, &masks, &records, &|i| {
        let (r, flags, _, layers) = &items[i];
        format!(
            "rig {} flags {flags:#x} layers {layers:?}",
            rigs[*r as usize].name
        )
    });
}

#[test]
fn the_same_records_give_bitwise_identical_palettes_and_bounds_on_fresh_backends() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(45);
    let rigs = blend_rigs();
    let (masks, mask_ranges) = masks_for_all(&rigs, &mut rng);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let (base, count) = mask_ranges[r];
        for k in 0..40 {
            let layers = random_layers(rig, &mut rng, base, count, 1 + k % 4);
            let flags = random_flags(&mut rng, rig.joint_count());
            items.push((r as u32, flags, rng.world(), layers));
        }
    }
    let mut records = pack(&rigs, &items);
    shuffle(&mut records, &mut rng);
    let len = palette_len(&rigs, &records) as u32;
    let run = || {
        let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
        backend.reserve_palette(len).unwrap();
        backend.evaluate_at(0.7, &records).unwrap();
        let palette: Vec<[[u32; 4]; 3]> = backend
            .read_palette(0..len)
            .unwrap()
            .iter()
            .map(|m| m.rows.map(|row| row.map(f32::to_bits)))
            .collect();
        let bounds: Vec<[[u32; 4]; 2]> = backend
            .read_bounds(0..records.len())
            .unwrap()
            .iter()
            .map(|b| [b.min.map(f32::to_bits), b.max.map(f32::to_bits)])
            .collect();
        (palette, bounds)
    };
    let (first_palette, first_bounds) = run();
    let (second_palette, second_bounds) = run();
    assert_eq!(first_palette.len(), len as usize);
    let entry = first_palette
        .iter()
        .zip(&second_palette)
        .position(|(a, b)| a != b);
    assert_eq!(entry, None, "palette entry differs between runs");
    let aabb = first_bounds
        .iter()
        .zip(&second_bounds)
        .position(|(a, b)| a != b);
    assert_eq!(aabb, None, "AABB differs between runs");
}

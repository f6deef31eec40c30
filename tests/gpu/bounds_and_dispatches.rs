//! Bounds against skinned vertices, and dispatches per frame.

use std::time::Instant;

use glam::{Affine3A, Vec3};
use sinew::{GpuBackend, Layer, Mat3x4Rows};

use super::common::{self, Rng};
use super::fixtures::{all_assets, chain_rig, gpu, load, random_layers};
use super::oracle::{assert_bounds_match, assert_transform_close, cpu_evaluate, pack, palette_len};

#[test]
fn gpu_aabb_contains_every_skinned_vertex() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(5);
    for path in all_assets() {
        let rigs = load(&path);
        if rigs.iter().all(|r| r.meshes.is_empty()) {
            continue;
        }
        let mut items = Vec::new();
        for (r, rig) in rigs.iter().enumerate() {
            if rig.meshes.is_empty() {
                continue;
            }
            items.push((r as u32, 0, rng.world(), Vec::new()));
            for clip in 0..rig.clips.clip_count() {
                let d = rig.clips.clips()[clip].duration;
                for t in [0.0, 0.37 * d, 0.8 * d] {
                    items.push((r as u32, 0, rng.world(), vec![Layer::clip(clip as u32, t)]));
                }
            }
        }
        let records = pack(&rigs, &items);
        let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
        let len = palette_len(&rigs, &records);
        backend.reserve_palette(len as u32).unwrap();
        backend.evaluate(&records).unwrap();
        // The vertices are skinned on the CPU, with the CPU evaluator's palette: the GPU box
        // must hold the oracle's mesh, not just its own.
        let (palette, _) = cpu_evaluate(&rigs, &[], &records);
        let bounds = backend.read_bounds(0..records.len()).unwrap();
        for (i, rec) in records.iter().enumerate() {
            let rig = &rigs[rec.rig as usize];
            let skin: Vec<Affine3A> = palette[rec.palette_offset as usize..][..rig.joint_count()]
                .iter()
                .map(Mat3x4Rows::to_affine)
                .collect();
            let b = bounds[i];
            for mesh in &rig.meshes {
                for (v, p) in mesh.positions.iter().enumerate() {
                    let p = Vec3::from(*p);
                    let mut q = Vec3::ZERO;
                    for k in 0..sinew::MAX_INFLUENCES {
                        let w = mesh.weights[v][k];
                        if w > 0.0 {
                            q += skin[mesh.joints[v][k] as usize].transform_point3(p) * w;
                        }
                    }
                    let tol = common::AABB_TOLERANCE * q.abs().max_element().max(1.0);
                    assert!(
                        b.contains(q, tol),
                        "{} record {i} mesh {} vertex {v} at {q} outside {b:?}",
                        path.display(),
                        mesh.name
                    );
                }
            }
        }
    }
}

#[test]
fn dispatch_count_does_not_grow_with_instance_count() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(6);
    let rigs = vec![chain_rig(3)];
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    let mut counts = Vec::new();
    for n in [1_000usize, 100_000] {
        let items: Vec<_> = (0..n)
            .map(|_| {
                let count = 1 + rng.below(2);
                let layers = random_layers(&rigs[0], &mut rng, 0, 0, count);
                (0u32, 0u32, rng.world(), layers)
            })
            .collect();
        let records = pack(&rigs, &items);
        backend.reserve_palette((3 * n) as u32).unwrap();
        let start = Instant::now();
        backend.evaluate(&records).unwrap();
        backend.wait().unwrap();
        eprintln!(
            "{n} instances of a 3-joint rig: {:.2?} (upload + dispatch + wait), {} dispatch(es), {:.1} bytes written per joint",
            start.elapsed(),
            backend.dispatches_last_frame(),
            backend.bytes_written_per_joint()
        );
        counts.push(backend.dispatches_last_frame());
        assert_eq!(backend.last_frame().joints, 3 * n as u64);
        let per_joint = backend.bytes_written_per_joint();
        assert!(
            (per_joint - (48.0 + 32.0 / 3.0)).abs() < 1e-9,
            "{per_joint}"
        );
        // Spot-check records spread over the whole grid (both grid dimensions at 100k).
        let chosen: Vec<usize> = (0..40).map(|k| k * (n - 1) / 39).collect();
        let read = backend.read_instances(&records, &chosen).unwrap();
        for got in read {
            let rec = &records[got.record];
            let mut models = vec![Affine3A::IDENTITY; 3];
            let mut palette = vec![Mat3x4Rows::IDENTITY; 3];
            let layers: Vec<Layer> = rec.layers_at(0.0).collect();
            let aabb = sinew::cpu::evaluate_pose(
                &rigs[0],
                &[],
                &layers,
                &rec.world.to_affine(),
                &mut models,
                &mut palette,
            );
            for (j, (g, c)) in got.palette.iter().zip(&palette).enumerate() {
                assert_transform_close(
                    &g.to_cols_array(),
                    &c.to_cols_array(),
                    &format!("{n} instances, record {} joint {j}", got.record),
                );
            }
            assert_bounds_match(
                &got.bounds,
                &aabb,
                &format!("{n} instances, record {}", got.record),
            );
        }
    }
    assert_eq!(
        counts[0], counts[1],
        "dispatches at 1,000 vs 100,000 instances"
    );
    assert_eq!(counts[0], 1);
}

//! GPU == CPU: the GPU pipeline against the CPU evaluator, its oracle, to the stated
//! tolerances.

use glam::Affine3A;
use sinew::{Aabb, CpuBackend, GpuBackend, InstanceRecord, JointMask, Layer, Mat3x4Rows, Rig};

use super::common;

/// Times worth sampling in a clip of length `d`: before the first key, on and between keys,
/// after the last.
pub(crate) fn sample_times(rig: &Rig, clip: usize) -> Vec<f32> {
    let d = rig.clips.clips()[clip].duration;
    let mut times = vec![
        -0.25 * d,
        0.0,
        0.07 * d,
        0.25 * d,
        d / 3.0,
        0.5 * d,
        0.61 * d,
        0.75 * d,
        0.93 * d,
        d,
        1.3 * d,
    ];
    // Exact key times of the first animated track.
    if let Some(desc) = rig.clips.tracks()[clip * rig.joint_count() * 3..]
        .iter()
        .take(rig.joint_count() * 3)
        .find(|t| t.time_offset != 0 && t.key_count > 2)
    {
        let t0 = desc.time_offset as usize;
        times.push(rig.clips.times()[t0 + 1]);
        times.push(rig.clips.times()[t0 + desc.key_count as usize - 2]);
    }
    times
}

/// Palette length covering every record.
pub(crate) fn palette_len(backend_rigs: &[Rig], records: &[InstanceRecord]) -> usize {
    records
        .iter()
        .map(|r| r.palette_offset as usize + backend_rigs[r.rig as usize].palette_entries())
        .max()
        .unwrap_or(0)
}

/// Records laid out one after the other in the palette.
pub(crate) fn pack(
    rigs: &[Rig],
    items: &[(u32, u32, Affine3A, Vec<Layer>)],
) -> Vec<InstanceRecord> {
    let mut offset = 0;
    items
        .iter()
        .map(|(rig, flags, world, layers)| {
            let mut rec = InstanceRecord::new(*rig, offset, world, layers).unwrap();
            rec.flags = *flags;
            offset += rigs[*rig as usize].palette_entries() as u32;
            rec
        })
        .collect()
}

/// Tolerance of element `i` of column-major `b`: [`common::MATRIX_TOLERANCE`] relative to the
/// largest magnitude in its column (a scaled axis, or the translation), at least 1.
///
/// GPU and CPU round differently (fused multiply-adds, quaternion product order), and a few ULP
/// in a local rotation move a joint 20 to 100 units down the chain by about 1e-5 of that
/// distance. An element that cancels to near zero beside entries of 50 cannot be held to 1e-4 of
/// its own size; it can be held to 1e-4 of its column's.
pub(crate) fn element_tolerance(b: &[f32; 16], i: usize) -> f32 {
    let column = &b[i / 4 * 4..i / 4 * 4 + 3];
    let scale = column.iter().fold(1.0f32, |m, v| m.max(v.abs()));
    common::MATRIX_TOLERANCE * scale
}

pub(crate) fn matrix_close(a: &[f32; 16], b: &[f32; 16]) -> bool {
    (0..16).all(|i| (a[i] - b[i]).abs() <= element_tolerance(b, i))
}

/// Asserts [`matrix_close`], printing both matrices and the offending element on failure.
pub(crate) fn assert_transform_close(a: &[f32; 16], b: &[f32; 16], what: &str) {
    for i in 0..16 {
        let tol = element_tolerance(b, i);
        assert!(
            (a[i] - b[i]).abs() <= tol,
            "{what}: element {i} differs by {} (tolerance {tol})\n  got      {a:?}\n  expected {b:?}",
            (a[i] - b[i]).abs()
        );
    }
}

/// Asserts that `gpu` contains `cpu` within the AABB tolerance and is close to it.
pub(crate) fn assert_bounds_match(gpu: &Aabb, cpu: &Aabb, what: &str) {
    if cpu.is_empty() {
        assert!(gpu.is_empty(), "{what}: CPU box is empty, GPU box {gpu:?}");
        return;
    }
    for i in 0..3 {
        let tol = |v: f32| common::AABB_TOLERANCE * v.abs().max(1.0);
        let ok = gpu.min[i] <= cpu.min[i] + tol(cpu.min[i])
            && gpu.max[i] >= cpu.max[i] - tol(cpu.max[i])
            && (gpu.min[i] - cpu.min[i]).abs() <= tol(cpu.min[i])
            && (gpu.max[i] - cpu.max[i]).abs() <= tol(cpu.max[i]);
        assert!(
            ok,
            "{what}: axis {i}\n  GPU {gpu:?}\n  CPU {cpu:?}\n  min diff {} max diff {}",
            gpu.min[i] - cpu.min[i],
            gpu.max[i] - cpu.max[i]
        );
    }
}

/// CPU palette and AABBs of `records` (in record order).
pub(crate) fn cpu_evaluate(
    rigs: &[Rig],
    masks: &[JointMask],
    records: &[InstanceRecord],
) -> (Vec<Mat3x4Rows>, Vec<Aabb>) {
    cpu_evaluate_at(rigs, masks, records, 0.0)
}

pub(crate) fn cpu_evaluate_at(
    rigs: &[Rig],
    masks: &[JointMask],
    records: &[InstanceRecord],
    now: f32,
) -> (Vec<Mat3x4Rows>, Vec<Aabb>) {
    // The CPU backend wants ascending palette offsets: evaluate a sorted copy.
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| records[i].palette_offset);
    let sorted: Vec<InstanceRecord> = order.iter().map(|&i| records[i]).collect();
    let mut palette = vec![Mat3x4Rows::IDENTITY; palette_len(rigs, records)];
    let mut sorted_bounds = vec![Aabb::EMPTY; records.len()];
    CpuBackend::new(rigs.to_vec(), masks.to_vec())
        .unwrap()
        .evaluate_at(now, &sorted, &mut palette, &mut sorted_bounds)
        .unwrap();
    let mut bounds = vec![Aabb::EMPTY; records.len()];
    for (k, &i) in order.iter().enumerate() {
        bounds[i] = sorted_bounds[k];
    }
    (palette, bounds)
}

/// Evaluates `records` on `backend` and on the CPU and asserts that every palette entry and
/// every AABB agree. `describe(i)` names record `i` in failures.
pub(crate) fn assert_backend_matches_cpu(
    backend: &mut GpuBackend,
    rigs: &[Rig],
    masks: &[JointMask],
    records: &[InstanceRecord],
    describe: &dyn Fn(usize) -> String,
) {
    let len = palette_len(rigs, records);
    backend.reserve_palette(len as u32).unwrap();
    backend.evaluate(records).unwrap();
    assert_evaluated_matches_cpu(backend, rigs, masks, records, 0.0, describe);
}

/// Compares what the backend evaluated last (the records `records`, slot `i` = record `i`, at
/// frame time `now`) with the CPU evaluator.
pub(crate) fn assert_evaluated_matches_cpu(
    backend: &mut GpuBackend,
    rigs: &[Rig],
    masks: &[JointMask],
    records: &[InstanceRecord],
    now: f32,
    describe: &dyn Fn(usize) -> String,
) {
    let len = palette_len(rigs, records);
    let gpu_palette = backend.read_palette(0..len as u32).unwrap();
    let gpu_bounds = backend.read_bounds(0..records.len()).unwrap();
    let (cpu_palette, cpu_bounds) = cpu_evaluate_at(rigs, masks, records, now);
    for (i, rec) in records.iter().enumerate() {
        let rig = &rigs[rec.rig as usize];
        let n = rig.joint_count();
        let start = rec.palette_offset as usize;
        for j in 0..n {
            let g = gpu_palette[start + j].to_cols_array();
            let c = cpu_palette[start + j].to_cols_array();
            if !matrix_close(&g, &c) {
                assert_transform_close(&g, &c, &format!("{} joint {j}", describe(i)));
            }
        }
        let block = start..start + rig.palette_entries();
        common::assert_vec_close(
            &sinew::cpu::morph_weights(rig, &gpu_palette[block.clone()]),
            &sinew::cpu::morph_weights(rig, &cpu_palette[block]),
            common::WEIGHT_TOLERANCE,
            &format!("{} morph weights", describe(i)),
        );
        assert_bounds_match(&gpu_bounds[i], &cpu_bounds[i], &describe(i));
    }
}

//! `CpuBackend`: the poses of `evaluate_pose` for every instance in any palette order, typed
//! errors for bad records and outputs, and the same bits for any thread count.

use glam::{Affine3A, Vec3};
use sinew::cpu::evaluate_pose;
use sinew::{
    Aabb, BlendMode, CpuBackend, EvalError, InstanceRecord, JointMask, Layer, Mat3x4Rows, Rig,
};

use super::common::{self, assert_matrix_close};
use super::fixtures::{mask_fixture, record, rz, skinned_fixture};

/// Rig 0: the skinned fixture (4 joints, 1 clip). Rig 1: the mask fixture (6 joints, 2 clips).
/// Mask 0: rig 1's subtree from Spine.
fn backend_fixture() -> CpuBackend {
    let skinned = Rig::from_skin(&skinned_fixture().asset, 0).unwrap();
    let masked = mask_fixture().node_rig();
    let mask = JointMask::from_subtrees(&masked.skeleton, &["Spine"]).unwrap();
    CpuBackend::new(vec![skinned, masked], vec![mask]).unwrap()
}

/// Evaluates 300 instances of both rigs (mixed times, layers, worlds, gaps between palette
/// ranges) through the backend, records in ascending palette order or in the permutation
/// `k ↦ 7k mod 300`, and compares each with `evaluate_pose`.
fn check_backend_against_evaluate_pose(permute: bool) {
    let mut backend = backend_fixture();
    let masks = [JointMask::from_subtrees(&backend.rigs()[1].skeleton, &["Spine"]).unwrap()];
    let mut instances = Vec::new();
    let mut inputs = Vec::new();
    let mut offset = 0u32;
    for i in 0..300u32 {
        let rig = if i % 3 == 1 { 1 } else { 0 };
        let t = (i as f32 * 0.137) % 2.2;
        let layers: Vec<Layer> = if rig == 0 {
            let mut l = vec![Layer::clip(0, t)];
            if i % 2 == 0 {
                l.push(Layer {
                    clip: 0,
                    time: 2.0 - t,
                    weight: 0.4,
                    mask: None,
                    mode: BlendMode::Additive,
                });
            }
            l
        } else {
            vec![
                Layer::clip(0, t),
                Layer {
                    clip: 1,
                    time: t,
                    weight: (i % 5) as f32 / 4.0,
                    mask: Some(0),
                    mode: BlendMode::Override,
                },
            ]
        };
        let world = Affine3A::from_rotation_translation(
            rz(f64::from(i) * 7.0),
            Vec3::new(i as f32, 0.0, -0.5 * i as f32),
        );
        instances.push(InstanceRecord::new(rig, offset, &world, &layers).unwrap());
        inputs.push((rig, offset, world, layers));
        // Gaps of 0 to 3 entries between instances.
        offset += backend.rigs()[rig as usize].joint_count() as u32 + i % 4;
    }
    if permute {
        let n = instances.len();
        let order: Vec<usize> = (0..n).map(|k| k * 7 % n).collect();
        instances = order.iter().map(|&k| instances[k]).collect();
        inputs = order.iter().map(|&k| inputs[k].clone()).collect();
    }
    let sentinel = Mat3x4Rows {
        rows: [[7.0; 4]; 3],
    };
    let mut palette = vec![sentinel; offset as usize];
    let mut aabbs = vec![Aabb::EMPTY; instances.len()];
    backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap();
    let mut covered = vec![false; palette.len()];
    for (i, (rig, offset, world, layers)) in inputs.iter().enumerate() {
        let r = &backend.rigs()[*rig as usize];
        let n = r.joint_count();
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut expected = vec![Mat3x4Rows::IDENTITY; n];
        let aabb = evaluate_pose(r, &masks, layers, world, &mut models, &mut expected);
        let start = *offset as usize;
        for j in 0..n {
            covered[start + j] = true;
            assert_matrix_close(
                &palette[start + j].to_cols_array(),
                &expected[j].to_cols_array(),
                &format!("instance {i} joint {j}"),
            );
        }
        assert_eq!(aabbs[i], aabb, "instance {i} AABB");
    }
    for (k, p) in palette.iter().enumerate() {
        if !covered[k] {
            assert_eq!(
                *p, sentinel,
                "palette entry {k} between instances was written"
            );
        }
    }
}

#[test]
fn backend_matches_evaluate_pose_for_every_instance() {
    check_backend_against_evaluate_pose(false);
}

#[test]
fn backend_accepts_records_in_any_palette_order() {
    check_backend_against_evaluate_pose(true);
}

/// Records naming what the backend lacks, or outputs of the wrong size: each case, on a fresh
/// backend, fails with exactly its error.
#[test]
fn backend_rejects_unknown_references_and_wrong_output_sizes() {
    let masked = Layer {
        mask: Some(3),
        ..Layer::clip(0, 0.0)
    };
    let cases = [
        (
            "an unknown rig",
            vec![record(2, 0, &[Layer::clip(0, 0.0)])],
            16,
            1,
            EvalError::NoSuchRig {
                rig: 2,
                rig_count: 2,
            },
        ),
        (
            "an unknown clip",
            vec![record(0, 0, &[Layer::clip(1, 0.0)])],
            16,
            1,
            EvalError::NoSuchClip {
                clip: 1,
                clip_count: 1,
            },
        ),
        (
            "an unknown mask",
            vec![record(1, 0, &[masked])],
            16,
            1,
            EvalError::NoSuchMask {
                mask: 3,
                mask_count: 1,
            },
        ),
        // Rig 0 has 4 joints: the first instance covers entries 0..4, the second starts at 2.
        (
            "overlapping palette ranges",
            vec![
                record(0, 0, &[Layer::clip(0, 0.0)]),
                record(0, 2, &[Layer::clip(0, 0.0)]),
            ],
            16,
            2,
            EvalError::PaletteOverlap {
                instance: 1,
                offset: 2,
            },
        ),
        (
            "a palette too small for the last instance",
            vec![
                record(0, 0, &[Layer::clip(0, 0.0)]),
                record(0, 4, &[Layer::clip(0, 0.0)]),
            ],
            7,
            2,
            EvalError::OutputSize {
                expected: 8,
                found: 7,
            },
        ),
        (
            "an AABB slice of the wrong length",
            vec![
                record(0, 0, &[Layer::clip(0, 0.0)]),
                record(0, 4, &[Layer::clip(0, 0.0)]),
            ],
            8,
            1,
            EvalError::OutputSize {
                expected: 2,
                found: 1,
            },
        ),
    ];
    for (what, instances, palette_len, aabb_len, expected) in cases {
        let mut backend = backend_fixture();
        let mut palette = vec![Mat3x4Rows::IDENTITY; palette_len];
        let mut aabbs = vec![Aabb::EMPTY; aabb_len];
        let err = backend
            .evaluate(&instances, &mut palette, &mut aabbs)
            .unwrap_err();
        assert_eq!(err, expected, "{what}");
    }
}

#[test]
fn backend_rejects_a_mask_of_another_skeleton() {
    // Mask 0 has rig 1's six joints; rig 0 has four.
    let mut backend = backend_fixture();
    let masked = Layer {
        mask: Some(0),
        ..Layer::clip(0, 0.0)
    };
    let instances = [record(0, 0, &[masked])];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 16];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert!(
        matches!(err, EvalError::NoSuchMask { mask: 0, .. }),
        "expected NoSuchMask for mask 0, got {err:?}"
    );
}

#[test]
fn backend_rejects_a_mask_with_a_nan_weight() {
    // Mask 1 fits rig 1 (six joints) but one weight is NaN: it would poison the pose.
    let mut backend = backend_fixture();
    let mut weights = vec![1.0; 6];
    weights[3] = f32::NAN;
    let bad = backend.add_mask(sinew::JointMask { weights });
    let masked = Layer {
        mask: Some(bad),
        ..Layer::clip(0, 0.0)
    };
    let instances = [record(1, 0, &[masked])];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 16];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert!(
        matches!(&err, EvalError::BadLayer { reason } if reason.contains(&format!("mask {bad}"))),
        "expected the NaN mask {bad} to be rejected, got {err:?}"
    );
}

#[test]
fn backend_rejects_a_non_finite_layer_time() {
    let mut backend = backend_fixture();
    let instances = [record(0, 0, &[Layer::clip(0, f32::NAN)])];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 4];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert!(
        matches!(err, EvalError::BadLayer { .. }),
        "expected BadLayer, got {err:?}"
    );
}

/// Evaluations of a mixed crowd in rayon pools of 1, 2 and 3 threads give the same palette and
/// boxes, bit for bit: chunks are cut from the instance order alone, never from the thread
/// count, and nothing one thread leaves behind reaches another's results.
#[test]
fn backend_results_are_bitwise_identical_for_any_thread_count() {
    let (rigs, masks, records, palette_len) = common::mixed_crowd(300);
    let mut backend = CpuBackend::new(rigs, masks).unwrap();
    common::assert_same_bits_for_any_thread_count(palette_len, records.len(), |palette, aabbs| {
        backend.evaluate_at(0.25, &records, palette, aabbs).unwrap();
    });
}

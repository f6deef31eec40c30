//! Many instances: full and partial lane groups, mixed rigs and clips, the detected and the
//! portable kernel, batches split across cores and any thread count, against the exact backend.

use super::layers::layer_cases;
use super::*;

/// Two rigs, interleaved, with every layer case, different clips per instance (lanes of one
/// group play different clips), root-motion flags, world transforms, a count that is not a
/// multiple of the lane count and palette offsets in scrambled order.
fn crowd() -> (Vec<Rig>, Vec<JointMask>, Vec<InstanceRecord>, usize) {
    let human = humanoid();
    let rig64 = rigs_of(&repo().join("assets/synthetic/rig64.glb")).remove(0);
    let mut masks = Vec::new();
    let cases = layer_cases(&human, &mut masks);
    let rigs = vec![human, rig64];
    let mut records = Vec::new();
    let mut offset = 0u32;
    let mut offsets = Vec::new();
    for i in 0..67usize {
        let rig = if i % 5 == 3 { 1 } else { 0 };
        let n = rigs[rig].joint_count() as u32;
        offsets.push((offset, rig));
        offset += n + (i % 3) as u32;
    }
    // Scramble which record gets which palette block.
    let mut perm: Vec<usize> = (0..offsets.len()).collect();
    let len = perm.len();
    for i in 0..len {
        perm.swap(i, (i * 7 + 3) % len);
    }
    for (i, &p) in perm.iter().enumerate() {
        let (off, rig) = offsets[p];
        let w = Affine3A::from_rotation_translation(
            Quat::from_rotation_y(i as f32 * 0.3),
            Vec3::new(i as f32, 0.0, -(i as f32)),
        );
        let layers = if rig == 0 {
            // Shift the clips and key times per instance: lanes of a group differ.
            let (_, base) = &cases[i % cases.len()];
            base.iter()
                .map(|l| Layer {
                    clip: (l.clip + i as u32) % 4,
                    time: l.time + (i % 4) as f32 / 30.0,
                    ..*l
                })
                .collect::<Vec<_>>()
        } else {
            vec![
                Layer::clip((i % 2) as u32, (i % 30) as f32 / 30.0),
                Layer {
                    weight: 0.3,
                    ..Layer::clip(1, (i % 45) as f32 / 30.0)
                },
            ]
        };
        let mut rec = InstanceRecord::new(rig as u32, off, &w, &layers).unwrap();
        if i % 4 == 1 {
            rec.flags = InstanceRecord::HOLD_ROOT_XZ | InstanceRecord::HOLD_ROOT_YAW;
        }
        records.push(rec);
    }
    (rigs, masks, records, offset as usize)
}

/// On both kernels: the one the CPU runs ([`FastKernel::detect`]) and the portable one.
#[test]
fn many_instances_match_the_exact_backend() {
    for portable in [false, true] {
        many_instances_match_the_exact_backend_on(portable);
    }
}

fn many_instances_match_the_exact_backend_on(portable: bool) {
    let (rigs, masks, records, palette_len) = crowd();
    let mut exact = CpuBackend::new(rigs.clone(), masks.clone()).unwrap();
    let mut fast = FastCpuBackend::from_exact(&exact, DEFAULT_RATE);
    if portable {
        fast.use_portable_kernel();
    }
    let mut pe = vec![Mat3x4Rows::IDENTITY; palette_len];
    let mut pf = vec![Mat3x4Rows::IDENTITY; palette_len];
    let mut ae = vec![Aabb::EMPTY; records.len()];
    let mut af = vec![Aabb::EMPTY; records.len()];
    exact.evaluate(&records, &mut pe, &mut ae).unwrap();
    fast.evaluate(&records, &mut pf, &mut af).unwrap();
    for (i, rec) in records.iter().enumerate() {
        let n = rigs[rec.rig as usize].joint_count();
        let r = rec.palette_offset as usize..rec.palette_offset as usize + n;
        let what = format!("instance {i} ({:?} kernel)", fast.kernel());
        assert_palettes_close(&pf[r.clone()], &pe[r.clone()], &what);
        assert_aabb_close(&af[i], &ae[i], 1e-4, &what);
        // The batch and the single-instance path agree (to rounding: an instance whose layer
        // replaces the pose takes the blending path when a lane beside it blends).
        let (_, one, aabb) = self::fast(&fast, rec);
        assert_palettes_close(&pf[r], &one, &format!("{what} alone"));
        assert_aabb_close(&af[i], &aabb, 1e-5, &format!("{what} alone"));
    }
    // Gaps between blocks are left alone.
    let used: usize = records
        .iter()
        .map(|r| rigs[r.rig as usize].joint_count())
        .sum();
    let untouched = pf.iter().filter(|m| **m == Mat3x4Rows::IDENTITY).count();
    assert!(untouched >= palette_len - used);
}

/// One rig, enough instances for full lane groups and a partial last one (two groups and
/// three), at times on the clips' keys: each lane of a group, not only the first few, matches
/// the exact backend, both when every lane has its own layer stack and clips and when the
/// lanes play the same clips at their own times (the path that interpolates a slot's channels
/// in one pass).
#[test]
fn full_and_partial_lane_groups_match_the_exact_backend() {
    let rig = humanoid();
    let mut masks = Vec::new();
    let cases = layer_cases(&rig, &mut masks);
    for same_clips in [false, true] {
        let records: Vec<InstanceRecord> = (0..2 * LANES + 3)
            .map(|i| {
                let (case, shift) = if same_clips {
                    (7, 0)
                } else {
                    ((i * 3 + 1) % cases.len(), i as u32)
                };
                let layers: Vec<Layer> = cases[case]
                    .1
                    .iter()
                    .map(|l| Layer {
                        clip: (l.clip + shift) % 4,
                        time: l.time + (i % 7) as f32 / 30.0,
                        ..*l
                    })
                    .collect();
                let w = Affine3A::from_translation(Vec3::new(i as f32, 0.0, 0.5 * i as f32));
                let offset = (i * rig.joint_count()) as u32;
                InstanceRecord::new(0, offset, &w, &layers).unwrap()
            })
            .collect();
        lane_groups_match_the_exact_backend(&rig, &masks, &records);
    }
}

/// Evaluates `records` on both backends and compares every instance's palette and box.
fn lane_groups_match_the_exact_backend(rig: &Rig, masks: &[JointMask], records: &[InstanceRecord]) {
    let n = rig.joint_count();
    let count = records.len();
    let mut exact = CpuBackend::new(vec![rig.clone()], masks.to_vec()).unwrap();
    let mut pe = vec![Mat3x4Rows::IDENTITY; count * n];
    let mut ae = vec![Aabb::EMPTY; count];
    exact.evaluate(records, &mut pe, &mut ae).unwrap();
    for portable in [false, true] {
        let mut fast = FastCpuBackend::from_exact(&exact, DEFAULT_RATE);
        if portable {
            fast.use_portable_kernel();
        }
        let mut pf = vec![Mat3x4Rows::IDENTITY; count * n];
        let mut af = vec![Aabb::EMPTY; count];
        fast.evaluate(records, &mut pf, &mut af).unwrap();
        for i in 0..count {
            let r = i * n..(i + 1) * n;
            let what = format!(
                "instance {i} (lane {} of its group, {:?} kernel)",
                i % LANES,
                fast.kernel()
            );
            assert_palettes_close(&pf[r.clone()], &pe[r.clone()], &what);
            assert_aabb_close(&af[i], &ae[i], 1e-4, &what);
        }
    }
}

/// The backend runs the kernel the CPU supports, and where that is the AVX2 and FMA kernel it
/// is a different code path from the portable one: fused multiply-adds round once, so some
/// palette bits differ (each within the tolerance, [`many_instances_match_the_exact_backend`]).
#[test]
fn the_detected_kernel_runs_and_differs_from_the_portable_one_by_rounding() {
    let (rigs, masks, records, palette_len) = crowd();
    let mut fast = FastCpuBackend::new(rigs, masks, DEFAULT_RATE).unwrap();
    assert_eq!(fast.kernel(), FastKernel::detect());
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        assert_eq!(fast.kernel(), FastKernel::Avx2Fma);
    }
    let mut detected = vec![Mat3x4Rows::IDENTITY; palette_len];
    let mut aabbs = vec![Aabb::EMPTY; records.len()];
    fast.evaluate(&records, &mut detected, &mut aabbs).unwrap();
    let mut portable = fast.clone();
    portable.use_portable_kernel();
    assert_eq!(portable.kernel(), FastKernel::Portable);
    let mut plain = vec![Mat3x4Rows::IDENTITY; palette_len];
    portable.evaluate(&records, &mut plain, &mut aabbs).unwrap();
    let differ = detected.iter().zip(&plain).filter(|(a, b)| a != b).count();
    if fast.kernel() == FastKernel::Portable {
        assert_eq!(differ, 0, "one kernel, the same bits");
    } else {
        assert!(differ > 0, "the {:?} kernel ran", fast.kernel());
    }
}

#[test]
fn large_batches_split_across_cores_match_the_single_instance_path() {
    let rig = rigs_of(&repo().join("assets/synthetic/rig64.glb")).remove(0);
    let n = rig.joint_count();
    let mut fast = FastCpuBackend::new(vec![rig], Vec::new(), DEFAULT_RATE).unwrap();
    let records: Vec<InstanceRecord> = (0..1001)
        .map(|i| {
            let t = (i as f32 * 0.618).fract();
            let layers = [
                Layer::clip(0, t),
                Layer {
                    weight: 0.3,
                    ..Layer::clip(1, t * 1.5)
                },
            ];
            InstanceRecord::new(0, (i * n) as u32, &Affine3A::IDENTITY, &layers).unwrap()
        })
        .collect();
    let mut palette = vec![Mat3x4Rows::IDENTITY; records.len() * n];
    let mut aabbs = vec![Aabb::EMPTY; records.len()];
    fast.evaluate(&records, &mut palette, &mut aabbs).unwrap();
    for (i, rec) in records.iter().enumerate().step_by(37) {
        let (_, one, aabb) = self::fast(&fast, rec);
        assert_eq!(&palette[i * n..(i + 1) * n], &one[..], "instance {i}");
        assert_eq!(aabbs[i], aabb, "instance {i}");
    }
}

/// Evaluations of a mixed crowd in rayon pools of 1, 2 and 3 threads give the same palette and
/// boxes, bit for bit: chunks and lane groups are cut from the instance order alone, never from
/// the thread count, and no thread's scratch reaches another's results.
#[test]
fn results_are_bitwise_identical_for_any_thread_count() {
    let (rigs, masks, records, palette_len) = common::mixed_crowd(300);
    let mut backend = FastCpuBackend::new(rigs, masks, DEFAULT_RATE).unwrap();
    common::assert_same_bits_for_any_thread_count(palette_len, records.len(), |palette, aabbs| {
        backend.evaluate_at(0.25, &records, palette, aabbs).unwrap();
    });
}

//! The IK stage of the fused kernel against its CPU twin: two-bone chains and aim constraints
//! at several weights, reachable and unreachable targets, under scaled and rotated worlds.

use glam::{Affine3A, Quat, Vec3};
use sinew::{
    AimConstraint, CpuBackend, GpuBackend, IkConstraint, IkTarget, InstanceRecord, Layer,
    Mat3x4Rows, Pole, Rig, TwoBoneIk,
};

use super::fixtures::gpu;
use super::oracle::{assert_bounds_match, assert_transform_close, matrix_close};
use sinew::Aabb;

fn ik_humanoid() -> Rig {
    let asset = sinew::import_file(super::common::repo().join("assets/humanoid.glb")).unwrap();
    let mut rig = sinew::bake_rigs(&asset).unwrap().remove(0);
    let j = |name: &str| rig.skeleton.find_joint(name).unwrap();
    let constraints = vec![
        IkConstraint::TwoBone(TwoBoneIk {
            root: j("LeftUpperArm"),
            mid: j("LeftForearm"),
            tip: j("LeftHand"),
        }),
        IkConstraint::TwoBone(TwoBoneIk {
            root: j("RightThigh"),
            mid: j("RightShin"),
            tip: j("RightFoot"),
        }),
        IkConstraint::Aim(AimConstraint {
            joint: j("Head"),
            aim_axis: Vec3::Z,
            up_axis: Vec3::Y,
            world_up: Vec3::Y,
            limit: Some(1.0),
        }),
    ];
    rig.set_ik(constraints).unwrap();
    rig
}

#[test]
fn ik_stage_matches_cpu() {
    let Some(ctx) = gpu() else { return };
    let rig = ik_humanoid();
    let block = rig.palette_entries();
    let poles = [
        Pole::Animated,
        Pole::Position(Vec3::new(0.0, 1.0, 3.0)),
        Pole::Direction(Vec3::new(1.0, 0.0, 0.0)),
    ];
    let weights = [0.0, 0.35, 1.0];
    let mut records = Vec::new();
    let mut targets = Vec::new();
    for i in 0..9usize {
        let world = Affine3A::from_scale_rotation_translation(
            Vec3::splat(0.8 + 0.1 * i as f32),
            Quat::from_rotation_y(0.4 * i as f32),
            Vec3::new(i as f32 * 2.0 - 8.0, 0.0, 1.5),
        );
        let layers = [Layer::clip((i % 3) as u32, 0.1 * i as f32)];
        records.push(InstanceRecord::new(0, (i * block) as u32, &world, &layers).unwrap());
        // Near, far (unreachable) and camera-like targets.
        let reach = [0.3, 5.0, 1.0][i % 3];
        let at = Vec3::from(world.translation) + Vec3::new(0.5, 1.2, 0.4) * reach;
        targets.push([
            IkTarget {
                target: at,
                pole: poles[i % 3],
                weight: weights[i / 3],
            },
            IkTarget {
                target: Vec3::from(world.translation) + Vec3::new(0.2, 0.3, 0.5),
                pole: poles[(i + 1) % 3],
                weight: weights[(i + 1) % 3],
            },
            IkTarget {
                target: Vec3::new(-3.0, 2.0, 9.0 - i as f32 * 2.0),
                pole: Pole::Animated,
                weight: weights[(i + 2) % 3],
            },
        ]);
    }
    let cpu_palette = assert_gpu_matches_cpu(ctx, &rig, &records, &targets);
    // The solved pose differs from the pose without IK where a weight is not zero (checked on
    // the CPU twin, which the GPU matches above).
    let mut plain = vec![Mat3x4Rows::IDENTITY; records.len() * block];
    let mut plain_bounds = vec![Aabb::EMPTY; records.len()];
    let mut no_ik = rig.clone();
    no_ik.set_ik(Vec::new()).unwrap();
    let plain_records: Vec<InstanceRecord> = records
        .iter()
        .enumerate()
        .map(|(i, r)| InstanceRecord {
            palette_offset: (i * no_ik.palette_entries()) as u32,
            ..*r
        })
        .collect();
    CpuBackend::new(vec![no_ik.clone()], Vec::new())
        .unwrap()
        .evaluate(&plain_records, &mut plain, &mut plain_bounds)
        .unwrap();
    let hand = rig.skeleton.find_joint("LeftHand").unwrap();
    let moved =
        |i: usize| cpu_palette[i * block + hand] != plain[i * no_ik.palette_entries() + hand];
    assert!(
        !moved(0) && !moved(1) && !moved(2),
        "weight 0 moved the hand"
    );
    assert!(moved(3) && moved(6), "weighted IK left the hand");
}

/// A rig with morph targets: its IK entries follow the morph weights in the block.
#[test]
fn ik_entries_after_morph_weights_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let path = super::common::repo().join("assets/synthetic/morph.glb");
    let asset = sinew::import_file(path).unwrap();
    let mut rig = sinew::bake_rigs(&asset)
        .unwrap()
        .into_iter()
        .find(|r| r.morph.palette_entries() > 0)
        .unwrap();
    let last = rig.joint_count() - 1;
    rig.set_ik(vec![IkConstraint::Aim(AimConstraint {
        joint: last,
        aim_axis: Vec3::X,
        up_axis: Vec3::Y,
        world_up: Vec3::Y,
        limit: None,
    })])
    .unwrap();
    assert!(rig.ik_entry_offset() > rig.joint_count());
    let block = rig.palette_entries();
    let mut records = Vec::new();
    let mut targets = Vec::new();
    for i in 0..4usize {
        let world = Affine3A::from_translation(Vec3::new(i as f32, 0.0, 0.0));
        let layers = [Layer::clip(0, 0.2 * i as f32)];
        records.push(InstanceRecord::new(0, (i * block) as u32, &world, &layers).unwrap());
        targets.push([IkTarget {
            weight: [1.0, 0.5, 0.0, 1.0][i],
            ..IkTarget::at(Vec3::new(-2.0, 3.0, 1.0 + i as f32))
        }]);
    }
    let cpu = assert_gpu_matches_cpu(ctx, &rig, &records, &targets);
    let aimed = cpu[last].to_affine().transform_vector3(Vec3::X).normalize();
    let want = (Vec3::new(-2.0, 3.0, 1.0) - Vec3::from(cpu_model(&rig, &cpu, last).translation))
        .normalize();
    assert!(
        aimed.dot(want) > 1.0 - super::common::IK_TOLERANCE,
        "{aimed} vs {want}"
    );
}

/// Model matrix of `joint` from its palette entry in the first block of `palette`.
fn cpu_model(rig: &Rig, palette: &[Mat3x4Rows], joint: usize) -> Affine3A {
    palette[joint].to_affine() * rig.skeleton.inverse_binds()[joint].inverse()
}

#[test]
fn gpu_refuses_ik_targets_that_do_not_fit() {
    let Some(ctx) = gpu() else { return };
    let rig = ik_humanoid();
    let mut backend = GpuBackend::new(ctx, std::slice::from_ref(&rig), &[]).unwrap();
    backend
        .reserve_palette(rig.palette_entries() as u32)
        .unwrap();
    let record = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
    let err = backend
        .set_ik_targets(&record, &[IkTarget::OFF])
        .unwrap_err();
    assert!(
        matches!(
            err,
            sinew::GpuError::Eval(sinew::EvalError::Ik(sinew::IkError::TargetCount {
                expected: 3,
                found: 1,
                ..
            }))
        ),
        "{err}"
    );
    let bad = IkTarget {
        weight: -0.5,
        ..IkTarget::OFF
    };
    let err = backend
        .set_ik_targets(&record, &[IkTarget::OFF, bad, IkTarget::OFF])
        .unwrap_err();
    assert!(
        matches!(
            err,
            sinew::GpuError::Eval(sinew::EvalError::Ik(sinew::IkError::BadTarget {
                constraint: 1,
                ..
            }))
        ),
        "{err}"
    );
    let far = InstanceRecord {
        palette_offset: 1 << 20,
        ..record
    };
    assert!(backend.set_ik_targets(&far, &[IkTarget::OFF; 3]).is_err());
}

/// Evaluates `records` (instances of `rig`, each with its `targets`) on the GPU and on the
/// CPU, asserts that joint entries, IK entries and boxes agree, and returns the CPU palette.
fn assert_gpu_matches_cpu<const K: usize>(
    ctx: &sinew::GpuContext,
    rig: &Rig,
    records: &[InstanceRecord],
    targets: &[[IkTarget; K]],
) -> Vec<Mat3x4Rows> {
    let rigs = vec![rig.clone()];
    let block = rig.palette_entries();
    let len = records.len() * block;
    let mut cpu_palette = vec![Mat3x4Rows::IDENTITY; len];
    for (rec, t) in records.iter().zip(targets) {
        let start = rec.palette_offset as usize + rig.ik_entry_offset();
        for (k, target) in t.iter().enumerate() {
            cpu_palette[start + k] = target.to_entry();
        }
    }
    let mut cpu_bounds = vec![Aabb::EMPTY; records.len()];
    CpuBackend::new(rigs.clone(), Vec::new())
        .unwrap()
        .evaluate(records, &mut cpu_palette, &mut cpu_bounds)
        .unwrap();

    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend.reserve_palette(len as u32).unwrap();
    for (rec, t) in records.iter().zip(targets) {
        backend.set_ik_targets(rec, t).unwrap();
    }
    backend.evaluate(records).unwrap();
    let gpu_palette = backend.read_palette(0..len as u32).unwrap();
    let gpu_bounds = backend.read_bounds(0..records.len()).unwrap();
    for (i, rec) in records.iter().enumerate() {
        let start = rec.palette_offset as usize;
        for j in 0..rig.joint_count() {
            let g = gpu_palette[start + j].to_cols_array();
            let c = cpu_palette[start + j].to_cols_array();
            if !matrix_close(&g, &c) {
                assert_transform_close(&g, &c, &format!("instance {i} joint {j}"));
            }
        }
        // The IK entries are inputs: the kernel leaves them as written.
        let ik = start + rig.ik_entry_offset()..start + block;
        assert_eq!(
            gpu_palette[ik.clone()],
            cpu_palette[ik],
            "instance {i} IK entries"
        );
        assert_bounds_match(&gpu_bounds[i], &cpu_bounds[i], &format!("instance {i}"));
    }
    cpu_palette
}

//! The fast evaluator's IK stage against the exact one: two-bone chains and a look-at on the
//! humanoid, in lane groups where some lanes have active targets and some do not, through
//! `evaluate_at` and `evaluate_one`.

use glam::{Affine3A, Quat, Vec3};
use sinew::{
    Aabb, AimConstraint, CpuBackend, FastCpuBackend, IkConstraint, IkTarget, InstanceRecord, Layer,
    Mat3x4Rows, Pole, Rig, TwoBoneIk,
};

use super::{Evaluated, assert_within_shipped_bound, humanoid, largest_box_difference, models_of};

/// The humanoid with a left-arm chain and a head look-at limited to 1.2 rad.
fn humanoid_with_ik() -> Rig {
    let mut rig = humanoid();
    let joint = |name: &str| rig.skeleton.find_joint(name).unwrap();
    let arm = IkConstraint::TwoBone(TwoBoneIk {
        root: joint("LeftUpperArm"),
        mid: joint("LeftForearm"),
        tip: joint("LeftHand"),
    });
    let head = IkConstraint::Aim(AimConstraint {
        joint: joint("Head"),
        aim_axis: Vec3::Z,
        up_axis: Vec3::Y,
        world_up: Vec3::Y,
        limit: Some(1.2),
    });
    rig.set_ik(vec![arm, head]).unwrap();
    rig
}

/// Twelve instances (a full group and a partial one) at different times and places; every
/// third one has no active target (both weights 0), the others reach for points around them.
fn instances(rig: &Rig) -> (Vec<InstanceRecord>, Vec<Mat3x4Rows>) {
    let entries = rig.palette_entries();
    let mut palette = vec![Mat3x4Rows::IDENTITY; entries * 12];
    let records = (0..12usize)
        .map(|i| {
            let world = Affine3A::from_rotation_translation(
                Quat::from_rotation_y(0.4 * i as f32),
                Vec3::new(1.5 * i as f32, 0.0, -0.5 * i as f32),
            );
            let layers = [Layer::clip(1 + (i % 2) as u32, 0.13 * i as f32)];
            let record = InstanceRecord::new(0, (i * entries) as u32, &world, &layers).unwrap();
            let weight = if i % 3 == 2 {
                0.0
            } else {
                0.5 + 0.05 * i as f32
            };
            let origin = world.translation;
            let targets = [
                IkTarget {
                    target: Vec3::from(origin) + Vec3::new(0.4, 1.1, 0.3),
                    pole: Pole::Direction(Vec3::NEG_Z),
                    weight,
                },
                IkTarget {
                    weight,
                    ..IkTarget::at(Vec3::from(origin) + Vec3::new(-1.0, 1.8, 2.0))
                },
            ];
            let at = i * entries + rig.ik_entry_offset();
            for (k, t) in targets.iter().enumerate() {
                palette[at + k] = t.to_entry();
            }
            record
        })
        .collect();
    (records, palette)
}

#[test]
fn fast_ik_agrees_with_the_exact_solver_within_the_error_bound() {
    let rig = humanoid_with_ik();
    let (records, inputs) = instances(&rig);
    let mut exact = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
    let mut fast = FastCpuBackend::new(vec![rig.clone()], Vec::new(), 30.0).unwrap();
    let (mut exact_palette, mut fast_palette) = (inputs.clone(), inputs.clone());
    let mut exact_boxes = vec![Aabb::EMPTY; records.len()];
    let mut fast_boxes = exact_boxes.clone();
    exact
        .evaluate(&records, &mut exact_palette, &mut exact_boxes)
        .unwrap();
    fast.evaluate(&records, &mut fast_palette, &mut fast_boxes)
        .unwrap();

    // Without IK, for the lanes whose targets are on: the stage must have turned something.
    let mut plain = rig.clone();
    plain.set_ik(Vec::new()).unwrap();
    let mut untouched = FastCpuBackend::new(vec![plain], Vec::new(), 30.0).unwrap();
    let entries = rig.palette_entries();
    // The plain rig's blocks are shorter: laid out at the same offsets, IK entries unused.
    let mut plain_palette = vec![Mat3x4Rows::IDENTITY; entries * records.len()];
    let mut plain_boxes = exact_boxes.clone();
    untouched
        .evaluate(&records, &mut plain_palette, &mut plain_boxes)
        .unwrap();

    let exact = Evaluated {
        palette: &exact_palette,
        boxes: &exact_boxes,
    };
    let fast_models = assert_within_shipped_bound(
        &rig,
        exact,
        Evaluated {
            palette: &fast_palette,
            boxes: &fast_boxes,
        },
    );
    for (k, f) in fast_models.iter().enumerate() {
        let p = models_of(&rig, &plain_palette, k);
        let turned = (0..rig.joint_count())
            .map(|j| (Vec3::from(p[j].translation) - Vec3::from(f[j].translation)).length())
            .fold(0.0, f32::max);
        if k % 3 == 2 {
            // No active target: the joint walk's result, bit for bit.
            let block = k * entries..k * entries + rig.joint_count();
            assert_eq!(
                fast_palette[block.clone()],
                plain_palette[block],
                "instance {k}"
            );
            assert_eq!(fast_boxes[k], plain_boxes[k], "instance {k}");
        } else {
            assert!(turned > 0.01, "instance {k}: IK moved joints by {turned} m");
        }
    }
}

#[test]
fn evaluate_one_returns_the_solved_models_and_box() {
    let rig = humanoid_with_ik();
    let (records, inputs) = instances(&rig);
    let fast = FastCpuBackend::new(vec![rig.clone()], Vec::new(), 30.0).unwrap();
    let mut all = inputs.clone();
    let mut boxes = vec![Aabb::EMPTY; records.len()];
    fast.clone()
        .evaluate(&records, &mut all, &mut boxes)
        .unwrap();
    let entries = rig.palette_entries();
    for k in [0, 1, 2, 9] {
        let mut block = inputs[k * entries..(k + 1) * entries].to_vec();
        let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
        let aabb = fast
            .evaluate_one(&records[k], &mut models, &mut block)
            .unwrap();
        // Alone in its group the instance may take another sampling path: equal to rounding.
        let box_error = largest_box_difference(&aabb, &boxes[k]);
        assert!(box_error < 1e-5, "instance {k}: box {box_error}");
        let solved = models_of(&rig, &block, 0);
        let from_group = models_of(&rig, &all, k);
        for (j, ((m, s), g)) in models.iter().zip(&solved).zip(&from_group).enumerate() {
            let d = (Vec3::from(m.translation) - Vec3::from(s.translation)).length();
            assert!(
                d < 1e-5,
                "instance {k} joint {j}: models and palette differ by {d}"
            );
            let d = (Vec3::from(m.translation) - Vec3::from(g.translation)).length();
            assert!(
                d < 1e-5,
                "instance {k} joint {j}: alone and in a group differ by {d}"
            );
        }
    }
}

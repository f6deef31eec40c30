//! IK against analytic solutions: two-bone chains (reach, pole plane, clamping, bone lengths,
//! weight 0) and aim constraints, on the humanoid's left arm and head.

use glam::{Affine3A, Vec3};
use sinew::cpu::evaluate_pose;
use sinew::{AimConstraint, IkConstraint, IkTarget, Layer, Mat3x4Rows, Pole, Rig, TwoBoneIk};

use super::common::rigs::humanoid;
use super::common::{self, IK_TOLERANCE};

fn joint(rig: &Rig, name: &str) -> usize {
    rig.skeleton.find_joint(name).unwrap()
}

fn arm(rig: &Rig) -> TwoBoneIk {
    TwoBoneIk {
        root: joint(rig, "LeftUpperArm"),
        mid: joint(rig, "LeftForearm"),
        tip: joint(rig, "LeftHand"),
    }
}

/// Model matrices and palette of `rig` playing clip 1 at 0.3 s under `world`, with `targets`
/// in the IK entries.
fn pose(rig: &Rig, world: &Affine3A, targets: &[IkTarget]) -> (Vec<Affine3A>, Vec<Mat3x4Rows>) {
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    for (k, t) in targets.iter().enumerate() {
        palette[rig.ik_entry_offset() + k] = t.to_entry();
    }
    evaluate_pose(
        rig,
        &[],
        &[Layer::clip(1, 0.3)],
        world,
        &mut models,
        &mut palette,
    );
    (models, palette)
}

fn at(m: &Affine3A) -> Vec3 {
    Vec3::from(m.translation)
}

fn world() -> Affine3A {
    Affine3A::from_rotation_translation(glam::Quat::from_rotation_y(0.7), Vec3::new(3.0, 0.0, -2.0))
}

#[test]
fn two_bone_tip_reaches_the_target_in_the_pole_plane_keeping_bone_lengths() {
    let mut rig = humanoid();
    let chain = arm(&rig);
    let (before, _) = pose(&rig, &world(), &[]);
    rig.set_ik(vec![IkConstraint::TwoBone(chain)]).unwrap();
    let (a, b, c) = (
        at(&before[chain.root]),
        at(&before[chain.mid]),
        at(&before[chain.tip]),
    );
    let (l1, l2) = ((b - a).length(), (c - b).length());
    let target = a + Vec3::new(0.3, -0.5, 0.6).normalize() * (0.8 * (l1 + l2));
    let pole = a + Vec3::new(0.0, 0.0, -1.0);
    let goal = IkTarget {
        target,
        pole: Pole::Position(pole),
        weight: 1.0,
    };
    let (after, _) = pose(&rig, &world(), &[goal]);
    let (a2, b2, c2) = (
        at(&after[chain.root]),
        at(&after[chain.mid]),
        at(&after[chain.tip]),
    );
    assert!((a2 - a).length() < IK_TOLERANCE, "the root stays");
    assert!(
        (c2 - target).length() < IK_TOLERANCE,
        "tip {c2} misses {target}"
    );
    assert!(
        ((b2 - a2).length() - l1).abs() < IK_TOLERANCE,
        "upper bone length"
    );
    assert!(
        ((c2 - b2).length() - l2).abs() < IK_TOLERANCE,
        "lower bone length"
    );
    let normal = (target - a).cross(pole - a).normalize();
    assert!(
        (b2 - a).dot(normal).abs() < IK_TOLERANCE,
        "mid joint off the pole plane"
    );
    let dir = (target - a).normalize();
    let side = (pole - a) - dir * (pole - a).dot(dir);
    assert!((b2 - a).dot(side) > 0.0, "the chain bends toward the pole");
    // A child of the tip follows it rigidly.
    let finger = joint(&rig, "LeftHandIndex1");
    let rel_before = before[chain.tip].inverse() * before[finger];
    let rel_after = after[chain.tip].inverse() * after[finger];
    common::assert_matrix_close(
        &glam::Mat4::from(rel_before).to_cols_array(),
        &glam::Mat4::from(rel_after).to_cols_array(),
        "finger relative to the hand",
    );
    // Joints outside the chain keep their pose.
    let other = joint(&rig, "RightHand");
    assert_eq!(before[other], after[other]);
}

#[test]
fn two_bone_unreachable_target_straightens_the_chain_toward_it() {
    let mut rig = humanoid();
    let chain = arm(&rig);
    let (before, _) = pose(&rig, &world(), &[]);
    rig.set_ik(vec![IkConstraint::TwoBone(chain)]).unwrap();
    let (a, b, c) = (
        at(&before[chain.root]),
        at(&before[chain.mid]),
        at(&before[chain.tip]),
    );
    let (l1, l2) = ((b - a).length(), (c - b).length());
    let dir = Vec3::new(-0.2, 0.9, 0.4).normalize();
    for pole in [
        Pole::Animated,
        Pole::Direction(Vec3::Z),
        Pole::Position(a + dir),
    ] {
        let goal = IkTarget {
            target: a + dir * 10.0,
            pole,
            weight: 1.0,
        };
        let (after, _) = pose(&rig, &world(), &[goal]);
        let (b2, c2) = (at(&after[chain.mid]), at(&after[chain.tip]));
        assert!(b2.is_finite() && c2.is_finite(), "{pole:?}: NaN");
        assert!(
            (b2 - (a + dir * l1)).length() < IK_TOLERANCE,
            "{pole:?}: mid {b2}"
        );
        assert!(
            (c2 - (a + dir * (l1 + l2))).length() < IK_TOLERANCE,
            "{pole:?}: tip {c2}"
        );
    }
}

#[test]
fn weight_zero_gives_the_pose_without_ik_bit_for_bit() {
    let plain = humanoid();
    let mut rig = plain.clone();
    let head = joint(&rig, "Head");
    rig.set_ik(vec![
        IkConstraint::TwoBone(arm(&rig)),
        IkConstraint::Aim(AimConstraint {
            joint: head,
            aim_axis: Vec3::Z,
            up_axis: Vec3::Y,
            world_up: Vec3::Y,
            limit: None,
        }),
    ])
    .unwrap();
    let off = IkTarget {
        weight: 0.0,
        ..IkTarget::at(Vec3::new(1.0, 1.0, 1.0))
    };
    let (_, without) = pose(&plain, &world(), &[]);
    let (_, with) = pose(&rig, &world(), &[off, off]);
    let n = plain.palette_entries();
    let bits = |p: &[Mat3x4Rows]| -> Vec<u32> {
        p.iter()
            .flat_map(|m| m.rows.iter().flatten().map(|f| f.to_bits()))
            .collect()
    };
    assert_eq!(bits(&without[..n]), bits(&with[..n]));
    // At weight 1 the same constraints do move the pose.
    let (_, on) = pose(&rig, &world(), &[IkTarget::at(Vec3::new(1.0, 1.0, 1.0)); 2]);
    assert_ne!(bits(&without[..n]), bits(&on[..n]));
}

#[test]
fn half_weight_moves_the_tip_part_way() {
    let mut rig = humanoid();
    let chain = arm(&rig);
    let (before, _) = pose(&rig, &world(), &[]);
    rig.set_ik(vec![IkConstraint::TwoBone(chain)]).unwrap();
    let a = at(&before[chain.root]);
    let target = a + Vec3::new(0.0, -1.0, 0.0) * 0.3;
    let half = IkTarget {
        weight: 0.5,
        ..IkTarget::at(target)
    };
    let (after, _) = pose(&rig, &world(), &[half]);
    let c = at(&before[chain.tip]);
    let c2 = at(&after[chain.tip]);
    let full = (c - target).length();
    let now = (c2 - target).length();
    assert!(now < full - 1e-3 && now > IK_TOLERANCE, "{now} of {full}");
}

#[test]
fn aim_axis_points_at_the_target_and_its_children_follow() {
    let mut rig = humanoid();
    let head = joint(&rig, "Head");
    let axis = Vec3::new(0.0, 0.2, 1.0).normalize();
    rig.set_ik(vec![IkConstraint::Aim(AimConstraint {
        joint: head,
        aim_axis: axis,
        up_axis: Vec3::Y,
        world_up: Vec3::Y,
        limit: None,
    })])
    .unwrap();
    let target = Vec3::new(-4.0, 3.0, 5.0);
    let (before, _) = pose(&rig, &world(), &[]);
    let (after, _) = pose(&rig, &world(), &[IkTarget::at(target)]);
    let m = &after[head];
    let aimed = m.transform_vector3(axis).normalize();
    let want = (target - at(m)).normalize();
    assert!(
        aimed.dot(want) > 1.0 - IK_TOLERANCE,
        "aim {aimed} vs {want}"
    );
    assert!(
        (at(m) - at(&before[head])).length() < IK_TOLERANCE,
        "the joint stays put"
    );
    // The up axis leans toward world up: it lies in the plane of the aim and world up.
    let up = m.transform_vector3(Vec3::Y).normalize();
    assert!(up.dot(want.cross(Vec3::Y).normalize()).abs() < IK_TOLERANCE);
    assert!(up.dot(Vec3::Y) > 0.0);
    let eye = joint(&rig, "LeftEye");
    let rel_before = before[head].inverse() * before[eye];
    let rel_after = after[head].inverse() * after[eye];
    common::assert_matrix_close(
        &glam::Mat4::from(rel_before).to_cols_array(),
        &glam::Mat4::from(rel_after).to_cols_array(),
        "eye relative to the head",
    );
}

#[test]
fn aim_limit_caps_the_turn() {
    let mut rig = humanoid();
    let head = joint(&rig, "Head");
    let limit = 0.5;
    rig.set_ik(vec![IkConstraint::Aim(AimConstraint {
        joint: head,
        aim_axis: Vec3::Z,
        up_axis: Vec3::Y,
        world_up: Vec3::Y,
        limit: Some(limit),
    })])
    .unwrap();
    let (before, _) = pose(&rig, &world(), &[]);
    let p = at(&before[head]);
    let forward = before[head].transform_vector3(Vec3::Z).normalize();
    // A target behind the head: the aim turns by exactly the limit toward it.
    let side = forward.cross(Vec3::Y).normalize();
    let target = p - forward * 2.0 + side;
    let (after, _) = pose(&rig, &world(), &[IkTarget::at(target)]);
    let aimed = after[head].transform_vector3(Vec3::Z).normalize();
    let turned = aimed.dot(forward).clamp(-1.0, 1.0).acos();
    assert!((turned - limit).abs() < 1e-3, "turned {turned}");
    let plane = forward.cross((target - p).normalize()).normalize();
    assert!(
        aimed.dot(plane).abs() < IK_TOLERANCE,
        "turned toward the target"
    );
}

#[test]
fn animator_targets_do_not_pass_to_the_next_owner_of_a_block() {
    use sinew::runtime::{Animated, Animator};
    let mut rig = humanoid();
    let head = joint(&rig, "Head");
    rig.set_ik(vec![IkConstraint::Aim(AimConstraint {
        joint: head,
        aim_axis: Vec3::Z,
        up_axis: Vec3::Y,
        world_up: Vec3::Y,
        limit: None,
    })])
    .unwrap();
    let ik_entry = rig.ik_entry_offset();
    let mut animator = Animator::new(vec![rig]).unwrap();
    let mut world = hecs::World::new();
    let first = world.spawn((Animated::new(0),));
    animator.update(&mut world, 0.1).unwrap();
    let offset = animator.record_of(&world, first).unwrap().palette_offset as usize;
    let target = IkTarget::at(Vec3::new(2.0, 1.0, 3.0));
    animator.set_ik_targets(&world, first, &[target]).unwrap();
    let pose = animator.evaluate_cpu().unwrap();
    assert_eq!(pose.palette[offset + ik_entry], target.to_entry());
    let turned = pose.palette[offset + head];
    world.despawn(first).unwrap();
    animator.update(&mut world, 0.1).unwrap();
    let second = world.spawn((Animated::new(0),));
    animator.update(&mut world, 0.1).unwrap();
    let reused = animator.record_of(&world, second).unwrap().palette_offset as usize;
    assert_eq!(reused, offset, "the block is handed on");
    let pose = animator.evaluate_cpu().unwrap();
    assert_eq!(
        pose.palette[offset + ik_entry].rows[0][3],
        0.0,
        "the targets were cleared"
    );
    assert_ne!(pose.palette[offset + head], turned);
}

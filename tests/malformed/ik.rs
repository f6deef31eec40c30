//! IK constraints and targets that do not fit a rig: typed errors that name the rig, the
//! constraint and the reason, never a panic.

use glam::Vec3;
use sinew::runtime::{Animated, Animator, RuntimeError};
use sinew::{
    AimConstraint, CpuBackend, EvalError, IkConstraint, IkError, IkTarget, Pole, Rig, RigIk,
    TwoBoneIk,
};

use super::constructors::{asset, returns};

/// The two-joint rig of [`asset`]: joint 0 `root`, joint 1 `child`.
fn rig() -> Rig {
    Rig::from_skin(&asset(), 0).unwrap()
}

fn aim(joint: usize) -> AimConstraint {
    AimConstraint {
        joint,
        aim_axis: Vec3::Z,
        up_axis: Vec3::Y,
        world_up: Vec3::Y,
        limit: None,
    }
}

/// A named edit of an aim constraint.
type Case = (&'static str, fn(&mut AimConstraint));

fn ik_error(case: &str, constraints: Vec<IkConstraint>) -> IkError {
    let name = case.to_string();
    let err = returns(case, move || rig().set_ik(constraints))
        .expect_err(&format!("case {name}: expected an error"));
    assert!(
        err.to_string().contains(&rig().name),
        "case {case}: the error does not name the rig ({err})"
    );
    err
}

#[test]
fn ik_constraints_that_do_not_fit_the_skeleton_are_refused() {
    let err = ik_error("aim joint outside", vec![IkConstraint::Aim(aim(5))]);
    assert!(
        matches!(
            err,
            IkError::NoSuchJoint {
                joint: 5,
                joint_count: 2,
                ..
            }
        ),
        "{err}"
    );
    let chain = |root, mid, tip| IkConstraint::TwoBone(TwoBoneIk { root, mid, tip });
    let err = ik_error("chain joint outside", vec![chain(0, 1, 9)]);
    assert!(
        matches!(err, IkError::NoSuchJoint { joint: 9, .. }),
        "{err}"
    );
    let err = ik_error("chain upside down", vec![chain(1, 0, 1)]);
    assert!(
        matches!(&err, IkError::NotAChain { upper, lower, .. } if upper == "child" && lower == "root"),
        "{err}"
    );
    let err = ik_error("chain repeats a joint", vec![chain(0, 1, 1)]);
    assert!(
        matches!(err, IkError::NotAChain { constraint: 0, .. }),
        "{err}"
    );
}

#[test]
fn bad_aim_axes_and_limits_are_refused() {
    let with = |edit: fn(&mut AimConstraint)| {
        let mut a = aim(1);
        edit(&mut a);
        vec![IkConstraint::Aim(aim(0)), IkConstraint::Aim(a)]
    };
    let axis_cases: [Case; 4] = [
        ("zero aim axis", |a| a.aim_axis = Vec3::ZERO),
        ("NaN up axis", |a| a.up_axis = Vec3::new(f32::NAN, 1.0, 0.0)),
        ("zero world up", |a| a.world_up = Vec3::ZERO),
        ("up along the aim", |a| a.up_axis = Vec3::Z * -2.0),
    ];
    for (case, edit) in axis_cases {
        let err = ik_error(case, with(edit));
        assert!(
            matches!(err, IkError::BadAxis { constraint: 1, .. }),
            "{case}: {err}"
        );
    }
    let limit_cases: [Case; 3] = [
        ("zero limit", |a| a.limit = Some(0.0)),
        ("limit past a half turn", |a| a.limit = Some(4.0)),
        ("NaN limit", |a| a.limit = Some(f32::NAN)),
    ];
    for (case, edit) in limit_cases {
        let err = ik_error(case, with(edit));
        assert!(
            matches!(err, IkError::BadLimit { constraint: 1, .. }),
            "{case}: {err}"
        );
    }
    let err = ik_error("too many", vec![IkConstraint::Aim(aim(0)); 17]);
    assert!(matches!(err, IkError::TooMany { count: 17, .. }), "{err}");
}

#[test]
fn backend_refuses_constraints_assigned_from_another_skeleton() {
    let humanoid = {
        let path = super::common::repo().join("assets/humanoid.glb");
        let asset = sinew::import_file(path).unwrap();
        sinew::bake_rigs(&asset).unwrap().remove(0)
    };
    let mut big = humanoid.clone();
    big.set_ik(vec![IkConstraint::Aim(aim(40))]).unwrap();
    let mut small = rig();
    small.ik = big.ik.clone();
    let err = returns("foreign constraints", move || {
        CpuBackend::new(vec![small], Vec::new()).map(|_| ())
    })
    .unwrap_err();
    assert!(matches!(err, EvalError::InvalidRig { rig: 0, .. }), "{err}");
    assert_eq!(RigIk::default(), RigIk::NONE);
}

#[test]
fn ik_targets_that_do_not_fit_are_refused() {
    let mut rig = rig();
    rig.set_ik(vec![IkConstraint::Aim(aim(1))]).unwrap();
    let mut animator = Animator::new(vec![rig]).unwrap();
    let mut world = hecs::World::new();
    let entity = world.spawn((Animated::new(0),));
    let before = animator.set_ik_targets(&world, entity, &[IkTarget::at(Vec3::ONE)]);
    assert!(
        matches!(before, Err(RuntimeError::NoSuchEntity { .. })),
        "an entity before its first update: {before:?}"
    );
    animator.update(&mut world, 0.1).unwrap();
    let ik = |r: Result<(), RuntimeError>| match r {
        Err(RuntimeError::Eval(EvalError::Ik(e))) => e,
        other => panic!("expected an IK error, got {other:?}"),
    };
    let err = ik(animator.set_ik_targets(&world, entity, &[]));
    assert!(
        matches!(
            err,
            IkError::TargetCount {
                expected: 1,
                found: 0,
                ..
            }
        ),
        "{err}"
    );
    for bad in [
        IkTarget::at(Vec3::new(f32::INFINITY, 0.0, 0.0)),
        IkTarget {
            weight: 1.5,
            ..IkTarget::at(Vec3::ONE)
        },
        IkTarget {
            weight: f32::NAN,
            ..IkTarget::at(Vec3::ONE)
        },
        IkTarget {
            pole: Pole::Position(Vec3::NAN),
            ..IkTarget::at(Vec3::ONE)
        },
    ] {
        let err = ik(animator.set_ik_targets(&world, entity, &[bad]));
        assert!(
            matches!(err, IkError::BadTarget { constraint: 0, .. }),
            "{bad:?}: {err}"
        );
    }
    // Refused targets left the block as it was (weight 0); valid ones turn the child.
    let untouched = animator.evaluate_cpu().unwrap().palette.to_vec();
    animator
        .set_ik_targets(&world, entity, &[IkTarget::at(Vec3::new(1.0, 1.0, 1.0))])
        .unwrap();
    let turned = animator.evaluate_cpu().unwrap().palette.to_vec();
    assert_eq!(untouched[0], turned[0], "the root does not move");
    assert_ne!(untouched[1], turned[1], "the child turns toward the target");
}

//! The crowd's motion setup on its rig: the locomotion state machine and the head look-at.

use glam::Vec3;
use sinew::runtime::{
    Compare, Condition, ParameterDef, ParameterKind, StateMachineDef, TransitionDef, Value,
};
use sinew::{AimConstraint, IkConstraint, Rig};

/// The locomotion state machine over the rig's clips: idle / walk / run when it has clips with
/// those names, else its first three clips.
pub(super) fn locomotion(rig: &Rig) -> StateMachineDef {
    let names: Vec<String> = rig.clips.clips().iter().map(|c| c.name.clone()).collect();
    let pick = |wanted: &str, fallback: usize| {
        names
            .iter()
            .find(|n| n.eq_ignore_ascii_case(wanted))
            .cloned()
            .unwrap_or_else(|| names[fallback.min(names.len() - 1)].clone())
    };
    let (idle, walk, run) = (pick("idle", 0), pick("walk", 1), pick("run", 2));
    let speed = |op, v: f32| Condition::new("speed", op, Value::Float(v as f64));
    StateMachineDef::new("locomotion")
        .parameter(ParameterDef {
            name: "speed".into(),
            kind: ParameterKind::Float,
            default: Some(Value::Float(0.0)),
        })
        .clip_state("idle", &idle)
        .clip_state("walk", &walk)
        .clip_state("run", &run)
        .transition(
            TransitionDef::new("idle", "walk")
                .fade(0.3)
                .when(speed(Compare::Gt, 0.6)),
        )
        .transition(
            TransitionDef::new("walk", "run")
                .fade(0.3)
                .when(speed(Compare::Gt, 2.6)),
        )
        .transition(
            TransitionDef::new("run", "walk")
                .fade(0.3)
                .when(speed(Compare::Lt, 2.2)),
        )
        .transition(
            TransitionDef::new("walk", "idle")
                .fade(0.3)
                .when(speed(Compare::Lt, 0.4)),
        )
}

/// Furthest a head turns from its animated direction toward the camera (radians).
const LOOK_AT_LIMIT: f32 = 1.2;

/// A look-at constraint on the rig's head (the first joint whose name contains `Head` or
/// `head`, else `Neck` or `neck`): the axis that points along model +Z (the glTF front) at
/// rest turns toward the target, keeping the axis along model +Y at rest up. `None` for a rig
/// without such a joint.
pub(super) fn head_look_at(rig: &Rig) -> Option<IkConstraint> {
    let names = rig.skeleton.names();
    let find = |a: &str, b: &str| names.iter().position(|n| n.contains(a) || n.contains(b));
    let joint = find("Head", "head").or_else(|| find("Neck", "neck"))?;
    let mut models = vec![glam::Affine3A::IDENTITY; rig.joint_count()];
    sinew::cpu::local_to_model(
        &rig.skeleton,
        &glam::Affine3A::IDENTITY,
        rig.skeleton.rest_pose(),
        &mut models,
    );
    let to_local = models[joint].matrix3.inverse();
    let aim_axis = Vec3::from(to_local * glam::Vec3A::Z).try_normalize()?;
    let up_axis = Vec3::from(to_local * glam::Vec3A::Y).try_normalize()?;
    Some(IkConstraint::Aim(AimConstraint {
        joint,
        aim_axis,
        up_axis,
        world_up: Vec3::Y,
        limit: Some(LOOK_AT_LIMIT),
    }))
}

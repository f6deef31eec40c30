//! The crowd's motion setup on its rig: the locomotion state machine and the head look-at.

use glam::Vec3;
use sinew::runtime::StateMachineDef;
use sinew::{AimConstraint, IkConstraint, Rig};

/// The locomotion state machine over the rig's clips ([`sinew::runtime::locomotion`]).
pub(super) fn locomotion(rig: &Rig) -> StateMachineDef {
    let names: Vec<String> = rig.clips.clips().iter().map(|c| c.name.clone()).collect();
    sinew::runtime::locomotion(&names)
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

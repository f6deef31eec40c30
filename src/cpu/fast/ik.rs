//! The fast evaluator's IK stage: after a group's joint walk, each lane whose record has an
//! active target (an IK entry with a weight above 0) takes its model matrices from the group,
//! solves the rig's constraints with the exact evaluator's solver ([`crate::cpu::solve_ik`],
//! twin of `wgsl/ik.wgsl`), re-skins the joints the constraints can turn and recomputes its
//! animated box. Lanes without an active target (and rigs without constraints) cost nothing.

use std::mem::size_of;

use glam::Affine3A;

use super::evaluate::Scratch;
use crate::bake::{Aabb, Rig};
use crate::cpu::{animated_aabb, skin_joint, solve_ik};
use crate::ik::{IkConstraint, IkTarget};
use crate::math::Mat3x4Rows;

/// Whether any of the rig's constraints is on for these IK entries (weight above 0).
fn any_active(rig: &Rig, inputs: &[Mat3x4Rows]) -> bool {
    let constraints = rig.ik.constraints().len();
    inputs
        .iter()
        .take(constraints)
        .any(|entry| IkTarget::from_entry(entry).weight > 0.0)
}

/// The first joint a constraint of the rig can turn: every joint it turns is this one or
/// comes after it (parents precede children).
fn first_turned(rig: &Rig) -> usize {
    rig.ik
        .constraints()
        .iter()
        .map(|c| match c {
            IkConstraint::TwoBone(chain) => chain.root,
            IkConstraint::Aim(aim) => aim.joint,
        })
        .min()
        .unwrap_or(rig.joint_count())
}

/// Solves lane `lane` of the group just evaluated (`scratch`) for `rig` when its IK entries
/// `inputs` turn something: rewrites `palette` (the lane's joint entries) from the first joint
/// a constraint can turn on and returns the lane's solved model matrices, its new box and the
/// bytes read, or `None` (the lane is left as the joint walk wrote it).
pub(super) fn solve_lane<'s>(
    rig: &Rig,
    scratch: &'s mut Scratch,
    lane: usize,
    inputs: &[Mat3x4Rows],
    palette: &mut [Mat3x4Rows],
) -> Option<(&'s [Affine3A], Aabb, u64)> {
    if rig.ik.is_empty() || !any_active(rig, inputs) {
        return None;
    }
    let n = rig.joint_count();
    let models = scratch.lane_models(lane, n);
    solve_ik(rig, inputs, models);
    let first = first_turned(rig);
    let inverse_binds = rig.skeleton.inverse_binds();
    for j in first..n {
        palette[j] = skin_joint(&models[j], &inverse_binds[j]);
    }
    let aabb = animated_aabb(&rig.joint_bounds, models);
    // The IK entries and parents, the re-skinned joints' inverse binds and every joint's
    // bounds.
    let bytes = rig.ik.constraints().len() * size_of::<Mat3x4Rows>()
        + n * (size_of::<u16>() + size_of::<Aabb>())
        + (n - first) * size_of::<Affine3A>();
    Some((models, aabb, bytes as u64))
}

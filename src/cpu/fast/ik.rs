//! The fast evaluator's IK stage, inside the group kernel after the joint walk. The joints a
//! rig's constraints can turn (the union of their subtrees, [`FastIk::turned`]) are skinned and
//! bounded here rather than in the walk: each lane whose IK entries hold an active target (a
//! weight above 0) takes those joints' model matrices out of the group, is solved by the exact
//! evaluator's solver ([`crate::cpu::solve_constraints`], twin of `wgsl/ik.wgsl`) and written
//! back; then the turned joints of every lane are skinned and bounded with the walk's own
//! operations, so lanes without an active target get the walk's results bit for bit. A rig
//! without constraints has no turned joint and this stage does nothing.

use std::mem::size_of;

use glam::Affine3A;

use super::lanes::{F8, Isa, LANES};
use super::soa::Affine8;
use crate::baked::Rig;
use crate::baked::ik::{IkConstraint, IkTarget, in_subtree};
use crate::cpu::solve_constraints;
use crate::math::Mat3x4Rows;

/// A rig's IK constraints as the fast evaluator runs them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FastIk {
    constraints: Vec<IkConstraint>,
    parents: Vec<u16>,
    /// The joints some constraint can turn, ascending.
    turned: Vec<usize>,
    /// Per joint, whether it is turned (empty for a rig without constraints).
    is_turned: Vec<bool>,
}

impl FastIk {
    /// The constraints of `rig` and the joints they can turn.
    pub fn new(rig: &Rig) -> Self {
        let constraints = rig.ik.constraints().to_vec();
        if constraints.is_empty() {
            return Self::default();
        }
        let parents = rig.skeleton.parents().to_vec();
        let tops: Vec<usize> = constraints
            .iter()
            .map(|c| match c {
                IkConstraint::TwoBone(chain) => chain.root,
                IkConstraint::Aim(aim) => aim.joint,
            })
            .collect();
        let is_turned: Vec<bool> = (0..parents.len())
            .map(|j| tops.iter().any(|&top| in_subtree(&parents, j, top)))
            .collect();
        let turned = (0..parents.len()).filter(|&j| is_turned[j]).collect();
        Self {
            constraints,
            parents,
            turned,
            is_turned,
        }
    }

    /// Whether joint `j` is skinned and bounded by this stage rather than by the walk.
    #[inline(always)]
    pub(crate) fn defers(&self, j: usize) -> bool {
        self.is_turned.get(j).copied().unwrap_or(false)
    }

    /// The joints some constraint can turn, ascending.
    pub fn turned(&self) -> &[usize] {
        &self.turned
    }

    /// Whether these IK entries turn something (a constraint's weight above 0).
    fn active(&self, inputs: &[Mat3x4Rows]) -> bool {
        inputs
            .iter()
            .take(self.constraints.len())
            .any(|entry| IkTarget::from_entry(entry).weight > 0.0)
    }
}

/// What the stage reads and writes of a group after the walk.
pub(crate) struct IkGroup<'g, 'p> {
    pub ik: &'g FastIk,
    /// Each real lane's IK entries.
    pub inputs: &'g [&'g [Mat3x4Rows]; LANES],
    /// The group's model matrices, one per joint.
    pub models: &'g mut [Affine8],
    pub inverse_binds: &'g [Affine8],
    pub bounds: &'g [Option<([F8; 3], [F8; 3])>],
    /// Palette slices of the real lanes.
    pub palettes: &'g mut [&'p mut [Mat3x4Rows]],
}

/// Solves the lanes with an active target, then skins and bounds the turned joints of every
/// lane (growing `lo`..`hi`). `lane_models` is working memory. Returns the bytes read.
#[inline(always)]
pub(crate) fn solve_group<M: Isa>(
    group: IkGroup<'_, '_>,
    lane_models: &mut Vec<Affine3A>,
    lo: &mut [F8; 3],
    hi: &mut [F8; 3],
) -> u64 {
    let IkGroup {
        ik,
        inputs,
        models,
        inverse_binds,
        bounds,
        palettes,
    } = group;
    let mut bytes = 0;
    lane_models.resize(models.len(), Affine3A::IDENTITY);
    for (lane, inputs) in inputs.iter().enumerate().take(palettes.len()) {
        if !ik.active(inputs) {
            continue;
        }
        for &j in &ik.turned {
            lane_models[j] = models[j].lane(lane).to_affine();
        }
        solve_constraints(&ik.parents, &ik.constraints, inputs, lane_models);
        for &j in &ik.turned {
            models[j].set_lane(lane, &Mat3x4Rows::from_affine(&lane_models[j]));
        }
        // The lane's IK entries and the parents the solver walks.
        bytes +=
            ik.constraints.len() * size_of::<Mat3x4Rows>() + ik.parents.len() * size_of::<u16>();
    }
    for &j in &ik.turned {
        let mut skin = Affine8::default();
        models[j].mul_into::<M>(&inverse_binds[j], &mut skin);
        M::write_lanes(&skin.m, palettes, j);
        if let Some((center, extent)) = &bounds[j] {
            models[j].grow_aabb::<M>(center, extent, lo, hi);
        }
    }
    bytes as u64
}

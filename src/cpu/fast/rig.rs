//! [`FastRig`]: a rig baked for the fast evaluator once, at backend creation: its clips
//! resampled and its per-joint constants (rest pose, inverse binds, bounds, root-motion
//! frames, joint LOD prefixes, IK) splatted across the lanes.

use super::ik::FastIk;
use super::lanes::F8;
use super::reads::ClipReads;
use super::resampled::ResampledClips;
use super::soa::{Affine8, Sqt8, sqt_to_arrays};
use crate::baked::Rig;
use crate::cpu::RootFrame;
use crate::lod::LOD_LEVELS;
use crate::math::{Mat3x4Rows, Sqt};

/// Per-rig data of the fast evaluator: the resampled clips and the per-joint constants of the
/// rig, each already in every lane.
#[derive(Clone, Debug, PartialEq)]
pub struct FastRig {
    pub(crate) clips: ResampledClips,
    pub(crate) parents: Vec<u16>,
    pub(crate) rest: Vec<Sqt8>,
    pub(crate) rest_inv_scale: Vec<[F8; 3]>,
    pub(crate) inverse_binds: Vec<Affine8>,
    /// Joint-space vertex bounds as centre and half extent, `None` for joints without vertices.
    pub(crate) bounds: Vec<Option<([F8; 3], [F8; 3])>>,
    /// Per joint: its rest transform and its [`RootFrame`] as the root of root motion.
    pub(crate) root_holds: Vec<(Sqt, RootFrame)>,
    /// Per clip, what sampling it reads.
    pub(crate) reads: ClipReads,
    /// The IK constraints and the joints they can turn.
    pub(crate) ik: FastIk,
    /// Per joint LOD level, how many joints (a prefix) are sampled
    /// ([`crate::Skeleton::lod_sampled_joints`]); the others hold their rest transform.
    pub(crate) lod_sampled: [usize; LOD_LEVELS],
}

impl FastRig {
    /// Bakes `rig` for the fast evaluator, resampling its clips at `rate` frames per second
    /// (see [`ResampledClips::build`]).
    pub fn new(rig: &Rig, rate: f32) -> Self {
        let sk = &rig.skeleton;
        let clips = ResampledClips::build(&rig.clips, rate);
        Self {
            reads: ClipReads::new(&clips),
            clips,
            parents: sk.parents().to_vec(),
            rest: sk
                .rest_pose()
                .iter()
                .map(|s| Sqt8::splat(&sqt_to_arrays(s)))
                .collect(),
            rest_inv_scale: sk
                .rest_pose()
                .iter()
                .map(|s| [0, 1, 2].map(|i| F8::splat(1.0 / s.scale[i])))
                .collect(),
            inverse_binds: sk
                .inverse_binds()
                .iter()
                .map(|m| Affine8::splat(&Mat3x4Rows::from_affine(m)))
                .collect(),
            bounds: rig
                .joint_bounds
                .iter()
                .map(|b| {
                    (!b.is_empty()).then(|| {
                        let c = [0, 1, 2].map(|i| F8::splat((b.min[i] + b.max[i]) * 0.5));
                        let e = [0, 1, 2].map(|i| F8::splat((b.max[i] - b.min[i]) * 0.5));
                        (c, e)
                    })
                })
                .collect(),
            root_holds: sk
                .rest_pose()
                .iter()
                .copied()
                .zip(RootFrame::table(rig))
                .collect(),
            lod_sampled: std::array::from_fn(|level| sk.lod_sampled_joints(level as u32)),
            ik: FastIk::new(rig),
        }
    }

    /// The resampled clips.
    pub fn clips(&self) -> &ResampledClips {
        &self.clips
    }

    /// Number of joints.
    pub fn joint_count(&self) -> usize {
        self.parents.len()
    }
}

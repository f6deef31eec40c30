//! What [`super::FastCpuBackend`] reads of its own layout: the count behind
//! [`super::FastCpuBackend::bytes_read_per_joint`], summed per lane group from per-clip tables
//! (no counting inside the joint walk).
//!
//! A group of [`LANES`] lanes loads its per-joint constants, already in every lane, once for
//! all its instances, so they count once per group and are shared by its real instances (a
//! partial group pays the whole load); per-lane loads count for every lane, the spare lanes of
//! a partial group included, since the kernel samples them too.

use std::mem::size_of;

use super::lanes::{F4, F8, LANES};
use super::resampled::{CONSTANT, JointSlots, ResampledClips};
use super::rig::FastRig;
use super::soa::{Affine8, Sqt8};
use crate::cpu::RootFrame;
use crate::instance::InstanceRecord;
use crate::math::Sqt;

/// Bytes of one lane's mask weight.
const MASK_WEIGHT: u64 = size_of::<f32>() as u64;

/// Per clip of one rig, the bytes one layer slot reads sampling it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ClipReads {
    /// A slot whose lanes all play the clip, per group: every joint's channel table and
    /// pre-splatted constant channels, and each lane's two frame records.
    uniform: Vec<u64>,
    /// A slot whose lanes play different clips, per lane: every joint's channel table, one
    /// value per constant channel and two (the frame pair) per animated channel.
    mixed: Vec<u64>,
}

impl ClipReads {
    /// The tables of `clips`.
    pub(crate) fn new(clips: &ResampledClips) -> Self {
        let table = size_of::<JointSlots>() as u64;
        let value = size_of::<F4>() as u64;
        let lane_set = size_of::<F8>() as u64;
        let mut out = Self::default();
        for (c, clip) in clips.clips.iter().enumerate() {
            let (slots, _, _) = clips.joint_tables(c);
            let (mut uniform, mut mixed) = (0, 0);
            for js in slots {
                uniform += table;
                mixed += table;
                for (ch, &slot) in js.slot.iter().enumerate() {
                    let components = if ch == 1 { 4 } else { 3 };
                    if slot == CONSTANT {
                        uniform += components * lane_set;
                        mixed += value;
                    } else {
                        mixed += 2 * value;
                    }
                }
            }
            uniform += LANES as u64 * 2 * u64::from(clip.frame_stride) * value;
            out.uniform.push(uniform);
            out.mixed.push(mixed);
        }
        out
    }
}

/// What one group's evaluation read, given per visible layer slot whether its lanes all play
/// one clip and each lane's clip, and the group's other choices.
pub(crate) struct GroupReads<'a> {
    /// The group's rig.
    pub fast: &'a FastRig,
    /// Instances in the group (1..=LANES).
    pub real: usize,
    /// Whether the joint walk starts from the rest pose (no bottom slot replaces it).
    pub from_rest: bool,
    /// Lanes whose record holds root motion in place.
    pub holds: usize,
}

impl GroupReads<'_> {
    /// Bytes of the group's records and per-joint constants: per instance its record; per
    /// joint its parent, inverse bind, bounds (when it has vertices) and, when the walk starts
    /// from it, rest pose; per holding lane the root's rest and frame.
    pub(crate) fn base(&self) -> u64 {
        let n = self.fast.joint_count() as u64;
        let bounds = self.fast.bounds.iter().filter(|b| b.is_some()).count() as u64;
        let mut bytes = self.real as u64 * size_of::<InstanceRecord>() as u64
            + n * (size_of::<u16>() + size_of::<Affine8>()) as u64
            + bounds * 2 * size_of::<[F8; 3]>() as u64
            + self.holds as u64 * size_of::<(Sqt, RootFrame)>() as u64;
        if self.from_rest {
            bytes += n * size_of::<Sqt8>() as u64;
        }
        bytes
    }

    /// Bytes of one visible slot: its sampling (one clip for every lane when `uniform`, else
    /// `clips`, one per lane), every joint's lane mask weights when `masked`, and every joint's
    /// rest pose and inverse rest scale when some lane adds.
    pub(crate) fn slot(
        &self,
        uniform: bool,
        clips: &[u32; LANES],
        masked: bool,
        additive: bool,
    ) -> u64 {
        let reads = &self.fast.reads;
        let n = self.fast.joint_count() as u64;
        let mut bytes = if uniform {
            reads.uniform[clips[0] as usize]
        } else {
            clips.iter().map(|&c| reads.mixed[c as usize]).sum()
        };
        if masked {
            bytes += n * LANES as u64 * MASK_WEIGHT;
        }
        if additive {
            bytes += n * (size_of::<Sqt8>() + size_of::<[F8; 3]>()) as u64;
        }
        bytes
    }
}

//! The memory reads of [`crate::CpuBackend`]'s evaluation, counted from the layout of the
//! arrays it samples (exact key tracks or compressed clips): what
//! [`crate::CpuBackend::bytes_read_per_joint`] reports; and the tally of one evaluation both
//! CPU backends keep.

use glam::{Affine3A, Vec4};

use crate::baked::retarget_map::{RetargetEntry, RetargetMap};
use crate::baked::{ChannelCode, CompressedClip, CompressedClips, Interpolation, Rig, TrackDesc};
use crate::cpu::ClipSource;
use crate::instance::{InstanceRecord, Layer};
use crate::layer_reads::LayerReads;
use crate::math::Aabb;
use crate::math::Sqt;

/// Bytes of one key time, mask weight or compressed data word.
const WORD: u64 = 4;
/// Bytes of one key value.
const VALUE: u64 = size_of::<Vec4>() as u64;

/// Bytes one exact track costs to sample inside its keys: descriptor, first and last key times
/// (the clamp checks), the two times of the uniform-guess hit, and the key values (1 STEP,
/// 2 LINEAR, 4 CUBICSPLINE); a one-key track its descriptor and one value.
fn track_bytes(desc: &TrackDesc) -> u64 {
    let descriptor = size_of::<TrackDesc>() as u64;
    if desc.key_count <= 1 {
        return descriptor + VALUE;
    }
    let values = match Interpolation::from_u32(desc.interpolation) {
        Some(Interpolation::Step) => 1,
        Some(Interpolation::CubicSpline) => 4,
        _ => 2,
    };
    descriptor + 4 * WORD + values * VALUE
}

/// Bytes one compressed channel costs: the clip record and the code; a constant its words; an
/// animated channel, in each frame it decodes (two, one for a one-frame clip), each stored
/// component's words (one, two when it straddles) and range (none raw).
fn channel_bytes(
    clip: &CompressedClip,
    code: ChannelCode,
    constant_words: u64,
    stored: u64,
) -> u64 {
    let head = (size_of::<CompressedClip>() + size_of::<ChannelCode>()) as u64;
    if code.is_rest() {
        return head;
    }
    let bits = code.bits();
    if !code.is_animated() {
        return head + constant_words * WORD;
    }
    let range = if bits == ChannelCode::RAW_BITS {
        0
    } else {
        WORD
    };
    let frames = if clip.frame_count < 2 { 1 } else { 2 };
    let per_frame: u64 = (0..stored)
        .map(|c| {
            let bits = code.component_bits(c as usize);
            let shift = code.component_bit(c as usize) % 32;
            let words = if shift + bits > 32 { 2 } else { 1 };
            words * WORD + range
        })
        .sum();
    head + frames * per_frame
}

/// Bytes read and joints evaluated by one evaluation of either CPU backend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReadTally {
    /// Bytes read.
    pub bytes: u64,
    /// Joints evaluated.
    pub joints: u64,
}

impl ReadTally {
    /// Bytes read per joint evaluated: 0 when none was.
    pub(crate) fn per_joint(self) -> f64 {
        if self.joints == 0 {
            return 0.0;
        }
        self.bytes as f64 / self.joints as f64
    }
}

/// What [`crate::CpuBackend`] reads for one rig, in bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RigReads {
    /// Per instance, whatever its layers: the record, and per joint its parent, rest SQT,
    /// inverse bind and joint bounds.
    instance: u64,
    /// Per clip, per joint then per weight chunk: the sampling reads of one layer, and which
    /// layers each joint samples.
    sampling: LayerReads,
}

impl RigReads {
    /// The reads of `rig` sampled from `source`.
    pub(crate) fn new(rig: &Rig, source: ClipSource) -> Self {
        let n = rig.joint_count();
        let chunks = rig.clips.weight_chunk_count();
        let per_joint =
            (size_of::<u16>() + size_of::<Sqt>() + size_of::<Affine3A>() + size_of::<Aabb>())
                as u64;
        let instance = size_of::<InstanceRecord>() as u64 + n as u64 * per_joint;
        let compressed = match source {
            ClipSource::Compressed => rig.compressed.as_ref(),
            ClipSource::Exact => None,
        };
        let clips: Vec<Vec<u64>> = (0..rig.clips.clip_count())
            .map(|c| match compressed {
                Some(cc) => compressed_costs(cc, c, n, chunks),
                None => {
                    let tracks = rig.clips.tracks();
                    let joints = (0..n).map(|j| {
                        let first = (c * n + j) * 3;
                        tracks[first..first + 3].iter().map(track_bytes).sum()
                    });
                    let weights =
                        (0..chunks).map(|k| rig.clips.weight_track(c, k).map_or(0, track_bytes));
                    joints.chain(weights).collect()
                }
            })
            .collect();
        Self {
            instance,
            sampling: LayerReads::new(
                n,
                clips,
                (0..chunks).map(|k| rig.morph.chunk_joint(k)).collect(),
            ),
        }
    }

    /// Bytes one instance reads evaluating `layers` (at the frame time) with mask weights
    /// `masks`: each joint samples the layers from the topmost that hides the rest up
    /// ([`LayerReads`]); a masked layer reads the mask weight of each joint and chunk it
    /// reaches and samples those weighted above 0;
    /// a layer played through retarget map `m` costs what `maps[m]` says.
    pub(crate) fn instance_bytes(
        &self,
        masks: &[crate::JointMask],
        layers: &[Layer],
        maps: &[LayerReads],
    ) -> u64 {
        self.instance + self.sampling.bytes(layers, masks, |m| maps.get(m))
    }

    /// What this (source) rig's clips cost played through `map` onto a rig read as `target`:
    /// at each target joint the map's entry and its source joint's channels.
    pub(crate) fn through_map(&self, target: &RigReads, map: &RetargetMap) -> LayerReads {
        let sources = map.source_joints();
        let entry = size_of::<RetargetEntry>() as u64;
        self.sampling.through_map(&target.sampling, &sources, entry)
    }
}

/// Per joint then per weight chunk, the bytes of sampling compressed clip `clip` once.
fn compressed_costs(cc: &CompressedClips, clip: usize, n: usize, chunks: usize) -> Vec<u64> {
    let Some(record) = cc.clips().get(clip) else {
        return vec![0; n + chunks];
    };
    let codes = cc.clip_channels(clip);
    let cost = |channel: usize| {
        let kind = cc.channel_kind(channel);
        codes.get(channel).map_or(0, |&code| {
            channel_bytes(
                record,
                code,
                kind.constant_words() as u64,
                code.stored_components(kind) as u64,
            )
        })
    };
    let joints = (0..n).map(|j| (0..3).map(|k| cost(j * 3 + k)).sum());
    let weights = (0..chunks).map(|k| cost(n * 3 + k));
    joints.chain(weights).collect()
}

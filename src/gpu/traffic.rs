//! The global-memory reads of the evaluate kernel, counted load by load from the layout of the
//! path that runs (exact key tracks or compressed clips): what
//! [`crate::GpuBackend::bytes_read_per_joint`] reports.
//!
//! Loads whose address is the same for every lane of a workgroup (the record, the rig
//! descriptor, the clip descriptors, level starts, IK constraints) are counted once per
//! instance: a GPU serves them with one broadcast. Loads per joint are counted per joint, and
//! the rig data a lane reads once for every instance of a pass (rest pose, parent, inverse
//! bind, bounds: see wgsl/evaluate.wgsl) once per pass.

use crate::baked::ik::IK_VEC4S;
use crate::baked::retarget_map::RetargetMap;
use crate::baked::{ChannelCode, CompressedClips, Interpolation, Rig, TrackDesc};
use crate::gpu::layout::{ROOT_FRAME_VEC4S, RigDesc};
use crate::instance::{InstanceRecord, Layer, LayerRecord, MAX_LAYERS};
use crate::layer_reads::LayerReads;
use crate::mask::JointMask;

/// Bytes of a `vec4<f32>` load.
const VEC4: u64 = 16;
/// Bytes of a `u32` or `f32` load.
const WORD: u64 = 4;
/// Record fields an instance's lane reads: rig, flags, palette offset, layer count.
const RECORD_HEADER: u64 = 4 * WORD;
/// The record's world matrix.
const WORLD: u64 = 3 * VEC4;
/// One layer record.
const LAYER: u64 = size_of::<LayerRecord>() as u64;
/// Fields of a compressed clip descriptor the kernel reads (all but the segment offset, read
/// only with segments).
const CLIP_DESC: u64 = 7 * WORD;
/// Per joint, whatever the clips: rest pose with parent and `has_bounds` (three 16-byte rows),
/// inverse bind (3 vec4).
const JOINT_FIXED: u64 = 3 * VEC4 + 3 * VEC4;
/// Per joint with vertices: its two bounds corners (vec3 each).
const JOINT_BOUNDS: u64 = 2 * 3 * WORD;
/// Per target joint of a layer played through a retarget map: the entry (four vec4), whose
/// last row `retarget_source` reads first.
const RETARGET_ENTRY: u64 = 5 * VEC4;
/// Per layer played through a retarget map: the table's row count and the map's row, and the
/// source rig's descriptor.
const RETARGET_LAYER: u64 = 2 * VEC4 + size_of::<RigDesc>() as u64;

/// A clip's compressed segments' start times (empty without) and its duration.
type ClipSegments = (Vec<f32>, f32);

/// What a layer played through one retarget map reads beyond its layer record, in bytes:
/// the source rig's clips costed at the target's joints ([`RigReads::through_map`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct MapReads {
    /// Per source clip: its segments' start times and duration (the source rig's).
    segments: Vec<(Vec<f32>, f32)>,
    /// Per source clip, per target joint then weight chunk: the entry and the source joint's
    /// channels.
    sampling: LayerReads,
    /// Per source clip, per target joint: its translation and rotation sampled once by root
    /// motion, through the entry.
    root_motion: Vec<Vec<[u32; 2]>>,
}

/// What the kernel reads for one uploaded rig, in bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RigReads {
    /// Per pass (instances of the rig a workgroup evaluates together): rig descriptor, level
    /// starts, every joint's rest pose, parent, inverse bind and bounds.
    pub pass: u64,
    /// Per instance, whatever its layers: record header and world, rig descriptor, morph
    /// defaults and chunk joints, IK constraints and targets.
    pub instance: u64,
    /// Per resolved layer: its layer record, and its clip descriptor with compressed clips
    /// (plus [`RigReads::segment_bytes`] for a clip on segments).
    pub layer: u64,
    /// Per clip: the start times of its compressed segments (empty without), and its duration.
    pub segments: Vec<(Vec<f32>, f32)>,
    /// Per clip, per channel group (joint `j` at `j`, weight chunk `k` at `joint_count + k`):
    /// the reads of sampling it in one layer (track descriptors, key times and values; or
    /// channel codes, constants, ranges and frame words), and which layers each joint samples.
    pub(crate) sampling: LayerReads,
    /// Per clip, per joint: its translation and its rotation sampled once by root motion (the
    /// rest pose and clip descriptor included with compressed clips).
    pub root_motion: Vec<Vec<[u32; 2]>>,
    /// The root frame of a root-motion record.
    pub root_frame: u64,
}

/// Bytes one exact track costs to sample at a time inside its keys: descriptor, the first and
/// last key times, the guessed pair (twice: guess check and interval) and the key values the
/// interpolation reads.
fn track_bytes(desc: &TrackDesc) -> u64 {
    let descriptor = size_of::<TrackDesc>() as u64;
    if desc.key_count <= 1 {
        return descriptor + WORD + VEC4;
    }
    let values = match Interpolation::from_u32(desc.interpolation) {
        Some(Interpolation::Step) => 1,
        Some(Interpolation::CubicSpline) => 4,
        _ => 2,
    };
    descriptor + 2 * WORD + 4 * WORD + 2 * WORD + values * VEC4
}

/// Bytes one compressed channel costs in one layer: its code; a constant's words; an animated
/// channel's bit offset, ranges and, in both frame records, the words its bits span, each read
/// once (a one-frame clip reads its frame twice). A joint's REST channels read nothing when
/// its rest mask says so (sampling a layer); root motion reads their code.
fn channel_bytes(code: ChannelCode, constant_words: u64, stored: u64) -> u64 {
    if code.is_rest() {
        return WORD;
    }
    let bits = code.bits();
    if bits == 0 {
        return WORD + constant_words * WORD;
    }
    let ranges = if bits == ChannelCode::RAW_BITS {
        0
    } else {
        stored * WORD
    };
    let frames = 2;
    let record: u64 = (0..stored as usize)
        .map(|c| u64::from(code.component_bits(c)))
        .sum();
    let span = u64::from(code.first_bit() % 32) + record;
    let words = span.div_ceil(32);
    2 * WORD + ranges + frames * words * WORD
}

/// Bytes a lane reads finding the segment of clip `clip` (of a rig whose clips' segments are
/// `segments`) at clip time `time`: see [`RigReads::segment_bytes`].
fn segment_bytes(segments: &[ClipSegments], clip: usize, time: f32) -> u64 {
    let Some((starts, duration)) = segments.get(clip) else {
        return 0;
    };
    if starts.is_empty() {
        return 0;
    }
    let t = time.max(0.0).min(*duration);
    let later = starts.iter().skip(1).position(|&s| t < s);
    let compared = later.map_or(starts.len() - 1, |i| i + 1);
    (1 + compared as u64 + 4) * WORD
}

impl RigReads {
    /// The reads of `rig` (uploaded as `desc`), sampling `compressed` clips when given, else
    /// its key tracks.
    pub(crate) fn new(rig: &Rig, desc: &RigDesc, compressed: Option<&CompressedClips>) -> Self {
        let n = rig.joint_count();
        let chunks = rig.clips.weight_chunk_count();
        let bounded = (0..n)
            .filter(|&j| rig.joint_bounds.get(j).is_some_and(|b| !b.is_empty()))
            .count() as u64;
        let levels = u64::from(desc.level_count.saturating_sub(1));
        let ik = rig.ik.len() as u64;
        // Parents and `has_bounds`: once per pass, beside the rest pose (stage 1 keeps them in
        // workgroup memory for propagation, IK and bounds).
        let pass = size_of::<RigDesc>() as u64
            + 2 * WORD * levels
            + n as u64 * JOINT_FIXED
            + bounded * JOINT_BOUNDS;
        let instance = RECORD_HEADER
            + WORLD
            + size_of::<RigDesc>() as u64
            + chunks as u64 * (VEC4 + WORD)
            + ik * ((IK_VEC4S as u64) * VEC4 + WORLD);
        let clip_count = rig.clips.clip_count();
        // Per clip: each joint's [translation, rotation, scale] costs, then each chunk's.
        let channels: Vec<(Vec<[u64; 3]>, Vec<u64>)> = (0..clip_count)
            .map(|c| match compressed {
                Some(cc) => {
                    let codes = cc.clip_channels(c);
                    let joints: Vec<[u64; 3]> = (0..n)
                        .map(|j| {
                            let mut costs = [0; 3];
                            for (k, cost) in costs.iter_mut().enumerate() {
                                let code = codes[j * 3 + k];
                                let words = if k == 1 { 4 } else { 3 };
                                let kind = cc.channel_kind(j * 3 + k);
                                let stored = code.stored_components(kind) as u64;
                                *cost = channel_bytes(code, words, stored);
                            }
                            costs
                        })
                        .collect();
                    let weights = (0..chunks)
                        .map(|k| channel_bytes(codes[n * 3 + k], 4, 4))
                        .collect();
                    (joints, weights)
                }
                None => {
                    let tracks = rig.clips.tracks();
                    let joints = (0..n)
                        .map(|j| {
                            let first = (c * n + j) * 3;
                            [0, 1, 2].map(|k| track_bytes(&tracks[first + k]))
                        })
                        .collect();
                    let weights = (0..chunks)
                        .map(|k| rig.clips.weight_track(c, k).map_or(0, track_bytes))
                        .collect();
                    (joints, weights)
                }
            })
            .collect();
        // A joint sampled in a layer: its channels; with compressed clips, its rest mask word
        // first, and no code for a REST channel.
        let clips: Vec<Vec<u64>> = channels
            .iter()
            .enumerate()
            .map(|(c, (joints, weights))| {
                let joints = joints
                    .iter()
                    .enumerate()
                    .map(|(j, costs)| match compressed {
                        Some(cc) => {
                            let codes = &cc.clip_channels(c)[j * 3..j * 3 + 3];
                            let read = costs.iter().zip(codes).filter(|(_, code)| !code.is_rest());
                            WORD + read.map(|(cost, _)| cost).sum::<u64>()
                        }
                        None => costs.iter().sum(),
                    });
                joints.chain(weights.iter().copied()).collect()
            })
            .collect();
        let chunk_joints = (0..chunks).map(|k| rig.morph.chunk_joint(k)).collect();
        let sampling = LayerReads::new(n, clips, chunk_joints);
        // `sample_channel` of compressed clips reads the clip descriptor and the channel's rest
        // value.
        let extra = if compressed.is_some() {
            CLIP_DESC + VEC4
        } else {
            0
        };
        let root_motion = channels
            .iter()
            .map(|(joints, _)| {
                joints
                    .iter()
                    .map(|c| [(c[0] + extra) as u32, (c[1] + extra) as u32])
                    .collect()
            })
            .collect();
        let segments = (0..clip_count)
            .map(|c| match compressed {
                Some(cc) => (
                    cc.segments(c).iter().map(|s| s.start).collect(),
                    cc.clips().get(c).map_or(0.0, |r| r.duration),
                ),
                None => (Vec::new(), 0.0),
            })
            .collect();
        Self {
            pass,
            instance,
            layer: LAYER + if compressed.is_some() { CLIP_DESC } else { 0 },
            segments,
            sampling,
            root_motion,
            root_frame: ROOT_FRAME_VEC4S as u64 * VEC4,
        }
    }

    /// Bytes an instance's lane reads finding the segment of clip `clip` at clip time `time`, beyond the
    /// clip descriptor: the table's offset, the starts its scan compares (from segment 1 to the
    /// first later than the time) and the segment's four words; 0 without segments.
    pub fn segment_bytes(&self, clip: usize, time: f32) -> u64 {
        segment_bytes(&self.segments, clip, time)
    }

    /// What this (source) rig's clips read played through `map` onto a rig read as `target`.
    pub(crate) fn through_map(&self, target: &RigReads, map: &RetargetMap) -> MapReads {
        let sources = map.source_joints();
        let root_motion = self
            .root_motion
            .iter()
            .map(|joints| {
                let entry = RETARGET_ENTRY as u32;
                let source = |s: &Option<usize>| s.and_then(|j| joints.get(j)).copied();
                sources
                    .iter()
                    .map(|s| source(s).unwrap_or([0, 0]).map(|c| c + entry))
                    .collect()
            })
            .collect();
        MapReads {
            segments: self.segments.clone(),
            sampling: self
                .sampling
                .through_map(&target.sampling, &sources, RETARGET_ENTRY),
            root_motion,
        }
    }

    /// Bytes the kernel reads evaluating `record` at frame time `now` after the previous
    /// evaluation at `prev`, with `masks` the uploaded masks and `maps` what the uploaded
    /// retarget maps' layers read ([`MapReads`]), beside its pass's
    /// [`RigReads::pass`]. Each joint samples the layers from the topmost that hides the rest
    /// up ([`LayerReads`]); masked layers read the mask weight of each joint and chunk they
    /// reach, and sample those whose weighted mask is above 0. Root motion samples the root at
    /// both frame ends, each sample scanning its clip's segments at that end's clip time.
    /// A clock that wraps inside the frame samples root motion twice more: not counted.
    pub(crate) fn record_bytes(
        &self,
        record: &InstanceRecord,
        masks: &[JointMask],
        maps: &[MapReads],
        now: f32,
        prev: f32,
    ) -> u64 {
        let mut bytes = self.instance;
        let mut layers = [Layer::clip(0, 0.0); MAX_LAYERS];
        let used = record.used_layers();
        for (layer, layer_record) in layers.iter_mut().zip(used) {
            *layer = layer_record.to_layer_at(now);
            bytes += self.layer
                + match self.clip_reads(layer_record, maps) {
                    Some((segments, clip, map)) => map + segment_bytes(segments, clip, layer.time),
                    None => 0,
                };
        }
        let through = |m: usize| maps.get(m).map(|r| &r.sampling);
        bytes += self.sampling.bytes(&layers[..used.len()], masks, through);
        if record.flags & InstanceRecord::GPU_ROOT_MOTION != 0
            && record.flags & InstanceRecord::WORLD_PLACED == 0
        {
            let base = ((record.flags & InstanceRecord::BASE_LAYERS)
                >> InstanceRecord::BASE_LAYERS_SHIFT) as usize;
            let root = (record.flags & InstanceRecord::ROOT_JOINT) as usize;
            if root >= self.root_motion.first().map_or(0, Vec::len) {
                return bytes;
            }
            bytes += self.root_frame;
            let yaw = record.flags & InstanceRecord::HOLD_ROOT_YAW != 0;
            // The layer count again, then each base layer with weight: its record again, and a
            // moving clock samples translation (and rotation for yaw) at both ends.
            bytes += WORD;
            let mut above = 1.0f32;
            for layer_record in record.used_layers().iter().take(base).rev() {
                bytes += LAYER;
                let Some((segments, clip, map)) = self.clip_reads(layer_record, maps) else {
                    continue;
                };
                let per_joint = match layer_record.retarget() {
                    Some((m, _)) => maps.get(m).and_then(|r| r.root_motion.get(clip)),
                    None => self.root_motion.get(clip),
                };
                let Some([t, r]) = per_joint.and_then(|c| c.get(root)).copied() else {
                    continue;
                };
                let w = layer_record.to_layer_at(now).weight.clamp(0.0, 1.0);
                let share = w * above;
                above *= 1.0 - w;
                if share > 0.0 && prev != now && layer_record.rate != 0.0 {
                    let ends = segment_bytes(segments, clip, layer_record.to_layer_at(prev).time)
                        + segment_bytes(segments, clip, layer_record.to_layer_at(now).time);
                    let channels = if yaw { 2 } else { 1 };
                    bytes += map
                        + 2 * u64::from(t)
                        + if yaw { 2 * u64::from(r) } else { 0 }
                        + channels * ends;
                }
            }
        }
        bytes
    }

    /// The segments of the clips `layer` plays, its clip among them and what reaching them
    /// reads beyond the layer record: this rig's, or for a layer played through a retarget
    /// map, the map's source rig's and [`RETARGET_LAYER`]. `None` for a map not uploaded.
    fn clip_reads<'a>(
        &'a self,
        layer: &LayerRecord,
        maps: &'a [MapReads],
    ) -> Option<(&'a [ClipSegments], usize, u64)> {
        Some(match layer.retarget() {
            None => (&self.segments[..], layer.clip as usize, 0),
            Some((m, clip)) => (&maps.get(m)?.segments[..], clip, RETARGET_LAYER),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{RigReads, WORD};

    #[test]
    fn segment_reads_follow_the_scan() {
        let reads = RigReads {
            segments: vec![(Vec::new(), 1.0), (vec![0.0, 0.5, 0.7], 1.0)],
            ..RigReads::default()
        };
        // One grid: nothing beyond the descriptor.
        assert_eq!(reads.segment_bytes(0, 0.3), 0);
        // Offset, the starts compared (segment 1's; then 2's, which stops or ends the scan),
        // the segment's four words.
        assert_eq!(reads.segment_bytes(1, 0.2), (1 + 1 + 4) * WORD);
        assert_eq!(reads.segment_bytes(1, 0.6), (1 + 2 + 4) * WORD);
        assert_eq!(reads.segment_bytes(1, 0.9), (1 + 2 + 4) * WORD);
        // Times clamp into the clip; clips past the table read nothing more.
        assert_eq!(reads.segment_bytes(1, -1.0), (1 + 1 + 4) * WORD);
        assert_eq!(reads.segment_bytes(2, 0.2), 0);
    }
}

//! The sampling reads of an instance's layers, which both backends' read counts share
//! ([`crate::gpu::RigReads`] and the CPU backend's tally): at each joint, the layers from the
//! topmost one that hides those under it ([`Layer::hides_lower`]) up, each masked one's mask
//! weight, and the channels of each one weighted above 0. A layer played through a retarget
//! map costs, at each target joint, the map's entry and its source joint's channels in the
//! source rig's clip ([`LayerReads::through_map`]).

use crate::instance::{Layer, LayerRecord};
use crate::mask::JointMask;

/// Bytes of a mask weight.
const MASK_WEIGHT: u64 = 4;

/// What sampling each clip costs, per joint and weight chunk, for one rig.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LayerReads {
    /// Joints of the rig: the first entries of each clip's costs; weight chunks follow.
    joints: usize,
    /// Per clip, per joint then per weight chunk: the reads of sampling it in one layer.
    clips: Vec<Vec<u64>>,
    /// Per clip: the sums of its joints' and of its weight chunks' costs.
    totals: Vec<(u64, u64)>,
    /// Per joint then per weight chunk: the joint whose mask weight applies.
    mask_joints: Vec<usize>,
}

impl LayerReads {
    /// Costs `clips` (per clip, `joints` joints then weight chunks), the chunks' mask weights
    /// those of `chunk_joints`.
    pub(crate) fn new(joints: usize, clips: Vec<Vec<u64>>, chunk_joints: Vec<usize>) -> Self {
        let totals = clips
            .iter()
            .map(|c| {
                let split = joints.min(c.len());
                (c[..split].iter().sum(), c[split..].iter().sum())
            })
            .collect();
        Self {
            joints,
            clips,
            totals,
            mask_joints: (0..joints).chain(chunk_joints).collect(),
        }
    }

    /// The costs of sampling this (source) rig's clips through a retarget map onto a rig whose
    /// own costs are `target`: at target joint `j`, `entry` bytes and, where `sources[j]`
    /// names one, that source joint's channels; weight chunks are not sampled through a map.
    pub(crate) fn through_map(
        &self,
        target: &LayerReads,
        sources: &[Option<usize>],
        entry: u64,
    ) -> Self {
        let chunks = target.mask_joints.len() - target.joints;
        let clips = self
            .clips
            .iter()
            .map(|costs| {
                let joint = |s: &Option<usize>| {
                    entry + s.filter(|&j| j < self.joints).map_or(0, |j| costs[j])
                };
                let joints = (0..target.joints).map(|j| sources.get(j).map_or(0, joint));
                joints.chain(std::iter::repeat_n(0, chunks)).collect()
            })
            .collect();
        let mut through = Self::new(target.joints, clips, Vec::new());
        through.mask_joints.clone_from(&target.mask_joints);
        through
    }

    /// The costs of `layer`'s clip, per entry, and their joint and chunk totals: this rig's,
    /// or for a layer played through retarget map `m`, `maps(m)`'s; `None` for a clip or map
    /// that does not exist.
    fn costs<'a>(
        &'a self,
        layer: &Layer,
        maps: &impl Fn(usize) -> Option<&'a LayerReads>,
    ) -> Option<(&'a [u64], (u64, u64))> {
        let (reads, clip) = match layer.clip >> LayerRecord::MAP_SHIFT {
            0 => (self, layer.clip as usize),
            m => (
                maps(m as usize - 1)?,
                (layer.clip & LayerRecord::CLIP) as usize,
            ),
        };
        Some((reads.clips.get(clip)?, *reads.totals.get(clip)?))
    }

    /// Bytes sampling `layers` (resolved at the frame time, bottom first) reads with mask
    /// weights `masks`, a layer played through retarget map `m` costing what `maps(m)` says.
    /// Weight chunks sample every layer: only joints skip hidden ones.
    pub(crate) fn bytes<'a>(
        &'a self,
        layers: &[Layer],
        masks: &[JointMask],
        maps: impl Fn(usize) -> Option<&'a LayerReads>,
    ) -> u64 {
        let costs = |l: &Layer| self.costs(l, &maps);
        let known = |l: &Layer| costs(l).is_some();
        let mut bytes = 0;
        if layers.iter().all(|l| l.mask.is_none()) {
            // One weight per layer: the same layers show at every joint.
            let first = layers
                .iter()
                .rposition(|l| known(l) && l.hides_lower(l.weight))
                .unwrap_or(0);
            for (i, l) in layers.iter().enumerate() {
                if let Some((_, (joints, chunks))) = costs(l).filter(|_| l.weight > 0.0) {
                    bytes += chunks + if i >= first { joints } else { 0 };
                }
            }
            return bytes;
        }
        // A layer's weight at entry `e` (joint or chunk), and the bytes of reading it.
        let weight = |l: &Layer, e: usize| match l.mask {
            None => (l.weight, 0),
            Some(m) => {
                let joint = self.mask_joints[e];
                let w = masks
                    .get(m as usize)
                    .and_then(|mask| mask.weights.get(joint))
                    .copied()
                    .unwrap_or(0.0);
                (l.weight * w, MASK_WEIGHT)
            }
        };
        for e in 0..self.mask_joints.len() {
            let mut sample = |l: &Layer| {
                let (w, read) = weight(l, e);
                bytes += read;
                if let Some((entries, _)) = costs(l).filter(|_| w > 0.0) {
                    bytes += entries[e];
                }
                known(l) && l.hides_lower(w)
            };
            if e < self.joints {
                // Top down to the layer that hides the rest.
                for l in layers.iter().rev() {
                    if sample(l) {
                        break;
                    }
                }
            } else {
                layers.iter().for_each(|l| {
                    sample(l);
                });
            }
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::LayerReads;
    use crate::instance::{BlendMode, Layer};
    use crate::mask::JointMask;

    #[test]
    fn layers_under_one_at_full_weight_are_not_read() {
        // Two joints, one chunk; clip 0 costs 10 / 20 / 5, clip 1 costs 1 / 2 / 3.
        let reads = LayerReads::new(2, vec![vec![10, 20, 5], vec![1, 2, 3]], vec![1]);
        let base = Layer::clip(0, 0.0);
        let top = Layer::clip(1, 0.0);
        assert_eq!(reads.bytes(&[base], &[], |_| None), 35);
        // The top layer hides the base at both joints; the chunk samples both.
        assert_eq!(reads.bytes(&[base, top], &[], |_| None), 1 + 2 + 3 + 5);
        // Below full weight, or additive, nothing is hidden.
        let half = Layer { weight: 0.5, ..top };
        assert_eq!(reads.bytes(&[base, half], &[], |_| None), 35 + 6);
        let add = Layer {
            mode: BlendMode::Additive,
            ..top
        };
        assert_eq!(reads.bytes(&[base, add], &[], |_| None), 35 + 6);
        // A mask of joint 1 only: joint 0 samples the base alone, joint 1 the top alone; each
        // entry reads the top layer's mask weight (the chunk's is joint 1's).
        let masks = [JointMask {
            weights: vec![0.0, 1.0],
        }];
        let masked = Layer {
            mask: Some(0),
            ..top
        };
        assert_eq!(
            reads.bytes(&[base, masked], &masks, |_| None),
            3 * 4 + 10 + 2 + (5 + 3)
        );
    }

    #[test]
    fn a_layer_through_a_map_costs_its_entries_and_source_joints() {
        // The source: two joints, clip 0 costing 10 / 20; the target: three joints and a
        // chunk, clip 0 costing 1 / 2 / 3 / 4.
        let source = LayerReads::new(2, vec![vec![10, 20]], Vec::new());
        let target = LayerReads::new(3, vec![vec![1, 2, 3, 4]], vec![0]);
        let through = source.through_map(&target, &[Some(1), None, Some(0)], 8);
        let maps = |m: usize| (m == 0).then_some(&through);
        let retargeted = Layer::clip(crate::LayerRecord::retargeted(0, 0), 0.0);
        // Each target joint its entry and its source joint's channels; no weight chunk.
        assert_eq!(
            target.bytes(&[retargeted], &[], maps),
            (8 + 20) + 8 + (8 + 10)
        );
        // Under the target's own clip at half weight, both are read; an unknown map nothing.
        let own = Layer {
            weight: 0.5,
            ..Layer::clip(0, 0.0)
        };
        assert_eq!(target.bytes(&[retargeted, own], &[], maps), 54 + 10);
        let stray = Layer::clip(crate::LayerRecord::retargeted(0, 3), 0.0);
        assert_eq!(target.bytes(&[stray], &[], maps), 0);
    }
}

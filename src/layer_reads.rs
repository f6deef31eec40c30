//! The sampling reads of an instance's layers, which both backends' read counts share
//! ([`crate::gpu::RigReads`] and the CPU backend's tally): at each joint, the layers from the
//! topmost one that hides those under it ([`Layer::hides_lower`]) up, each masked one's mask
//! weight, and the channels of each one weighted above 0.

use crate::instance::Layer;
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

    /// Bytes sampling `layers` (resolved at the frame time, bottom first) reads with mask
    /// weights `masks`. Weight chunks sample every layer: only joints skip hidden ones.
    pub(crate) fn bytes(&self, layers: &[Layer], masks: &[JointMask]) -> u64 {
        let known = |l: &Layer| (l.clip as usize) < self.clips.len();
        let mut bytes = 0;
        if layers.iter().all(|l| l.mask.is_none()) {
            // One weight per layer: the same layers show at every joint.
            let first = layers
                .iter()
                .rposition(|l| known(l) && l.hides_lower(l.weight))
                .unwrap_or(0);
            for (i, l) in layers.iter().enumerate() {
                if known(l) && l.weight > 0.0 {
                    let (joints, chunks) = self.totals[l.clip as usize];
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
                if known(l) && w > 0.0 {
                    bytes += self.clips[l.clip as usize][e];
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
        assert_eq!(reads.bytes(&[base], &[]), 35);
        // The top layer hides the base at both joints; the chunk samples both.
        assert_eq!(reads.bytes(&[base, top], &[]), 1 + 2 + 3 + 5);
        // Below full weight, or additive, nothing is hidden.
        let half = Layer { weight: 0.5, ..top };
        assert_eq!(reads.bytes(&[base, half], &[]), 35 + 6);
        let add = Layer {
            mode: BlendMode::Additive,
            ..top
        };
        assert_eq!(reads.bytes(&[base, add], &[]), 35 + 6);
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
            reads.bytes(&[base, masked], &masks),
            3 * 4 + 10 + 2 + (5 + 3)
        );
    }
}

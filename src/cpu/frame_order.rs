//! The frame's record order both CPU backends share: records validated, sorted by palette
//! offset and split across the cores in disjoint palette slices.

use crate::baked::Rig;
use crate::baked::retarget_map::RetargetBinding;
use crate::error::EvalError;
use crate::instance::InstanceRecord;
use crate::mask::JointMask;
use crate::math::{Aabb, Mat3x4Rows};

use super::checked;

/// Instances per parallel task (a multiple of the fast mode's four SIMD lanes).
const CHUNK: usize = 64;

/// Per-frame scratch both CPU backends reuse: record indices in palette order, and the AABBs
/// in that order (no allocation once grown).
#[derive(Clone, Debug)]
pub(crate) struct FrameOrder {
    order: Vec<u32>,
    /// The last checked records, whose order `order` still holds.
    checked: checked::CheckedRecords,
    sorted: Vec<Aabb>,
    /// Instances a chunk boundary must be a multiple of (the SIMD group size).
    lanes: usize,
}

impl Default for FrameOrder {
    fn default() -> Self {
        Self::new(1)
    }
}

impl FrameOrder {
    /// Empty scratch for an evaluator that processes `lanes` instances at a time.
    pub(crate) fn new(lanes: usize) -> Self {
        Self {
            order: Vec::new(),
            checked: checked::CheckedRecords::default(),
            sorted: Vec::new(),
            lanes: lanes.max(1),
        }
    }

    /// Forgets the records last checked, so the next frame checks every record (the rigs
    /// changed).
    pub(crate) fn forget_checked(&mut self) {
        self.checked.forget();
    }

    /// Validates and orders `instances` ([`checked::order_records`], skipped when they are the last
    /// frame's: [`checked::CheckedRecords`]), evaluates them in parallel with
    /// [`split_across_cores`] and `chunk`, then scatters the AABBs back to record order.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        &mut self,
        rigs: &[Rig],
        masks: &[JointMask],
        retargets: &[RetargetBinding],
        instances: &[InstanceRecord],
        palette: &mut [Mat3x4Rows],
        aabbs: &mut [Aabb],
        chunk: impl Fn(&[u32], &mut [Mat3x4Rows], usize, &mut [Aabb]) + Sync,
    ) -> Result<(), EvalError> {
        if aabbs.len() != instances.len() {
            return Err(EvalError::OutputSize {
                expected: instances.len(),
                found: aabbs.len(),
            });
        }
        self.checked.order(
            rigs,
            masks,
            retargets,
            instances,
            palette.len(),
            &mut self.order,
        )?;
        if self.order.len() < instances.len() {
            aabbs.fill(Aabb::EMPTY);
        }
        self.sorted.clear();
        self.sorted.resize(self.order.len(), Aabb::EMPTY);
        split_across_cores(
            instances,
            &self.order,
            palette,
            0,
            &mut self.sorted,
            self.lanes,
            &chunk,
        );
        for (&i, aabb) in self.order.iter().zip(&self.sorted) {
            aabbs[i as usize] = *aabb;
        }
        Ok(())
    }
}

/// Splits `order` (records ascending by palette offset, so their palette ranges are disjoint and
/// ascending) in halves, on a multiple of `lanes`, until chunks are small, then runs `chunk` on
/// each with its own palette slice (`base` is the palette index of the slice's first entry).
fn split_across_cores(
    instances: &[InstanceRecord],
    order: &[u32],
    palette: &mut [Mat3x4Rows],
    base: usize,
    aabbs: &mut [Aabb],
    lanes: usize,
    chunk: &(impl Fn(&[u32], &mut [Mat3x4Rows], usize, &mut [Aabb]) + Sync),
) {
    if order.len() <= CHUNK {
        chunk(order, palette, base, aabbs);
        return;
    }
    let mid = (order.len() / 2)
        .next_multiple_of(lanes)
        .min(order.len() - 1);
    let split = instances[order[mid] as usize].palette_offset as usize - base;
    let (pal_lo, pal_hi) = palette.split_at_mut(split);
    let (ord_lo, ord_hi) = order.split_at(mid);
    let (aabb_lo, aabb_hi) = aabbs.split_at_mut(mid);
    rayon::join(
        || split_across_cores(instances, ord_lo, pal_lo, base, aabb_lo, lanes, chunk),
        || {
            split_across_cores(
                instances,
                ord_hi,
                pal_hi,
                base + split,
                aabb_hi,
                lanes,
                chunk,
            )
        },
    );
}

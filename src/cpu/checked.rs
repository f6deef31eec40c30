//! The records of the last frame that passed [`order_records`], kept so that a frame whose
//! records, palette length and mask count are the same bytes as then reuses that frame's order
//! instead of checking every record again. Records carry their own clocks and fades, so a
//! crowd's records change on events, not every frame; a changed frame is checked in full.

use super::order_records;
use crate::bake::Rig;
use crate::error::EvalError;
use crate::instance::InstanceRecord;
use crate::mask::JointMask;

/// Copies of the last checked records and what their check depended on.
#[derive(Clone, Debug, Default)]
pub(crate) struct CheckedRecords {
    /// The records as checked; meaningful only while `valid`.
    records: Vec<InstanceRecord>,
    /// The palette length and mask count they were checked against.
    palette_len: usize,
    mask_count: usize,
    /// Whether `records` passed and `order` is theirs.
    valid: bool,
}

impl CheckedRecords {
    /// Fills `order` as [`order_records`] does, or leaves it as it is when `instances` are the
    /// bytes last checked, against the same palette length and mask count.
    pub(crate) fn order(
        &mut self,
        rigs: &[Rig],
        masks: &[JointMask],
        instances: &[InstanceRecord],
        palette_len: usize,
        order: &mut Vec<u32>,
    ) -> Result<(), EvalError> {
        if self.valid
            && self.palette_len == palette_len
            && self.mask_count == masks.len()
            && bytemuck::cast_slice::<_, u8>(instances)
                == bytemuck::cast_slice::<_, u8>(&self.records)
        {
            return Ok(());
        }
        self.valid = false;
        order_records(rigs, masks, instances, palette_len, order)?;
        self.records.clear();
        self.records.extend_from_slice(instances);
        self.palette_len = palette_len;
        self.mask_count = masks.len();
        self.valid = true;
        Ok(())
    }

    /// Forgets the last check (the rigs changed).
    pub(crate) fn forget(&mut self) {
        self.valid = false;
    }
}

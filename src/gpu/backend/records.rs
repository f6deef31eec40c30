//! The records [`GpuBackend`] keeps resident in slots: checked when written, uploaded with the
//! next evaluation only where they changed.

use super::GpuBackend;
use crate::error::{EvalError, GpuError};
use crate::gpu::locate_block;
use crate::gpu::scope::capture;
use crate::instance::InstanceRecord;
use crate::math::Mat3x4Rows;

impl GpuBackend {
    /// Checks every record but empty ones ([`InstanceRecord::EMPTY`], skipped like the CPU
    /// backends skip them) and returns the number of joints they hold.
    pub(super) fn validate(&self, instances: &[InstanceRecord]) -> Result<u64, GpuError> {
        let mut joints = 0u64;
        for rec in instances.iter().filter(|r| !r.is_empty()) {
            joints += self.validate_one(rec)? as u64;
        }
        Ok(joints)
    }

    /// Checks one record (rig, layers, palette range); returns its joint count.
    pub(super) fn validate_one(&self, rec: &InstanceRecord) -> Result<usize, GpuError> {
        let rig = self.library.validate(rec)?;
        let n = rig.joint_count;
        if let Some(t) = rec.inertialization() {
            t.check(rec, n)?;
            let end = t.block_end(n);
            if end > u64::from(self.palette.capacity()) {
                return Err(EvalError::OutputSize {
                    expected: end as usize,
                    found: self.palette.capacity() as usize,
                }
                .into());
            }
        }
        let end = rec.palette_offset as usize + rig.palette_entries;
        let capacity = self.palette.capacity() as usize;
        if end > capacity {
            return Err(EvalError::OutputSize {
                expected: end,
                found: capacity,
            }
            .into());
        }
        Ok(n)
    }

    /// Writes `record` to resident slot `slot` (the table grows to hold it). Only a record that
    /// differs from the slot's goes up with the next evaluation. Returns whether it differed.
    /// [`InstanceRecord::EMPTY`] empties the slot.
    ///
    /// Where the slot already holds a record with [`InstanceRecord::GPU_ROOT_MOTION`] and
    /// `record` has it too, the GPU owns the world: `record.world` is ignored (not compared, not
    /// uploaded). A slot newly filled with such a record, or one that held a record without the
    /// flag, takes `record.world` (the first evaluation moves it by nothing).
    pub fn set_record(&mut self, slot: u32, record: &InstanceRecord) -> Result<bool, GpuError> {
        if !record.is_empty() {
            self.validate_one(record)?;
        }
        Ok(self.table.set(slot, record))
    }

    /// Writes `record` to resident slot `slot` whole, world included, even where the GPU owns
    /// the slot's world: a spawn or a teleport of a root-motion record. The next evaluation
    /// moves the placed world by nothing; the following ones accumulate from it.
    pub fn set_record_world(&mut self, slot: u32, record: &InstanceRecord) -> Result<(), GpuError> {
        if !record.is_empty() {
            self.validate_one(record)?;
        }
        self.table.place(slot, record);
        Ok(())
    }

    /// Empties resident slot `slot`: it is skipped from the next evaluation on.
    pub fn clear_record(&mut self, slot: u32) {
        self.table.clear(slot);
    }

    /// Sets the number of resident slots (new ones empty).
    pub fn set_slot_count(&mut self, slots: u32) {
        self.table.resize(slots);
    }

    /// Number of resident slots.
    pub fn slot_count(&self) -> u32 {
        self.table.len()
    }

    /// The resident records as the GPU holds them after the next upload, by slot; the world
    /// of a root-motion record is the one last placed, not where the GPU has moved it since
    /// ([`GpuBackend::read_worlds`]).
    pub fn resident_records(&self) -> &[InstanceRecord] {
        self.table.records()
    }

    /// Writes the IK targets of the instance `record` describes (one per constraint of its rig,
    /// [`crate::RigIk`]) into its palette block, for every later evaluation until written again.
    /// The entries stay when the block passes to another instance: write that instance's
    /// targets (or [`crate::IkTarget::OFF`]s) when reusing a block. Fails when the record's rig or palette range is invalid, or the targets do not fit
    /// ([`crate::IkError`] inside [`GpuError::Eval`]).
    pub fn set_ik_targets(
        &mut self,
        record: &InstanceRecord,
        targets: &[crate::IkTarget],
    ) -> Result<(), GpuError> {
        self.loss.check()?;
        self.validate_one(record)?;
        let rig = self.library.validate(record)?;
        let count = rig.palette_entries - rig.ik_entry_offset;
        let mut entries = vec![Mat3x4Rows::IDENTITY; count];
        crate::baked::ik::encode_ik_targets(&rig.name, targets, &mut entries)
            .map_err(|e| GpuError::Eval(e.into()))?;
        if entries.is_empty() {
            return Ok(());
        }
        let segments = self.palette.segments();
        let (k, at) = locate_block(segments, record.palette_offset, rig.palette_entries as u64)
            .map_err(GpuError::Validation)?;
        let offset = (at + rig.ik_entry_offset as u64) * size_of::<Mat3x4Rows>() as u64;
        let buffer = &segments[k].buffer;
        capture(&self.device, || {
            self.queue
                .write_buffer(buffer, offset, bytemuck::cast_slice(&entries))
        })
    }
}

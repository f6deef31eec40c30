//! [`RecordChanges`]: what one [`Animator::update`] changed in the GPU-resident records, taken
//! from the animator and applied to a [`GpuBackend`], at once or later on another thread (a
//! host's render world).

use crate::error::GpuError;
use crate::gpu::GpuBackend;
use crate::instance::InstanceRecord;

use super::Animator;

/// The slots whose record the last update changed, with the record and whether its world was
/// placed (a spawn or a teleport), the epoch shift and the frame time to evaluate at. Reused
/// from update to update: taking allocates only when more slots changed than ever before.
#[derive(Clone, Debug, Default)]
pub struct RecordChanges {
    changes: Vec<(u32, InstanceRecord, bool)>,
    epoch_shift: Option<f64>,
    now: f32,
    palette_entries: u32,
}

impl RecordChanges {
    /// Replaces the held changes with those of `animator`'s last update.
    pub fn take_from(&mut self, animator: &Animator) {
        let records = animator.slot_records();
        let placed = animator.placed_slots();
        self.changes.clear();
        self.changes
            .extend(animator.changed_slots().iter().map(|&slot| {
                let put = placed.binary_search(&slot).is_ok();
                (slot, records[slot as usize], put)
            }));
        self.epoch_shift = animator.epoch_shift();
        self.now = animator.frame_time();
        self.palette_entries = animator.palette().capacity();
    }

    /// The frame time the records were made for.
    pub fn frame_time(&self) -> f32 {
        self.now
    }

    /// Number of changed slots.
    pub fn len(&self) -> usize {
        self.changes.len()
    }

    /// Whether no slot changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Sends the changes to `gpu`'s resident table (its palette grown to the animator's first)
    /// and moves its frame time to the new epoch if there is one. A placed record replaces the
    /// world even of a root-motion slot the GPU moves ([`GpuBackend::set_record_world`]); the
    /// others keep it ([`GpuBackend::set_record`]). Evaluate with
    /// [`GpuBackend::evaluate_resident`] at [`RecordChanges::frame_time`] next.
    pub fn apply(&self, gpu: &mut GpuBackend) -> Result<(), GpuError> {
        // Records are checked against the palette as they are set: grow it first.
        gpu.reserve_palette(self.palette_entries)?;
        for (slot, record, placed) in &self.changes {
            if *placed {
                gpu.set_record_world(*slot, record)?;
            } else {
                gpu.set_record(*slot, record)?;
            }
        }
        if let Some(shift) = self.epoch_shift {
            gpu.rebase_frame_time(shift as f32);
        }
        Ok(())
    }
}

//! The previous palette of motion vectors, CPU twin of `wgsl/previous_palette.wgsl`: before an
//! evaluation overwrites an instance's palette block, its joint and morph weight entries (the
//! pose last shown) are kept and its slot is stamped with the evaluation's frame counter plus
//! one. Instances an evaluation skips (update-rate LOD, freeze, culling) keep entries and
//! stamp. A renderer then takes an entry's previous value from the kept palette where the
//! slot's stamp is the last evaluation's, and the current entry otherwise
//! ([`PreviousPalette::previous_entry`], twin of `sinew_previous_bone` in
//! `wgsl/render/skinning.wgsl`): a character not evaluated this frame shows the pose it
//! showed last frame, so its skinned velocity is zero.

use crate::baked::Rig;
use crate::error::EvalError;
use crate::instance::InstanceRecord;
use crate::math::Mat3x4Rows;

/// Kept entries (indexed as the palette) and one evaluated-at stamp per slot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PreviousPalette {
    entries: Vec<Mat3x4Rows>,
    stamps: Vec<u32>,
}

impl PreviousPalette {
    /// An empty previous palette (every stamp 0: never evaluated).
    pub fn new() -> Self {
        Self::default()
    }

    /// Before an evaluation with frame counter `frame` overwrites the blocks of the slots
    /// `evaluated` (indices into `instances`; empty records are passed over): keeps each one's
    /// joint and morph weight entries ([`Rig::ik_entry_offset`] entries from its palette offset)
    /// from `palette` and stamps it `frame + 1`. Fails with [`EvalError::NoSuchRig`] for a
    /// record naming a rig not in `rigs` and [`EvalError::OutputSize`] for a block past
    /// `palette` or a slot past `instances`.
    pub fn keep(
        &mut self,
        rigs: &[Rig],
        instances: &[InstanceRecord],
        evaluated: &[u32],
        frame: u32,
        palette: &[Mat3x4Rows],
    ) -> Result<(), EvalError> {
        if self.entries.len() < palette.len() {
            self.entries.resize(palette.len(), Mat3x4Rows::default());
        }
        if self.stamps.len() < instances.len() {
            self.stamps.resize(instances.len(), 0);
        }
        for &slot in evaluated {
            let rec = instances.get(slot as usize).ok_or(EvalError::OutputSize {
                expected: slot as usize + 1,
                found: instances.len(),
            })?;
            if rec.is_empty() {
                continue;
            }
            let rig = rigs.get(rec.rig as usize).ok_or(EvalError::NoSuchRig {
                rig: rec.rig,
                rig_count: rigs.len(),
            })?;
            let start = rec.palette_offset as usize;
            let end = start + rig.ik_entry_offset();
            let block = palette.get(start..end).ok_or(EvalError::OutputSize {
                expected: end,
                found: palette.len(),
            })?;
            self.entries[start..end].copy_from_slice(block);
            self.stamps[slot as usize] = frame.wrapping_add(1);
        }
        Ok(())
    }

    /// The kept entries, indexed as the palette (entries never kept are zero).
    pub fn entries(&self) -> &[Mat3x4Rows] {
        &self.entries
    }

    /// One stamp per slot: the frame counter of its last evaluation plus one (0: never).
    pub fn stamps(&self) -> &[u32] {
        &self.stamps
    }

    /// The previous value of palette entry `entry` of the instance in `slot`, after an
    /// evaluation that stamped `stamp`: the kept entry where the slot's stamp is `stamp`, else
    /// the current one from `palette`. `None` for an entry past `palette`.
    pub fn previous_entry(
        &self,
        slot: u32,
        entry: u32,
        stamp: u32,
        palette: &[Mat3x4Rows],
    ) -> Option<Mat3x4Rows> {
        let moved = self.stamps.get(slot as usize) == Some(&stamp);
        let kept = self.entries.get(entry as usize).filter(|_| moved);
        kept.or_else(|| palette.get(entry as usize)).copied()
    }
}

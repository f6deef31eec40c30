//! Checking instance records before the CPU backends evaluate them: one record against the
//! rigs and masks ([`validate_record`]), a frame's records in palette order
//! ([`order_records`]), and the records of the last frame that passed, kept so that a frame
//! whose records, palette length and mask count are the same bytes as then reuses that frame's
//! order instead of checking every record again. Records carry their own clocks and fades, so
//! a crowd's records change on events, not every frame; a changed frame is checked in full.

use super::blend::validate_layer_parts;
use super::retarget::check_retargeted;
use super::validate_layers;
use crate::MAX_LAYERS;
use crate::baked::Rig;
use crate::baked::retarget_map::RetargetBinding;
use crate::error::EvalError;
use crate::inertialization::Inertialization;
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
        retargets: &[RetargetBinding],
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
        order_records(rigs, masks, retargets, instances, palette_len, order)?;
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

/// Checks one record against `rigs`, `masks` and `retargets`: rig, layer count, clips (a
/// retargeted layer's map and its source rig's clip), masks, finite numbers, palette range
/// inside `palette_len`. Returns the palette range.
pub(crate) fn validate_record(
    rigs: &[Rig],
    masks: &[JointMask],
    retargets: &[RetargetBinding],
    rec: &InstanceRecord,
    palette_len: usize,
) -> Result<std::ops::Range<usize>, EvalError> {
    let rig = rigs.get(rec.rig as usize).ok_or(EvalError::NoSuchRig {
        rig: rec.rig,
        rig_count: rigs.len(),
    })?;
    if rec.layer_count as usize > MAX_LAYERS {
        return Err(EvalError::BadLayer {
            reason: format!("{} layers, at most {MAX_LAYERS}", rec.layer_count),
        });
    }
    for layer in rec.used_layers() {
        if !layer.is_well_formed() {
            return Err(EvalError::BadLayer {
                reason: format!(
                    "clip {} has a clock or fade that is not finite, a negative fade rate or a \
                     wrap with a negative period",
                    layer.clip
                ),
            });
        }
        let resolved = layer.to_layer_at(layer.anchor);
        if check_retargeted(rigs, retargets, rec.rig, std::slice::from_ref(layer))? {
            validate_layer_parts(rig, masks, &resolved)?;
        } else {
            validate_layers(rig, masks, &[resolved])?;
        }
    }
    if let Some(t) = rec.inertialization() {
        validate_inertialization(rig, masks, rec, &t)?;
        let end = t.block_end(rig.joint_count());
        if end > palette_len as u64 {
            return Err(EvalError::OutputSize {
                expected: end as usize,
                found: palette_len,
            });
        }
    }
    let start = rec.palette_offset as usize;
    let end = start + rig.palette_entries();
    if end > palette_len {
        return Err(EvalError::OutputSize {
            expected: end,
            found: palette_len,
        });
    }
    Ok(start..end)
}

/// Checks an inertialized record's descriptor and outgoing layers, which its capture samples.
fn validate_inertialization(
    rig: &Rig,
    masks: &[JointMask],
    rec: &InstanceRecord,
    t: &Inertialization,
) -> Result<(), EvalError> {
    t.check(rec, rig.joint_count())?;
    for layer in rec.outgoing_layers() {
        if !layer.is_well_formed() {
            return Err(EvalError::BadLayer {
                reason: format!(
                    "outgoing clip {} has a clock or fade that is not finite",
                    layer.clip
                ),
            });
        }
        validate_layers(rig, masks, &[layer.to_layer_at(layer.anchor)])?;
    }
    Ok(())
}

/// Fills `order` with the indices of the records ascending by palette offset, leaving out
/// empty ones ([`InstanceRecord::EMPTY`], skipped as the GPU kernel skips them), checking every
/// record ([`validate_record`]) and that no two palette ranges overlap. Both CPU backends split
/// their work along this order.
pub(crate) fn order_records(
    rigs: &[Rig],
    masks: &[JointMask],
    retargets: &[RetargetBinding],
    instances: &[InstanceRecord],
    palette_len: usize,
    order: &mut Vec<u32>,
) -> Result<(), EvalError> {
    order.clear();
    order.extend((0..instances.len() as u32).filter(|&i| !instances[i as usize].is_empty()));
    if !order
        .windows(2)
        .all(|w| instances[w[0] as usize].palette_offset <= instances[w[1] as usize].palette_offset)
    {
        order.sort_unstable_by_key(|&i| instances[i as usize].palette_offset);
    }
    let mut end = 0;
    for &i in order.iter() {
        let range = validate_record(rigs, masks, retargets, &instances[i as usize], palette_len)?;
        if range.start < end {
            return Err(EvalError::PaletteOverlap {
                instance: i as usize,
                offset: range.start as u32,
            });
        }
        end = range.end;
    }
    Ok(())
}

//! The records evaluated on the CPU: the palette (with the IK targets the host wrote into each
//! entity's block) and one bounding box per record.

use hecs::{Entity, World};

use super::{Animated, Animator};
use crate::baked::ik::{IkTarget, encode_ik_targets};
use crate::error::EvalError;
use crate::math::{Aabb, Mat3x4Rows};
use crate::runtime::RuntimeError;
use crate::runtime::schedule::Scheduling;

/// The output of [`Animator::evaluate_cpu`].
#[derive(Clone, Copy, Debug)]
pub struct EvaluatedPose<'a> {
    /// The whole palette; each record's entries start at its `palette_offset`.
    pub palette: &'a [Mat3x4Rows],
    /// One animated bounding box per record.
    pub bounds: &'a [Aabb],
}

impl Animator {
    /// Writes `entity`'s IK targets (one per constraint of its rig, [`crate::RigIk`]) into its
    /// palette block of the CPU palette, where [`Animator::evaluate_cpu`] reads them every
    /// frame until written again (the GPU backend's copy: [`crate::GpuBackend::set_ik_targets`]
    /// with [`Animator::record_of`]). The entity must have been updated once; its targets are
    /// cleared when it gives up its block (despawned, or moved to another rig).
    pub fn set_ik_targets(
        &mut self,
        world: &World,
        entity: Entity,
        targets: &[IkTarget],
    ) -> Result<(), RuntimeError> {
        let missing = || RuntimeError::NoSuchEntity {
            entity: format!("{entity:?}"),
            component: "palette block (an update with Animated)",
        };
        let animated = world.get::<&Animated>(entity).map_err(|_| missing())?;
        let block = match self.tracked.get(animated.slot as usize) {
            Some(t) if t.live && t.entity == entity => t.block,
            _ => return Err(missing()),
        };
        let capacity = self.palette.capacity() as usize;
        if self.pose.len() != capacity {
            self.pose.resize(capacity, Mat3x4Rows::IDENTITY);
        }
        self.forget_stale_ik();
        let rig = self
            .backend
            .rigs()
            .get(animated.rig as usize)
            .ok_or_else(|| RuntimeError::UnknownRig {
                rig: format!("#{}", animated.rig),
            })?;
        let start = block.offset as usize + rig.ik_entry_offset();
        let end = block.offset as usize + block.len as usize;
        let entries = self.pose.get_mut(start..end).ok_or(EvalError::OutputSize {
            expected: end,
            found: capacity,
        })?;
        encode_ik_targets(&rig.name, targets, entries).map_err(EvalError::from)?;
        let held = (animated.slot, entity, block);
        if !self.ik_blocks.contains(&held) {
            self.ik_blocks.push(held);
        }
        Ok(())
    }

    /// Resets the blocks whose IK targets belong to an entity that no longer holds them.
    fn forget_stale_ik(&mut self) {
        let tracked = &self.tracked;
        let pose = &mut self.pose;
        self.ik_blocks.retain(|&(slot, entity, block)| {
            let held = tracked
                .get(slot as usize)
                .is_some_and(|t| t.live && t.entity == entity && t.block == block);
            if !held {
                let range = block.offset as usize..(block.offset + block.len) as usize;
                if let Some(entries) = pose.get_mut(range) {
                    entries.fill(Mat3x4Rows::IDENTITY);
                }
            }
            held
        });
    }

    /// [`crate::CpuBackend::bytes_read_per_joint`] of the last [`Animator::evaluate_cpu`].
    pub fn cpu_bytes_read_per_joint(&self) -> f64 {
        self.backend.bytes_read_per_joint()
    }

    /// Evaluates this frame's records with the CPU backend: the palette (indexed by each
    /// record's `palette_offset`) and one bounding box per record ([`Animator::records`]), or
    /// per slot ([`Animator::slot_records`]) in [`Scheduling::EventDriven`] mode.
    pub fn evaluate_cpu(&mut self) -> Result<EvaluatedPose<'_>, RuntimeError> {
        let capacity = self.palette.capacity() as usize;
        if self.pose.len() != capacity {
            self.pose.resize(capacity, Mat3x4Rows::IDENTITY);
        }
        if !self.ik_blocks.is_empty() {
            self.forget_stale_ik();
        }
        let now = self.frame_time();
        // Event-driven updates hold only the updated entities' records: evaluate the slots.
        let records = match self.scheduling {
            Scheduling::PerFrame => &self.records,
            Scheduling::EventDriven => &self.slot_records,
        };
        self.bounds.resize(records.len(), Aabb::EMPTY);
        self.backend
            .evaluate_at(now, records, &mut self.pose, &mut self.bounds)?;
        Ok(EvaluatedPose {
            palette: &self.pose,
            bounds: &self.bounds,
        })
    }
}

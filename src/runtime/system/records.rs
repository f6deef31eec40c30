//! The records the animator hands out (this update's, each slot's held one, the changed and
//! placed slots, the frame time they are read at): a new record replaces the one its slot holds
//! only when it describes different motion (within the stated tolerances), and every held
//! record moves to a new epoch when frame times restart.

use hecs::{Entity, World};

use super::{Animated, Animator};
use crate::cpu::{layer_rate, layer_time, layer_weight};
use crate::instance::{InstanceRecord, LayerRecord, MAX_LAYERS, TimeWrap};
use crate::runtime::input_ramp::ramp_area;

/// Frame times are `f32` seconds since an epoch; the epoch moves forward (and every record is
/// re-anchored to it) once this many seconds have passed, so times keep a precision of about
/// 0.1 ms however long the animator runs.
pub const EPOCH_SPAN: f64 = 1024.0;

/// A record is kept (not written again) while its clip times at the frame time are within this
/// many seconds of the runtime's own, its weights within [`RECORD_WEIGHT_TOLERANCE`], its clock
/// rates within this fraction, and everything else equal.
pub const RECORD_TIME_TOLERANCE: f32 = 1e-4;

/// See [`RECORD_TIME_TOLERANCE`].
pub const RECORD_WEIGHT_TOLERANCE: f32 = 1e-4;

impl Animator {
    /// This frame's instance records, one per animated entity, for the GPU pipeline.
    pub fn records(&self) -> &[InstanceRecord] {
        &self.records
    }

    /// The entity of each record.
    pub fn record_entities(&self) -> &[Entity] {
        &self.record_entities
    }

    /// The frame time of the last update: seconds since the current epoch, what the records'
    /// clocks and fades are read at ([`crate::GpuBackend::evaluate_resident`],
    /// [`crate::CpuBackend::evaluate_at`]).
    pub fn frame_time(&self) -> f32 {
        (self.now - self.epoch) as f32
    }

    /// The seconds frame times moved back by in the last update, when the epoch moved
    /// ([`EPOCH_SPAN`]): pass them to [`crate::GpuBackend::rebase_frame_time`] before that
    /// frame's evaluation (every record changed and is uploaded again).
    pub fn epoch_shift(&self) -> Option<f64> {
        self.rebased
    }

    /// Seconds of animation time since the animator was made.
    pub fn elapsed(&self) -> f64 {
        self.now
    }

    /// The GPU-resident form of the records: one per tracking slot, [`InstanceRecord::EMPTY`]
    /// for free slots. A record changes only when the entity's motion does.
    pub fn slot_records(&self) -> &[InstanceRecord] {
        &self.slot_records
    }

    /// The slots whose record changed in the last update, ascending: what to upload
    /// ([`crate::GpuBackend::set_record`]).
    pub fn changed_slots(&self) -> &[u32] {
        &self.changed
    }

    /// Of [`Animator::changed_slots`], those whose world transform was placed (a new entity, or
    /// its [`crate::runtime::Transform`] set): for an entity with root motion on the GPU
    /// ([`crate::runtime::RootMotion::on_gpu`]) the GPU owns the record's world, and only these uploads
    /// replace it ([`crate::GpuBackend::set_record_world`]).
    pub fn placed_slots(&self) -> &[u32] {
        &self.placed
    }

    /// `entity`'s record from the last update.
    pub fn record_of(&self, world: &World, entity: Entity) -> Option<&InstanceRecord> {
        let slot = self.slot_of(world, entity)?;
        self.slot_records
            .get(slot as usize)
            .filter(|r| !r.is_empty())
    }

    /// `entity`'s tracking slot while the animator tracks it: its index in
    /// [`Animator::slot_records`] (and in the boxes of an evaluation over them).
    pub fn slot_of(&self, world: &World, entity: Entity) -> Option<u32> {
        let slot = world.get::<&Animated>(entity).ok()?.slot;
        let t = self.tracked.get(slot as usize)?;
        (t.live && t.entity == entity).then_some(slot)
    }

    /// Record index of `entity` (tracking slot `slot`) in this update.
    pub(super) fn record_index(&self, entity: Entity, slot: u32) -> Option<usize> {
        let t = self.tracked.get(slot as usize)?;
        (t.live && t.entity == entity && t.seen == self.frame).then_some(t.record as usize)
    }

    /// `entity`'s record as of this update: the one just built, or the one its slot holds.
    pub(super) fn current_record(&self, entity: Entity, slot: u32) -> Option<InstanceRecord> {
        if let Some(i) = self.record_index(entity, slot) {
            return Some(self.records[i]);
        }
        let t = self.tracked.get(slot as usize)?;
        (t.live && t.entity == entity)
            .then(|| self.slot_records.get(slot as usize).copied())
            .flatten()
            .filter(|r| !r.is_empty())
    }
    /// Moves every held record's clocks and fades to the new epoch (frame times restart near 0)
    /// and lists their slots as changed.
    pub(super) fn rebase_records(&mut self) {
        let shift = self.epoch - self.rebased_from;
        self.rebased_from = self.epoch;
        self.rebased = Some(shift);
        for (slot, rec) in self.slot_records.iter_mut().enumerate() {
            if rec.is_empty() {
                continue;
            }
            for layer in rec.layers.iter_mut().take(rec.layer_count as usize) {
                *layer = reanchored(layer, shift);
            }
            if let Some(mut t) = rec.inertialization() {
                // The descriptor's start and the outgoing layers move to the new epoch too.
                t.start = (f64::from(t.start) - shift) as f32;
                let mut outgoing = [LayerRecord::STILL; MAX_LAYERS];
                let n = rec.outgoing_layers().len();
                for (out, layer) in outgoing.iter_mut().zip(rec.outgoing_layers()) {
                    *out = reanchored(layer, shift);
                }
                let plain = rec.without_inertialization();
                *rec = plain.inertialized(&outgoing[..n], t).unwrap_or(plain);
            }
            self.changed.push(slot as u32);
        }
    }

    /// Compares each new record with the one its slot holds: a record that still describes the
    /// same motion ([`RECORD_TIME_TOLERANCE`]) is replaced by the held one, so the slot needs no
    /// upload; the others are stored and their slots listed in [`Animator::changed_slots`]
    /// (after the slots a rebase rewrote).
    pub(super) fn commit(&mut self) {
        let now = self.frame_time();
        if self.slot_records.len() < self.tracked.len() {
            self.slot_records
                .resize(self.tracked.len(), InstanceRecord::EMPTY);
        }
        let rigs = self.backend.rigs();
        let joints =
            |rec: &InstanceRecord| rigs.get(rec.rig as usize).map_or(0, |r| r.joint_count());
        for (rec, &slot) in self.records.iter_mut().zip(&self.record_slots) {
            let held = &mut self.slot_records[slot as usize];
            // Inertialized transitions: started from the held record, kept while decaying.
            let counts = (joints(held), joints(rec));
            *rec = self
                .inertial
                .update(&mut self.palette, held, *rec, counts, now);
            if same_motion(held, rec, now) {
                *rec = *held;
            } else {
                if held.is_empty() || held.world != rec.world {
                    self.placed.push(slot);
                }
                *held = *rec;
                self.changed.push(slot);
            }
            self.inertial.held(slot, held);
        }
        // Transitions that have decayed give their blocks back now, not at their entity's next
        // update (an event-driven entity may sleep for seconds).
        let held = &mut self.slot_records;
        (self.inertial).sweep(&mut self.palette, held, joints, now);
        for slot in self.freed.drain(..) {
            let t = &self.tracked[slot as usize];
            if !t.live && !self.slot_records[slot as usize].is_empty() {
                let held = self.slot_records[slot as usize];
                self.inertial
                    .release(&mut self.palette, &held, joints(&held));
                self.slot_records[slot as usize] = InstanceRecord::EMPTY;
                self.changed.push(slot);
            }
        }
        self.changed.sort_unstable();
        self.changed.dedup();
        self.placed.sort_unstable();
        self.placed.dedup();
    }
}

/// Whether `held` still describes the motion of `new` at frame time `now`: the same rig,
/// palette block, flags, world and layers (clip, mask, mode, wrap, period), clip times and
/// weights at `now` within the tolerances, and clock rates within [`RECORD_TIME_TOLERANCE`]
/// relative.
fn same_motion(held: &InstanceRecord, new: &InstanceRecord, now: f32) -> bool {
    if held.rig != new.rig
        || held.palette_offset != new.palette_offset
        || held.layer_count != new.layer_count
        || held.flags != new.flags
        || held.world != new.world
    {
        return false;
    }
    held.used_layers()
        .iter()
        .zip(new.used_layers())
        .all(|(a, b)| {
            let (ta, tb) = (layer_time(a, now), layer_time(b, now));
            let (ra, rb) = (layer_rate(a, now), layer_rate(b, now));
            let mut dt = (ta - tb).abs();
            if a.wrap() == TimeWrap::Loop {
                dt = dt.min(a.period - dt);
            }
            a.clip == b.clip
                && a.flags == b.flags
                && a.period == b.period
                && dt <= RECORD_TIME_TOLERANCE
                && (ra - rb).abs() <= RECORD_TIME_TOLERANCE * ra.abs().max(1.0)
                && (layer_weight(a, now) - layer_weight(b, now)).abs() <= RECORD_WEIGHT_TOLERANCE
        })
}

/// `layer` re-anchored at frame time 0 of an epoch `shift` seconds after its own (where the
/// frame time is now `now`): the same clip time and weight at every instant.
fn reanchored(layer: &LayerRecord, shift: f64) -> LayerRecord {
    let mut out = *layer;
    // Unwrapped position at the new epoch's time 0, in f64, folded back into one cycle.
    let mut at = f64::from(layer.time) + f64::from(layer.rate) * (shift - f64::from(layer.anchor));
    let rate = f64::from(layer.fade_rate);
    if layer.rate_gain != 0.0 && rate > 0.0 {
        // The clock's gain over the fade's progress (see `crate::cpu::layer_unwrapped_time`).
        let area = |t: f64| ramp_area((t - f64::from(layer.fade_start)) * rate);
        at += f64::from(layer.rate_gain) * (area(shift) - area(f64::from(layer.anchor))) / rate;
    }
    let period = f64::from(layer.period);
    out.time = match layer.wrap() {
        TimeWrap::None => at,
        TimeWrap::Loop => at.rem_euclid(period),
        TimeWrap::Clamp => at.clamp(0.0, period),
        TimeWrap::PingPong => at.rem_euclid(2.0 * period),
    } as f32;
    out.anchor = 0.0;
    if layer.fade_rate > 0.0 {
        let start = f64::from(layer.fade_start) - shift;
        if -start * f64::from(layer.fade_rate) >= 1.0 {
            // Long complete: the weight holds, and the clock runs at its final rate.
            out.fade_rate = 0.0;
            out.fade_start = 0.0;
            out.rate += out.rate_gain;
            out.rate_gain = 0.0;
        } else {
            out.fade_start = start as f32;
        }
    }
    out
}

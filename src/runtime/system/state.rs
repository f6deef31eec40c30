//! The animator's own runtime state, for runtime snapshots (`snapshot.rs`): its clock and
//! epoch, the tracking table and palette blocks, the records it holds, the event-driven
//! schedule, the touched entities and the events not yet drained. Everything an update reads
//! from the last one is here, so a restored animator continues exactly where it was.

use hecs::Entity;

use super::{Animated, Animator, Tracked};
use crate::instance::{InstanceRecord, MAX_LAYERS};
use crate::palette::{PaletteAllocator, PaletteBlock};
use crate::runtime::schedule::{Schedule, Scheduling};

/// The animator's state between two updates (the scratch it reuses is not part of it).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct AnimatorState {
    /// Update counter.
    frame: u32,
    /// Seconds of animation time since the animator was made.
    now: f64,
    /// The epoch frame times count from.
    epoch: f64,
    /// The epoch the held records are anchored in.
    rebased_from: f64,
    /// The epoch shift of the last update, if any.
    rebased: Option<f64>,
    scheduling: Scheduling,
    tracked: Vec<TrackedState>,
    free_slots: Vec<u32>,
    palette: PaletteAllocator,
    /// The last serial of an inertialized transition (0 in snapshots from before them).
    #[serde(default)]
    inertial_serial: u32,
    /// The last update's records, as the `u32` words of each [`InstanceRecord`].
    records: Vec<u32>,
    record_entities: Vec<u64>,
    record_slots: Vec<u32>,
    /// The record each tracking slot holds, as words.
    slot_records: Vec<u32>,
    changed: Vec<u32>,
    placed: Vec<u32>,
    schedule: Schedule,
    /// Entities touched since the last update.
    touched: Vec<u64>,
    world_len: u32,
    rolling: usize,
    /// Events fired and not yet drained: entity, name, clip.
    events: Vec<(u64, String, u32)>,
}

/// One tracking slot.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct TrackedState {
    entity: u64,
    block: PaletteBlock,
    seen: u32,
    record: u32,
    live: bool,
}

/// `u32` words per record.
const RECORD_WORDS: usize = std::mem::size_of::<InstanceRecord>() / 4;

fn words(records: &[InstanceRecord]) -> Vec<u32> {
    bytemuck::cast_slice(records).to_vec()
}

fn entity(bits: u64, what: &str) -> Result<Entity, String> {
    Entity::from_bits(bits).ok_or_else(|| format!("{what}: {bits} is not an entity id"))
}

impl Animated {
    /// `Animated` for rig `rig` as tracked in slot `slot` (a restored entity).
    pub(crate) const fn restored(rig: u32, slot: u32) -> Self {
        Self { rig, slot }
    }

    /// The tracking slot (`u32::MAX`: not tracked yet).
    pub(crate) const fn slot(&self) -> u32 {
        self.slot
    }
}

impl Animator {
    /// The state to save.
    pub(crate) fn runtime_state(&self) -> AnimatorState {
        let bits = |e: &Entity| e.to_bits().get();
        AnimatorState {
            frame: self.frame,
            now: self.now,
            epoch: self.epoch,
            rebased_from: self.rebased_from,
            rebased: self.rebased,
            scheduling: self.scheduling,
            tracked: self
                .tracked
                .iter()
                .map(|t| TrackedState {
                    entity: bits(&t.entity),
                    block: t.block,
                    seen: t.seen,
                    record: t.record,
                    live: t.live,
                })
                .collect(),
            free_slots: self.free_slots.clone(),
            palette: self.palette.clone(),
            inertial_serial: self.inertial.serial(),
            records: words(&self.records),
            record_entities: self.record_entities.iter().map(bits).collect(),
            record_slots: self.record_slots.clone(),
            slot_records: words(&self.slot_records),
            changed: self.changed.clone(),
            placed: self.placed.clone(),
            schedule: self.schedule.clone(),
            touched: self
                .touched
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .map(bits)
                .collect(),
            world_len: self.world_len,
            rolling: self.rolling,
            events: self
                .events
                .iter()
                .map(|e| (bits(&e.entity), e.name.to_string(), e.clip))
                .collect(),
        }
    }

    /// Replaces the animator's state by `state`, after checking that it is consistent and fits
    /// the rigs; on an error nothing changes.
    pub(crate) fn set_runtime_state(&mut self, state: &AnimatorState) -> Result<(), String> {
        let s = state;
        for (what, t) in [
            ("now", s.now),
            ("epoch", s.epoch),
            ("rebased_from", s.rebased_from),
        ] {
            if !t.is_finite() {
                return Err(format!("animator time {what} is not finite"));
            }
        }
        s.palette.check()?;
        let records = self.records_from(&s.records, "records")?;
        let slot_records = self.records_from(&s.slot_records, "slot_records")?;
        if s.record_entities.len() != records.len() || s.record_slots.len() != records.len() {
            return Err(format!(
                "{} records, {} record entities and {} record slots",
                records.len(),
                s.record_entities.len(),
                s.record_slots.len()
            ));
        }
        let mut tracked = Vec::with_capacity(s.tracked.len());
        for (slot, t) in s.tracked.iter().enumerate() {
            let e = entity(t.entity, &format!("tracking slot {slot}"))?;
            if t.live && !s.palette.is_live(t.block) {
                return Err(format!(
                    "tracking slot {slot} holds palette block {}+{}, which is not allocated",
                    t.block.offset, t.block.len
                ));
            }
            if t.live && t.seen == s.frame && t.record as usize >= records.len() {
                return Err(format!(
                    "tracking slot {slot} names record {} of {}",
                    t.record,
                    records.len()
                ));
            }
            tracked.push(Tracked {
                entity: e,
                block: t.block,
                seen: t.seen,
                record: t.record,
                live: t.live,
            });
        }
        let slot_in_range = |slot: &u32| (*slot as usize) < tracked.len();
        if let Some(slot) = s
            .free_slots
            .iter()
            .chain(&s.record_slots)
            .chain(&s.changed)
            .chain(&s.placed)
            .find(|s| !slot_in_range(s))
        {
            return Err(format!(
                "slot {slot} is outside the {} tracking slots",
                tracked.len()
            ));
        }
        if let Some(slot) = s.free_slots.iter().find(|&&f| tracked[f as usize].live) {
            return Err(format!("free slot {slot} is tracking a live entity"));
        }
        if slot_records.len() > tracked.len() {
            return Err(format!(
                "{} slot records for {} tracking slots",
                slot_records.len(),
                tracked.len()
            ));
        }
        let record_entities = s
            .record_entities
            .iter()
            .map(|&b| entity(b, "record entity"))
            .collect::<Result<Vec<_>, _>>()?;
        let touched = s
            .touched
            .iter()
            .map(|&b| entity(b, "touched entity"))
            .collect::<Result<Vec<_>, _>>()?;
        let events = s
            .events
            .iter()
            .map(|(b, name, clip)| Ok((entity(*b, "event")?, name.clone(), *clip)))
            .collect::<Result<Vec<_>, String>>()?;
        let mut schedule = s.schedule.clone();
        schedule.cover(tracked.len());

        // Everything checked: replace.
        self.frame = s.frame;
        self.now = s.now;
        self.epoch = s.epoch;
        self.rebased_from = s.rebased_from;
        self.rebased = s.rebased;
        self.scheduling = s.scheduling;
        self.tracked = tracked;
        self.free_slots = s.free_slots.clone();
        // The windows are this animator's device's, not the saved one's.
        let windows = self.palette.windows();
        self.palette = s.palette.clone();
        self.palette.set_windows(windows);
        self.inertial = crate::InertialTransitions::from_serial(s.inertial_serial, &slot_records);
        self.records = records;
        self.record_entities = record_entities;
        self.record_slots = s.record_slots.clone();
        self.slot_records = slot_records;
        self.changed = s.changed.clone();
        self.placed = s.placed.clone();
        self.freed.clear();
        self.schedule = schedule;
        *self.touched.lock().unwrap_or_else(|e| e.into_inner()) = touched;
        self.world_len = s.world_len;
        self.rolling = s.rolling;
        self.events.replace(&events);
        self.due.clear();
        self.scratch = super::event_driven::Scratch::default();
        Ok(())
    }

    /// Records from their words, each empty or of an existing rig with at most
    /// [`MAX_LAYERS`] layers.
    fn records_from(&self, words: &[u32], what: &str) -> Result<Vec<InstanceRecord>, String> {
        if !words.len().is_multiple_of(RECORD_WORDS) {
            return Err(format!(
                "{what}: {} words is not a whole number of {RECORD_WORDS}-word records",
                words.len()
            ));
        }
        let records: Vec<InstanceRecord> = bytemuck::pod_collect_to_vec(words);
        let rigs = self.rigs().len();
        if let Some(i) = records.iter().position(|r| {
            !r.is_empty() && (r.rig as usize >= rigs || r.layer_count as usize > MAX_LAYERS)
        }) {
            return Err(format!(
                "{what} {i}: rig #{} with {} layers does not fit the animator",
                records[i].rig, records[i].layer_count
            ));
        }
        Ok(records)
    }
}

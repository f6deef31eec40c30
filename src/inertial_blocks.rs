//! Starting and ending inertialized transitions on records a host writes: each instance in
//! transition holds an inertialization block from the palette's allocator, a transition takes
//! a new serial, and one that interrupts a transition still decaying reuses its block, chained,
//! so that its outgoing pose keeps the offset in flight.

use crate::inertialization::{Inertialization, inertial_block_entries};
use crate::instance::{InstanceRecord, MAX_LAYERS};
use crate::palette::{PaletteAllocator, PaletteBlock};

/// Serials for the inertialized transitions of a set of records (see the module
/// documentation).
#[derive(Clone, Debug)]
pub struct InertialTransitions {
    serial: u32,
    /// Slots whose held record may be in a transition ([`InertialTransitions::sweep`]).
    active: Vec<u32>,
}

impl Default for InertialTransitions {
    fn default() -> Self {
        Self::new()
    }
}

impl InertialTransitions {
    /// No transition started yet.
    pub const fn new() -> Self {
        Self {
            serial: 0,
            active: Vec::new(),
        }
    }

    /// Serials continuing after `serial` (a restored animator's) for `held`, the records each
    /// slot holds.
    pub(crate) fn from_serial(serial: u32, held: &[InstanceRecord]) -> Self {
        let active = (0u32..).zip(held);
        Self {
            serial,
            active: active
                .filter(|(_, r)| r.inertialization().is_some())
                .map(|(slot, _)| slot)
                .collect(),
        }
    }

    /// Notes that slot `slot` now holds `rec`: a transition to end in time when it has one
    /// ([`InertialTransitions::sweep`]).
    pub(crate) fn held(&mut self, slot: u32, rec: &InstanceRecord) {
        if rec.inertialization().is_some() {
            self.active.push(slot);
        }
    }

    /// Ends every transition of `held` (the records per slot) whose offset has decayed at frame
    /// time `now`, whether or not its instance was updated: its block goes back to `palette`
    /// and its record loses the descriptor, without being written again (an expired
    /// descriptor neither samples nor writes its block: the kernel and the CPU backends skip
    /// it). `joints` gives a record's rig's joint count.
    pub(crate) fn sweep(
        &mut self,
        palette: &mut PaletteAllocator,
        held: &mut [InstanceRecord],
        joints: impl Fn(&InstanceRecord) -> usize,
        now: f32,
    ) {
        self.active.sort_unstable();
        self.active.dedup();
        self.active.retain(|&slot| {
            let Some(rec) = held.get_mut(slot as usize) else {
                return false;
            };
            match rec.inertialization() {
                Some(t) if now - t.start >= t.duration => {
                    palette.free(block_of(&t, joints(rec)));
                    *rec = rec.without_inertialization();
                    false
                }
                Some(_) => true,
                None => false,
            }
        });
    }

    /// The last serial handed out (0: none).
    pub(crate) const fn serial(&self) -> u32 {
        self.serial
    }

    /// `incoming` (the instance's record with its new layers) inertialized from `held` (the
    /// record it had) from frame time `now` over `duration` seconds; `joints`: its rig's joint
    /// count. The outgoing layers are `held`'s used layers; where `held` is inertialized its
    /// block is reused, chained while its offset still decays at `now`; otherwise a block comes
    /// from `palette`. Where the layers do not fit ([`MAX_LAYERS`] slots for the incoming and
    /// outgoing layers and the descriptor), `duration` is not above 0, `held` is empty or no
    /// block can be had, `incoming` comes back as it is: a cut (with `held`'s block freed).
    pub fn start(
        &mut self,
        palette: &mut PaletteAllocator,
        held: &InstanceRecord,
        incoming: InstanceRecord,
        joints: usize,
        now: f32,
        duration: f32,
    ) -> InstanceRecord {
        let incoming = incoming.without_inertialization();
        let previous = held.inertialization();
        let outgoing = held.used_layers();
        let fits = incoming.used_layers().len() + outgoing.len() < MAX_LAYERS;
        if !fits || held.is_empty() || duration.is_nan() || duration <= 0.0 {
            if let Some(p) = previous {
                palette.free(block_of(&p, joints));
            }
            return incoming;
        }
        let block = match previous {
            Some(p) => Some(p.block),
            // In the instance's palette window, where a windowed palette binds it.
            None => palette
                .allocate_beside(
                    inertial_block_entries(joints as u32),
                    incoming.palette_offset,
                )
                .map(|b| b.offset),
        };
        let Some(block) = block else {
            return incoming;
        };
        // A reused block's header holds its last serial: take one past both.
        let last = previous.map_or(0, |p| p.serial);
        self.serial = Inertialization::next_serial(self.serial.max(last));
        let transition = Inertialization {
            block,
            serial: self.serial,
            start: now,
            duration,
            outgoing: 0,
            chained: previous.is_some_and(|p| now - p.start < p.duration),
        };
        // Cannot fail: the slots were counted above, the duration and serial are in range.
        incoming
            .inertialized(outgoing, transition)
            .unwrap_or(incoming)
    }

    /// `rec`, the new record of an instance whose record was `held` (`held_joints` and
    /// `joints`: their rigs' joint counts): a request
    /// ([`InstanceRecord::with_inertial_request`]) starts a transition from `held`
    /// ([`InertialTransitions::start`]); a record without one keeps `held`'s inertialization
    /// (its outgoing layers and descriptor) while the offset decays and the layers fit, and
    /// otherwise `held`'s block is freed.
    pub(crate) fn update(
        &mut self,
        palette: &mut PaletteAllocator,
        held: &InstanceRecord,
        rec: InstanceRecord,
        joints: (usize, usize),
        now: f32,
    ) -> InstanceRecord {
        let (held_joints, joints) = joints;
        let same_rig = !held.is_empty() && held.rig == rec.rig;
        if let Some(duration) = rec.inertial_request() {
            if !same_rig {
                self.release(palette, held, held_joints);
                return rec.without_inertialization();
            }
            return self.start(palette, held, rec, joints, now, duration);
        }
        let Some(h) = held.inertialization().filter(|_| !held.is_empty()) else {
            return rec;
        };
        let outgoing = held.outgoing_layers();
        if same_rig
            && now - h.start < h.duration
            && rec.used_layers().len() + outgoing.len() < MAX_LAYERS
            && let Ok(kept) = rec.without_inertialization().inertialized(outgoing, h)
        {
            return kept;
        }
        palette.free(block_of(&h, held_joints));
        rec.without_inertialization()
    }

    /// Frees the block of `held` (of a rig of `joints` joints), if it is inertialized.
    pub(crate) fn release(
        &mut self,
        palette: &mut PaletteAllocator,
        held: &InstanceRecord,
        joints: usize,
    ) {
        if let Some(h) = held.inertialization().filter(|_| !held.is_empty()) {
            palette.free(block_of(&h, joints));
        }
    }

    /// `rec` without its inertialization once the offset has decayed at frame time `now`, its
    /// block freed to `palette`; `rec` itself before then (or when it is not inertialized).
    pub fn finish(
        &mut self,
        palette: &mut PaletteAllocator,
        rec: InstanceRecord,
        joints: usize,
        now: f32,
    ) -> InstanceRecord {
        match rec.inertialization() {
            Some(t) if now - t.start >= t.duration => {
                palette.free(block_of(&t, joints));
                rec.without_inertialization()
            }
            _ => rec,
        }
    }
}

/// The palette block of `t`'s inertialization block.
fn block_of(t: &Inertialization, joints: usize) -> PaletteBlock {
    PaletteBlock {
        offset: t.block,
        len: inertial_block_entries(joints as u32),
    }
}

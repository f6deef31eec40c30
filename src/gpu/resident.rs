//! The CPU side of the GPU-resident instance records: a mirror of the record buffer, the slots
//! written since the last upload, and the dispatch plan over the slots. Pure bookkeeping, no
//! device: [`super::GpuBackend`] turns it into one upload and one dispatch per palette window.
//!
//! A slot holds one instance's [`InstanceRecord`] from when it is written until it is cleared;
//! the GPU derives every frame's clip times and weights from it, so a slot is written only when
//! the instance's motion changes. A cleared slot holds [`ResidentTable::EMPTY`], which the
//! kernel skips (its rig does not exist).
//!
//! The GPU owns the `world` of a slot whose record has [`InstanceRecord::GPU_ROOT_MOTION`] once
//! it is placed (the kernel moves it): writing such a slot again with the flag uploads the record
//! around its world bytes and keeps the mirror's placed world. The world goes up only when the
//! slot is newly filled (it held an empty record or one without the flag) or explicitly placed
//! ([`ResidentTable::place`]); that upload carries [`InstanceRecord::WORLD_PLACED`].

use std::ops::Range;

use crate::instance::InstanceRecord;

/// One dispatch of the plan: consecutive slots whose palette blocks start inside one palette
/// window (empty slots go anywhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dispatch {
    /// First slot.
    pub first: u32,
    /// Number of slots.
    pub count: u32,
    /// Palette window index (0 when the palette fits one binding).
    pub window: u32,
}

/// What the next upload writes of a slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Write {
    /// Nothing.
    #[default]
    None,
    /// Every byte but the world (the GPU owns it).
    AroundWorld,
    /// The whole record.
    Whole,
}

/// Bytes of one record.
const RECORD: u64 = std::mem::size_of::<InstanceRecord>() as u64;
/// The record bytes of the world ([`InstanceRecord::world`]).
pub(crate) const WORLD_BYTES: Range<u64> = 16..64;

/// Mirror, dirty set and dispatch plan of the resident records.
#[derive(Clone, Debug, Default)]
pub(crate) struct ResidentTable {
    mirror: Vec<InstanceRecord>,
    dirty: Vec<u32>,
    write: Vec<Write>,
    /// Slots whose last upload placed a root-motion world (their mirror carries
    /// [`InstanceRecord::WORLD_PLACED`] until [`ResidentTable::uploaded`]).
    placed: Vec<u32>,
    /// A slot's rig or palette offset changed, or the slot count did: the plan is stale.
    layout_changed: bool,
    plan: Vec<Dispatch>,
}

/// Whether `a` and `b` have the same bytes outside the world.
fn same_around_world(a: &InstanceRecord, b: &InstanceRecord) -> bool {
    let (a, b) = (bytemuck::bytes_of(a), bytemuck::bytes_of(b));
    let (lo, hi) = (WORLD_BYTES.start as usize, WORLD_BYTES.end as usize);
    a[..lo] == b[..lo] && a[hi..] == b[hi..]
}

impl ResidentTable {
    /// What an empty slot holds: a rig that never exists, so the kernel skips it.
    pub const EMPTY: InstanceRecord = InstanceRecord::EMPTY;

    /// Number of slots.
    pub fn len(&self) -> u32 {
        self.mirror.len() as u32
    }

    /// The records, by slot.
    pub fn records(&self) -> &[InstanceRecord] {
        &self.mirror
    }

    /// Grows or shrinks to `slots` slots (new ones empty and dirty).
    pub fn resize(&mut self, slots: u32) {
        let old = self.len();
        if slots == old {
            return;
        }
        self.mirror.resize(slots as usize, Self::EMPTY);
        self.write.resize(slots as usize, Write::None);
        if slots < old {
            self.dirty.retain(|&s| s < slots);
        } else {
            for slot in old..slots {
                self.mark(slot, Write::Whole);
            }
        }
        self.layout_changed = true;
    }

    /// Writes `record` to `slot` (growing the table when needed). Returns whether it differs
    /// from what the slot held: only then does it go up with the next upload. A slot whose world
    /// the GPU owns (held and new record both have [`InstanceRecord::GPU_ROOT_MOTION`]) is
    /// compared and uploaded around its world, and keeps the world it holds.
    pub fn set(&mut self, slot: u32, record: &InstanceRecord) -> bool {
        if slot >= self.len() {
            self.resize(slot + 1);
        }
        let held = &mut self.mirror[slot as usize];
        let gpu_world =
            !held.is_empty() && held.has_gpu_root_motion() && record.has_gpu_root_motion();
        let mut new = *record;
        let write = if gpu_world {
            new.world = held.world;
            Write::AroundWorld
        } else {
            Write::Whole
        };
        if bytemuck::bytes_of(held) == bytemuck::bytes_of(&new)
            || (gpu_world && same_around_world(held, &new))
        {
            return false;
        }
        self.store(slot, new, write);
        true
    }

    /// Writes `record` to `slot` whole, world included, even when the slot holds the same
    /// bytes: a root-motion world placed (spawn, teleport) where the GPU moved it.
    pub fn place(&mut self, slot: u32, record: &InstanceRecord) {
        if slot >= self.len() {
            self.resize(slot + 1);
        }
        self.store(slot, *record, Write::Whole);
    }

    fn store(&mut self, slot: u32, record: InstanceRecord, write: Write) {
        let held = &mut self.mirror[slot as usize];
        if held.rig != record.rig || held.palette_offset != record.palette_offset {
            self.layout_changed = true;
        }
        *held = record;
        self.mark(slot, write);
    }

    /// Empties `slot`.
    pub fn clear(&mut self, slot: u32) {
        if slot < self.len() {
            self.set(slot, &Self::EMPTY);
        }
    }

    fn mark(&mut self, slot: u32, write: Write) {
        let at = &mut self.write[slot as usize];
        if *at == Write::None {
            self.dirty.push(slot);
        }
        *at = (*at).max(write);
    }

    /// Whether a slot's rig or palette offset, or the slot count, changed since the last plan.
    pub fn layout_changed(&self) -> bool {
        self.layout_changed
    }

    /// Marks every slot for a whole upload (the GPU buffer was replaced and holds nothing).
    pub fn mark_all(&mut self) {
        for slot in 0..self.len() {
            self.mark(slot, Write::Whole);
        }
    }

    /// The bytes of the record buffer the dirty slots write, as ascending, disjoint, maximal
    /// byte ranges (a slot the GPU owns the world of skips [`WORLD_BYTES`]); clears the dirty
    /// set and returns the number of slots. Root-motion records written whole carry
    /// [`InstanceRecord::WORLD_PLACED`] in the mirror until [`ResidentTable::uploaded`].
    pub fn take_dirty(&mut self, out: &mut Vec<Range<u64>>) -> u64 {
        out.clear();
        self.dirty.sort_unstable();
        let mut push = |r: Range<u64>| match out.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ => out.push(r),
        };
        for &slot in &self.dirty {
            let at = u64::from(slot) * RECORD;
            let write = std::mem::take(&mut self.write[slot as usize]);
            let rec = &mut self.mirror[slot as usize];
            if write == Write::AroundWorld {
                push(at..at + WORLD_BYTES.start);
                push(at + WORLD_BYTES.end..at + RECORD);
            } else {
                if rec.has_gpu_root_motion() {
                    rec.flags |= InstanceRecord::WORLD_PLACED;
                    self.placed.push(slot);
                }
                push(at..at + RECORD);
            }
        }
        let slots = self.dirty.len() as u64;
        self.dirty.clear();
        slots
    }

    /// The upload of [`ResidentTable::take_dirty`]'s bytes is recorded: the evaluation clears
    /// [`InstanceRecord::WORLD_PLACED`] on the GPU, and the mirror follows.
    pub fn uploaded(&mut self) {
        for slot in self.placed.drain(..) {
            if let Some(rec) = self.mirror.get_mut(slot as usize) {
                rec.flags &= !InstanceRecord::WORLD_PLACED;
            }
        }
    }

    /// The dispatch plan, rebuilt when a slot's rig or palette offset changed since the last
    /// call or the window stride is not the one it was built for. `stride`: palette entries per
    /// window (`None`: one window); `max_slots`: most slots one dispatch may bind.
    pub fn plan(&mut self, stride: Option<u32>, max_slots: u32, rebuild: bool) -> &[Dispatch] {
        if self.layout_changed || rebuild {
            self.layout_changed = false;
            self.plan.clear();
            let max_slots = max_slots.max(1);
            for (slot, rec) in self.mirror.iter().enumerate() {
                let live = rec.rig != Self::EMPTY.rig;
                let window = stride.map_or(0, |s| rec.palette_offset / s);
                match self.plan.last_mut() {
                    Some(d) if d.count < max_slots && (!live || d.window == window) => {
                        d.count += 1;
                    }
                    _ => self.plan.push(Dispatch {
                        first: slot as u32,
                        count: 1,
                        window: if live { window } else { 0 },
                    }),
                }
                // A dispatch that began on empty slots takes the window of its first live one.
                if let Some(d) = self.plan.last_mut()
                    && live
                    && d.window != window
                    && self.mirror[d.first as usize..slot]
                        .iter()
                        .all(|r| r.rig == Self::EMPTY.rig)
                {
                    d.window = window;
                }
            }
        }
        &self.plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(offset: u32) -> InstanceRecord {
        InstanceRecord {
            rig: 0,
            palette_offset: offset,
            ..ResidentTable::EMPTY
        }
    }

    fn slots(ranges: &[Range<u64>]) -> Vec<Range<u64>> {
        ranges
            .iter()
            .map(|r| r.start / RECORD..r.end / RECORD)
            .collect()
    }

    #[test]
    fn only_changed_slots_are_dirty_and_ranges_coalesce() {
        let mut t = ResidentTable::default();
        t.resize(8);
        let mut ranges = Vec::new();
        assert_eq!(t.take_dirty(&mut ranges), 8);
        assert_eq!(slots(&ranges), vec![0..8]);
        for slot in [5, 2, 3, 7] {
            assert!(t.set(slot, &record(slot * 10)));
        }
        assert!(!t.set(2, &record(20)), "an equal record is not a change");
        assert_eq!(t.take_dirty(&mut ranges), 4);
        assert_eq!(slots(&ranges), vec![2..4, 5..6, 7..8]);
        assert_eq!(t.take_dirty(&mut ranges), 0);
        assert!(ranges.is_empty());
    }

    #[test]
    fn root_motion_worlds_are_written_once_then_uploaded_around() {
        let mut t = ResidentTable::default();
        let mut rec = record(0);
        rec.flags = InstanceRecord::GPU_ROOT_MOTION;
        rec.world.rows[0][3] = 5.0;
        let mut ranges = Vec::new();
        assert!(t.set(1, &rec));
        t.take_dirty(&mut ranges);
        assert_eq!(ranges, vec![0..2 * RECORD]);
        assert_ne!(t.records()[1].flags & InstanceRecord::WORLD_PLACED, 0);
        t.uploaded();
        assert_eq!(t.records()[1], rec, "the placed world, flag cleared");
        // Another world: the GPU's stays; equal otherwise, so nothing goes up.
        let mut moved = rec;
        moved.world.rows[0][3] = 9.0;
        assert!(!t.set(1, &moved));
        // A transition: everything but the world goes up.
        moved.layers[0].time = 0.5;
        assert!(t.set(1, &moved));
        assert_eq!(t.records()[1].world, rec.world);
        assert_eq!(t.take_dirty(&mut ranges), 1);
        assert_eq!(ranges, vec![RECORD..RECORD + 16, RECORD + 64..2 * RECORD]);
        // Adjacent slots join across the world gap of the first's end.
        let mut other = rec;
        other.palette_offset = 100;
        t.set(2, &other);
        t.take_dirty(&mut ranges);
        t.uploaded();
        moved.layers[0].time = 0.75;
        other.layers[0].time = 0.75;
        t.set(1, &moved);
        t.set(2, &other);
        t.take_dirty(&mut ranges);
        assert_eq!(
            ranges,
            vec![
                RECORD..RECORD + 16,
                RECORD + 64..2 * RECORD + 16,
                2 * RECORD + 64..3 * RECORD
            ]
        );
        // Placing writes the whole record even when the bytes are the same.
        let held = t.records()[1];
        t.place(1, &held);
        t.take_dirty(&mut ranges);
        assert_eq!(ranges, vec![RECORD..2 * RECORD]);
    }

    #[test]
    fn plan_splits_at_window_changes_and_binding_size() {
        let mut t = ResidentTable::default();
        for slot in 0..6 {
            t.set(slot, &record(slot * 100));
        }
        t.clear(3);
        let plan = t.plan(Some(300), 100, false).to_vec();
        // Offsets 0, 100, 200 in window 0; slot 3 empty; 400 and 500 in window 1.
        assert_eq!(
            plan,
            vec![
                Dispatch {
                    first: 0,
                    count: 4,
                    window: 0
                },
                Dispatch {
                    first: 4,
                    count: 2,
                    window: 1
                },
            ]
        );
        let plan = t.plan(None, 4, true).to_vec();
        assert_eq!(plan.len(), 2);
        assert_eq!((plan[1].first, plan[1].count), (4, 2));
    }
}

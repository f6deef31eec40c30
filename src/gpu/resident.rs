//! The CPU side of the GPU-resident instance records: a mirror of the record buffer, the slots
//! written since the last upload, and the dispatch plan over the slots. Pure bookkeeping, no
//! device: [`super::GpuBackend`] turns it into one upload and one dispatch per palette window.
//!
//! A slot holds one instance's [`InstanceRecord`] from when it is written until it is cleared;
//! the GPU derives every frame's clip times and weights from it, so a slot is written only when
//! the instance's motion changes. A cleared slot holds [`ResidentTable::EMPTY`], which the
//! kernel skips (its rig does not exist).

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

/// Mirror, dirty set and dispatch plan of the resident records.
#[derive(Clone, Debug, Default)]
pub(crate) struct ResidentTable {
    mirror: Vec<InstanceRecord>,
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
    /// A slot's rig or palette offset changed, or the slot count did: the plan is stale.
    layout_changed: bool,
    plan: Vec<Dispatch>,
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
        self.is_dirty.resize(slots as usize, false);
        if slots < old {
            self.dirty.retain(|&s| s < slots);
        } else {
            for slot in old..slots {
                self.mark(slot);
            }
        }
        self.layout_changed = true;
    }

    /// Writes `record` to `slot` (growing the table when needed). Returns whether it differs
    /// from what the slot held: only then does it go up with the next upload.
    pub fn set(&mut self, slot: u32, record: &InstanceRecord) -> bool {
        if slot >= self.len() {
            self.resize(slot + 1);
        }
        let held = &mut self.mirror[slot as usize];
        if bytemuck::bytes_of(held) == bytemuck::bytes_of(record) {
            return false;
        }
        if held.rig != record.rig || held.palette_offset != record.palette_offset {
            self.layout_changed = true;
        }
        *held = *record;
        self.mark(slot);
        true
    }

    /// Empties `slot`.
    pub fn clear(&mut self, slot: u32) {
        if slot < self.len() {
            self.set(slot, &Self::EMPTY);
        }
    }

    fn mark(&mut self, slot: u32) {
        let flag = &mut self.is_dirty[slot as usize];
        if !*flag {
            *flag = true;
            self.dirty.push(slot);
        }
    }

    /// Whether a slot's rig or palette offset, or the slot count, changed since the last plan.
    pub fn layout_changed(&self) -> bool {
        self.layout_changed
    }

    /// Marks every slot dirty (the GPU buffer was replaced and holds nothing).
    pub fn mark_all(&mut self) {
        for slot in 0..self.len() {
            self.mark(slot);
        }
    }

    /// The dirty slots as ascending, disjoint, maximal ranges of consecutive slots; clears the
    /// dirty set.
    pub fn take_dirty_ranges(&mut self, out: &mut Vec<Range<u32>>) {
        out.clear();
        self.dirty.sort_unstable();
        for &slot in &self.dirty {
            self.is_dirty[slot as usize] = false;
            match out.last_mut() {
                Some(r) if r.end == slot => r.end += 1,
                _ => out.push(slot..slot + 1),
            }
        }
        self.dirty.clear();
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

    #[test]
    fn only_changed_slots_are_dirty_and_ranges_coalesce() {
        let mut t = ResidentTable::default();
        t.resize(8);
        let mut ranges = Vec::new();
        t.take_dirty_ranges(&mut ranges);
        assert_eq!(ranges, vec![0..8]);
        for slot in [5, 2, 3, 7] {
            assert!(t.set(slot, &record(slot * 10)));
        }
        assert!(!t.set(2, &record(20)), "an equal record is not a change");
        t.take_dirty_ranges(&mut ranges);
        assert_eq!(ranges, vec![2..4, 5..6, 7..8]);
        t.take_dirty_ranges(&mut ranges);
        assert!(ranges.is_empty());
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

//! Palette block allocation: each instance owns a contiguous block of palette entries (one per
//! joint). Blocks are allocated first-fit from a free list that coalesces on free, and the
//! palette grows on demand without moving existing blocks.

/// A contiguous range of palette entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PaletteBlock {
    /// First entry.
    pub offset: u32,
    /// Number of entries.
    pub len: u32,
}

impl PaletteBlock {
    /// One past the last entry (saturating: a forged block cannot overflow).
    pub fn end(&self) -> u32 {
        self.offset.saturating_add(self.len)
    }
}

/// Hands out and takes back [`PaletteBlock`]s. Pure bookkeeping: the owner of the actual buffer
/// grows it to [`PaletteAllocator::capacity`] when that changes.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PaletteAllocator {
    /// Free ranges, sorted by offset, never adjacent (always coalesced).
    free: Vec<PaletteBlock>,
    /// Live blocks, offset → length: only these can be freed.
    live: std::collections::BTreeMap<u32, u32>,
    capacity: u32,
    used: u32,
    /// The windows a GPU evaluator binds the palette in, when blocks are placed by them: the
    /// device's, so not saved with the blocks.
    #[serde(skip)]
    windows: Option<PaletteWindows>,
}

/// The windows a GPU evaluator binds a palette larger than one binding in (a
/// [`crate::render::PalettePaging`]), and the entries at the end of each window's stride kept
/// free of instance blocks for blocks placed beside one ([`PaletteAllocator::allocate_beside`]:
/// inertialization blocks, which the kernel reads in the instance's window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaletteWindows {
    stride: u32,
    entries: u32,
    reserve: u32,
}

impl PaletteWindows {
    /// Windows of `paging`, the last `reserve` entries of each stride (at most half of it)
    /// kept for blocks placed beside an instance's. `None` when `paging` is no paging: a
    /// stride of 0, or windows shorter than their stride.
    pub fn new(paging: crate::render::PalettePaging, reserve: u32) -> Option<Self> {
        let (stride, entries) = (paging.stride, paging.window_entries);
        (stride > 0 && entries >= stride).then_some(Self {
            stride,
            entries,
            reserve: reserve.min(stride / 2),
        })
    }

    /// The window an instance block starting at `offset` is read from, as entries.
    fn window_of(&self, offset: u32) -> std::ops::Range<u32> {
        let start = offset / self.stride * self.stride;
        start..start.saturating_add(self.entries)
    }

    /// The first start in free range `free` of `len` entries lying in the part of one stride
    /// that instance blocks may take (its first `stride - reserve` entries).
    fn first_instance_fit(&self, free: &PaletteBlock, len: u32) -> Option<u32> {
        let part = self.stride - self.reserve;
        let mut start = free.offset;
        loop {
            let window = start / self.stride * self.stride;
            let end = start.checked_add(len)?;
            if end > free.end() {
                return None;
            }
            if end <= window.saturating_add(part) {
                return Some(start);
            }
            start = window.checked_add(self.stride)?;
        }
    }
}

impl PaletteAllocator {
    /// An empty allocator with `capacity` entries available before it must grow.
    pub fn with_capacity(capacity: u32) -> Self {
        Self {
            free: if capacity > 0 {
                vec![PaletteBlock {
                    offset: 0,
                    len: capacity,
                }]
            } else {
                Vec::new()
            },
            live: std::collections::BTreeMap::new(),
            capacity,
            used: 0,
            windows: None,
        }
    }

    /// Entries the palette must hold.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Entries currently allocated.
    pub fn used(&self) -> u32 {
        self.used
    }

    /// Number of separate free ranges (1 or 0 when nothing is fragmented).
    pub fn free_ranges(&self) -> usize {
        self.free.len()
    }

    /// Allocates `len` entries, first fit; grows the capacity (at least doubling) when no free
    /// range fits. Returns `None` only when the palette would exceed `u32::MAX` entries. With
    /// [`PaletteAllocator::set_windows`], a block up to a window's stride less its reserve
    /// lies outside every window's reserve.
    pub fn allocate(&mut self, len: u32) -> Option<PaletteBlock> {
        let windows = self.windows.filter(|w| len <= w.stride - w.reserve);
        let fit = match windows {
            None => (self.free.iter().enumerate())
                .find(|(_, f)| f.len >= len)
                .map(|(i, f)| (i, f.offset)),
            Some(w) => (self.free.iter().enumerate())
                .find_map(|(i, f)| w.first_instance_fit(f, len).map(|start| (i, start))),
        };
        if let Some((i, start)) = fit {
            return Some(self.take(i, start, len));
        }
        self.grow_for(len)?;
        self.allocate(len)
    }

    /// Places blocks by `windows` from now on ([`PaletteWindows`]; `None`: anywhere). Blocks
    /// already placed stay where they are.
    pub fn set_windows(&mut self, windows: Option<PaletteWindows>) {
        self.windows = windows;
    }

    /// The windows blocks are placed by.
    pub fn windows(&self) -> Option<PaletteWindows> {
        self.windows
    }

    /// Allocates `len` entries for the instance whose block starts at `offset`: inside that
    /// block's window with [`PaletteAllocator::set_windows`] (`None` when the window has no
    /// room), anywhere first fit without.
    pub fn allocate_beside(&mut self, len: u32, offset: u32) -> Option<PaletteBlock> {
        match self.windows {
            None => self.allocate(len),
            Some(w) => self.allocate_within(len, w.window_of(offset)),
        }
    }

    /// Entries `start..start + len` of free range `i`, which holds them, taken live.
    fn take(&mut self, i: usize, start: u32, len: u32) -> PaletteBlock {
        let f = self.free[i];
        let block = PaletteBlock { offset: start, len };
        // What is left of the range stays in place, in order (its pieces touch no other range).
        let after = (block.end() < f.end()).then(|| PaletteBlock {
            offset: block.end(),
            len: f.end() - block.end(),
        });
        match (start > f.offset, after) {
            (false, None) => {
                self.free.remove(i);
            }
            (false, Some(after)) => self.free[i] = after,
            (true, after) => {
                self.free[i].len = start - f.offset;
                if let Some(after) = after {
                    self.free.insert(i + 1, after);
                }
            }
        }
        self.used += len;
        self.live.insert(start, len);
        block
    }

    /// Grows the capacity (at least doubling) so that the trailing free range holds `len`
    /// entries: extends it (if it touches the end) or starts a new one. `None` past `u32::MAX`.
    fn grow_for(&mut self, len: u32) -> Option<()> {
        let tail = match self.free.last() {
            Some(f) if f.end() == self.capacity => f.len,
            _ => 0,
        };
        let needed = self.capacity.checked_add(len.saturating_sub(tail))?;
        let new_capacity = needed.max(self.capacity.saturating_mul(2)).max(64);
        let added = PaletteBlock {
            offset: self.capacity,
            len: new_capacity - self.capacity,
        };
        self.capacity = new_capacity;
        self.insert_free(added);
        Some(())
    }

    /// Allocates `len` entries lying whole within entries `range` (first fit there), growing the
    /// capacity when the range reaches past it and no free range fits. `None` when no room can
    /// be had inside `range`.
    pub fn allocate_within(
        &mut self,
        len: u32,
        range: std::ops::Range<u32>,
    ) -> Option<PaletteBlock> {
        let fits = |f: &PaletteBlock| {
            let start = f.offset.max(range.start);
            let end = f.end().min(range.end);
            (end > start && end - start >= len).then_some(start)
        };
        let Some((i, start)) = self
            .free
            .iter()
            .enumerate()
            .find_map(|(i, f)| fits(f).map(|s| (i, s)))
        else {
            if self.capacity >= range.end {
                return None;
            }
            // Grow as `allocate` does, then look again: the new tail lies in the range.
            self.grow_for(len)?;
            return self.allocate_within(len, range);
        };
        Some(self.take(i, start, len))
    }

    /// Whether `block` is one live allocation.
    pub fn is_live(&self, block: PaletteBlock) -> bool {
        self.live.get(&block.offset) == Some(&block.len)
    }

    /// Checks that the bookkeeping is consistent (free ranges sorted, coalesced and inside the
    /// capacity, live blocks inside it and overlapping neither each other nor a free range, the
    /// used count their sum), as it always is unless it was read from a damaged document.
    pub fn check(&self) -> Result<(), String> {
        let mut ranges: Vec<(PaletteBlock, bool)> = self.free.iter().map(|&b| (b, true)).collect();
        ranges.extend(
            self.live
                .iter()
                .map(|(&offset, &len)| (PaletteBlock { offset, len }, false)),
        );
        ranges.sort_by_key(|(b, _)| b.offset);
        let mut end = 0u32;
        let mut used = 0u64;
        let mut last_free = None;
        for (b, free) in ranges {
            if b.len == 0
                || b.offset < end
                || b.end() > self.capacity
                || b.offset.checked_add(b.len).is_none()
            {
                return Err(format!(
                    "palette block {}+{} overlaps another or lies outside the capacity {}",
                    b.offset, b.len, self.capacity
                ));
            }
            if free && last_free == Some(b.offset) {
                return Err(format!(
                    "free palette ranges at {} are not coalesced",
                    b.offset
                ));
            }
            if !free {
                used += u64::from(b.len);
            }
            last_free = free.then_some(b.end());
            end = b.end();
        }
        if !self.free.is_sorted_by_key(|b| b.offset) {
            return Err("free palette ranges are not sorted".to_string());
        }
        if used != u64::from(self.used) {
            return Err(format!(
                "palette counts {} entries used, its blocks hold {used}",
                self.used
            ));
        }
        Ok(())
    }

    /// Returns a block. A block that is not exactly one live allocation (freed twice, forged,
    /// or spanning several) is refused with `false` and changes nothing.
    pub fn free(&mut self, block: PaletteBlock) -> bool {
        if self.live.get(&block.offset) != Some(&block.len) {
            return false;
        }
        self.live.remove(&block.offset);
        self.used -= block.len;
        self.insert_free(block);
        true
    }

    fn insert_free(&mut self, block: PaletteBlock) {
        let i = self.free.partition_point(|f| f.offset < block.offset);
        self.free.insert(i, block);
        // Coalesce with the next, then the previous neighbour.
        if i + 1 < self.free.len() && self.free[i].end() == self.free[i + 1].offset {
            self.free[i].len += self.free[i + 1].len;
            self.free.remove(i + 1);
        }
        if i > 0 && self.free[i - 1].end() == self.free[i].offset {
            self.free[i - 1].len += self.free[i].len;
            self.free.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_do_not_overlap_and_freeing_everything_coalesces() {
        let mut a = PaletteAllocator::with_capacity(100);
        let blocks: Vec<_> = (0..10).map(|i| a.allocate(5 + i).unwrap()).collect(); // ok: unit test
        for (i, x) in blocks.iter().enumerate() {
            for y in &blocks[i + 1..] {
                assert!(
                    x.end() <= y.offset || y.end() <= x.offset,
                    "{x:?} overlaps {y:?}"
                );
            }
        }
        for b in blocks
            .iter()
            .rev()
            .step_by(2)
            .chain(blocks.iter().rev().skip(1).step_by(2))
        {
            assert!(a.free(*b));
        }
        assert_eq!(a.used(), 0);
        assert_eq!(a.free_ranges(), 1);
    }

    #[test]
    fn growing_keeps_existing_blocks_and_double_free_is_refused() {
        let mut a = PaletteAllocator::with_capacity(10);
        let first = a.allocate(8).unwrap(); // ok: unit test
        let second = a.allocate(30).unwrap(); // ok: unit test
        assert_eq!(first.offset, 0);
        assert!(second.offset >= 8 && a.capacity() >= second.end());
        assert!(a.free(first));
        assert!(!a.free(first));
        let spanning = PaletteBlock {
            offset: second.offset,
            len: second.len + 1,
        };
        assert!(
            !a.free(spanning),
            "a block covering more than one allocation"
        );
        let forged = PaletteBlock {
            offset: u32::MAX,
            len: u32::MAX,
        };
        assert!(!a.free(forged));
        assert!(a.free(second));
        assert_eq!(a.used(), 0);
    }

    #[test]
    fn blocks_within_a_range_lie_whole_inside_it() {
        let mut a = PaletteAllocator::default();
        let first = a.allocate(100).unwrap(); // ok: unit test
        a.allocate(200).unwrap(); // ok: unit test
        assert!(a.free(first));
        // The hole at 0..100 is outside 150..400; the block goes after the live one.
        let b = a.allocate_within(50, 150..400).unwrap(); // ok: unit test
        assert!(b.offset >= 300 && b.end() <= 400, "{b:?}");
        // Inside the hole, split from its middle.
        let c = a.allocate_within(30, 40..90).unwrap(); // ok: unit test
        assert_eq!(c.offset, 40);
        a.check().unwrap(); // ok: unit test
        // No room in a full range, even by growing.
        assert_eq!(a.allocate_within(80, 100..150), None);
        // Past the capacity: the palette grows into the range.
        let far = a.capacity() + 1000;
        let d = a.allocate_within(64, far..far + 64).unwrap(); // ok: unit test
        assert_eq!(d.offset, far);
        a.check().unwrap(); // ok: unit test
    }

    #[test]
    fn windowed_instance_blocks_keep_out_of_the_reserve_and_beside_blocks_keep_in_the_window() {
        let paging = crate::render::PalettePaging {
            window_entries: 150,
            stride: 100,
        };
        let windows = PaletteWindows::new(paging, 30).unwrap(); // ok: unit test
        let mut a = PaletteAllocator::default();
        a.set_windows(Some(windows));
        // Blocks of 20: three per window's first 70 entries, never across into the reserve.
        let blocks: Vec<_> = (0..9).map(|_| a.allocate(20).unwrap()).collect(); // ok: unit test
        for b in &blocks {
            assert!(b.offset % 100 + b.len <= 70, "{b:?}");
        }
        assert_eq!(blocks[3].offset, 100);
        // A block beside the instance at 120 lies in its window, 100..250, first fit: after the
        // stride's last instance block, into the reserve.
        let beside = a.allocate_beside(25, 120).unwrap(); // ok: unit test
        assert_eq!(beside.offset, 160);
        assert_eq!(a.allocate_beside(15, 140).map(|b| b.offset), Some(185));
        // The window reaches into the next stride's instance blocks: full there, no room.
        assert_eq!(a.allocate_beside(15, 140), None);
        a.check().unwrap(); // ok: unit test
        // Without windows, first fit anywhere.
        a.set_windows(None);
        assert_eq!(a.allocate(10).map(|b| b.offset), Some(60));
        // A reserve past half the stride is held at half.
        let half = PaletteWindows::new(paging, 90).unwrap(); // ok: unit test
        assert_eq!(half.reserve, 50);
        let no_paging = crate::render::PalettePaging {
            window_entries: 50,
            stride: 100,
        };
        assert_eq!(PaletteWindows::new(no_paging, 0), None);
    }

    #[test]
    fn churn_leaves_capacity_flat() {
        let mut a = PaletteAllocator::with_capacity(0);
        let mut live = std::collections::VecDeque::new();
        for i in 0..10_000u32 {
            live.push_back(a.allocate(20 + i % 7).unwrap()); // ok: unit test
            if live.len() > 50 {
                assert!(a.free(live.pop_front().unwrap())); // ok: unit test
            }
        }
        assert!(
            a.capacity() <= 2 * 50 * 27,
            "capacity grew to {}",
            a.capacity()
        );
    }
}

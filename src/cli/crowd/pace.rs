//! The crowd's gameplay: each character picks a pace (idle, walk or run) and holds it for a
//! few seconds before picking again. Changes are scheduled in a heap, so a frame costs only the
//! characters whose pace changes, like the animation control they drive. Deterministic: the
//! same crowd size gives the same choices.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Speeds of the three paces, in the locomotion state machine's `speed` parameter.
pub const PACES: [f32; 3] = [0.0, 1.5, 3.2];

/// Shortest and longest time a pace is held, seconds.
const HOLD: (f64, f64) = (2.0, 6.0);

/// The pace changes to come.
#[derive(Debug, Default)]
pub struct PacePlan {
    /// `(time bits, character)`: non-negative `f64` times order like their bits.
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// Changes each character has made (feeds its random choices).
    made: Vec<u32>,
}

/// A well-mixed 64-bit hash (splitmix64) of a character and its change number.
fn mix(character: u32, change: u32) -> u64 {
    let mut z =
        (u64::from(character) << 32 | u64::from(change)).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A number in `0..1` from hash bits.
fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

impl PacePlan {
    /// A plan for `characters` characters, whose first changes fall within the first
    /// [`HOLD`]`.0` seconds.
    pub fn new(characters: usize) -> Self {
        let mut plan = Self {
            heap: BinaryHeap::with_capacity(characters),
            made: vec![0; characters],
        };
        for c in 0..characters as u32 {
            let at = unit(mix(c, u32::MAX)) * HOLD.0;
            plan.heap.push(Reverse((at.to_bits(), c)));
        }
        plan
    }

    /// Pops every change due at time `now` (seconds), calling `change(character, speed)` for
    /// each in time order, and schedules each character's next change.
    pub fn due<E>(
        &mut self,
        now: f64,
        mut change: impl FnMut(u32, f32) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some(&Reverse((bits, c))) = self.heap.peek() {
            let at = f64::from_bits(bits);
            if at > now {
                break;
            }
            self.heap.pop();
            let n = self.made[c as usize];
            self.made[c as usize] = n + 1;
            let h = mix(c, n);
            change(c, PACES[(h % PACES.len() as u64) as usize])?;
            let next = at + HOLD.0 + unit(h >> 8) * (HOLD.1 - HOLD.0);
            self.heap.push(Reverse((next.to_bits(), c)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_changes_within_its_hold_time_in_time_order() {
        let mut plan = PacePlan::new(50);
        let mut seen = vec![0; 50];
        let mut last = 0.0;
        for frame in 0..600 {
            let now = f64::from(frame) / 60.0;
            plan.due(now, |c, speed| {
                assert!(PACES.contains(&speed));
                seen[c as usize] += 1;
                Ok::<(), ()>(())
            })
            .unwrap(); // ok: unit test
            assert!(now >= last);
            last = now;
        }
        // Ten seconds: a first change within 2 s, then one every 2 to 6 s.
        assert!(seen.iter().all(|&n| (2..=6).contains(&n)), "{seen:?}");
    }
}

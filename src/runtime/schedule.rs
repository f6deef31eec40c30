//! Event-driven control: in [`Scheduling::EventDriven`] mode the animator updates an entity
//! only when something happens to it. Its record describes its motion as a function of time,
//! so between those moments the GPU (or the CPU evaluator) plays it on without the control
//! code. What happens next is known from the clocks: an event's crossing, the end of a fade or
//! a weight ramp, a state machine's exit time, a clamped clip reaching its end. Each entity
//! gets a wake-up time in a heap; an update pops the due ones, the new and the touched ones
//! ([`crate::runtime::Animator::touch`]), and updates exactly those.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::playback::{LoopMode, Step};

/// How [`crate::runtime::Animator::update`] chooses the entities it updates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheduling {
    /// Every animated entity, every update: components may be changed directly between
    /// updates. The default.
    #[default]
    PerFrame,
    /// Only entities that are new, touched ([`crate::runtime::Animator::touch`], or through
    /// the animator's own setters such as `set_parameter`) or due (a scheduled event, fade end,
    /// exit time or clip end; root motion on the CPU is due every update). CPU cost per
    /// update follows the entities that have something happening. An entity's components are
    /// brought up to date when it is updated; its record is always current. After changing a
    /// component directly, touch the entity.
    EventDriven,
}

/// Seconds before a computed wake-up time that an entity is woken, so rounding never delays
/// what would have happened at that update by one.
const EARLY: f64 = 1e-6;

/// Wake-up times of the tracked entities and the heap that orders them.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Schedule {
    /// `(wake time bits, slot)`: non-negative `f64` times order like their bits.
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// The current wake-up time of each slot (`f64::INFINITY`: none); heap entries for other
    /// times are stale. Saved as bit patterns (JSON has no infinity).
    #[serde(with = "super::snapshot::f64_bits")]
    wake: Vec<f64>,
    /// The animator time of each slot's last update.
    last: Vec<f64>,
    /// Slots touched since the last update.
    touched: Vec<u32>,
}

impl Schedule {
    /// Starts tracking `slot`, updated now at `now` (its first update).
    pub fn start(&mut self, slot: u32, now: f64) {
        let i = slot as usize;
        if self.wake.len() <= i {
            self.wake.resize(i + 1, f64::INFINITY);
            self.last.resize(i + 1, 0.0);
        }
        self.wake[i] = f64::INFINITY;
        self.last[i] = now;
    }

    /// Seconds since `slot`'s last update, and records `now` as its last update.
    pub fn elapsed(&mut self, slot: u32, now: f64) -> f64 {
        let last = std::mem::replace(&mut self.last[slot as usize], now);
        (now - last).max(0.0)
    }

    /// Wakes `slot` `delay` seconds after `now` (never, for an infinite or NaN delay).
    pub fn wake_in(&mut self, slot: u32, now: f64, delay: f64) {
        let at = if delay.is_finite() {
            (now + delay.max(0.0) - EARLY).max(now)
        } else {
            f64::INFINITY
        };
        self.wake[slot as usize] = at;
        if at.is_finite() {
            self.heap.push(Reverse((at.to_bits(), slot)));
        }
    }

    /// Makes the per-slot tables cover `slots` slots (a restored schedule may have fewer slots
    /// than the animator tracks, as one that was never used for them has).
    pub fn cover(&mut self, slots: usize) {
        let len = self.wake.len().max(self.last.len()).max(slots);
        self.wake.resize(len, f64::INFINITY);
        self.last.resize(len, 0.0);
    }

    /// Stops tracking `slot`.
    pub fn stop(&mut self, slot: u32) {
        if let Some(w) = self.wake.get_mut(slot as usize) {
            *w = f64::INFINITY;
        }
    }

    /// Marks `slot` for the next update.
    pub fn touch(&mut self, slot: u32) {
        self.touched.push(slot);
    }

    /// Appends the slots due at `now` (woken or touched) to `due`, ascending and without
    /// repeats.
    pub fn take_due(&mut self, now: f64, due: &mut Vec<u32>) {
        while let Some(&Reverse((bits, slot))) = self.heap.peek() {
            let at = f64::from_bits(bits);
            if at > now {
                break;
            }
            self.heap.pop();
            if self.wake.get(slot as usize) == Some(&at) {
                self.wake[slot as usize] = f64::INFINITY;
                due.push(slot);
            }
        }
        due.append(&mut self.touched);
        due.sort_unstable();
        due.dedup();
    }
}

/// Seconds until a clock at the end of `step`, moving `rate` timeline units per second, next
/// reaches one of `times` (ascending, within the timeline), by the rule of
/// [`Step::for_each_crossing`]; `None` when it never does.
pub(crate) fn next_crossing_in(step: &Step, rate: f32, times: &[f32]) -> Option<f32> {
    let period = step.period;
    if rate == 0.0 || !rate.is_finite() || times.is_empty() || period.is_nan() || period <= 0.0 {
        return None;
    }
    let forward = rate > 0.0;
    let speed = rate.abs();
    let ahead = |x: f32, positions: &mut dyn Iterator<Item = f32>, cycle: Option<f32>| {
        let mut best: Option<f32> = None;
        for p in positions {
            let mut d = if forward { p - x } else { x - p };
            if d <= 0.0 {
                match cycle {
                    Some(c) => d += c,
                    None => continue,
                }
            }
            best = Some(best.map_or(d, |b| b.min(d)));
        }
        best.map(|d| d / speed)
    };
    match step.mode {
        LoopMode::Clamp => ahead(step.to.clamp(0.0, period), &mut times.iter().copied(), None),
        LoopMode::Loop => ahead(
            step.to.rem_euclid(period),
            &mut times.iter().copied(),
            Some(period),
        ),
        LoopMode::PingPong => {
            let cycle = 2.0 * period;
            let back = times
                .iter()
                .filter(|&&t| t > 0.0 && t < period)
                .map(move |&t| cycle - t);
            ahead(
                step.to.rem_euclid(cycle),
                &mut times.iter().copied().chain(back),
                Some(cycle),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossings_ahead_in_every_mode() {
        let times = [0.25, 0.75];
        let at = |to: f32, mode| Step::new(to, to, 1.0, mode);
        let close = |a: Option<f32>, b: f32| (a.unwrap() - b).abs() < 1e-6; // ok: unit test
        assert!(close(
            next_crossing_in(&at(0.5, LoopMode::Loop), 1.0, &times),
            0.25
        ));
        assert!(close(
            next_crossing_in(&at(0.8, LoopMode::Loop), 1.0, &times),
            0.45
        ));
        assert!(close(
            next_crossing_in(&at(0.5, LoopMode::Loop), -2.0, &times),
            0.125
        ));
        assert!(close(
            next_crossing_in(&at(0.1, LoopMode::Loop), -1.0, &times),
            0.35
        ));
        assert_eq!(
            next_crossing_in(&at(0.8, LoopMode::Clamp), 1.0, &times),
            None
        );
        // Ping-pong at 1.6 on the cycle of 2 (time 0.4, going back): 0.25 after 0.15.
        assert!(close(
            next_crossing_in(&at(1.6, LoopMode::PingPong), 1.0, &times),
            0.15
        ));
        assert_eq!(
            next_crossing_in(&at(0.5, LoopMode::Loop), 0.0, &times),
            None
        );
    }

    #[test]
    fn due_slots_come_in_order_once() {
        let mut s = Schedule::default();
        for slot in 0..4 {
            s.start(slot, 0.0);
        }
        s.wake_in(2, 0.0, 1.0);
        s.wake_in(0, 0.0, 0.5);
        s.wake_in(3, 0.0, 2.0);
        s.wake_in(3, 0.0, 0.7); // rescheduled: the first entry is stale
        s.touch(1);
        s.touch(1);
        let mut due = Vec::new();
        s.take_due(0.8, &mut due);
        assert_eq!(due, vec![0, 1, 3]);
        due.clear();
        s.take_due(5.0, &mut due);
        assert_eq!(due, vec![2]);
    }
}

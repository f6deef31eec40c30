//! Playback: a clip and the clock that moves through it. A clock advances by `speed × dt`
//! (negative speed plays backwards) and then loops, clamps or ping-pongs at the ends; pausing
//! stops it, scrubbing sets its time. Each entity owns its clock, so entities sharing a rig
//! animate independently.
//!
//! Every advance also returns the [`Step`] it took: the travel on an *unwrapped* timeline where
//! loops and ping-pong legs are one straight line. Events ([`Step::for_each_crossing`]) and
//! root motion read the step, so neither needs to special-case wrap-around.

/// What a clock does at the ends of its timeline.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum LoopMode {
    /// Wrap around: past the end starts again at 0 (and before 0 at the end).
    #[default]
    Loop,
    /// Stop at either end.
    Clamp,
    /// Bounce between the ends: forward to the end, backward to 0, forward again.
    PingPong,
}

/// A position on a timeline of some length (a clip's duration, or 1 for a blend space's
/// normalized phase) and how it moves.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Clock {
    /// Position on the timeline, from 0 to its length.
    pub time: f32,
    /// Timeline units per second of `dt`; negative plays backwards.
    pub speed: f32,
    /// What happens at the ends.
    pub mode: LoopMode,
    /// A paused clock does not move.
    pub paused: bool,
    /// On a ping-pong clock: whether it is on the backward leg.
    reversed: bool,
    /// The position in `f64` (on a ping-pong clock, on its cycle of `2 × period`) that `time`
    /// was last rounded from: clocks accumulate in `f64`, so hours of play do not drift.
    position: f64,
    /// The `time` that `position` belongs to; a different `time` was set from outside.
    position_of: f32,
    /// The velocity (`speed`, or 0 while paused) of the last advance, to tell a change made
    /// since from the velocity the time before it ran at.
    velocity: Option<f32>,
}

impl Default for Clock {
    fn default() -> Self {
        Self::new(LoopMode::Loop)
    }
}

impl Clock {
    /// A clock at time 0, speed 1.
    pub const fn new(mode: LoopMode) -> Self {
        Self {
            time: 0.0,
            speed: 1.0,
            mode,
            paused: false,
            reversed: false,
            position: 0.0,
            position_of: 0.0,
            velocity: None,
        }
    }

    /// The same clock at `speed`.
    pub const fn with_speed(mut self, speed: f32) -> Self {
        self.speed = speed;
        self
    }

    /// Whether a ping-pong clock is on its backward leg (its time is decreasing at speed > 0).
    pub fn is_reversed(&self) -> bool {
        self.reversed
    }

    /// Moves the clock by `speed × dt` on a timeline of length `period` and returns the step.
    pub fn advance(&mut self, period: f32, dt: f32) -> Step {
        self.advance_since(period, f64::from(dt), f64::from(dt))
    }

    /// [`Clock::advance`] by `dt` seconds given in `f64`, for a clock last advanced `dt` seconds
    /// ago of which only the last `recent` seconds follow a change of speed or pause made since:
    /// the time before runs at the old velocity, as if the clock had been advanced every update.
    /// The position moves in `f64`, so advancing in one step or in many lands in the same place.
    pub(crate) fn advance_since(&mut self, period: f32, dt: f64, recent: f64) -> Step {
        let velocity = if self.paused { 0.0 } else { self.speed };
        let travel = match self.velocity {
            Some(old) if old != velocity => {
                let recent = recent.min(dt);
                f64::from(old) * (dt - recent) + f64::from(velocity) * recent
            }
            _ => f64::from(velocity) * dt,
        };
        self.velocity = Some(velocity);
        self.travel_exact(period, travel, velocity)
    }

    /// Moves the clock by `travel` timeline units (sign gives the direction).
    pub fn travel(&mut self, period: f32, travel: f32) -> Step {
        self.travel_exact(period, f64::from(travel), travel)
    }

    /// Moves by `exact` units; `velocity` is the rate the clock goes on at (units per unit of
    /// the time it was advanced by).
    fn travel_exact(&mut self, period: f32, exact: f64, velocity: f32) -> Step {
        if !usable(period) {
            self.time = 0.0;
            return Step::still(0.0, 0.0, self.mode);
        }
        // Out-of-range or NaN times (from scrubbing, or a changed clip) start at the nearest end.
        self.time = if self.time >= 0.0 {
            self.time.min(period)
        } else {
            0.0
        };
        let exact = if exact.is_finite() { exact } else { 0.0 };
        let travel = exact as f32;
        let cycle = if self.mode == LoopMode::PingPong {
            2.0 * period
        } else {
            period
        };
        // The f64 position of `time`, unless `time` was set from outside since.
        let at = if self.position_of == self.time && self.position <= f64::from(cycle) {
            self.position
        } else if self.mode == LoopMode::PingPong && self.reversed {
            f64::from(cycle - self.time)
        } else {
            f64::from(self.time)
        };
        let (step, p) = match self.mode {
            LoopMode::Loop => {
                let from = self.time;
                let p = (at + exact).rem_euclid(f64::from(period));
                self.time = p as f32;
                let step =
                    Step::new(from, from + travel, period, self.mode).with_travel(travel, velocity);
                (step, p)
            }
            LoopMode::Clamp => {
                let from = self.time;
                let p = (at + exact).clamp(0.0, f64::from(period));
                self.time = p as f32;
                let resting =
                    (p <= 0.0 && velocity <= 0.0) || (p >= f64::from(period) && velocity >= 0.0);
                let step = Step::new(from, self.time, period, self.mode)
                    .with_travel((p - at) as f32, if resting { 0.0 } else { velocity });
                (step, p)
            }
            LoopMode::PingPong => {
                // Unwrapped position on a cycle of 2 × period: time = p on the forward leg,
                // 2 × period - p on the backward leg.
                let from = if self.reversed {
                    cycle - self.time
                } else {
                    self.time
                };
                let p = (at + exact).rem_euclid(f64::from(cycle));
                self.reversed = p >= f64::from(period);
                let t = if self.reversed {
                    f64::from(cycle) - p
                } else {
                    p
                };
                self.time = t as f32;
                let step =
                    Step::new(from, from + travel, period, self.mode).with_travel(travel, velocity);
                (step, p)
            }
        };
        // A time that rounds up to the end of a loop is its start.
        if self.mode == LoopMode::Loop && self.time >= period {
            self.time = 0.0;
        }
        self.position = p;
        self.position_of = self.time;
        step
    }

    /// Jumps to `time` (clamped to `0..=period`) without passing the timeline in between, and
    /// returns the straight step from the old time to the new one. The step is only for callers
    /// that want events fired on scrub; playback ignores it.
    pub fn scrub(&mut self, period: f32, time: f32) -> Step {
        let period = if period > 0.0 { period } else { 0.0 };
        let from = self.time.clamp(0.0, period);
        let to = if time.is_finite() {
            time.clamp(0.0, period)
        } else {
            from
        };
        self.time = to;
        Step::new(from, to, period, LoopMode::Clamp)
    }
}

/// Whether `period` can be a timeline length.
fn usable(period: f32) -> bool {
    period > 0.0 && period.is_finite()
}

impl From<LoopMode> for crate::TimeWrap {
    fn from(mode: LoopMode) -> Self {
        match mode {
            LoopMode::Loop => Self::Loop,
            LoopMode::Clamp => Self::Clamp,
            LoopMode::PingPong => Self::PingPong,
        }
    }
}

/// One clip playing as an entity's base motion: the simplest animated entity.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Playback {
    /// Clip index in the rig's [`crate::ClipLibrary`].
    pub clip: u32,
    /// Its clock, in seconds of the clip.
    pub clock: Clock,
}

impl Playback {
    /// Plays `clip` from the start, looping, at speed 1.
    pub const fn new(clip: u32) -> Self {
        Self {
            clip,
            clock: Clock::new(LoopMode::Loop),
        }
    }

    /// The same playback at `speed` (negative plays backwards).
    pub const fn with_speed(mut self, speed: f32) -> Self {
        self.clock.speed = speed;
        self
    }

    /// The same playback with loop mode `mode`.
    pub const fn with_mode(mut self, mode: LoopMode) -> Self {
        self.clock.mode = mode;
        self
    }

    /// The same playback starting at `time` seconds.
    pub const fn with_time(mut self, time: f32) -> Self {
        self.clock.time = time;
        self
    }

    /// Current time in seconds.
    pub fn time(&self) -> f32 {
        self.clock.time
    }

    /// Stops the clock.
    pub fn pause(&mut self) {
        self.clock.paused = true;
    }

    /// Restarts a paused clock.
    pub fn resume(&mut self) {
        self.clock.paused = false;
    }

    /// Sets the time (seconds; clamped to the clip on the next update). Fires no events: use
    /// [`crate::runtime::Animator::scrub`] to fire the events passed over.
    pub fn scrub(&mut self, time: f32) {
        self.clock.time = time;
    }
}

/// Most timeline cycles one step reports events for: a step spanning more (a huge `dt` on a short
/// clip) reports the crossings of its last `MAX_EVENT_CYCLES` cycles only.
pub const MAX_EVENT_CYCLES: u32 = 1024;

/// The travel of a clock during one update, on an unwrapped timeline: `from` and `to` are
/// positions where a loop continues past `period` instead of wrapping, and a ping-pong cycle is
/// `2 × period` long (forward leg, then backward leg). `from == to` for a clock that did not
/// move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Unwrapped position before the update.
    pub from: f32,
    /// Unwrapped position after the update.
    pub to: f32,
    /// Length of the timeline.
    pub period: f32,
    /// How unwrapped positions map to timeline times.
    pub mode: LoopMode,
    /// How far the clock moved, unrounded by the positions (unlike `to - from`).
    pub travel: f32,
    /// The rate the clock goes on at after the step, in timeline units per second (0 where a
    /// clamped clock rests at an end).
    pub velocity: f32,
}

impl Step {
    /// A step from `from` to `to`.
    pub const fn new(from: f32, to: f32, period: f32, mode: LoopMode) -> Self {
        Self {
            from,
            to,
            period,
            mode,
            travel: to - from,
            velocity: 0.0,
        }
    }

    /// The same step with its exact travel and the velocity the clock goes on at.
    pub const fn with_travel(mut self, travel: f32, velocity: f32) -> Self {
        self.travel = travel;
        self.velocity = velocity;
        self
    }

    /// A clock that stayed at `time`.
    pub const fn still(time: f32, period: f32, mode: LoopMode) -> Self {
        Self::new(time, time, period, mode)
    }

    /// The same step on a timeline `factor` times as long (a blend space's normalized phase
    /// step, seen by one of its clips).
    pub fn scaled(&self, factor: f32) -> Self {
        Self::new(
            self.from * factor,
            self.to * factor,
            self.period * factor,
            self.mode,
        )
        .with_travel(self.travel * factor, self.velocity * factor)
    }

    /// Whether the clock did not move.
    pub fn is_still(&self) -> bool {
        self.from == self.to
    }

    /// Timeline time at unwrapped position `u`.
    pub fn time_at(&self, u: f32) -> f32 {
        if !usable(self.period) {
            return 0.0;
        }
        // The records' wrapping, so the runtime and the evaluators agree on every time.
        crate::cpu::wrap_time(self.mode.into(), u, self.period)
    }

    /// Net number of times a looping step passed the end of the timeline (negative when it
    /// passed the start going backwards); 0 for other modes.
    pub fn wraps(&self) -> i32 {
        if self.mode != LoopMode::Loop || !usable(self.period) {
            return 0;
        }
        ((self.to / self.period).floor() - (self.from / self.period).floor()) as i32
    }

    /// Calls `visit(i)` for each time `times[i]` (ascending, within `0..=period`) that the step
    /// crosses, once per crossing, in playback order. A crossing is reaching the time: the
    /// position the step starts at does not count, the one it ends at does. On a loop, times 0
    /// and `period` are the same instant (each fires at every wrap); on a ping-pong clock every
    /// other time is crossed twice per cycle, once per leg.
    pub fn for_each_crossing(&self, times: &[f32], mut visit: impl FnMut(usize)) {
        if self.from == self.to || times.is_empty() || !usable(self.period) {
            return;
        }
        let forward = self.to > self.from;
        let (lo, hi) = if forward {
            (self.from, self.to)
        } else {
            (self.to, self.from)
        };
        // Half-open window (lo, hi] forward, [lo, hi) backward, shifted into each cycle.
        let hit = |x: f32, lo: f32, hi: f32| {
            if forward {
                x > lo && x <= hi
            } else {
                x >= lo && x < hi
            }
        };
        let n = times.len();
        if self.mode == LoopMode::Clamp {
            for k in 0..n {
                let i = if forward { k } else { n - 1 - k };
                if hit(times[i], lo, hi) {
                    visit(i);
                }
            }
            return;
        }
        let ping_pong = self.mode == LoopMode::PingPong;
        let cycle = if ping_pong {
            2.0 * self.period
        } else {
            self.period
        };
        // Positions within one cycle, ascending: the times, then (ping-pong) the backward leg's
        // `cycle - t` for the times strictly inside the timeline.
        let per_cycle = if ping_pong { 2 * n } else { n };
        let position = |k: usize| -> Option<(f32, usize)> {
            if k < n {
                return Some((times[k], k));
            }
            let i = 2 * n - 1 - k;
            let t = times[i];
            (t > 0.0 && t < self.period).then_some((cycle - t, i))
        };
        // Backward windows include their low end, which may be the end of the cycle before.
        let mut first = (lo / cycle).floor() as i64 - i64::from(!forward);
        let mut last = (hi / cycle).floor() as i64;
        let cap = i64::from(MAX_EVENT_CYCLES);
        if last - first > cap {
            if forward {
                first = last - cap;
            } else {
                last = first + cap;
            }
        }
        let cycles = (last - first + 1) as usize;
        for c in 0..cycles {
            let c = if forward {
                first + c as i64
            } else {
                last - c as i64
            };
            // Shift the window, not the positions: exact for the cycle a loop just wrapped from.
            let shift = c as f32 * cycle;
            let (lo_c, hi_c) = (lo - shift, hi - shift);
            for k in 0..per_cycle {
                let k = if forward { k } else { per_cycle - 1 - k };
                if let Some((x, i)) = position(k)
                    && hit(x, lo_c, hi_c)
                {
                    visit(i);
                }
            }
        }
    }
}

//! Cross-fades: a component that fades an entity's base from what it plays now to a new
//! [`Motion`] over a duration, interruptibly and without pops.
//!
//! It keeps a small stack of fades, oldest at the bottom. Each entry plays its motion on its own
//! clock (every clip keeps advancing while it fades in or out) and has a fade-in weight `f` that
//! rises from 0 to 1 at `1 / duration` per second. The base pose is the bottom entry, then each
//! entry above blended over it by its `f` — so entry `k`'s share is `fₖ · Π_{j>k} (1 - fⱼ)`.
//!
//! - **Starting a fade** pushes an entry at `f = 0`: the pose does not change at that instant,
//!   whatever was in flight. A fade started mid-fade therefore blends from the current blended
//!   result, with no pop.
//! - Entries below keep fading in at their own rate. When any entry reaches `f = 1` everything
//!   under it has no share left and is dropped.
//! - **Zero duration** is an instant cut: the stack becomes the new motion alone.
//! - **Layer budget.** The stack flattens into at most the instance record's free override
//!   layers. When a new fade would need more, it waits at `f = 0` (its clock running) while the
//!   oldest fade is collapsed: the entry just above the bottom completes its fade-in at the new
//!   fade's rate, the bottom entry's share shrinks continuously to zero and is dropped, and the
//!   new fade then starts. Bursts of interruptions thus never pop; they cost at most one fade
//!   duration of delay per excess entry. A waiting fade that is itself interrupted is replaced.
//!   Only blend spaces can still exceed the budget — one that widens mid-fade, or a fade between
//!   two whose clips together do not fit — and then the lightest clips are dropped, with a pop
//!   of their weight (see [`crate::runtime::Contributions::limit`]); clip-to-clip fades never.

use super::motion::{Contributions, Motion, MotionContext};
use super::playback::{Clock, LoopMode, Step};
use crate::instance::MAX_LAYERS;

/// Most entries in a fade stack: one per layer, plus a fade waiting for room.
pub const MAX_FADES: usize = MAX_LAYERS + 1;

/// A `sync_until` of no change: finite, so that snapshots (JSON) can hold it.
const NEVER: f32 = f32::MAX;

/// One entry of the stack.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Fade {
    motion: Motion,
    clock: Clock,
    /// Fade-in weight, 0 to 1.
    weight: f32,
    /// `weight` in `f64`, as accumulated: fades end at the same update however they are
    /// stepped.
    progress: f64,
    /// Fade-in rate, weight per second.
    rate: f32,
    /// Started since the last advance: its clock has not moved yet.
    fresh: bool,
    /// The rate its weight rose at in the last advance (0 while it waits).
    rising: f32,
    /// Held in phase with the entry below by sync markers while both show
    /// ([`CrossFade::fade_to_in_phase`]).
    #[serde(default)]
    sync: bool,
    /// Seconds until the phase hold changes rates: the leader reaches a marker, or the lead
    /// passes to the other clip ([`NEVER`]: no change).
    #[serde(default)]
    sync_until: f32,
}

/// This frame's clock steps of a stack's entries, from [`CrossFade::advance`].
pub(crate) type FadeSteps = [Step; MAX_FADES];

/// The cross-fading base motion of an entity (see the module documentation). Laid out so that
/// the count and the first entry share a cache line.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CrossFade {
    #[serde(deserialize_with = "super::snapshot::at_most::<_, _, MAX_FADES>")]
    len: u32,
    fades: [Fade; MAX_FADES],
    /// An inertialized transition started since the last record: its duration (0: none).
    #[serde(default)]
    inertialize: f32,
}

impl Default for CrossFade {
    fn default() -> Self {
        Self::new()
    }
}

impl CrossFade {
    /// Nothing playing: the rest pose (a first fade fades in from it).
    pub const fn new() -> Self {
        let empty = Fade {
            motion: Motion::Clip(0),
            clock: Clock::new(super::LoopMode::Loop),
            weight: 0.0,
            progress: 0.0,
            rate: 0.0,
            fresh: true,
            rising: 0.0,
            sync: false,
            sync_until: NEVER,
        };
        Self {
            fades: [empty; MAX_FADES],
            len: 0,
            inertialize: 0.0,
        }
    }

    /// `motion` playing at full weight on `clock`.
    pub fn playing(motion: Motion, clock: Clock) -> Self {
        let mut out = Self::new();
        out.fade_to(motion, clock, 0.0);
        out
    }

    /// Starts fading to `motion`, played on `clock` (for a blend space the clock runs on the
    /// normalized phase, 0 to 1), over `duration` seconds; 0 or less cuts instantly.
    pub fn fade_to(&mut self, motion: Motion, clock: Clock, duration: f32) {
        if !(duration.is_finite() && duration > 0.0) {
            self.fades[0] = Fade {
                motion,
                clock,
                weight: 1.0,
                progress: 1.0,
                rate: 0.0,
                fresh: true,
                rising: 0.0,
                sync: false,
                sync_until: NEVER,
            };
            self.len = 1;
            return;
        }
        let fade = Fade {
            motion,
            clock,
            weight: 0.0,
            progress: 0.0,
            rate: 1.0 / duration,
            fresh: true,
            rising: 1.0 / duration,
            sync: false,
            sync_until: NEVER,
        };
        let len = self.len as usize;
        if len > 0 && self.fades[len - 1].weight <= 0.0 {
            // The top fade has not started showing: replacing it changes nothing visible.
            self.fades[len - 1] = fade;
            return;
        }
        if len == MAX_FADES {
            // Unreachable while the budget logic holds; keep the newest rather than refuse.
            self.fades.copy_within(1.., 0);
            self.len -= 1;
        }
        self.fades[self.len as usize] = fade;
        self.len += 1;
    }

    /// [`CrossFade::fade_to`], and while the two show, `motion` and the motion under it stay in
    /// phase by their sync markers: the heavier leads, and the other's clock follows it from
    /// marker to marker (two clips with markers; other motions only start in phase, from the
    /// `clock` given).
    pub fn fade_to_in_phase(&mut self, motion: Motion, clock: Clock, duration: f32) {
        self.fade_to(motion, clock, duration);
        if let Some(top) = self.top_mut()
            && top.weight < 1.0
        {
            top.sync = true;
        }
    }

    /// Cuts to `motion` on `clock` with an inertialized transition over `duration` seconds
    /// (the new kind beside the cross-fade, [`crate::Inertialization`]): the record the entity
    /// gets next keeps the pose it had, whatever was playing, as an offset that decays to zero
    /// while only `motion` is sampled. 0 or less is a plain cut. Where the record's layers do
    /// not leave room (the incoming and outgoing layers and a descriptor in
    /// [`crate::MAX_LAYERS`] slots) it is a cut too.
    pub fn inertialize_to(&mut self, motion: Motion, clock: Clock, duration: f32) {
        self.fade_to(motion, clock, 0.0);
        self.inertialize = if duration.is_finite() && duration > 0.0 {
            duration
        } else {
            0.0
        };
    }

    /// Marks the cut just made as an inertialized transition over `duration` seconds.
    pub(crate) fn inertialize_to_current(&mut self, duration: f32) {
        if let Some((motion, clock)) = self.current().map(|(m, c)| (*m, *c)) {
            self.inertialize_to(motion, clock, duration);
        }
    }

    /// The duration of an inertialized transition started since the last call, if any.
    pub(crate) fn take_inertialization(&mut self) -> Option<f32> {
        let d = std::mem::take(&mut self.inertialize);
        (d > 0.0).then_some(d)
    }

    /// Number of entries on the stack (1 when not fading, 0 when empty).
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether nothing plays.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether a fade is in progress (the newest entry is not yet at full weight).
    pub fn is_fading(&self) -> bool {
        self.top().is_some_and(|f| f.weight < 1.0)
    }

    /// The newest motion (the one faded to last) and its clock.
    pub fn current(&self) -> Option<(&Motion, &Clock)> {
        self.top().map(|f| (&f.motion, &f.clock))
    }

    /// Mutable clock of the newest motion.
    pub fn current_clock_mut(&mut self) -> Option<&mut Clock> {
        self.top_mut().map(|f| &mut f.clock)
    }

    /// The newest motion's fade-in weight (1 when not fading).
    pub fn current_weight(&self) -> f32 {
        self.top().map_or(0.0, |f| f.weight)
    }

    /// Sets the input point of every entry playing blend space `space`.
    pub fn set_blend_input(&mut self, space: u32, input: glam::Vec2) {
        for f in &mut self.fades[..self.len as usize] {
            if let Motion::BlendSpace { space: s, input: i } = &mut f.motion
                && *s == space
            {
                *i = input;
            }
        }
    }

    /// Mutable access to every entry's motion, bottom first (to refresh blend inputs).
    pub(crate) fn motions_mut(&mut self) -> impl Iterator<Item = &mut Motion> {
        self.fades[..self.len as usize]
            .iter_mut()
            .map(|f| &mut f.motion)
    }

    /// Advances fade weights and clocks by `dt`, keeping the stack within `budget` layers, and
    /// writes each entry's clock step to `steps`.
    pub(crate) fn advance(
        &mut self,
        ctx: &MotionContext,
        dt: f64,
        recent: f64,
        budget: usize,
        steps: &mut FadeSteps,
    ) {
        if self.len == 0 {
            return;
        }
        let top = self.len as usize - 1;
        // A fade that has not started waits while it would not fit, and the bottom collapses.
        let held = top >= 2 && self.fades[top].weight <= 0.0 && {
            let needed: usize = self.fades[..=top]
                .iter()
                .map(|f| slots(ctx, &f.motion))
                .sum();
            needed > budget
        };
        let collapse_rate = if held { self.fades[top].rate } else { 0.0 };
        let mut before = [0.0; MAX_FADES];
        for (b, f) in before.iter_mut().zip(&self.fades[..self.len as usize]) {
            *b = f.weight;
        }
        for (i, f) in self.fades[..self.len as usize].iter_mut().enumerate() {
            if held && i == top {
                f.rising = 0.0;
                continue;
            }
            let rate = if i == 1 {
                f.rate.max(collapse_rate)
            } else {
                f.rate
            };
            f.rising = rate;
            // A fade started since the last advance runs only for the latest update's time.
            let dt = if f.fresh { recent.min(dt) } else { dt };
            f.progress = (f.progress + f64::from(rate) * dt).min(1.0);
            f.weight = f.progress as f32;
        }
        // Everything under the highest full-weight entry has no share left.
        if let Some(full) = self.fades[..self.len as usize]
            .iter()
            .rposition(|f| f.weight >= 1.0)
            && full > 0
        {
            self.fades.copy_within(full..self.len as usize, 0);
            before.copy_within(full..self.len as usize, 0);
            self.len -= full as u32;
        }
        for (f, step) in self.fades[..self.len as usize]
            .iter_mut()
            .zip(steps.iter_mut())
        {
            let (dt, recent) = if f.fresh {
                (recent.min(dt), recent.min(dt))
            } else {
                (dt, recent)
            };
            f.fresh = false;
            *step = match ctx.timeline(&f.motion) {
                Some((period, rate)) => {
                    let step = f.clock.advance_since(
                        period,
                        dt * f64::from(rate),
                        recent * f64::from(rate),
                    );
                    // The clock ran on scaled time: its velocity per second scales too.
                    step.with_travel(step.travel, step.velocity * rate)
                }
                None => Step::still(f.clock.time, 0.0, f.clock.mode),
            };
        }
        self.hold_phases(ctx, &before, steps);
    }

    /// Keeps each synced entry and the one under it in phase: the follower's clock is set from
    /// the leader's by their markers, and its step ends there at the rate the spans' ratio
    /// gives. The lead passes to the incoming motion on the update after its weight (`before`
    /// this update's advance) reaches one half, so that an update spanning many frames makes
    /// the same choice as one per frame.
    fn hold_phases(
        &mut self,
        ctx: &MotionContext,
        before: &[f32; MAX_FADES],
        steps: &mut FadeSteps,
    ) {
        let mut followed = [false; MAX_FADES];
        for i in 1..self.len as usize {
            let top = &self.fades[i];
            if !top.sync {
                continue;
            }
            let leads = before[i] >= 0.5 && !followed[i - 1];
            let (lead, follow) = if leads { (i, i - 1) } else { (i - 1, i) };
            let switch = if leads {
                f32::INFINITY
            } else if top.weight >= 0.5 {
                0.0
            } else if top.rising > 0.0 {
                (0.5 - top.weight) / top.rising
            } else {
                f32::INFINITY
            };
            self.fades[i].sync_until = switch.min(NEVER);
            let (l, f) = (self.fades[lead], self.fades[follow]);
            let (Motion::Clip(lc), Motion::Clip(fc)) = (l.motion, f.motion) else {
                continue;
            };
            if l.clock.mode != LoopMode::Loop || f.clock.mode != LoopMode::Loop {
                continue;
            }
            let (Some(lp), Some(fp)) = (ctx.duration(lc), ctx.duration(fc)) else {
                continue;
            };
            let (Some(lm), Some(fm)) = (ctx.markers.get(lc as usize), ctx.markers.get(fc as usize))
            else {
                continue;
            };
            let Some(held) = lm.follow(l.clock.time, lp, fm, fp) else {
                continue;
            };
            let velocity = steps[lead].velocity;
            let old = steps[follow];
            let from = old.from;
            let from_time = old.time_at(from);
            let travel = if velocity >= 0.0 {
                (held.time - from_time).rem_euclid(fp)
            } else {
                -(from_time - held.time).rem_euclid(fp)
            };
            steps[follow] = Step::new(from, from + travel, fp, f.clock.mode)
                .with_travel(travel, velocity * held.ratio);
            self.fades[follow].clock.time = held.time;
            followed[follow] = true;
            let marker = if velocity > 0.0 {
                held.ahead / velocity
            } else if velocity < 0.0 {
                held.behind / -velocity
            } else {
                f32::INFINITY
            };
            self.fades[i].sync_until = switch.min(marker).min(NEVER);
        }
    }

    /// Seconds until the stack needs an update: an entry's fade-in completes (and the entries
    /// under it are dropped), or a fade just started shows for the first time.
    pub fn next_change_in(&self) -> Option<f32> {
        let fades = &self.fades[..self.len as usize];
        let held = fades[1.min(fades.len())..]
            .iter()
            .filter(|f| f.sync && f.sync_until < NEVER)
            .map(|f| f.sync_until);
        fades
            .iter()
            .filter(|f| f.rising > 0.0 && f.weight < 1.0)
            // A fade that has not shown yet enters the record with its first step.
            .map(|f| {
                if f.weight <= 0.0 {
                    0.0
                } else {
                    (1.0 - f.weight) / f.rising
                }
            })
            .chain(held)
            .reduce(f32::min)
    }

    /// The newest entry's clock step in `steps` (still when it started after the advance).
    pub(crate) fn current_step(&self, steps: &FadeSteps) -> Option<Step> {
        let f = self.top()?;
        Some(if f.fresh {
            Step::still(f.clock.time, 0.0, f.clock.mode)
        } else {
            steps[self.len as usize - 1]
        })
    }

    /// Pushes this frame's contributions, bottom first, with the steps from
    /// [`CrossFade::advance`]. Returns false when an entry names a clip or blend space that does
    /// not exist (it contributes nothing).
    pub(crate) fn contribute(
        &self,
        ctx: &MotionContext,
        steps: &FadeSteps,
        out: &mut Contributions,
    ) -> bool {
        let mut valid = true;
        let mut above = 1.0;
        // Shares are products over the entries above, so walk top-down, then emit bottom-up.
        let mut shares = [0.0f32; MAX_FADES];
        for (share, f) in shares[..self.len as usize]
            .iter_mut()
            .zip(&self.fades[..self.len as usize])
            .rev()
        {
            *share = f.weight * above;
            above *= 1.0 - f.weight;
        }
        for ((f, &share), step) in self.fades[..self.len as usize]
            .iter()
            .zip(&shares)
            .zip(steps)
        {
            if share > 0.0 {
                let step = if f.fresh {
                    Step::still(f.clock.time, 0.0, f.clock.mode)
                } else {
                    *step
                };
                let fade = (f.weight < 1.0).then_some((f.weight, f.rising));
                valid &= ctx.contribute_fading(&f.motion, f.clock.time, step, share, fade, out);
            }
        }
        valid
    }

    fn top(&self) -> Option<&Fade> {
        self.fades[..self.len as usize].last()
    }

    fn top_mut(&mut self) -> Option<&mut Fade> {
        self.fades[..self.len as usize].last_mut()
    }
}

/// Layers `motion` needs at its current input.
fn slots(ctx: &MotionContext, motion: &Motion) -> usize {
    match motion {
        Motion::Clip(_) => 1,
        Motion::BlendSpace { space, input } => ctx
            .spaces
            .get(*space as usize)
            .map_or(1, |s| s.weights(*input).len),
    }
}

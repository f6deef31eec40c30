//! What an entity's base plays, and how that reaches the instance record.
//!
//! A [`Motion`] is a clip or a blend space. Every frame the base driver ([`crate::runtime::Playback`],
//! [`crate::runtime::CrossFade`] or [`crate::runtime::StateMachine`]) resolves into weighted clip
//! samples, [`Contribution`]s, bottom first. A contribution's weight `cₖ` is its linear share of
//! the blended base pose; the rest pose keeps `c_rest = 1 - Σ cᵢ`. Events and root motion read
//! the contributions; [`Contributions::write_layers`] turns them into override layers with
//! weights `wₖ = cₖ / (c_rest + Σ_{i≤k} cᵢ)`, which applied bottom first reproduce the shares
//! exactly for translation and scale (and as a chain of nlerps for rotation).

use glam::Vec2;

use super::blend_space::{BlendSpace, MAX_BLEND_CLIPS};
use super::phase_warp::PhaseWarp;
use super::playback::Step;
use super::sync_markers::{ClipMarkers, MarkerPhase};
use super::transition::MAX_FADES;
use crate::instance::{Layer, LayerRecord};

/// What a base plays.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Motion {
    /// A clip of the entity's rig.
    Clip(u32),
    /// A blend space registered for the entity's rig, and its input point.
    BlendSpace {
        /// Index from [`crate::runtime::Animator::add_blend_space`].
        space: u32,
        /// Where the blend is read (a state machine refreshes it from its parameters).
        input: Vec2,
    },
}

/// One clip's share of an entity's base pose this frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contribution {
    /// Clip index.
    pub clip: u32,
    /// Sample time in seconds.
    pub time: f32,
    /// Linear share of the base pose, 0 to 1.
    pub weight: f32,
    /// The clip's travel this frame, in seconds.
    pub step: Step,
    /// Whether the clip's events fire (in a blend space, only its heaviest clip's do).
    pub events: bool,
    /// How the share moves with a cross-fade, when it comes from one.
    pub fade: Option<FadeShare>,
    /// Seconds the step's velocity holds (a clip of a blend space warped by sync markers
    /// changes rate at the blend's next marker); infinite otherwise.
    pub until: f32,
}

/// A contribution's place in a cross-fade: its fade entry's weight `alpha`, rising at `rate`
/// per second, and its clip's share of the entry's motion (`share`, and `share_sum` over the
/// entry's clips up to and including this one). Its override layer weight is then
/// `alpha × share / ((1 − alpha) + alpha × share_sum)` at every instant of the fade, which the
/// record describes as a fade ([`crate::LayerRecord`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FadeShare {
    /// The fade entry's weight, 0 to 1.
    pub alpha: f32,
    /// Its rise per second (0 while it waits or is complete).
    pub rate: f32,
    /// The clip's share of the entry's motion (1 for a clip).
    pub share: f32,
    /// The shares of the entry's clips up to and including this one.
    pub share_sum: f32,
}

/// Most contributions one base can produce before the layer budget is applied.
pub const MAX_CONTRIBUTIONS: usize = MAX_FADES * MAX_BLEND_CLIPS;

/// The contributions of one base, bottom first, in a fixed-size array (no allocation).
#[derive(Clone, Copy, Debug)]
pub struct Contributions {
    items: [Contribution; MAX_CONTRIBUTIONS],
    len: usize,
}

impl Default for Contributions {
    fn default() -> Self {
        Self::new()
    }
}

impl Contributions {
    /// None.
    pub const fn new() -> Self {
        Self {
            items: [Contribution {
                clip: 0,
                time: 0.0,
                weight: 0.0,
                step: Step::still(0.0, 0.0, super::LoopMode::Loop),
                events: false,
                fade: None,
                until: f32::INFINITY,
            }; MAX_CONTRIBUTIONS],
            len: 0,
        }
    }

    /// Removes them all.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds one on top; weights of zero (or less) and overflow are ignored.
    pub fn push(&mut self, c: Contribution) {
        if c.weight > 0.0 && self.len < MAX_CONTRIBUTIONS {
            self.items[self.len] = c;
            self.len += 1;
        }
    }

    /// The contributions, bottom first.
    pub fn as_slice(&self) -> &[Contribution] {
        &self.items[..self.len]
    }

    /// Converts rates per entity second into rates per animator second for an entity whose
    /// time runs `pace` times as fast ([`crate::runtime::Pace`]): clock velocities and fade
    /// rates scale.
    pub(crate) fn rescale(&mut self, pace: f32) {
        for c in &mut self.items[..self.len] {
            c.step = c.step.with_travel(c.step.travel, c.step.velocity * pace);
            if let Some(fade) = &mut c.fade {
                fade.rate *= pace;
            }
            c.until = if pace > 0.0 {
                c.until / pace
            } else {
                f32::INFINITY
            };
        }
    }

    /// Number of contributions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none (the base is the rest pose).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keeps at most `budget` contributions: while over, the lightest one is dropped and the
    /// others scaled so that the rest pose's share stays the same. A fallback that pops by the
    /// dropped weight; [`crate::runtime::CrossFade`] normally keeps within budget without it.
    pub fn limit(&mut self, budget: usize) {
        while self.len > budget.max(1) {
            let items = &mut self.items[..self.len];
            let total: f32 = items.iter().map(|c| c.weight).sum();
            let (lightest, dropped) = items
                .iter()
                .enumerate()
                .map(|(i, c)| (i, c.weight))
                .fold((0, f32::INFINITY), |a, b| if b.1 < a.1 { b } else { a });
            let scale = if total - dropped > 0.0 {
                total / (total - dropped)
            } else {
                1.0
            };
            for c in items.iter_mut() {
                c.weight *= scale;
            }
            self.items.copy_within(lightest + 1..self.len, lightest);
            self.len -= 1;
            // The shares no longer follow the fades: weights are held as they are now.
            for c in &mut self.items[..self.len] {
                c.fade = None;
            }
        }
    }

    /// Writes the contributions as bottom-first override layers into `out` (which must hold
    /// [`Contributions::len`] entries) and returns how many were written. Each layer's clock
    /// runs on from frame time `now` at its step's velocity, and a cross-fade's share follows
    /// its fade.
    pub fn write_layers(&self, out: &mut [LayerRecord], now: f32) -> usize {
        let total: f32 = self.as_slice().iter().map(|c| c.weight).sum();
        let mut below = (1.0 - total).max(0.0);
        let mut written = 0;
        for (c, slot) in self.as_slice().iter().zip(out.iter_mut()) {
            below += c.weight;
            let layer = Layer {
                clip: c.clip,
                time: c.time,
                weight: (c.weight / below).min(1.0),
                mask: None,
                mode: crate::BlendMode::Override,
            }
            .to_record();
            *slot = clock_of(fade_of(layer, c.fade, now), &c.step, now);
            written += 1;
        }
        written
    }
}

/// What resolving a motion needs from its rig: clip durations and blend spaces.
#[derive(Clone, Copy, Debug)]
pub struct MotionContext<'a> {
    /// Duration of each clip of the rig, seconds.
    pub durations: &'a [f32],
    /// The rig's blend spaces.
    pub spaces: &'a [BlendSpace],
    /// Sync markers of each clip of the rig.
    pub markers: &'a [ClipMarkers],
}

impl MotionContext<'_> {
    /// Duration of `clip`, if it exists.
    #[inline]
    pub fn duration(&self, clip: u32) -> Option<f32> {
        self.durations.get(clip as usize).copied()
    }

    /// The time on `to`'s timeline in phase with time `time` of `from`: by sync markers when
    /// both have them (clips with [`ClipMarkers`], blend spaces warped by them: [`PhaseWarp`]),
    /// else at the same normalized time. `None` when either names nothing or has no timeline.
    pub fn in_phase(&self, from: &Motion, time: f32, to: &Motion) -> Option<f32> {
        let (from_period, _) = self.timeline(from)?;
        let (to_period, _) = self.timeline(to)?;
        if let Some(phase) = self.marker_phase(from, time, from_period)
            && let Some(t) = self.marker_time(to, &phase, to_period)
        {
            return Some(t);
        }
        if from_period.is_nan() || from_period <= 0.0 {
            return Some(0.0);
        }
        Some((time / from_period).rem_euclid(1.0) * to_period)
    }

    /// Where time `time` of `motion` (cycling every `period`) lies between its markers.
    fn marker_phase(&self, motion: &Motion, time: f32, period: f32) -> Option<MarkerPhase> {
        match *motion {
            Motion::Clip(clip) => self.markers.get(clip as usize)?.phase_at(time, period),
            Motion::BlendSpace { .. } => Some(self.warp(motion)?.marker_phase(time)),
        }
    }

    /// The time of `motion` (cycling every `period`) at marker phase `phase`.
    fn marker_time(&self, motion: &Motion, phase: &MarkerPhase, period: f32) -> Option<f32> {
        match *motion {
            Motion::Clip(clip) => self.markers.get(clip as usize)?.time_at(phase, period),
            Motion::BlendSpace { .. } => self.warp(motion)?.phase_at(phase),
        }
    }

    /// The marker warp of a blend space at its input, if it has one.
    fn warp(&self, motion: &Motion) -> Option<PhaseWarp> {
        let Motion::BlendSpace { space, input } = *motion else {
            return None;
        };
        let space = self.spaces.get(space as usize)?;
        PhaseWarp::new(
            space.clips(),
            &space.weights(input),
            self.durations,
            self.markers,
        )
    }

    /// The timeline length of `motion` for its clock: a clip's duration, or 1 (normalized
    /// phase) for a blend space, with the phase rate `1 / Σ wᵢ·durationᵢ` as the second value.
    /// `None` when the motion names a clip or space that does not exist.
    pub fn timeline(&self, motion: &Motion) -> Option<(f32, f32)> {
        match *motion {
            Motion::Clip(clip) => self.duration(clip).map(|d| (d, 1.0)),
            Motion::BlendSpace { space, input } => {
                let weights = self.spaces.get(space as usize)?.weights(input);
                let mut length = 0.0;
                for (clip, w) in weights.iter() {
                    length += w * self.duration(clip)?;
                }
                (length > 0.0).then(|| (1.0, 1.0 / length))
            }
        }
    }

    /// Pushes the contributions of `motion` at clock time `time` (seconds for a clip, phase for
    /// a blend space) with overall `weight` and this frame's `step`. Returns false when the
    /// motion names a clip or space that does not exist.
    pub fn contribute(
        &self,
        motion: &Motion,
        time: f32,
        step: Step,
        weight: f32,
        out: &mut Contributions,
    ) -> bool {
        self.contribute_fading(motion, time, step, weight, None, out)
    }

    /// [`MotionContext::contribute`] for a cross-fade entry of weight `alpha` rising at `rate`
    /// per second (`fade`), which the contributions carry as [`FadeShare`]s.
    pub fn contribute_fading(
        &self,
        motion: &Motion,
        time: f32,
        step: Step,
        weight: f32,
        fade: Option<(f32, f32)>,
        out: &mut Contributions,
    ) -> bool {
        let share = |share: f32, share_sum: f32| {
            fade.map(|(alpha, rate)| FadeShare {
                alpha,
                rate,
                share,
                share_sum,
            })
        };
        match *motion {
            Motion::Clip(clip) => {
                if self.duration(clip).is_none() {
                    return false;
                }
                out.push(Contribution {
                    clip,
                    time,
                    weight,
                    step,
                    events: true,
                    fade: share(1.0, 1.0),
                    until: f32::INFINITY,
                });
                true
            }
            Motion::BlendSpace { space, input } => {
                let Some(space) = self.spaces.get(space as usize) else {
                    return false;
                };
                let weights = space.weights(input);
                let heaviest = weights
                    .iter()
                    .fold((u32::MAX, 0.0), |a, b| if b.1 > a.1 { b } else { a })
                    .0;
                let warp = PhaseWarp::new(space.clips(), &weights, self.durations, self.markers);
                let mut sum = 0.0;
                for (clip, w) in weights.iter() {
                    let Some(d) = self.duration(clip) else {
                        return false;
                    };
                    // Clips of zero weight are not pushed, so they add nothing to the sum.
                    if weight * w > 0.0 {
                        sum += w;
                    }
                    let (time, step, until) =
                        match warp.as_ref().and_then(|warp| warp.clip_step(clip, &step)) {
                            Some((step, until)) => (step.time_at(step.to), step, until),
                            None => (time * d, step.scaled(d), f32::INFINITY),
                        };
                    out.push(Contribution {
                        clip,
                        time,
                        weight: weight * w,
                        step,
                        events: clip == heaviest,
                        fade: share(w, sum),
                        until,
                    });
                }
                true
            }
        }
    }
}

/// `layer` with a running clock: at frame time `now` it is where `step` ended, moving at the
/// step's velocity and wrapping like the step's clock. The GPU and CPU evaluators then derive
/// the following frames' times from it without a new record.
pub fn clock_of(layer: LayerRecord, step: &Step, now: f32) -> LayerRecord {
    let rate = step.velocity;
    if !(step.period > 0.0 && step.period.is_finite() && rate.is_finite()) {
        return layer;
    }
    layer.with_clock(step.to, now, rate, step.mode.into(), step.period)
}

/// `layer` with the fade its contribution follows: from frame time `now` on, its weight moves
/// as the fade entry's weight rises (see [`FadeShare`]); without a moving fade it holds.
fn fade_of(layer: LayerRecord, fade: Option<FadeShare>, now: f32) -> LayerRecord {
    match fade {
        Some(f) if f.rate > 0.0 && f.alpha < 1.0 && f.share_sum > 0.0 => LayerRecord {
            weight: f.share,
            ..layer
        }
        .with_fade(0.0, now - f.alpha / f.rate, f.rate, f.share_sum),
        _ => layer,
    }
}

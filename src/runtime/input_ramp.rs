//! Blend-space inputs given as ramps: the input moves from `value` at `rate` per second until
//! `until` seconds after it is set, then holds. A character steering smoothly then needs no
//! new record each frame: while the ramp keeps its input in one region of the space
//! ([`BlendSpace::region`]), the clips' weights are linear in time, which a layer's fade
//! describes, and the phase rate `1 / Σ wᵢ·durationᵢ` moves from its value at the region's
//! start to its value at its end, which the layer's clock gain describes
//! ([`crate::LayerRecord`]: the rate ramps linearly with the fade between those two exact
//! values). Both evaluators derive each frame from that record; the runtime advances the
//! blend's phase by the same integral, so the record it builds each update describes the same
//! motion and is not uploaded again ([`crate::runtime::Animator::changed_slots`]) until the
//! input enters another region or the ramp is replaced.
//!
//! The record takes the ramp while the entity's [`CrossFade`] plays the ramped blend space
//! alone (no fade in progress) on a running, looping clock at pace 1, with the space's clips
//! within the layer budget; otherwise the input still follows the ramp, set each update.

use glam::Vec2;
use hecs::{Entity, World};

use super::RuntimeError;
use super::blend_space::{BlendSpace, MAX_BLEND_CLIPS};
use super::motion::Motion;
use super::playback::LoopMode;
use super::registry::no_entity;
use super::system::Animator;
use super::transition::CrossFade;
use crate::instance::{LayerRecord, TimeWrap};

/// A blend-space input moving at a constant rate for a while.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InputRamp {
    /// The input when the ramp is set.
    pub value: Vec2,
    /// Input units per second.
    pub rate: Vec2,
    /// Seconds after it is set at which the input stops moving (infinite: it never stops).
    pub until: f32,
}

impl InputRamp {
    /// A ramp from `value` at `rate` per second for `until` seconds. Fails with
    /// [`RuntimeError::InvalidValue`] for a value or rate that is not finite, or an `until`
    /// that is NaN or negative.
    pub fn new(value: Vec2, rate: Vec2, until: f32) -> Result<Self, RuntimeError> {
        let bad = |what: &str, value: f32| RuntimeError::InvalidValue {
            what: format!("a blend input ramp's {what}"),
            value,
        };
        for (what, v) in [("value", value), ("rate", rate)] {
            if let Some(&x) = v.to_array().iter().find(|x| !x.is_finite()) {
                return Err(bad(what, x));
            }
        }
        if until.is_nan() || until < 0.0 {
            return Err(bad("duration", until));
        }
        Ok(Self { value, rate, until })
    }

    /// The input `elapsed` seconds after the ramp was set.
    pub fn input_at(&self, elapsed: f64) -> Vec2 {
        let t = elapsed.min(f64::from(self.until)).max(0.0);
        (self.value.as_dvec2() + self.rate.as_dvec2() * t).as_vec2()
    }
}

/// Most seconds one region's record looks ahead: frame times restart every
/// [`crate::runtime::EPOCH_SPAN`] seconds.
const HORIZON: f64 = 512.0;

/// Shortest region crossing (seconds) a record describes; a shorter one is set each update.
const SHORTEST: f64 = 1e-3;

/// Bisection steps that find where the input leaves its region.
const STEPS: u32 = 40;

/// The ramp driving blend space `space` of an entity's [`CrossFade`] (a component; see the
/// module documentation, saved in runtime snapshots). [`Animator::set_blend_input_ramp`]
/// adds it.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BlendInputRamp {
    /// The blend space whose input moves.
    pub space: u32,
    /// The ramp.
    pub ramp: InputRamp,
    /// Seconds since the ramp was set.
    elapsed: f64,
    /// The region the input is in, once a record describes it.
    piece: Option<Piece>,
}

/// The ramp's course through one region, in seconds since the ramp was set.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Piece {
    /// When the record's fade starts and ends.
    start: f64,
    end: f64,
    /// The clips, bottom first, and their shares of the blend at `start` and at `end`.
    clips: [u32; MAX_BLEND_CLIPS],
    from: [f32; MAX_BLEND_CLIPS],
    to: [f32; MAX_BLEND_CLIPS],
    len: usize,
    /// Their durations.
    durations: [f32; MAX_BLEND_CLIPS],
    /// Phase per second at `start` and at `end` (the clock's speed included).
    rate_from: f64,
    rate_to: f64,
    /// The phase, unwrapped, at `start`.
    phase: f64,
}

/// `∫ clamp(s, 0, 1) ds` from 0 to `x` (the area under a fade's progress, in units of its
/// duration): [`crate::cpu::layer_unwrapped_time`]'s clock gain, in `f64`.
pub(crate) fn ramp_area(x: f64) -> f64 {
    let inside = x.clamp(0.0, 1.0);
    0.5 * inside * inside + (x - 1.0).max(0.0)
}

impl Piece {
    /// The unwrapped phase at `elapsed` (at `end`'s rate after it).
    fn phase_at(&self, elapsed: f64) -> f64 {
        let span = self.end - self.start;
        let area = span * ramp_area((elapsed - self.start) / span);
        self.phase
            + self.rate_from * (elapsed - self.start)
            + (self.rate_to - self.rate_from) * area
    }
}

impl BlendInputRamp {
    /// Ramp `ramp` of blend space `space`, set now.
    pub fn new(space: u32, ramp: InputRamp) -> Self {
        Self {
            space,
            ramp,
            elapsed: 0.0,
            piece: None,
        }
    }

    /// The input now.
    pub fn input(&self) -> Vec2 {
        self.ramp.input_at(self.elapsed)
    }

    /// Seconds until the entity needs an update for its ramp: when the record built now stops
    /// describing it (the input enters another region, or stops), or 0 while the input moves
    /// without such a record; `None` once it has stopped.
    pub(crate) fn next_change_in(&self) -> Option<f32> {
        let until = f64::from(self.ramp.until);
        if self.elapsed >= until || self.ramp.rate == Vec2::ZERO {
            return None;
        }
        Some(
            self.piece
                .map_or(0.0, |p| (p.end.min(until) - self.elapsed).max(0.0) as f32),
        )
    }

    /// Advances the ramp by `dt` seconds and sets `fades`' input to it (before the fades
    /// advance).
    pub(crate) fn steer(&mut self, fades: &mut CrossFade, dt: f64) {
        self.elapsed += dt;
        fades.set_blend_input(self.space, self.input());
    }

    /// While a record describes the ramp, sets the blend's phase to the record's
    /// ([`Piece::phase_at`]; after the fades advance).
    pub(crate) fn hold_phase(&self, fades: &mut CrossFade) {
        if let Some(piece) = &self.piece
            && let Some(clock) = fades.current_clock_mut()
        {
            clock.time = piece.phase_at(self.elapsed).rem_euclid(1.0) as f32;
        }
    }

    /// Writes the base layers of `fades` as records that follow the ramp (see the module
    /// documentation) into `out`, at frame time `now`, and returns how many; `None` (the
    /// contributions' layers stand) when the ramp does not apply or has ended. `paced`: the
    /// entity runs at a pace other than 1.
    pub(crate) fn write_layers(
        &mut self,
        space: &BlendSpace,
        durations: &[f32],
        fades: &CrossFade,
        paced: bool,
        out: &mut [LayerRecord],
        now: f32,
    ) -> Option<usize> {
        self.piece = self
            .piece_now(space, durations, fades, paced)
            .filter(|p| p.len <= out.len());
        let piece = self.piece?;
        let phase = piece.phase_at(self.elapsed).rem_euclid(1.0);
        let fade_start = now - (self.elapsed - piece.start) as f32;
        let fade_rate = (1.0 / (piece.end - piece.start)) as f32;
        let (mut below_from, mut below_to) = (0.0, 0.0);
        for (k, slot) in out[..piece.len].iter_mut().enumerate() {
            below_from += piece.from[k];
            below_to += piece.to[k];
            let d = f64::from(piece.durations[k]);
            let rate = (d * piece.rate_from) as f32;
            let gain = (d * (piece.rate_to - piece.rate_from)) as f32;
            *slot = LayerRecord {
                clip: piece.clips[k],
                weight: piece.to[k] / below_from,
                ..LayerRecord::STILL
            }
            .with_clock(
                (phase * d) as f32,
                now,
                rate,
                TimeWrap::Loop,
                piece.durations[k],
            )
            .with_fade(
                piece.from[k] / below_from,
                fade_start,
                fade_rate,
                below_to / below_from,
            )
            .with_rate_gain(gain);
        }
        Some(piece.len)
    }

    /// The piece of the ramp a record describes now: the current one, or the next region's;
    /// `None` when the ramp does not apply (see the module documentation) or has ended.
    fn piece_now(
        &self,
        space: &BlendSpace,
        durations: &[f32],
        fades: &CrossFade,
        paced: bool,
    ) -> Option<Piece> {
        let (motion, clock) = fades.current()?;
        let alone = fades.len() == 1 && fades.current_weight() >= 1.0;
        let playing = matches!(*motion, Motion::BlendSpace { space: s, .. } if s == self.space);
        let running = clock.mode == LoopMode::Loop && !clock.paused && clock.speed > 0.0;
        let moving = self.elapsed < f64::from(self.ramp.until) && self.ramp.rate != Vec2::ZERO;
        if !(alone && playing && running && moving && !paced) {
            return None;
        }
        match self.piece {
            Some(p) if self.elapsed < p.end => Some(p),
            // Past its region, the phase ran on at the record's final rate.
            Some(p) => self.piece_from(
                space,
                durations,
                f64::from(clock.speed),
                p.phase_at(self.elapsed),
            ),
            None => self.piece_from(
                space,
                durations,
                f64::from(clock.speed),
                f64::from(clock.time),
            ),
        }
    }

    /// The ramp's course through the region it is in now, at blend phase `phase` now, or
    /// `None` when it leaves it too soon.
    fn piece_from(
        &self,
        space: &BlendSpace,
        durations: &[f32],
        speed: f64,
        phase: f64,
    ) -> Option<Piece> {
        let start = self.elapsed;
        let last = f64::from(self.ramp.until).min(start + HORIZON);
        let at = |e: f64| self.ramp.input_at(e);
        let probe = start + (SHORTEST / 2.0).min((last - start) / 2.0);
        let region = space.region(at(probe));
        let end = if space.region(at(last)) == region {
            last
        } else {
            let (mut inside, mut outside) = (probe, last);
            for _ in 0..STEPS {
                let mid = 0.5 * (inside + outside);
                if space.region(at(mid)) == region {
                    inside = mid;
                } else {
                    outside = mid;
                }
            }
            inside
        };
        if end - start < SHORTEST {
            return None;
        }
        // Weights are linear over the region: extrapolate from two inputs inside it.
        let (p, q) = (probe, 0.5 * (probe + end));
        let (wp, wq) = (space.weights(at(p)), space.weights(at(q)));
        let share = |clip: u32, e: f64| {
            let (a, b) = (f64::from(wp.weight_of(clip)), f64::from(wq.weight_of(clip)));
            (a + (b - a) * (e - p) / (q - p)).max(0.0) as f32
        };
        let mut piece = Piece {
            start,
            end,
            clips: [0; MAX_BLEND_CLIPS],
            from: [0.0; MAX_BLEND_CLIPS],
            to: [0.0; MAX_BLEND_CLIPS],
            len: 0,
            durations: [0.0; MAX_BLEND_CLIPS],
            rate_from: 0.0,
            rate_to: 0.0,
            phase,
        };
        for (clip, _) in wp.iter().chain(wq.iter()) {
            if piece.clips[..piece.len].contains(&clip) || piece.len == MAX_BLEND_CLIPS {
                continue;
            }
            let k = piece.len;
            piece.clips[k] = clip;
            piece.from[k] = share(clip, start);
            piece.to[k] = share(clip, end);
            piece.durations[k] = *durations.get(clip as usize)?;
            piece.len += 1;
        }
        // The heaviest clip at the start goes at the bottom: the layers' normalisers stay
        // positive.
        let heaviest = (0..piece.len).max_by(|&a, &b| piece.from[a].total_cmp(&piece.from[b]))?;
        for list in [&mut piece.from, &mut piece.to, &mut piece.durations] {
            list.swap(0, heaviest);
        }
        piece.clips.swap(0, heaviest);
        let length = |shares: &[f32]| -> f64 {
            let sum: f64 = shares[..piece.len].iter().map(|&w| f64::from(w)).sum();
            let weighted: f64 = (shares[..piece.len].iter().zip(&piece.durations))
                .map(|(&w, &d)| f64::from(w) * f64::from(d))
                .sum();
            weighted / sum
        };
        let (from, to) = (length(&piece.from), length(&piece.to));
        if !(from > 0.0 && to > 0.0 && piece.from[0] > 0.0) {
            return None;
        }
        piece.rate_from = speed / from;
        piece.rate_to = speed / to;
        Some(piece)
    }
}

impl Animator {
    /// Drives the input of blend space `space` of `entity`'s [`CrossFade`] by `ramp` from now
    /// on (a [`BlendInputRamp`] component, replacing any earlier ramp; remove it to stop).
    /// Fails with [`RuntimeError::InvalidValue`] for a ramp [`InputRamp::new`] refuses, and
    /// with [`RuntimeError::NoSuchEntity`] when `entity` has no [`CrossFade`].
    pub fn set_blend_input_ramp(
        &self,
        world: &mut World,
        entity: Entity,
        space: u32,
        ramp: InputRamp,
    ) -> Result<(), RuntimeError> {
        let ramp = InputRamp::new(ramp.value, ramp.rate, ramp.until)?;
        let fades = world
            .query_one_mut::<&mut CrossFade>(entity)
            .map_err(|_| no_entity(entity, "CrossFade"))?;
        fades.set_blend_input(space, ramp.value);
        world
            .insert_one(entity, BlendInputRamp::new(space, ramp))
            .map_err(|_| no_entity(entity, "CrossFade"))?;
        self.touch(entity);
        Ok(())
    }
}

//! Sync markers: named points of a clip's cycle (a foot touching down) by which a cross-fade
//! aligns the incoming clip's phase, so a walk blended into a run keeps its feet in phase even
//! when the two cycles have other shapes (the left foot down a tenth into one and a third into
//! the other), where normalized time would not.
//!
//! The outgoing clip's time gives its phase by markers: the last marker at or before it, the
//! next one (cyclically) and how far between the two it is. The incoming clip starts at the
//! same fraction between its first pair of markers with the same names (or, failing that, after
//! its first marker of the same name). Markers come from [`crate::runtime::Animator::add_sync_marker`]
//! or from foot contacts ([`crate::runtime::Animator::mark_foot_contacts`]: a foot's lowest point
//! per cycle).

use glam::Affine3A;

use super::{Animator, RuntimeError};
use crate::instance::Layer;
use crate::math::Mat3x4Rows;

/// Samples per cycle when foot contacts are searched.
pub const CONTACT_SAMPLES: usize = 120;

impl Animator {
    /// Places sync marker `name` at `time` seconds of clip `clip` of rig `rig`.
    pub fn add_sync_marker(
        &mut self,
        rig: u32,
        clip: &str,
        time: f32,
        name: &str,
    ) -> Result<(), RuntimeError> {
        let (c, id) = self.clip_point(rig, clip, time, "sync marker", name)?;
        self.rigs[rig as usize].markers[c].insert(time, id);
        Ok(())
    }

    /// The sync markers of clip `clip` of rig `rig` as `(time, name)`, in time order.
    pub fn sync_markers(&self, rig: u32, clip: &str) -> Result<Vec<(f32, &str)>, RuntimeError> {
        let c = self.clip(rig, clip)?;
        Ok(self.rigs[rig as usize].markers[c as usize]
            .iter()
            .map(|(t, n)| (t, self.events.name(n)))
            .collect())
    }

    /// Finds each foot's contact in clip `clip` of rig `rig` (one cycle: its lowest point in
    /// model space, [`lowest_point`] over `CONTACT_SAMPLES` samples of the exact pose) and
    /// places a sync marker there. `feet` pairs a marker name with a joint name, e.g.
    /// `[("left", "LeftFoot"), ("right", "RightFoot")]`. Returns the markers' times.
    pub fn mark_foot_contacts(
        &mut self,
        rig: u32,
        clip: &str,
        feet: &[(&str, &str)],
    ) -> Result<Vec<f32>, RuntimeError> {
        let c = self.clip(rig, clip)?;
        let joints = feet
            .iter()
            .map(|(_, joint)| self.joint(rig, joint).map(usize::from))
            .collect::<Result<Vec<_>, _>>()?;
        let r = &self.backend.rigs()[rig as usize];
        let period = r.clips.clips()[c as usize].duration;
        if !is_cycle(period) {
            return Err(RuntimeError::InvalidValue {
                what: format!("the length of clip {clip:?} to find foot contacts in"),
                value: period,
            });
        }
        let mut heights = vec![Vec::with_capacity(CONTACT_SAMPLES); feet.len()];
        let mut models = vec![Affine3A::IDENTITY; r.joint_count()];
        let mut palette = vec![Mat3x4Rows::IDENTITY; r.palette_entries()];
        for k in 0..CONTACT_SAMPLES {
            let t = period * k as f32 / CONTACT_SAMPLES as f32;
            let layers = [Layer::clip(c, t)];
            crate::cpu::evaluate_pose(
                r,
                &[],
                &layers,
                &Affine3A::IDENTITY,
                &mut models,
                &mut palette,
            );
            for (h, &j) in heights.iter_mut().zip(&joints) {
                h.push(models[j].translation.y);
            }
        }
        let mut times = Vec::with_capacity(feet.len());
        for ((name, joint), h) in feet.iter().zip(&heights) {
            let t = lowest_point(h, period).ok_or_else(|| RuntimeError::InvalidValue {
                what: format!("the height of joint {joint:?} in clip {clip:?}"),
                value: f32::NAN,
            })?;
            self.add_sync_marker(rig, clip, t.min(period), name)?;
            times.push(t);
        }
        Ok(times)
    }
}

/// The sync markers of one clip: `(time, name)` sorted by time; names index the animator's
/// name table (shared with clip events).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipMarkers {
    markers: Vec<(f32, u32)>,
}

/// Where a clip's time lies between two markers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkerPhase {
    /// The marker at or before the time (cyclically).
    pub last: u32,
    /// The marker after it.
    pub next: u32,
    /// How far from `last` to `next` the time is, 0 to 1.
    pub fraction: f32,
}

impl FromIterator<(f32, u32)> for ClipMarkers {
    /// Markers from `(time, name)` pairs in any order.
    fn from_iter<I: IntoIterator<Item = (f32, u32)>>(pairs: I) -> Self {
        let mut m = Self::default();
        for (time, name) in pairs {
            m.insert(time, name);
        }
        m
    }
}

impl ClipMarkers {
    /// Adds marker `name` at `time` (a marker already at that time with that name is kept once).
    pub fn insert(&mut self, time: f32, name: u32) {
        if self.markers.contains(&(time, name)) {
            return;
        }
        let at = self.markers.partition_point(|m| m.0 <= time);
        self.markers.insert(at, (time, name));
    }

    /// `(time, name)` of each marker, in time order.
    pub fn iter(&self) -> impl Iterator<Item = (f32, u32)> + '_ {
        self.markers.iter().copied()
    }

    /// `(time, name)` of each marker, in time order, as a slice.
    pub fn as_slice(&self) -> &[(f32, u32)] {
        &self.markers
    }

    /// Whether the clip has no markers.
    pub fn is_empty(&self) -> bool {
        self.markers.is_empty()
    }

    /// The phase of time `t` of a clip cycling every `period` seconds; `None` without markers or
    /// a cycle.
    pub fn phase_at(&self, t: f32, period: f32) -> Option<MarkerPhase> {
        if self.markers.is_empty() || !is_cycle(period) || !t.is_finite() {
            return None;
        }
        let t = t.rem_euclid(period);
        let n = self.markers.len();
        // The last marker at or before t, wrapping to the last one of the previous cycle.
        let i = (self.markers.partition_point(|m| m.0 <= t) + n - 1) % n;
        let (start, last) = self.markers[i];
        let (end, next) = self.markers[(i + 1) % n];
        let span = (end - start).rem_euclid(period);
        let span = if span > 0.0 { span } else { period };
        Some(MarkerPhase {
            last,
            next,
            fraction: ((t - start).rem_euclid(period) / span).clamp(0.0, 1.0),
        })
    }

    /// The time of this clip (cycling every `period` seconds) at `phase` of another: the same
    /// fraction between its first pair of consecutive markers named `phase.last` then
    /// `phase.next`, or after its first marker named `phase.last`; `None` when it has neither.
    pub fn time_at(&self, phase: &MarkerPhase, period: f32) -> Option<f32> {
        let (start, end) = self.span_of(phase, period)?;
        let span = (end - start).rem_euclid(period);
        let span = if span > 0.0 { span } else { period };
        Some((start + phase.fraction * span).rem_euclid(period))
    }
}

/// A clip's time held in phase with another's ([`ClipMarkers::follow`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Following {
    /// The follower's time.
    pub time: f32,
    /// Follower seconds per leader second until the leader's next marker (the ratio of the
    /// two spans between the markers).
    pub ratio: f32,
    /// Leader seconds to its next marker ahead.
    pub ahead: f32,
    /// Leader seconds back to its marker behind.
    pub behind: f32,
}

impl ClipMarkers {
    /// Where a clip with markers `follower` (cycling every `follower_period`) is when this
    /// one (the leader, cycling every `period`) is at `t`, and how fast it goes on: `None`
    /// when either lacks the markers.
    pub fn follow(
        &self,
        t: f32,
        period: f32,
        follower: &ClipMarkers,
        follower_period: f32,
    ) -> Option<Following> {
        let phase = self.phase_at(t, period)?;
        let time = follower.time_at(&phase, follower_period)?;
        let span = |m: &ClipMarkers, p: f32| {
            let (start, end) = m.span_of(&phase, p)?;
            let s = (end - start).rem_euclid(p);
            Some(if s > 0.0 { s } else { p })
        };
        let (lead, follow) = (span(self, period)?, span(follower, follower_period)?);
        Some(Following {
            time,
            ratio: follow / lead,
            ahead: (1.0 - phase.fraction) * lead,
            behind: phase.fraction * lead,
        })
    }

    /// The times of the first pair of markers `phase.last` then `phase.next` (or the first
    /// marker `phase.last` and the one after it).
    fn span_of(&self, phase: &MarkerPhase, period: f32) -> Option<(f32, f32)> {
        let n = self.markers.len();
        if n == 0 || !is_cycle(period) {
            return None;
        }
        let pairs = (0..n).filter(|&i| self.markers[i].1 == phase.last);
        let i = pairs
            .clone()
            .find(|&i| self.markers[(i + 1) % n].1 == phase.next)
            .or_else(|| pairs.clone().next())?;
        Some((self.markers[i].0, self.markers[(i + 1) % n].0))
    }
}

/// Whether `period` is the length of a cycle: positive and finite.
fn is_cycle(period: f32) -> bool {
    period > 0.0 && period.is_finite()
}

/// The time, in a cycle of `heights` sampled evenly over `period` seconds (the first sample at
/// 0), at which the height is lowest, refined by a parabola through the lowest sample and its
/// neighbours. `None` for fewer than three samples.
pub fn lowest_point(heights: &[f32], period: f32) -> Option<f32> {
    let n = heights.len();
    if n < 3 || !is_cycle(period) {
        return None;
    }
    let (i, _) = heights
        .iter()
        .enumerate()
        .filter(|(_, h)| h.is_finite())
        .min_by(|a, b| a.1.total_cmp(b.1))?;
    let (a, b, c) = (heights[(i + n - 1) % n], heights[i], heights[(i + 1) % n]);
    let curvature = a - 2.0 * b + c;
    let offset = if curvature > 0.0 {
        (0.5 * (a - c) / curvature).clamp(-0.5, 0.5)
    } else {
        0.0
    };
    let step = period / n as f32;
    Some(((i as f32 + offset) * step).rem_euclid(period))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const LEFT: u32 = 0;
    pub(crate) const RIGHT: u32 = 1;

    pub(crate) fn markers(list: &[(f32, u32)]) -> ClipMarkers {
        list.iter().copied().collect()
    }

    #[test]
    fn phases_map_between_cycles_of_other_shapes() {
        // A walk of 1 s (left down at 0.1, right at 0.6) and a run of 0.8 s (left at 0.35,
        // right at 0.7: the right step shorter).
        let walk = markers(&[(0.6, RIGHT), (0.1, LEFT)]);
        let run = markers(&[(0.35, LEFT), (0.7, RIGHT)]);
        let phase = walk.phase_at(0.35, 1.0).unwrap(); // ok: unit test
        assert_eq!((phase.last, phase.next), (LEFT, RIGHT));
        assert!((phase.fraction - 0.5).abs() < 1e-6);
        let t = run.time_at(&phase, 0.8).unwrap(); // ok: unit test
        assert!((t - 0.525).abs() < 1e-6, "{t}");
        // Past the last marker: the span wraps into the next cycle.
        let phase = walk.phase_at(0.85, 1.0).unwrap(); // ok: unit test
        assert_eq!((phase.last, phase.next), (RIGHT, LEFT));
        assert!((phase.fraction - 0.5).abs() < 1e-6);
        let t = run.time_at(&phase, 0.8).unwrap(); // ok: unit test
        // From right at 0.7 to left at 0.35 + 0.8: halfway is 0.925, i.e. 0.125.
        assert!((t - 0.125).abs() < 1e-6, "{t}");
        // Before the first marker: after the last one of the previous cycle.
        let phase = walk.phase_at(0.05, 1.0).unwrap(); // ok: unit test
        assert_eq!(phase.last, RIGHT);
        assert!((phase.fraction - 0.9).abs() < 1e-5);
    }

    #[test]
    fn a_clip_without_the_markers_gives_no_time() {
        let walk = markers(&[(0.1, LEFT)]);
        let phase = walk.phase_at(0.5, 1.0).unwrap(); // ok: unit test
        // One marker: its span is the whole cycle.
        assert!((phase.fraction - 0.4).abs() < 1e-6);
        assert_eq!(markers(&[(0.2, RIGHT)]).time_at(&phase, 1.0), None);
        assert_eq!(ClipMarkers::default().phase_at(0.5, 1.0), None);
        assert_eq!(walk.phase_at(0.5, 0.0), None);
    }

    #[test]
    fn the_lowest_point_is_found_between_samples() {
        let period = 1.2;
        let n = 48;
        let low = 0.537;
        let heights: Vec<f32> = (0..n)
            .map(|i| {
                let t = period * i as f32 / n as f32;
                1.0 + (std::f32::consts::TAU * (t - low) / period).cos() * -0.2
            })
            .collect();
        let t = lowest_point(&heights, period).unwrap(); // ok: unit test
        assert!((t - low).abs() < 0.002, "{t}");
        assert_eq!(lowest_point(&heights[..2], period), None);
    }
}

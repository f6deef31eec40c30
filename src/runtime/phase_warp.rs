//! A blend space's phase warped by sync markers, so that its clips pass each marker together
//! even when their cycles have other shapes (the left foot down a tenth into the walk and a
//! third into the run).
//!
//! Without markers a blend space's clips share one normalized phase `p` (each clip at
//! `p × duration`). When every clip of the space carries the same cycle of marker names (the
//! space's first clip gives the order: `left`, `right`), the phase is cut into one segment per
//! marker instead: segment `k` runs from marker `k` to marker `k + 1` of every clip, and phase 0
//! is every clip at its first marker. Each clip `i` has its markers at normalized positions
//! `qᵢ[k]` of its cycle (from its first marker); the blend places marker `k` at the weighted mean
//! `P[k] = Σ wᵢ qᵢ[k]`, and a phase a fraction `f` through segment `k` puts each clip the same
//! fraction through its own segment `k`. The phase still advances at `1 / Σ wᵢ·durationᵢ` per
//! second, so a cycle lasts what it does unwarped; clips of one shape warp to the normalized
//! phase exactly. A clip's rate is constant within a segment and changes at the blend's markers,
//! which is when an event-driven animator rewrites the record.
//!
//! Warping applies to looping clocks of spaces whose clips all have the same cycle of at most
//! [`MAX_WARP_MARKERS`] names at distinct times; any other space keeps the normalized phase.

use super::blend_space::{BlendWeights, MAX_BLEND_CLIPS};
use super::playback::{LoopMode, Step};
use super::sync_markers::{ClipMarkers, MarkerPhase};

/// Most markers per cycle a warped blend space follows.
pub const MAX_WARP_MARKERS: usize = 8;

/// One clip's markers as the warp reads them.
#[derive(Clone, Copy, Debug, Default)]
struct ClipWarp {
    clip: u32,
    /// Time of its first marker of the cycle, seconds.
    start: f32,
    /// Its duration, seconds.
    duration: f32,
    /// Normalized positions of its markers from `start` (`q[0] = 0`, `q[count] = 1`).
    q: [f32; MAX_WARP_MARKERS + 1],
}

/// The warp of one blend space at one set of weights (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub struct PhaseWarp {
    clips: [ClipWarp; MAX_BLEND_CLIPS],
    len: usize,
    /// Marker names of the cycle, in order.
    names: [u32; MAX_WARP_MARKERS],
    /// Markers per cycle.
    count: usize,
    /// The blend's marker positions (`bounds[0] = 0`, `bounds[count] = 1`).
    bounds: [f32; MAX_WARP_MARKERS + 1],
}

impl PhaseWarp {
    /// The warp of a space whose clips are `all` (every clip of the space, first giving the
    /// marker order) blended by `weights`; `None` when the space keeps the normalized phase.
    pub fn new(
        all: &[u32],
        weights: &BlendWeights,
        durations: &[f32],
        markers: &[ClipMarkers],
    ) -> Option<Self> {
        let reference = markers.get(*all.first()? as usize)?;
        let count = reference.iter().count();
        if count == 0 || count > MAX_WARP_MARKERS {
            return None;
        }
        let mut names = [0; MAX_WARP_MARKERS];
        for (n, (_, name)) in names.iter_mut().zip(reference.iter()) {
            *n = name;
        }
        let names = names;
        // Every clip of the space must follow the cycle, so that whether the phase is warped
        // does not change with the input.
        for &clip in all {
            clip_warp(clip, &names[..count], durations, markers)?;
        }
        let mut warp = Self {
            clips: [ClipWarp::default(); MAX_BLEND_CLIPS],
            len: 0,
            names,
            count,
            bounds: [0.0; MAX_WARP_MARKERS + 1],
        };
        let mut total = 0.0;
        for (clip, w) in weights.iter().filter(|&(_, w)| w > 0.0) {
            let c = clip_warp(clip, &names[..count], durations, markers)?;
            for (b, q) in warp.bounds[..=count].iter_mut().zip(&c.q) {
                *b += w * q;
            }
            total += w;
            warp.clips[warp.len] = c;
            warp.len += 1;
        }
        if total <= 0.0 {
            return None;
        }
        for b in &mut warp.bounds[1..count] {
            *b /= total;
        }
        warp.bounds[0] = 0.0;
        warp.bounds[count] = 1.0;
        Some(warp)
    }

    /// `clip`'s step for the blend's phase step `phase` (a looping clock on the normalized
    /// phase), and the seconds its rate holds (until the phase reaches a marker). `None` when
    /// the clock does not loop or `clip` is not blended.
    pub fn clip_step(&self, clip: u32, phase: &Step) -> Option<(Step, f32)> {
        if phase.mode != LoopMode::Loop {
            return None;
        }
        let c = self.clips[..self.len].iter().find(|c| c.clip == clip)?;
        let from = self.position(c, phase.from);
        let to = self.position(c, phase.to);
        let travel = self.position(c, phase.from + phase.travel) - from;
        let v = phase.velocity;
        let k = self.segment(phase.to, v < 0.0);
        let (lo, hi) = (self.bounds[k], self.bounds[k + 1]);
        let velocity = v * c.duration * (c.q[k + 1] - c.q[k]) / (hi - lo);
        let p = phase.to - phase.to.floor();
        let until = if v > 0.0 {
            (hi - p) / v
        } else if v < 0.0 {
            let p = if p <= lo { p + 1.0 } else { p };
            (p - lo) / -v
        } else {
            f32::INFINITY
        };
        let step = Step::new(from, to, c.duration, LoopMode::Loop).with_travel(travel, velocity);
        Some((step, until.max(0.0)))
    }

    /// Unwrapped clip seconds of clip `c` at unwrapped phase `x`.
    fn position(&self, c: &ClipWarp, x: f32) -> f32 {
        let cycle = x.floor();
        let p = x - cycle;
        let k = self.segment(x, false);
        let (lo, hi) = (self.bounds[k], self.bounds[k + 1]);
        let f = ((p - lo) / (hi - lo)).clamp(0.0, 1.0);
        c.start + c.duration * (cycle + c.q[k] + f * (c.q[k + 1] - c.q[k]))
    }

    /// The segment phase `x` lies in; `backwards`: of a clock going backwards, which at a
    /// marker is in the segment before it.
    fn segment(&self, x: f32, backwards: bool) -> usize {
        let p = x - x.floor();
        let bounds = &self.bounds[1..self.count];
        let k = if backwards {
            bounds.partition_point(|&b| b < p)
        } else {
            bounds.partition_point(|&b| b <= p)
        };
        if backwards && p <= 0.0 {
            self.count - 1
        } else {
            k
        }
    }

    /// The marker phase of blend phase `p` (0 to 1).
    pub fn marker_phase(&self, p: f32) -> MarkerPhase {
        let k = self.segment(p, false);
        let (lo, hi) = (self.bounds[k], self.bounds[k + 1]);
        let p = p - p.floor();
        MarkerPhase {
            last: self.names[k],
            next: self.names[(k + 1) % self.count],
            fraction: ((p - lo) / (hi - lo)).clamp(0.0, 1.0),
        }
    }

    /// The blend phase at marker phase `phase`: between its first pair of markers named
    /// `phase.last` then `phase.next`, or after its first marker named `phase.last`.
    pub fn phase_at(&self, phase: &MarkerPhase) -> Option<f32> {
        let names = &self.names[..self.count];
        let k = (0..self.count)
            .find(|&k| names[k] == phase.last && names[(k + 1) % self.count] == phase.next)
            .or_else(|| names.iter().position(|&n| n == phase.last))?;
        let (lo, hi) = (self.bounds[k], self.bounds[k + 1]);
        Some((lo + phase.fraction * (hi - lo)).rem_euclid(1.0))
    }
}

/// `clip`'s markers read against the cycle `names`: its first marker named `names[0]` from
/// which its markers follow the cycle; `None` when they do not, or two share a time.
fn clip_warp(
    clip: u32,
    names: &[u32],
    durations: &[f32],
    markers: &[ClipMarkers],
) -> Option<ClipWarp> {
    let duration = *durations.get(clip as usize)?;
    if !(duration > 0.0 && duration.is_finite()) {
        return None;
    }
    let list = markers.get(clip as usize)?.as_slice();
    let n = names.len();
    if list.len() != n {
        return None;
    }
    let j = (0..n).find(|&j| (0..n).all(|k| list[(j + k) % n].1 == names[k]))?;
    let start = list[j].0;
    let mut q = [0.0; MAX_WARP_MARKERS + 1];
    for k in 1..n {
        q[k] = (list[(j + k) % n].0 - start).rem_euclid(duration) / duration;
        if q[k] <= q[k - 1] {
            return None;
        }
    }
    q[n] = 1.0;
    if q[n - 1] >= 1.0 {
        return None;
    }
    Some(ClipWarp {
        clip,
        start,
        duration,
        q,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::sync_markers::tests::{LEFT, RIGHT, markers};

    fn weights(list: &[(u32, f32)]) -> BlendWeights {
        let mut w = BlendWeights::default();
        for (i, &(c, x)) in list.iter().enumerate() {
            w.clips[i] = c;
            w.weights[i] = x;
        }
        w.len = list.len();
        w
    }

    /// A walk of 1 s (left down at 0.1, right at 0.6) and a run of 0.8 s (left at 0.35, right
    /// at 0.5: the right step short).
    fn walk_and_run() -> (Vec<f32>, Vec<ClipMarkers>) {
        (
            vec![1.0, 0.8],
            vec![
                markers(&[(0.1, LEFT), (0.6, RIGHT)]),
                markers(&[(0.35, LEFT), (0.5, RIGHT)]),
            ],
        )
    }

    #[test]
    fn clips_pass_their_markers_together() {
        let (durations, markers) = walk_and_run();
        let w = weights(&[(0, 0.5), (1, 0.5)]);
        let warp = PhaseWarp::new(&[0, 1], &w, &durations, &markers).unwrap(); // ok: test
        // The right marker: walk half its cycle in, run 0.15 / 0.8 in; the blend between.
        let right = 0.5 * 0.5 + 0.5 * (0.15 / 0.8);
        assert!((warp.bounds[1] - right).abs() < 1e-6);
        let step = |x: f32| Step::new(x, x, 1.0, LoopMode::Loop).with_travel(0.0, 0.5);
        for (x, walk, run) in [(0.0, 0.1, 0.35), (right, 0.6, 0.5), (1.0, 1.1, 1.15)] {
            let (w, _) = warp.clip_step(0, &step(x)).unwrap(); // ok: test
            let (r, _) = warp.clip_step(1, &step(x)).unwrap(); // ok: test
            assert!((w.to - walk).abs() < 1e-5, "{x}: walk {}", w.to);
            assert!((r.to - run).abs() < 1e-5, "{x}: run {}", r.to);
        }
        // Halfway between the markers, each clip is halfway between its own.
        let (r, until) = warp.clip_step(1, &step(0.5 * right)).unwrap(); // ok: test
        assert!((r.to - 0.425).abs() < 1e-5, "{}", r.to);
        assert!((until - 0.5 * right / 0.5).abs() < 1e-5);
        // In the short step the run runs slower than the walk's phase would make it.
        assert!((r.velocity - 0.5 * 0.15 / right).abs() < 1e-5);
    }

    #[test]
    fn one_shape_warps_to_the_normalized_phase() {
        let durations = [1.0, 2.0];
        let markers = [
            markers(&[(0.0, LEFT), (0.4, RIGHT)]),
            markers(&[(0.0, LEFT), (0.8, RIGHT)]),
        ];
        let w = weights(&[(0, 0.3), (1, 0.7)]);
        let warp = PhaseWarp::new(&[0, 1], &w, &durations, &markers).unwrap(); // ok: test
        for x in [0.0, 0.13, 0.4, 0.77, 1.5] {
            let s = Step::new(x, x, 1.0, LoopMode::Loop).with_travel(0.0, 0.25);
            let (b, _) = warp.clip_step(1, &s).unwrap(); // ok: test
            assert!((b.to - 2.0 * x).abs() < 1e-5, "{x}: {}", b.to);
            assert!((b.velocity - 0.5).abs() < 1e-5);
        }
    }

    #[test]
    fn other_cycles_keep_the_normalized_phase() {
        let durations = [1.0, 0.8];
        let w = weights(&[(0, 1.0)]);
        let other = [
            markers(&[(0.1, LEFT), (0.6, RIGHT)]),
            markers(&[(0.3, LEFT)]),
        ];
        assert!(PhaseWarp::new(&[0, 1], &w, &durations, &other).is_none());
        let none = [markers(&[(0.1, LEFT)]), ClipMarkers::default()];
        assert!(PhaseWarp::new(&[0, 1], &w, &durations, &none).is_none());
        let (durations, markers) = walk_and_run();
        let warp = PhaseWarp::new(&[0, 1], &w, &durations, &markers).unwrap(); // ok: test
        let pingpong = Step::new(0.2, 0.2, 1.0, LoopMode::PingPong);
        assert!(warp.clip_step(0, &pingpong).is_none());
    }

    #[test]
    fn marker_phases_round_trip() {
        let (durations, markers) = walk_and_run();
        let w = weights(&[(0, 0.25), (1, 0.75)]);
        let warp = PhaseWarp::new(&[0, 1], &w, &durations, &markers).unwrap(); // ok: test
        for p in [0.0, 0.1, 0.33, 0.6, 0.99] {
            let m = warp.marker_phase(p);
            let back = warp.phase_at(&m).unwrap(); // ok: test
            assert!((back - p).abs() < 1e-5, "{p} -> {m:?} -> {back}");
        }
    }

    #[test]
    fn backwards_clocks_hold_their_rate_until_the_marker_behind() {
        let (durations, markers) = walk_and_run();
        let w = weights(&[(0, 0.5), (1, 0.5)]);
        let warp = PhaseWarp::new(&[0, 1], &w, &durations, &markers).unwrap(); // ok: test
        let right = warp.bounds[1];
        // Exactly at the right marker going backwards: the segment before it.
        let s = Step::new(right, right, 1.0, LoopMode::Loop).with_travel(0.0, -0.5);
        let (r, until) = warp.clip_step(1, &s).unwrap(); // ok: test
        assert!(
            (r.velocity + 0.5 * 0.15 / right).abs() < 1e-5,
            "{}",
            r.velocity
        );
        assert!((until - right / 0.5).abs() < 1e-5);
        // At phase 0 going backwards: the last segment, a whole segment away.
        let s = Step::new(1.0, 1.0, 1.0, LoopMode::Loop).with_travel(0.0, -0.5);
        let (_, until) = warp.clip_step(0, &s).unwrap(); // ok: test
        assert!((until - (1.0 - right) / 0.5).abs() < 1e-5, "{until}");
    }
}

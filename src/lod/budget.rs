//! A GPU-time budget for animation: a closed loop that holds the evaluation's measured GPU time
//! (timestamp queries) near a target by moving a [`LodPolicy`]'s distances and update rates,
//! as Unreal's animation budget allocator holds a CPU budget by lowering update rates.
//!
//! Each frame the host hands [`LodBudget::observe`] the last evaluation's GPU time. The loop
//! compares the median of the last [`WINDOW`] times with the target and, outside a dead band of
//! ±[`LodBudget::hysteresis`] around it, scales the policy's LOD distances by the square root of
//! target / measured (on ground the characters within a distance grow with its square), by at
//! most 2× per step. When the distances are at their floor and the time is still over, update
//! intervals double (up to 16× the policy's); under the target, intervals come back first. A
//! change clears the times, so the loop judges only times measured under the policy in force.
//! Without timestamps (`None`) it holds the policy as set.

use super::{LodPolicy, MAX_UPDATE_INTERVAL};

/// Frames whose GPU times the loop takes the median of.
pub const WINDOW: usize = 3;

/// Smallest factor on the policy's distances.
pub const MIN_SCALE: f32 = 1.0 / 64.0;

/// Largest factor on the policy's distances (past it every character is near).
pub const MAX_SCALE: f32 = 64.0;

/// Most doublings of the policy's update intervals.
pub const MAX_RATE_SHIFT: u32 = 4;

/// Holds a GPU evaluation near `target_ms` by adjusting a base [`LodPolicy`].
#[derive(Clone, Debug, PartialEq)]
pub struct LodBudget {
    /// The GPU time per frame to hold, milliseconds.
    pub target_ms: f32,
    /// The dead band: no change while the median lies within this fraction of the target.
    pub hysteresis: f32,
    base: LodPolicy,
    scale: f32,
    rate_shift: u32,
    recent: Vec<f32>,
}

impl LodBudget {
    /// A budget of `target_ms` around `base` (its distances at scale 1, its update intervals),
    /// with a dead band of ±10 %.
    pub fn new(base: LodPolicy, target_ms: f32) -> Self {
        Self {
            target_ms,
            hysteresis: 0.1,
            base,
            scale: 1.0,
            rate_shift: 0,
            recent: Vec::with_capacity(WINDOW),
        }
    }

    /// The policy in force: the base's distances times [`LodBudget::scale`], its intervals
    /// times `2^`[`LodBudget::rate_shift`].
    pub fn policy(&self) -> LodPolicy {
        let mut policy = self.base;
        for d in &mut policy.distances {
            if d.is_finite() {
                *d *= self.scale;
            }
        }
        for every in &mut policy.update_every {
            *every = ((*every).max(1) << self.rate_shift).min(MAX_UPDATE_INTERVAL);
        }
        policy
    }

    /// The factor on the base policy's distances.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// How many times the base policy's update intervals are doubled.
    pub fn rate_shift(&self) -> u32 {
        self.rate_shift
    }

    /// Takes the last evaluation's GPU time (`None`: not measured) and returns the new policy
    /// when it changes.
    pub fn observe(&mut self, gpu_ms: Option<f64>) -> Option<LodPolicy> {
        let ms = gpu_ms.filter(|ms| ms.is_finite() && *ms >= 0.0)? as f32;
        self.recent.push(ms);
        if self.recent.len() < WINDOW {
            return None;
        }
        let mut sorted = std::mem::take(&mut self.recent);
        sorted.sort_by(f32::total_cmp);
        let median = sorted[WINDOW / 2];
        let ratio = self.target_ms / median.max(f32::MIN_POSITIVE);
        let (scale, shift) = (self.scale, self.rate_shift);
        if median > self.target_ms * (1.0 + self.hysteresis) {
            if self.scale > MIN_SCALE {
                self.scale = (self.scale * ratio.sqrt().max(0.5)).max(MIN_SCALE);
            } else if self.rate_shift < MAX_RATE_SHIFT {
                self.rate_shift += 1;
            }
        } else if median < self.target_ms * (1.0 - self.hysteresis) {
            if self.rate_shift > 0 {
                self.rate_shift -= 1;
            } else if self.scale < MAX_SCALE {
                self.scale = (self.scale * ratio.sqrt().min(2.0)).min(MAX_SCALE);
            }
        }
        sorted.clear();
        self.recent = sorted;
        // Within the band, or at a limit: the policy holds.
        ((scale, shift) != (self.scale, self.rate_shift)).then(|| self.policy())
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    /// A crowd on a grid: GPU time is the joints evaluated per frame (57 at level 0, fewer
    /// further) divided by the update interval, 1 µs per joint.
    fn cost(policy: &LodPolicy) -> f64 {
        const JOINTS: [f64; 4] = [57.0, 30.0, 12.0, 4.0];
        let mut us = 0.0;
        for x in -50..50 {
            for z in 0..100 {
                let p = Vec3::new(x as f32, 0.0, z as f32 + 1.0);
                let level = policy.level_at(p) as usize;
                us += JOINTS[level] / f64::from(policy.update_every[level].max(1));
            }
        }
        us / 1000.0
    }

    fn base() -> LodPolicy {
        LodPolicy::banded(Vec3::ZERO, 10.0, 1, false)
    }

    fn run(budget: &mut LodBudget, frames: usize) -> Vec<f64> {
        let mut times = Vec::new();
        for _ in 0..frames {
            let ms = cost(&budget.policy());
            times.push(ms);
            budget.observe(Some(ms));
        }
        times
    }

    #[test]
    fn converges_into_the_band_and_then_holds() {
        let full = cost(&base());
        let mut near = base();
        near.distances = [f32::INFINITY; 3];
        let most = cost(&near);
        for target in [full * 0.5, full * 0.2, full * 2.0, most * 2.0] {
            let mut budget = LodBudget::new(base(), target as f32);
            let times = run(&mut budget, 200);
            let settled = &times[150..];
            for &ms in settled {
                // A target above the whole crowd at full detail is met by full detail.
                let held = if target > most {
                    ms == most
                } else {
                    (ms - target).abs() <= target * 0.1
                };
                assert!(held, "target {target:.2} ms: {ms:.2} ms after settling");
            }
            let policy = budget.policy();
            assert!(
                settled.windows(2).all(|w| w[0] == w[1]),
                "target {target:.2}: the policy still moves inside the band"
            );
            assert_eq!(policy, budget.policy());
        }
    }

    #[test]
    fn a_budget_below_the_distances_floor_lowers_update_rates() {
        let mut budget = LodBudget::new(base(), 0.01);
        let times = run(&mut budget, 400);
        assert_eq!(budget.scale(), MIN_SCALE);
        assert_eq!(budget.rate_shift(), MAX_RATE_SHIFT);
        assert!(times.last().unwrap() < &(times[0] / 8.0)); // ok: unit test
        // A generous budget gives the rates back first, then the distances.
        budget.target_ms = 1e6;
        run(&mut budget, 400);
        assert_eq!(budget.rate_shift(), 0);
        assert_eq!(budget.scale(), MAX_SCALE);
    }

    #[test]
    fn without_timestamps_the_policy_is_held() {
        let mut budget = LodBudget::new(base(), 0.01);
        for _ in 0..100 {
            assert_eq!(budget.observe(None), None);
        }
        assert_eq!(budget.policy(), base());
        assert_eq!(budget.observe(Some(f64::NAN)), None);
    }
}

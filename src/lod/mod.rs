//! Animation level of detail on the GPU: how often an instance is evaluated ([`UpdateRate`]),
//! how many of its joints are sampled (joint LOD levels, [`crate::Skeleton::lod_sampled_joints`]),
//! whether it is skipped while culled, and a [`LodPolicy`] choosing level and rate from the
//! distance to the camera. All of it lives in [`InstanceRecord::flags`] (bits 16..=29) or in the
//! GPU backend's frame header, so records do not grow. [`evaluation`] is the CPU twin of the
//! kernel's choice (`wgsl/lod.wgsl`). [`LodBudget`] moves a policy to hold the evaluation's
//! measured GPU time near a target.

mod budget;

use glam::Vec3;

pub use budget::{LodBudget, MAX_RATE_SHIFT, MAX_SCALE, MIN_SCALE, WINDOW};

pub use crate::baked::LOD_LEVELS;
use crate::instance::InstanceRecord;

/// An instance skipped because it was culled is still evaluated every this many frames, or at
/// its own interval when that is longer (on frames `f` with `(f + slot) % max(CULLED_REFRESH,
/// N) == 0`), so its box follows it into view.
pub const CULLED_REFRESH: u32 = 8;

/// Most frames between two evaluations of an instance at [`UpdateRate::Every`].
pub const MAX_UPDATE_INTERVAL: u32 = 31;

/// How often the GPU evaluates an instance. A skipped instance keeps its palette entries and
/// AABB; a due one is evaluated at the current frame time, so it catches up exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UpdateRate {
    /// Every frame.
    #[default]
    EveryFrame,
    /// On frames `f` (the backend's [`crate::GpuBackend::frame_index`]) with
    /// `(f + phase) % interval == 0`; `interval` is clamped to 1..=[`MAX_UPDATE_INTERVAL`],
    /// `phase` taken modulo 32.
    Every {
        /// Frames between evaluations.
        interval: u32,
        /// Offset that spreads instances of one interval over its frames.
        phase: u32,
    },
    /// Never: the palette keeps its last values.
    Frozen,
}

impl InstanceRecord {
    /// The same record with its LOD bits ([`InstanceRecord::LOD_BITS`]) replaced: evaluated at
    /// `rate`, sampling the joints of LOD `level` (clamped to 3), skipped while culled when
    /// `skip_culled`.
    pub fn with_lod(mut self, rate: UpdateRate, level: u32, skip_culled: bool) -> Self {
        self.flags = (self.flags & !Self::LOD_BITS)
            | rate.bits()
            | (level.min(3) << Self::LOD_LEVEL_SHIFT)
            | if skip_culled { Self::SKIP_CULLED } else { 0 };
        self
    }
}

impl UpdateRate {
    /// This rate's bits of [`InstanceRecord::flags`].
    pub fn bits(self) -> u32 {
        match self {
            Self::EveryFrame => 0,
            Self::Every { interval, phase } => {
                let interval = interval.clamp(1, MAX_UPDATE_INTERVAL);
                (interval << InstanceRecord::UPDATE_EVERY_SHIFT)
                    | ((phase & 0x1f) << InstanceRecord::UPDATE_PHASE_SHIFT)
            }
            Self::Frozen => InstanceRecord::FROZEN,
        }
    }

    /// The rate stored in `flags`.
    pub fn from_flags(flags: u32) -> Self {
        let interval = (flags & InstanceRecord::UPDATE_EVERY) >> InstanceRecord::UPDATE_EVERY_SHIFT;
        let phase = (flags & InstanceRecord::UPDATE_PHASE) >> InstanceRecord::UPDATE_PHASE_SHIFT;
        if flags & InstanceRecord::FROZEN != 0 {
            Self::Frozen
        } else if interval <= 1 {
            Self::EveryFrame
        } else {
            Self::Every { interval, phase }
        }
    }

    /// Whether an instance at this rate is due on frame `frame`.
    pub fn is_due(self, frame: u32) -> bool {
        match self {
            Self::EveryFrame => true,
            Self::Every { interval, phase } => {
                let interval = interval.clamp(1, MAX_UPDATE_INTERVAL);
                frame.wrapping_add(phase & 0x1f).is_multiple_of(interval)
            }
            Self::Frozen => false,
        }
    }
}

/// Chooses each instance's joint LOD level and update interval from its distance to the
/// camera, on the GPU (the kernel reads the world translation of every record whose LOD bits
/// are all 0, so the CPU does nothing per character): level `k` is the number of `distances`
/// the instance lies at or beyond, and it is evaluated every `update_every[k]` frames with its
/// slot index as the phase. Set with [`crate::GpuBackend::set_lod_policy`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LodPolicy {
    /// Where the camera stands (world space).
    pub eye: Vec3,
    /// Distances (increasing) at which LOD levels 1, 2 and 3 begin.
    pub distances: [f32; 3],
    /// Update interval of each LOD level (0 or 1: every frame).
    pub update_every: [u32; LOD_LEVELS],
    /// Whether instances the renderer culled are skipped ([`InstanceRecord::SKIP_CULLED`]).
    pub skip_culled: bool,
}

/// Where levels 1, 2 and 3 of a [`LodPolicy::banded`] begin, in multiples of the distance
/// from the eye to the nearest character.
pub const NEAR_BANDS: [f32; 3] = [2.0, 4.0, 8.0];

impl LodPolicy {
    /// The policy `sinew crowd --lod` and the viewer apply: levels beginning at [`NEAR_BANDS`]
    /// times `near` from `eye`, level `k` evaluated every `every × 2^k` frames (at most
    /// [`MAX_UPDATE_INTERVAL`]).
    pub fn banded(eye: Vec3, near: f32, every: u32, skip_culled: bool) -> Self {
        let step = |k: u32| (every << k).min(MAX_UPDATE_INTERVAL);
        Self {
            eye,
            distances: NEAR_BANDS.map(|b| b * near),
            update_every: [every, step(1), step(2), step(3)],
            skip_culled,
        }
    }

    /// The LOD level of an instance whose world translation is `position`: how many of
    /// `distances` it lies at or beyond (compared squared, as the kernel does).
    pub fn level_at(&self, position: Vec3) -> u32 {
        let d2 = (position - self.eye).length_squared();
        self.distances
            .iter()
            .filter(|&&d| d2 >= d * d.abs())
            .count() as u32
    }

    /// The record flags' LOD bits this policy gives the instance in `slot` at `position`.
    pub fn bits_at(&self, slot: u32, position: Vec3) -> u32 {
        let level = self.level_at(position);
        let interval = self.update_every[level as usize].min(MAX_UPDATE_INTERVAL);
        let rate = if interval <= 1 {
            UpdateRate::EveryFrame
        } else {
            UpdateRate::Every {
                interval,
                phase: slot % interval,
            }
        };
        InstanceRecord::default()
            .with_lod(rate, level, self.skip_culled)
            .flags
    }
}

/// The joint LOD level the GPU kernel chose for an instance on its last evaluation, from the
/// box it wrote ([`crate::Aabb::min`]'s w; 0 where it holds none).
pub fn level_of_box(aabb: &crate::Aabb) -> u32 {
    let level = aabb.min[3];
    if level.is_finite() && level > 0.0 {
        (level as u32).min(LOD_LEVELS as u32 - 1)
    } else {
        0
    }
}

/// What the GPU kernel does with the record in `slot` (flags `flags`, world translation
/// `position`) on frame `frame`: `Some(level)` evaluates it at joint LOD `level`, `None` skips
/// it. `culled`: the renderer's last culling left its box out of both frusta. `all`: the frame
/// evaluates every slot (the first frame, or one after the slots' rigs changed). Twin of
/// `lod_plan` in `wgsl/lod.wgsl`.
pub fn evaluation(
    flags: u32,
    slot: u32,
    position: Vec3,
    frame: u32,
    culled: bool,
    all: bool,
    policy: Option<&LodPolicy>,
) -> Option<u32> {
    let flags = match policy {
        Some(p) if flags & InstanceRecord::LOD_BITS == 0 => flags | p.bits_at(slot, position),
        _ => flags,
    };
    let level = (flags & InstanceRecord::LOD_LEVEL) >> InstanceRecord::LOD_LEVEL_SHIFT;
    if all {
        return Some(level);
    }
    let rate = UpdateRate::from_flags(flags);
    if rate == UpdateRate::Frozen {
        return None;
    }
    let due = if culled && flags & InstanceRecord::SKIP_CULLED != 0 {
        let interval = match rate {
            UpdateRate::Every { interval, .. } => interval.clamp(1, MAX_UPDATE_INTERVAL),
            _ => 1,
        };
        frame
            .wrapping_add(slot)
            .is_multiple_of(interval.max(CULLED_REFRESH))
    } else {
        rate.is_due(frame)
    };
    due.then_some(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_round_trip_through_flags() {
        for rate in [
            UpdateRate::EveryFrame,
            UpdateRate::Every {
                interval: 4,
                phase: 3,
            },
            UpdateRate::Frozen,
        ] {
            assert_eq!(UpdateRate::from_flags(rate.bits()), rate);
        }
        let every3 = UpdateRate::Every {
            interval: 3,
            phase: 1,
        };
        let due: Vec<u32> = (0..9).filter(|&f| every3.is_due(f)).collect();
        assert_eq!(due, [2, 5, 8]);
    }

    #[test]
    fn policy_levels_and_culled_refresh() {
        let policy = LodPolicy {
            eye: Vec3::ZERO,
            distances: [10.0, 20.0, 40.0],
            update_every: [1, 2, 4, 8],
            skip_culled: true,
        };
        assert_eq!(policy.level_at(Vec3::new(5.0, 0.0, 0.0)), 0);
        assert_eq!(policy.level_at(Vec3::new(0.0, 0.0, 25.0)), 2);
        assert_eq!(policy.level_at(Vec3::new(100.0, 0.0, 0.0)), 3);
        let far = Vec3::new(30.0, 0.0, 0.0);
        // Level 2 every 4 frames, phase = slot 1: frames 3 and 7.
        let due: Vec<u32> = (0..8)
            .filter(|&f| evaluation(0, 1, far, f, false, false, Some(&policy)).is_some())
            .collect();
        assert_eq!(due, [3, 7]);
        // Culled: every CULLED_REFRESH frames, or at a longer interval of its own.
        let near = Vec3::ZERO;
        let culled: Vec<u32> = (0..16)
            .filter(|&f| evaluation(0, 2, near, f, true, false, Some(&policy)).is_some())
            .collect();
        assert_eq!(culled, [6, 14]);
        let very_far = Vec3::new(100.0, 0.0, 0.0);
        let culled_far: Vec<u32> = (0..32)
            .filter(|&f| evaluation(0, 2, very_far, f, true, false, Some(&policy)).is_some())
            .collect();
        assert_eq!(culled_far, [6, 14, 22, 30], "level 3: every 8 frames");
        let slow = UpdateRate::Every {
            interval: 12,
            phase: 0,
        }
        .bits()
            | InstanceRecord::SKIP_CULLED;
        let culled_slow: Vec<u32> = (0..30)
            .filter(|&f| evaluation(slow, 2, far, f, true, false, None).is_some())
            .collect();
        assert_eq!(
            culled_slow,
            [10, 22],
            "interval 12 is longer than the refresh"
        );
        // Explicit bits ignore the policy; a frozen record runs only on frames that run all.
        let frozen = UpdateRate::Frozen.bits();
        assert_eq!(
            evaluation(frozen, 0, far, 0, false, false, Some(&policy)),
            None
        );
        assert_eq!(evaluation(frozen, 0, far, 0, false, true, None), Some(0));
    }
}

//! The resampled clip format: every clip of a rig sampled once, at bake time, on a uniform time
//! grid, so that finding the keys around a time is `frame = ⌊t · rate⌋` and interpolating is one
//! lerp per channel.
//!
//! Per clip, frame-major: frame `f` is one contiguous record holding the value of every channel
//! that changes over the clip (joint by joint, translation, rotation, scale, each an `[f32; 4]`);
//! a channel that holds one value for the whole clip (a rest-pose fallback, a one-key track, or
//! keys that never change) is stored once, beside the frames, and never interpolated. Rotations
//! are sign-aligned frame to frame (`dot(q[f], q[f + 1]) >= 0`), so the lerp between two frames
//! takes the shorter arc with no test at run time.
//!
//! The rate of each clip, from the requested rate `R` (default [`DEFAULT_RATE`]):
//!
//! 1. Key grid. When every key time of the clip lies on one uniform grid of `r` keys per second
//!    (an exporter's uniform sampling: 24, 30 or 60 Hz; or a multiple of it when keys were
//!    dropped or shifted by part of a frame, up to [`MAX_RATE`]), the clip is sampled at `r · m`,
//!    the multiple of `r` nearest to `R` (at least `r`): every key is a frame, so the format is
//!    exact at key times. Otherwise at `R`.
//! 2. Cubic splines. A clip with CUBICSPLINE tracks asks for `R ·` [`CUBIC_RATE_FACTOR`] in
//!    step 1: a chord strays from a cubic as the square of its length.
//! 3. Fast turns. While some rotation turns more than [`MAX_FRAME_ANGLE`] between two frames,
//!    the rate doubles (keys stay on frames), up to [`MAX_RATE`]: normalized lerp strays from
//!    slerp as the cube of the angle.
//! 4. Long clips. No clip gets more than [`MAX_CLIP_FRAMES`] frames: a clip too long for that
//!    at the rate of steps 1 to 3 (over 36 minutes at 30 Hz) is sampled at the rate that fits,
//!    its keys no longer on frames.
//!
//! Values at the frames come from the exact sampler ([`crate::cpu::sample_track`]: slerp, cubic
//! Hermite), so the only errors are those of interpolating linearly (rotations: normalized lerp)
//! between frames. `tests/cpu_fast.rs` measures them with ACL's metric (virtual vertices 3 cm
//! from each joint on its axes, model space, dense times): at most 0.061 mm on the rigs in
//! `assets/` and 0.82 mm on the conformance assets in `../shared/gltf` (InterpolationTest's
//! overshooting cubic spline; 0.14 mm on RobotExpressive, 0.01 mm on Fox and CesiumMan).
//!
//! STEP tracks are sampled at the frame times and held, not interpolated, until the next frame:
//! a STEP key that lies on the grid changes the value exactly at its time, one between frames
//! changes it at the next frame, up to `1 / rate` seconds late.

pub use crate::baked::grid::{
    CUBIC_RATE_FACTOR, DEFAULT_RATE, MAX_CLIP_FRAMES, MAX_FRAME_ANGLE, MAX_RATE, MIN_RATE,
    sanitize_rate,
};
use crate::baked::grid::{ClipGrid, clip_grid};
use crate::baked::sample::sample_track;
use crate::baked::{Channel, ClipLibrary, Interpolation};

use super::lanes::F4;
use super::soa::Sqt8;

/// [`JointSlots::slot`] of a channel with one value for the whole clip.
pub(crate) const CONSTANT: u16 = u16::MAX;

/// Where the three channels of one joint of one clip live.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct JointSlots {
    /// Per channel (translation, rotation, scale): the index of its value inside a frame
    /// record, or [`CONSTANT`].
    pub slot: [u16; 3],
    /// Bit `c` set: channel `c` is a STEP track (each frame's value held until the next).
    pub step: u16,
}

/// How one clip was resampled.
#[derive(Clone, Debug, PartialEq)]
pub struct ResampledClip {
    /// Frames per second of the grid.
    pub rate: f32,
    /// Key spacing (keys per second) of the clip's common uniform key grid, when it has one:
    /// then every key is a frame and sampling at a key time is exact.
    pub key_grid: Option<f32>,
    /// The clip's length in seconds (times are clamped to `0..=duration`).
    pub duration: f32,
    /// Number of frames (at least 2); frame `f` lies at `f / rate`, the last at or after
    /// `duration` (holding the value at `duration`).
    pub frame_count: u32,
    /// `[f32; 4]` values per frame record: the channels that change over the clip.
    pub frame_stride: u32,
    /// Index of frame 0's record in the library's value array.
    pub(crate) first: u32,
    /// Per value of a frame record: whether it is a STEP channel (held, not interpolated).
    pub(crate) steps: Vec<bool>,
}

impl ResampledClip {
    /// Frame index `f` and blend factor `alpha` of time `t`: the value at `t` is
    /// `lerp(frame[f], frame[f + 1], alpha)`. Times within 1e-4 of a frame snap to it, so a key
    /// time stored in `f32` samples that key, not a blend of its neighbours.
    #[inline]
    pub fn frame_at(&self, t: f32) -> (u32, f32) {
        let x = t.max(0.0).min(self.duration) * self.rate;
        let nearest = (x + 0.5) as u32;
        let x = if (x - nearest as f32).abs() <= 1e-4 {
            nearest as f32
        } else {
            x
        };
        let f = (x as u32).min(self.frame_count - 2);
        (f, (x - f as f32).min(1.0))
    }
}

/// Every clip of one rig in the resampled format: the baked input of the fast evaluator.
#[derive(Clone, Debug, PartialEq)]
pub struct ResampledClips {
    pub(crate) joint_count: usize,
    pub(crate) clips: Vec<ResampledClip>,
    /// Per clip × joint.
    pub(crate) slots: Vec<JointSlots>,
    /// Per clip × joint: `[translation, rotation, scale]` at time 0 (the value of constant
    /// channels).
    pub(crate) constants: Vec<[F4; 3]>,
    /// The same values in every lane, for groups whose lanes all play the clip.
    pub(crate) constants_lanes: Vec<Sqt8>,
    /// All frame records of all clips.
    pub(crate) values: Vec<F4>,
}

impl ResampledClips {
    /// Resamples every clip of `lib` at `rate` frames per second (see the module doc for the
    /// grid rule). `rate` is clamped into `MIN_RATE..=MAX_RATE`; NaN means [`DEFAULT_RATE`].
    pub fn build(lib: &ClipLibrary, rate: f32) -> Self {
        let rate = sanitize_rate(rate);
        let joints = lib.joint_count();
        let mut out = Self {
            joint_count: joints,
            clips: Vec::with_capacity(lib.clip_count()),
            slots: Vec::with_capacity(lib.clip_count() * joints),
            constants: Vec::with_capacity(lib.clip_count() * joints),
            constants_lanes: Vec::with_capacity(lib.clip_count() * joints),
            values: Vec::new(),
        };
        for clip in 0..lib.clip_count() {
            out.add_clip(lib, clip, rate);
        }
        out
    }

    fn add_clip(&mut self, lib: &ClipLibrary, clip: usize, rate: f32) {
        let joints = self.joint_count;
        let ClipGrid {
            rate: clip_rate,
            key_grid,
            duration,
            frames,
        } = clip_grid(lib, clip, rate);
        let frame_time = |f: usize| ((f as f64 / f64::from(clip_rate)) as f32).min(duration);
        // Sample every channel at every frame; keep those that change.
        let mut animated: Vec<Vec<[f32; 4]>> = Vec::new();
        let mut steps = Vec::new();
        let mut samples = vec![[0.0f32; 4]; frames];
        for joint in 0..joints {
            let mut slots = JointSlots {
                slot: [CONSTANT; 3],
                step: 0,
            };
            let mut constant = [[0.0f32; 4]; 3];
            for channel in Channel::ALL {
                let c = channel as usize;
                let desc = lib.track(clip, joint, channel);
                let rotation = channel == Channel::Rotation;
                for (f, s) in samples.iter_mut().enumerate() {
                    *s = sample_track(lib, desc, rotation, frame_time(f)).to_array();
                }
                if rotation {
                    for f in 1..frames {
                        let (a, b) = (samples[f - 1], samples[f]);
                        if a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.0 {
                            samples[f] = b.map(|x| -x);
                        }
                    }
                }
                constant[c] = samples[0];
                if desc.key_count > 1 && samples.iter().any(|s| *s != samples[0]) {
                    slots.slot[c] = animated.len() as u16;
                    let step = desc.interpolation == Interpolation::Step as u32;
                    if step {
                        slots.step |= 1 << c;
                    }
                    steps.push(step);
                    animated.push(samples.clone());
                }
            }
            self.slots.push(slots);
            self.constants.push(constant.map(F4::new));
            self.constants_lanes.push(Sqt8::splat(&constant));
        }
        let first = self.values.len() as u32;
        self.values.reserve(frames * animated.len());
        for f in 0..frames {
            self.values
                .extend(animated.iter().map(|track| F4::new(track[f])));
        }
        self.clips.push(ResampledClip {
            rate: clip_rate,
            key_grid,
            duration,
            frame_count: frames as u32,
            frame_stride: animated.len() as u32,
            first,
            steps,
        });
    }

    /// Number of clips.
    pub fn clip_count(&self) -> usize {
        self.clips.len()
    }

    /// How each clip was resampled.
    pub fn clips(&self) -> &[ResampledClip] {
        &self.clips
    }

    /// Bytes of clip data (frames, constants and per-joint channel tables).
    pub fn byte_size(&self) -> usize {
        self.values.len() * 16
            + self.constants.len() * 48
            + self.constants_lanes.len() * std::mem::size_of::<Sqt8>()
            + self.slots.len() * std::mem::size_of::<JointSlots>()
    }

    /// Frame records `f` and `f + 1` of `clip`.
    #[inline]
    pub(crate) fn frame_pair(&self, clip: usize, f: u32) -> (&[F4], &[F4]) {
        let c = &self.clips[clip];
        let stride = c.frame_stride as usize;
        let start = c.first as usize + f as usize * stride;
        let pair = &self.values[start..start + 2 * stride];
        pair.split_at(stride)
    }

    /// Per value of a frame record of `clip`: whether it is a STEP channel.
    #[inline]
    pub(crate) fn channel_steps(&self, clip: usize) -> &[bool] {
        &self.clips[clip].steps
    }

    /// The per-joint tables of `clip`: channel slots, constants, constants in every lane.
    #[inline]
    pub(crate) fn joint_tables(&self, clip: usize) -> (&[JointSlots], &[[F4; 3]], &[Sqt8]) {
        let r = clip * self.joint_count..(clip + 1) * self.joint_count;
        (
            &self.slots[r.clone()],
            &self.constants[r.clone()],
            &self.constants_lanes[r],
        )
    }
}

//! The per-channel bit-rate search. Every animated channel starts at the lowest rate whose own
//! quantization error, times how far it moves the vertices it carries (a rotation's error
//! swings its whole subtree), stays within half the budget. Then, while a joint's measured
//! error (ACL's metric, model space, dense times) exceeds the budget, the channel on that
//! joint's chain (the joint and its ancestors) with the largest estimated share of the error
//! gains bits, and only the subtree of that channel's joint is evaluated again.

use glam::{Affine3A, Quat, Vec3, Vec4};

use super::error::WEIGHT_ERROR_BUDGET;
use super::error::{exact_models, exact_weights, record_times, vertex_error, vertex_offsets};
use super::levers::Levers;
use super::quantize::{decoded, reductions};
use super::sample::{ClipFrames, Sampled};
use crate::baked::compressed::decode::{blend_frames, frame_position};
use crate::baked::{ChannelCode, ChannelKind, Rig, channel_kind};
use crate::math::Sqt;

/// Share of the budget the first bit rates aim at.
const FIRST_SHARE: f32 = 0.5;
/// Share of the budget above which an interval's raw frames are refined when a clip misses its
/// budget: the rest is left to quantization.
const REFINE_SHARE: f32 = 0.85;
/// Share of the budget the search keeps every joint within at the measured times: between
/// them the error may rise a little.
const TIME_MARGIN: f32 = 0.9;
/// The most work taking bits back may take, in full evaluations of the clip (every joint at
/// every measured time): deep chains would otherwise re-evaluate long subtrees per bit.
const LOWERING_PASSES: usize = 6;

/// One clip's channels, their bit rates and the error they give, with the state the search
/// needs (exact and approximate model matrices at the dense times).
pub(super) struct ClipPlan<'a> {
    rig: &'a Rig,
    /// The frames and channels.
    pub frames: ClipFrames,
    /// Joints of the rig.
    pub joints: usize,
    /// Per channel: its bit rate (0 when not animated).
    pub bits: Vec<u32>,
    /// Per channel: how many bits fewer than its rate each stored component takes.
    pub reductions: Vec<[u32; 4]>,
    /// The largest joint error (metres).
    pub error: f32,
    /// The largest morph weight error.
    weight_error: f32,
    budget: f32,
    positions: Vec<(u32, f32)>,
    exact: Vec<Affine3A>,
    approx: Vec<Affine3A>,
    locals: Vec<Affine3A>,
    joint_error: Vec<f32>,
    decoded: Vec<Vec<Vec4>>,
    rest: Vec<Vec4>,
    exact_weights: Vec<Vec4>,
    subtree: Vec<Vec<usize>>,
    offsets: Vec<[f32; 3]>,
    vertex: f32,
}

impl<'a> ClipPlan<'a> {
    /// Every animated channel of `frames` at raw f32, its errors measured. `budget` is in rig
    /// units, as is `vertex` (the virtual vertices' distance from their joint).
    pub fn raw(rig: &'a Rig, clip: usize, frames: ClipFrames, budget: f32, vertex: f32) -> Self {
        let joints = rig.joint_count();
        let times = record_times(&frames.record, &frames.segments, joints);
        let positions = times
            .iter()
            .map(|&t| frame_position(&frames.record, &frames.segments, t))
            .collect();
        let exact = exact_models(rig, clip, &times);
        let chunks = frames.channels.len() - joints * 3;
        let exact_weights = times
            .iter()
            .flat_map(|&t| (0..chunks).map(move |c| (t, c)))
            .map(|(t, c)| exact_weights(&rig.clips, clip, c, t))
            .collect();
        let rest = (0..frames.channels.len())
            .map(|k| rest_value(rig, joints, k))
            .collect();
        let bits: Vec<u32> = frames
            .channels
            .iter()
            .map(|s| match s {
                Sampled::Animated { .. } => ChannelCode::RAW_BITS,
                _ => 0,
            })
            .collect();
        let parents = rig.skeleton.parents();
        let mut subtree: Vec<Vec<usize>> = vec![Vec::new(); joints];
        for d in 0..joints {
            let mut j = d;
            loop {
                subtree[j].push(d);
                match parents[j] {
                    p if (p as usize) < joints => j = p as usize,
                    _ => break,
                }
            }
        }
        let mut plan = Self {
            rig,
            joints,
            reductions: vec![[0; 4]; bits.len()],
            bits,
            error: 0.0,
            weight_error: 0.0,
            budget,
            positions,
            approx: exact.clone(),
            locals: vec![Affine3A::IDENTITY; exact.len()],
            exact,
            joint_error: vec![0.0; joints],
            decoded: Vec::new(),
            rest,
            exact_weights,
            subtree,
            offsets: vertex_offsets(rig, vertex),
            vertex,
            frames,
        };
        plan.decoded = (0..plan.frames.channels.len())
            .map(|k| plan.decode_channel(k))
            .collect();
        plan.evaluate_all();
        plan
    }

    /// Whether every joint and weight is within [`REFINE_SHARE`] of its budget (the rest left
    /// to quantization).
    pub fn frames_suffice(&self) -> bool {
        self.error <= REFINE_SHARE * self.budget
            && self.weight_error <= REFINE_SHARE * WEIGHT_ERROR_BUDGET
    }

    /// Per interval of the frames (frame `f` to `f + 1`): whether a joint or a weight passes
    /// [`REFINE_SHARE`] of its budget, or half the clip's largest error, at a measured time
    /// inside it (so that refining those can halve the error, see [`ClipPlan::improves_on`]).
    pub fn intervals_missing_budget(&self) -> Vec<bool> {
        let joint_limit = (REFINE_SHARE * self.budget).min(0.5 * self.error);
        let weight_limit = (REFINE_SHARE * WEIGHT_ERROR_BUDGET).min(0.5 * self.weight_error);
        let last = self.frames.record.frame_count.saturating_sub(2);
        let mut missed = vec![false; last as usize + 1];
        let n = self.joints;
        let chunks = self.frames.channels.len() - n * 3;
        for (ti, &(frame, _)) in self.positions.iter().enumerate() {
            let joints = (0..n).any(|d| {
                let e = vertex_error(
                    &self.exact[ti * n + d],
                    &self.approx[ti * n + d],
                    self.offsets[d],
                );
                e > joint_limit
            });
            let weights = (0..chunks).any(|c| {
                let v = self.value_at(n * 3 + c, ti);
                let e = (v - self.exact_weights[ti * chunks + c])
                    .abs()
                    .max_element();
                e > weight_limit
            });
            if joints || weights {
                missed[frame.min(last) as usize] = true;
            }
        }
        missed
    }

    /// Whether this plan (at a doubled rate) at least halves the excess error of `coarser`,
    /// on the joints or on the weights.
    pub fn improves_on(&self, coarser: &Self) -> bool {
        let joints =
            coarser.error > REFINE_SHARE * self.budget && self.error <= 0.5 * coarser.error;
        let weights = coarser.weight_error > REFINE_SHARE * WEIGHT_ERROR_BUDGET
            && self.weight_error <= 0.5 * coarser.weight_error;
        joints || weights
    }

    /// Chooses the bit rates (see the module doc) and returns the plan with them.
    pub fn choose_bits(mut self) -> Self {
        let joints = self.joints;
        let parents = self.rig.skeleton.parents();
        let levers = Levers::new(
            &self.exact,
            parents,
            self.positions.len(),
            &self.subtree,
            self.vertex,
        );
        let value_errors: Vec<[f32; 25]> = (0..self.frames.channels.len())
            .map(|k| self.value_errors(k))
            .collect();
        // Weight chunks: quantization may add what raw interpolation leaves of the budget.
        let raw_weight_errors = self.weight_errors();
        // What raw frames leave: no bit rate goes below it, so it is not chased.
        let floor: Vec<f32> = self
            .joint_error
            .iter()
            .map(|&e| (self.budget * TIME_MARGIN).max(e * 1.1))
            .collect();
        for k in 0..self.frames.channels.len() {
            if self.bits[k] == 0 {
                continue;
            }
            let target = if k >= joints * 3 {
                WEIGHT_ERROR_BUDGET - raw_weight_errors[k - joints * 3]
            } else {
                self.budget * FIRST_SHARE / levers.sensitivity(k, k / 3)
            };
            self.bits[k] = (1..=ChannelCode::MAX_QUANTIZED_BITS)
                .find(|&b| value_errors[k][b as usize] <= target)
                .unwrap_or(ChannelCode::RAW_BITS);
            self.decoded[k] = self.decode_channel(k);
        }
        self.evaluate_all();
        let mut saturated = vec![false; joints];
        loop {
            let worst = (0..joints)
                .filter(|&j| !saturated[j] && self.joint_error[j] > floor[j])
                .max_by(|&a, &b| self.joint_error[a].total_cmp(&self.joint_error[b]));
            let Some(w) = worst else { break };
            let chain = self.chain(w);
            let pick = chain
                .iter()
                .flat_map(|&j| (0..3).map(move |c| j * 3 + c))
                .filter(|&k| self.bits[k] != 0 && self.bits[k] != ChannelCode::RAW_BITS)
                .map(|k| {
                    let b = self.bits[k] as usize;
                    (k, value_errors[k][b] * levers.lever_to(k, w))
                })
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let Some((k, _)) = pick else {
                saturated[w] = true;
                continue;
            };
            let ratio = self.joint_error[w] / floor[w];
            let step = (ratio.log2().floor() as u32).clamp(1, 3);
            let b = self.bits[k] + step;
            self.bits[k] = if b > ChannelCode::MAX_QUANTIZED_BITS {
                ChannelCode::RAW_BITS
            } else {
                b
            };
            self.decoded[k] = self.decode_channel(k);
            self.evaluate_subtree(k / 3);
        }
        self.lower_bits(&floor);
        self.reduce_components(&floor);
        self.error = self.joint_error.iter().copied().fold(0.0, f32::max);
        self.weight_error = self.weight_errors().into_iter().fold(0.0, f32::max);
        self
    }

    /// Takes bits back, widest channels first, one at a time while every joint the channel
    /// moves stays within `floor` (the raising above overshoots where several channels share a
    /// chain), within [`LOWERING_PASSES`] full evaluations of work.
    fn lower_bits(&mut self, floor: &[f32]) {
        let n = self.joints;
        let mut work = LOWERING_PASSES * n;
        let mut order: Vec<usize> = (0..n * 3)
            .filter(|&k| self.bits[k] > 1 && self.has_range(k))
            .collect();
        order.sort_by_key(|&k| std::cmp::Reverse(self.bits[k]));
        for k in order {
            let j = k / 3;
            loop {
                let old = self.bits[k];
                let lower = if old == ChannelCode::RAW_BITS {
                    ChannelCode::MAX_QUANTIZED_BITS
                } else {
                    old - 1
                };
                if lower == 0 || work < self.subtree[j].len() {
                    break;
                }
                work -= self.subtree[j].len();
                if !self.try_change(k, floor, |plan| plan.bits[k] = lower) {
                    break;
                }
            }
        }
    }

    /// Stores each component of a quantized joint channel in fewer bits where its range is a
    /// small part of the channel's widest ([`reductions`]; one bit fewer cut, then half as many,
    /// when that misses `floor`), keeping every joint the channel moves within `floor`.
    fn reduce_components(&mut self, floor: &[f32]) {
        for k in 0..self.joints * 3 {
            let Sampled::Animated {
                layout,
                ranges: Some(r),
                ..
            } = &self.frames.channels[k]
            else {
                continue;
            };
            let bits = self.bits[k];
            if bits > ChannelCode::MAX_QUANTIZED_BITS {
                continue;
            }
            let cut = reductions(channel_kind(self.joints, k), *layout, bits, r);
            for cut in [cut, cut.map(|c| c.saturating_sub(1)), cut.map(|c| c / 2)] {
                if cut == [0; 4] || self.try_change(k, floor, |plan| plan.reductions[k] = cut) {
                    break;
                }
            }
        }
    }

    /// Applies `change` to channel `k`'s bit rate or reductions and evaluates its joint's
    /// subtree again: kept (true) when every joint there stays within `floor`, else undone.
    fn try_change(&mut self, k: usize, floor: &[f32], change: impl FnOnce(&mut Self)) -> bool {
        let n = self.joints;
        let j = k / 3;
        let times = self.positions.len();
        let saved: Vec<(Affine3A, f32)> = self.subtree[j]
            .iter()
            .flat_map(|&d| (0..times).map(move |t| (d, t)))
            .map(|(d, t)| (self.approx[t * n + d], self.joint_error[d]))
            .collect();
        let old = (self.bits[k], self.reductions[k]);
        let old_frames = std::mem::take(&mut self.decoded[k]);
        change(self);
        self.decoded[k] = self.decode_channel(k);
        self.evaluate_subtree(j);
        if self.subtree[j]
            .iter()
            .all(|&d| self.joint_error[d] <= floor[d])
        {
            return true;
        }
        (self.bits[k], self.reductions[k]) = old;
        self.decoded[k] = old_frames;
        self.refresh_locals(j);
        for (i, &d) in self.subtree[j].iter().enumerate() {
            for t in 0..times {
                let (m, e) = saved[i * times + t];
                self.approx[t * n + d] = m;
                self.joint_error[d] = e;
            }
        }
        self.error = self.joint_error.iter().copied().fold(0.0, f32::max);
        false
    }

    /// Whether channel `k` is animated with a range (so it can be quantized).
    fn has_range(&self, k: usize) -> bool {
        matches!(
            self.frames.channels[k],
            Sampled::Animated {
                ranges: Some(_),
                ..
            }
        )
    }

    /// Joint `w` and its ancestors.
    fn chain(&self, w: usize) -> Vec<usize> {
        let parents = self.rig.skeleton.parents();
        let mut out = vec![w];
        let mut j = w;
        while (parents[j] as usize) < self.joints {
            j = parents[j] as usize;
            out.push(j);
        }
        out
    }

    /// Channel `k`'s frames as the decoder reads them at its bit rate (empty when not
    /// animated).
    fn decode_channel(&self, k: usize) -> Vec<Vec4> {
        let kind = channel_kind(self.joints, k);
        match &self.frames.channels[k] {
            Sampled::Animated {
                frames,
                layout,
                ranges,
                ..
            } => {
                let bits = match ranges {
                    Some(_) if self.bits[k] != ChannelCode::RAW_BITS => {
                        let cut = self.reductions[k];
                        [0, 1, 2, 3].map(|c| self.bits[k] - cut[c])
                    }
                    _ => [ChannelCode::RAW_BITS; 4],
                };
                let r = ranges.unwrap_or([0; 4]);
                frames
                    .iter()
                    .map(|&v| decoded(kind, *layout, v, bits, &r))
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// Channel `k`'s largest error over its frames at each bit rate 1..=24 (index = bits):
    /// translation distance, rotation angle, scale relative to itself, weight difference.
    fn value_errors(&self, k: usize) -> [f32; 25] {
        let mut out = [f32::INFINITY; 25];
        let kind = channel_kind(self.joints, k);
        let Sampled::Animated {
            frames,
            layout,
            ranges: Some(r),
            ..
        } = &self.frames.channels[k]
        else {
            return out;
        };
        for (b, slot) in out.iter_mut().enumerate().skip(1) {
            *slot = frames
                .iter()
                .map(|&v| value_error(kind, v, decoded(kind, *layout, v, [b as u32; 4], r)))
                .fold(0.0, f32::max);
        }
        out
    }

    /// Channel `k` at dense time `ti`.
    #[inline]
    fn value_at(&self, k: usize, ti: usize) -> Vec4 {
        match &self.frames.channels[k] {
            Sampled::Rest => self.rest[k],
            Sampled::Constant(v) => *v,
            Sampled::Animated { step, .. } => {
                let frames = &self.decoded[k];
                let (f, u) = self.positions[ti];
                if frames.len() < 2 {
                    return frames[0];
                }
                let f = f as usize;
                let kind = channel_kind(self.joints, k);
                blend_frames(kind, *step, frames[f], frames[f + 1], u)
            }
        }
    }

    /// Joint `j`'s local transform at dense time `ti`.
    #[inline]
    fn local_at(&self, j: usize, ti: usize) -> Sqt {
        let t = self.value_at(j * 3, ti);
        let r = self.value_at(j * 3 + 1, ti);
        let s = self.value_at(j * 3 + 2, ti);
        Sqt {
            translation: Vec3::new(t.x, t.y, t.z),
            rotation: Quat::from_vec4(r),
            scale: Vec3::new(s.x, s.y, s.z),
        }
    }

    /// Evaluates every joint at every dense time.
    fn evaluate_all(&mut self) {
        for j in 0..self.joints {
            self.refresh_locals(j);
        }
        let parents = self.rig.skeleton.parents();
        let roots: Vec<usize> = (0..self.joints)
            .filter(|&j| (parents[j] as usize) >= self.joints)
            .collect();
        for j in roots {
            self.evaluate_subtree(j);
        }
        self.error = self.joint_error.iter().copied().fold(0.0, f32::max);
        self.weight_error = self.weight_errors().into_iter().fold(0.0, f32::max);
    }

    /// Joint `j`'s local transforms at every dense time, from its channels.
    fn refresh_locals(&mut self, j: usize) {
        let n = self.joints;
        for ti in 0..self.positions.len() {
            self.locals[ti * n + j] = self.local_at(j, ti).to_affine();
        }
    }

    /// Evaluates joint `j` (whose channels changed) and its descendants at every dense time
    /// and updates their errors.
    fn evaluate_subtree(&mut self, j: usize) {
        self.refresh_locals(j);
        let n = self.joints;
        let parents = self.rig.skeleton.parents();
        let subtree = std::mem::take(&mut self.subtree[j]);
        for &d in &subtree {
            self.joint_error[d] = 0.0;
        }
        for ti in 0..self.positions.len() {
            for &d in &subtree {
                let local = &self.locals[ti * n + d];
                let model = match self.approx.get(ti * n + parents[d] as usize) {
                    Some(parent) if (parents[d] as usize) < n => *parent * *local,
                    _ => *local,
                };
                self.approx[ti * n + d] = model;
                let e = vertex_error(&self.exact[ti * n + d], &model, self.offsets[d]);
                self.joint_error[d] = self.joint_error[d].max(e);
            }
        }
        self.subtree[j] = subtree;
        self.error = self.joint_error.iter().copied().fold(0.0, f32::max);
    }

    /// Per weight chunk: its largest difference from the exact weights over the dense times.
    fn weight_errors(&self) -> Vec<f32> {
        let chunks = self.frames.channels.len() - self.joints * 3;
        (0..chunks)
            .map(|c| {
                (0..self.positions.len())
                    .map(|ti| {
                        let v = self.value_at(self.joints * 3 + c, ti);
                        (v - self.exact_weights[ti * chunks + c])
                            .abs()
                            .max_element()
                    })
                    .fold(0.0, f32::max)
            })
            .collect()
    }
}

/// The rest value of channel `k` of `rig`.
fn rest_value(rig: &Rig, joints: usize, k: usize) -> Vec4 {
    if k >= joints * 3 {
        let lib = &rig.clips;
        return lib.value(lib.weight_default_offset() + k - joints * 3);
    }
    let rest = rig.skeleton.rest_pose()[k / 3];
    match k % 3 {
        0 => rest.translation.extend(0.0),
        1 => Vec4::from(rest.rotation),
        _ => rest.scale.extend(0.0),
    }
}

/// The error of decoded value `d` against `v`: distance for translation, angle (radians) for
/// rotation, largest relative difference for scale, largest difference for weights.
fn value_error(kind: ChannelKind, v: Vec4, d: Vec4) -> f32 {
    match kind {
        ChannelKind::Translation => (v - d).truncate().length(),
        ChannelKind::Rotation => {
            let len = d.length();
            if len <= 0.0 {
                return std::f32::consts::PI;
            }
            // From the chord between the unit 4-vectors (acos loses precision near 1).
            let d = d / len;
            let chord = (v - d).length().min((v + d).length());
            4.0 * (chord * 0.5).min(1.0).asin()
        }
        ChannelKind::Scale => ((v - d).abs() / v.abs().max(Vec4::splat(1e-6)))
            .truncate()
            .max_element(),
        ChannelKind::Weights => (v - d).abs().max_element(),
    }
}

//! The fast evaluator: groups of [`LANES`] instances of one rig, one instance per SIMD lane,
//! walk the skeleton once, parent before child. Per joint and for the whole group at once: sample
//! each layer from the resampled clips (two frame records per lane, one lerp per channel; a
//! channel that is constant over the clip is one load), blend the layers (override: normalized
//! lerp with per-joint mask weights; additive), apply root-motion removal, turn the SQT into a
//! 3x4 matrix, multiply by the parent's model matrix (or the instance's world transform), write
//! `model × inverse bind` into each instance's palette and grow each instance's bounds. A
//! layer whose lanes all play one clip is interpolated before the walk, every animated channel
//! of each lane in one pass over its two frame records; the walk then gathers one record per
//! channel.
//!
//! Lanes rather than joints: every instance runs the same joint sequence, so the hierarchy
//! product, skinning and bounds, which dominate once sampling is O(1), vectorize as cleanly as
//! sampling does; only sampling gathers per lane (each instance reads its own frame pair).

use glam::Affine3A;

use super::ik::{IkGroup, solve_group};
use super::lanes::{F4, F8, Isa, LANES, gather};
use super::reads::GroupReads;
use super::resampled::{CONSTANT, JointSlots};
use super::rig::FastRig;
use super::soa::{Affine8, Sqt8, arrays_to_sqt, sqt_to_arrays};
use crate::baked::MAX_JOINTS;
use crate::cpu::hold_root_in_frame;
use crate::instance::{BlendMode, InstanceRecord, Layer, MAX_LAYERS};
use crate::mask::JointMask;
use crate::math::Aabb;
use crate::math::Mat3x4Rows;

/// Weight 1 for every joint: the mask of layers without one.
static NO_MASK: [f32; MAX_JOINTS] = [1.0; MAX_JOINTS];

/// One layer slot of a group: what each lane samples and with which weight.
struct Slot<'a> {
    /// Every lane plays the same clip (constants come from one table, pre-splatted).
    uniform: bool,
    /// Each lane's clip.
    clips: [u32; LANES],
    /// Frame records `f` and `f + 1` of each lane's clip.
    a: [&'a [F4]; LANES],
    b: [&'a [F4]; LANES],
    /// Each lane's weights of the two records, `(1 - alpha, alpha)`, in all four components,
    /// and those of STEP channels (`(1, 0)`, or `(0, 1)` at the clip's end).
    lerp: [(F4, F4); LANES],
    hold: [(F4, F4); LANES],
    /// Per-joint channel tables of each lane's clip.
    slots: [&'a [JointSlots]; LANES],
    constants: [&'a [[F4; 3]]; LANES],
    constants_lanes: &'a [Sqt8],
    /// When `uniform`: every animated channel's value in each lane as lanes of xyzw,
    /// interpolated (or held) in one pass over the frame records before the joint walk.
    samples: &'a [[F8; 4]],
    /// Per-joint mask weights of each lane.
    masks: [&'a [f32]; LANES],
    any_mask: bool,
    /// Layer weight of override lanes (0 for additive lanes) and of additive lanes.
    w_override: F8,
    w_additive: F8,
    any_override: bool,
    any_additive: bool,
    /// Every lane overrides at full weight without a mask: the sample replaces the pose.
    full: bool,
}

impl Slot<'_> {
    /// Every lane's sample of joint `j`.
    #[inline(always)]
    fn sample<M: Isa>(&self, j: usize) -> Sqt8 {
        if self.uniform {
            self.sample_uniform(j)
        } else {
            self.sample_mixed::<M>(j)
        }
    }

    /// Lane `i`'s value of channel slot `slot`, interpolated unless `step`. Written
    /// `a (1 - alpha) + b alpha`, which is exactly `a` or `b` at either end.
    #[inline(always)]
    fn lane_value(&self, i: usize, slot: usize, step: bool) -> F4 {
        let (wa, wb) = if step { self.hold[i] } else { self.lerp[i] };
        self.b[i][slot].mul_add(wb, self.a[i][slot] * wa)
    }

    /// Every lane's sample of joint `j` from the pre-interpolated samples and the
    /// pre-splatted constants. Each channel picks its source address first and loads from it
    /// once: choosing between two loaded values instead made LLVM split them into scalars.
    #[inline(always)]
    fn sample_uniform(&self, j: usize) -> Sqt8 {
        let js = self.slots[0][j];
        let c = &self.constants_lanes[j];
        let r = if js.slot[1] == CONSTANT {
            &c.r
        } else {
            &self.samples[js.slot[1] as usize]
        };
        Sqt8 {
            t: *self.xyz(js.slot[0], &c.t),
            r: *r,
            s: *self.xyz(js.slot[2], &c.s),
        }
    }

    /// The xyz of pre-interpolated channel `slot`, or `constant` where the slot is
    /// [`CONSTANT`].
    #[inline(always)]
    fn xyz<'s>(&'s self, slot: u16, constant: &'s [F8; 3]) -> &'s [F8; 3] {
        if slot == CONSTANT {
            return constant;
        }
        // Always `Some`: an xyzw holds an xyz.
        self.samples[slot as usize]
            .first_chunk()
            .unwrap_or(constant)
    }

    #[inline(always)]
    fn sample_mixed<M: Isa>(&self, j: usize) -> Sqt8 {
        // Loops rather than `array::map` and `from_fn`, which are not always inlined.
        let (mut t, mut r, mut s) = ([F4::ZERO; LANES], [F4::ZERO; LANES], [F4::ZERO; LANES]);
        for i in 0..LANES {
            [t[i], r[i], s[i]] = self.mixed_lane(i, j);
        }
        let [tx, ty, tz, _] = gather::<M>(t);
        let r = gather::<M>(r);
        let [sx, sy, sz, _] = gather::<M>(s);
        Sqt8 {
            t: [tx, ty, tz],
            r,
            s: [sx, sy, sz],
        }
    }

    /// Lane `i`'s translation, rotation and scale of joint `j`, from its own clip.
    #[inline(always)]
    fn mixed_lane(&self, i: usize, j: usize) -> [F4; 3] {
        let js = self.slots[i][j];
        let c = &self.constants[i][j];
        let channel = |ch: usize| {
            if js.slot[ch] == CONSTANT {
                c[ch]
            } else {
                self.lane_value(i, js.slot[ch] as usize, js.step & (1 << ch) != 0)
            }
        };
        [channel(0), channel(1), channel(2)]
    }
}

/// One lane's input: its instance's record (world transform and root-motion flags) and the
/// record's used layers at the evaluated frame time, resolved once per frame without copying
/// the record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lane<'a> {
    /// The instance's record.
    pub record: &'a InstanceRecord,
    /// Its used layers at the frame time (the first `layer_count`).
    pub layers: [Layer; MAX_LAYERS],
    /// Number of used layers.
    pub layer_count: usize,
}

impl<'a> Lane<'a> {
    /// `record`'s lane at frame time `now`.
    #[inline]
    pub fn at(record: &'a InstanceRecord, now: f32) -> Self {
        let mut layers = [Layer::clip(0, 0.0); MAX_LAYERS];
        let used = record.used_layers();
        for (out, layer) in layers.iter_mut().zip(used) {
            *out = layer.to_layer_at(now);
        }
        Self {
            record,
            layers,
            layer_count: used.len(),
        }
    }

    /// The used layers.
    pub fn layers(&self) -> &[Layer] {
        &self.layers[..self.layer_count]
    }
}

/// The instances of a group, one per lane (a group of fewer repeats its first instance in the
/// spare lanes, whose results are not written), with the rig and masks they were validated
/// against.
pub(crate) struct Group<'a, 'p> {
    /// The rig every lane plays.
    pub fast: &'a FastRig,
    /// The backend's layer masks.
    pub masks: &'a [JointMask],
    /// The lanes' inputs.
    pub lanes: &'a [Lane<'a>; LANES],
    /// Palette slices of the real lanes (`1..=LANES` of them), one entry per joint each.
    pub palettes: &'a mut [&'p mut [Mat3x4Rows]],
    /// Each real lane's IK entries (empty for a rig without constraints).
    pub ik_inputs: &'a [&'a [Mat3x4Rows]; LANES],
}

/// Working memory of [`evaluate_group_with`], reused from group to group (one per thread).
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch {
    /// The group's model matrices, one per joint.
    models: Vec<Affine8>,
    /// Per layer slot: the interpolated channel values of a slot whose lanes all play one clip.
    samples: [Vec<[F8; 4]>; MAX_LAYERS],
    /// The same values before they are transposed: channel-major, one `F4` per lane.
    lerped: Vec<F4>,
    /// One lane's model matrices, for its IK stage.
    lane_models: Vec<Affine3A>,
}

/// Evaluates one group: every lane's palette entries, and returns each lane's animated AABB
/// and the bytes the group read ([`GroupReads`]).
/// When `models` is given, lane 0's model matrices are written to it. Records must have been
/// validated against the group's rig and masks.
#[inline(always)]
pub(crate) fn evaluate_group_with<M: Isa>(
    group: Group<'_, '_>,
    mut models: Option<&mut [Affine3A]>,
    scratch: &mut Scratch,
) -> ([Aabb; LANES], u64) {
    let Group {
        fast,
        masks,
        lanes,
        palettes,
        ik_inputs,
    } = group;
    let n = fast.joint_count();
    let lib = &fast.clips;
    let layer_count = lanes.each_ref().map(|l| l.layer_count.min(MAX_LAYERS));
    let max_layers = layer_count.iter().copied().max().unwrap_or(0);

    // Per slot: each lane's clip, frames, weight and mask; lanes without this slot take the
    // first lane that has it with weight 0.
    let Scratch {
        models: scratch,
        samples,
        lerped,
        lane_models,
    } = scratch;
    if scratch.len() < n {
        scratch.resize(n, Affine8::default());
    }
    let mut slots: [Option<Slot<'_>>; MAX_LAYERS] = [None, None, None, None];
    for (k, (out, buf)) in slots
        .iter_mut()
        .zip(samples.iter_mut())
        .enumerate()
        .take(max_layers)
    {
        let Some(donor) = (0..LANES).find(|&i| k < layer_count[i]) else {
            continue;
        };
        let layer = |i: usize| -> (&Layer, bool) {
            if k < layer_count[i] {
                (&lanes[i].layers[k], true)
            } else {
                (&lanes[donor].layers[k], false)
            }
        };
        let mut slot = Slot {
            uniform: true,
            clips: [0; LANES],
            a: [&[]; LANES],
            b: [&[]; LANES],
            lerp: [(F4::ZERO, F4::ZERO); LANES],
            hold: [(F4::ZERO, F4::ZERO); LANES],
            slots: [&[]; LANES],
            constants: [&[]; LANES],
            constants_lanes: &[],
            samples: &[],
            masks: [&NO_MASK; LANES],
            any_mask: false,
            w_override: F8::ZERO,
            w_additive: F8::ZERO,
            any_override: false,
            any_additive: false,
            full: true,
        };
        let first_clip = lanes[donor].layers[k].clip as usize;
        // Per lane: override and additive weight.
        let mut weights = [[0.0f32; 2]; LANES];
        for (i, lane_weights) in weights.iter_mut().enumerate() {
            let (rec, real) = layer(i);
            let clip = rec.clip as usize;
            slot.clips[i] = rec.clip;
            let (f, alpha) = lib.clips[clip].frame_at(rec.time);
            let (a, b) = lib.frame_pair(clip, f);
            let (js, c, c4) = lib.joint_tables(clip);
            slot.a[i] = a;
            slot.b[i] = b;
            slot.lerp[i] = (F4::splat(1.0 - alpha), F4::splat(alpha));
            let end = if alpha >= 1.0 { 1.0 } else { 0.0 };
            slot.hold[i] = (F4::splat(1.0 - end), F4::splat(end));
            slot.slots[i] = js;
            slot.constants[i] = c;
            if i == 0 {
                slot.constants_lanes = c4;
            }
            slot.uniform &= clip == first_clip;
            let weight = if real { rec.weight } else { 0.0 };
            let mask = rec.mask.filter(|_| real);
            if let Some(m) = mask {
                slot.masks[i] = &masks[m as usize].weights;
                slot.any_mask = true;
            }
            let additive = rec.mode == BlendMode::Additive;
            if additive {
                lane_weights[1] = weight;
                slot.any_additive |= real;
            } else {
                lane_weights[0] = weight;
                slot.any_override |= real;
            }
            slot.full &= real && !additive && rec.mask.is_none() && weight >= 1.0;
        }
        slot.w_override = F8::new(weights.map(|w| w[0]));
        slot.w_additive = F8::new(weights.map(|w| w[1]));
        // A slot no lane can see: every weight <= 0 and no mask to flip a sign.
        let unseen =
            !slot.any_mask && slot.w_override.all_le_zero() && slot.w_additive.all_le_zero();
        if !unseen {
            if slot.uniform {
                fill_samples::<M>(&slot, lib.channel_steps(first_clip), lerped, buf);
                slot.samples = buf.as_slice();
            }
            *out = Some(slot);
        }
    }
    let active: &[Option<Slot<'_>>] = &slots[..max_layers];
    // When the bottom visible layer replaces the pose, start from its sample, not the rest pose.
    let bottom = active
        .iter()
        .position(Option::is_some)
        .unwrap_or(active.len());
    let (first_full, rest_slots) = match active.get(bottom) {
        Some(Some(slot)) if slot.full => (Some(slot), &active[bottom + 1..]),
        _ => (None, active),
    };

    const HOLD: u32 = InstanceRecord::HOLD_ROOT_XZ
        | InstanceRecord::HOLD_ROOT_XYZ
        | InstanceRecord::HOLD_ROOT_YAW;
    let hold_joint = lanes.each_ref().map(|l| {
        let r = l.record;
        if r.flags & HOLD != 0 {
            (r.flags & InstanceRecord::ROOT_JOINT) as usize
        } else {
            usize::MAX
        }
    });
    let any_hold = hold_joint.iter().any(|&h| h != usize::MAX);
    let hold_flags = lanes.each_ref().map(|l| l.record.flags);
    let counter = GroupReads {
        fast,
        real: palettes.len(),
        from_rest: first_full.is_none(),
        holds: hold_joint.iter().filter(|&&h| h < n).count(),
    };
    let bytes = active.iter().flatten().fold(counter.base(), |sum, slot| {
        sum + counter.slot(slot.uniform, &slot.clips, slot.any_mask, slot.any_additive)
    });

    let world = Affine8::from_lanes::<M>(lanes.each_ref().map(|l| &l.record.world));
    let mut lo = [F8::splat(f32::INFINITY); 3];
    let mut hi = [F8::splat(f32::NEG_INFINITY); 3];
    let scratch = &mut scratch[..n];

    // Joint LOD: each lane samples the first `sampled[lane]` joints and holds the rest at
    // their rest transform. Joints every lane samples take no extra step; joints no lane
    // samples are not sampled at all.
    let sampled = lanes
        .each_ref()
        .map(|l| fast.lod_sampled[l.record.lod_level() as usize]);
    let sampled_by_all = sampled.iter().copied().min().unwrap_or(n);
    let sampled_by_any = sampled.iter().copied().max().unwrap_or(n);

    for j in 0..n {
        let pose = if j >= sampled_by_any {
            fast.rest[j]
        } else {
            let mut pose = match first_full {
                Some(slot) => slot.sample::<M>(j),
                None => fast.rest[j],
            };
            // Whether the pose's rotation may be far from unit length (after an override blend).
            let mut far = false;
            for slot in rest_slots.iter().flatten() {
                if slot.full {
                    pose = slot.sample::<M>(j);
                    far = false;
                    continue;
                }
                let (mut wo, mut wa) = (slot.w_override, slot.w_additive);
                if slot.any_mask {
                    let mut m = [0.0; LANES];
                    for (w, mask) in m.iter_mut().zip(&slot.masks) {
                        *w = mask[j];
                    }
                    let m = F8::new(m);
                    wo = wo * m;
                    wa = wa * m;
                    if wo.all_le_zero() && wa.all_le_zero() {
                        continue;
                    }
                }
                let sample = slot.sample::<M>(j);
                if slot.any_override {
                    pose = pose.blend_toward::<M>(&sample, wo.clamp01(), far);
                    far = true;
                }
                if slot.any_additive {
                    pose = pose.add_delta::<M>(
                        &sample,
                        &fast.rest[j],
                        &fast.rest_inv_scale[j],
                        wa.max(F8::ZERO),
                    );
                }
            }
            if any_hold && hold_joint.contains(&j) {
                hold_roots(fast, &hold_joint, &hold_flags, j, &mut pose);
            }
            if j >= sampled_by_all {
                pose = pose.select(&lod_keeps(&sampled, j), &fast.rest[j]);
            }
            pose
        };
        let local = pose.to_affine::<M>();
        let parent = fast.parents[j] as usize;
        let (done, todo) = scratch.split_at_mut(j);
        let model = &mut todo[0];
        match done.get(parent) {
            Some(p) => p.mul_into::<M>(&local, model),
            None => world.mul_into::<M>(&local, model),
        }
        // Joints IK can turn are skinned and bounded after it.
        if !fast.ik.defers(j) {
            let mut skin = Affine8::default();
            model.mul_into::<M>(&fast.inverse_binds[j], &mut skin);
            M::write_lanes(&skin.m, palettes, j);
            if let Some((center, extent)) = &fast.bounds[j] {
                model.grow_aabb::<M>(center, extent, &mut lo, &mut hi);
            }
        }
        if let Some(models) = models.as_deref_mut() {
            models[j] = model.lane(0).to_affine();
        }
    }
    let mut bytes = bytes;
    if !fast.ik.turned().is_empty() {
        let group = IkGroup {
            ik: &fast.ik,
            inputs: ik_inputs,
            models: scratch,
            inverse_binds: &fast.inverse_binds,
            bounds: &fast.bounds,
            palettes,
        };
        bytes += solve_group::<M>(group, lane_models, &mut lo, &mut hi);
        if let Some(models) = models {
            for &j in fast.ik.turned() {
                models[j] = scratch[j].lane(0).to_affine();
            }
        }
    }

    let aabbs = std::array::from_fn(|lane| {
        if lo[0].lane(lane) > hi[0].lane(lane) {
            Aabb::EMPTY
        } else {
            Aabb {
                min: [lo[0].lane(lane), lo[1].lane(lane), lo[2].lane(lane), 0.0],
                max: [hi[0].lane(lane), hi[1].lane(lane), hi[2].lane(lane), 0.0],
            }
        }
    });
    (aabbs, bytes)
}

/// Every animated channel of `slot`'s clip (whose STEP channels are `steps`) in every lane,
/// interpolated (or held) between the lane's two frame records, into `out` as lanes of xyzw:
/// one pass over the records before the joint walk, which then loads each channel whole.
/// Each lane's channels are interpolated first, one lane at a time (its two records and weights
/// stay in registers), into `lerped`, channel-major; then each channel's eight values are
/// transposed into lanes.
#[inline(always)]
fn fill_samples<M: Isa>(
    slot: &Slot<'_>,
    steps: &[bool],
    lerped: &mut Vec<F4>,
    out: &mut Vec<[F8; 4]>,
) {
    let n = steps.len();
    lerped.clear();
    lerped.resize(n * LANES, F4::ZERO);
    for i in 0..LANES {
        // The lane's two records, cut to the record length once (no bounds checks per value).
        let (a, b) = (&slot.a[i][..n], &slot.b[i][..n]);
        let (wa, wb) = slot.lerp[i];
        for ((value, a), b) in lerped.chunks_exact_mut(LANES).zip(a).zip(b) {
            value[i] = b.mul_add(wb, *a * wa);
        }
    }
    // STEP channels (rare) are redone with the hold weights: choosing the weights per value in
    // the loop above measured 9-14% more instructions per joint.
    for (v, _) in steps.iter().enumerate().filter(|(_, step)| **step) {
        for i in 0..LANES {
            let (wa, wb) = slot.hold[i];
            lerped[v * LANES + i] = slot.b[i][v].mul_add(wb, slot.a[i][v] * wa);
        }
    }
    out.clear();
    out.resize(n, [F8::ZERO; 4]);
    // A loop, not `extend` over a `map`, which is not always inlined (a call leaves the AVX2
    // kernel).
    for (value, v) in out.iter_mut().zip(lerped.chunks_exact(LANES)) {
        *value = gather::<M>([v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]]);
    }
}

/// The lane mask of the lanes that sample joint `j` (those whose joint LOD samples more than
/// `j` joints).
#[inline(always)]
fn lod_keeps(sampled: &[usize; LANES], j: usize) -> F8 {
    F8::new(sampled.map(|s| if j < s { f32::from_bits(u32::MAX) } else { 0.0 }))
}

/// Holds the root motion of joint `j` in the lanes whose root it is (`hold_joint`, with their
/// record flags `flags`). Kept out of the joint walk, which runs it on at most one joint per
/// lane.
#[inline(never)]
fn hold_roots(
    fast: &FastRig,
    hold_joint: &[usize; LANES],
    flags: &[u32; LANES],
    j: usize,
    pose: &mut Sqt8,
) {
    let (rest, frame) = &fast.root_holds[j];
    for (lane, (&h, &flags)) in hold_joint.iter().zip(flags).enumerate() {
        if h == j {
            let trs = pose.lane(lane);
            let held = hold_root_in_frame(frame, rest, flags, j, arrays_to_sqt(&trs));
            pose.set_lane(lane, &sqt_to_arrays(&held));
        }
    }
}

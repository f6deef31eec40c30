//! Stage 2 of an inertialized transition (twin of `wgsl/inertial.wgsl`): the capture of each
//! joint's offset between the outgoing pose and the incoming layers, and its decay.
//!
//! Per joint the offset is a rotation vector `r` (the log of `q_out · q_in⁻¹`, on the shorter
//! arc), a translation difference and a scale difference, each with its velocity, a backward
//! difference over [`INERTIAL_VELOCITY_STEP`]. The pose is the incoming layers' with the offset
//! added (`exp(r(t)) · q_in`, `t_in + t(t)`, `s_in + s(t)`), each part decayed by the quintic
//! of [`inertial_decay`], so position and velocity are continuous at the start and the offset,
//! its velocity and its acceleration reach zero at the end.

use glam::{Quat, Vec3, Vec4, Vec4Swizzles};

/// An inertialization block as `vec4`s (three per palette entry).
pub type InertialWords = [f32; 4];

use super::blend::blend_joint_with;
use super::clip_source::ClipSource;
use super::retarget::LayerClips;
use crate::baked::Rig;
use crate::inertialization::{
    INERTIAL_HEADER_VEC4S, INERTIAL_JOINT_VEC4S, INERTIAL_TAG, INERTIAL_VELOCITY_STEP,
    Inertialization, inertial_block_entries,
};
use crate::instance::{InstanceRecord, Layer, LayerRecord, MAX_LAYERS};
use crate::mask::JointMask;
use crate::math::Sqt;

/// The decay at progress `s` (clamped to 0..=1): the weights `(p, q)` of the offset `x₀` and
/// of `v₀ · duration` in `x(s) = x₀ · p(s) + v₀ · duration · q(s)`. The quintic of Bollo's
/// "Inertialization" (GDC 2018) with its start acceleration `(−8 v₀ T − 20 x₀) / T²`:
/// `p = 1 − 10s² + 20s³ − 15s⁴ + 4s⁵`, `q = s (1 − s)⁴`, so `x(0) = x₀`, `x'(0) = v₀`, and
/// `x`, `x'`, `x''` are 0 at `s = 1`. It is linear in `(x₀, v₀)`, so it applies to vectors
/// component-wise. (Bollo also zeroes `v₀` when it points away from zero and shortens `T`
/// against overshoot; both break velocity continuity, so neither is done.)
pub fn inertial_decay(s: f32) -> (f32, f32) {
    let s = s.clamp(0.0, 1.0);
    let u = 1.0 - s;
    let p = 1.0 + s * s * (-10.0 + s * (20.0 + s * (-15.0 + 4.0 * s)));
    (p, s * (u * u) * (u * u))
}

/// Offset `x0` with velocity `v0` decayed over `duration` seconds, `elapsed` seconds in
/// (a duration that is not above 0 leaves nothing).
pub fn decayed(x0: Vec3, v0: Vec3, elapsed: f32, duration: f32) -> Vec3 {
    if duration.is_nan() || duration <= 0.0 {
        return Vec3::ZERO;
    }
    let (p, q) = inertial_decay(elapsed / duration);
    x0 * p + v0 * (duration * q)
}

/// The rotation vector of unit quaternion `q` (axis × angle, the angle 0 to 2π).
pub fn quat_log(q: Quat) -> Vec3 {
    let v = Vec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < 1e-7 {
        return v * 2.0;
    }
    v * (2.0 * s.atan2(q.w) / s)
}

/// The unit quaternion of rotation vector `r`.
pub fn quat_exp(r: Vec3) -> Quat {
    let angle = r.length();
    if angle < 1e-7 {
        return Quat::from_xyzw(0.5 * r.x, 0.5 * r.y, 0.5 * r.z, 1.0).normalize();
    }
    let k = (0.5 * angle).sin() / angle;
    Quat::from_xyzw(r.x * k, r.y * k, r.z * k, (0.5 * angle).cos())
}

/// One joint's offset at a frame time: rotation vector, translation, scale.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointOffset {
    /// Rotation vector, applied before the incoming rotation (in the parent's space).
    pub rotation: Vec3,
    /// Added to the incoming translation.
    pub translation: Vec3,
    /// Added to the incoming scale.
    pub scale: Vec3,
}

impl JointOffset {
    /// `pose` with the offset added.
    pub fn apply(&self, pose: &Sqt) -> Sqt {
        Sqt {
            translation: pose.translation + self.translation,
            rotation: (quat_exp(self.rotation) * pose.rotation).normalize(),
            scale: pose.scale + self.scale,
        }
    }
}

/// Joint `joint`'s offset in `block` (an inertialization block, header first) at `elapsed`
/// seconds into a decay of `duration`.
pub fn joint_offset(
    block: &[InertialWords],
    joint: usize,
    elapsed: f32,
    duration: f32,
) -> JointOffset {
    let at = (INERTIAL_HEADER_VEC4S + joint as u32 * INERTIAL_JOINT_VEC4S) as usize;
    let Some(e) = block.get(at..at + INERTIAL_JOINT_VEC4S as usize) else {
        return JointOffset::default();
    };
    let v = |i: usize| Vec4::from_array(e[i]).xyz();
    JointOffset {
        rotation: decayed(v(0), v(1), elapsed, duration),
        translation: decayed(v(2), v(3), elapsed, duration),
        scale: decayed(v(4), v(5), elapsed, duration),
    }
}

/// A joint's captured entries: the offset from the incoming pose to the outgoing one at the
/// start (`out_now`, `in_now`) and its velocity, the backward difference from the poses one
/// `step` seconds before (`out_prev`, `in_prev`).
pub fn capture_joint(
    out_now: &Sqt,
    out_prev: &Sqt,
    in_now: &Sqt,
    in_prev: &Sqt,
    step: f32,
) -> [InertialWords; 6] {
    let mut q = out_now.rotation * in_now.rotation.conjugate();
    if q.w < 0.0 {
        q = -q;
    }
    let mut q_prev = out_prev.rotation * in_prev.rotation.conjugate();
    if q_prev.dot(q) < 0.0 {
        q_prev = -q_prev;
    }
    let r = quat_log(q);
    let t = out_now.translation - in_now.translation;
    let s = out_now.scale - in_now.scale;
    let rate = 1.0 / step;
    let rv = (r - quat_log(q_prev)) * rate;
    let tv = (t - (out_prev.translation - in_prev.translation)) * rate;
    let sv = (s - (out_prev.scale - in_prev.scale)) * rate;
    [r, rv, t, tv, s, sv].map(|v| v.extend(0.0).to_array())
}

/// `records` (layers of a record) as layers at frame time `now`, into `out`; returns them.
fn layers_at<'a>(
    records: &[LayerRecord],
    now: f32,
    out: &'a mut [Layer; MAX_LAYERS],
) -> &'a [Layer] {
    for (slot, layer) in out.iter_mut().zip(records) {
        *slot = layer.to_layer_at(now);
    }
    &out[..records.len().min(MAX_LAYERS)]
}

/// Captures `rec`'s inertialized transition into `block` (its inertialization block as
/// `vec4`s, [`inertial_block_entries`] palette entries) when the block's serial is not the record's: every joint's offset and
/// velocity (a chained transition's outgoing pose carries the offset the block held, decayed
/// to the start), then the header. A record that is not inertialized, or whose serial the
/// block holds, leaves it as it is. The record must be valid.
pub fn capture_inertialization(
    rig: &Rig,
    source: ClipSource,
    masks: &[JointMask],
    rec: &InstanceRecord,
    block: &mut [InertialWords],
) {
    capture_inertialization_with(rig, source, masks, rec, [&[], &[]], block);
}

/// [`capture_inertialization`] with the outgoing and incoming layers sampled from `clips`
/// (`[outgoing, incoming]`, one per layer; empty: the rig's own clips), for retargeted layers.
pub(crate) fn capture_inertialization_with(
    rig: &Rig,
    source: ClipSource,
    masks: &[JointMask],
    rec: &InstanceRecord,
    clips: [&[LayerClips]; 2],
    block: &mut [InertialWords],
) {
    let Some(t) = rec.inertialization() else {
        return;
    };
    let n = rig.joint_count();
    let held = block.first().copied().unwrap_or_default();
    if block.len() < 3 * inertial_block_entries(n as u32) as usize
        || (held[0] == t.serial as f32 && held[3] == INERTIAL_TAG)
    {
        return;
    }
    let (old_start, old_duration) = (block[0][1], block[0][2]);
    let before = t.start - INERTIAL_VELOCITY_STEP;
    let step = t.start - before;
    let (mut a, mut b, mut c, mut d) = (
        [Layer::clip(0, 0.0); MAX_LAYERS],
        [Layer::clip(0, 0.0); MAX_LAYERS],
        [Layer::clip(0, 0.0); MAX_LAYERS],
        [Layer::clip(0, 0.0); MAX_LAYERS],
    );
    let out_now = layers_at(rec.outgoing_layers(), t.start, &mut a);
    let out_prev = layers_at(rec.outgoing_layers(), before, &mut b);
    let in_now = layers_at(rec.used_layers(), t.start, &mut c);
    let in_prev = layers_at(rec.used_layers(), before, &mut d);
    for j in 0..n {
        let mut o_now = blend_joint_with(rig, source, masks, out_now, clips[0], j);
        let mut o_prev = blend_joint_with(rig, source, masks, out_prev, clips[0], j);
        if t.chained {
            let old = &*block;
            o_now = joint_offset(old, j, t.start - old_start, old_duration).apply(&o_now);
            o_prev = joint_offset(old, j, before - old_start, old_duration).apply(&o_prev);
        }
        let i_now = blend_joint_with(rig, source, masks, in_now, clips[1], j);
        let i_prev = blend_joint_with(rig, source, masks, in_prev, clips[1], j);
        let at = (INERTIAL_HEADER_VEC4S + j as u32 * INERTIAL_JOINT_VEC4S) as usize;
        block[at..at + INERTIAL_JOINT_VEC4S as usize]
            .copy_from_slice(&capture_joint(&o_now, &o_prev, &i_now, &i_prev, step));
    }
    block[0] = [t.serial as f32, t.start, t.duration, INERTIAL_TAG];
}

/// The offsets of an inertialized record at a frame time, for the evaluators.
#[derive(Clone, Copy, Debug)]
pub struct InertialView<'a> {
    /// The instance's inertialization block, captured.
    pub block: &'a [InertialWords],
    /// Seconds since the transition started.
    pub elapsed: f32,
    /// The transition's duration.
    pub duration: f32,
}

impl<'a> InertialView<'a> {
    /// The view of `t`'s captured `block` at frame time `now`, or `None` once the offset has
    /// decayed (nothing to add).
    pub fn of(t: &Inertialization, block: &'a [InertialWords], now: f32) -> Option<Self> {
        (now - t.start < t.duration).then_some(Self {
            block,
            elapsed: now - t.start,
            duration: t.duration,
        })
    }

    /// `pose` of joint `joint` with its offset added.
    pub fn apply(&self, joint: usize, pose: &Sqt) -> Sqt {
        joint_offset(self.block, joint, self.elapsed, self.duration).apply(pose)
    }
}

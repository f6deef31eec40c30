//! Root motion accumulated by the evaluator, for records with
//! [`InstanceRecord::GPU_ROOT_MOTION`]: the root joint's held motion between the previous frame
//! time and this one moves the record's `world`. Twin of `wgsl/root_motion.wgsl`, function for
//! function and operation for operation; the definition is that of the runtime's
//! [`crate::runtime::RootMotion`], read from the record's clocks instead of the runtime's steps.
//!
//! Per base layer `k` (the bottom [`InstanceRecord::BASE_LAYERS`] layers), the clock's
//! unwrapped step `u(prev) → u(now)` moves the root by `F(u(now)) − F(u(prev))` for the
//! unwrapped root translation `F(u) = root(wrap(u)) + wraps(u) × (root(period) − root(0))`
//! (whole cycles on a looping clock; a ping-pong leg walks the clip forward or back), and its
//! yaw likewise, each angle difference taken the short way. The layers' shares of the base
//! pose at `now` weight the steps: `cₖ = wₖ × Π_{j>k}(1 − wⱼ)` for the override weights `wₖ`.
//!
//! Translations and yaws are in model space ([`RootFrame`]): the blended translation is taken
//! from the root's parent space to model space before its held axes are kept, and the yaw is
//! that of the root's model-space rotation, so the world moves along the model's ground plane
//! and turns about the model's +Y.
//!
//! The root's tracks are sampled from a [`ClipSource`], as the GPU pipeline of the same clips
//! samples them: the exact keys ([`advance_root_motion`]) or the compressed clips
//! ([`advance_root_motion_from`] with [`ClipSource::Compressed`], what
//! [`crate::CpuBackend::advance_root_motion`] of [`crate::CpuBackend::with_compressed`] runs).
//! The CPU backend reads retargeted layers' roots through their maps, as the kernel does
//! ([`crate::CpuBackend::set_retargets`]).

use glam::{Quat, Vec3, Vec4};

use super::clip_source::{ClipSource, sample_channel_from};
use super::clock::{layer_unwrapped_time, layer_weight, wrap_time};
use super::retarget::{LayerClips, layer_channel, playing_clips};
use super::root_frame::RootFrame;
use crate::baked::retarget_map::RetargetBinding;
use crate::baked::{Channel, Rig};
use crate::instance::{InstanceRecord, LayerRecord, TimeWrap};
use crate::math::Mat3x4Rows;

/// π as the shader writes it.
const PI: f32 = std::f32::consts::PI;

/// `a` wrapped into `[−π, π)` (the short way round).
#[inline]
pub fn short_angle(a: f32) -> f32 {
    let cycle = 2.0 * PI;
    let x = a + PI;
    x - (x / cycle).floor() * cycle - PI
}

/// Translation of `joint` in `clip` at clip time `time`, from the exact key tracks.
#[inline]
pub fn root_translation(rig: &Rig, clip: u32, joint: usize, time: f32) -> Vec3 {
    root_translation_from(rig, ClipSource::Exact, clip, joint, time)
}

/// Translation of `joint` in `clip` at clip time `time`, sampled from `source` (the GPU's
/// compressed pipeline decodes it as [`ClipSource::Compressed`] does).
#[inline]
pub fn root_translation_from(
    rig: &Rig,
    source: ClipSource,
    clip: u32,
    joint: usize,
    time: f32,
) -> Vec3 {
    sample_channel_from(
        rig,
        source,
        clip as usize,
        joint,
        Channel::Translation,
        time,
    )
    .truncate()
}

/// Yaw (radians about model +Y, [`RootFrame::model_yaw`]) of `joint` in `clip` at clip time
/// `time`, `frame` being the joint's [`RootFrame`], from the exact key tracks.
#[inline]
pub fn root_yaw(rig: &Rig, frame: &RootFrame, clip: u32, joint: usize, time: f32) -> f32 {
    root_yaw_from(rig, ClipSource::Exact, frame, clip, joint, time)
}

/// [`root_yaw`] sampled from `source`.
#[inline]
pub fn root_yaw_from(
    rig: &Rig,
    source: ClipSource,
    frame: &RootFrame,
    clip: u32,
    joint: usize,
    time: f32,
) -> f32 {
    let q = sample_channel_from(rig, source, clip as usize, joint, Channel::Rotation, time);
    frame.model_yaw(Quat::from_vec4(q))
}

/// The root's motion in `layer` between frame times `prev` and `now`: translation in `xyz`
/// (in the root's parent space), yaw about model +Y in `w` when `yaw` (else 0), `frame` being
/// the root's [`RootFrame`], the root's tracks sampled from `source`. Zero for a clock that did
/// not move.
#[allow(clippy::too_many_arguments)]
pub fn layer_root_motion(
    rig: &Rig,
    source: ClipSource,
    frame: &RootFrame,
    layer: &LayerRecord,
    joint: usize,
    prev: f32,
    now: f32,
    yaw: bool,
) -> Vec4 {
    let clips = LayerClips::Own;
    layer_root_motion_with(rig, source, clips, frame, layer, joint, prev, now, yaw)
}

/// [`layer_root_motion`] with the root's channels read from `clips` (through a retarget map).
#[allow(clippy::too_many_arguments)]
fn layer_root_motion_with(
    rig: &Rig,
    source: ClipSource,
    clips: LayerClips,
    frame: &RootFrame,
    layer: &LayerRecord,
    joint: usize,
    prev: f32,
    now: f32,
    yaw: bool,
) -> Vec4 {
    if layer.rate == 0.0 && layer.rate_gain == 0.0 {
        return Vec4::ZERO;
    }
    let u_from = layer_unwrapped_time(layer, prev);
    let u_to = layer_unwrapped_time(layer, now);
    if u_from == u_to {
        return Vec4::ZERO;
    }
    let clip = layer.clip as usize;
    let at =
        |t: f32| layer_channel(rig, source, clips, clip, joint, Channel::Translation, t).truncate();
    let yaw_at = |t: f32| {
        let q = layer_channel(rig, source, clips, clip, joint, Channel::Rotation, t);
        frame.model_yaw(Quat::from_vec4(q))
    };
    let wrap = layer.wrap();
    let t_from = wrap_time(wrap, u_from, layer.period);
    let t_to = wrap_time(wrap, u_to, layer.period);
    let mut translation = at(t_to) - at(t_from);
    let mut turn = 0.0;
    if yaw {
        turn = short_angle(yaw_at(t_to) - yaw_at(t_from));
    }
    // A zero-length clip (a pose) has no cycles to count, and moves nothing across them.
    if wrap == TimeWrap::Loop && layer.period > 0.0 {
        let wraps = (u_to / layer.period).floor() - (u_from / layer.period).floor();
        if wraps != 0.0 {
            translation += (at(layer.period) - at(0.0)) * wraps;
            if yaw {
                turn += short_angle(yaw_at(layer.period) - yaw_at(0.0)) * wraps;
            }
        }
    }
    translation.extend(turn)
}

/// The blended root motion of `record`'s base layers between `prev` and `now`: translation in
/// model space (`xyz`, model Y zeroed unless the whole translation is held, all zero when none
/// is) and yaw about model +Y (`w`, 0 unless held), the root's tracks sampled from `source`.
pub fn root_motion_delta(
    rig: &Rig,
    source: ClipSource,
    record: &InstanceRecord,
    prev: f32,
    now: f32,
) -> Vec4 {
    root_motion_delta_with((&[], &[]), rig, source, record, prev, now)
}

/// [`root_motion_delta`] with retargeted layers read through `maps` (the backend's rigs and
/// retarget maps), as the kernel reads them.
fn root_motion_delta_with(
    maps: (&[Rig], &[RetargetBinding]),
    rig: &Rig,
    source: ClipSource,
    record: &InstanceRecord,
    prev: f32,
    now: f32,
) -> Vec4 {
    let flags = record.flags;
    let joint = (flags & InstanceRecord::ROOT_JOINT) as usize;
    if joint >= rig.joint_count() {
        return Vec4::ZERO;
    }
    let frame = RootFrame::of_root(rig, joint);
    let yaw = flags & InstanceRecord::HOLD_ROOT_YAW != 0;
    let mut motion = Vec4::ZERO;
    let mut above = 1.0;
    let mut k = record.base_layers();
    while k > 0 {
        k -= 1;
        let layer = &record.layers[k];
        if let Some(clips) = playing_clips(maps.0, maps.1, rig, record.rig, layer) {
            let w = layer_weight(layer, now).clamp(0.0, 1.0);
            let share = w * above;
            above *= 1.0 - w;
            if share > 0.0 {
                let (f, l) = (&frame, layer);
                motion +=
                    layer_root_motion_with(rig, source, clips, f, l, joint, prev, now, yaw) * share;
            }
        }
    }
    motion = frame.vector_to_model(motion.truncate()).extend(motion.w);
    if flags & InstanceRecord::HOLD_ROOT_XYZ == 0 {
        motion.y = 0.0;
        if flags & InstanceRecord::HOLD_ROOT_XZ == 0 {
            motion.x = 0.0;
            motion.z = 0.0;
        }
    }
    if !yaw {
        motion.w = 0.0;
    }
    motion
}

/// `world` moved by root motion `motion` (model-space translation in `xyz`, yaw in `w`): the
/// translation goes through `world`'s linear part, then the yaw turns it about its own +Y
/// (`world × RotY(yaw)`).
pub fn move_world(world: &Mat3x4Rows, motion: Vec4) -> Mat3x4Rows {
    let (s, c) = (motion.w.sin(), motion.w.cos());
    let mut out = *world;
    for r in &mut out.rows {
        let [x, y, z, t] = *r;
        let moved = t + x * motion.x + y * motion.y + z * motion.z;
        *r = [c * x - s * z, y, s * x + c * z, moved];
    }
    out
}

/// One evaluation's root motion of `record` (frame time `prev` to `now`), as the GPU kernel
/// runs it before propagation: nothing without [`InstanceRecord::GPU_ROOT_MOTION`]; a record
/// with [`InstanceRecord::WORLD_PLACED`] loses the flag and stays; any other has its `world`
/// moved by [`root_motion_delta`] (model space). Samples the exact key tracks, as the GPU's exact
/// pipeline does; [`advance_root_motion_from`] takes the source.
pub fn advance_root_motion(rig: &Rig, record: &mut InstanceRecord, prev: f32, now: f32) {
    advance_root_motion_from(rig, ClipSource::Exact, record, prev, now);
}

/// [`advance_root_motion`] with the root's tracks sampled from `source`:
/// [`ClipSource::Compressed`] is the twin of the GPU's compressed pipeline.
pub fn advance_root_motion_from(
    rig: &Rig,
    source: ClipSource,
    record: &mut InstanceRecord,
    prev: f32,
    now: f32,
) {
    advance_root_motion_with((&[], &[]), rig, source, record, prev, now);
}

/// [`advance_root_motion_from`] with retargeted layers read through `maps` (the backend's rigs
/// and retarget maps): the CPU backend's twin of the kernel's root motion.
pub(crate) fn advance_root_motion_with(
    maps: (&[Rig], &[RetargetBinding]),
    rig: &Rig,
    source: ClipSource,
    record: &mut InstanceRecord,
    prev: f32,
    now: f32,
) {
    let flags = record.flags;
    if flags & InstanceRecord::GPU_ROOT_MOTION == 0 {
        return;
    }
    if flags & InstanceRecord::WORLD_PLACED != 0 {
        record.flags = flags & !InstanceRecord::WORLD_PLACED;
        return;
    }
    let delta = root_motion_delta_with(maps, rig, source, record, prev, now);
    if delta == Vec4::ZERO {
        return;
    }
    record.world = move_world(&record.world, delta);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_angles_wrap_into_one_turn() {
        assert!((short_angle(0.5) - 0.5).abs() < 1e-6);
        assert!((short_angle(2.0 * PI - 0.25) + 0.25).abs() < 1e-5);
        assert!((short_angle(-2.0 * PI + 0.25) - 0.25).abs() < 1e-5);
    }

    #[test]
    fn moving_a_world_translates_in_its_frame_then_turns_it() {
        let world = Mat3x4Rows::from_affine(&glam::Affine3A::from_rotation_translation(
            Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
            Vec3::new(1.0, 2.0, 3.0),
        ));
        let moved = move_world(&world, Vec4::new(0.0, 0.0, 1.0, 0.5)).to_affine();
        // +Z of a world turned a quarter about +Y is +X.
        assert!((Vec3::from(moved.translation) - Vec3::new(2.0, 2.0, 3.0)).length() < 1e-6);
        let expected = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2 + 0.5);
        let turned = glam::Mat3::from(moved.matrix3);
        assert!(turned.abs_diff_eq(glam::Mat3::from_quat(expected), 1e-6));
    }
}

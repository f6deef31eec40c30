//! ACL's error metric: virtual vertices at a fixed distance from each joint along its three
//! model-space axes, the displacement between the exact and the compressed pose.

/// The most any morph weight may differ from its exact value (absolute, weights are 0..1).
pub const WEIGHT_ERROR_BUDGET: f32 = 1e-3;
/// Distance of the virtual vertices from their joint (metres).
pub const VIRTUAL_VERTEX_DISTANCE: f32 = 0.03;

use glam::{Affine3A, Vec3, Vec4};

use crate::baked::compressed::decode::sample_joint_compressed;
use crate::baked::compressed::effective_segments;
use crate::baked::propagate::propagate_joint;
use crate::baked::sample::{sample_joint, sample_track};
use crate::baked::{ClipLibrary, ClipSegment, CompressedClip, CompressedClips, Rig};

/// ACL's error of one joint: the largest displacement of its origin and of its three virtual
/// vertices between model matrices `exact` and `approx`. `offsets` places the vertices along
/// the joint's local axes at the distances that lie [`VIRTUAL_VERTEX_DISTANCE`] away in model
/// space in the rest pose ([`vertex_offsets`]), so joints that carry a scale are measured at
/// the same model-space distance as the others.
#[inline]
pub fn vertex_error(exact: &Affine3A, approx: &Affine3A, offsets: [f32; 3]) -> f32 {
    let dt = Vec3::from(exact.translation - approx.translation);
    let m = exact.matrix3 - approx.matrix3;
    [m.x_axis, m.y_axis, m.z_axis]
        .iter()
        .zip(offsets)
        .map(|(&axis, d)| (dt + Vec3::from(axis) * d).length())
        .fold(dt.length(), f32::max)
}

/// Per joint of `rig`, the local distances along its three axes that lie `distance` (rig
/// units; [`VIRTUAL_VERTEX_DISTANCE`] for a rig in metres) away in model space in the rest
/// pose.
pub fn vertex_offsets(rig: &Rig, distance: f32) -> Vec<[f32; 3]> {
    let parents = rig.skeleton.parents();
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    for (j, rest) in rig.skeleton.rest_pose().iter().enumerate() {
        models[j] = propagate_joint(parents[j], &Affine3A::IDENTITY, &models, rest);
    }
    models
        .iter()
        .map(|m| {
            [m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis]
                .map(|axis| distance / axis.length().max(1e-6))
        })
        .collect()
}

/// The most joint poses the error is measured on per clip (times × joints): a long clip of
/// many joints is measured at fewer points between frames (at least at every frame) so that
/// building stays within memory.
pub const MAX_MEASURED_POSES: usize = 1 << 21;

/// The times the error is measured at for a clip of `duration` seconds on `frame_count` frames
/// at `rate`, for a rig of `joints` joints: every frame time and seven more between two frames
/// (every eighth), fewer when that passes [`MAX_MEASURED_POSES`], inside `0..=duration`
/// (the decoder's corrected normalized lerp meets slerp at the midpoint and strays most between
/// it and the frames; a key between frames bends the exact curve anywhere).
pub fn dense_times(duration: f32, rate: f32, frame_count: u32, joints: usize) -> Vec<f32> {
    let grid = ClipSegment {
        start: 0.0,
        rate,
        first_frame: 0,
        intervals: frame_count.saturating_sub(1),
    };
    segment_dense_times(duration, &[grid], frame_count, joints)
}

/// [`dense_times`] of a clip on `segments` of `frame_count` frames in all: each segment's
/// frames and the times between them.
pub(super) fn segment_dense_times(
    duration: f32,
    segments: &[ClipSegment],
    frame_count: u32,
    joints: usize,
) -> Vec<f32> {
    let poses_per_part = (frame_count as usize).saturating_mul(joints.max(1));
    let parts = (MAX_MEASURED_POSES / poses_per_part.max(1)).clamp(1, 8);
    let mut times = Vec::with_capacity(frame_count as usize * parts);
    for (k, s) in segments.iter().enumerate() {
        // The last segment measures after its last frame too (times past the clip are cut).
        let frames = s.intervals + u32::from(k + 1 == segments.len());
        for f in 0..frames {
            for part in 0..parts {
                let x = (f64::from(f) + part as f64 / parts as f64) / f64::from(s.rate);
                let t = (f64::from(s.start) + x) as f32;
                if t <= duration && times.last().is_none_or(|&last| t > last) {
                    times.push(t);
                }
            }
        }
    }
    if times.last().is_none_or(|&last| last < duration) {
        times.push(duration);
    }
    times
}

/// The dense measuring times of clip `record` with segment table `table` (empty: one grid) for
/// a rig of `joints` joints.
pub(super) fn record_times(
    record: &CompressedClip,
    table: &[ClipSegment],
    joints: usize,
) -> Vec<f32> {
    let segments = effective_segments(record, table);
    segment_dense_times(record.duration, &segments, record.frame_count, joints)
}

/// Model matrices of every joint of `rig` at each of `times` (time-major: `t * joints + j`),
/// from the exact clips.
pub(super) fn exact_models(rig: &Rig, clip: usize, times: &[f32]) -> Vec<Affine3A> {
    let joints = rig.joint_count();
    let parents = rig.skeleton.parents();
    let mut models = vec![Affine3A::IDENTITY; times.len() * joints];
    for (t, &time) in times.iter().enumerate() {
        let pose = &mut models[t * joints..(t + 1) * joints];
        for j in 0..joints {
            let local = sample_joint(&rig.clips, clip, j, time);
            pose[j] = propagate_joint(parents[j], &Affine3A::IDENTITY, pose, &local);
        }
    }
    models
}

/// The exact weights of chunk `chunk` of `clip` at `time` (the defaults where the clip has no
/// weight track).
pub(super) fn exact_weights(lib: &ClipLibrary, clip: usize, chunk: usize, time: f32) -> Vec4 {
    match lib.weight_track(clip, chunk) {
        Some(desc) => sample_track(lib, desc, false, time),
        None => lib.value(lib.weight_default_offset() + chunk),
    }
}

/// ACL's error of compressed clip `clip` of `clips` against `rig`'s exact clips (metres, for a
/// rig of `units_per_metre`): the largest over joints and dense times, evaluated with the CPU
/// decoder.
pub(super) fn measure(
    rig: &Rig,
    clips: &CompressedClips,
    clip: usize,
    units_per_metre: f32,
) -> f32 {
    let record = &clips.clips()[clip];
    let offsets = vertex_offsets(rig, VIRTUAL_VERTEX_DISTANCE * units_per_metre);
    let times = record_times(record, clips.segments(clip), rig.joint_count());
    measure_at(rig, clips, clip, &times, &offsets) / units_per_metre
}

/// ACL's error of compressed clip `clip` of `clips` against `rig`'s exact clips (rig units):
/// the largest over joints at `times`, the virtual vertices at `offsets`
/// ([`vertex_offsets`]).
pub(super) fn measure_at(
    rig: &Rig,
    clips: &CompressedClips,
    clip: usize,
    times: &[f32],
    offsets: &[[f32; 3]],
) -> f32 {
    let joints = rig.joint_count();
    let parents = rig.skeleton.parents();
    let mut exact = vec![Affine3A::IDENTITY; joints];
    let mut approx = vec![Affine3A::IDENTITY; joints];
    let mut worst = 0.0f32;
    for &t in times {
        for j in 0..joints {
            let e = sample_joint(&rig.clips, clip, j, t);
            let a = sample_joint_compressed(rig, clips, clip, j, t);
            exact[j] = propagate_joint(parents[j], &Affine3A::IDENTITY, &exact, &e);
            approx[j] = propagate_joint(parents[j], &Affine3A::IDENTITY, &approx, &a);
            worst = worst.max(vertex_error(&exact[j], &approx[j], offsets[j]));
        }
    }
    worst
}

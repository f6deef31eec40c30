//! Stage 1, sample: the value of one track at one time. Twin of `wgsl/sample.wgsl`.

use glam::{Quat, Vec3, Vec4};

use crate::baked::{Channel, ClipLibrary, Interpolation, TrackDesc};
use crate::math::{Sqt, hermite, normalize_or_identity, slerp_shortest};

/// Index `k` of the key pair `[k, k + 1]` around `t`, for `t` strictly inside the key range of
/// a track with at least two keys. Tries the key a uniform spacing predicts (exact for evenly
/// spaced keys, the common case), then binary search. Either way the pair is the unique one
/// with `times[k] <= t < times[k + 1]`, so the result does not depend on the path taken.
#[inline]
pub fn find_key(times: &[f32], t: f32) -> usize {
    let last = times.len() - 1;
    let guess = ((t - times[0]) / (times[last] - times[0]) * last as f32) as usize;
    let guess = guess.min(last - 1);
    if times[guess] <= t && t < times[guess + 1] {
        return guess;
    }
    let mut lo = 0;
    let mut hi = last;
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if times[mid] <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Samples one track at `time` (clamped to its first and last key). Rotations come out as unit
/// quaternions in `xyzw`.
#[inline]
pub fn sample_track(lib: &ClipLibrary, desc: &TrackDesc, rotation: bool, time: f32) -> Vec4 {
    let n = desc.key_count as usize;
    let v0 = desc.value_offset as usize;
    if n == 1 {
        // Constant tracks (one key, including every rest-pose fallback) skip the time search.
        let centre = (desc.interpolation == Interpolation::CubicSpline as u32) as usize;
        return lib.value(v0 + centre);
    }
    let t0 = desc.time_offset as usize;
    let cubic = desc.interpolation == Interpolation::CubicSpline as u32;
    let (stride, centre) = if cubic { (3, 1) } else { (1, 0) };
    let key = |k: usize| lib.value(v0 + k * stride + centre);
    let times = &lib.times()[t0..t0 + n];
    if time <= times[0] {
        return key(0);
    }
    if time >= times[n - 1] {
        return key(n - 1);
    }
    let k = find_key(times, time);
    let dt = times[k + 1] - times[k];
    let u = (time - times[k]) / dt;
    match desc.interpolation {
        x if x == Interpolation::Step as u32 => key(k),
        x if x == Interpolation::Linear as u32 => {
            if rotation {
                Vec4::from(slerp_shortest(
                    Quat::from_vec4(key(k)),
                    Quat::from_vec4(key(k + 1)),
                    u,
                ))
            } else {
                key(k).lerp(key(k + 1), u)
            }
        }
        _ => {
            let out0 = lib.value(v0 + k * 3 + 2);
            let in1 = lib.value(v0 + (k + 1) * 3);
            let v = hermite(key(k), out0, in1, key(k + 1), dt, u);
            if rotation {
                Vec4::from(normalize_or_identity(Quat::from_vec4(v)))
            } else {
                v
            }
        }
    }
}

/// Samples joint `joint` of `clip` at `time`.
#[inline]
pub fn sample_joint(lib: &ClipLibrary, clip: usize, joint: usize, time: f32) -> Sqt {
    let t = sample_track(
        lib,
        lib.track(clip, joint, Channel::Translation),
        false,
        time,
    );
    let r = sample_track(lib, lib.track(clip, joint, Channel::Rotation), true, time);
    let s = sample_track(lib, lib.track(clip, joint, Channel::Scale), false, time);
    Sqt {
        translation: Vec3::new(t.x, t.y, t.z),
        rotation: Quat::from_vec4(r),
        scale: Vec3::new(s.x, s.y, s.z),
    }
}

/// Samples every joint of `clip` at `time` into `out` (one entry per joint).
pub fn sample_clip(lib: &ClipLibrary, clip: usize, time: f32, out: &mut [Sqt]) {
    for (joint, sqt) in out.iter_mut().enumerate() {
        *sqt = sample_joint(lib, clip, joint, time);
    }
}

//! What compressed clips cost where the motion is hard or empty: a joint turning past half a
//! turn between two keys costs only the frames around it, and channels that carry only float
//! noise cost nothing.

use glam::{Quat, Vec3, Vec4};
use sinew::import::{Channel, Interpolation, RawClip};
use sinew::{ClipLibrary, CompressedClips, DEFAULT_ERROR_BUDGET, Rig};

use super::common::repo;
use super::common::rigs::rigs_of;

/// The humanoid with clip `clip`'s raw tracks changed by `edit`, its compressed clips dropped.
fn edited(clip: usize, edit: impl Fn(&Rig, &mut RawClip)) -> Rig {
    let rig = rigs_of(&repo().join("assets/humanoid.glb")).remove(0);
    let mut raw = rig.clips.to_raw_clips();
    edit(&rig, &mut raw[clip]);
    let durations: Vec<f32> = rig.clips.clips().iter().map(|c| c.duration).collect();
    let mut out = rig.clone();
    out.clips = ClipLibrary::build_with_durations(&rig.skeleton, &raw, &durations, "edit").unwrap();
    out.compressed = None;
    out
}

/// Bytes of `rig`'s clips compressed to the default budget, after checking the budget holds.
fn compressed_bytes(rig: &Rig) -> usize {
    let c = CompressedClips::build(rig, DEFAULT_ERROR_BUDGET).unwrap();
    assert!(c.max_error() <= DEFAULT_ERROR_BUDGET, "{}", c.max_error());
    c.byte_size()
}

#[test]
fn a_joint_turning_past_half_a_turn_between_two_keys_costs_only_those_frames() {
    let walk = 1;
    let plain = edited(walk, |_, _| {});
    // The animated rotation with the most keys, from its middle key on turned 200 degrees
    // further about an axis across it: one interval turns past half a turn.
    let turned = edited(walk, |_, clip| {
        let track = clip
            .tracks
            .iter_mut()
            .filter(|t| t.channel == Channel::Rotation && t.interpolation == Interpolation::Linear)
            .max_by_key(|t| t.times.len())
            .unwrap();
        let turn = Quat::from_axis_angle(Vec3::new(1.0, 0.0, 1.0).normalize(), 200f32.to_radians());
        let middle = track.values.len() / 2;
        for v in &mut track.values[middle..] {
            *v = Vec4::from(turn * Quat::from_vec4(*v));
        }
    });
    let (before, after) = (compressed_bytes(&plain), compressed_bytes(&turned));
    eprintln!("a fast turn: {before} -> {after} bytes");
    assert!(
        after as f64 <= before as f64 * 1.25,
        "{before} -> {after} bytes"
    );
}

#[test]
fn channels_carrying_only_float_noise_cost_nothing() {
    let walk = 1;
    let plain = edited(walk, |_, _| {});
    // Every joint the clip leaves at rest gets translation keys at its rest value plus or
    // minus 1e-6 at each of the clip's key times.
    let noisy = edited(walk, |rig, clip| {
        let times = clip
            .tracks
            .iter()
            .max_by_key(|t| t.times.len())
            .unwrap()
            .times
            .clone();
        let moved: Vec<usize> = clip
            .tracks
            .iter()
            .filter(|t| t.channel == Channel::Translation)
            .map(|t| t.target)
            .collect();
        for (j, rest) in rig.skeleton.rest_pose().iter().enumerate() {
            if moved.contains(&j) {
                continue;
            }
            let values = (0..times.len())
                .map(|i| {
                    let noise = if i % 2 == 0 { 1e-6 } else { -1e-6 };
                    (rest.translation + Vec3::splat(noise)).extend(0.0)
                })
                .collect();
            clip.tracks.push(sinew::import::RawTrack {
                target: j,
                channel: Channel::Translation,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values,
            });
        }
    });
    // The noisy channels are stored as the rest they are: no value, no frame bits.
    let c = CompressedClips::build(&noisy, DEFAULT_ERROR_BUDGET).unwrap();
    let noisy_joints: Vec<usize> = (0..noisy.joint_count())
        .filter(|&j| noisy.clips.is_animated(walk, j, Channel::Translation))
        .filter(|&j| !plain.clips.is_animated(walk, j, Channel::Translation))
        .collect();
    assert!(!noisy_joints.is_empty());
    for &j in &noisy_joints {
        let code = c.clip_channels(walk)[j * 3];
        assert!(code.is_rest(), "joint {j}: {code:?}");
    }
    // The exact poses they give differ from the plain ones by the noise, so the other
    // channels' bit rates may move by a bit here and there, no more.
    let (before, after) = (compressed_bytes(&plain), compressed_bytes(&noisy));
    eprintln!("float noise: {before} -> {after} bytes");
    assert!(
        after as f64 <= before as f64 * 1.01,
        "{before} -> {after} bytes"
    );
}

//! FBX animation stacks → [`RawClip`]s: ufbx bakes each stack's layers into linear
//! translation, rotation and scale keys of every animated node's local transform, at the
//! curves' own key times where they are linear or dense enough, and sampled at the scene's
//! frame rate elsewhere (Euler or pre/post rotation curves between sparse keys). Exact at
//! every key; time 0 is the stack's start.

use glam::Vec4;

use super::{name_or, quat, vec3};
use crate::error::ImportErrorKind;
use crate::import::raw::{Channel, Interpolation, RawClip, RawTrack};

/// Sample rate for curves that need resampling when the file states no frame rate.
const FALLBACK_RATE: f64 = 30.0;

/// One [`RawClip`] per animation stack, in ufbx order, named after the stack.
pub(super) fn read_clips(scene: &ufbx::Scene) -> Result<Vec<RawClip>, ImportErrorKind> {
    let fps = scene.settings.frames_per_second;
    let rate = if fps.is_finite() && fps > 0.0 {
        fps
    } else {
        FALLBACK_RATE
    };
    let mut clips = Vec::with_capacity(scene.anim_stacks.len());
    for (s, stack) in scene.anim_stacks.iter().enumerate() {
        let name = name_or(&stack.element, || format!("animation{s}"));
        let opts = ufbx::BakeOpts {
            trim_start_time: true,
            resample_rate: rate,
            key_reduction_enabled: false,
            ..Default::default()
        };
        let baked = ufbx::bake_anim(scene, &stack.anim, opts).map_err(|e| {
            ImportErrorKind::Fbx(format!("animation stack {name:?}: {}", super::describe(&e)))
        })?;
        let mut tracks = Vec::new();
        for node in baked.nodes.iter() {
            let target = node.typed_id as usize;
            let Some(rest) = scene.nodes.get(target).map(|n| &n.local_transform) else {
                continue;
            };
            let t = node
                .translation_keys
                .iter()
                .map(|k| (k.time, v4(vec3(k.value))));
            let r = node
                .rotation_keys
                .iter()
                .map(|k| (k.time, Vec4::from(quat(k.value))));
            let sc = node.scale_keys.iter().map(|k| (k.time, v4(vec3(k.value))));
            let rests = [
                v4(vec3(rest.translation)),
                Vec4::from(quat(rest.rotation)),
                v4(vec3(rest.scale)),
            ];
            let constant = [
                node.constant_translation,
                node.constant_rotation,
                node.constant_scale,
            ];
            let keys: [Vec<(f64, Vec4)>; 3] = [t.collect(), r.collect(), sc.collect()];
            for ((channel, keys), (rest, constant)) in Channel::ALL
                .into_iter()
                .zip(keys)
                .zip(rests.into_iter().zip(constant))
            {
                if keys.is_empty() || (constant && keys.iter().all(|k| k.1 == rest)) {
                    continue;
                }
                tracks.push(track(target, channel, &keys));
            }
        }
        clips.push(RawClip {
            name,
            tracks,
            weights: Vec::new(),
        });
    }
    Ok(clips)
}

/// A linear track from baked keys; keys whose times become equal in `f32` keep the later value
/// (the right side of a step).
fn track(target: usize, channel: Channel, keys: &[(f64, Vec4)]) -> RawTrack {
    let mut times: Vec<f32> = Vec::with_capacity(keys.len());
    let mut values: Vec<Vec4> = Vec::with_capacity(keys.len());
    for &(time, value) in keys {
        let time = time as f32;
        match (times.last(), values.last_mut()) {
            (Some(&last), Some(previous)) if time <= last => *previous = value,
            _ => {
                times.push(time);
                values.push(value);
            }
        }
    }
    RawTrack {
        target,
        channel,
        interpolation: Interpolation::Linear,
        times,
        values,
    }
}

/// A vector as a key value (`w` zero).
fn v4(v: glam::Vec3) -> Vec4 {
    v.extend(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_meet_in_single_precision_keep_the_later_value() {
        let step = [
            (0.0, Vec4::ZERO),
            (1.0 - 1e-12, Vec4::ZERO),
            (1.0, Vec4::ONE),
            (2.0, Vec4::ONE),
        ];
        let t = track(3, Channel::Translation, &step);
        assert_eq!(t.times, [0.0, 1.0, 2.0]);
        assert_eq!(t.values, [Vec4::ZERO, Vec4::ONE, Vec4::ONE]);
        assert_eq!((t.target, t.interpolation), (3, Interpolation::Linear));
    }
}

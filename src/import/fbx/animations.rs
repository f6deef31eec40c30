//! FBX animation stacks → [`RawClip`]s: ufbx bakes each stack's layers into translation,
//! rotation and scale keys of every animated node's local transform, at the curves' own key
//! times where they are linear or dense enough, and sampled at the scene's frame rate elsewhere
//! (Euler or pre/post rotation curves between sparse keys); `curves.rs` then gives every key
//! ufbx's evaluated value and adds keys until linear interpolation stays within
//! [`FBX_CURVE_ERROR`](super::FBX_CURVE_ERROR) of the curves (steps only: a step track). A
//! clip spans its stack's time range: time 0 is the stack's start, and keys before the start
//! or after the end (tools write them, Maya's clips often start at frame 1) are cut at the
//! range's ends, where a key takes the value between its neighbours.

use glam::{Quat, Vec4};

use super::curves::{self, BakedKey, FBX_VIRTUAL_VERTEX, Metric};
use super::{name_or, quat, vec3};
use crate::error::ImportErrorKind;
use crate::import::raw::{Channel, Interpolation, RawClip, RawTrack};
use crate::math::slerp_shortest;

/// Sample rate for curves that need resampling when the file states no frame rate.
const FALLBACK_RATE: f64 = 30.0;
/// Samples ufbx may bake between two keys of a curve (its default, 32, samples spans longer
/// than a second at 30 fps more sparsely than the frame rate; this, spans up to two minutes).
const MAX_KEYFRAME_SEGMENTS: usize = 4096;

/// One [`RawClip`] per animation stack, in ufbx order, named after the stack.
pub(super) fn read_clips(scene: &ufbx::Scene) -> Result<Vec<RawClip>, ImportErrorKind> {
    let fps = scene.settings.frames_per_second;
    let rate = if fps.is_finite() && fps > 0.0 {
        fps
    } else {
        FALLBACK_RATE
    };
    let distances = curves::virtual_vertex_distances(scene);
    let mut clips = Vec::with_capacity(scene.anim_stacks.len());
    for (s, stack) in scene.anim_stacks.iter().enumerate() {
        let name = name_or(&stack.element, || format!("animation{s}"));
        let opts = ufbx::BakeOpts {
            trim_start_time: false,
            resample_rate: rate,
            key_reduction_enabled: false,
            max_keyframe_segments: MAX_KEYFRAME_SEGMENTS,
            ..Default::default()
        };
        let baked = ufbx::bake_anim(scene, &stack.anim, opts).map_err(|e| {
            ImportErrorKind::Fbx(format!("animation stack {name:?}: {}", super::describe(&e)))
        })?;
        let span = Span::of(stack, &baked);
        let mut tracks = Vec::new();
        for node in baked.nodes.iter() {
            let target = node.typed_id as usize;
            let Some(model) = scene.nodes.get(target) else {
                continue;
            };
            let rest = &model.local_transform;
            let key = |time: f64, value: Vec4, flags| BakedKey::new(time, value, flags);
            let t = node
                .translation_keys
                .iter()
                .map(|k| key(k.time, v4(vec3(k.value)), k.flags));
            let r = node
                .rotation_keys
                .iter()
                .map(|k| key(k.time, Vec4::from(quat(k.value)), k.flags));
            let sc = node
                .scale_keys
                .iter()
                .map(|k| key(k.time, v4(vec3(k.value)), k.flags));
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
            let keys: [Vec<BakedKey>; 3] = [t.collect(), r.collect(), sc.collect()];
            for ((channel, keys), (rest, constant)) in Channel::ALL
                .into_iter()
                .zip(keys)
                .zip(rests.into_iter().zip(constant))
            {
                if keys.is_empty() || (constant && keys.iter().all(|k| k.value == rest)) {
                    continue;
                }
                let evaluate = |time| evaluate(&stack.anim, model, channel, time);
                let metric = Metric {
                    channel,
                    distance: distances.get(target).copied().unwrap_or(FBX_VIRTUAL_VERTEX),
                };
                let fitted = curves::fit(&keys, metric, evaluate);
                let blend = match (fitted.interpolation, channel) {
                    (Interpolation::Step, _) => Blend::Hold,
                    (_, Channel::Rotation) => Blend::Slerp,
                    _ => Blend::Lerp,
                };
                let keys = span.cut(&fitted.keys, blend);
                tracks.push(track(target, channel, fitted.interpolation, &keys));
            }
        }
        clips.push(RawClip {
            name,
            tracks,
            weights: super::blend_shapes::weight_tracks(scene, &stack.anim, &baked, span),
            markers: Vec::new(),
        });
    }
    Ok(clips)
}

/// ufbx's evaluation of `channel` of `node`'s local transform at `time` (the file's seconds).
fn evaluate(anim: &ufbx::Anim, node: &ufbx::Node, channel: Channel, time: f64) -> Vec4 {
    let transform = ufbx::evaluate_transform(anim, node, time);
    match channel {
        Channel::Translation => v4(vec3(transform.translation)),
        Channel::Rotation => Vec4::from(quat(transform.rotation)),
        Channel::Scale => v4(vec3(transform.scale)),
    }
}

/// How a track's values are found between its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Blend {
    /// Linear.
    Lerp,
    /// Shortest-arc slerp (rotations).
    Slerp,
    /// The earlier key's value.
    Hold,
}

/// The time range of a stack's clip, in the file's seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Span {
    begin: f64,
    end: f64,
}

impl Span {
    /// The stack's time range, or the range of its keys where the stack states none.
    fn of(stack: &ufbx::AnimStack, baked: &ufbx::BakedAnim) -> Self {
        let stated = stack.time_begin.is_finite()
            && stack.time_end.is_finite()
            && stack.time_end > stack.time_begin;
        if stated {
            Self {
                begin: stack.time_begin,
                end: stack.time_end,
            }
        } else {
            Self {
                begin: baked.key_time_min.min(baked.key_time_max),
                end: baked.key_time_max,
            }
        }
    }

    /// `keys` (sorted by time) within the span, timed from its start: keys outside are dropped,
    /// and where the track crosses an end a key is placed there with the value the linear track
    /// has (as `blend` finds it). A track wholly before or after the span becomes one key, its
    /// value at the nearer end.
    pub(super) fn cut(&self, keys: &[(f64, Vec4)], blend: Blend) -> Vec<(f64, Vec4)> {
        let at = |time: f64| value_at(keys, time, blend);
        let inside = keys
            .iter()
            .filter(|k| k.0 >= self.begin && k.0 <= self.end)
            .map(|&(t, v)| (t - self.begin, v));
        let mut out = Vec::with_capacity(keys.len() + 2);
        if keys.first().is_none_or(|k| k.0 < self.begin) {
            out.push((0.0, at(self.begin)));
        }
        out.extend(inside);
        if keys.last().is_some_and(|k| k.0 > self.end)
            && keys.first().is_some_and(|k| k.0 < self.end)
        {
            out.push((self.end - self.begin, at(self.end)));
        }
        if out.is_empty() {
            out.push((0.0, at(self.begin)));
        }
        out
    }
}

/// The value of the track `keys` at `time`: held before the first key and after the last.
pub(super) fn value_at(keys: &[(f64, Vec4)], time: f64, blend: Blend) -> Vec4 {
    let next = keys.partition_point(|k| k.0 <= time);
    match (
        next.checked_sub(1).and_then(|i| keys.get(i)),
        keys.get(next),
    ) {
        (Some(a), Some(b)) => {
            let t = ((time - a.0) / (b.0 - a.0)) as f32;
            match blend {
                Blend::Slerp => Vec4::from(slerp_shortest(
                    Quat::from_vec4(a.1),
                    Quat::from_vec4(b.1),
                    t,
                )),
                Blend::Lerp => a.1.lerp(b.1, t),
                Blend::Hold => a.1,
            }
        }
        (Some(a), None) => a.1,
        (None, Some(b)) => b.1,
        (None, None) => Vec4::ZERO,
    }
}

/// A track from baked keys; keys whose times become equal in `f32` keep the later value (the
/// right side of a step).
fn track(
    target: usize,
    channel: Channel,
    interpolation: Interpolation,
    keys: &[(f64, Vec4)],
) -> RawTrack {
    let (times, values) = single_precision(keys.iter().copied());
    RawTrack {
        target,
        channel,
        interpolation,
        times,
        values,
    }
}

/// Keys (sorted by time) with single-precision times; keys whose times become equal in `f32`
/// keep the later value (the right side of a step).
pub(super) fn single_precision<T>(keys: impl IntoIterator<Item = (f64, T)>) -> (Vec<f32>, Vec<T>) {
    let mut times: Vec<f32> = Vec::new();
    let mut values: Vec<T> = Vec::new();
    for (time, value) in keys {
        let time = time as f32;
        match (times.last(), values.last_mut()) {
            (Some(&last), Some(previous)) if time <= last => *previous = value,
            _ => {
                times.push(time);
                values.push(value);
            }
        }
    }
    (times, values)
}

/// A vector as a key value (`w` zero).
fn v4(v: glam::Vec3) -> Vec4 {
    v.extend(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_outside_the_span_are_cut_at_its_ends() {
        let span = Span {
            begin: 1.0,
            end: 2.0,
        };
        let keys = [
            (0.5, Vec4::ZERO),
            (1.5, Vec4::splat(100.0)),
            (2.5, Vec4::ZERO),
        ];
        let cut = span.cut(&keys, Blend::Lerp);
        assert_eq!(
            cut,
            [
                (0.0, Vec4::splat(50.0)),
                (0.5, Vec4::splat(100.0)),
                (1.0, Vec4::splat(50.0))
            ]
        );
        // Keys only before the span: one key, the last value.
        let before = span.cut(&keys[..1], Blend::Lerp);
        assert_eq!(before, [(0.0, Vec4::ZERO)]);
        // Keys only after it: one key at the start, the first value.
        let after = span.cut(&keys[2..], Blend::Lerp);
        assert_eq!(after, [(0.0, Vec4::ZERO)]);
        // Rotations take the slerped value.
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let turn = [(0.0, Vec4::W), (2.0, Vec4::new(0.0, 0.0, 1.0, 0.0))];
        let cut = span.cut(&turn, Blend::Slerp);
        assert!((cut[0].1 - Vec4::new(0.0, 0.0, half, half)).length() < 1e-6);
    }

    #[test]
    fn keys_that_meet_in_single_precision_keep_the_later_value() {
        let step = [
            (0.0, Vec4::ZERO),
            (1.0 - 1e-12, Vec4::ZERO),
            (1.0, Vec4::ONE),
            (2.0, Vec4::ONE),
        ];
        let t = track(3, Channel::Translation, Interpolation::Linear, &step);
        assert_eq!(t.times, [0.0, 1.0, 2.0]);
        assert_eq!(t.values, [Vec4::ZERO, Vec4::ONE, Vec4::ONE]);
        assert_eq!((t.target, t.interpolation), (3, Interpolation::Linear));
    }
}

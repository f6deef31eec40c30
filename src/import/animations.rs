//! Animations: channels → tracks with validated, strictly increasing key times.

use std::collections::HashSet;

use glam::{Quat, Vec4};
use gltf::Document;
use gltf::accessor::Dimensions;
use gltf::animation::Property;

use super::accessor::{F32, Format, INT8_INT16, read_accessor};
use super::document::Buffers;
use super::markers::read_markers;
use super::raw::{Channel, Interpolation, RawClip, RawTrack};
use crate::error::ImportErrorKind;
use crate::math::QUAT_EPSILON;

const TIMES: Format = Format {
    usage: "animation key times",
    dims: Dimensions::Scalar,
    plain: F32,
    normalized: &[],
    vertex: false,
    bounds: true,
};
const VEC3_KEYS: Format = Format {
    usage: "translation or scale keys",
    dims: Dimensions::Vec3,
    plain: F32,
    normalized: &[],
    vertex: false,
    bounds: false,
};
const ROTATION_KEYS: Format = Format {
    usage: "rotation keys",
    dims: Dimensions::Vec4,
    plain: F32,
    normalized: INT8_INT16,
    vertex: false,
    bounds: false,
};

/// Reads every animation: joint channels become tracks, morph-target `weights` channels weight
/// tracks. `ignored[a]`: channels of animation `a` dropped before parsing for naming no node
/// (such an animation still has channels, so it is no error).
pub(crate) fn read_animations(
    doc: &Document,
    buffers: &Buffers,
    ignored: &[usize],
) -> Result<Vec<RawClip>, ImportErrorKind> {
    doc.animations()
        .map(|anim| {
            let a = anim.index();
            let name = anim.name().unwrap_or("").to_string();
            let mut tracks = Vec::new();
            let mut weights = Vec::new();
            let mut channels = 0;
            let mut animated = HashSet::new();
            for (c, channel) in anim.channels().enumerate() {
                channels += 1;
                let sampler = channel.sampler();
                let (times, _) = read_accessor(&sampler.input(), buffers, &TIMES)?;
                check_times(&times, a, c)?;
                let property = channel.target().property();
                let node = channel.target().node();
                if !animated.insert((node.index(), property_name(property))) {
                    return Err(ImportErrorKind::DuplicateChannel {
                        animation: a,
                        target: node
                            .name()
                            .map_or_else(|| format!("node{}", node.index()), str::to_string),
                        channel: property_name(property),
                    });
                }
                let interpolation = match sampler.interpolation() {
                    gltf::animation::Interpolation::Step => Interpolation::Step,
                    gltf::animation::Interpolation::Linear => Interpolation::Linear,
                    gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
                };
                let per_key = if interpolation == Interpolation::CubicSpline {
                    3
                } else {
                    1
                };
                if interpolation == Interpolation::CubicSpline && times.len() < 2 {
                    return Err(ImportErrorKind::ChannelRule {
                        animation: a,
                        channel: c,
                        reason: "a CUBICSPLINE sampler needs at least 2 keys, this one has 1"
                            .into(),
                    });
                }
                let (kind, format) = match property {
                    Property::Translation => (Channel::Translation, &VEC3_KEYS),
                    Property::Rotation => (Channel::Rotation, &ROTATION_KEYS),
                    Property::Scale => (Channel::Scale, &VEC3_KEYS),
                    Property::MorphTargetWeights => {
                        let track = super::morph::read_weight_track(
                            &channel, times, buffers, a, c, &weights,
                        )?;
                        weights.push(track);
                        continue;
                    }
                };
                let (raw, comps) = read_accessor::<f32>(&sampler.output(), buffers, format)?;
                let value_count = raw.len() / comps;
                if value_count != times.len() * per_key {
                    return Err(ImportErrorKind::KeyCount {
                        animation: a,
                        channel: c,
                        times: times.len(),
                        values: value_count / per_key,
                    });
                }
                if raw.iter().any(|v| !v.is_finite()) {
                    return Err(ImportErrorKind::NonFinite {
                        object: format!("animation {a} channel {c} key values"),
                    });
                }
                let mut values: Vec<Vec4> = raw
                    .chunks_exact(comps)
                    .map(|v| match comps {
                        3 => Vec4::new(v[0], v[1], v[2], 0.0),
                        _ => Vec4::new(v[0], v[1], v[2], v[3]),
                    })
                    .collect();
                if kind == Channel::Rotation {
                    normalize_rotation_keys(&mut values, per_key, a, c)?;
                }
                tracks.push(RawTrack {
                    target: node.index(),
                    channel: kind,
                    interpolation,
                    times,
                    values,
                });
            }
            // A clip whose keys all sit at one instant (one key per channel: a pose) is valid
            // and lasts zero seconds; only an animation without channels has no length at all.
            if channels == 0 && ignored.get(a).copied().unwrap_or(0) == 0 {
                return Err(ImportErrorKind::ZeroLengthClip { animation: a, name });
            }
            Ok(RawClip {
                name,
                tracks,
                weights,
                markers: read_markers(anim.extras().as_deref(), a)?,
            })
        })
        .collect()
}

/// The glTF name of an animated property.
fn property_name(property: Property) -> &'static str {
    match property {
        Property::Translation => Channel::Translation.name(),
        Property::Rotation => Channel::Rotation.name(),
        Property::Scale => Channel::Scale.name(),
        Property::MorphTargetWeights => "weights",
    }
}

/// Key times must be finite, non-negative and strictly increasing, with at least one key.
fn check_times(times: &[f32], animation: usize, channel: usize) -> Result<(), ImportErrorKind> {
    let bad = |key| ImportErrorKind::KeyTimes {
        animation,
        channel,
        key,
    };
    if times.is_empty() {
        return Err(ImportErrorKind::KeyCount {
            animation,
            channel,
            times: 0,
            values: 0,
        });
    }
    for (k, &t) in times.iter().enumerate() {
        if !t.is_finite() || t < 0.0 || (k > 0 && t <= times[k - 1]) {
            return Err(bad(k));
        }
    }
    Ok(())
}

/// Rotation key values (not tangents) become unit quaternions; a zero quaternion is an error.
fn normalize_rotation_keys(
    values: &mut [Vec4],
    per_key: usize,
    animation: usize,
    channel: usize,
) -> Result<(), ImportErrorKind> {
    let value_slot = if per_key == 3 { 1 } else { 0 };
    for (k, key) in values.chunks_exact_mut(per_key).enumerate() {
        let q = key[value_slot];
        if q.length_squared() < QUAT_EPSILON {
            return Err(ImportErrorKind::ZeroRotation {
                animation,
                channel,
                key: k,
            });
        }
        key[value_slot] = Vec4::from(Quat::from_vec4(q).normalize());
    }
    Ok(())
}

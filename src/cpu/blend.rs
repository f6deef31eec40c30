//! Stage 2, blend: layers combined in SQT space with per-joint masks → local pose.
//! Twin of `blend_layers` in `wgsl/evaluate.wgsl`.

use glam::{Quat, Vec3};

use super::clip_source::ClipSource;
use super::retarget::{LayerClips, sample_layer_joint};
use super::root_frame::RootFrame;
use crate::baked::Rig;
use crate::error::EvalError;
use crate::instance::{BlendMode, InstanceRecord, Layer, MAX_LAYERS};
use crate::mask::JointMask;
use crate::math::{Sqt, normalize_or_identity};

/// Checks that every layer names an existing clip and mask and has finite numbers.
pub fn validate_layers(rig: &Rig, masks: &[JointMask], layers: &[Layer]) -> Result<(), EvalError> {
    if layers.len() > MAX_LAYERS {
        return Err(EvalError::BadLayer {
            reason: format!("{} layers, at most {MAX_LAYERS}", layers.len()),
        });
    }
    for layer in layers {
        if layer.clip as usize >= rig.clips.clip_count() {
            return Err(EvalError::NoSuchClip {
                clip: layer.clip,
                clip_count: rig.clips.clip_count(),
            });
        }
        validate_layer_parts(rig, masks, layer)?;
    }
    Ok(())
}

/// [`validate_layers`] for one layer, but for its clip (a retargeted layer's is another rig's).
pub(crate) fn validate_layer_parts(
    rig: &Rig,
    masks: &[JointMask],
    layer: &Layer,
) -> Result<(), EvalError> {
    if let Some(m) = layer.mask {
        match masks.get(m as usize) {
            Some(mask) if mask.weights.len() == rig.joint_count() && mask.is_valid() => {}
            Some(mask) if mask.weights.len() == rig.joint_count() => {
                return Err(EvalError::BadLayer {
                    reason: format!("mask {m} has a weight that is not a number from 0 to 1"),
                });
            }
            _ => {
                return Err(EvalError::NoSuchMask {
                    mask: m,
                    mask_count: masks.len(),
                });
            }
        }
    }
    if !layer.time.is_finite() || !layer.weight.is_finite() {
        return Err(EvalError::BadLayer {
            reason: format!(
                "clip {} has time {} weight {}",
                layer.clip, layer.time, layer.weight
            ),
        });
    }
    Ok(())
}

/// The blended local transform of `joint`: start from the rest pose, then apply each layer,
/// bottom first, with weight `layer.weight × mask[joint]` (clamped to 0..1 for override layers).
/// The layers under the topmost one that hides them there (`Layer::hides_lower`) are not
/// sampled: the result is the same.
#[inline]
pub fn blend_joint(rig: &Rig, masks: &[JointMask], layers: &[Layer], joint: usize) -> Sqt {
    blend_joint_from(rig, ClipSource::Exact, masks, layers, joint)
}

/// [`blend_joint`] with the clips sampled from `source`.
#[inline]
pub fn blend_joint_from(
    rig: &Rig,
    source: ClipSource,
    masks: &[JointMask],
    layers: &[Layer],
    joint: usize,
) -> Sqt {
    blend_joint_with(rig, source, masks, layers, &[], joint)
}

/// [`blend_joint_from`] with layer `i` sampled from `clips[i]` (its own clip past the end of
/// `clips`): retargeted layers read their map's source rig.
#[inline]
pub(crate) fn blend_joint_with(
    rig: &Rig,
    source: ClipSource,
    masks: &[JointMask],
    layers: &[Layer],
    clips: &[LayerClips],
    joint: usize,
) -> Sqt {
    let rest = rig.skeleton.rest_pose()[joint];
    let weight =
        |layer: &Layer| layer.weight * layer.mask.map_or(1.0, |m| masks[m as usize].weights[joint]);
    let first = layers
        .iter()
        .rposition(|layer| layer.hides_lower(weight(layer)))
        .unwrap_or(0);
    let mut pose = rest;
    for (i, layer) in layers.iter().enumerate().skip(first) {
        let w = weight(layer);
        if w <= 0.0 {
            continue;
        }
        let from = clips.get(i).copied().unwrap_or_default();
        let sample = sample_layer_joint(rig, source, from, layer.clip as usize, joint, layer.time);
        pose = match layer.mode {
            BlendMode::Override if w >= 1.0 => sample,
            BlendMode::Override => pose.blend_toward(&sample, w),
            BlendMode::Additive => pose.add_delta(&sample.delta_from(&rest), w),
        };
    }
    pose
}

/// Blends every joint into `locals`. Layers must have passed [`validate_layers`].
pub fn blend_layers(rig: &Rig, masks: &[JointMask], layers: &[Layer], locals: &mut [Sqt]) {
    for (joint, local) in locals.iter_mut().enumerate() {
        *local = blend_joint(rig, masks, layers, joint);
    }
}

/// Root-motion removal, applied after blending to the one joint named by `flags` (an
/// [`InstanceRecord::flags`] value): puts the held parts of `pose` back to the joint's rest value
/// in model space ([`RootFrame`]) and returns every other joint's `pose` unchanged. The held
/// translation keeps the root's model-space X and Z at rest (`HOLD_ROOT_XZ`, the height stays
/// in the pose) or all of it (`HOLD_ROOT_XYZ`); the held yaw swaps the twist about model +Y of
/// the root's model-space rotation for the rest pose's. Twin in wgsl: the same test and the
/// same operations on that joint's blended SQT, before propagation. The root's frame is
/// [`RootFrame::of_root`]; [`hold_root_in_frame`] takes it from a table instead.
#[inline]
pub fn hold_root(rig: &Rig, flags: u32, joint: usize, pose: Sqt) -> Sqt {
    if !holds_joint(flags, joint) {
        return pose;
    }
    let rest = &rig.skeleton.rest_pose()[joint];
    hold_root_in_frame(&RootFrame::of_root(rig, joint), rest, flags, joint, pose)
}

/// [`hold_root`] with the root's [`RootFrame`] `frame` and rest transform `rest` given.
#[inline]
pub fn hold_root_in_frame(
    frame: &RootFrame,
    rest: &Sqt,
    flags: u32,
    joint: usize,
    pose: Sqt,
) -> Sqt {
    if !holds_joint(flags, joint) {
        return pose;
    }
    let mut out = pose;
    if flags & InstanceRecord::HOLD_ROOT_XYZ != 0 {
        out.translation = rest.translation;
    } else if flags & InstanceRecord::HOLD_ROOT_XZ != 0 {
        let moved = frame.vector_to_model(pose.translation);
        let held = frame.vector_to_model(rest.translation);
        out.translation = frame.vector_from_model(Vec3::new(held.x, moved.y, held.z));
    }
    if flags & InstanceRecord::HOLD_ROOT_YAW != 0 {
        // model = yaw * rest-of-pose; swap its yaw for the rest pose's, back in parent space.
        let model = frame.rotation_to_model(pose.rotation);
        let rest_yaw = yaw_twist(frame.rotation_to_model(rest.rotation));
        let swapped = rest_yaw * yaw_twist(model).conjugate();
        out.rotation = normalize_or_identity(frame.rotation_from_model(swapped * model));
    }
    out
}

/// Whether `flags` hold any part of `joint`.
#[inline]
fn holds_joint(flags: u32, joint: usize) -> bool {
    const HOLD: u32 = InstanceRecord::HOLD_ROOT_XZ
        | InstanceRecord::HOLD_ROOT_XYZ
        | InstanceRecord::HOLD_ROOT_YAW;
    flags & HOLD != 0 && (flags & InstanceRecord::ROOT_JOINT) as usize == joint
}

/// The rotation about +Y in `q`'s swing-twist decomposition (identity when undefined).
#[inline]
fn yaw_twist(q: Quat) -> Quat {
    normalize_or_identity(Quat::from_xyzw(0.0, q.y, 0.0, q.w))
}

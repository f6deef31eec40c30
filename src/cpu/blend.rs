//! Stage 2, blend: layers combined in SQT space with per-joint masks → local pose.
//! Twin of `blend_layers` in `wgsl/evaluate.wgsl`.

use super::sample::sample_joint;
use crate::bake::Rig;
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
    }
    Ok(())
}

/// The blended local transform of `joint`: start from the rest pose, then apply each layer,
/// bottom first, with weight `layer.weight × mask[joint]` (clamped to 0..1 for override layers).
#[inline]
pub fn blend_joint(rig: &Rig, masks: &[JointMask], layers: &[Layer], joint: usize) -> Sqt {
    let rest = rig.skeleton.rest_pose()[joint];
    let mut pose = rest;
    for layer in layers {
        let mask = layer.mask.map_or(1.0, |m| masks[m as usize].weights[joint]);
        let w = layer.weight * mask;
        if w <= 0.0 {
            continue;
        }
        let sample = sample_joint(&rig.clips, layer.clip as usize, joint, layer.time);
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
/// and returns every other joint's `pose` unchanged. Twin in wgsl: the same test and the same
/// three operations on that joint's blended SQT, before propagation.
#[inline]
pub fn hold_root(rig: &Rig, flags: u32, joint: usize, pose: Sqt) -> Sqt {
    const HOLD: u32 = InstanceRecord::HOLD_ROOT_XZ
        | InstanceRecord::HOLD_ROOT_XYZ
        | InstanceRecord::HOLD_ROOT_YAW;
    if flags & HOLD == 0 || (flags & InstanceRecord::ROOT_JOINT) as usize != joint {
        return pose;
    }
    let rest = rig.skeleton.rest_pose()[joint];
    let mut out = pose;
    if flags & InstanceRecord::HOLD_ROOT_XYZ != 0 {
        out.translation = rest.translation;
    } else if flags & InstanceRecord::HOLD_ROOT_XZ != 0 {
        out.translation.x = rest.translation.x;
        out.translation.z = rest.translation.z;
    }
    if flags & InstanceRecord::HOLD_ROOT_YAW != 0 {
        // pose = yaw * rest-of-pose; swap its yaw for the rest pose's.
        let swapped = yaw_twist(rest.rotation) * yaw_twist(pose.rotation).conjugate();
        out.rotation = normalize_or_identity(swapped * pose.rotation);
    }
    out
}

/// The rotation about +Y in `q`'s swing-twist decomposition (identity when undefined).
#[inline]
fn yaw_twist(q: glam::Quat) -> glam::Quat {
    normalize_or_identity(glam::Quat::from_xyzw(0.0, q.y, 0.0, q.w))
}

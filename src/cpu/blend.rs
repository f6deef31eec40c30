//! Stage 2, blend: layers combined in SQT space with per-joint masks → local pose.
//! Twin of `blend_layers` in `wgsl/evaluate.wgsl`.

use super::sample::sample_joint;
use crate::bake::Rig;
use crate::error::EvalError;
use crate::instance::{BlendMode, Layer, MAX_LAYERS};
use crate::mask::JointMask;
use crate::math::Sqt;

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
                Some(mask) if mask.weights.len() == rig.joint_count() => {}
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

//! The pose of a rig playing another file's clip through a retarget map (`sinew pose
//! --clips-from`), as a [`PoseEvaluator`] on the CPU twin of the kernel's retarget stage.

use glam::Affine3A;

use super::PoseEvaluator;
use crate::baked::Rig;
use crate::baked::retarget_map::{RetargetMap, UserMap};
use crate::cpu::{local_to_model, retarget_pose, skin_palette};
use crate::error::RetargetError;
use crate::instance::Layer;
use crate::math::{Mat3x4Rows, MirrorPlane};

/// Evaluates a target rig with the clips of `source`: each rig it is asked for gets a map from
/// `source`'s skeleton (by `user`, the humanoid profile and names), mirrored when asked. A frame
/// without layers is the target's rest pose; a layer's clip is `source`'s.
pub struct RetargetPose {
    source: Rig,
    user: Option<UserMap>,
    mirror: bool,
}

impl RetargetPose {
    /// An evaluator playing `source`'s clips through maps built with `user`, mirrored across
    /// X = 0 when `mirror`.
    pub fn new(source: Rig, user: Option<UserMap>, mirror: bool) -> Self {
        Self {
            source,
            user,
            mirror,
        }
    }

    /// The map this evaluator uses for `target`.
    pub fn map_for(&self, target: &Rig) -> Result<RetargetMap, RetargetError> {
        let map = RetargetMap::build(&self.source.skeleton, &target.skeleton, self.user.as_ref())?;
        if self.mirror {
            map.mirrored(&target.skeleton, MirrorPlane::X)
        } else {
            Ok(map)
        }
    }
}

impl PoseEvaluator for RetargetPose {
    fn evaluate(
        &mut self,
        rig: &Rig,
        layers: &[Layer],
    ) -> Result<(Vec<Affine3A>, Vec<Mat3x4Rows>), String> {
        let n = rig.joint_count();
        let mut locals = rig.skeleton.rest_pose().to_vec();
        if let Some(layer) = layers.first() {
            let clip = layer.clip as usize;
            let count = self.source.clips.clip_count();
            if clip >= count {
                return Err(format!("clip {clip}: the source has {count}"));
            }
            let map = self.map_for(rig).map_err(|e| e.to_string())?;
            retarget_pose(&map, &self.source, clip, layer.time, &mut locals);
        }
        let mut models = vec![Affine3A::IDENTITY; n];
        local_to_model(&rig.skeleton, &Affine3A::IDENTITY, &locals, &mut models);
        let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries().max(n)];
        skin_palette(&rig.skeleton, &models, &mut palette[..n]);
        Ok((models, palette))
    }
}

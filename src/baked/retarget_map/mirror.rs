//! Mirror maps: each joint driven by its left/right partner (`LeftArm` ↔ `RightArm`,
//! `upper_arm.L` ↔ `upper_arm.R`), the sample reflected by a plane. With rest world rotations
//! `R`, partner `m` of joint `j` and `M(·)` the reflection, the mirror's corrections are
//! `pre = R_pj⁻¹ M(R_pm)` and `post = M(R_m⁻¹) R_j`: the mirror of the rest pose is the rest
//! pose, and a mirror mirrored again is the identity.

use super::names::{Side, read};
use super::rest::RestWorld;
use super::{RetargetEntry, RetargetMap, Translation};
use crate::baked::Skeleton;
use crate::error::RetargetError;
use crate::math::MirrorPlane;

/// Each joint's mirror partner: the joint of the other side with the same name otherwise
/// (centre joints and joints without a partner are their own). Fails when two joints of one
/// side read alike (`Left_Arm` and `LeftArm`).
pub fn mirror_partners(skeleton: &Skeleton) -> Result<Vec<usize>, RetargetError> {
    let names: Vec<_> = skeleton.names().iter().map(|n| read(n)).collect();
    let mut partners: Vec<usize> = (0..names.len()).collect();
    for (j, name) in names.iter().enumerate() {
        if name.side == Side::Centre {
            continue;
        }
        let same_side = names
            .iter()
            .enumerate()
            .find(|&(k, other)| k != j && other.side == name.side && other.full == name.full);
        if let Some((k, _)) = same_side {
            return Err(RetargetError::new(
                "-",
                format!("joint \"{}\"", skeleton.names()[j]),
                format!(
                    "reads as the same side and name as \"{}\": its mirror partner is ambiguous",
                    skeleton.names()[k]
                ),
            ));
        }
        if let Some(k) = names
            .iter()
            .position(|o| o.side != Side::Centre && o.side != name.side && o.full == name.full)
        {
            partners[j] = k;
        }
    }
    Ok(partners)
}

impl RetargetMap {
    /// This map followed by the mirror of its target skeleton `target` across `plane`: each
    /// target joint takes its partner's retargeted pose, reflected. Fails as
    /// [`mirror_partners`] does, or when `target` is not this map's target.
    pub fn mirrored(&self, target: &Skeleton, plane: MirrorPlane) -> Result<Self, RetargetError> {
        if target.joint_count() != self.entries.len() {
            return Err(RetargetError::new(
                "-",
                "mirror",
                format!(
                    "the skeleton has {} joints, the map's target {}",
                    target.joint_count(),
                    self.entries.len()
                ),
            ));
        }
        let partners = mirror_partners(target)?;
        let rest = RestWorld::of(target);
        let m = |q| plane.reflect_rotation(q);
        let entries = (0..partners.len())
            .map(|j| {
                let k = partners[j];
                let pre =
                    rest.parent_rotation(target, j).inverse() * m(rest.parent_rotation(target, k));
                let post = m(rest.rotations[k].inverse()) * rest.rotations[j];
                let r = &self.entries[k];
                let translation = match r.translation {
                    Translation::Constant(c) => {
                        Translation::Constant(pre * plane.reflect_vector(c))
                    }
                    source => source,
                };
                match r.source {
                    Some(_) => RetargetEntry {
                        source: r.source,
                        reflect: !r.reflect,
                        pre: pre * m(r.pre),
                        post: m(r.post) * post,
                        translation,
                        scale: r.scale,
                    },
                    None => RetargetEntry {
                        source: None,
                        reflect: false,
                        pre: pre * m(r.pre) * post,
                        post: glam::Quat::IDENTITY,
                        translation,
                        scale: r.scale,
                    },
                }
            })
            .collect();
        Ok(Self {
            entries,
            plane,
            source_joints: self.source_joints,
            report: self.report.clone(),
        })
    }
}

//! Per-joint layer masks: a weight from 0 to 1 for every joint of one skeleton.

use crate::baked::Skeleton;
use crate::error::ImportErrorKind;

/// A weight per joint that scales a layer's influence.
#[derive(Clone, Debug, PartialEq)]
pub struct JointMask {
    /// One weight per joint, 0 to 1.
    pub weights: Vec<f32>,
}

impl JointMask {
    /// Every joint at `weight`.
    pub fn uniform(skeleton: &Skeleton, weight: f32) -> Self {
        Self {
            weights: vec![weight; skeleton.joint_count()],
        }
    }

    /// Weight 1 on the named joints and everything below them, 0 elsewhere
    /// ("upper body from Spine").
    pub fn from_subtrees(skeleton: &Skeleton, roots: &[&str]) -> Result<Self, ImportErrorKind> {
        let roots = find_all(skeleton, roots)?;
        Ok(Self {
            weights: (0..skeleton.joint_count())
                .map(|j| {
                    if roots.iter().any(|&r| skeleton.is_in_subtree(j, r)) {
                        1.0
                    } else {
                        0.0
                    }
                })
                .collect(),
        })
    }

    /// Weight 1 on exactly the named joints.
    pub fn from_joints(skeleton: &Skeleton, joints: &[&str]) -> Result<Self, ImportErrorKind> {
        let mut weights = vec![0.0; skeleton.joint_count()];
        for j in find_all(skeleton, joints)? {
            weights[j] = 1.0;
        }
        Ok(Self { weights })
    }

    /// Whether every weight is a finite number from 0 to 1 (what the evaluators accept).
    pub fn is_valid(&self) -> bool {
        self.weights.iter().all(|w| (0.0..=1.0).contains(w))
    }

    /// `1 - weight` on every joint.
    pub fn inverted(&self) -> Self {
        Self {
            weights: self.weights.iter().map(|w| 1.0 - w).collect(),
        }
    }
}

fn find_all(skeleton: &Skeleton, names: &[&str]) -> Result<Vec<usize>, ImportErrorKind> {
    names
        .iter()
        .map(|n| {
            skeleton
                .find_joint(n)
                .ok_or_else(|| ImportErrorKind::NotFound {
                    what: format!("joint {n:?}"),
                })
        })
        .collect()
}

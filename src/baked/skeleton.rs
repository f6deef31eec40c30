//! The runtime skeleton: joints parent-before-child, grouped by depth level.

use glam::Affine3A;

use crate::math::Sqt;

/// The most joints one skeleton may have. One GPU workgroup evaluates one skeleton instance and
/// keeps all its joint matrices in workgroup memory (48 bytes each, 12 KiB at this limit, inside
/// wgpu's 16 KiB default), so this is a property of the GPU design, not just a number.
pub const MAX_JOINTS: usize = 256;

/// Parent index of a root joint.
pub const NO_PARENT: u16 = u16::MAX;

/// An immutable skeleton: joints sorted by depth (so every parent precedes its children and each
/// depth level is one contiguous range), rest pose, inverse bind matrices and names.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    pub(crate) names: Vec<String>,
    pub(crate) parents: Vec<u16>,
    pub(crate) level_starts: Vec<u16>,
    pub(crate) rest: Vec<Sqt>,
    pub(crate) inverse_binds: Vec<Affine3A>,
    pub(crate) source_nodes: Vec<u32>,
}

impl Skeleton {
    /// Number of joints.
    pub fn joint_count(&self) -> usize {
        self.parents.len()
    }

    /// Joint names, in joint order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Parent of each joint ([`NO_PARENT`] for roots); always lower than the joint's own index.
    pub fn parents(&self) -> &[u16] {
        &self.parents
    }

    /// Number of depth levels (1 for a skeleton of roots only).
    pub fn level_count(&self) -> usize {
        self.level_starts.len() - 1
    }

    /// Joints at depth `level`, a contiguous index range.
    pub fn level(&self, level: usize) -> std::ops::Range<usize> {
        self.level_starts[level] as usize..self.level_starts[level + 1] as usize
    }

    /// First joint index of each level, plus the joint count at the end.
    pub fn level_starts(&self) -> &[u16] {
        &self.level_starts
    }

    /// The rest (bind-time node) pose of every joint.
    pub fn rest_pose(&self) -> &[Sqt] {
        &self.rest
    }

    /// Inverse bind matrix of every joint (identity for joints no skin binds).
    pub fn inverse_binds(&self) -> &[Affine3A] {
        &self.inverse_binds
    }

    /// The glTF node each joint came from.
    pub fn source_nodes(&self) -> &[u32] {
        &self.source_nodes
    }

    /// Index of the joint named `name`.
    pub fn find_joint(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Index of the joint made from glTF node `node`.
    pub fn joint_of_node(&self, node: usize) -> Option<usize> {
        self.source_nodes.iter().position(|&n| n as usize == node)
    }

    /// A root joint with identity rest pose and inverse bind, whose palette entry is therefore
    /// the instance's model transform: where vertices without weights are bound.
    pub fn model_joint(&self) -> Option<usize> {
        (0..self.joint_count()).find(|&j| {
            self.parents[j] == NO_PARENT
                && self.rest[j] == Sqt::IDENTITY
                && self.inverse_binds[j] == Affine3A::IDENTITY
        })
    }

    /// Whether `joint` is `ancestor` or lies below it.
    pub fn is_in_subtree(&self, joint: usize, ancestor: usize) -> bool {
        let mut at = joint;
        loop {
            if at == ancestor {
                return true;
            }
            match self.parents[at] {
                NO_PARENT => return false,
                p => at = p as usize,
            }
        }
    }
}

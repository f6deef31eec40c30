//! The runtime skeleton: joints parent-before-child, grouped by depth level.

use glam::{Affine3A, Mat4};

use crate::error::{ImportError, ImportErrorKind};
use crate::import::RawAsset;
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
    /// Builds the skeleton holding `seeds` (glTF node indices) and all their ancestors, so a
    /// joint's model matrix includes non-joint ancestors. `inverse_binds` gives the inverse bind
    /// matrix of some nodes; the others get identity. `object` names the rig in errors.
    ///
    /// Fails when a seed, a bind's node or an ancestor's parent is not a node of `asset`, when
    /// the ancestors form a cycle, when a joint's rest pose or an inverse bind matrix is not
    /// finite, or when the rig needs more than [`MAX_JOINTS`] joints.
    pub fn from_nodes(
        asset: &RawAsset,
        seeds: &[usize],
        inverse_binds: &[(usize, Mat4)],
        object: &str,
    ) -> Result<Self, ImportError> {
        let fail = |kind| ImportError::new(&asset.file, kind);
        let depths = depths(asset, seeds, object)?;
        let count = depths.iter().flatten().count();
        if count > MAX_JOINTS {
            return Err(fail(ImportErrorKind::TooManyJoints {
                object: object.to_string(),
                count,
                limit: MAX_JOINTS,
            }));
        }
        let mut order: Vec<(usize, usize)> = depths
            .iter()
            .enumerate()
            .filter_map(|(n, d)| d.map(|d| (d, n)))
            .collect();
        order.sort_unstable();
        if let Some(&(_, n)) = order
            .iter()
            .find(|&&(_, n)| !asset.nodes[n].rest.is_finite())
        {
            return Err(fail(ImportErrorKind::NonFinite {
                object: format!("node {n} transform"),
            }));
        }
        let mut joint_of = vec![u16::MAX; asset.nodes.len()];
        for (j, &(_, n)) in order.iter().enumerate() {
            joint_of[n] = j as u16;
        }
        let mut ibm = vec![Affine3A::IDENTITY; order.len()];
        for (k, &(node, m)) in inverse_binds.iter().enumerate() {
            let what = || format!("{object} inverse bind {k}");
            let joint = *joint_of.get(node).ok_or_else(|| {
                fail(ImportErrorKind::IndexOutOfRange {
                    object: what(),
                    what: "node",
                    index: node,
                    count: asset.nodes.len(),
                })
            })?;
            if !m.is_finite() {
                return Err(fail(ImportErrorKind::NonFinite { object: what() }));
            }
            if joint != u16::MAX {
                ibm[joint as usize] = Affine3A::from_mat4(m);
            }
        }
        let mut level_starts = Vec::new();
        for (j, &(d, _)) in order.iter().enumerate() {
            while level_starts.len() <= d {
                level_starts.push(j as u16);
            }
        }
        level_starts.push(order.len() as u16);
        Ok(Self {
            names: order
                .iter()
                .map(|&(_, n)| asset.nodes[n].name.clone())
                .collect(),
            parents: order
                .iter()
                .map(|&(_, n)| asset.nodes[n].parent.map_or(NO_PARENT, |p| joint_of[p]))
                .collect(),
            level_starts,
            rest: order.iter().map(|&(_, n)| asset.nodes[n].rest).collect(),
            inverse_binds: ibm,
            source_nodes: order.iter().map(|&(_, n)| n as u32).collect(),
        })
    }

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

/// The depth of every node the skeleton of `seeds` holds (the seeds and their ancestors),
/// `None` for the others. Each node is walked once; a walk that meets its own path again has
/// found a parent cycle.
fn depths(
    asset: &RawAsset,
    seeds: &[usize],
    object: &str,
) -> Result<Vec<Option<usize>>, ImportError> {
    let nodes = &asset.nodes;
    let fail = |kind| ImportError::new(&asset.file, kind);
    let mut depth: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut on_path = vec![false; nodes.len()];
    let mut path = Vec::new();
    for (k, &seed) in seeds.iter().enumerate() {
        if seed >= nodes.len() {
            return Err(fail(ImportErrorKind::IndexOutOfRange {
                object: format!("{object} joint {k}"),
                what: "node",
                index: seed,
                count: nodes.len(),
            }));
        }
        let mut at = seed;
        // Depth of the first node above the path, or 0 when the path ends at a root.
        let top = loop {
            if let Some(d) = depth[at] {
                break d + 1;
            }
            if std::mem::replace(&mut on_path[at], true) {
                return Err(fail(ImportErrorKind::NodeGraph {
                    node: at,
                    reason: "node hierarchy contains a cycle".into(),
                }));
            }
            path.push(at);
            match nodes[at].parent {
                None => break 0,
                Some(p) if p < nodes.len() => at = p,
                Some(p) => {
                    return Err(fail(ImportErrorKind::NodeGraph {
                        node: at,
                        reason: format!(
                            "parent {p} is out of range (there are {} nodes)",
                            nodes.len()
                        ),
                    }));
                }
            }
        };
        for (d, &n) in path.iter().rev().enumerate() {
            depth[n] = Some(top + d);
            on_path[n] = false;
        }
        path.clear();
    }
    Ok(depth)
}

//! Skeletons built from imported nodes: the seeds and their ancestors, sorted by depth.

use glam::{Affine3A, Mat4};

use crate::baked::{MAX_JOINTS, NO_PARENT, Skeleton};
use crate::error::{ImportError, ImportErrorKind};
use crate::import::RawAsset;

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

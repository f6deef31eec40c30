//! Which glTF skins animate one skeleton, and the alias joints that let skins binding the same
//! node differently share it.
//!
//! Two skins share a hierarchy when some joint of one and some joint of the other lie under the
//! same topmost ancestor (root node of the scene forest). Each such group becomes one rig,
//! evaluated once per instance. A group whose skeleton would exceed [`MAX_JOINTS`] is split back
//! into one rig per skin (see [`super::bake_rigs`]).

use glam::Affine3A;

use crate::baked::{MAX_JOINTS, NO_PARENT, Skeleton};
use crate::import::RawAsset;

/// The skins of `asset` grouped by shared hierarchy, each group ascending, groups ordered by
/// their first skin.
pub(crate) fn skin_groups(asset: &RawAsset) -> Vec<Vec<usize>> {
    // Union-find over skins; `owner[root]` is the first skin seen under that root node.
    let mut parent: Vec<usize> = (0..asset.skins.len()).collect();
    fn find(parent: &mut [usize], mut s: usize) -> usize {
        while parent[s] != s {
            parent[s] = parent[parent[s]];
            s = parent[s];
        }
        s
    }
    let mut owner = vec![usize::MAX; asset.nodes.len()];
    for (s, skin) in asset.skins.iter().enumerate() {
        for &joint in &skin.joints {
            let Some(root) = top_ancestor(asset, joint) else {
                continue;
            };
            if owner[root] == usize::MAX {
                owner[root] = s;
                continue;
            }
            let (a, b) = (find(&mut parent, owner[root]), find(&mut parent, s));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of = vec![usize::MAX; asset.skins.len()];
    for s in 0..asset.skins.len() {
        let r = find(&mut parent, s);
        if group_of[r] == usize::MAX {
            group_of[r] = groups.len();
            groups.push(Vec::new());
        }
        groups[group_of[r]].push(s);
    }
    groups
}

/// The topmost ancestor of `node`, or `None` when `node` or an ancestor is out of range or the
/// parents form a cycle (the skeleton builder reports those).
pub(crate) fn top_ancestor(asset: &RawAsset, node: usize) -> Option<usize> {
    let mut at = node;
    for _ in 0..=asset.nodes.len() {
        match asset.nodes.get(at)?.parent {
            None => return Some(at),
            Some(p) => at = p,
        }
    }
    None
}

/// An extra joint to add: a child of `of` with identity rest and no tracks, bound with its own
/// inverse bind matrix, so its palette entry is `of`'s world × `inverse_bind`. Without `of` it
/// is a root whose palette entry is the instance's model transform × `inverse_bind`.
pub(crate) struct Alias {
    /// The joint it aliases, or `None` for a new root.
    pub of: Option<u16>,
    /// Its inverse bind matrix.
    pub inverse_bind: Affine3A,
    /// Its name.
    pub name: String,
}

/// `skeleton` with `aliases` added, each one level below the joint it aliases (so joints stay
/// sorted by depth), and the new index of every old joint followed by the index of every alias.
/// An alias keeps its joint's source node, so tracks and node lookups find the original joint;
/// a new root has source node `u32::MAX`.
///
/// Fails with the joint count needed when the result would exceed [`MAX_JOINTS`].
pub(crate) fn with_aliases(
    skeleton: &Skeleton,
    aliases: &[Alias],
) -> Result<(Skeleton, Vec<u16>), usize> {
    let n = skeleton.joint_count();
    let total = n + aliases.len();
    if total > MAX_JOINTS {
        return Err(total);
    }
    let mut depth = vec![0usize; n];
    for level in 0..skeleton.level_count() {
        for j in skeleton.level(level) {
            depth[j] = level;
        }
    }
    // (depth, entry): entries 0..n are the old joints, n.. the aliases; a stable order keeps
    // the old joints' relative order.
    let mut order: Vec<(usize, usize)> = (0..n).map(|j| (depth[j], j)).collect();
    order.extend(
        aliases
            .iter()
            .enumerate()
            .map(|(k, a)| (a.of.map_or(0, |of| depth[of as usize] + 1), n + k)),
    );
    order.sort_unstable();
    let mut new_index = vec![0u16; total];
    for (i, &(_, e)) in order.iter().enumerate() {
        new_index[e] = i as u16;
    }
    let mut out = Skeleton {
        names: Vec::with_capacity(total),
        parents: Vec::with_capacity(total),
        level_starts: Vec::new(),
        rest: Vec::with_capacity(total),
        inverse_binds: Vec::with_capacity(total),
        source_nodes: Vec::with_capacity(total),
    };
    for (i, &(d, e)) in order.iter().enumerate() {
        while out.level_starts.len() <= d {
            out.level_starts.push(i as u16);
        }
        if e < n {
            let p = skeleton.parents[e];
            out.names.push(skeleton.names[e].clone());
            out.parents.push(if p == NO_PARENT {
                NO_PARENT
            } else {
                new_index[p as usize]
            });
            out.rest.push(skeleton.rest[e]);
            out.inverse_binds.push(skeleton.inverse_binds[e]);
            out.source_nodes.push(skeleton.source_nodes[e]);
        } else {
            let a = &aliases[e - n];
            out.names.push(a.name.clone());
            out.parents
                .push(a.of.map_or(NO_PARENT, |of| new_index[of as usize]));
            out.rest.push(crate::math::Sqt::IDENTITY);
            out.inverse_binds.push(a.inverse_bind);
            // A new root comes from no node.
            out.source_nodes
                .push(a.of.map_or(u32::MAX, |of| skeleton.source_nodes[of as usize]));
        }
    }
    out.level_starts.push(total as u16);
    Ok((out, new_index))
}

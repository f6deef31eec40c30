//! Rigs baked from an imported file: one per group of skins sharing a skeleton, or one over the
//! animated nodes.

use glam::{Affine3A, Mat4};

use super::clip_library::check_track;
use super::morph;
use super::skeleton_groups::{Alias, skin_groups, top_ancestor, with_aliases};
use crate::baked::ik::RigIk;
use crate::baked::{ClipLibrary, Rig, RigMorph, RigSkin, Skeleton, SkinnedMesh};
use crate::error::{ImportError, ImportErrorKind};
use crate::import::{RawAsset, RawClip, RawMesh, RawSkin};
use crate::math::Aabb;

/// Where a skin joint's palette entry comes from while a rig is built.
enum Slot {
    /// A joint of the skeleton before aliases.
    Joint(u16),
    /// The alias with this number.
    Alias(usize),
}

/// Skin `skin` of `asset`, checked: it exists, has joints, no joint twice and one inverse bind
/// matrix per joint.
fn checked_skin(asset: &RawAsset, skin: usize) -> Result<&RawSkin, ImportError> {
    let fail =
        |reason: String| ImportError::new(&asset.file, ImportErrorKind::Skin { skin, reason });
    let s = asset.skins.get(skin).ok_or_else(|| {
        fail(format!(
            "does not exist (there are {} skins)",
            asset.skins.len()
        ))
    })?;
    if s.joints.is_empty() {
        return Err(fail("skin has no joints".into()));
    }
    if s.inverse_binds.len() != s.joints.len() {
        return Err(fail(format!(
            "{} inverse bind matrices for {} joints",
            s.inverse_binds.len(),
            s.joints.len()
        )));
    }
    let mut sorted = s.joints.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(fail(format!(
            "node {} appears twice in the joint list",
            w[0]
        )));
    }
    Ok(s)
}

impl Rig {
    /// Bakes glTF skin `skin` of `asset` alone with all of the asset's animations, as
    /// [`Rig::from_skins`] does for one skin.
    pub fn from_skin(asset: &RawAsset, skin: usize) -> Result<Self, ImportError> {
        Self::from_skins(asset, &[skin])
    }

    /// Bakes glTF skins `skins` of `asset` into one rig over one skeleton (the union of their
    /// joints and the joints' ancestors), with all of the asset's animations, every mesh the
    /// skins deform and every rigid mesh (a mesh node without a skin) under the same root
    /// nodes, which follows its node. A node two skins bind with different inverse bind
    /// matrices gets an alias joint for the later skin (see `skeleton_groups.rs`), as does a
    /// rigid mesh's node that a skin binds with a matrix other than the identity.
    ///
    /// Fails when `skins` is empty, a skin is not a skin of `asset`, has no joints, a joint twice, or not one
    /// inverse bind matrix per joint, or when the skeleton ([`Skeleton::from_nodes`], at most
    /// [`crate::MAX_JOINTS`] joints with aliases), a mesh ([`SkinnedMesh::build`]) or the
    /// asset's clips ([`ClipLibrary::build`]) cannot be baked.
    pub fn from_skins(asset: &RawAsset, skins: &[usize]) -> Result<Self, ImportError> {
        let roots: Vec<usize> = skins
            .iter()
            .filter_map(|&s| asset.skins.get(s))
            .flat_map(|s| s.joints.iter().filter_map(|&j| top_ancestor(asset, j)))
            .collect();
        let rigid = rigid_meshes_under(asset, &roots);
        Self::from_group(asset, skins, &rigid)
    }

    /// [`Rig::from_skins`] with the rigid meshes (indices into `asset.meshes`) given.
    fn from_group(asset: &RawAsset, skins: &[usize], rigid: &[usize]) -> Result<Self, ImportError> {
        if skins.is_empty() {
            return Err(ImportError::new(
                &asset.file,
                ImportErrorKind::NotFound {
                    what: "a skin to bake (the skin list is empty)".into(),
                },
            ));
        }
        let mut seeds = Vec::new();
        let mut binds: Vec<(usize, Mat4)> = Vec::new();
        let mut names = Vec::new();
        for &skin in skins {
            let s = checked_skin(asset, skin)?;
            names.push(s.name.clone().unwrap_or_else(|| format!("skin{skin}")));
            seeds.extend_from_slice(&s.joints);
            for (&node, &m) in s.joints.iter().zip(&s.inverse_binds) {
                // The skeleton gets each node's first bind; later ones are checked below.
                if !binds.iter().any(|&(n, _)| n == node) {
                    binds.push((node, m));
                }
            }
        }
        // A rigid mesh binds its own node with the identity: its positions are in the node's space.
        for &m in rigid {
            let node = asset.meshes[m].node;
            seeds.push(node);
            if !binds.iter().any(|&(n, _)| n == node) {
                binds.push((node, Mat4::IDENTITY));
            }
        }
        let name = names.join("+");
        let object = match skins {
            [skin] => format!("skin {skin} ({name})"),
            _ => format!("skins {skins:?} ({name})"),
        };
        let fail = |kind| ImportError::new(&asset.file, kind);
        let base = Skeleton::from_nodes(asset, &seeds, &binds, &object)?;
        // Each node keeps the first bind a skin gives it; a later, different one is an alias.
        let mut first_bind: Vec<Option<Affine3A>> = vec![None; base.joint_count()];
        let mut aliases = Vec::new();
        let mut maps = Vec::new();
        for (&skin, skin_name) in skins.iter().zip(&names) {
            let s = &asset.skins[skin];
            let mut map = Vec::with_capacity(s.joints.len());
            for (&node, m) in s.joints.iter().zip(&s.inverse_binds) {
                let m = Affine3A::from_mat4(*m);
                // Every skin joint is a seed of `base`, so the fallback is never taken.
                let joint = base.joint_of_node(node).unwrap_or(0);
                match first_bind[joint] {
                    None => {
                        first_bind[joint] = Some(m);
                        map.push(Slot::Joint(joint as u16));
                    }
                    Some(b) if b == m => map.push(Slot::Joint(joint as u16)),
                    Some(_) => {
                        map.push(Slot::Alias(aliases.len()));
                        aliases.push(Alias {
                            of: Some(joint as u16),
                            inverse_bind: m,
                            name: format!("{}#{skin_name}", base.names()[joint]),
                        });
                    }
                }
            }
            maps.push(map);
        }
        // Each rigid mesh's slot: its node's joint where bound with the identity, else an alias
        // of it (one per node).
        let mut rigid_slots = Vec::with_capacity(rigid.len());
        let mut node_aliases: Vec<(usize, usize)> = Vec::new();
        for &m in rigid {
            let node = asset.meshes[m].node;
            // Every rigid mesh's node is a seed of `base`, so the fallback is never taken.
            let joint = base.joint_of_node(node).unwrap_or(0);
            let slot = match first_bind[joint] {
                None => {
                    first_bind[joint] = Some(Affine3A::IDENTITY);
                    Slot::Joint(joint as u16)
                }
                Some(b) if b == Affine3A::IDENTITY => Slot::Joint(joint as u16),
                Some(_) => match node_aliases.iter().find(|&&(n, _)| n == node) {
                    Some(&(_, k)) => Slot::Alias(k),
                    None => {
                        node_aliases.push((node, aliases.len()));
                        aliases.push(Alias {
                            of: Some(joint as u16),
                            inverse_bind: Affine3A::IDENTITY,
                            name: format!("{}#node", base.names()[joint]),
                        });
                        Slot::Alias(aliases.len() - 1)
                    }
                },
            };
            rigid_slots.push(slot);
        }
        let group_meshes: Vec<&RawMesh> = asset
            .meshes
            .iter()
            .filter(|m| m.skin.is_some_and(|s| skins.contains(&s)))
            .collect();
        let has_rigid = group_meshes
            .iter()
            .any(|m| m.weights.iter().any(|w| w.iter().all(|&x| x == 0.0)));
        if has_rigid && base.model_joint().is_none() {
            aliases.push(Alias {
                of: None,
                inverse_bind: Affine3A::IDENTITY,
                name: format!("{name}#model"),
            });
        }
        let (skeleton, new_index) = with_aliases(&base, &aliases).map_err(|count| {
            fail(ImportErrorKind::TooManyJoints {
                object: object.clone(),
                count,
                limit: crate::MAX_JOINTS,
            })
        })?;
        let n = base.joint_count();
        let joint_of = |slot: &Slot| match *slot {
            Slot::Joint(j) => new_index[j as usize],
            Slot::Alias(k) => new_index[n + k],
        };
        let rig_skins: Vec<RigSkin> = skins
            .iter()
            .zip(names)
            .zip(maps)
            .map(|((&index, name), map)| RigSkin {
                index,
                name,
                joints: map.iter().map(joint_of).collect(),
            })
            .collect();
        let rig_morph = RigMorph::build(asset, &skeleton, skins, &object)?;
        let mut meshes = Vec::new();
        for m in group_meshes {
            if let Some(rs) = rig_skins.iter().find(|rs| Some(rs.index) == m.skin) {
                meshes.push(baked_mesh(asset, m, &skeleton, &rs.joints, &rig_morph)?);
            }
        }
        for (&m, slot) in rigid.iter().zip(&rigid_slots) {
            let raw = &asset.meshes[m];
            meshes.push(baked_mesh(
                asset,
                raw,
                &skeleton,
                &[joint_of(slot)],
                &rig_morph,
            )?);
        }
        Self::assemble(asset, name, skeleton, meshes, rig_skins, rig_morph)
    }

    /// Bakes a rig over glTF nodes `nodes` (and their ancestors), without a skin: how node
    /// animation such as a rigid object's is evaluated. Every rigid mesh (a mesh node without a
    /// skin) on one of `nodes` is drawn with it, following its node. Fails as
    /// [`Skeleton::from_nodes`], [`SkinnedMesh::build`] and [`ClipLibrary::build`] do.
    pub fn from_nodes(asset: &RawAsset, nodes: &[usize], name: &str) -> Result<Self, ImportError> {
        let skeleton = Skeleton::from_nodes(asset, nodes, &[], name)?;
        let rig_morph = RigMorph::build(asset, &skeleton, &[], name)?;
        let mut meshes = Vec::new();
        for raw in asset.meshes.iter().filter(|m| m.skin.is_none()) {
            if !nodes.contains(&raw.node) {
                continue;
            }
            // Every node in `nodes` is a joint of the skeleton, so the fallback is never taken.
            let joint = skeleton.joint_of_node(raw.node).unwrap_or(0) as u16;
            meshes.push(baked_mesh(asset, raw, &skeleton, &[joint], &rig_morph)?);
        }
        Self::assemble(
            asset,
            name.to_string(),
            skeleton,
            meshes,
            Vec::new(),
            rig_morph,
        )
    }

    fn assemble(
        asset: &RawAsset,
        name: String,
        skeleton: Skeleton,
        meshes: Vec<SkinnedMesh>,
        skins: Vec<RigSkin>,
        rig_morph: RigMorph,
    ) -> Result<Self, ImportError> {
        // Checked here, numbered as in the asset: the library below sees only this rig's tracks.
        for (c, clip) in asset.clips.iter().enumerate() {
            for (k, track) in clip.tracks.iter().enumerate() {
                check_target(asset, track.target, c, k)?;
                check_track(track, c, k, &asset.file)?;
            }
        }
        let raw_clips: Vec<RawClip> = asset
            .clips
            .iter()
            .map(|clip| RawClip {
                name: clip.name.clone(),
                tracks: clip
                    .tracks
                    .iter()
                    .filter_map(|t| {
                        let joint = skeleton.joint_of_node(t.target)?;
                        Some(crate::import::RawTrack {
                            target: joint,
                            ..t.clone()
                        })
                    })
                    .collect(),
                weights: clip.weights.clone(),
                markers: clip.markers.clone(),
            })
            .collect();
        // Durations come from the whole animation, not just the tracks this rig keeps.
        let mut clips = ClipLibrary::build_with_durations(
            &skeleton,
            &raw_clips,
            &asset
                .clips
                .iter()
                .map(RawClip::duration)
                .collect::<Vec<_>>(),
            &asset.file,
        )?;
        morph::bake_weight_tracks(&mut clips, &rig_morph, &raw_clips, &asset.file)?;
        let mut joint_bounds = vec![Aabb::EMPTY; skeleton.joint_count()];
        for mesh in &meshes {
            for (acc, b) in joint_bounds.iter_mut().zip(&mesh.joint_bounds) {
                acc.merge(b);
            }
        }
        Ok(Self {
            name,
            skeleton,
            clips,
            meshes,
            skins,
            joint_bounds,
            morph: rig_morph,
            ik: RigIk::NONE,
            compressed: None,
        })
    }
}

/// Checks that track `channel` of animation `animation` targets a node of `asset`.
pub(crate) fn check_target(
    asset: &RawAsset,
    target: usize,
    animation: usize,
    channel: usize,
) -> Result<(), ImportError> {
    if target >= asset.nodes.len() {
        return Err(ImportError::new(
            &asset.file,
            ImportErrorKind::IndexOutOfRange {
                object: format!("animation {animation} channel {channel}"),
                what: "target node",
                index: target,
                count: asset.nodes.len(),
            },
        ));
    }
    Ok(())
}

/// Every rig of an imported file: one per group of skins sharing a hierarchy (skins whose
/// joints lie under the same root node; a group too big for [`crate::MAX_JOINTS`] is one rig
/// per skin instead), or, for a file without skins, one over every node its animations target (morph weights included).
///
/// Fails when a mesh names a skin the asset does not have, or as [`Rig::from_skin`] and
/// [`Rig::from_nodes`] do.
pub fn bake_rigs(asset: &RawAsset) -> Result<Vec<Rig>, ImportError> {
    if let Some((i, mesh)) = asset
        .meshes
        .iter()
        .enumerate()
        .find(|(_, m)| m.skin.is_some_and(|s| s >= asset.skins.len()))
    {
        return Err(ImportError::new(
            &asset.file,
            ImportErrorKind::IndexOutOfRange {
                object: format!("mesh {i} ({:?})", mesh.name),
                what: "skin",
                index: mesh.skin.unwrap_or(0),
                count: asset.skins.len(),
            },
        ));
    }
    for (c, clip) in asset.clips.iter().enumerate() {
        for (k, track) in clip.tracks.iter().enumerate() {
            check_target(asset, track.target, c, k)?;
        }
    }
    let mut animated = animated_nodes(asset);
    animated.extend(
        asset
            .clips
            .iter()
            .flat_map(|c| c.weights.iter().map(|w| w.target)),
    );
    animated.sort_unstable();
    animated.dedup();
    let mut rigs = Vec::new();
    let mut skin_roots = Vec::new();
    for group in skin_groups(asset) {
        let roots: Vec<usize> = group
            .iter()
            .flat_map(|&s| &asset.skins[s].joints)
            .filter_map(|&j| top_ancestor(asset, j))
            .collect();
        let rigid = rigid_meshes_under(asset, &roots);
        skin_roots.extend(roots);
        match Rig::from_group(asset, &group, &rigid) {
            Ok(rig) => rigs.push(rig),
            // Too big to share a skeleton: each skin gets its own rig, as a lone skin would;
            // the first carries the rigid meshes.
            Err(ImportError {
                kind: ImportErrorKind::TooManyJoints { .. },
                ..
            }) if group.len() > 1 => {
                for (k, &s) in group.iter().enumerate() {
                    let rigid: &[usize] = if k == 0 { &rigid } else { &[] };
                    rigs.push(Rig::from_group(asset, &[s], rigid)?);
                }
            }
            Err(e) => return Err(e),
        }
    }
    // The rest, one rig over the nodes: without skins, every animated node; and every rigid
    // mesh outside the skins' hierarchies that an animated node moves (itself or an ancestor),
    // with the animated nodes of its hierarchy.
    let moved = |node: usize| ancestors_and_self(asset, node).any(|n| animated.contains(&n));
    let loose: Vec<usize> = asset
        .meshes
        .iter()
        .filter(|m| m.skin.is_none())
        .filter(|m| top_ancestor(asset, m.node).is_none_or(|r| !skin_roots.contains(&r)))
        .filter(|m| moved(m.node))
        .map(|m| m.node)
        .collect();
    let mut nodes: Vec<usize> = if asset.skins.is_empty() {
        animated.clone()
    } else {
        let loose_roots: Vec<Option<usize>> =
            loose.iter().map(|&n| top_ancestor(asset, n)).collect();
        animated
            .iter()
            .copied()
            .filter(|&n| loose_roots.contains(&top_ancestor(asset, n)))
            .collect()
    };
    nodes.extend(&loose);
    nodes.sort_unstable();
    nodes.dedup();
    if !nodes.is_empty() {
        rigs.push(Rig::from_nodes(asset, &nodes, "nodes")?);
    }
    Ok(rigs)
}

/// `node` and its ancestors, nearest first (stopping at a parent out of range, and after as
/// many steps as there are nodes, so a cycle cannot hang it).
fn ancestors_and_self(asset: &RawAsset, node: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(Some(node), |&n| asset.nodes.get(n).and_then(|n| n.parent))
        .take(asset.nodes.len().max(1))
}

/// The rigid meshes (indices into `asset.meshes`) whose node lies under one of `roots`.
fn rigid_meshes_under(asset: &RawAsset, roots: &[usize]) -> Vec<usize> {
    (0..asset.meshes.len())
        .filter(|&m| asset.meshes[m].skin.is_none())
        .filter(|&m| top_ancestor(asset, asset.meshes[m].node).is_some_and(|r| roots.contains(&r)))
        .collect()
}

/// `raw` baked for `skeleton` (`skin_joints` as in [`SkinnedMesh::build`]), with its morph
/// targets and bounds widened for them.
fn baked_mesh(
    asset: &RawAsset,
    raw: &RawMesh,
    skeleton: &Skeleton,
    skin_joints: &[u16],
    rig_morph: &RigMorph,
) -> Result<SkinnedMesh, ImportError> {
    let mut mesh = SkinnedMesh::build(raw, skeleton, skin_joints, &asset.file)?;
    mesh.morph = morph::mesh_morph(raw, rig_morph);
    morph::widen_bounds(&mut mesh, skeleton);
    Ok(mesh)
}

/// Every node any animation of `asset` targets, ascending.
pub fn animated_nodes(asset: &RawAsset) -> Vec<usize> {
    let mut nodes: Vec<usize> = asset
        .clips
        .iter()
        .flat_map(|c| c.tracks.iter().map(|t| t.target))
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    nodes
}

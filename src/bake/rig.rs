//! A rig: one skeleton with its clips and skinned meshes, the unit the engine instantiates.

use glam::Mat4;

use super::clip_library::check_track;
use super::{Aabb, ClipLibrary, RigMorph, Skeleton, SkinnedMesh, morph};
use crate::error::{ImportError, ImportErrorKind};
use crate::import::{RawAsset, RawClip};

/// Everything needed to animate and draw instances of one skin (or one animated node set).
#[derive(Clone, Debug, PartialEq)]
pub struct Rig {
    /// The rig's name (the glTF skin's name, or `nodes`).
    pub name: String,
    /// Its joints.
    pub skeleton: Skeleton,
    /// Its clips, all over the same joints.
    pub clips: ClipLibrary,
    /// Skinned primitives deformed by it.
    pub meshes: Vec<SkinnedMesh>,
    /// Skeleton joint of each glTF skin joint, in skin order (empty for a node rig).
    pub skin_joints: Vec<u16>,
    /// Per joint: the union over all meshes of the joint-space vertex bounds.
    pub joint_bounds: Vec<Aabb>,
    /// The mesh nodes with morph targets it evaluates (empty when none).
    pub morph: RigMorph,
}

impl Rig {
    /// Bakes glTF skin `skin` of `asset` with all of the asset's animations.
    ///
    /// Fails when `skin` is not a skin of `asset`, the skin has no joints, a joint twice, or not
    /// one inverse bind matrix per joint, or when its skeleton
    /// ([`Skeleton::from_nodes`]), a mesh it deforms ([`SkinnedMesh::build`]) or the asset's
    /// clips ([`ClipLibrary::build`]) cannot be baked.
    pub fn from_skin(asset: &RawAsset, skin: usize) -> Result<Self, ImportError> {
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
        let binds: Vec<(usize, Mat4)> = s
            .joints
            .iter()
            .copied()
            .zip(s.inverse_binds.iter().copied())
            .collect();
        let name = s.name.clone().unwrap_or_else(|| format!("skin{skin}"));
        let skeleton =
            Skeleton::from_nodes(asset, &s.joints, &binds, &format!("skin {skin} ({name})"))?;
        let skin_joints: Vec<u16> = s
            .joints
            .iter()
            .map(|&n| skeleton.joint_of_node(n).map_or(u16::MAX, |j| j as u16))
            .collect();
        let object = format!("skin {skin} ({name})");
        let rig_morph = RigMorph::build(asset, &skeleton, Some(skin), &object)?;
        let meshes = asset
            .meshes
            .iter()
            .filter(|m| m.skin == skin)
            .map(|m| {
                let mut mesh = SkinnedMesh::build(m, &skeleton, &skin_joints, &asset.file)?;
                mesh.morph = morph::mesh_morph(m, &rig_morph);
                morph::widen_bounds(&mut mesh, &skeleton);
                Ok(mesh)
            })
            .collect::<Result<Vec<_>, ImportError>>()?;
        Self::assemble(asset, name, skeleton, meshes, skin_joints, rig_morph)
    }

    /// Bakes a rig over glTF nodes `nodes` (and their ancestors), without a skin: how node
    /// animation such as a rigid object's is evaluated. Fails as [`Skeleton::from_nodes`] and
    /// [`ClipLibrary::build`] do.
    pub fn from_nodes(asset: &RawAsset, nodes: &[usize], name: &str) -> Result<Self, ImportError> {
        let skeleton = Skeleton::from_nodes(asset, nodes, &[], name)?;
        let rig_morph = RigMorph::build(asset, &skeleton, None, name)?;
        Self::assemble(
            asset,
            name.to_string(),
            skeleton,
            Vec::new(),
            Vec::new(),
            rig_morph,
        )
    }

    fn assemble(
        asset: &RawAsset,
        name: String,
        skeleton: Skeleton,
        meshes: Vec<SkinnedMesh>,
        skin_joints: Vec<u16>,
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
            skin_joints,
            joint_bounds,
            morph: rig_morph,
        })
    }

    /// Number of joints (the palette entries per instance that hold joint matrices).
    pub fn joint_count(&self) -> usize {
        self.skeleton.joint_count()
    }

    /// Palette entries per instance: one per joint, then the morph weights, 12 per entry
    /// ([`RigMorph::palette_entries`]; none for a rig without morph targets). Every palette
    /// block of an instance of the rig has this length.
    pub fn palette_entries(&self) -> usize {
        self.joint_count() + self.morph.palette_entries()
    }

    /// Checks that the parts evaluators index by joint agree, as a rig assembled from its public
    /// fields may not: the clips cover the skeleton's joints, there is one joint bound per joint
    /// and every skin joint lies inside the skeleton. Returns the first disagreement. Meshes are
    /// not checked (the renderer checks the ones it draws).
    pub(crate) fn check_parts(&self) -> Result<(), String> {
        let joints = self.joint_count();
        if self.clips.joint_count() != joints {
            return Err(format!(
                "the clips cover {} joints, the skeleton has {joints}",
                self.clips.joint_count()
            ));
        }
        super::file::validate::rig(self)
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

/// Every rig of an imported file: one per skin, or, for a file without skins, one over every
/// node its animations target (morph weights included).
///
/// Fails when a mesh names a skin the asset does not have, or as [`Rig::from_skin`] and
/// [`Rig::from_nodes`] do.
pub fn bake_rigs(asset: &RawAsset) -> Result<Vec<Rig>, ImportError> {
    if let Some((i, mesh)) = asset
        .meshes
        .iter()
        .enumerate()
        .find(|(_, m)| m.skin >= asset.skins.len())
    {
        return Err(ImportError::new(
            &asset.file,
            ImportErrorKind::IndexOutOfRange {
                object: format!("mesh {i} ({:?})", mesh.name),
                what: "skin",
                index: mesh.skin,
                count: asset.skins.len(),
            },
        ));
    }
    for (c, clip) in asset.clips.iter().enumerate() {
        for (k, track) in clip.tracks.iter().enumerate() {
            check_target(asset, track.target, c, k)?;
        }
    }
    if asset.skins.is_empty() {
        let mut nodes = animated_nodes(asset);
        nodes.extend(
            asset
                .clips
                .iter()
                .flat_map(|c| c.weights.iter().map(|w| w.target)),
        );
        nodes.sort_unstable();
        nodes.dedup();
        if nodes.is_empty() {
            return Ok(Vec::new());
        }
        return Ok(vec![Rig::from_nodes(asset, &nodes, "nodes")?]);
    }
    (0..asset.skins.len())
        .map(|s| Rig::from_skin(asset, s))
        .collect()
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

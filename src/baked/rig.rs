//! A rig: one skeleton with its clips and skinned meshes, the unit the engine instantiates.

use super::ik::{IkConstraint, RigIk};
use super::{ClipLibrary, CompressedClips, RigMorph, Skeleton, SkinnedMesh, file};
use crate::error::IkError;
use crate::math::Aabb;

/// Everything needed to animate and draw instances of one skeleton: the skins sharing it (or
/// one animated node set).
#[derive(Clone, Debug, PartialEq)]
pub struct Rig {
    /// The rig's name (its glTF skins' names joined by `+`, or `nodes`).
    pub name: String,
    /// Its joints.
    pub skeleton: Skeleton,
    /// Its clips, all over the same joints.
    pub clips: ClipLibrary,
    /// Skinned primitives deformed by it.
    pub meshes: Vec<SkinnedMesh>,
    /// The glTF skins it animates, each with its palette map (empty for a node rig).
    pub skins: Vec<RigSkin>,
    /// Per joint: the union over all meshes of the joint-space vertex bounds.
    pub joint_bounds: Vec<Aabb>,
    /// The mesh nodes with morph targets it evaluates (empty when none).
    pub morph: RigMorph,
    /// Its IK constraints (none after baking or loading; set with [`Rig::set_ik`]).
    pub ik: RigIk,
    /// Its clips compressed (none after baking; filled by [`Rig::compress`], stored in and
    /// loaded from `.sinew` files). They must be built from [`Rig::clips`].
    pub compressed: Option<CompressedClips>,
}

/// One glTF skin's view of a rig's skeleton.
#[derive(Clone, Debug, PartialEq)]
pub struct RigSkin {
    /// Index of the skin in the glTF file.
    pub index: usize,
    /// The skin's name, or `skin<i>` when it has none.
    pub name: String,
    /// Skeleton joint of each skin joint, in skin order: palette entry `joints[k]` is skin joint
    /// `k`'s world × inverse bind.
    pub joints: Vec<u16>,
}

impl Rig {
    /// Number of joints (the palette entries per instance that hold joint matrices).
    pub fn joint_count(&self) -> usize {
        self.skeleton.joint_count()
    }

    /// Palette entries per instance: one per joint, then the morph weights, 12 per entry
    /// ([`RigMorph::palette_entries`]; none for a rig without morph targets). Every palette
    /// block of an instance of the rig has this length.
    pub fn palette_entries(&self) -> usize {
        self.ik_entry_offset() + self.ik.len()
    }

    /// Where an instance's IK targets start in its palette block: after the joint entries and
    /// morph weights, one entry per IK constraint ([`super::ik::IkTarget::to_entry`]).
    pub fn ik_entry_offset(&self) -> usize {
        self.joint_count() + self.morph.palette_entries()
    }

    /// Sets the rig's IK constraints, checked against its skeleton ([`RigIk::new`]). Each
    /// instance's palette block grows by one entry per constraint.
    pub fn set_ik(&mut self, constraints: Vec<IkConstraint>) -> Result<(), IkError> {
        self.ik = RigIk::new(&self.name, &self.skeleton, constraints)?;
        Ok(())
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
        RigIk::new(&self.name, &self.skeleton, self.ik.constraints().to_vec())
            .map_err(|e| e.to_string())?;
        if let Some(c) = &self.compressed {
            let lib = &self.clips;
            if c.joint_count() != joints
                || c.weight_chunks() != lib.weight_chunk_count()
                || c.clips().len() != lib.clip_count()
            {
                return Err(format!(
                    "the compressed clips hold {} clips of {} joints and {} weight chunks, the \
                     rig {} clips of {joints} joints and {} weight chunks",
                    c.clips().len(),
                    c.joint_count(),
                    c.weight_chunks(),
                    lib.clip_count(),
                    lib.weight_chunk_count()
                ));
            }
        }
        file::validate::rig(self)
    }
}

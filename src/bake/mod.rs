//! Imported data → the baked model ([`crate::baked`]): skeletons, clip libraries, skinned
//! meshes and morph layouts built and checked from raw data, grouped per [`Rig`]
//! ([`bake_rigs`]); clips retargeted from another file; the compressed clip encoder
//! ([`compressed`]). The model's types are re-exported here.

mod clip_library;
pub mod compressed;
mod morph;
mod retarget;
mod retarget_rest;
mod retarget_rig;
mod rig;
mod skeleton;
mod skeleton_groups;
mod skinned_mesh;

pub use crate::baked::{
    ChannelCode, ChannelKind, ClipInfo, ClipLibrary, ClipSegment, CompressedClip, CompressedClips,
    DEFAULT_ERROR_BUDGET, MAX_JOINTS, MAX_MORPH_ENTRIES, MAX_MORPH_WEIGHTS, MAX_PALETTE_BLOCK,
    MeshMorph, MorphNode, NO_PARENT, Rig, RigMorph, RigSkin, Skeleton, SkinnedMesh, TrackDesc,
    WEIGHTS_PER_CHUNK, WEIGHTS_PER_ENTRY, file,
};
pub use crate::math::Aabb;
pub use retarget::{RetargetReport, UnmatchedChannel, retarget_clips};
pub use retarget_rest::retarget_clips_by_rest;
pub use retarget_rig::retarget_rig;
pub use rig::{animated_nodes, bake_rigs};

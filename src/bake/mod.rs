//! Raw data → immutable runtime data ("validate once, trust after"): [`Skeleton`],
//! [`ClipLibrary`], [`SkinnedMesh`], grouped per [`Rig`], and the `.sinew` file that stores them.

mod clip_library;
pub mod compressed;
pub mod file;
mod joint_lod;
mod morph;
mod retarget;
mod retarget_rest;
mod rig;
mod skeleton;
mod skeleton_groups;
mod skinned_mesh;

pub use clip_library::{ClipInfo, ClipLibrary, TrackDesc};
pub use compressed::{
    ChannelCode, ChannelKind, ClipSegment, CompressedClip, CompressedClips, DEFAULT_ERROR_BUDGET,
};
pub use morph::{
    MAX_MORPH_ENTRIES, MAX_MORPH_WEIGHTS, MAX_PALETTE_BLOCK, MeshMorph, MorphNode, RigMorph,
    WEIGHTS_PER_CHUNK, WEIGHTS_PER_ENTRY,
};
pub use retarget::{RetargetReport, UnmatchedChannel, retarget_clips};
pub use retarget_rest::retarget_clips_by_rest;
pub use rig::{Rig, animated_nodes, bake_rigs};
pub use skeleton::{MAX_JOINTS, NO_PARENT, Skeleton};
pub use skeleton_groups::RigSkin;
pub use skinned_mesh::{Aabb, SkinnedMesh};

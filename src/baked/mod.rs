//! The baked data model, validated once and trusted after: [`Skeleton`], [`ClipLibrary`],
//! [`SkinnedMesh`] and its [`Material`], [`RigMorph`], IK constraints ([`ik`]), grouped per
//! [`Rig`]; the compressed clip format ([`compressed`]) and the `.sinew` file that stores it all
//! ([`mod@file`]). Also the reads every consumer shares: exact key sampling ([`sample`]), compressed
//! decoding ([`compressed::decode`]), propagation ([`propagate`]) and the resampling grid
//! ([`grid`]). It depends only on [`crate::math`] and `crate::error`; [`crate::bake`] builds
//! it from imported data.

mod channel;
mod clip_library;
pub mod compressed;
pub mod file;
pub mod grid;
pub mod ik;
mod joint_lod;
mod material;
mod morph;
pub mod propagate;
pub mod retarget_map;
mod rig;
pub mod sample;
mod skeleton;
mod skinned_mesh;

pub use channel::{Channel, Interpolation};
pub use clip_library::{ClipInfo, ClipLibrary, ClipMarker, TrackDesc};
pub use compressed::{
    ChannelCode, ChannelKind, ClipSegment, CompressedClip, CompressedClips, DEFAULT_ERROR_BUDGET,
    MAX_ERROR_BUDGET, MIN_ERROR_BUDGET, channel_kind,
};
pub use joint_lod::LOD_LEVELS;
pub use material::{AlphaMode, Material, MaterialImage, Sampler, TextureRef, UvTransform, Wrap};
pub use morph::{
    MAX_MORPH_ENTRIES, MAX_MORPH_WEIGHTS, MAX_PALETTE_BLOCK, MeshMorph, MorphNode, RigMorph,
    WEIGHTS_PER_CHUNK, WEIGHTS_PER_ENTRY,
};
pub use rig::{Rig, RigSkin};
pub use skeleton::{MAX_JOINTS, NO_PARENT, Skeleton};
pub use skinned_mesh::{MAX_INFLUENCES, SkinnedMesh};

//! # sinew
//!
//! Skeletal animation for crowds. glTF 2.0 and FBX rigs are baked into flat struct-of-arrays
//! buffers; per-joint work (keyframe search, interpolation, layer blending, hierarchy propagation, skin
//! matrices and animated bounds, plus morph-target weights) runs for every instance at once, in WGSL compute passes on
//! wgpu or on the CPU evaluator that is its twin and test oracle.
//!
//! ```no_run
//! use sinew::{CpuBackend, InstanceRecord, Layer, Aabb, Mat3x4Rows};
//!
//! let asset = sinew::import_file("assets/humanoid.glb")?;
//! let rigs = sinew::bake_rigs(&asset)?;
//! // Palette entries per instance: one per joint, then the morph weights (if any).
//! let block = rigs[0].palette_entries();
//! let mut backend = CpuBackend::new(rigs, Vec::new())?;
//!
//! // Two instances of rig 0 playing clip 1 at different times.
//! let world = glam::Affine3A::IDENTITY;
//! let instances = [
//!     InstanceRecord::new(0, 0, &world, &[Layer::clip(1, 0.25)])?,
//!     InstanceRecord::new(0, block as u32, &world, &[Layer::clip(1, 0.5)])?,
//! ];
//! let mut palette = vec![Mat3x4Rows::IDENTITY; 2 * block];
//! let mut bounds = vec![Aabb::EMPTY; 2];
//! backend.evaluate(&instances, &mut palette, &mut bounds)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod bake;
pub mod baked;
pub mod cpu;
mod error;
pub mod gpu;
pub mod import;
mod inertial_blocks;
mod inertialization;
mod instance;
mod layer_reads;
pub mod lod;
mod mask;
pub mod math;
mod palette;
pub mod render;
pub mod report;
pub mod runtime;
pub mod view;

pub use bake::bake_rigs;
pub use baked::ik::{AimConstraint, IkConstraint, IkTarget, Pole, RigIk, TwoBoneIk};
pub use baked::{
    ChannelCode, ChannelKind, ClipInfo, ClipLibrary, ClipMarker, ClipSegment, CompressedClip,
    CompressedClips, DEFAULT_ERROR_BUDGET, MAX_JOINTS, MAX_MORPH_WEIGHTS, MAX_PALETTE_BLOCK,
    MeshMorph, MorphNode, NO_PARENT, Rig, RigMorph, RigSkin, Skeleton, SkinnedMesh, TrackDesc, ik,
};
pub use cpu::{CpuBackend, FastCpuBackend};
pub use error::{
    CompressedError, EvalError, FormatError, FormatErrorKind, GpuError, IkError, ImportError,
    ImportErrorKind, RetargetError,
};
pub use gpu::{GpuBackend, GpuContext};
pub use import::{
    Axis, Channel, ImportSettings, Interpolation, MAX_INFLUENCES, RawAsset, import_bytes,
    import_bytes_with, import_file, import_file_with,
};
pub use inertial_blocks::InertialTransitions;
pub use inertialization::{
    INERTIAL_HEADER_VEC4S, INERTIAL_JOINT_VEC4S, INERTIAL_SERIAL_MAX, INERTIAL_TAG,
    INERTIAL_VELOCITY_STEP, Inertialization, inertial_block_entries,
};
pub use instance::{BlendMode, InstanceRecord, Layer, LayerRecord, MAX_LAYERS, TimeWrap};
pub use lod::{LodPolicy, UpdateRate};
pub use mask::JointMask;
pub use math::{Aabb, Mat3x4Rows, Sqt};
pub use palette::{PaletteAllocator, PaletteBlock, PaletteWindows};
pub use report::GpuPose;

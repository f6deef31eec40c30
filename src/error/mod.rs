//! Every error sinew returns. Each one names the file, the object and the reason.

mod compressed;
mod import;
mod retarget;

pub use compressed::CompressedError;
pub use import::{ImportError, ImportErrorKind, SettingsError};
pub use retarget::RetargetError;

use thiserror::Error;

/// A `.sinew` baked file could not be read.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("{file}: {kind}")]
pub struct FormatError {
    /// The file being read.
    pub file: String,
    /// What went wrong.
    pub kind: FormatErrorKind,
}

/// What is wrong with a `.sinew` file.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum FormatErrorKind {
    /// The file could not be read or written.
    #[error("cannot access file: {0}")]
    Io(String),
    /// The file does not start with the `.sinew` magic bytes.
    #[error("not a .sinew file (bad magic)")]
    BadMagic,
    /// The file was written by a newer (or unknown) version of the format.
    #[error("format version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The file ends before the data its header promises.
    #[error("file is truncated while reading {what}")]
    Truncated {
        /// What was being read.
        what: String,
    },
    /// The checksum over the body does not match.
    #[error(
        "checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): file is corrupted"
    )]
    ChecksumMismatch {
        /// Checksum stored in the file.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// A section decodes to data that violates the baked invariants.
    #[error("section {section} is corrupt: {reason}")]
    Corrupt {
        /// The section.
        section: String,
        /// The violated invariant.
        reason: String,
    },
}

/// Evaluation was asked for something the baked data does not have.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum EvalError {
    /// A layer names a clip the rig does not have.
    #[error("clip {clip} does not exist (the rig has {clip_count})")]
    NoSuchClip {
        /// The clip index asked for.
        clip: u32,
        /// How many clips the rig has.
        clip_count: usize,
    },
    /// A layer names a mask that does not exist.
    #[error("mask {mask} does not exist ({mask_count} masks)")]
    NoSuchMask {
        /// The mask index asked for.
        mask: u32,
        /// How many masks exist.
        mask_count: usize,
    },
    /// An instance names a rig that does not exist.
    #[error("rig {rig} does not exist ({rig_count} rigs)")]
    NoSuchRig {
        /// The rig index asked for.
        rig: u32,
        /// How many rigs exist.
        rig_count: usize,
    },
    /// More layers than [`crate::MAX_LAYERS`], or a layer weight or time that is not finite.
    #[error("bad layer: {reason}")]
    BadLayer {
        /// Why the layer is rejected.
        reason: String,
    },
    /// Two instances' palette ranges overlap.
    #[error("instance {instance}: palette offset {offset} overlaps another instance's block")]
    PaletteOverlap {
        /// Index of the instance whose range starts inside another's.
        instance: usize,
        /// Its palette offset.
        offset: u32,
    },
    /// A rig whose parts disagree (one assembled by hand from its public fields): clips, joint
    /// bounds, skin joints or meshes that do not fit its skeleton.
    #[error("rig {rig} ({name}): {reason}")]
    InvalidRig {
        /// The rig's index among the backend's rigs.
        rig: usize,
        /// The rig's name.
        name: String,
        /// The disagreement.
        reason: String,
    },
    /// An output slice has the wrong length.
    #[error("output holds {found} entries, {expected} needed")]
    OutputSize {
        /// Length needed.
        expected: usize,
        /// Length given.
        found: usize,
    },
    /// IK constraints or targets were refused.
    #[error(transparent)]
    Ik(#[from] IkError),
}

/// IK constraints that do not fit a rig, or per-instance IK targets that do not fit its
/// constraints.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum IkError {
    /// More constraints than a rig holds (`MAX_IK_CONSTRAINTS`).
    #[error("rig {rig}: {count} IK constraints, at most {max}")]
    TooMany {
        /// The rig's name.
        rig: String,
        /// How many were given.
        count: usize,
        /// How many a rig holds.
        max: usize,
    },
    /// A constraint names a joint the skeleton does not have.
    #[error(
        "rig {rig}: IK constraint {constraint} names joint {joint} (the rig has {joint_count})"
    )]
    NoSuchJoint {
        /// The rig's name.
        rig: String,
        /// The constraint's index.
        constraint: usize,
        /// The joint index asked for.
        joint: usize,
        /// How many joints the rig has.
        joint_count: usize,
    },
    /// A two-bone chain whose joints are not each an ancestor of the next.
    #[error(
        "rig {rig}: IK constraint {constraint}: joint {lower} does not lie below joint {upper}"
    )]
    NotAChain {
        /// The rig's name.
        rig: String,
        /// The constraint's index.
        constraint: usize,
        /// The joint that should be the ancestor.
        upper: String,
        /// The joint that should lie below it.
        lower: String,
    },
    /// An aim constraint axis that is zero, not finite, or (the up axis) parallel to the aim.
    #[error("rig {rig}: IK constraint {constraint}: bad {axis}")]
    BadAxis {
        /// The rig's name.
        rig: String,
        /// The constraint's index.
        constraint: usize,
        /// Which axis.
        axis: &'static str,
    },
    /// An aim limit outside (0, π] radians.
    #[error("rig {rig}: IK constraint {constraint}: limit {limit} is not in (0, pi] radians")]
    BadLimit {
        /// The rig's name.
        rig: String,
        /// The constraint's index.
        constraint: usize,
        /// The limit given.
        limit: f32,
    },
    /// Not one target per constraint.
    #[error("rig {rig}: {found} IK targets for {expected} constraints")]
    TargetCount {
        /// The rig's name.
        rig: String,
        /// Constraints of the rig.
        expected: usize,
        /// Targets given.
        found: usize,
    },
    /// A target or pole that is not finite, or a weight outside [0, 1].
    #[error("rig {rig}: IK target {constraint} is not finite or its weight is not in [0, 1]")]
    BadTarget {
        /// The rig's name.
        rig: String,
        /// The constraint's index.
        constraint: usize,
    },
}

/// The GPU backend could not start, was given data it cannot hold, or wgpu reported an error.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum GpuError {
    /// No adapter of the requested backends exists (no GPU and no software driver).
    #[error("no GPU adapter for backends {backends}: {reason}")]
    NoAdapter {
        /// The backends that were searched, as `WGPU_BACKEND` spells them.
        backends: String,
        /// wgpu's reason.
        reason: String,
    },
    /// The adapter refused to create a device with the features and limits asked for.
    #[error("the adapter refused to create a device: {0}")]
    RequestDevice(String),
    /// The data needs more of a device limit than the device has.
    #[error("device limit {limit} is {available}, but the data needs {needed}")]
    LimitExceeded {
        /// The wgpu limit, by its field name.
        limit: &'static str,
        /// What the data needs.
        needed: u64,
        /// What the device allows.
        available: u64,
    },
    /// wgpu rejected a pipeline, bind group, buffer or dispatch (captured by an error scope).
    #[error("wgpu validation error: {0}")]
    Validation(String),
    /// The device ran out of memory while creating a resource or running a pass.
    #[error("GPU out of memory: {0}")]
    OutOfMemory(String),
    /// Reading a buffer back failed (mapping refused, device lost, or the wait timed out).
    #[error("GPU readback failed: {0}")]
    Readback(String),
    /// The device is lost (destroyed, reset or removed): nothing was submitted. Rebuild the
    /// context, backend and renderer on a new device.
    #[error("the GPU device is lost: {reason}")]
    DeviceLost {
        /// wgpu's reason, with its message.
        reason: String,
    },
    /// An instance record names something the uploaded rigs and masks do not have.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// A palette block was freed twice, or never came from this palette.
    #[error("palette block at {offset} ({len} entries) is not allocated")]
    BadBlock {
        /// First palette entry of the block.
        offset: u32,
        /// Its length in entries.
        len: u32,
    },
    /// New rigs for [`crate::GpuBackend::update_rigs`] that would change what the uploaded
    /// ones evaluate: fewer rigs, or a rig with other joints, palette entries or inverse binds,
    /// or fewer clips.
    #[error("rig {rig} cannot replace the uploaded one: {reason}")]
    IncompatibleRig {
        /// Rig index.
        rig: usize,
        /// What differs.
        reason: String,
    },
    /// An inverse bind matrix cannot be inverted, so the model matrix of its joint cannot be
    /// recovered from the palette.
    #[error("rig {rig} joint {joint}: inverse bind matrix is singular")]
    SingularBind {
        /// Rig index.
        rig: u32,
        /// Joint index in the rig.
        joint: u32,
    },
}

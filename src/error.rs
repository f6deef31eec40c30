//! Every error sinew returns. Each one names the file, the object and the reason.

use std::fmt;

/// A glTF file could not become raw animation data, or raw data could not be baked.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportError {
    /// The file being read (or `"<memory>"` for data given in memory).
    pub file: String,
    /// What went wrong, and where.
    pub kind: ImportErrorKind,
}

/// What went wrong while importing or baking.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportErrorKind {
    /// The file could not be read from disk.
    Io(String),
    /// The file is not valid glTF (bad JSON, bad GLB container, failed schema validation).
    Gltf(String),
    /// A buffer is missing, unreadable or shorter than its declared length.
    Buffer {
        /// Index of the buffer.
        buffer: usize,
        /// Why it is unusable.
        reason: String,
    },
    /// An accessor reads outside its buffer view or buffer.
    AccessorOutOfRange {
        /// Index of the accessor.
        accessor: usize,
        /// Which bound was crossed.
        reason: String,
    },
    /// An accessor has a type or component type that the attribute does not allow.
    AccessorFormat {
        /// Index of the accessor.
        accessor: usize,
        /// What the accessor is used for.
        usage: String,
        /// The format found.
        found: String,
    },
    /// The scene's node graph is not a forest (a cycle, or a node with two parents).
    NodeGraph {
        /// Index of the offending node.
        node: usize,
        /// Cycle or shared parent.
        reason: String,
    },
    /// A node's `matrix` cannot be decomposed into translation, rotation and scale.
    NonDecomposableMatrix {
        /// Index of the node.
        node: usize,
    },
    /// A skin has no joints or refers to its joints inconsistently.
    Skin {
        /// Index of the skin.
        skin: usize,
        /// Why it is unusable.
        reason: String,
    },
    /// A vertex names a joint that its skin does not have.
    JointIndex {
        /// Index of the mesh.
        mesh: usize,
        /// Index of the primitive in the mesh.
        primitive: usize,
        /// Index of the vertex.
        vertex: usize,
        /// The joint index found.
        joint: u32,
        /// How many joints the skin has.
        joint_count: usize,
    },
    /// A skinned vertex whose weights sum to zero (or are negative or not finite).
    ZeroWeights {
        /// Index of the mesh.
        mesh: usize,
        /// Index of the primitive in the mesh.
        primitive: usize,
        /// Index of the vertex.
        vertex: usize,
    },
    /// A primitive lacks an attribute skinning needs, or its attributes disagree in length.
    Primitive {
        /// Index of the mesh.
        mesh: usize,
        /// Index of the primitive in the mesh.
        primitive: usize,
        /// What is missing or inconsistent.
        reason: String,
    },
    /// A rig has more joints than [`crate::MAX_JOINTS`].
    TooManyJoints {
        /// The skin, or the node set, being baked.
        object: String,
        /// How many joints it needs.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A value is NaN or infinite.
    NonFinite {
        /// The object holding it (a node, an animation channel, an inverse bind matrix).
        object: String,
    },
    /// Keyframe times are not strictly increasing, negative or not finite.
    KeyTimes {
        /// Animation index.
        animation: usize,
        /// Channel index in the animation.
        channel: usize,
        /// Index of the first bad key.
        key: usize,
    },
    /// A rotation key is a zero-length quaternion, which describes no rotation.
    ZeroRotation {
        /// Animation index.
        animation: usize,
        /// Channel index in the animation.
        channel: usize,
        /// Index of the key.
        key: usize,
    },
    /// A sampler's output count does not match its input count.
    KeyCount {
        /// Animation index.
        animation: usize,
        /// Channel index in the animation.
        channel: usize,
        /// Number of key times.
        times: usize,
        /// Number of output values.
        values: usize,
    },
    /// A clip has no channels (so no length), or a duration that is negative or not finite.
    ZeroLengthClip {
        /// Clip (animation) index.
        animation: usize,
        /// Clip name, possibly empty.
        name: String,
    },
    /// Two channels of one animation animate the same property of the same node.
    DuplicateChannel {
        /// Animation index.
        animation: usize,
        /// The node (or joint) name.
        target: String,
        /// `translation`, `rotation`, `scale` or `weights`.
        channel: &'static str,
    },
    /// A clip or joint named by the caller does not exist.
    NotFound {
        /// What was looked for.
        what: String,
    },
    /// The file requires an extension that sinew does not implement.
    UnsupportedExtension {
        /// The extension's name.
        name: String,
    },
    /// A meshopt-compressed buffer view breaks the extension's rules or does not decode.
    CompressedView {
        /// Index of the buffer view.
        view: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// An accessor breaks a glTF accessor rule (count, alignment, stride, sparse order, bounds).
    AccessorRule {
        /// Index of the accessor.
        accessor: usize,
        /// The rule and how it is broken.
        reason: String,
    },
    /// An animation channel breaks a glTF animation rule (its target or its keys).
    ChannelRule {
        /// Animation index.
        animation: usize,
        /// Channel index in the animation.
        channel: usize,
        /// The rule and how it is broken.
        reason: String,
    },
}

impl ImportError {
    pub(crate) fn new(file: impl Into<String>, kind: ImportErrorKind) -> Self {
        Self {
            file: file.into(),
            kind,
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ImportErrorKind::*;
        write!(f, "{}: ", self.file)?;
        match &self.kind {
            Io(e) => write!(f, "cannot read file: {e}"),
            Gltf(e) => write!(f, "invalid glTF: {e}"),
            Buffer { buffer, reason } => write!(f, "buffer {buffer}: {reason}"),
            AccessorOutOfRange { accessor, reason } => {
                write!(f, "accessor {accessor} out of range: {reason}")
            }
            AccessorFormat {
                accessor,
                usage,
                found,
            } => write!(f, "accessor {accessor} used as {usage} has format {found}"),
            NodeGraph { node, reason } => write!(f, "node {node}: {reason}"),
            NonDecomposableMatrix { node } => {
                write!(f, "node {node}: matrix is not a translation-rotation-scale")
            }
            Skin { skin, reason } => write!(f, "skin {skin}: {reason}"),
            JointIndex {
                mesh,
                primitive,
                vertex,
                joint,
                joint_count,
            } => write!(
                f,
                "mesh {mesh} primitive {primitive} vertex {vertex}: joint index {joint} but the skin has {joint_count} joints"
            ),
            ZeroWeights {
                mesh,
                primitive,
                vertex,
            } => write!(
                f,
                "mesh {mesh} primitive {primitive} vertex {vertex}: skin weights sum to zero or are invalid"
            ),
            Primitive {
                mesh,
                primitive,
                reason,
            } => write!(f, "mesh {mesh} primitive {primitive}: {reason}"),
            TooManyJoints {
                object,
                count,
                limit,
            } => write!(f, "{object} needs {count} joints; the limit is {limit}"),
            NonFinite { object } => write!(f, "{object}: value is NaN or infinite"),
            KeyTimes {
                animation,
                channel,
                key,
            } => write!(
                f,
                "animation {animation} channel {channel}: key time {key} is not finite, negative or not strictly increasing"
            ),
            ZeroRotation {
                animation,
                channel,
                key,
            } => write!(
                f,
                "animation {animation} channel {channel}: rotation key {key} is a zero-length quaternion"
            ),
            KeyCount {
                animation,
                channel,
                times,
                values,
            } => write!(
                f,
                "animation {animation} channel {channel}: {times} key times but {values} values"
            ),
            ZeroLengthClip { animation, name } => {
                write!(f, "animation {animation} ({name:?}) has zero length")
            }
            DuplicateChannel {
                animation,
                target,
                channel,
            } => write!(
                f,
                "animation {animation}: two channels animate {channel} of {target}"
            ),
            NotFound { what } => write!(f, "{what} not found"),
            UnsupportedExtension { name } => {
                write!(f, "requires extension {name}, which sinew does not support")
            }
            CompressedView { view, reason } => write!(f, "buffer view {view}: {reason}"),
            AccessorRule { accessor, reason } => write!(f, "accessor {accessor}: {reason}"),
            ChannelRule {
                animation,
                channel,
                reason,
            } => write!(f, "animation {animation} channel {channel}: {reason}"),
        }
    }
}

impl std::error::Error for ImportError {}

/// A `.sinew` baked file could not be read.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatError {
    /// The file being read.
    pub file: String,
    /// What went wrong.
    pub kind: FormatErrorKind,
}

/// What is wrong with a `.sinew` file.
#[derive(Clone, Debug, PartialEq)]
pub enum FormatErrorKind {
    /// The file could not be read or written.
    Io(String),
    /// The file does not start with the `.sinew` magic bytes.
    BadMagic,
    /// The file was written by a newer (or unknown) version of the format.
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The file ends before the data its header promises.
    Truncated {
        /// What was being read.
        what: String,
    },
    /// The checksum over the body does not match.
    ChecksumMismatch {
        /// Checksum stored in the file.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// A section decodes to data that violates the baked invariants.
    Corrupt {
        /// The section.
        section: String,
        /// The violated invariant.
        reason: String,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FormatErrorKind::*;
        write!(f, "{}: ", self.file)?;
        match &self.kind {
            Io(e) => write!(f, "cannot access file: {e}"),
            BadMagic => write!(f, "not a .sinew file (bad magic)"),
            UnsupportedVersion { found, supported } => write!(
                f,
                "format version {found} is not supported (this build reads version {supported})"
            ),
            Truncated { what } => write!(f, "file is truncated while reading {what}"),
            ChecksumMismatch { stored, computed } => write!(
                f,
                "checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): file is corrupted"
            ),
            Corrupt { section, reason } => write!(f, "section {section} is corrupt: {reason}"),
        }
    }
}

impl std::error::Error for FormatError {}

/// Evaluation was asked for something the baked data does not have.
#[derive(Clone, Debug, PartialEq)]
pub enum EvalError {
    /// A layer names a clip the rig does not have.
    NoSuchClip {
        /// The clip index asked for.
        clip: u32,
        /// How many clips the rig has.
        clip_count: usize,
    },
    /// A layer names a mask that does not exist.
    NoSuchMask {
        /// The mask index asked for.
        mask: u32,
        /// How many masks exist.
        mask_count: usize,
    },
    /// An instance names a rig that does not exist.
    NoSuchRig {
        /// The rig index asked for.
        rig: u32,
        /// How many rigs exist.
        rig_count: usize,
    },
    /// More layers than [`crate::MAX_LAYERS`], or a layer weight or time that is not finite.
    BadLayer {
        /// Why the layer is rejected.
        reason: String,
    },
    /// Two instances' palette ranges overlap.
    PaletteOverlap {
        /// Index of the instance whose range starts inside another's.
        instance: usize,
        /// Its palette offset.
        offset: u32,
    },
    /// An output slice has the wrong length.
    OutputSize {
        /// Length needed.
        expected: usize,
        /// Length given.
        found: usize,
    },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoSuchClip { clip, clip_count } => {
                write!(f, "clip {clip} does not exist (the rig has {clip_count})")
            }
            Self::NoSuchMask { mask, mask_count } => {
                write!(f, "mask {mask} does not exist ({mask_count} masks)")
            }
            Self::NoSuchRig { rig, rig_count } => {
                write!(f, "rig {rig} does not exist ({rig_count} rigs)")
            }
            Self::BadLayer { reason } => write!(f, "bad layer: {reason}"),
            Self::PaletteOverlap { instance, offset } => write!(
                f,
                "instance {instance}: palette offset {offset} overlaps another instance's block"
            ),
            Self::OutputSize { expected, found } => {
                write!(f, "output holds {found} entries, {expected} needed")
            }
        }
    }
}

impl std::error::Error for EvalError {}

/// The GPU backend could not start, was given data it cannot hold, or wgpu reported an error.
#[derive(Clone, Debug, PartialEq)]
pub enum GpuError {
    /// No adapter of the requested backends exists (no GPU and no software driver).
    NoAdapter {
        /// The backends that were searched, as `WGPU_BACKEND` spells them.
        backends: String,
        /// wgpu's reason.
        reason: String,
    },
    /// The adapter refused to create a device with the features and limits asked for.
    RequestDevice(String),
    /// The data needs more of a device limit than the device has.
    LimitExceeded {
        /// The wgpu limit, by its field name.
        limit: &'static str,
        /// What the data needs.
        needed: u64,
        /// What the device allows.
        available: u64,
    },
    /// wgpu rejected a pipeline, bind group, buffer or dispatch (captured by an error scope).
    Validation(String),
    /// The device ran out of memory while creating a resource or running a pass.
    OutOfMemory(String),
    /// Reading a buffer back failed (mapping refused, device lost, or the wait timed out).
    Readback(String),
    /// An instance record names something the uploaded rigs and masks do not have.
    Eval(EvalError),
    /// A palette block was freed twice, or never came from this palette.
    BadBlock {
        /// First palette entry of the block.
        offset: u32,
        /// Its length in entries.
        len: u32,
    },
    /// An inverse bind matrix cannot be inverted, so the model matrix of its joint cannot be
    /// recovered from the palette.
    SingularBind {
        /// Rig index.
        rig: u32,
        /// Joint index in the rig.
        joint: u32,
    },
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoAdapter { backends, reason } => {
                write!(f, "no GPU adapter for backends {backends}: {reason}")
            }
            Self::RequestDevice(e) => write!(f, "the adapter refused to create a device: {e}"),
            Self::LimitExceeded {
                limit,
                needed,
                available,
            } => write!(
                f,
                "device limit {limit} is {available}, but the data needs {needed}"
            ),
            Self::Validation(e) => write!(f, "wgpu validation error: {e}"),
            Self::OutOfMemory(e) => write!(f, "GPU out of memory: {e}"),
            Self::Readback(e) => write!(f, "GPU readback failed: {e}"),
            Self::Eval(e) => e.fmt(f),
            Self::BadBlock { offset, len } => write!(
                f,
                "palette block at {offset} ({len} entries) is not allocated"
            ),
            Self::SingularBind { rig, joint } => write!(
                f,
                "rig {rig} joint {joint}: inverse bind matrix is singular"
            ),
        }
    }
}

impl std::error::Error for GpuError {}

impl From<EvalError> for GpuError {
    fn from(e: EvalError) -> Self {
        Self::Eval(e)
    }
}

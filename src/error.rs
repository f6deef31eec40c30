//! Every error sinew returns. Each one names the file, the object and the reason.

use thiserror::Error;

/// A glTF file could not become raw animation data, or raw data could not be baked.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("{file}: {kind}")]
pub struct ImportError {
    /// The file being read (or `"<memory>"` for data given in memory).
    pub file: String,
    /// What went wrong, and where.
    pub kind: ImportErrorKind,
}

/// What went wrong while importing or baking.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ImportErrorKind {
    /// The file could not be read from disk.
    #[error("cannot read file: {0}")]
    Io(String),
    /// The file is not valid glTF (bad JSON, bad GLB container, failed schema validation).
    #[error("invalid glTF: {0}")]
    Gltf(String),
    /// The file is not valid FBX (ufbx could not parse it), or is named `.fbx` but is not FBX.
    #[error("invalid FBX: {0}")]
    Fbx(String),
    /// The import settings cannot describe a file (see [`crate::import::ImportSettings`]).
    #[error("import settings: {0}")]
    Settings(crate::import::SettingsError),
    /// A buffer is missing, unreadable or shorter than its declared length.
    #[error("buffer {buffer}: {reason}")]
    Buffer {
        /// Index of the buffer.
        buffer: usize,
        /// Why it is unusable.
        reason: String,
    },
    /// An accessor reads outside its buffer view or buffer.
    #[error("accessor {accessor} out of range: {reason}")]
    AccessorOutOfRange {
        /// Index of the accessor.
        accessor: usize,
        /// Which bound was crossed.
        reason: String,
    },
    /// An accessor has a type or component type that the attribute does not allow.
    #[error("accessor {accessor} used as {usage} has format {found}")]
    AccessorFormat {
        /// Index of the accessor.
        accessor: usize,
        /// What the accessor is used for.
        usage: String,
        /// The format found.
        found: String,
    },
    /// The scene's node graph is not a forest (a cycle, or a node with two parents).
    #[error("node {node}: {reason}")]
    NodeGraph {
        /// Index of the offending node.
        node: usize,
        /// Cycle or shared parent.
        reason: String,
    },
    /// A node's `matrix` cannot be decomposed into translation, rotation and scale.
    #[error("node {node}: matrix is not a translation-rotation-scale")]
    NonDecomposableMatrix {
        /// Index of the node.
        node: usize,
    },
    /// A node breaks a glTF node rule (`matrix` beside translation/rotation/scale, a rotation
    /// that is not a unit quaternion, `skin` or `weights` without `mesh`).
    #[error("node {node}: {reason}")]
    NodeRule {
        /// Index of the node.
        node: usize,
        /// The rule and how it is broken.
        reason: String,
    },
    /// A scene lists a node that is not a root, or lists one twice.
    #[error("scene {scene}: {reason}")]
    Scene {
        /// Index of the scene.
        scene: usize,
        /// The rule and how it is broken.
        reason: String,
    },
    /// A mesh breaks a glTF mesh rule that concerns no single primitive (it has none).
    #[error("mesh {mesh}: {reason}")]
    MeshRule {
        /// Index of the mesh.
        mesh: usize,
        /// The rule and how it is broken.
        reason: String,
    },
    /// A skin has no joints or refers to its joints inconsistently.
    #[error("skin {skin}: {reason}")]
    Skin {
        /// Index of the skin.
        skin: usize,
        /// Why it is unusable.
        reason: String,
    },
    /// A vertex names a joint that its skin does not have.
    #[error(
        "mesh {mesh} primitive {primitive} vertex {vertex}: joint index {joint} but the skin has {joint_count} joints"
    )]
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
    /// A skinned vertex whose weights are negative or not finite, or whose sum is not finite
    /// (all-zero weights are valid: the vertex moves rigidly with the character).
    #[error(
        "mesh {mesh} primitive {primitive} vertex {vertex}: skin weights are negative or not finite"
    )]
    ZeroWeights {
        /// Index of the mesh.
        mesh: usize,
        /// Index of the primitive in the mesh.
        primitive: usize,
        /// Index of the vertex.
        vertex: usize,
    },
    /// A primitive lacks an attribute skinning needs, or its attributes disagree in length.
    #[error("mesh {mesh} primitive {primitive}: {reason}")]
    Primitive {
        /// Index of the mesh.
        mesh: usize,
        /// Index of the primitive in the mesh.
        primitive: usize,
        /// What is missing or inconsistent.
        reason: String,
    },
    /// A rig has more joints than [`crate::MAX_JOINTS`].
    #[error("{object} needs {count} joints; the limit is {limit}")]
    TooManyJoints {
        /// The skin, or the node set, being baked.
        object: String,
        /// How many joints it needs.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A value is NaN or infinite.
    #[error("{object}: value is NaN or infinite")]
    NonFinite {
        /// The object holding it (a node, an animation channel, an inverse bind matrix).
        object: String,
    },
    /// Keyframe times are not strictly increasing, negative or not finite.
    #[error(
        "animation {animation} channel {channel}: key time {key} is not finite, negative or not strictly increasing"
    )]
    KeyTimes {
        /// Animation index.
        animation: usize,
        /// Channel index in the animation.
        channel: usize,
        /// Index of the first bad key.
        key: usize,
    },
    /// A rotation key is a zero-length quaternion, which describes no rotation.
    #[error(
        "animation {animation} channel {channel}: rotation key {key} is a zero-length quaternion"
    )]
    ZeroRotation {
        /// Animation index.
        animation: usize,
        /// Channel index in the animation.
        channel: usize,
        /// Index of the key.
        key: usize,
    },
    /// A sampler's output count does not match its input count.
    #[error("animation {animation} channel {channel}: {times} key times but {values} values")]
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
    #[error("animation {animation} ({name:?}) has zero length")]
    ZeroLengthClip {
        /// Clip (animation) index.
        animation: usize,
        /// Clip name, possibly empty.
        name: String,
    },
    /// Two channels of one animation animate the same property of the same node.
    #[error("animation {animation}: two channels animate {channel} of {target}")]
    DuplicateChannel {
        /// Animation index.
        animation: usize,
        /// The node (or joint) name.
        target: String,
        /// `translation`, `rotation`, `scale` or `weights`.
        channel: &'static str,
    },
    /// A clip or joint named by the caller does not exist.
    #[error("{what} not found")]
    NotFound {
        /// What was looked for.
        what: String,
    },
    /// An index in raw data points past the end of what it indexes.
    #[error("{object}: {what} {index} is out of range (there are {count})")]
    IndexOutOfRange {
        /// The object holding the index (a skin's joint, an animation channel, a vertex).
        object: String,
        /// What the index counts (`node`, `skin`, `skin joint`, `skeleton joint`).
        what: &'static str,
        /// The index found.
        index: usize,
        /// How many there are.
        count: usize,
    },
    /// A track's value count is not what its key count and interpolation need (one value per
    /// key, three for `CUBICSPLINE`).
    #[error(
        "animation {animation} channel {channel}: {times} {interpolation} key times need {expected} values, found {values}"
    )]
    ValueCount {
        /// Animation index.
        animation: usize,
        /// Channel (track) index in the animation.
        channel: usize,
        /// The interpolation's glTF name.
        interpolation: &'static str,
        /// Number of key times.
        times: usize,
        /// Number of values needed.
        expected: usize,
        /// Number of values found.
        values: usize,
    },
    /// A raw skinned mesh whose streams disagree or hold values that cannot be drawn.
    #[error("mesh {mesh:?}: {reason}")]
    Mesh {
        /// The mesh's name.
        mesh: String,
        /// What is inconsistent.
        reason: String,
    },
    /// The primitives of one mesh have different numbers of morph targets (glTF requires one
    /// count for all of them).
    #[error(
        "mesh {mesh} primitive {primitive}: {found} morph targets, primitive 0 has {expected} (all primitives of a mesh must have the same number)"
    )]
    MorphTargetCount {
        /// Index of the mesh.
        mesh: usize,
        /// The first primitive whose count differs.
        primitive: usize,
        /// Its target count.
        found: usize,
        /// The target count of primitive 0.
        expected: usize,
    },
    /// Default morph weights (a mesh's or a node's `weights`) are not one per morph target.
    #[error("{object}: {found} default morph weights for {expected} morph targets")]
    MorphWeights {
        /// The mesh or node.
        object: String,
        /// Weights given.
        found: usize,
        /// Morph targets of the mesh.
        expected: usize,
    },
    /// A `weights` animation channel targets a node whose mesh has no morph targets (or a node
    /// without a mesh).
    #[error(
        "animation {animation} channel {channel}: animates the morph weights of node {node}, whose mesh has no morph targets"
    )]
    WeightsTarget {
        /// Animation index.
        animation: usize,
        /// Channel index in the animation.
        channel: usize,
        /// The targeted node.
        node: usize,
    },
    /// A `weights` channel's output count is not key count × morph target count (× 3 for
    /// CUBICSPLINE).
    #[error(
        "animation {animation} channel {channel}: {values} weight values for {times} keys of {targets} morph targets"
    )]
    WeightKeyCount {
        /// Animation index.
        animation: usize,
        /// Channel index in the animation.
        channel: usize,
        /// Number of key times.
        times: usize,
        /// Morph targets of the node's mesh.
        targets: usize,
        /// Number of output values.
        values: usize,
    },
    /// The morph-target mesh nodes of one rig need more weights than
    /// [`crate::MAX_MORPH_WEIGHTS`].
    #[error("{object} needs {count} morph weights; the limit is {limit}")]
    TooManyMorphWeights {
        /// The rig.
        object: String,
        /// Weights needed (each node's range padded to a multiple of 4).
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// The file requires an extension that sinew does not implement.
    #[error("requires extension {name}, which sinew does not support")]
    UnsupportedExtension {
        /// The extension's name.
        name: String,
    },
    /// A meshopt-compressed buffer view breaks the extension's rules or does not decode.
    #[error("buffer view {view}: {reason}")]
    CompressedView {
        /// Index of the buffer view.
        view: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// An accessor breaks a glTF accessor rule (count, alignment, stride, sparse order, bounds).
    #[error("accessor {accessor}: {reason}")]
    AccessorRule {
        /// Index of the accessor.
        accessor: usize,
        /// The rule and how it is broken.
        reason: String,
    },
    /// An animation channel breaks a glTF animation rule (its target or its keys).
    #[error("animation {animation} channel {channel}: {reason}")]
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
    /// More constraints than [`crate::ik::MAX_IK_CONSTRAINTS`].
    #[error("rig {rig}: {count} IK constraints, at most {max}", max = crate::ik::MAX_IK_CONSTRAINTS)]
    TooMany {
        /// The rig's name.
        rig: String,
        /// How many were given.
        count: usize,
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

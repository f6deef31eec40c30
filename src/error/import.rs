//! Import and bake errors: what stops a glTF or FBX file, or hand-built raw data, from becoming
//! rigs.

use glam::{Quat, Vec3};
use thiserror::Error;

use crate::math::Axis;

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
    Settings(SettingsError),
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
    /// A sync marker of an animation (its `extras`) is unnamed or outside the clip.
    #[error("animation {animation}: sync marker {marker} {reason}")]
    SyncMarker {
        /// Clip (animation) index.
        animation: usize,
        /// Marker index, in file order.
        marker: usize,
        /// What is wrong with it.
        reason: &'static str,
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

/// Import settings that cannot describe a file.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SettingsError {
    /// The unit scale is zero, negative, infinite or NaN.
    #[error("unit scale {0} is not a finite positive number")]
    UnitScale(f32),
    /// The up and forward axes lie along the same line.
    #[error("up axis {up} and forward axis {forward} are not perpendicular")]
    Axes {
        /// The up axis given.
        up: Axis,
        /// The forward axis given.
        forward: Axis,
    },
    /// The extra rotation is not a finite unit quaternion.
    #[error("root rotation {0} is not a unit quaternion")]
    Rotation(Quat),
    /// The extra translation is not finite.
    #[error("root translation {0} is not finite")]
    Translation(Vec3),
}

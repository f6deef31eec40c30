//! Editable animation data as imported, before baking: a glTF or FBX file's node graph, skins,
//! animations and skinned meshes in plain Rust types. Validated once by the importer; the baker
//! trusts it.

use glam::{Mat4, Vec4};

use super::extensions::ExtensionUse;
pub use crate::baked::{Channel, ClipMarker, Interpolation};
use crate::math::Sqt;

/// A whole imported file: the scene's node forest and everything that animates it.
#[derive(Clone, Debug, Default)]
pub struct RawAsset {
    /// The file it came from, for error messages.
    pub file: String,
    /// Every node of the file, in glTF index order (FBX: ufbx's order, its scene root first).
    pub nodes: Vec<RawNode>,
    /// Every skin, in glTF index order (FBX: one per skin deformer).
    pub skins: Vec<RawSkin>,
    /// Every animation, in glTF index order (FBX: one per animation stack).
    pub clips: Vec<RawClip>,
    /// Every skinned primitive, grouped per skinned mesh node.
    pub meshes: Vec<RawMesh>,
    /// Every node whose mesh has morph targets (skinned or not), in node order.
    pub morph_nodes: Vec<RawMorphNode>,
    /// The extensions the file declares in `extensionsUsed`, with how sinew treats each.
    pub extensions: Vec<ExtensionUse>,
}

/// One node of the glTF node graph.
#[derive(Clone, Debug, PartialEq)]
pub struct RawNode {
    /// The node's name, or `node<i>` when it has none.
    pub name: String,
    /// Index of the parent node, `None` for roots.
    pub parent: Option<usize>,
    /// The node's local transform (its TRS, or its decomposed `matrix`).
    pub rest: Sqt,
}

/// A glTF skin: which nodes deform a mesh, and their inverse bind matrices.
#[derive(Clone, Debug, PartialEq)]
pub struct RawSkin {
    /// The skin's name, if the file gives one.
    pub name: Option<String>,
    /// Joint nodes, in skin order (the order vertex joint indices refer to).
    pub joints: Vec<usize>,
    /// One inverse bind matrix per joint (identity when the file has none).
    pub inverse_binds: Vec<Mat4>,
    /// The `skeleton` root node, if the file names one.
    pub skeleton_root: Option<usize>,
    /// Nodes whose mesh this skin deforms.
    pub mesh_nodes: Vec<usize>,
}

/// One animated channel of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct RawTrack {
    /// Target node index (in the asset being imported; a joint index once retargeted).
    pub target: usize,
    /// The animated property.
    pub channel: Channel,
    /// How to interpolate.
    pub interpolation: Interpolation,
    /// Strictly increasing key times in seconds.
    pub times: Vec<f32>,
    /// Key values: one per key, or three per key (in tangent, value, out tangent) for
    /// [`Interpolation::CubicSpline`].
    pub values: Vec<Vec4>,
}

/// One animation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawClip {
    /// The animation's name (may be empty).
    pub name: String,
    /// Its animated channels.
    pub tracks: Vec<RawTrack>,
    /// Its morph-target `weights` channels, one per animated mesh node.
    pub weights: Vec<RawWeightTrack>,
    /// Its sync markers (from the glTF animation's `extras`), in any order.
    pub markers: Vec<ClipMarker>,
}

impl RawClip {
    /// The clip's length: the last key time over all tracks, weight tracks included (glTF
    /// timeline, starting at 0).
    pub fn duration(&self) -> f32 {
        self.tracks
            .iter()
            .map(|t| t.times.as_slice())
            .chain(self.weights.iter().map(|w| w.times.as_slice()))
            .filter_map(|times| times.last().copied())
            .fold(0.0, f32::max)
    }
}

/// The morph weights of one mesh node over time: a glTF `weights` channel.
#[derive(Clone, Debug, PartialEq)]
pub struct RawWeightTrack {
    /// The mesh node animated (glTF node index).
    pub target: usize,
    /// How to interpolate (component-wise for every weight).
    pub interpolation: Interpolation,
    /// Strictly increasing key times in seconds.
    pub times: Vec<f32>,
    /// Morph targets of the node's mesh: weights per key value.
    pub target_count: usize,
    /// Key values, `target_count` weights each: one per key, or three per key (in tangent,
    /// value, out tangent) for [`Interpolation::CubicSpline`]. Weight `i` of key value `v` is
    /// `values[v * target_count + i]`.
    pub values: Vec<f32>,
}

/// One morph target of a primitive: per-vertex displacements, added to the base vertex scaled
/// by the target's weight.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawMorphTarget {
    /// Position displacement per vertex (zero when the target has no `POSITION`).
    pub positions: Vec<[f32; 3]>,
    /// Normal displacement per vertex (zero when the target has no `NORMAL`).
    pub normals: Vec<[f32; 3]>,
}

/// A node whose mesh has morph targets, with the weights it shows when nothing animates it.
#[derive(Clone, Debug, PartialEq)]
pub struct RawMorphNode {
    /// The glTF node.
    pub node: usize,
    /// The glTF mesh it instantiates.
    pub mesh: usize,
    /// Default weights, one per target: the node's `weights`, else the mesh's, else zeros.
    pub weights: Vec<f32>,
}

/// A triangle primitive's vertex streams: skinned (joint indices refer to the skin's joint
/// order) or rigid (it follows its node, like a part hanging from a joint).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawMesh {
    /// The mesh's name, or `mesh<i>`.
    pub name: String,
    /// The glTF node that instantiates the mesh.
    pub node: usize,
    /// The skin deforming it, or `None` for a rigid mesh: its positions are in `node`'s space
    /// and it moves with that node, and `joints` and `weights` are empty.
    pub skin: Option<usize>,
    /// Positions in bind space (in the node's space for a rigid mesh).
    pub positions: Vec<[f32; 3]>,
    /// Normals (zero when the file has none).
    pub normals: Vec<[f32; 3]>,
    /// First texture coordinate set (zero when the file has none).
    pub uvs: Vec<[f32; 2]>,
    /// Tangents with handedness in `w`, when the file has them.
    pub tangents: Option<Vec<[f32; 4]>>,
    /// Second texture coordinate set, when the file has one.
    pub uvs1: Option<Vec<[f32; 2]>>,
    /// Vertex colours (`COLOR_0`, linear RGBA; alpha 1 for RGB), when the file has them.
    pub colors: Option<Vec<[f32; 4]>>,
    /// The primitive's material (`None`: glTF's default material, or an FBX mesh).
    pub material: Option<std::sync::Arc<super::Material>>,
    /// Up to [`MAX_INFLUENCES`](super::MAX_INFLUENCES) influences per vertex, strongest first,
    /// skin joint indices (unused slots 0); empty for a rigid mesh.
    pub joints: Vec<[u16; super::MAX_INFLUENCES]>,
    /// Their weights, summing to one (unused slots 0), or all zero for a vertex no joint
    /// influences (it moves rigidly with the character, see [`crate::SkinnedMesh::build`]).
    pub weights: Vec<[f32; super::MAX_INFLUENCES]>,
    /// Triangle list indices.
    pub indices: Vec<u32>,
    /// Morph targets (every primitive of a mesh has the same number).
    pub targets: Vec<RawMorphTarget>,
    /// Vertices that had more than [`MAX_INFLUENCES`](super::MAX_INFLUENCES) nonzero influences
    /// in the file: their strongest ones were kept, renormalized.
    pub influences_cut: usize,
}

//! Morph targets baked per rig: which mesh nodes a rig carries and where each one's weights sit
//! in the rig's weight vector ([`RigMorph`]), the target displacements of each skinned mesh
//! ([`MeshMorph`]), and the weight tracks of the clip library.
//!
//! Each instance of a rig has a weight vector. Every mesh node with morph targets that the rig
//! carries owns a range of it, starting at a multiple of 4 (the unused tail of a range stays
//! zero), so that 4 consecutive weights (a "chunk", one `vec4` key value) always belong to one
//! node. The clip library holds one weight track per clip × chunk, in the same track
//! descriptor and key tables as the joint tracks; a clip that does not animate a node's weights
//! points at a shared one-key track holding the node's default weights. The evaluators write
//! the weights after the instance's joint entries in its palette block, 12 per 48-byte entry.

use glam::{Vec3, Vec4};

use super::{ClipLibrary, MAX_JOINTS, TrackDesc};

/// The most morph weights one rig may have (every node's range padded to a multiple of
/// [`WEIGHTS_PER_CHUNK`]): at most [`MAX_MORPH_ENTRIES`] palette entries per instance.
pub const MAX_MORPH_WEIGHTS: usize = 768;

/// Weights per key value and weight track: one `vec4`.
pub const WEIGHTS_PER_CHUNK: usize = 4;

/// Weights per palette entry: a 48-byte 3x4 matrix holds 12 floats.
pub const WEIGHTS_PER_ENTRY: usize = 12;

/// The most palette entries the morph weights of one instance take.
pub const MAX_MORPH_ENTRIES: usize = MAX_MORPH_WEIGHTS / WEIGHTS_PER_ENTRY;

/// The longest palette block of any instance: [`MAX_JOINTS`] joint entries, then
/// [`MAX_MORPH_ENTRIES`] entries of morph weights.
pub const MAX_PALETTE_BLOCK: usize = MAX_JOINTS + MAX_MORPH_ENTRIES;

/// A mesh node whose morph weights a rig evaluates.
#[derive(Clone, Debug, PartialEq)]
pub struct MorphNode {
    /// The glTF node.
    pub node: u32,
    /// Its name.
    pub name: String,
    /// The skeleton joint whose layer-mask value scales the node's weights: the node itself
    /// when it is a joint, else its nearest ancestor in the skeleton, else joint 0.
    pub joint: u16,
    /// Index of its first weight in the rig's weight vector (a multiple of
    /// [`WEIGHTS_PER_CHUNK`]).
    pub first_weight: u32,
    /// Number of morph targets of its mesh (its weights).
    pub target_count: u32,
    /// The weights it shows when no clip animates them (one per target).
    pub defaults: Vec<f32>,
}

/// The mesh nodes with morph targets a rig carries, in glTF node order, and their places in
/// the weight vector. Empty for a rig without morph targets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RigMorph {
    pub(crate) nodes: Vec<MorphNode>,
}

/// The morph targets of one skinned mesh: per-vertex displacements of position and normal.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshMorph {
    /// Index in the rig's weight vector of the weight of target 0 (the mesh node's first
    /// weight).
    pub first_weight: u32,
    /// Number of targets.
    pub target_count: u32,
    /// Position displacements, target-major: target `t`, vertex `v` at
    /// `t * vertex_count + v`.
    pub positions: Vec<[f32; 3]>,
    /// Normal displacements, laid out like `positions`.
    pub normals: Vec<[f32; 3]>,
}

impl MeshMorph {
    /// Whether the mesh has no morph targets.
    pub fn is_empty(&self) -> bool {
        self.target_count == 0
    }

    /// The position and normal displacement of target `target` at vertex `vertex` (`None`
    /// outside the targets or vertices).
    pub fn delta(&self, target: usize, vertex: usize) -> Option<(Vec3, Vec3)> {
        let targets = self.target_count as usize;
        let vertices = self.positions.len() / targets.max(1);
        if target >= targets || vertex >= vertices {
            return None;
        }
        let i = target * vertices + vertex;
        Some((
            Vec3::from(*self.positions.get(i)?),
            Vec3::from(*self.normals.get(i)?),
        ))
    }
}

impl RigMorph {
    /// The mesh nodes, in glTF node order (ascending weight ranges).
    pub fn nodes(&self) -> &[MorphNode] {
        &self.nodes
    }

    /// Whether the rig has no morph targets.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The morph node made from glTF node `node`.
    pub fn node_of(&self, node: usize) -> Option<&MorphNode> {
        self.nodes.iter().find(|n| n.node as usize == node)
    }

    /// Length of the weight vector: every node's range, each padded to a multiple of
    /// [`WEIGHTS_PER_CHUNK`].
    pub fn weight_count(&self) -> usize {
        self.nodes.last().map_or(0, |n| {
            n.first_weight as usize + (n.target_count as usize).next_multiple_of(WEIGHTS_PER_CHUNK)
        })
    }

    /// Number of 4-weight chunks (weight tracks per clip).
    pub fn chunk_count(&self) -> usize {
        self.weight_count() / WEIGHTS_PER_CHUNK
    }

    /// Palette entries the weights take after an instance's joint entries: 12 weights each.
    pub fn palette_entries(&self) -> usize {
        self.weight_count().div_ceil(WEIGHTS_PER_ENTRY)
    }

    /// The node owning chunk `chunk`.
    pub fn chunk_node(&self, chunk: usize) -> Option<&MorphNode> {
        let weight = (chunk * WEIGHTS_PER_CHUNK) as u32;
        self.nodes.iter().rev().find(|n| n.first_weight <= weight)
    }

    /// The default weights of chunk `chunk` (zero past its node's targets).
    pub fn default_chunk(&self, chunk: usize) -> Vec4 {
        let mut out = [0.0; WEIGHTS_PER_CHUNK];
        if let Some(node) = self.chunk_node(chunk) {
            let first = chunk * WEIGHTS_PER_CHUNK - node.first_weight as usize;
            for (slot, w) in out.iter_mut().zip(node.defaults.iter().skip(first)) {
                *slot = *w;
            }
        }
        Vec4::from_array(out)
    }

    /// The skeleton joint whose mask value scales chunk `chunk`.
    pub fn chunk_joint(&self, chunk: usize) -> usize {
        self.chunk_node(chunk).map_or(0, |n| n.joint as usize)
    }
}

impl ClipLibrary {
    /// Number of weight chunks (weight tracks per clip); 0 for a rig without morph targets.
    pub fn weight_chunk_count(&self) -> usize {
        self.weight_chunks as usize
    }

    /// The weight track of `clip` and 4-weight chunk `chunk`.
    #[inline]
    pub fn weight_track(&self, clip: usize, chunk: usize) -> Option<&TrackDesc> {
        if chunk >= self.weight_chunks as usize {
            return None;
        }
        self.weight_tracks
            .get(clip * self.weight_chunks as usize + chunk)
    }

    /// Every weight track: index `clip * weight_chunk_count + chunk`.
    pub fn weight_tracks(&self) -> &[TrackDesc] {
        &self.weight_tracks
    }

    /// Index in [`ClipLibrary::values`] of the default weights of chunk 0 (chunk `k` follows at
    /// `+ k`): the key of every shared default-weight track, and the reference additive layers
    /// subtract.
    pub fn weight_default_offset(&self) -> usize {
        self.weight_defaults as usize
    }
}

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

use super::{ClipLibrary, MAX_JOINTS, Skeleton, SkinnedMesh, TrackDesc};
use crate::error::{ImportError, ImportErrorKind};
use crate::import::{Interpolation, RawAsset, RawClip, RawMesh, RawWeightTrack};

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

/// The nearest joint of `skeleton` at or above glTF node `node`.
fn joint_at_or_above(asset: &RawAsset, skeleton: &Skeleton, node: usize) -> Option<usize> {
    let mut at = Some(node);
    while let Some(n) = at {
        if let Some(j) = skeleton.joint_of_node(n) {
            return Some(j);
        }
        at = asset.nodes.get(n).and_then(|n| n.parent);
    }
    None
}

impl RigMorph {
    /// The morph nodes of the rig with `skeleton`, baked from glTF skin `skin` (`None` for a
    /// node rig): the mesh nodes that skin deforms, and the unskinned ones that hang from a
    /// joint of the skeleton (or are one). `object` names the rig in errors.
    pub fn build(
        asset: &RawAsset,
        skeleton: &Skeleton,
        skins: &[usize],
        object: &str,
    ) -> Result<Self, ImportError> {
        let skinned_by = |node: usize| {
            (0..asset.skins.len()).find(|&s| asset.skins[s].mesh_nodes.contains(&node))
        };
        let mut nodes = Vec::new();
        let mut next = 0usize;
        for raw in &asset.morph_nodes {
            let above = joint_at_or_above(asset, skeleton, raw.node);
            let carried = match skinned_by(raw.node) {
                Some(s) => skins.contains(&s),
                None => above.is_some(),
            };
            if !carried {
                continue;
            }
            let targets = raw.weights.len();
            nodes.push(MorphNode {
                node: raw.node as u32,
                name: asset
                    .nodes
                    .get(raw.node)
                    .map_or_else(|| format!("node{}", raw.node), |n| n.name.clone()),
                joint: above.unwrap_or(0) as u16,
                first_weight: next as u32,
                target_count: targets as u32,
                defaults: raw.weights.clone(),
            });
            next += targets.next_multiple_of(WEIGHTS_PER_CHUNK);
        }
        if next > MAX_MORPH_WEIGHTS {
            return Err(ImportError::new(
                &asset.file,
                ImportErrorKind::TooManyMorphWeights {
                    object: object.to_string(),
                    count: next,
                    limit: MAX_MORPH_WEIGHTS,
                },
            ));
        }
        Ok(Self { nodes })
    }

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

    /// The weight tracks of `clip` in `lib` (baked with this morph layout) as raw tracks over
    /// glTF nodes: one per node the clip animates.
    pub fn raw_weight_tracks(&self, lib: &ClipLibrary, clip: usize) -> Vec<RawWeightTrack> {
        let mut out = Vec::new();
        for node in &self.nodes {
            let first = node.first_weight as usize / WEIGHTS_PER_CHUNK;
            let chunks = (node.target_count as usize).div_ceil(WEIGHTS_PER_CHUNK);
            let Some(head) = lib.weight_track(clip, first) else {
                continue;
            };
            if head.time_offset == 0 {
                continue;
            }
            let interpolation =
                Interpolation::from_u32(head.interpolation).unwrap_or(Interpolation::Linear);
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let keys = head.key_count as usize;
            let t0 = head.time_offset as usize;
            let targets = node.target_count as usize;
            let mut values = vec![0.0; keys * per_key * targets];
            for c in 0..chunks {
                let Some(desc) = lib.weight_track(clip, first + c) else {
                    continue;
                };
                for v in 0..keys * per_key {
                    let key = lib.value(desc.value_offset as usize + v);
                    for i in 0..WEIGHTS_PER_CHUNK {
                        let weight = c * WEIGHTS_PER_CHUNK + i;
                        if weight < targets {
                            values[v * targets + weight] = key[i];
                        }
                    }
                }
            }
            out.push(RawWeightTrack {
                target: node.node as usize,
                interpolation,
                times: lib.times()[t0..t0 + keys].to_vec(),
                target_count: targets,
                values,
            });
        }
        out
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

/// Adds the weight tracks of `clips` (one per clip of `lib`, in order; weight tracks over glTF
/// nodes) to `lib` for the morph layout `morph`: shared default keys, then the keys of every
/// animated node, one track per clip × chunk. Weight tracks of nodes the rig does not carry are
/// left out.
pub(crate) fn bake_weight_tracks(
    lib: &mut ClipLibrary,
    morph: &RigMorph,
    clips: &[RawClip],
    file: &str,
) -> Result<(), ImportError> {
    let chunks = morph.chunk_count();
    lib.weight_chunks = chunks as u32;
    lib.weight_defaults = 0;
    lib.weight_tracks = Vec::with_capacity(clips.len() * chunks);
    if chunks == 0 {
        return Ok(());
    }
    lib.weight_defaults = lib.values.len() as u32;
    for k in 0..chunks {
        lib.values.push(morph.default_chunk(k).to_array());
    }
    for (c, clip) in clips.iter().enumerate() {
        let first = lib.weight_tracks.len();
        lib.weight_tracks.extend((0..chunks).map(|k| TrackDesc {
            time_offset: 0,
            value_offset: lib.weight_defaults + k as u32,
            key_count: 1,
            interpolation: Interpolation::Step as u32,
        }));
        let mut seen = vec![false; morph.nodes.len()];
        for track in &clip.weights {
            let Some(n) = morph
                .nodes
                .iter()
                .position(|n| n.node as usize == track.target)
            else {
                continue;
            };
            let node = &morph.nodes[n];
            let targets = node.target_count as usize;
            let per_key = if track.interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            if track.target_count != targets
                || track.values.len() != track.times.len() * per_key * targets
            {
                return Err(ImportError::new(
                    file,
                    ImportErrorKind::MorphWeights {
                        object: format!(
                            "clip {c} weight track of {} ({} keys, {} values)",
                            node.name,
                            track.times.len(),
                            track.values.len()
                        ),
                        found: track.target_count,
                        expected: targets,
                    },
                ));
            }
            if std::mem::replace(&mut seen[n], true) {
                return Err(ImportError::new(
                    file,
                    ImportErrorKind::DuplicateChannel {
                        animation: c,
                        target: node.name.clone(),
                        channel: "weights",
                    },
                ));
            }
            let time_offset = lib.times.len() as u32;
            lib.times.extend_from_slice(&track.times);
            let first_chunk = node.first_weight as usize / WEIGHTS_PER_CHUNK;
            for k in 0..targets.div_ceil(WEIGHTS_PER_CHUNK) {
                lib.weight_tracks[first + first_chunk + k] = TrackDesc {
                    time_offset,
                    value_offset: lib.values.len() as u32,
                    key_count: track.times.len() as u32,
                    interpolation: track.interpolation as u32,
                };
                for key in track.values.chunks_exact(targets) {
                    let mut value = [0.0; WEIGHTS_PER_CHUNK];
                    for (i, slot) in value.iter_mut().enumerate() {
                        *slot = key.get(k * WEIGHTS_PER_CHUNK + i).copied().unwrap_or(0.0);
                    }
                    lib.values.push(value);
                }
            }
        }
    }
    Ok(())
}

/// The morph targets of `raw` for a mesh of glTF node `raw.node` in a rig with `morph`
/// (empty when the rig does not carry the node or the mesh has no targets).
pub(crate) fn mesh_morph(raw: &RawMesh, morph: &RigMorph) -> MeshMorph {
    let Some(node) = morph.node_of(raw.node) else {
        return MeshMorph::default();
    };
    if raw.targets.is_empty() || raw.targets.len() != node.target_count as usize {
        return MeshMorph::default();
    }
    MeshMorph {
        first_weight: node.first_weight,
        target_count: node.target_count,
        positions: raw
            .targets
            .iter()
            .flat_map(|t| t.positions.iter().copied())
            .collect(),
        normals: raw
            .targets
            .iter()
            .flat_map(|t| t.normals.iter().copied())
            .collect(),
    }
}

/// Grows `mesh`'s joint bounds (and `bind_aabb`) to hold every vertex under any morph weights
/// in `[0, 1]`: per vertex, the box of base position plus each target's displacement taken or
/// not, transformed corner by corner into each influencing joint's space.
pub(crate) fn widen_bounds(mesh: &mut SkinnedMesh, skeleton: &Skeleton) {
    if mesh.morph.is_empty() {
        return;
    }
    for v in 0..mesh.vertex_count() {
        let base = Vec3::from(mesh.positions[v]);
        let (mut lo, mut hi) = (base, base);
        for t in 0..mesh.morph.target_count as usize {
            let (d, _) = mesh.morph.delta(t, v).unwrap_or((Vec3::ZERO, Vec3::ZERO));
            lo += d.min(Vec3::ZERO);
            hi += d.max(Vec3::ZERO);
        }
        for k in 0..8 {
            let corner = Vec3::new(
                if k & 1 == 0 { lo.x } else { hi.x },
                if k & 2 == 0 { lo.y } else { hi.y },
                if k & 4 == 0 { lo.z } else { hi.z },
            );
            mesh.bind_aabb.grow(corner);
            for (&j, &w) in mesh.joints[v].iter().zip(&mesh.weights[v]) {
                if w > 0.0 {
                    let local = skeleton.inverse_binds()[j as usize].transform_point3(corner);
                    mesh.joint_bounds[j as usize].grow(local);
                }
            }
        }
    }
}

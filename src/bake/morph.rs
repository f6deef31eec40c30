//! Morph layouts, mesh morphs and weight tracks baked from raw data.

use glam::Vec3;

use crate::baked::{
    ClipLibrary, Interpolation, MAX_MORPH_WEIGHTS, MeshMorph, MorphNode, RigMorph, Skeleton,
    SkinnedMesh, TrackDesc, WEIGHTS_PER_CHUNK,
};
use crate::error::{ImportError, ImportErrorKind};
use crate::import::{RawAsset, RawClip, RawMesh, RawWeightTrack};

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

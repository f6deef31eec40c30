//! The morph sections of a `.sinew` file (layout in `file.rs`): a rig's morph nodes and weight
//! tracks, and each mesh's target displacements. Written only where there are morph targets,
//! so a rig without them encodes as in version 1; decoding checks the baked invariants.

use super::container::{Section, SectionId, SectionKind, SectionTable};
use super::section::{SectionReader, SectionWriter, count};
use super::validate;
use crate::baked::{
    ClipLibrary, MAX_MORPH_WEIGHTS, MeshMorph, MorphNode, Rig, RigMorph, Skeleton, SkinnedMesh,
    WEIGHTS_PER_CHUNK,
};
use crate::error::FormatErrorKind;

/// The morph section of rig `r`, when it has morph nodes.
pub(super) fn rig_section(rig: &Rig, r: u32) -> Option<Section> {
    let morph = &rig.morph;
    if morph.is_empty() {
        return None;
    }
    let clips = &rig.clips;
    let defaults: Vec<f32> = morph
        .nodes
        .iter()
        .flat_map(|n| n.defaults.iter().copied())
        .collect();
    let mut w = SectionWriter::default();
    w.u32(count(morph.nodes.len()));
    w.u32(clips.weight_chunks);
    w.u32(clips.weight_defaults);
    w.u32(count(clips.weight_tracks.len()));
    w.u32(count(defaults.len()));
    let nodes: Vec<[u32; 4]> = morph
        .nodes
        .iter()
        .map(|n| [n.node, u32::from(n.joint), n.first_weight, n.target_count])
        .collect();
    w.array(&nodes);
    w.strings(morph.nodes.iter().map(|n| n.name.as_str()));
    w.array(&defaults);
    w.array(&clips.weight_tracks);
    Some(Section {
        id: SectionId::of(SectionKind::Morph, r),
        body: w.finish(),
    })
}

/// The morph section of mesh `m` of rig `r`, when it has targets.
pub(super) fn mesh_section(mesh: &SkinnedMesh, r: u32, m: u32) -> Option<Section> {
    let morph = &mesh.morph;
    if morph.is_empty() {
        return None;
    }
    let mut w = SectionWriter::default();
    w.u32(morph.target_count);
    w.u32(morph.first_weight);
    w.u32(count(morph.positions.len()));
    w.u32(count(morph.normals.len()));
    w.array(&morph.positions);
    w.array(&morph.normals);
    Some(Section {
        id: SectionId::of_mesh(SectionKind::MeshMorph, r, m),
        body: w.finish(),
    })
}

/// Decodes the morph section of rig `r` (none: no morph targets) and puts its weight tracks
/// into `clips`.
pub(super) fn decode_rig(
    table: &mut SectionTable<'_>,
    r: u32,
    clips: &mut ClipLibrary,
    skeleton: &Skeleton,
) -> Result<RigMorph, FormatErrorKind> {
    let id = SectionId::of(SectionKind::Morph, r);
    let Some(body) = table.take_optional(id) else {
        return Ok(RigMorph::default());
    };
    let mut rd = SectionReader::new(body, id);
    let node_count = rd.u32("node count")?;
    let chunks = rd.u32("weight chunk count")?;
    let defaults_at = rd.u32("default key offset")?;
    let track_count = rd.u32("weight track count")?;
    let default_count = rd.u32("default weight count")?;
    let nodes: Vec<[u32; 4]> = rd.array(node_count, "nodes")?;
    let names = rd.strings(node_count, "node names")?;
    let defaults: Vec<f32> = rd.array(default_count, "default weights")?;
    let tracks = rd.array(track_count, "weight tracks")?;
    rd.finish()?;
    let corrupt = |reason: String| rd_error(id, reason);
    let expected: u64 = nodes.iter().map(|n| u64::from(n[3])).sum();
    if expected != u64::from(default_count) {
        return Err(corrupt(format!(
            "{default_count} default weights for {expected} morph targets"
        )));
    }
    let mut rest = defaults.as_slice();
    let mut morph = RigMorph::default();
    for (n, name) in nodes.iter().zip(names) {
        let Some((mine, after)) = rest.split_at_checked(n[3] as usize) else {
            return Err(corrupt("default weights run past their table".into()));
        };
        rest = after;
        morph.nodes.push(MorphNode {
            node: n[0],
            name,
            joint: u16::try_from(n[1]).unwrap_or(u16::MAX),
            first_weight: n[2],
            target_count: n[3],
            defaults: mine.to_vec(),
        });
    }
    clips.weight_chunks = chunks;
    clips.weight_defaults = defaults_at;
    clips.weight_tracks = tracks;
    check_rig(&morph, clips, skeleton).map_err(corrupt)?;
    Ok(morph)
}

fn rd_error(id: SectionId, reason: String) -> FormatErrorKind {
    FormatErrorKind::Corrupt {
        section: id.to_string(),
        reason,
    }
}

/// Decodes the morph targets of mesh `m` of rig `r` (none: the mesh has none) into `mesh`.
pub(super) fn decode_mesh(
    table: &mut SectionTable<'_>,
    r: u32,
    m: u32,
    mesh: &mut SkinnedMesh,
    morph: &RigMorph,
) -> Result<(), FormatErrorKind> {
    let id = SectionId::of_mesh(SectionKind::MeshMorph, r, m);
    let Some(body) = table.take_optional(id) else {
        return Ok(());
    };
    let mut rd = SectionReader::new(body, id);
    let target_count = rd.u32("target count")?;
    let first_weight = rd.u32("first weight")?;
    let position_count = rd.u32("position delta count")?;
    let normal_count = rd.u32("normal delta count")?;
    let positions = rd.array(position_count, "position deltas")?;
    let normals = rd.array(normal_count, "normal deltas")?;
    rd.finish()?;
    mesh.morph = MeshMorph {
        first_weight,
        target_count,
        positions,
        normals,
    };
    check_mesh(mesh, morph).map_err(|reason| rd_error(id, reason))
}

/// Nodes in contiguous 4-aligned ranges with finite defaults and joints in the skeleton; one
/// valid weight track per clip × chunk; the default keys inside the key values.
fn check_rig(morph: &RigMorph, clips: &ClipLibrary, skeleton: &Skeleton) -> Result<(), String> {
    let mut next = 0u64;
    for (i, node) in morph.nodes.iter().enumerate() {
        if node.target_count == 0 {
            return Err(format!("node {i} has no morph targets"));
        }
        if u64::from(node.first_weight) != next {
            return Err(format!(
                "node {i} starts at weight {}, not {next}",
                node.first_weight
            ));
        }
        if node.joint as usize >= skeleton.joint_count() {
            return Err(format!(
                "node {i} follows joint {}, the skeleton has {}",
                node.joint,
                skeleton.joint_count()
            ));
        }
        if node.defaults.iter().any(|w| !w.is_finite()) {
            return Err(format!("node {i} has a default weight that is not finite"));
        }
        next += u64::from(node.target_count).next_multiple_of(WEIGHTS_PER_CHUNK as u64);
    }
    if next > MAX_MORPH_WEIGHTS as u64 {
        return Err(format!("{next} weights, more than {MAX_MORPH_WEIGHTS}"));
    }
    let chunks = morph.chunk_count();
    if clips.weight_chunks as usize != chunks {
        return Err(format!(
            "{} weight chunks, the nodes have {chunks}",
            clips.weight_chunks
        ));
    }
    let expected = clips.clip_count() * chunks;
    if clips.weight_tracks.len() != expected {
        return Err(format!(
            "{} weight tracks, {} clips × {chunks} chunks = {expected} expected",
            clips.weight_tracks.len(),
            clips.clip_count()
        ));
    }
    if clips.weight_defaults as usize + chunks > clips.values.len() {
        return Err(format!(
            "default keys {}..{} lie past the {} key values",
            clips.weight_defaults,
            clips.weight_defaults as usize + chunks,
            clips.values.len()
        ));
    }
    for (i, desc) in clips.weight_tracks.iter().enumerate() {
        validate::track(clips, desc).map_err(|reason| {
            format!(
                "weight track {i} (clip {}, chunk {}) {reason}",
                i / chunks,
                i % chunks
            )
        })?;
    }
    Ok(())
}

/// Two delta streams of targets × vertices finite entries, for a node of the rig with the same
/// first weight and target count.
fn check_mesh(mesh: &SkinnedMesh, morph: &RigMorph) -> Result<(), String> {
    let m = &mesh.morph;
    let owner = morph
        .nodes
        .iter()
        .find(|n| n.first_weight == m.first_weight && n.target_count == m.target_count);
    if m.target_count == 0 || owner.is_none() {
        return Err(format!(
            "{} targets from weight {} match no morph node of the rig",
            m.target_count, m.first_weight
        ));
    }
    let expected = m.target_count as u64 * mesh.vertex_count() as u64;
    for (name, len) in [
        ("position deltas", m.positions.len()),
        ("normal deltas", m.normals.len()),
    ] {
        if len as u64 != expected {
            return Err(format!(
                "{len} {name} for {} targets × {} vertices",
                m.target_count,
                mesh.vertex_count()
            ));
        }
    }
    if m.positions
        .iter()
        .chain(&m.normals)
        .any(|d| !d.iter().all(|x| x.is_finite()))
    {
        return Err("a displacement is not finite".into());
    }
    Ok(())
}

//! Section bodies → rigs, each part checked against the baked invariants as it is decoded.

use glam::{Affine3A, Quat, Vec3};

use super::container::{SectionId, SectionKind, SectionTable};
use super::section::SectionReader;
use super::validate;
use super::{LAST_ONE_SKIN_VERSION, NO_INDEX};
use crate::baked::{ClipInfo, ClipLibrary, Rig, RigSkin, Skeleton, SkinnedMesh};
use crate::error::FormatErrorKind;
use crate::math::Aabb;
use crate::math::Sqt;

/// Decodes every rig of `table`; every section must belong to one of them.
pub(super) fn rigs(table: &mut SectionTable<'_>) -> Result<Vec<Rig>, FormatErrorKind> {
    let rigs = (0..table.rig_count())
        .map(|r| rig(table, r))
        .collect::<Result<Vec<_>, _>>()?;
    table.finish()?;
    Ok(rigs)
}

/// Turns a violated invariant of section `id` into an error.
fn corrupt(id: SectionId) -> impl Fn(String) -> FormatErrorKind {
    move |reason| FormatErrorKind::Corrupt {
        section: id.to_string(),
        reason,
    }
}

fn rig(table: &mut SectionTable<'_>, r: u32) -> Result<Rig, FormatErrorKind> {
    let id = SectionId::of(SectionKind::Rig, r);
    let mut rd = SectionReader::new(table.take(id)?, id);
    let mesh_count = rd.u32("mesh count")?;
    let (name, skins, joint_bounds) = if table.version <= LAST_ONE_SKIN_VERSION {
        let skin_joint_count = rd.u32("skin joint count")?;
        let bound_count = rd.u32("joint bound count")?;
        let name = rd.string("rig name")?;
        let joints: Vec<u16> = rd.array(skin_joint_count, "skin joints")?;
        let joint_bounds = rd.array(bound_count, "joint bounds")?;
        // Versions 1 and 2 baked glTF skin `r` as rig `r`.
        let skins = if joints.is_empty() {
            Vec::new()
        } else {
            vec![RigSkin {
                index: r as usize,
                name: name.clone(),
                joints,
            }]
        };
        (name, skins, joint_bounds)
    } else {
        let skin_count = rd.u32("skin count")?;
        let skin_joint_count = rd.u32("skin joint count")?;
        let bound_count = rd.u32("joint bound count")?;
        let name = rd.string("rig name")?;
        let names = rd.strings(skin_count, "skin names")?;
        let indices: Vec<u32> = rd.array(skin_count, "skin indices")?;
        let lengths: Vec<u32> = rd.array(skin_count, "joints per skin")?;
        let joints: Vec<u16> = rd.array(skin_joint_count, "skin joints")?;
        let joint_bounds = rd.array(bound_count, "joint bounds")?;
        let total: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
        if total != joints.len() as u64 {
            return Err(rd.corrupt(format!(
                "the skins have {total} joints, the rig stores {}",
                joints.len()
            )));
        }
        let mut rest = joints.as_slice();
        let mut skins = Vec::with_capacity(names.len());
        for ((name, index), len) in names.into_iter().zip(indices).zip(lengths) {
            // The lengths sum to the joint count, so every split is in range.
            let (these, tail) = rest.split_at(len as usize);
            rest = tail;
            skins.push(RigSkin {
                index: index as usize,
                name,
                joints: these.to_vec(),
            });
        }
        (name, skins, joint_bounds)
    };
    rd.finish()?;

    let skeleton = skeleton(table, r)?;
    let mut clips = clips(table, r, &skeleton)?;
    let morph = super::morph::decode_rig(table, r, &mut clips, &skeleton)?;
    let compressed = super::compressed::decode_rig(table, r, &clips)?;
    let materials = super::materials::decode_rig(table, r)?;
    super::markers::decode_rig(table, r, &mut clips)?;
    // Not `with_capacity(mesh_count)`: the count is only trusted once every mesh section exists.
    let mut meshes = Vec::new();
    for m in 0..mesh_count {
        let mut mesh = mesh(table, SectionId::mesh(r, m), &skeleton)?;
        if table.version <= LAST_ONE_SKIN_VERSION {
            // Those versions had skinned meshes only, each of the rig's one skin.
            mesh.skin = skins.first().map(|s| s.index as u32);
        }
        super::morph::decode_mesh(table, r, m, &mut mesh, &morph)?;
        super::influences::decode_mesh(table, r, m, &mut mesh, &skeleton)?;
        let surface = SectionId::of_mesh(SectionKind::MeshSurface, r, m);
        super::surface::decode_mesh(table, surface, &mut mesh, &materials)?;
        meshes.push(mesh);
    }
    let rig = Rig {
        name,
        skeleton,
        clips,
        meshes,
        skins,
        joint_bounds,
        morph,
        ik: crate::baked::ik::RigIk::NONE,
        compressed,
    };
    validate::rig(&rig).map_err(corrupt(id))?;
    Ok(rig)
}

/// A rest transform from its stored form: translation, rotation (xyzw), scale.
fn sqt_from_array(a: &[f32; 10]) -> Sqt {
    Sqt {
        translation: Vec3::new(a[0], a[1], a[2]),
        rotation: Quat::from_xyzw(a[3], a[4], a[5], a[6]),
        scale: Vec3::new(a[7], a[8], a[9]),
    }
}

fn skeleton(table: &mut SectionTable<'_>, r: u32) -> Result<Skeleton, FormatErrorKind> {
    let id = SectionId::of(SectionKind::Skeleton, r);
    let mut rd = SectionReader::new(table.take(id)?, id);
    let joint_count = rd.u32("joint count")?;
    let level_start_count = rd.u32("level start count")?;
    let names = rd.strings(joint_count, "joint names")?;
    let parents = rd.array(joint_count, "parents")?;
    let level_starts = rd.array(level_start_count, "level starts")?;
    let rest: Vec<[f32; 10]> = rd.array(joint_count, "rest pose")?;
    let binds: Vec<[f32; 12]> = rd.array(joint_count, "inverse binds")?;
    let source_nodes = rd.array(joint_count, "source nodes")?;
    rd.finish()?;
    let skeleton = Skeleton {
        names,
        parents,
        level_starts,
        rest: rest.iter().map(sqt_from_array).collect(),
        inverse_binds: binds.iter().map(Affine3A::from_cols_array).collect(),
        source_nodes,
    };
    validate::skeleton(&skeleton).map_err(corrupt(id))?;
    Ok(skeleton)
}

fn clips(
    table: &mut SectionTable<'_>,
    r: u32,
    skeleton: &Skeleton,
) -> Result<ClipLibrary, FormatErrorKind> {
    let id = SectionId::of(SectionKind::Clips, r);
    let mut rd = SectionReader::new(table.take(id)?, id);
    let joint_count = rd.u32("joint count")?;
    let clip_count = rd.u32("clip count")?;
    let track_count = rd.u32("track count")?;
    let time_count = rd.u32("time count")?;
    let value_count = rd.u32("value count")?;
    let names = rd.strings(clip_count, "clip names")?;
    let durations: Vec<f32> = rd.array(clip_count, "durations")?;
    let tracks = rd.array(track_count, "track descriptors")?;
    let times = rd.array(time_count, "key times")?;
    let values = rd.array(value_count, "key values")?;
    rd.finish()?;
    let clips = ClipLibrary {
        joint_count,
        clips: names
            .into_iter()
            .zip(durations)
            .map(|(name, duration)| ClipInfo {
                name,
                duration,
                markers: Vec::new(),
            })
            .collect(),
        tracks,
        times,
        values,
        weight_chunks: 0,
        weight_defaults: 0,
        weight_tracks: Vec::new(),
    };
    validate::clips(&clips, skeleton).map_err(corrupt(id))?;
    Ok(clips)
}

fn mesh(
    table: &mut SectionTable<'_>,
    id: SectionId,
    skeleton: &Skeleton,
) -> Result<SkinnedMesh, FormatErrorKind> {
    let mut rd = SectionReader::new(table.take(id)?, id);
    let has_tangents = match rd.u32("tangent flag")? {
        0 => false,
        1 => true,
        other => return Err(rd.corrupt(format!("tangent flag is {other}, not 0 or 1"))),
    };
    let position_count = rd.u32("position count")?;
    let normal_count = rd.u32("normal count")?;
    let uv_count = rd.u32("uv count")?;
    let tangent_count = rd.u32("tangent count")?;
    let joint_count = rd.u32("joint count")?;
    let weight_count = rd.u32("weight count")?;
    let index_count = rd.u32("index count")?;
    let bound_count = rd.u32("joint bound count")?;
    // Since version 3: the glTF node and skin (NO_INDEX: unknown node, or a rigid mesh).
    let (node, skin) = if table.version > LAST_ONE_SKIN_VERSION {
        let index = |i: u32| Some(i).filter(|&i| i != NO_INDEX);
        (index(rd.u32("mesh node")?), index(rd.u32("mesh skin")?))
    } else {
        (None, None)
    };
    let name = rd.string("mesh name")?;
    let bind_aabb = rd.array(1, "bind AABB")?.pop().unwrap_or(Aabb::EMPTY);
    let positions = rd.array(position_count, "positions")?;
    let normals = rd.array(normal_count, "normals")?;
    let uvs = rd.array(uv_count, "uvs")?;
    let tangents = match (has_tangents, tangent_count) {
        (true, n) => Some(rd.array(n, "tangents")?),
        (false, 0) => None,
        (false, n) => return Err(rd.corrupt(format!("{n} tangents but no tangent flag"))),
    };
    let joints = super::influences::widen(rd.array(joint_count, "joints")?);
    let weights = super::influences::widen(rd.array(weight_count, "weights")?);
    let indices = rd.array(index_count, "indices")?;
    let joint_bounds = rd.array(bound_count, "joint bounds")?;
    rd.finish()?;
    let mesh = SkinnedMesh {
        name,
        node,
        skin,
        positions,
        normals,
        uvs,
        tangents,
        uvs1: None,
        colors: None,
        material: None,
        joints,
        weights,
        indices,
        bind_aabb,
        joint_bounds,
        morph: crate::baked::MeshMorph::default(),
        influences_cut: 0,
    };
    validate::mesh(&mesh, skeleton).map_err(corrupt(id))?;
    Ok(mesh)
}

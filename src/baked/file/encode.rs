//! Rigs → section bodies (the layout is documented in `file.rs`).

use super::NO_INDEX;
use super::container::{Section, SectionId, SectionKind};
use super::section::{SectionWriter, count};
use crate::baked::{ClipLibrary, Rig, Skeleton, SkinnedMesh};
use crate::math::Sqt;

/// Every section of `rigs`, in file order.
pub(super) fn sections(rigs: &[Rig]) -> Vec<Section> {
    let mut out = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let r = count(r);
        out.push(Section {
            id: SectionId::of(SectionKind::Rig, r),
            body: rig_body(rig),
        });
        out.push(Section {
            id: SectionId::of(SectionKind::Skeleton, r),
            body: skeleton_body(&rig.skeleton),
        });
        out.push(Section {
            id: SectionId::of(SectionKind::Clips, r),
            body: clips_body(&rig.clips),
        });
        out.extend(super::morph::rig_section(rig, r));
        out.extend(super::compressed::rig_section(rig.compressed.as_ref(), r));
        out.extend(super::materials::rig_section(rig, r));
        out.extend(super::markers::rig_section(&rig.clips, r));
        let materials = super::materials::RigMaterials::of(rig);
        for (m, mesh) in rig.meshes.iter().enumerate() {
            out.push(Section {
                id: SectionId::mesh(r, count(m)),
                body: mesh_body(mesh),
            });
            out.extend(super::morph::mesh_section(mesh, r, count(m)));
            out.extend(super::influences::mesh_section(mesh, r, count(m)));
            out.extend(super::surface::mesh_section(mesh, &materials, r, count(m)));
        }
    }
    out
}

fn rig_body(rig: &Rig) -> Vec<u8> {
    let mut w = SectionWriter::default();
    let joints: Vec<u16> = rig.skins.iter().flat_map(|s| s.joints.clone()).collect();
    w.u32(count(rig.meshes.len()));
    w.u32(count(rig.skins.len()));
    w.u32(count(joints.len()));
    w.u32(count(rig.joint_bounds.len()));
    w.strings(std::iter::once(rig.name.as_str()));
    w.strings(rig.skins.iter().map(|s| s.name.as_str()));
    let indices: Vec<u32> = rig.skins.iter().map(|s| count(s.index)).collect();
    w.array(&indices);
    let lengths: Vec<u32> = rig.skins.iter().map(|s| count(s.joints.len())).collect();
    w.array(&lengths);
    w.array(&joints);
    w.array(&rig.joint_bounds);
    w.finish()
}

/// A rest transform as stored: translation, rotation (xyzw), scale.
fn sqt_to_array(sqt: &Sqt) -> [f32; 10] {
    let (t, r, s) = (sqt.translation, sqt.rotation, sqt.scale);
    [t.x, t.y, t.z, r.x, r.y, r.z, r.w, s.x, s.y, s.z]
}

fn skeleton_body(skeleton: &Skeleton) -> Vec<u8> {
    let mut w = SectionWriter::default();
    w.u32(count(skeleton.parents.len()));
    w.u32(count(skeleton.level_starts.len()));
    w.strings(skeleton.names.iter().map(String::as_str));
    w.array(&skeleton.parents);
    w.array(&skeleton.level_starts);
    let rest: Vec<[f32; 10]> = skeleton.rest.iter().map(sqt_to_array).collect();
    w.array(&rest);
    let binds: Vec<[f32; 12]> = skeleton
        .inverse_binds
        .iter()
        .map(|m| m.to_cols_array())
        .collect();
    w.array(&binds);
    w.array(&skeleton.source_nodes);
    w.finish()
}

fn clips_body(clips: &ClipLibrary) -> Vec<u8> {
    let mut w = SectionWriter::default();
    w.u32(clips.joint_count);
    w.u32(count(clips.clips.len()));
    w.u32(count(clips.tracks.len()));
    w.u32(count(clips.times.len()));
    w.u32(count(clips.values.len()));
    w.strings(clips.clips.iter().map(|c| c.name.as_str()));
    let durations: Vec<f32> = clips.clips.iter().map(|c| c.duration).collect();
    w.array(&durations);
    w.array(&clips.tracks);
    w.array(&clips.times);
    w.array(&clips.values);
    w.finish()
}

fn mesh_body(mesh: &SkinnedMesh) -> Vec<u8> {
    let mut w = SectionWriter::default();
    w.u32(u32::from(mesh.tangents.is_some()));
    for len in [
        mesh.positions.len(),
        mesh.normals.len(),
        mesh.uvs.len(),
        mesh.tangents.as_ref().map_or(0, Vec::len),
        mesh.joints.len(),
        mesh.weights.len(),
        mesh.indices.len(),
        mesh.joint_bounds.len(),
    ] {
        w.u32(count(len));
    }
    w.u32(mesh.node.unwrap_or(NO_INDEX));
    w.u32(mesh.skin.unwrap_or(NO_INDEX));
    w.strings(std::iter::once(mesh.name.as_str()));
    w.array(&[mesh.bind_aabb]);
    w.array(&mesh.positions);
    w.array(&mesh.normals);
    w.array(&mesh.uvs);
    if let Some(tangents) = &mesh.tangents {
        w.array(tangents);
    }
    let (joints, weights) = super::influences::first_four(mesh);
    w.array(&joints);
    w.array(&weights);
    w.array(&mesh.indices);
    w.array(&mesh.joint_bounds);
    w.finish()
}

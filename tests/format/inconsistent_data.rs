//! Files with a valid checksum but inconsistent data

use sinew::bake::file::{from_bytes, to_bytes};
use sinew::{Layer, Rig};

use super::common;
use super::fixtures::{
    CHECKSUMMED_FROM, COUNT_AT, KIND_CLIPS, KIND_MESH, KIND_RIG, KIND_SKELETON, TABLE_AT,
    assert_corrupt, evaluate, find_in, kind_of, morph_rigs, reseal, section, section_table,
    shared_rigs, table_end, u32_at,
};

#[test]
fn parent_not_below_its_joint_is_corrupt() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let mut bytes = to_bytes(&rigs);
    let parents: Vec<u8> = rigs[0]
        .skeleton
        .parents()
        .iter()
        .flat_map(|p| p.to_le_bytes())
        .collect();
    let at = find_in(&bytes, section(&bytes, KIND_SKELETON), &parents, "parents");
    let last = rigs[0].joint_count() - 1;
    bytes[at + 2 * last..at + 2 * last + 2].copy_from_slice(&(last as u16).to_le_bytes());
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 skeleton");
    assert!(reason.contains("parent"), "reason: {reason}");
}

#[test]
fn track_past_the_key_times_is_corrupt() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let mut bytes = to_bytes(&rigs);
    let clips = &rigs[0].clips;
    let tracks: &[u8] = bytemuck::cast_slice(clips.tracks());
    let at = find_in(
        &bytes,
        section(&bytes, KIND_CLIPS),
        tracks,
        "track descriptors",
    );
    let animated = clips
        .tracks()
        .iter()
        .position(|t| t.time_offset != 0)
        .unwrap();
    let field = at + animated * 16;
    bytes[field..field + 4].copy_from_slice(&(clips.times().len() as u32).to_le_bytes());
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 clips");
    assert!(
        reason.contains(&format!("track {animated}")),
        "reason: {reason}"
    );
}

#[test]
fn cubic_track_without_three_values_per_key_is_corrupt() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let mut bytes = to_bytes(&rigs);
    let clips = &rigs[0].clips;
    let tracks: &[u8] = bytemuck::cast_slice(clips.tracks());
    let at = find_in(
        &bytes,
        section(&bytes, KIND_CLIPS),
        tracks,
        "track descriptors",
    );
    // The last animated track's values end at (or near) the end of the value array: three
    // values per key cannot fit.
    let (i, last) = clips
        .tracks()
        .iter()
        .enumerate()
        .filter(|(_, t)| t.time_offset != 0)
        .max_by_key(|(_, t)| t.value_offset)
        .unwrap();
    assert!(
        last.key_count > 1,
        "the last track needs several keys for this test"
    );
    let field = at + i * 16 + 12;
    bytes[field..field + 4]
        .copy_from_slice(&(sinew::Interpolation::CubicSpline as u32).to_le_bytes());
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 clips");
    assert!(reason.contains("key values"), "reason: {reason}");
}

#[test]
fn huge_vertex_count_is_corrupt_without_allocating() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let mut bytes = to_bytes(&rigs);
    // The tangent flag, then the position count.
    let at = section(&bytes, KIND_MESH).offset + 4;
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    reseal(&mut bytes);
    assert_corrupt(kind_of(&bytes), "rig 0 mesh 0");
}

#[test]
fn too_many_joints_is_corrupt() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let mut bytes = to_bytes(&rigs);
    let skeleton = section(&bytes, KIND_SKELETON);
    bytes[skeleton.offset..skeleton.offset + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    reseal(&mut bytes);
    assert_corrupt(kind_of(&bytes), "rig 0 skeleton");
}

#[test]
fn unknown_section_kind_is_corrupt() {
    let Some(rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    let mut bytes = to_bytes(&rigs);
    bytes[TABLE_AT..TABLE_AT + 4].copy_from_slice(&99u32.to_le_bytes());
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "section table");
    assert!(reason.contains("99"), "reason: {reason}");
}

#[test]
fn missing_section_is_corrupt() {
    let Some(rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    let mut bytes = to_bytes(&rigs);
    let count = u32_at(&bytes, COUNT_AT);
    bytes[COUNT_AT..COUNT_AT + 4].copy_from_slice(&(count - 1).to_le_bytes());
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "section table");
    assert!(reason.contains("rig 0 mesh"), "reason: {reason}");
}

#[test]
fn invalid_utf8_name_is_corrupt() {
    let Some(mut rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    rigs[0].name = "Rig\u{e9}".into();
    let mut bytes = to_bytes(&rigs);
    let at = find_in(
        &bytes,
        section(&bytes, KIND_RIG),
        "Rig\u{e9}".as_bytes(),
        "rig name",
    );
    bytes[at + 3] = 0xff;
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "rig 0");
    assert!(reason.contains("UTF-8"), "reason: {reason}");
}

#[test]
fn mesh_joint_outside_the_skeleton_is_corrupt() {
    let Some(mut rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    rigs[0].meshes[0].joints[5][1] = rigs[0].joint_count() as u16;
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 mesh 0");
    assert!(reason.contains("vertex 5"), "reason: {reason}");
}

#[test]
fn index_outside_the_vertices_is_corrupt() {
    let Some(mut rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    let mesh = &mut rigs[0].meshes[0];
    mesh.indices[7] = mesh.positions.len() as u32;
    assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 mesh 0");
}

#[test]
fn unequal_streams_are_corrupt() {
    let Some(mut rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    rigs[0].meshes[0].uvs.pop();
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 mesh 0");
    assert!(reason.contains("uvs"), "reason: {reason}");
}

#[test]
fn skin_joint_outside_the_skeleton_is_corrupt() {
    let Some(mut rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    rigs[0].skins[0].joints[0] = rigs[0].joint_count() as u16;
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0");
    assert!(reason.contains("skin 0 joint 0"), "reason: {reason}");
}

#[test]
fn no_edit_of_a_resealed_file_panics_on_load_or_evaluation() {
    let Some(rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    assert_no_resealed_edit_panics(&rigs);
}

#[test]
fn no_edit_of_a_resealed_morph_file_panics_on_load_or_evaluation() {
    assert_no_resealed_edit_panics(&morph_rigs());
}

#[test]
fn no_edit_of_a_resealed_material_file_panics_on_load_or_evaluation() {
    // Materials, images, vertex colours and a second UV set (sections 9 and 10).
    let path = common::repo().join("assets/synthetic/normal_map.glb");
    let rigs = sinew::bake_rigs(&sinew::import_file(&path).unwrap()).unwrap();
    assert!(rigs[0].meshes[0].material.is_some());
    assert_no_resealed_edit_panics(&rigs);
}

/// Random 4-byte edits of the file of `rigs` (checksum recomputed) load as an error or as rigs
/// that evaluate without panicking.
fn assert_no_resealed_edit_panics(rigs: &[Rig]) {
    let bytes = to_bytes(rigs);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let interesting = [
        0,
        1,
        2,
        3,
        15,
        16,
        255,
        256,
        0x7fff_ffff,
        0x8000_0000,
        u32::MAX,
    ];
    let mut rejected = 0;
    for round in 0..3000 {
        let mut edited = bytes.clone();
        // Counts and table entries live in the first bytes of the file and of each section.
        let at = match round % 3 {
            0 => (next() as usize % table_end(&bytes)) & !3,
            1 => {
                let table = section_table(&bytes);
                let e = table[next() as usize % table.len()];
                (e.offset + next() as usize % 96.min(e.len)) & !3
            }
            _ => next() as usize % (bytes.len() - 4),
        };
        let value = interesting[next() as usize % interesting.len()];
        edited[at..at + 4].copy_from_slice(&value.to_le_bytes());
        if at < CHECKSUMMED_FROM {
            continue;
        }
        reseal(&mut edited);
        match from_bytes(&edited, "fuzz.sinew") {
            Err(_) => rejected += 1,
            // Whatever loads must be safe to evaluate: the runtime trusts it.
            Ok(loaded) => {
                for rig in &loaded {
                    evaluate(rig, &[]);
                    for (c, info) in rig.clips.clips().iter().enumerate() {
                        evaluate(rig, &[Layer::clip(c as u32, 0.5 * info.duration)]);
                    }
                }
            }
        }
    }
    assert!(
        rejected > 100,
        "only {rejected} of 3000 edits were rejected"
    );
}

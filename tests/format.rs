//! The `.sinew` baked format: exact round trips of every asset, and a typed error, never a
//! panic, for every truncated, damaged or inconsistent file.

mod common;

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Affine3A;
use sinew::bake::file::{
    FORMAT_VERSION, MAGIC, OLDEST_FORMAT_VERSION, checksum, from_bytes, read_file, to_bytes,
    write_file,
};
use sinew::cpu::fast::DEFAULT_RATE;
use sinew::{Aabb, FastCpuBackend, FormatErrorKind, InstanceRecord, Layer, Mat3x4Rows, Rig};

// Layout constants from the format description in `src/bake/file.rs`.
const VERSION_AT: usize = 8;
const CHECKSUM_AT: usize = 12;
const CHECKSUMMED_FROM: usize = 20;
const LENGTH_AT: usize = 20;
const COUNT_AT: usize = 28;
const TABLE_AT: usize = 32;
const ENTRY_LEN: usize = 32;
const KIND_RIG: u32 = 1;
const KIND_SKELETON: u32 = 2;
const KIND_CLIPS: u32 = 3;
const KIND_MESH: u32 = 4;
const KIND_MORPH: u32 = 5;
const KIND_MESH_MORPH: u32 = 6;
const KIND_MESH_INFLUENCES: u32 = 7;

/// One section table entry as written in the file.
#[derive(Clone, Copy, Debug)]
struct Entry {
    kind: u32,
    rig: u32,
    index: u32,
    offset: usize,
    len: usize,
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

fn section_table(bytes: &[u8]) -> Vec<Entry> {
    (0..u32_at(bytes, COUNT_AT) as usize)
        .map(|i| {
            let at = TABLE_AT + i * ENTRY_LEN;
            Entry {
                kind: u32_at(bytes, at),
                rig: u32_at(bytes, at + 4),
                index: u32_at(bytes, at + 8),
                offset: u64_at(bytes, at + 16) as usize,
                len: u64_at(bytes, at + 24) as usize,
            }
        })
        .collect()
}

/// Where section `kind` of rig 0 (mesh 0 for meshes) lies.
fn section(bytes: &[u8], kind: u32) -> Entry {
    *section_table(bytes)
        .iter()
        .find(|e| e.kind == kind && e.rig == 0 && e.index == 0)
        .unwrap_or_else(|| panic!("no section of kind {kind} for rig 0"))
}

/// End of the header and section table.
fn table_end(bytes: &[u8]) -> usize {
    TABLE_AT + ENTRY_LEN * u32_at(bytes, COUNT_AT) as usize
}

/// Recomputes the checksum after an edit, so that only the decoder's own checks remain.
fn reseal(bytes: &mut [u8]) {
    let sum = checksum(&bytes[CHECKSUMMED_FROM..]);
    bytes[CHECKSUM_AT..CHECKSUM_AT + 8].copy_from_slice(&sum.to_le_bytes());
}

/// Offset of the first occurrence of `needle` inside `entry`'s body.
fn find_in(bytes: &[u8], entry: Entry, needle: &[u8], what: &str) -> usize {
    bytes[entry.offset..entry.offset + entry.len]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| entry.offset + p)
        .unwrap_or_else(|| panic!("{what} not found in its section"))
}

/// The rigs of a file in `../shared/gltf`; where that folder is absent, the committed rig that
/// stands in for it (the humanoid for Fox, the feature rig for the others), so the damage tests
/// always run.
fn shared_rigs(name: &str) -> Option<Vec<Rig>> {
    let path = match common::shared() {
        Some(shared) => shared.join("gltf").join(name),
        None if name == "Fox.glb" => common::repo().join("assets/humanoid.glb"),
        None => common::repo().join("assets/synthetic/features.glb"),
    };
    Some(without_materials(
        sinew::bake_rigs(&sinew::import_file(&path).unwrap()).unwrap(),
    ))
}

fn bake(path: &Path) -> Vec<Rig> {
    let asset = sinew::import_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    without_materials(
        sinew::bake_rigs(&asset).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
}

/// `rigs` without what the format does not store (materials, vertex colours, `TEXCOORD_1`),
/// so a round trip compares what it does.
fn without_materials(mut rigs: Vec<Rig>) -> Vec<Rig> {
    for mesh in rigs.iter_mut().flat_map(|r| &mut r.meshes) {
        mesh.material = None;
        mesh.colors = None;
        mesh.uvs1 = None;
    }
    rigs
}

/// Every shared and generated asset.
fn all_assets() -> Vec<PathBuf> {
    let mut files = common::shared_assets();
    files.extend(common::repo_assets());
    if files.is_empty() {
        eprintln!("skipping: no shared or generated assets");
    }
    files
}

/// A path in the temporary folder that no other test (or test run) uses.
fn temp_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sinew-format-{}-{tag}", std::process::id()))
}

fn kind_of(bytes: &[u8]) -> FormatErrorKind {
    match from_bytes(bytes, "test.sinew") {
        Ok(rigs) => panic!("expected an error, loaded {} rigs", rigs.len()),
        Err(e) => {
            assert_eq!(e.file, "test.sinew", "the error names the file");
            e.kind
        }
    }
}

/// Asserts `kind` is `Corrupt` for a section whose name is `section`, returning the reason.
fn assert_corrupt(kind: FormatErrorKind, section: &str) -> String {
    match kind {
        FormatErrorKind::Corrupt { section: s, reason } => {
            assert_eq!(s, section, "corrupt section (reason: {reason})");
            reason
        }
        other => panic!("expected Corrupt in {section}, got {other:?}"),
    }
}

fn assert_slice_eq<T: PartialEq + Debug>(got: &[T], expected: &[T], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        panic!(
            "{what}: entry {i} differs\n  got      {:?}\n  expected {:?}",
            got[i], expected[i]
        );
    }
}

/// Field-by-field comparison (so a failure names the field), then whole-rig equality.
fn assert_rig_eq(got: &Rig, expected: &Rig, what: &str) {
    assert_eq!(got.name, expected.name, "{what}: name");
    let (gs, es) = (&got.skeleton, &expected.skeleton);
    assert_slice_eq(gs.names(), es.names(), &format!("{what}: joint names"));
    assert_slice_eq(gs.parents(), es.parents(), &format!("{what}: parents"));
    assert_slice_eq(
        gs.level_starts(),
        es.level_starts(),
        &format!("{what}: level starts"),
    );
    assert_slice_eq(
        gs.rest_pose(),
        es.rest_pose(),
        &format!("{what}: rest pose"),
    );
    assert_slice_eq(
        gs.inverse_binds(),
        es.inverse_binds(),
        &format!("{what}: inverse binds"),
    );
    assert_slice_eq(
        gs.source_nodes(),
        es.source_nodes(),
        &format!("{what}: source nodes"),
    );
    let (gc, ec) = (&got.clips, &expected.clips);
    assert_eq!(
        gc.joint_count(),
        ec.joint_count(),
        "{what}: clip joint count"
    );
    assert_slice_eq(gc.clips(), ec.clips(), &format!("{what}: clip infos"));
    assert_slice_eq(gc.tracks(), ec.tracks(), &format!("{what}: tracks"));
    assert_slice_eq(gc.times(), ec.times(), &format!("{what}: key times"));
    assert_slice_eq(gc.values(), ec.values(), &format!("{what}: key values"));
    assert_slice_eq(
        gc.weight_tracks(),
        ec.weight_tracks(),
        &format!("{what}: weight tracks"),
    );
    assert_slice_eq(
        got.morph.nodes(),
        expected.morph.nodes(),
        &format!("{what}: morph nodes"),
    );
    assert_eq!(
        got.meshes.len(),
        expected.meshes.len(),
        "{what}: mesh count"
    );
    for (m, (gm, em)) in got.meshes.iter().zip(&expected.meshes).enumerate() {
        let at = format!("{what} mesh {m}");
        assert_eq!(gm.name, em.name, "{at}: name");
        assert_slice_eq(&gm.positions, &em.positions, &format!("{at}: positions"));
        assert_slice_eq(&gm.normals, &em.normals, &format!("{at}: normals"));
        assert_slice_eq(&gm.uvs, &em.uvs, &format!("{at}: uvs"));
        assert_eq!(
            gm.tangents.is_some(),
            em.tangents.is_some(),
            "{at}: has tangents"
        );
        if let (Some(g), Some(e)) = (&gm.tangents, &em.tangents) {
            assert_slice_eq(g, e, &format!("{at}: tangents"));
        }
        assert_slice_eq(&gm.joints, &em.joints, &format!("{at}: joints"));
        assert_slice_eq(&gm.weights, &em.weights, &format!("{at}: weights"));
        assert_slice_eq(&gm.indices, &em.indices, &format!("{at}: indices"));
        assert_eq!(gm.bind_aabb, em.bind_aabb, "{at}: bind AABB");
        assert_slice_eq(
            &gm.joint_bounds,
            &em.joint_bounds,
            &format!("{at}: joint bounds"),
        );
        assert_eq!(gm.morph, em.morph, "{at}: morph targets");
    }
    assert_eq!(got.skins, expected.skins, "{what}: skins");
    assert_slice_eq(
        &got.joint_bounds,
        &expected.joint_bounds,
        &format!("{what}: joint bounds"),
    );
    assert!(
        got == expected,
        "{what}: rigs differ in a field not compared above"
    );
}

/// Model matrices, palette block (skin matrices, then morph weights) and animated bounds of one
/// pose.
fn evaluate(rig: &Rig, layers: &[Layer]) -> (Vec<Affine3A>, Vec<Mat3x4Rows>, Aabb) {
    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    let aabb = sinew::cpu::evaluate_pose(
        rig,
        &[],
        layers,
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    (models, palette, aabb)
}

// ---------------------------------------------------------------------------------------------
// Round trips

#[test]
fn every_asset_round_trips_exactly() {
    for path in all_assets() {
        let rigs = bake(&path);
        let loaded = from_bytes(&to_bytes(&rigs), "memory").unwrap();
        assert_eq!(loaded.len(), rigs.len(), "{}: rig count", path.display());
        for (r, (got, expected)) in loaded.iter().zip(&rigs).enumerate() {
            assert_rig_eq(got, expected, &format!("{} rig {r}", path.display()));
        }
    }
}

#[test]
fn loaded_rigs_evaluate_like_the_originals() {
    for path in all_assets() {
        let rigs = bake(&path);
        let loaded = from_bytes(&to_bytes(&rigs), "memory").unwrap();
        for (r, (got, expected)) in loaded.iter().zip(&rigs).enumerate() {
            let mut poses: Vec<(String, Vec<Layer>)> = vec![("rest".into(), Vec::new())];
            for (c, info) in expected.clips.clips().iter().enumerate().take(3) {
                for f in [0.0, 0.37, 1.0, 1.5] {
                    let t = f * info.duration;
                    poses.push((format!("clip {c} t={t}"), vec![Layer::clip(c as u32, t)]));
                }
            }
            for (pose, layers) in poses {
                let what = format!("{} rig {r} {pose}", path.display());
                let (gm, gp, ga) = evaluate(got, &layers);
                let (em, ep, ea) = evaluate(expected, &layers);
                assert_slice_eq(&gm, &em, &format!("{what}: model matrices"));
                assert_slice_eq(&gp, &ep, &format!("{what}: skin palette"));
                assert_eq!(ga, ea, "{what}: animated AABB");
            }
        }
    }
}

#[test]
fn no_rigs_round_trip() {
    let loaded = from_bytes(&to_bytes(&[]), "empty.sinew").unwrap();
    assert!(
        loaded.is_empty(),
        "loaded {} rigs from a file of none",
        loaded.len()
    );
}

#[test]
fn tangents_round_trip() {
    let Some(mut rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    let mesh = &mut rigs[0].meshes[0];
    mesh.tangents = Some(
        (0..mesh.positions.len())
            .map(|v| [v as f32, 0.5, -1.0, 1.0])
            .collect(),
    );
    let loaded = from_bytes(&to_bytes(&rigs), "memory").unwrap();
    assert_rig_eq(&loaded[0], &rigs[0], "RiggedSimple.glb with tangents");
}

#[test]
fn header_and_sections_follow_the_documented_layout() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let bytes = to_bytes(&rigs);
    assert_eq!(bytes[..8], MAGIC, "magic");
    assert_eq!(u32_at(&bytes, VERSION_AT), FORMAT_VERSION, "version");
    assert_eq!(u64_at(&bytes, LENGTH_AT), bytes.len() as u64, "file length");
    assert_eq!(
        u64_at(&bytes, CHECKSUM_AT),
        checksum(&bytes[CHECKSUMMED_FROM..]),
        "checksum"
    );
    let kinds: Vec<(u32, u32, u32)> = section_table(&bytes)
        .iter()
        .map(|e| (e.kind, e.rig, e.index))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (KIND_RIG, 0, 0),
            (KIND_SKELETON, 0, 0),
            (KIND_CLIPS, 0, 0),
            (KIND_MESH, 0, 0)
        ],
        "sections of Fox.glb's one rig"
    );
    for entry in section_table(&bytes) {
        assert_eq!(entry.offset % 16, 0, "{entry:?} is not 16-byte aligned");
        assert!(
            entry.offset >= table_end(&bytes),
            "{entry:?} overlaps the section table"
        );
        assert!(
            entry.offset + entry.len <= bytes.len(),
            "{entry:?} runs past the end"
        );
    }
}

#[test]
fn checksum_changes_with_any_single_bit() {
    let data: Vec<u8> = (0..64u32).map(|i| (i * 37 + 11) as u8).collect();
    let base = checksum(&data);
    for bit in 0..data.len() * 8 {
        let mut flipped = data.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert_ne!(
            checksum(&flipped),
            base,
            "flipping bit {bit} left the checksum {base:#x}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Damaged files

#[test]
fn empty_file_is_truncated() {
    let kind = kind_of(&[]);
    assert!(
        matches!(kind, FormatErrorKind::Truncated { .. }),
        "empty file gave {kind:?}"
    );
}

#[test]
fn every_cut_point_is_truncated() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let bytes = to_bytes(&rigs);
    let body = bytes.len() - table_end(&bytes);
    let cuts = (0..table_end(&bytes))
        .chain((0..500).map(|k| table_end(&bytes) + k * body / 500))
        .chain([bytes.len() - 1]);
    for cut in cuts {
        let kind = kind_of(&bytes[..cut]);
        assert!(
            matches!(kind, FormatErrorKind::Truncated { .. }),
            "cut at {cut} of {}: {kind:?}",
            bytes.len()
        );
    }
}

#[test]
fn bit_flips_are_detected() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let bytes = to_bytes(&rigs);
    let positions = (0..table_end(&bytes)).chain((table_end(&bytes)..bytes.len()).step_by(97));
    for at in positions {
        let mut damaged = bytes.clone();
        damaged[at] ^= 1 << (at % 8);
        let version = u32_at(&damaged, VERSION_AT);
        if (8..12).contains(&at) && (OLDEST_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
            // Another version this build reads (the header is not checksummed).
            continue;
        }
        let kind = kind_of(&damaged);
        let expected = match at {
            0..8 => matches!(kind, FormatErrorKind::BadMagic),
            // The header is not checksummed: a flip to an older supported version reads the
            // body in that version's layout, which does not fit.
            8..12 => matches!(
                kind,
                FormatErrorKind::UnsupportedVersion { .. } | FormatErrorKind::Corrupt { .. }
            ),
            // A longer declared length looks exactly like a shorter file.
            LENGTH_AT..COUNT_AT => matches!(
                kind,
                FormatErrorKind::Truncated { .. } | FormatErrorKind::ChecksumMismatch { .. }
            ),
            _ => matches!(kind, FormatErrorKind::ChecksumMismatch { .. }),
        };
        assert!(expected, "bit flip in byte {at}: {kind:?}");
    }
}

#[test]
fn appended_bytes_fail_the_checksum() {
    let Some(rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    let mut bytes = to_bytes(&rigs);
    bytes.extend_from_slice(&[0; 16]);
    let kind = kind_of(&bytes);
    assert!(
        matches!(kind, FormatErrorKind::ChecksumMismatch { .. }),
        "{kind:?}"
    );
}

#[test]
fn future_version_is_unsupported() {
    let mut bytes = to_bytes(&[]);
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        kind_of(&bytes),
        FormatErrorKind::UnsupportedVersion {
            found: FORMAT_VERSION + 1,
            supported: FORMAT_VERSION
        }
    );
}

#[test]
fn bad_magic_is_rejected() {
    let mut bytes = to_bytes(&[]);
    bytes[..4].copy_from_slice(b"glTF");
    assert_eq!(kind_of(&bytes), FormatErrorKind::BadMagic);
}

#[test]
fn short_file_with_foreign_start_is_bad_magic() {
    assert_eq!(kind_of(b"{\"a"), FormatErrorKind::BadMagic);
}

// ---------------------------------------------------------------------------------------------
// Files with a valid checksum but inconsistent data

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

// ---------------------------------------------------------------------------------------------
// Files on disk and the command line

#[test]
fn write_file_then_read_file_round_trips() {
    let Some(rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    let path = temp_path("roundtrip.sinew");
    write_file(&path, &rigs).unwrap();
    let loaded = read_file(&path);
    std::fs::remove_file(&path).unwrap();
    let loaded = loaded.unwrap();
    assert_eq!(loaded.len(), rigs.len(), "rig count");
    assert_rig_eq(&loaded[0], &rigs[0], "RiggedSimple.glb rig 0");
}

#[test]
fn write_file_leaves_no_partial_file() {
    let path = temp_path("partial.sinew");
    write_file(&path, &[]).unwrap();
    let partial = path.with_extension("sinew.partial");
    let partial_exists = partial.exists();
    std::fs::remove_file(&path).unwrap();
    assert!(!partial_exists, "{} was left behind", partial.display());
}

#[test]
fn write_file_into_a_missing_folder_is_io() {
    let path = temp_path("no-such-folder").join("x.sinew");
    let e = write_file(&path, &[]).unwrap_err();
    assert!(matches!(e.kind, FormatErrorKind::Io(_)), "{e:?}");
    assert_eq!(e.file, path.display().to_string(), "error names the file");
}

#[test]
fn read_file_of_a_missing_path_is_io() {
    let path = temp_path("missing.sinew");
    let e = read_file(&path).unwrap_err();
    assert!(matches!(e.kind, FormatErrorKind::Io(_)), "{e:?}");
    assert_eq!(e.file, path.display().to_string(), "error names the file");
}

fn sinew_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sinew {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn baked_file_inspects_like_its_gltf() {
    let Some(shared) = common::shared() else {
        return;
    };
    let gltf = shared.join("gltf/Fox.glb");
    let gltf = gltf.to_str().unwrap();
    let baked = temp_path("cli-fox.sinew");
    let baked = baked.to_str().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["bake", gltf, "-o", baked])
        .status()
        .unwrap();
    assert!(status.success(), "sinew bake failed: {status}");
    let from_baked = sinew_json(&["inspect", baked, "--json"]);
    std::fs::remove_file(baked).unwrap();
    let from_gltf = sinew_json(&["inspect", gltf, "--json"]);
    let (got, expected) = (&from_baked["rigs"], &from_gltf["rigs"]);
    let rigs = expected.as_array().unwrap();
    assert_eq!(got.as_array().unwrap().len(), rigs.len(), "rig count");
    for (r, rig) in rigs.iter().enumerate() {
        assert_eq!(got[r]["name"], rig["name"], "rig {r} name");
        let count = |v: &serde_json::Value| v.as_array().unwrap().len();
        assert_eq!(
            count(&got[r]["joints"]),
            count(&rig["joints"]),
            "rig {r} joint count"
        );
        let names = |v: &serde_json::Value| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&got[r]["clips"]),
            names(&rig["clips"]),
            "rig {r} clip names"
        );
    }
    assert_eq!(got, expected, "the whole inspection");
}

// ---------------------------------------------------------------------------------------------
// Morph targets and versions

fn morph_rigs() -> Vec<Rig> {
    bake(&common::repo().join("assets/synthetic/morph.glb"))
}

#[test]
fn morph_targets_round_trip_in_sections_of_their_own() {
    let rigs = morph_rigs();
    let bytes = to_bytes(&rigs);
    let kinds: Vec<(u32, u32)> = section_table(&bytes)
        .iter()
        .map(|e| (e.kind, e.index))
        .collect();
    let mut expected = vec![
        (KIND_RIG, 0),
        (KIND_SKELETON, 0),
        (KIND_CLIPS, 0),
        (KIND_MORPH, 0),
    ];
    for m in 0..4 {
        expected.extend([(KIND_MESH, m), (KIND_MESH_MORPH, m)]);
    }
    assert_eq!(kinds, expected, "sections of morph.glb's one rig");
    let loaded = from_bytes(&bytes, "morph.sinew").unwrap();
    assert_rig_eq(&loaded[0], &rigs[0], "morph.glb");
    let (_, gp, _) = evaluate(&loaded[0], &[Layer::clip(0, 0.25)]);
    let weights = sinew::cpu::morph_weights(&loaded[0], &gp);
    assert_eq!(
        &weights[..3],
        &[0.5, 0.25, 0.0],
        "weights of the loaded rig"
    );
}

#[test]
fn morph_section_with_the_wrong_chunk_count_is_corrupt() {
    let mut bytes = to_bytes(&morph_rigs());
    let at = section(&bytes, KIND_MORPH).offset + 4;
    bytes[at..at + 4].copy_from_slice(&3u32.to_le_bytes());
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 morph");
    assert!(reason.contains("weight chunks"), "reason: {reason}");
}

#[test]
fn mesh_morph_targets_of_the_wrong_length_or_weights_are_corrupt() {
    let mut rigs = morph_rigs();
    rigs[0].meshes[1].morph.normals.pop();
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 mesh 1 morph targets");
    assert!(reason.contains("normal deltas"), "reason: {reason}");
    let mut rigs = morph_rigs();
    rigs[0].meshes[0].morph.first_weight = 8;
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 mesh 0 morph targets");
    assert!(reason.contains("no morph node"), "reason: {reason}");
}

// ---------------------------------------------------------------------------------------------
// The fuzz corpus: seeds and every input that once crashed the loader

/// Loads `bytes`; whatever loads must write back to the same rigs and evaluate without a panic.
fn load_and_use(bytes: &[u8], name: &str) -> Result<usize, FormatErrorKind> {
    let rigs = from_bytes(bytes, name).map_err(|e| {
        assert_eq!(e.file, name, "the error names the file ({e})");
        e.kind
    })?;
    let bytes = to_bytes(&rigs);
    let reloaded = from_bytes(&bytes, "round-trip.sinew")
        .unwrap_or_else(|e| panic!("{name}: loaded rigs do not load back: {e}"));
    // As bytes: vertex attributes other than positions and weights may hold NaN.
    assert!(
        to_bytes(&reloaded) == bytes,
        "{name}: rigs change through a round trip"
    );
    for rig in &rigs {
        evaluate(rig, &[]);
        for (c, info) in rig.clips.clips().iter().enumerate() {
            for t in [-1.0, 0.37 * info.duration, info.duration + 1.0] {
                evaluate(rig, &[Layer::clip(c as u32, t)]);
            }
        }
    }
    // The fast backend resamples every clip, however long.
    let count = rigs.len();
    let fast = FastCpuBackend::new(rigs, Vec::new(), DEFAULT_RATE).unwrap();
    for (r, rig) in fast.rigs().iter().enumerate() {
        let n = rig.joint_count();
        for (c, info) in rig.clips.clips().iter().enumerate() {
            let layers = [Layer::clip(c as u32, 0.5 * info.duration)];
            let record = InstanceRecord::new(r as u32, 0, &Affine3A::IDENTITY, &layers).unwrap();
            let (mut models, mut palette) =
                (vec![Affine3A::IDENTITY; n], vec![Mat3x4Rows::IDENTITY; n]);
            fast.evaluate_one(&record, &mut models, &mut palette)
                .unwrap();
        }
    }
    Ok(count)
}

#[test]
fn fuzz_corpus_loads_or_fails_with_a_typed_error() {
    let corpus = common::fuzz_corpus("load_sinew");
    assert!(
        corpus.len() >= 3,
        "only {} inputs in the corpus",
        corpus.len()
    );
    let mut loaded = 0;
    for (name, bytes) in &corpus {
        // As given, then with the length and checksum fixed (as the fuzz target also loads it).
        let mut sealed = bytes.clone();
        if sealed.len() >= CHECKSUMMED_FROM + 8 {
            let len = (sealed.len() as u64).to_le_bytes();
            sealed[LENGTH_AT..LENGTH_AT + 8].copy_from_slice(&len);
            reseal(&mut sealed);
        }
        for (what, bytes) in [("as given", bytes), ("resealed", &sealed)] {
            let outcome = std::panic::catch_unwind(|| load_and_use(bytes, name));
            match outcome {
                Ok(Ok(_)) => loaded += 1,
                Ok(Err(_)) => {}
                Err(_) => panic!("corpus input {name} ({what}) panicked"),
            }
        }
    }
    assert!(loaded >= 3, "only {loaded} corpus inputs loaded");
}

/// Pads `bytes` with zeros to the next multiple of 16.
fn pad16(bytes: &mut Vec<u8>) {
    bytes.resize(bytes.len().next_multiple_of(16), 0);
}

/// A version 1 rig body (one skin per rig, as that version stored it) for `rig`.
fn rig_body_v1(rig: &Rig) -> Vec<u8> {
    let joints: &[u16] = rig.skins.first().map_or(&[], |s| &s.joints);
    let mut b = Vec::new();
    for n in [rig.meshes.len(), joints.len(), rig.joint_bounds.len()] {
        b.extend_from_slice(&(n as u32).to_le_bytes());
    }
    pad16(&mut b);
    b.extend_from_slice(&(rig.name.len() as u32).to_le_bytes());
    pad16(&mut b);
    b.extend_from_slice(rig.name.as_bytes());
    pad16(&mut b);
    for j in joints {
        b.extend_from_slice(&j.to_le_bytes());
    }
    pad16(&mut b);
    for bound in &rig.joint_bounds {
        for x in bound.min.iter().chain(&bound.max) {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    b
}

/// A version 1 mesh body from a current one: the same but for the node and skin after the
/// counts (nine u32s), whose place is padding in version 1.
fn mesh_body_v1(body: &[u8]) -> Vec<u8> {
    let mut b = body.to_vec();
    b[36..44].fill(0);
    b
}

/// `rigs` as a version 1 or 2 file loads them: meshes of the rig's one skin, nodes unknown.
fn as_one_skin_rigs(rigs: &[Rig]) -> Vec<Rig> {
    let mut rigs = rigs.to_vec();
    for rig in &mut rigs {
        let skin = rig.skins.first().map(|s| s.index as u32);
        for mesh in &mut rig.meshes {
            mesh.node = None;
            mesh.skin = skin;
        }
    }
    rigs
}

/// The file a version 1 or 2 build wrote for `rigs`: `bytes` (their current encoding) with
/// `version` in the header and every rig section in the one-skin layout of those versions.
fn as_one_skin_version(bytes: &[u8], rigs: &[Rig], version: u32) -> Vec<u8> {
    let table = section_table(bytes);
    let bodies: Vec<Vec<u8>> = table
        .iter()
        .map(|e| match e.kind {
            KIND_RIG => rig_body_v1(&rigs[e.rig as usize]),
            KIND_MESH => mesh_body_v1(&bytes[e.offset..e.offset + e.len]),
            _ => bytes[e.offset..e.offset + e.len].to_vec(),
        })
        .collect();
    let mut out = bytes[..TABLE_AT].to_vec();
    out[VERSION_AT..VERSION_AT + 4].copy_from_slice(&version.to_le_bytes());
    let mut offset = table_end(bytes);
    for (e, body) in table.iter().zip(&bodies) {
        offset = offset.next_multiple_of(16);
        for word in [e.kind, e.rig, e.index, 0] {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.extend_from_slice(&(offset as u64).to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        offset += body.len();
    }
    for body in &bodies {
        pad16(&mut out);
        out.extend_from_slice(body);
    }
    let len = out.len() as u64;
    out[LENGTH_AT..LENGTH_AT + 8].copy_from_slice(&len.to_le_bytes());
    reseal(&mut out);
    out
}

#[test]
fn version_1_files_still_load_with_one_skin_per_rig() {
    let Some(rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    assert_eq!(rigs[0].skins.len(), 1);
    let old = as_one_skin_version(&to_bytes(&rigs), &rigs, 1);
    assert_eq!(u32_at(&old, VERSION_AT), 1);
    let loaded = from_bytes(&old, "old.sinew").unwrap();
    assert_eq!(loaded.len(), rigs.len());
    for (r, (got, expected)) in loaded.iter().zip(&rigs).enumerate() {
        assert_eq!(got.skins.len(), 1, "rig {r}");
        assert_eq!(
            got.skins[0].index, r,
            "rig {r}: version 1 baked skin r as rig r"
        );
        assert_eq!(got.skins[0].joints, expected.skins[0].joints, "rig {r}");
        assert_eq!(got.skeleton, expected.skeleton, "rig {r}");
        assert_eq!(got.meshes, as_one_skin_rigs(&rigs)[r].meshes, "rig {r}");
    }
}

#[test]
fn version_2_files_with_morph_sections_still_load() {
    let rigs = morph_rigs();
    assert!(!rigs[0].morph.is_empty());
    let old = as_one_skin_version(&to_bytes(&rigs), &rigs, 2);
    assert_eq!(u32_at(&old, VERSION_AT), 2);
    let loaded = from_bytes(&old, "v2.sinew").unwrap();
    assert_eq!(loaded.len(), rigs.len());
    for (r, (got, expected)) in loaded.iter().zip(&as_one_skin_rigs(&rigs)).enumerate() {
        assert_rig_eq(got, expected, &format!("version 2 rig {r}"));
    }
}

// ---------------------------------------------------------------------------------------------
// Influences 5-8 (section 7, since version 3)

fn influence_rigs() -> Vec<Rig> {
    bake(&common::repo().join("assets/synthetic/influences.glb"))
}

#[test]
fn influences_past_the_fourth_survive_bake_and_load() {
    let rigs = influence_rigs();
    let beyond_four = |rig: &Rig| {
        rig.meshes
            .iter()
            .map(|m| {
                m.weights
                    .iter()
                    .filter(|w| w[4..].iter().any(|&x| x > 0.0))
                    .count()
            })
            .collect::<Vec<_>>()
    };
    assert!(
        beyond_four(&rigs[0]).iter().all(|&n| n > 0),
        "the asset uses slots 5-8"
    );
    let bytes = to_bytes(&rigs);
    let sections: Vec<(u32, u32)> = section_table(&bytes)
        .iter()
        .filter(|e| e.kind == KIND_MESH_INFLUENCES)
        .map(|e| (e.rig, e.index))
        .collect();
    assert_eq!(
        sections,
        [(0, 0), (0, 1)],
        "one influences section per mesh"
    );
    let loaded = from_bytes(&bytes, "influences.sinew").unwrap();
    assert_rig_eq(&loaded[0], &rigs[0], "influences.glb");
    assert_eq!(beyond_four(&loaded[0]), beyond_four(&rigs[0]));
    let cut: Vec<usize> = loaded[0].meshes.iter().map(|m| m.influences_cut).collect();
    assert!(cut[0] == 0 && cut[1] > 0, "cut vertices survive: {cut:?}");
}

#[test]
fn four_influence_meshes_write_no_influences_section_and_version_2_files_load() {
    let rigs = bake(&common::repo().join("assets/humanoid.glb"));
    let bytes = to_bytes(&rigs);
    assert!(
        section_table(&bytes)
            .iter()
            .all(|e| e.kind != KIND_MESH_INFLUENCES),
        "no influences section"
    );
    let old = as_one_skin_version(&bytes, &rigs, 2);
    let loaded = from_bytes(&old, "v2.sinew").unwrap();
    assert_rig_eq(&loaded[0], &as_one_skin_rigs(&rigs)[0], "version 2 file");
}

#[test]
fn influences_section_of_the_wrong_length_or_joints_is_corrupt() {
    let mut bytes = to_bytes(&influence_rigs());
    let at = section(&bytes, KIND_MESH_INFLUENCES).offset + 4;
    let joints = u32_at(&bytes, at);
    bytes[at..at + 4].copy_from_slice(&(joints - 1).to_le_bytes());
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 mesh 0 influences");
    assert!(reason.contains("joints"), "reason: {reason}");

    let mut rigs = influence_rigs();
    rigs[0].meshes[0].joints[3][6] = rigs[0].joint_count() as u16;
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 mesh 0 influences");
    assert!(reason.contains("vertex 3"), "reason: {reason}");
}

// ---------------------------------------------------------------------------------------------
// Compressed clips (section 8, since version 4)

const KIND_COMPRESSED: u32 = 8;

/// The humanoid and the morph rig, with compressed clips.
/// The humanoid (its first clip with a gap in its keys, so framed on segments) and the morph
/// rig, compressed.
fn compressed_rigs() -> Vec<Rig> {
    let mut rigs = bake(&common::repo().join("assets/humanoid.glb"));
    rigs[0] = common::with_key_gap(&rigs[0], 0);
    rigs.extend(bake(&common::repo().join("assets/synthetic/morph.glb")));
    for rig in &mut rigs {
        rig.compress(sinew::DEFAULT_ERROR_BUDGET).unwrap();
    }
    rigs
}

#[test]
fn compressed_clips_round_trip_with_their_segments() {
    let rigs = compressed_rigs();
    let bytes = to_bytes(&rigs);
    assert_eq!(u32_at(&bytes, VERSION_AT), FORMAT_VERSION);
    let segmented = rigs[0].compressed.as_ref().unwrap();
    assert!(segmented.segments(0).len() > 1, "clip 0 on segments");
    let sections: Vec<u32> = section_table(&bytes)
        .iter()
        .filter(|e| e.kind == KIND_COMPRESSED)
        .map(|e| e.rig)
        .collect();
    assert_eq!(sections, [0, 1], "one compressed section per rig");
    // Rotation layouts other than "drop w" travel in the channel codes' bit offsets.
    let layouts = |rigs: &[Rig]| -> Vec<u32> {
        rigs.iter()
            .filter_map(|r| r.compressed.as_ref())
            .flat_map(|c| c.channels().iter().map(|code| code.layout()))
            .filter(|&l| l != sinew::ChannelCode::DROP_W)
            .collect()
    };
    assert!(
        !layouts(&rigs).is_empty(),
        "a rotation that drops x, y or z"
    );
    let loaded = from_bytes(&bytes, "compressed.sinew").unwrap();
    assert_eq!(layouts(&loaded), layouts(&rigs));
    for (r, (got, expected)) in loaded.iter().zip(&rigs).enumerate() {
        assert_eq!(
            got.compressed, expected.compressed,
            "rig {r}: compressed clips"
        );
        assert_rig_eq(got, expected, &format!("rig {r}"));
    }
    let plain = bake(&common::repo().join("assets/humanoid.glb"));
    let bytes = to_bytes(&plain);
    assert!(
        section_table(&bytes)
            .iter()
            .all(|e| e.kind != KIND_COMPRESSED)
    );
    assert_eq!(
        from_bytes(&bytes, "plain.sinew").unwrap()[0].compressed,
        None
    );
}

#[test]
fn damaged_compressed_sections_are_corrupt_never_a_panic() {
    let rigs = compressed_rigs();
    let bytes = to_bytes(&rigs);
    let entry = section_table(&bytes)
        .into_iter()
        .find(|e| e.kind == KIND_COMPRESSED && e.rig == 0)
        .unwrap();
    let mut rejected = 0;
    let words = entry.len / 4;
    // Every word of the counts, clip records and channel codes, and a sample of the data.
    let positions = (0..words.min(2000)).chain((2000..words).step_by(97));
    for w in positions {
        let at = entry.offset + w * 4;
        let word = u32_at(&bytes, at);
        for value in [word ^ 1, word.wrapping_add(0x100), u32::MAX, 0x7fc0_0000] {
            let mut damaged = bytes.clone();
            damaged[at..at + 4].copy_from_slice(&value.to_le_bytes());
            reseal(&mut damaged);
            let result = std::panic::catch_unwind(|| from_bytes(&damaged, "test.sinew"));
            match result {
                Err(_) => panic!("word {w} set to {value:#x}: the loader panicked"),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    assert_corrupt(e.kind, "rig 0 compressed clips");
                    rejected += 1;
                }
            }
        }
    }
    assert!(
        rejected > 100,
        "only {rejected} damaged words were rejected"
    );
    // Each count, shortened by one, is named.
    for (w, what) in [(2, "clip"), (3, "channel"), (4, "data")] {
        let mut damaged = bytes.clone();
        let at = entry.offset + w * 4;
        let count = u32_at(&damaged, at);
        damaged[at..at + 4].copy_from_slice(&(count - 1).to_le_bytes());
        reseal(&mut damaged);
        let reason = assert_corrupt(kind_of(&damaged), "rig 0 compressed clips");
        assert!(!reason.is_empty(), "{what}: {reason}");
    }
}

#[test]
fn version_4_files_load_their_compressed_clips_and_refuse_segment_words() {
    // Version 4 wrote the same section with zero padding where segment tables now live.
    let mut rigs = bake(&common::repo().join("assets/synthetic/features.glb"));
    rigs[0].compress(sinew::DEFAULT_ERROR_BUDGET).unwrap();
    let c = rigs[0].compressed.as_ref().unwrap();
    assert!((0..c.clips().len()).all(|i| c.segments(i).is_empty()));
    let mut bytes = to_bytes(&rigs);
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&4u32.to_le_bytes());
    let loaded = from_bytes(&bytes, "v4.sinew").unwrap();
    assert_eq!(loaded[0].compressed, rigs[0].compressed);
    // Clips on segments, labelled version 4: their padding is not zero.
    let segmented = compressed_rigs();
    let mut bytes = to_bytes(&segmented);
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&4u32.to_le_bytes());
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 compressed clips");
    assert!(reason.contains("version 4"), "reason: {reason}");
}

#[test]
fn compressed_clips_of_other_joints_are_corrupt() {
    let mut rigs = compressed_rigs();
    let other = rigs[1].compressed.clone();
    rigs[0].compressed = other;
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 compressed clips");
    assert!(reason.contains("joints"), "reason: {reason}");
}

#[test]
fn the_checked_constructor_rejects_what_the_decoders_cannot_read() {
    use sinew::ChannelCode;
    assert!(common::hand_compressed().build().is_ok());
    type Edit = Box<dyn Fn(&mut common::HandCompressed)>;
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "bad channel offset",
            "clip 0",
            Box::new(|h| h.clips[0].channel_offset = 1),
        ),
        (
            "frames past the data",
            "clip 0",
            Box::new(|h| h.clips[0].frame_count = 3),
        ),
        (
            "frame offset past the data",
            "clip 0",
            Box::new(|h| h.clips[0].frame_offset = 100),
        ),
        ("zero rate", "clip 0", Box::new(|h| h.clips[0].rate = 0.0)),
        (
            "NaN duration",
            "clip 0",
            Box::new(|h| h.clips[0].duration = f32::NAN),
        ),
        (
            "frames ending early",
            "clip 0",
            Box::new(|h| h.clips[0].duration = 5.0),
        ),
        (
            "no frames",
            "clip 0",
            Box::new(|h| h.clips[0].frame_count = 0),
        ),
        (
            "segment offset without segments",
            "clip 0",
            Box::new(|h| h.clips[0].segment_offset = 1),
        ),
        (
            "bit rate 25",
            "clip 0 channel 0",
            Box::new(|h| h.channels[0].code += 17),
        ),
        (
            "component past the record",
            "clip 0 channel 6",
            Box::new(|h| h.channels[6].bit_offset = 150),
        ),
        (
            "rotation layout past the whole rotation",
            "clip 0 channel 1",
            Box::new(|h| h.channels[1] = h.channels[1].with_layout(5)),
        ),
        (
            "range past the data",
            "clip 0 channel 0",
            Box::new(|h| h.channels[0] = ChannelCode::animated(8, false, 40, 0)),
        ),
        (
            "raw channel with a range",
            "clip 0 channel 1",
            Box::new(|h| h.channels[1] = ChannelCode::animated(32, false, 3, 24)),
        ),
        (
            "NaN range",
            "clip 0 channel 0",
            Box::new(|h| h.data[3] = 0x7E00),
        ),
        (
            "negative extent",
            "clip 0 channel 0",
            Box::new(|h| h.data[3] = 0xBC00 << 16),
        ),
        (
            "infinite constant",
            "clip 0 channel 2",
            Box::new(|h| h.data[1] = f32::INFINITY.to_bits()),
        ),
        (
            "constant past the data",
            "clip 0 channel 4",
            Box::new(|h| h.channels[4] = ChannelCode::constant(30)),
        ),
        (
            "rest with a value",
            "clip 0 channel 3",
            Box::new(|h| h.channels[3].code |= 5 << 8),
        ),
        (
            "NaN raw frame value",
            "clip 0 channel 1",
            Box::new(|h| {
                let at = h.clips[0].frame_offset as usize;
                h.data[at] |= 0x7fc0_0000 << 24;
                h.data[at + 1] |= 0x7fc0_0000 >> 8;
            }),
        ),
        (
            "channel count",
            "channels",
            Box::new(|h| {
                h.channels.pop();
            }),
        ),
    ];
    for (case, object, edit) in cases {
        let mut h = common::hand_compressed();
        edit(&mut h);
        match h.build() {
            Ok(_) => panic!("{case}: accepted"),
            Err(e) => assert_eq!(e.object, object, "{case}: {}", e.reason),
        }
    }
    let h = common::hand_compressed();
    let bad_budget =
        sinew::CompressedClips::from_parts(2, 1, h.clips, h.channels, h.data, 0.0, 0.0);
    assert_eq!(bad_budget.unwrap_err().object, "budget");
}

#[test]
fn the_checked_constructor_rejects_damaged_segment_tables() {
    assert!(common::hand_segmented().build().is_ok());
    type Edit = Box<dyn Fn(&mut common::HandCompressed)>;
    // Word `w` of segment `k` of the table.
    fn seg(h: &mut common::HandCompressed, k: usize, w: usize) -> &mut u32 {
        let at =
            h.clips[0].segment_offset as usize + k * sinew::bake::compressed::SEGMENT_WORDS + w;
        &mut h.data[at]
    }
    let f = |v: f32| v.to_bits();
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "one segment",
            "clip 0 segments",
            Box::new(|h| h.clips[0].segment_count = 1),
        ),
        (
            "more than the cap",
            "clip 0 segments",
            Box::new(|h| {
                h.clips[0].segment_count = sinew::bake::compressed::MAX_SEGMENTS as u32 + 1
            }),
        ),
        (
            "table past the data",
            "clip 0 segments",
            Box::new(|h| h.clips[0].segment_offset = h.data.len() as u32 - 4),
        ),
        (
            "table offset past u32 words",
            "clip 0 segments",
            Box::new(|h| h.clips[0].segment_offset = u32::MAX),
        ),
        (
            "frame count not the segments'",
            "clip 0 segments",
            Box::new(|h| h.clips[0].frame_count = 2),
        ),
        (
            "last segment ends before the duration",
            "clip 0 segments",
            Box::new(|h| h.clips[0].duration = 1.75),
        ),
        (
            "first segment after 0 s",
            "clip 0 segment 0",
            Box::new(move |h| *seg(h, 0, 0) = f(0.5)),
        ),
        (
            "zero rate",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 1) = f(0.0)),
        ),
        (
            "NaN rate",
            "clip 0 segment 0",
            Box::new(move |h| *seg(h, 0, 1) = f(f32::NAN)),
        ),
        (
            "infinite rate",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 1) = f(f32::INFINITY)),
        ),
        (
            "NaN start",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 0) = f(f32::NAN)),
        ),
        (
            "start not increasing",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 0) = f(0.0)),
        ),
        (
            "start away from the previous end",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 0) = f(0.9)),
        ),
        (
            "no interval",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 3) = 0),
        ),
        (
            "first frame not the previous end",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 2) = 2),
        ),
        (
            "first frame of segment 0",
            "clip 0 segment 0",
            Box::new(move |h| *seg(h, 0, 2) = u32::MAX),
        ),
    ];
    for (case, object, edit) in cases {
        let mut h = common::hand_segmented();
        edit(&mut h);
        let result = std::panic::catch_unwind(move || h.build());
        match result {
            Err(_) => panic!("{case}: panicked"),
            Ok(Ok(_)) => panic!("{case}: accepted"),
            Ok(Err(e)) => assert_eq!(e.object, object, "{case}: {}", e.reason),
        }
    }
}

#[test]
fn a_version_1_file_from_the_old_writer_still_loads() {
    let path = common::repo().join("tests/data/v1_features.sinew");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        u32_at(&bytes, VERSION_AT),
        1,
        "written by a version 1 build"
    );
    let rigs = read_file(&path).unwrap();
    assert!(!rigs.is_empty());
    for rig in &rigs {
        assert_eq!(rig.compressed, None);
        let clips = rig.clips.clip_count();
        if clips > 0 {
            let (models, _, _) = evaluate(rig, &[Layer::clip(0, 0.5)]);
            assert!(models.iter().all(|m| m.is_finite()));
        }
    }
}

#[test]
fn bake_compress_stores_what_inspect_reports() {
    let gltf = common::repo().join("assets/humanoid.glb");
    let gltf = gltf.to_str().unwrap();
    let baked = temp_path("cli-compressed.sinew");
    let baked = baked.to_str().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args([
            "bake",
            gltf,
            "-o",
            baked,
            "--compress",
            "--error-budget",
            "0.2",
        ])
        .status()
        .unwrap();
    assert!(status.success(), "sinew bake failed: {status}");
    let stored = sinew_json(&["inspect", baked, "--json"]);
    let rigs = read_file(baked).unwrap();
    std::fs::remove_file(baked).unwrap();
    let c = &stored["rigs"][0]["compression"];
    let clips = rigs[0].compressed.as_ref().unwrap();
    assert_eq!(c["stored"], true);
    assert_eq!(c["bytes"], clips.byte_size());
    assert!((c["budget_mm"].as_f64().unwrap() - 0.2).abs() < 1e-6, "{c}");
    assert!(c["max_error_mm"].as_f64().unwrap() <= 0.2, "{c}");
    assert!(c["ratio"].as_f64().unwrap() > 1.0, "{c}");
    // Each clip's segments as stored.
    let segments = c["segments"].as_array().unwrap();
    assert_eq!(segments.len(), clips.clips().len(), "{c}");
    for (i, s) in segments.iter().enumerate() {
        let s = s.as_array().unwrap();
        assert_eq!(s.len(), clips.segments(i).len(), "clip {i}: {c}");
        for (k, seg) in s.iter().enumerate() {
            assert_eq!(seg["intervals"], clips.segments(i)[k].intervals, "{c}");
        }
    }
    // Fox's Run keys have a gap: its clips go on segments, which inspect lists.
    if let Some(shared) = common::shared() {
        let fox = shared.join("gltf/Fox.glb");
        let fox = fox.to_str().unwrap();
        let text = Command::new(env!("CARGO_BIN_EXE_sinew"))
            .args(["inspect", fox])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(text.contains(" segments ["), "{text}");
        let json = sinew_json(&["inspect", fox, "--json"]);
        let segments = json["rigs"][0]["compression"]["segments"]
            .as_array()
            .unwrap();
        assert!(
            segments.iter().any(|s| s.as_array().unwrap().len() > 1),
            "{json}"
        );
    }
    let on_the_fly = sinew_json(&["inspect", gltf, "--json"]);
    let c = &on_the_fly["rigs"][0]["compression"];
    assert_eq!(c["stored"], false);
    assert!((c["budget_mm"].as_f64().unwrap() - 0.1).abs() < 1e-6, "{c}");
}

#[test]
fn pose_resampled_agrees_with_the_exact_pose_within_the_budget() {
    let gltf = common::repo().join("assets/humanoid.glb");
    let gltf = gltf.to_str().unwrap();
    let args = ["pose", gltf, "--anim", "1", "--times", "0,0.37,0.9"];
    let exact = sinew_json(&args);
    let mut resampled_args = args.to_vec();
    resampled_args.push("--resampled");
    let resampled = sinew_json(&resampled_args);
    assert_eq!(resampled["clips"], "compressed");
    assert_eq!(exact["clips"], "exact");
    assert_eq!(
        (&exact["backend"], &resampled["backend"]),
        (&"cpu".into(), &"cpu".into())
    );
    let frames = |v: &serde_json::Value| v["skins"][0]["frames"].as_array().unwrap().clone();
    let (fe, fr) = (frames(&exact), frames(&resampled));
    assert_eq!(fe.len(), 3);
    let mut differs = false;
    for (e, r) in fe.iter().zip(&fr) {
        for (me, mr) in e["world"]
            .as_array()
            .unwrap()
            .iter()
            .zip(r["world"].as_array().unwrap())
        {
            let m = |v: &serde_json::Value| -> Vec<f32> {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect()
            };
            let (me, mr) = (m(me), m(mr));
            differs |= me != mr;
            // ACL's metric on the world matrix: the origin and vertices 3 cm along each axis.
            let d = |i: usize| me[i] - mr[i];
            let origin = glam::Vec3::new(d(12), d(13), d(14));
            let mut worst = origin.length();
            for axis in 0..3 {
                let col = glam::Vec3::new(d(axis * 4), d(axis * 4 + 1), d(axis * 4 + 2));
                worst = worst.max((origin + col * 0.03).length());
            }
            assert!(
                worst <= common::COMPRESSED_SHIPPED_ERROR_M,
                "error {worst} m"
            );
        }
    }
    assert!(
        differs,
        "the resampled pose comes from the compressed clips"
    );
}

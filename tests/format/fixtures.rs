//! The file layout the tests edit (header offsets, section kinds, the section table), the rigs
//! they bake, and the comparisons of a loaded rig with the one saved.

use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Affine3A;
use sinew::bake::file::{checksum, from_bytes};
use sinew::{Aabb, FormatErrorKind, Layer, Mat3x4Rows, Rig};

use super::common;

// Layout constants from the format description in `src/baked/file.rs`.
pub(crate) const VERSION_AT: usize = 8;
pub(crate) const CHECKSUM_AT: usize = 12;
pub(crate) const CHECKSUMMED_FROM: usize = 20;
pub(crate) const LENGTH_AT: usize = 20;
pub(crate) const COUNT_AT: usize = 28;
pub(crate) const TABLE_AT: usize = 32;
pub(crate) const ENTRY_LEN: usize = 32;
pub(crate) const KIND_RIG: u32 = 1;
pub(crate) const KIND_SKELETON: u32 = 2;
pub(crate) const KIND_CLIPS: u32 = 3;
pub(crate) const KIND_MESH: u32 = 4;
pub(crate) const KIND_MORPH: u32 = 5;
pub(crate) const KIND_MESH_MORPH: u32 = 6;
pub(crate) const KIND_MESH_INFLUENCES: u32 = 7;
pub(crate) const KIND_MATERIALS: u32 = 9;
pub(crate) const KIND_MESH_SURFACE: u32 = 10;

/// One section table entry as written in the file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub(crate) kind: u32,
    pub(crate) rig: u32,
    pub(crate) index: u32,
    pub(crate) offset: usize,
    pub(crate) len: usize,
}

pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

pub(crate) fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

pub(crate) fn section_table(bytes: &[u8]) -> Vec<Entry> {
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
pub(crate) fn section(bytes: &[u8], kind: u32) -> Entry {
    *section_table(bytes)
        .iter()
        .find(|e| e.kind == kind && e.rig == 0 && e.index == 0)
        .unwrap_or_else(|| panic!("no section of kind {kind} for rig 0"))
}

/// End of the header and section table.
pub(crate) fn table_end(bytes: &[u8]) -> usize {
    TABLE_AT + ENTRY_LEN * u32_at(bytes, COUNT_AT) as usize
}

/// Recomputes the checksum after an edit, so that only the decoder's own checks remain.
pub(crate) fn reseal(bytes: &mut [u8]) {
    let sum = checksum(&bytes[CHECKSUMMED_FROM..]);
    bytes[CHECKSUM_AT..CHECKSUM_AT + 8].copy_from_slice(&sum.to_le_bytes());
}

/// Offset of the first occurrence of `needle` inside `entry`'s body.
pub(crate) fn find_in(bytes: &[u8], entry: Entry, needle: &[u8], what: &str) -> usize {
    bytes[entry.offset..entry.offset + entry.len]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| entry.offset + p)
        .unwrap_or_else(|| panic!("{what} not found in its section"))
}

/// The rigs of a file in `../shared/gltf`; where that folder is absent, the committed rig that
/// stands in for it (the humanoid for Fox, the feature rig for the others), so the damage tests
/// always run.
pub(crate) fn shared_rigs(name: &str) -> Option<Vec<Rig>> {
    let path = match common::shared() {
        Some(shared) => shared.join("gltf").join(name),
        None if name == "Fox.glb" => common::repo().join("assets/humanoid.glb"),
        None => common::repo().join("assets/synthetic/features.glb"),
    };
    Some(without_materials(
        sinew::bake_rigs(&sinew::import_file(&path).unwrap()).unwrap(),
    ))
}

pub(crate) fn bake(path: &Path) -> Vec<Rig> {
    let asset = sinew::import_file(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    without_materials(
        sinew::bake_rigs(&asset).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
}

/// `rigs` without materials, vertex colours and `TEXCOORD_1`: files without images stay
/// small for the tests that edit every byte, and encode as format versions before 6 did
/// (`materials.rs` covers what this leaves out).
pub(crate) fn without_materials(mut rigs: Vec<Rig>) -> Vec<Rig> {
    for mesh in rigs.iter_mut().flat_map(|r| &mut r.meshes) {
        mesh.material = None;
        mesh.colors = None;
        mesh.uvs1 = None;
    }
    rigs
}

/// Every shared and generated asset.
pub(crate) fn all_assets() -> Vec<PathBuf> {
    let mut files = common::shared_assets();
    files.extend(common::repo_assets());
    if files.is_empty() {
        eprintln!("skipping: no shared or generated assets");
    }
    files
}

/// A path in the temporary folder that no other test (or test run) uses.
pub(crate) fn temp_path(tag: &str) -> PathBuf {
    std::env::temp_dir().join(format!("sinew-format-{}-{tag}", std::process::id()))
}

pub(crate) fn kind_of(bytes: &[u8]) -> FormatErrorKind {
    match from_bytes(bytes, "test.sinew") {
        Ok(rigs) => panic!("expected an error, loaded {} rigs", rigs.len()),
        Err(e) => {
            assert_eq!(e.file, "test.sinew", "the error names the file");
            e.kind
        }
    }
}

/// Asserts `kind` is `Corrupt` for a section whose name is `section`, returning the reason.
pub(crate) fn assert_corrupt(kind: FormatErrorKind, section: &str) -> String {
    match kind {
        FormatErrorKind::Corrupt { section: s, reason } => {
            assert_eq!(s, section, "corrupt section (reason: {reason})");
            reason
        }
        other => panic!("expected Corrupt in {section}, got {other:?}"),
    }
}

pub(crate) fn assert_slice_eq<T: PartialEq + Debug>(got: &[T], expected: &[T], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        panic!(
            "{what}: entry {i} differs\n  got      {:?}\n  expected {:?}",
            got[i], expected[i]
        );
    }
}

/// Field-by-field comparison (so a failure names the field), then whole-rig equality.
pub(crate) fn assert_rig_eq(got: &Rig, expected: &Rig, what: &str) {
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
pub(crate) fn evaluate(rig: &Rig, layers: &[Layer]) -> (Vec<Affine3A>, Vec<Mat3x4Rows>, Aabb) {
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

pub(crate) fn sinew_json(args: &[&str]) -> serde_json::Value {
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

pub(crate) fn morph_rigs() -> Vec<Rig> {
    bake(&common::repo().join("assets/synthetic/morph.glb"))
}

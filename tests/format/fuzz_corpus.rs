//! The fuzz corpus: seeds and every input that once crashed the loader

use glam::Affine3A;
use sinew::bake::file::{from_bytes, to_bytes};
use sinew::cpu::fast::DEFAULT_RATE;
use sinew::{FastCpuBackend, FormatErrorKind, InstanceRecord, Layer, Mat3x4Rows, Rig};

use super::common;
use super::fixtures::{
    CHECKSUMMED_FROM, KIND_MESH, KIND_RIG, LENGTH_AT, TABLE_AT, VERSION_AT, assert_rig_eq,
    evaluate, morph_rigs, reseal, section_table, shared_rigs, table_end, u32_at,
};

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
pub(crate) fn as_one_skin_rigs(rigs: &[Rig]) -> Vec<Rig> {
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
pub(crate) fn as_one_skin_version(bytes: &[u8], rigs: &[Rig], version: u32) -> Vec<u8> {
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

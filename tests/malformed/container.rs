//! Container: JSON and GLB.

use sinew::ImportErrorKind;

use super::fixtures::{glb, import_error, valid};

#[test]
fn bad_json() {
    let err = import_error(
        "bad-json.gltf",
        br#"{"asset": {"version": "2.0"}, "nodes": ["#,
    );
    assert_kind!(err, ImportErrorKind::Gltf(_), "bad-json.gltf", "line 1");
}

#[test]
fn json_that_is_not_gltf() {
    let err = import_error("not-gltf.gltf", br#"{"nodes": []}"#);
    assert_kind!(err, ImportErrorKind::Gltf(_), "asset");
}

#[test]
fn glb_declaring_more_bytes_than_it_has() {
    let mut bytes = valid().to_glb();
    let declared = bytes.len() as u32 + 100;
    bytes[8..12].copy_from_slice(&declared.to_le_bytes());
    let err = import_error("long-header.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "GLB header");
}

#[test]
fn glb_declaring_a_length_shorter_than_its_header() {
    let mut bytes = valid().to_glb();
    bytes[8..12].copy_from_slice(&4u32.to_le_bytes());
    let err = import_error("short-header.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "GLB header");
}

#[test]
fn glb_with_a_truncated_bin_chunk() {
    let mut bytes = valid().to_glb();
    bytes.truncate(bytes.len() - 16);
    let total = bytes.len() as u32;
    bytes[8..12].copy_from_slice(&total.to_le_bytes());
    let err = import_error("truncated-bin.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "BIN chunk");
}

#[test]
fn glb_with_a_json_chunk_longer_than_the_file() {
    let mut bytes = valid().to_glb();
    let json_length = u32::from_le_bytes(bytes[12..16].try_into().unwrap());
    bytes[12..16].copy_from_slice(&(json_length + 4096).to_le_bytes());
    let err = import_error("long-json-chunk.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "JSON chunk");
}

#[test]
fn glb_of_an_unsupported_version() {
    let mut bytes = valid().to_glb();
    bytes[4..8].copy_from_slice(&1u32.to_le_bytes());
    let err = import_error("version-1.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "version 1");
}

#[test]
fn glb_without_the_bin_chunk_its_buffer_needs() {
    let file = valid();
    let bytes = glb(&serde_json::to_vec(&file.json).unwrap(), None);
    let err = import_error("no-bin.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Buffer { buffer: 0, .. }, "buffer 0");
}

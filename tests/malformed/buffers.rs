//! Buffers.

use serde_json::json;
use sinew::ImportErrorKind;

use super::common;
use super::fixtures::{import_error, import_error_with_base, valid};

#[test]
fn external_buffer_that_does_not_exist() {
    let mut file = valid();
    file.json["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 16, "uri": "does-not-exist.bin"}));
    let base = common::repo().join("tests");
    let err = import_error_with_base("missing-buffer.gltf", &file.to_gltf(), Some(&base));
    assert_kind!(
        err,
        ImportErrorKind::Buffer { buffer: 1, .. },
        "buffer 1",
        "does-not-exist.bin"
    );
}

#[test]
fn external_buffer_without_a_base_folder_is_not_read_from_the_working_directory() {
    // `Cargo.toml` exists in the working directory of `cargo test`; with no base folder given,
    // import_bytes must not resolve external URIs at all.
    let mut file = valid();
    file.json["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 4, "uri": "Cargo.toml"}));
    let err = import_error("no-base.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Buffer { buffer: 1, .. },
        "buffer 1",
        "Cargo.toml"
    );
}

#[test]
fn buffer_uri_that_percent_decodes_to_invalid_utf8() {
    let mut file = valid();
    file.json["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 4, "uri": "%FF%FE.bin"}));
    let base = common::repo().join("tests");
    let err = import_error_with_base("bad-uri.gltf", &file.to_gltf(), Some(&base));
    assert_kind!(err, ImportErrorKind::Buffer { buffer: 1, .. }, "buffer 1");
}

#[test]
fn data_uri_with_invalid_base64() {
    let mut file = valid();
    file.json["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@@@");
    let err = import_error("bad-base64.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Buffer { buffer: 0, .. }, "buffer 0");
}

#[test]
fn buffer_shorter_than_its_byte_length() {
    let mut file = valid();
    file.json["buffers"][0]["byteLength"] = json!(file.bin.len() + 64);
    let err = import_error("short-buffer.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Buffer { buffer: 0, .. },
        "buffer 0",
        &format!("{} bytes", file.bin.len() + 64)
    );
}

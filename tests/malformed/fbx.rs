//! Damaged FBX files (truncated, garbage after the magic, corrupted bytes) give typed
//! `ImportError`s and never panic.

use sinew::ImportErrorKind;

use super::fixtures::import_error;
use super::fuzzing::fuzz;

fn file(name: &str) -> Vec<u8> {
    std::fs::read(super::common::repo().join("assets/fbx").join(name)).unwrap()
}

#[test]
fn truncated_binary_fbx_is_an_fbx_error() {
    let bytes = file("influences.fbx");
    for len in [21, 27, 100, bytes.len() / 3, bytes.len() - 200] {
        let err = import_error("truncated.fbx", &bytes[..len]);
        assert!(
            matches!(err.kind, ImportErrorKind::Fbx(_)),
            "{len} bytes: {err:?}"
        );
        assert_eq!(err.file, "truncated.fbx");
    }
}

#[test]
fn garbage_after_the_binary_magic_is_an_fbx_error() {
    let mut bytes = b"Kaydara FBX Binary  \0".to_vec();
    bytes.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    let err = import_error("garbage.fbx", &bytes);
    assert!(matches!(err.kind, ImportErrorKind::Fbx(_)), "{err:?}");
    assert!(err.to_string().contains("invalid FBX"), "{err}");
}

#[test]
fn ascii_fbx_with_a_broken_structure_is_an_fbx_error() {
    let text = String::from_utf8(file("ascii_pivot.fbx")).unwrap();
    let cut = text.find("Objects:").unwrap();
    let broken = format!(
        "{}Objects:  {{\n\tModel: 1, \"Model::A\", \"Null\" {{\n",
        &text[..cut]
    );
    let err = import_error("broken.fbx", broken.as_bytes());
    assert!(matches!(err.kind, ImportErrorKind::Fbx(_)), "{err:?}");
}

#[test]
fn fuzzed_binary_fbx_never_panics() {
    let outcome = fuzz("fuzz.fbx", &file("influences.fbx"), 0x5eed_0f00, 150);
    outcome.assert_no_panics();
    assert!(
        outcome.imported > 0 && !outcome.rejected.is_empty(),
        "{:?}",
        outcome.rejected
    );
}

#[test]
fn fuzzed_ascii_fbx_never_panics() {
    let outcome = fuzz("fuzz-ascii.fbx", &file("ascii_pivot.fbx"), 0x5eed_0f01, 300);
    outcome.assert_no_panics();
    assert!(
        outcome.imported > 0 && !outcome.rejected.is_empty(),
        "{:?}",
        outcome.rejected
    );
}

#[test]
fn fuzzed_fbx_with_materials_never_panics() {
    // Materials, an embedded PNG (damaged images are dropped with a warning), two UV sets and
    // vertex colours.
    let outcome = fuzz(
        "fuzz-materials.fbx",
        &file("materials.fbx"),
        0x5eed_0f02,
        300,
    );
    outcome.assert_no_panics();
    assert!(
        outcome.imported > 0 && !outcome.rejected.is_empty(),
        "{:?}",
        outcome.rejected
    );
}

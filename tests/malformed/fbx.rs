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

/// A triangle in cm deformed by two skin deformers, each binding all of it to its own bone (the
/// second bone 1 m up).
fn two_skins() -> String {
    let mut objects = String::new();
    let mut connections = String::new();
    for (k, bone) in ["Hips", "Spine"].into_iter().enumerate() {
        let (model, skin, cluster) = (1000 + k, 4000 + 10 * k, 4001 + 10 * k);
        let up = 100 * k;
        objects += &format!(
            "\tModel: {model}, \"Model::{bone}\", \"LimbNode\" {{\n\t}}\n\
             \tDeformer: {skin}, \"Deformer::Skin{bone}\", \"Skin\" {{\n\t}}\n\
             \tDeformer: {cluster}, \"SubDeformer::{bone}\", \"Cluster\" {{\n\
             \t\tIndexes: *3 {{\n\t\t\ta: 0,1,2\n\t\t}}\n\
             \t\tWeights: *3 {{\n\t\t\ta: 1,1,1\n\t\t}}\n\
             \t\tTransform: *16 {{\n\t\t\ta: 1,0,0,0,0,1,0,0,0,0,1,0,0,-{up},0,1\n\t\t}}\n\
             \t\tTransformLink: *16 {{\n\t\t\ta: 1,0,0,0,0,1,0,0,0,0,1,0,0,{up},0,1\n\t\t}}\n\
             \t}}\n"
        );
        connections += &format!(
            "\tC: \"OO\",{model},0\n\tC: \"OO\",{skin},2000\n\
             \tC: \"OO\",{cluster},{skin}\n\tC: \"OO\",{model},{cluster}\n"
        );
    }
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXVersion: 7400\n}}\n\
         Objects:  {{\n\tModel: 1002, \"Model::Body\", \"Mesh\" {{\n\t}}\n\
         \tGeometry: 2000, \"Geometry::Body\", \"Mesh\" {{\n\
         \t\tVertices: *9 {{\n\t\t\ta: 0,0,0,100,0,0,0,100,0\n\t\t}}\n\
         \t\tPolygonVertexIndex: *3 {{\n\t\t\ta: 0,1,-3\n\t\t}}\n\t}}\n\
         {objects}}}\nConnections:  {{\n\tC: \"OO\",1002,0\n\tC: \"OO\",2000,1002\n\
         {connections}}}\n"
    )
}

#[test]
fn mesh_with_two_skin_deformers_is_a_mesh_error() {
    let text = two_skins();
    let scene = sinew::import::fbx::load_scene(text.as_bytes()).unwrap();
    assert_eq!(scene.meshes[0].skin_deformers.len(), 2, "{text}");
    let err = import_error("two-skins.fbx", text.as_bytes());
    assert_eq!(err.file, "two-skins.fbx");
    match &err.kind {
        ImportErrorKind::Mesh { mesh, reason } => {
            assert_eq!(mesh, "Body");
            assert!(reason.contains("2 skin deformers"), "{reason}");
        }
        other => panic!("expected a mesh error, got {other:?}"),
    }
}

//! The valid file.

use serde_json::json;

use super::fixtures::{
    SPARSE_INDEX_VIEW, SPARSE_VALUE_VIEW, TRANSLATIONS, UNSIGNED_SHORT, import_and_bake, valid,
};

#[test]
fn the_minimal_file_imports_and_bakes_as_gltf() {
    let rigs = import_and_bake("minimal.gltf", &valid().to_gltf(), None)
        .unwrap_or_else(|e| panic!("the minimal file must import: {e}"));
    assert_eq!(rigs.len(), 1, "rig count");
    let rig = &rigs[0];
    assert_eq!(rig.skeleton.names(), ["root", "child"], "joint names");
    assert_eq!(rig.meshes.len(), 1, "mesh count");
    assert_eq!(rig.meshes[0].vertex_count(), 3, "vertex count");
    assert_eq!(rig.clips.clip_count(), 1, "clip count");
    assert_eq!(rig.clips.clips()[0].duration, 1.0, "clip duration");
}

#[test]
fn the_minimal_file_imports_and_bakes_as_glb() {
    let rigs = import_and_bake("minimal.glb", &valid().to_glb(), None)
        .unwrap_or_else(|e| panic!("the minimal file must import: {e}"));
    assert_eq!(rigs.len(), 1, "rig count");
    assert_eq!(rigs[0].joint_count(), 2, "joint count");
}

#[test]
fn the_sparse_variant_of_the_minimal_file_imports() {
    let mut file = valid();
    file.json["accessors"][TRANSLATIONS]["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": SPARSE_VALUE_VIEW},
    });
    let rigs = import_and_bake("sparse.gltf", &file.to_gltf(), None)
        .unwrap_or_else(|e| panic!("a valid sparse accessor must import: {e}"));
    assert_eq!(rigs.len(), 1, "rig count");
}

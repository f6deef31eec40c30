//! Indices that glTF validation checks.

use serde_json::json;
use sinew::ImportErrorKind;

use super::fixtures::{CHILD, ROOT, import_error, valid};

#[test]
fn skin_joint_node_out_of_range() {
    let mut file = valid();
    file.json["skins"][0]["joints"][1] = json!(99);
    let err = import_error("skin-joint-range.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Gltf(_), "skins[0].joints[1]");
}

#[test]
fn validation_error_text_says_invalid_gltf_once() {
    let mut file = valid();
    file.json["skins"][0]["joints"][1] = json!(99);
    let err = import_error("skin-joint-text.gltf", &file.to_gltf());
    let text = err.to_string();
    assert_eq!(
        text, "skin-joint-text.gltf: invalid glTF: skins[0].joints[1]: Index out of bounds",
        "error text"
    );
}

#[test]
fn channel_target_node_out_of_range() {
    let mut file = valid();
    file.json["animations"][0]["channels"][1]["target"]["node"] = json!(99);
    let err = import_error("channel-node-range.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(_),
        "animations[0].channels[1].target.node"
    );
}

#[test]
fn channel_target_path_unknown() {
    let mut file = valid();
    file.json["animations"][0]["channels"][0]["target"]["path"] = json!("shear");
    let err = import_error("channel-path.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(_),
        "animations[0].channels[0].target.path"
    );
}

#[test]
fn channel_sampler_out_of_range() {
    let mut file = valid();
    file.json["animations"][0]["channels"][0]["sampler"] = json!(7);
    let err = import_error("channel-sampler-range.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(_),
        "animations[0].channels[0].sampler"
    );
}

#[test]
fn child_node_out_of_range() {
    let mut file = valid();
    file.json["nodes"][ROOT]["children"] = json!([CHILD, 99]);
    let err = import_error("child-range.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Gltf(_), "nodes[0].children[1]");
}

#[test]
fn position_accessor_out_of_range() {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(99);
    let err = import_error("position-range.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(_),
        "meshes[0].primitives[0].attributes"
    );
}

//! The node graph.

use serde_json::json;
use sinew::ImportErrorKind;

use super::fixtures::{BODY, CHILD, ROOT, import_error, valid};

#[test]
fn node_that_is_its_own_child() {
    let mut file = valid();
    file.json["nodes"][CHILD]["children"] = json!([CHILD]);
    let err = import_error("own-child.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node: CHILD, .. },
        format!("node {CHILD}")
    );
}

#[test]
fn cyclic_node_graph() {
    let mut file = valid();
    file.json["nodes"][CHILD]["children"] = json!([ROOT]);
    let err = import_error("cycle.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node, reason }
            if (*node == ROOT || *node == CHILD) && reason.contains("cycle"),
        "cycle"
    );
}

#[test]
fn node_with_two_parents() {
    let mut file = valid();
    file.json["nodes"][BODY]["children"] = json!([CHILD]);
    let err = import_error("two-parents.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node: CHILD, reason } if reason.contains("two parents"),
        format!("node {CHILD}")
    );
}

#[test]
fn node_listing_the_same_child_twice_is_not_called_two_parents() {
    let mut file = valid();
    file.json["nodes"][ROOT]["children"] = json!([CHILD, CHILD]);
    let err = import_error("child-twice.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node: CHILD, reason } if reason.contains("twice"),
        format!("node {CHILD}"),
        format!("node {ROOT}")
    );
}

#[test]
fn long_node_cycle_is_found() {
    // A 2,000-node ring: every node has one parent, none reaches a root.
    let mut file = valid();
    let first = file.json["nodes"].as_array().unwrap().len();
    let count = 2000;
    for k in 0..count {
        let next = first + (k + 1) % count;
        file.push_node(json!({"children": [next]}));
    }
    let err = import_error("long-cycle.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node, reason }
            if *node >= first && reason.contains("cycle"),
        "cycle"
    );
}

#[test]
fn matrix_with_shear() {
    let mut file = valid();
    let root = file.json["nodes"][ROOT].as_object_mut().unwrap();
    root.remove("translation");
    root.insert(
        "matrix".into(),
        json!([
            1.0, 0.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0
        ]),
    );
    let err = import_error("shear.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonDecomposableMatrix { node: ROOT },
        format!("node {ROOT}")
    );
}

#[test]
fn node_translation_that_overflows_to_infinity() {
    let mut file = valid();
    file.json["nodes"][CHILD]["translation"] = json!([1e39, 0.0, 0.0]);
    let err = import_error("infinite-translation.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains(&format!("node {CHILD}")),
        format!("node {CHILD}")
    );
}

//! glTF 2.0, clause by clause: scenes and nodes (§3.5) and skins (§3.7.3), each case an edit of
//! the minimal file (see the clause list in `clauses.rs`).

use serde_json::json;
use sinew::ImportErrorKind;

use super::fixtures::{
    BODY, CHILD, Gltf, ROOT, import_and_bake, import_error, import_ok, valid, with_streams,
};

fn imports(name: &str, file: &Gltf) {
    if let Err(e) = import_and_bake(name, &file.to_gltf(), None) {
        panic!("case {name}: must import and bake: {e}");
    }
}

// ---------------------------------------------------------------------------------------------
// Scenes and nodes.
// ---------------------------------------------------------------------------------------------

#[test]
fn scene_must_list_only_root_nodes() {
    let mut file = valid();
    file.json["scenes"][0]["nodes"] = json!([ROOT, BODY, CHILD]);
    let err = import_error("scene-child.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Scene { scene: 0, .. },
        "scene 0",
        "node 1 as a root",
        "child of node 0"
    );
}

#[test]
fn scene_must_not_list_a_node_twice() {
    let mut file = valid();
    file.json["scenes"][0]["nodes"] = json!([ROOT, BODY, ROOT]);
    let err = import_error("scene-twice.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Scene { scene: 0, .. },
        "scene 0",
        "node 0 twice"
    );
}

#[test]
fn a_root_may_appear_in_several_scenes() {
    let mut file = valid();
    file.json["scenes"] = json!([{"nodes": [ROOT, BODY]}, {"nodes": [ROOT]}]);
    imports("two-scenes.gltf", &file);
}

#[test]
fn a_file_without_scenes_imports() {
    let mut file = valid();
    let root = file.json.as_object_mut().unwrap();
    root.remove("scene");
    root.remove("scenes");
    imports("no-scenes.gltf", &file);
}

#[test]
fn node_must_not_define_matrix_and_trs() {
    for property in ["translation", "rotation", "scale"] {
        let mut file = valid();
        let value = match property {
            "rotation" => json!([0.0, 0.0, 0.0, 1.0]),
            "scale" => json!([1.0, 1.0, 1.0]),
            _ => json!([0.0, 0.0, 0.0]),
        };
        file.json["nodes"][BODY]["matrix"] = json!([
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0
        ]);
        file.json["nodes"][BODY][property] = value;
        let err = import_error("matrix-and-trs.gltf", &file.to_gltf());
        assert_kind!(
            err,
            ImportErrorKind::NodeRule { node: 2, .. },
            "node 2",
            format!("matrix and {property}")
        );
    }
}

#[test]
fn animated_node_must_not_define_a_matrix() {
    let mut file = valid();
    let child = file.json["nodes"][CHILD].as_object_mut().unwrap();
    child.remove("translation");
    child.insert(
        "matrix".into(),
        json!([
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0
        ]),
    );
    let err = import_error("animated-matrix.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ChannelRule {
            animation: 0,
            channel: 0,
            ..
        },
        "animation 0 channel 0",
        "node 1",
        "matrix"
    );
}

#[test]
fn node_rotation_must_be_a_unit_quaternion() {
    let mut file = valid();
    file.json["nodes"][ROOT]["rotation"] = json!([0.0, 0.0, 0.0, 2.0]);
    let err = import_error("rotation-length-2.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeRule { node: 0, .. },
        "node 0",
        "not a unit quaternion"
    );
}

#[test]
fn node_rotation_within_quantization_error_of_unit_length_imports() {
    // A unit quaternion stored with 8-bit precision: about 0.4 % long.
    let mut file = valid();
    file.json["nodes"][ROOT]["rotation"] = json!([0.0, 0.0, 0.0, 1.004]);
    let asset = import_ok("rotation-8-bit.gltf", &file.to_gltf());
    let rotation = asset.nodes[ROOT].rest.rotation;
    assert!(rotation.is_normalized(), "rest rotation {rotation:?}");
}

#[test]
fn node_with_a_skin_must_have_a_mesh() {
    let mut file = valid();
    let node = file.push_node(json!({"name": "skin only", "skin": 0}));
    file.json["scenes"][0]["nodes"] = json!([ROOT, BODY, node]);
    let err = import_error("skin-without-mesh.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeRule { node: 3, .. },
        "node 3",
        "skin but no mesh"
    );
}

#[test]
fn node_with_weights_must_have_a_mesh() {
    let mut file = valid();
    let node = file.push_node(json!({"name": "weights only", "weights": [0.5]}));
    file.json["scenes"][0]["nodes"] = json!([ROOT, BODY, node]);
    let err = import_error("weights-without-mesh.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeRule { node: 3, .. },
        "node 3",
        "weights but no mesh"
    );
}

// ---------------------------------------------------------------------------------------------
// Skins.
// ---------------------------------------------------------------------------------------------

#[test]
fn inverse_bind_matrices_must_be_float_mat4() {
    let mut file = valid();
    file.json["accessors"][super::fixtures::INVERSE_BINDS]["type"] = json!("MAT3");
    let err = import_error("ibm-mat3.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 4, .. },
        "accessor 4",
        "inverse bind matrices"
    );
}

#[test]
fn more_inverse_bind_matrices_than_joints_is_allowed() {
    let file = with_streams(|s| {
        let extra = s.inverse_binds[1];
        s.inverse_binds.push(extra);
    });
    let asset = import_ok("ibm-extra.gltf", &file.to_gltf());
    assert_eq!(asset.skins[0].inverse_binds.len(), 2, "one per joint");
    let rigs =
        import_and_bake("ibm-extra.gltf", &file.to_gltf(), None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rigs[0].joint_count(), 2);
}

#[test]
fn skin_joints_must_have_a_common_root() {
    let mut file = with_streams(|s| {
        let extra = s.inverse_binds[0];
        s.inverse_binds.push(extra);
    });
    let loose = file.push_node(json!({"name": "loose"}));
    file.json["scenes"][0]["nodes"] = json!([ROOT, BODY, loose]);
    file.json["skins"][0]["joints"] = json!([ROOT, CHILD, loose]);
    file.json["skins"][0]
        .as_object_mut()
        .unwrap()
        .remove("skeleton");
    let err = import_error("two-roots.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, .. },
        "skin 0",
        "joints 0 and 3 have no common root"
    );
}

#[test]
fn skeleton_must_be_at_or_above_the_common_root_of_the_joints() {
    let mut file = valid();
    file.json["skins"][0]["skeleton"] = json!(CHILD);
    let err = import_error("skeleton-below-root.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, .. },
        "skin 0",
        "skeleton node 1",
        "joint 0 is not below it"
    );
}

#[test]
fn skeleton_above_the_common_root_of_the_joints_is_allowed() {
    let mut file = valid();
    let world = file.push_node(json!({"name": "world", "children": [ROOT]}));
    file.json["scenes"][0]["nodes"] = json!([world, BODY]);
    file.json["skins"][0]["skeleton"] = json!(world);
    imports("skeleton-above-root.gltf", &file);
    // Without a skeleton, too.
    file.json["skins"][0]
        .as_object_mut()
        .unwrap()
        .remove("skeleton");
    imports("no-skeleton.gltf", &file);
}

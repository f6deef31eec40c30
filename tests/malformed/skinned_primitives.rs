//! Skinned primitives.

use serde_json::json;
use sinew::ImportErrorKind;

use super::common;
use super::fixtures::{JOINTS, WEIGHTS, import_and_bake, import_error, valid, with_streams};

#[test]
fn vertex_joint_index_not_below_the_joint_count() {
    let file = with_streams(|s| s.joints[1] = [2, 0, 0, 0]);
    let err = import_error("joint-index.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::JointIndex {
            mesh: 0,
            primitive: 0,
            vertex: 1,
            joint: 2,
            joint_count: 2,
        },
        "mesh 0",
        "vertex 1"
    );
}

#[test]
fn vertex_with_zero_weights_is_bound_rigidly_to_the_model_joint() {
    let file = with_streams(|s| s.weights[2] = [0.0; 4]);
    let rigs = import_and_bake("zero-weights.gltf", &file.to_gltf(), None).unwrap();
    let rig = &rigs[0];
    let model = rig.skeleton.model_joint().unwrap();
    let mesh = &rig.meshes[0];
    assert_eq!(mesh.joints[2], common::eight([model as u16, 0, 0, 0]));
    assert_eq!(mesh.weights[2], common::eight([1.0, 0.0, 0.0, 0.0]));
}

#[test]
fn vertex_with_a_negative_weight() {
    let file = with_streams(|s| s.weights[0] = [1.5, -0.5, 0.0, 0.0]);
    let err = import_error("negative-weight.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ZeroWeights {
            mesh: 0,
            primitive: 0,
            vertex: 0,
        },
        "mesh 0",
        "vertex 0"
    );
}

#[test]
fn vertex_whose_weights_sum_to_infinity() {
    let file = with_streams(|s| s.weights[0] = [f32::MAX, f32::MAX, 0.0, 0.0]);
    let err = import_error("infinite-weight-sum.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ZeroWeights {
            mesh: 0,
            primitive: 0,
            vertex: 0,
        },
        "vertex 0"
    );
}

#[test]
fn joints_1_without_weights_1() {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["attributes"]["JOINTS_1"] = json!(JOINTS);
    let err = import_error("joints1-alone.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("JOINTS_1"),
        "mesh 0 primitive 0"
    );
}

#[test]
fn weights_2_without_joints_2() {
    // A third influence set (read, then cut to the strongest eight) needs both accessors too.
    let mut file = valid();
    let attributes = &mut file.json["meshes"][0]["primitives"][0]["attributes"];
    attributes["JOINTS_1"] = json!(JOINTS);
    attributes["WEIGHTS_1"] = json!(WEIGHTS);
    attributes["WEIGHTS_2"] = json!(WEIGHTS);
    let err = import_error("weights2-alone.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("WEIGHTS_2"),
        "mesh 0 primitive 0"
    );
}

#[test]
fn triangle_index_not_below_the_vertex_count() {
    let file = with_streams(|s| s.indices[2] = 7);
    let err = import_error("triangle-index.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("index 7"),
        "mesh 0 primitive 0"
    );
}

#[test]
fn weights_with_fewer_elements_than_positions() {
    let file = with_streams(|s| {
        s.weights.pop();
    });
    let err = import_error("short-weights-stream.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("WEIGHTS"),
        "mesh 0 primitive 0"
    );
}

#[test]
fn skinned_primitive_without_joints_0() {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["attributes"]
        .as_object_mut()
        .unwrap()
        .remove("JOINTS_0");
    let err = import_error("no-joints0.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("JOINTS_0"),
        "mesh 0 primitive 0"
    );
}

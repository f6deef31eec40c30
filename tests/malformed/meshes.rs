//! glTF 2.0, clause by clause: meshes (§3.7.2) and skinned mesh attributes (§3.7.3.3), each
//! case an edit of the minimal file (see the clause list in `clauses.rs`). Cases on a second,
//! unskinned mesh show that the rules hold for every mesh, not only the skinned ones read.

use serde_json::json;
use sinew::ImportErrorKind;

use super::fixtures::{
    BODY, FLOAT, Gltf, INDICES, JOINTS, POSITION, ROOT, SHORT, TRANSLATIONS, WEIGHTS, declare,
    floats, import_and_bake, import_error, import_ok, valid, with_streams,
};

/// The minimal file with a second, unskinned mesh of `primitive` on a node of the scene.
fn with_unskinned_mesh(primitive: serde_json::Value) -> Gltf {
    let mut file = valid();
    file.json["meshes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "prop", "primitives": [primitive]}));
    let node = file.push_node(json!({"name": "prop", "mesh": 1}));
    file.json["scenes"][0]["nodes"] = json!([ROOT, BODY, node]);
    file
}

/// The first primitive's attributes of mesh 0.
fn attributes(file: &mut Gltf) -> &mut serde_json::Value {
    &mut file.json["meshes"][0]["primitives"][0]["attributes"]
}

#[test]
fn mesh_must_have_a_primitive() {
    let mut file = valid();
    file.json["meshes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "empty", "primitives": []}));
    let err = import_error("no-primitives.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::MeshRule { mesh: 1, .. },
        "mesh 1",
        "no primitives"
    );
}

#[test]
fn position_accessor_must_define_bounds() {
    let mut file = valid();
    file.json["accessors"][POSITION]
        .as_object_mut()
        .unwrap()
        .remove("max");
    let err = import_error("position-without-max.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Gltf(_), "POSITION", "max");
}

#[test]
fn primitive_mode_must_be_a_gltf_mode() {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["mode"] = json!(7);
    let err = import_error("mode-7.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Gltf(_), "mode");
}

#[test]
fn attribute_formats_per_semantic_hold_on_every_mesh() {
    // NORMAL must be VEC3 float; the weights accessor is VEC4.
    let file =
        with_unskinned_mesh(json!({"attributes": {"POSITION": POSITION, "NORMAL": WEIGHTS}}));
    let err = import_error("normal-vec4.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 2, usage, .. } if usage == "NORMAL",
        "accessor 2"
    );
    // COLOR_n is float or normalized unsigned: unsigned short joints are neither.
    let file =
        with_unskinned_mesh(json!({"attributes": {"POSITION": POSITION, "COLOR_0": JOINTS}}));
    let err = import_error("color-u16.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 1, usage, .. } if usage == "COLOR_n",
        "accessor 1"
    );
}

#[test]
fn vec4_float_colors_and_application_specific_attributes_import() {
    let mut file = valid();
    attributes(&mut file)["COLOR_0"] = json!(WEIGHTS);
    // Application-specific semantics start with an underscore and may have any format.
    attributes(&mut file)["_INDEX"] = json!(INDICES);
    let rigs = import_and_bake("colors.gltf", &file.to_gltf(), None)
        .unwrap_or_else(|e| panic!("COLOR_0 as VEC4 float and _INDEX must import: {e}"));
    assert_eq!(rigs[0].meshes[0].vertex_count(), 3);
}

#[test]
fn attributes_of_a_primitive_must_have_one_count() {
    let file =
        with_unskinned_mesh(json!({"attributes": {"POSITION": POSITION, "NORMAL": TRANSLATIONS}}));
    let err = import_error("normal-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 1,
            primitive: 0,
            ..
        },
        "mesh 1 primitive 0",
        "NORMAL has 2 elements"
    );
}

#[test]
fn attribute_sets_must_be_numbered_from_0_without_gaps() {
    let mut file = valid();
    attributes(&mut file)["COLOR_1"] = json!(WEIGHTS);
    let err = import_error("color-1-alone.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            ..
        },
        "has COLOR_1 but no COLOR_0"
    );
}

#[test]
fn weights_1_without_joints_1_on_an_unskinned_mesh() {
    let file = with_unskinned_mesh(json!({"attributes": {
        "POSITION": POSITION, "JOINTS_0": JOINTS, "WEIGHTS_0": WEIGHTS, "WEIGHTS_1": WEIGHTS,
    }}));
    let err = import_error("weights-1-alone.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 1,
            primitive: 0,
            ..
        },
        "JOINTS_1 and WEIGHTS_1 must come together"
    );
}

#[test]
fn indices_must_not_hold_the_primitive_restart_value() {
    let file = with_streams(|s| s.indices[1] = u16::MAX);
    let err = import_error("restart-index.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            ..
        },
        "index 1 is 65535",
        "primitive restart value"
    );
}

#[test]
fn indices_must_be_scalar_unsigned_integers() {
    let mut file = valid();
    file.json["accessors"][INDICES]["componentType"] = json!(SHORT);
    let err = import_error("signed-indices.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 3, .. },
        "accessor 3",
        "indices"
    );
}

#[test]
fn indices_of_an_unskinned_mesh_must_be_below_its_vertex_count() {
    let mut file =
        with_unskinned_mesh(json!({"attributes": {"POSITION": TRANSLATIONS}, "indices": INDICES}));
    // POSITION needs bounds.
    file.json["accessors"][TRANSLATIONS]["min"] = json!([0.0, 0.0, 0.0]);
    file.json["accessors"][TRANSLATIONS]["max"] = json!([0.0, 0.5, 0.0]);
    let err = import_error("prop-index.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 1,
            primitive: 0,
            ..
        },
        "index 2 is not below the vertex count 2"
    );
}

#[test]
fn joint_must_not_have_two_non_zero_weights_on_one_vertex() {
    let file = with_streams(|s| s.joints[0] = [1, 1, 0, 0]);
    let err = import_error("joint-twice.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            ..
        },
        "vertex 0 gives joint 1 two non-zero weights"
    );
}

#[test]
fn weights_that_do_not_sum_to_one_import_renormalized() {
    // glTF asks for a sum close to 1 (SHOULD), not exactly 1.
    let file = with_streams(|s| s.weights[0] = [0.25, 0.5, 0.0, 0.0]);
    let asset = import_ok("weights-sum-075.gltf", &file.to_gltf());
    let w = asset.meshes[0].weights[0];
    let sum: f32 = w.iter().sum();
    assert!((sum - 1.0).abs() <= super::common::EXACT_TOLERANCE, "{w:?}");
    assert!(
        (w[0] - 2.0 * w[1]).abs() <= super::common::EXACT_TOLERANCE,
        "{w:?}"
    );
}

#[test]
fn all_zero_weights_on_an_unskinned_mesh_import() {
    // Accessor 8, pushed below: weights that are all zero.
    let mut file = with_unskinned_mesh(json!({"attributes": {
        "POSITION": POSITION, "JOINTS_0": JOINTS, "WEIGHTS_0": 8,
    }}));
    let zeros = file.push_view(&floats(&[[0.0f32; 4]; 3]), None);
    let accessor = file.push_accessor(
        json!({"bufferView": zeros, "count": 3, "componentType": FLOAT, "type": "VEC4"}),
    );
    assert_eq!(accessor, 8);
    import_ok("prop-zero-weights.gltf", &file.to_gltf());
}

#[test]
fn morph_target_attributes_must_have_the_target_formats() {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": WEIGHTS}]);
    let err = import_error("target-vec4.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 2, usage, .. } if usage == "morph target POSITION",
        "accessor 2"
    );
}

// ---------------------------------------------------------------------------------------------
// KHR_mesh_quantization morph targets.
// ---------------------------------------------------------------------------------------------

/// The minimal file declaring `KHR_mesh_quantization`, with one morph target whose POSITION
/// displacements are `component` integers (normalized or not) read from `values`.
fn with_quantized_target(values: &[[i16; 4]; 3], component: u32, normalized: bool) -> Gltf {
    let mut file = valid();
    declare(&mut file, &[("KHR_mesh_quantization", true)]);
    let bytes: Vec<u8> = values
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let view = file.push_view(&bytes, Some(8));
    let target = file.push_accessor(json!({
        "bufferView": view, "count": 3, "componentType": component, "type": "VEC3",
        "normalized": normalized,
    }));
    file.json["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": target}]);
    file
}

#[test]
fn quantized_morph_targets_import_per_the_extension() {
    let values = [[0, 0, 0, 0], [32767, 0, 0, 0], [0, -32767, 16384, 0]];
    let asset = import_ok(
        "target-snorm16.gltf",
        &with_quantized_target(&values, SHORT, true).to_gltf(),
    );
    let target = &asset.meshes[0].targets[0].positions;
    let expected = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, -1.0, 16384.0 / 32767.0],
    ];
    for (found, want) in target.iter().zip(expected) {
        for k in 0..3 {
            assert!(
                (found[k] - want[k]).abs() <= super::common::EXACT_TOLERANCE,
                "{target:?}"
            );
        }
    }
    // Not normalized: the integers as they are.
    let asset = import_ok(
        "target-i16.gltf",
        &with_quantized_target(&values, SHORT, false).to_gltf(),
    );
    assert_eq!(
        asset.meshes[0].targets[0].positions[2],
        [0.0, -32767.0, 16384.0]
    );
}

#[test]
fn quantized_morph_targets_need_the_extension_and_a_signed_type() {
    let values = [[0; 4]; 3];
    let mut file = with_quantized_target(&values, SHORT, true);
    file.json["extensionsUsed"] = json!([]);
    file.json["extensionsRequired"] = json!([]);
    let err = import_error("target-without-extension.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 8, .. },
        "accessor 8"
    );
    // The extension allows signed types only for targets.
    let file = with_quantized_target(&values, super::fixtures::UNSIGNED_SHORT, true);
    let err = import_error("target-unorm16.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 8, .. },
        "accessor 8",
        "KHR_mesh_quantization"
    );
}

// ---------------------------------------------------------------------------------------------
// Skinned meshes.
// ---------------------------------------------------------------------------------------------

#[test]
fn joint_values_of_zero_weight_must_be_within_the_skin_too() {
    // Vertex 1 weighs joint 0 fully; its unused joint slot names joint 5 of a two-joint skin.
    let file = with_streams(|s| s.joints[1] = [0, 5, 0, 0]);
    let err = import_error("unused-joint-out-of-range.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::JointIndex {
            mesh: 0,
            primitive: 0,
            vertex: 1,
            joint: 5,
            joint_count: 2,
        },
        "mesh 0 primitive 0 vertex 1"
    );
}

#[test]
fn every_primitive_of_a_skinned_mesh_needs_joints_and_weights() {
    // A point primitive (not read for skinning) without JOINTS_0 and WEIGHTS_0.
    let mut file = valid();
    file.json["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(json!({"attributes": {"POSITION": POSITION}, "mode": 0}));
    let err = import_error("points-without-joints.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 1,
            ..
        },
        "mesh 0 primitive 1",
        "no JOINTS_0"
    );
}

#[test]
fn attribute_set_indices_must_not_have_leading_zeros() {
    let mut file = valid();
    let attributes = attributes(&mut file).as_object_mut().unwrap();
    let weights = attributes.remove("WEIGHTS_0").unwrap();
    attributes.insert("WEIGHTS_00".into(), weights);
    let err = import_error("weights-00.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            ..
        },
        "WEIGHTS_00 pads its set index"
    );
}

#[test]
fn application_specific_attributes_must_not_be_unsigned_int() {
    let mut file = valid();
    let view = file.push_view(&[7u8; 12], None);
    let ids = file.push_accessor(
        json!({"bufferView": view, "count": 3, "componentType": 5125, "type": "SCALAR"}),
    );
    attributes(&mut file)["_ID"] = json!(ids);
    let err = import_error("id-u32.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 8, usage, .. } if usage == "_ID",
        "accessor 8",
        "UNSIGNED_INT"
    );
}

#[test]
fn indices_left_over_after_the_last_triangle_are_dropped() {
    // glTF only warns about a triangle index count that is not a multiple of 3.
    let file = with_streams(|s| s.indices.push(0));
    let asset = import_ok("four-indices.gltf", &file.to_gltf());
    assert_eq!(asset.meshes[0].indices, [0, 1, 2]);
    import_and_bake("four-indices.gltf", &file.to_gltf(), None).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn morph_target_attributes_must_displace_base_attributes() {
    // The minimal primitive has no NORMAL for the target's NORMAL to displace.
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["targets"] =
        json!([{"POSITION": POSITION, "NORMAL": POSITION}]);
    let err = import_error("target-normal-without-base.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            ..
        },
        "morph target 0 displaces NORMAL"
    );
}

//! Morph targets.

use serde_json::json;
use sinew::ImportErrorKind;

use super::fixtures::{
    BODY, Gltf, POSITION, ROOT, TIMES, TRANSLATIONS, import_and_bake, import_error, valid,
};

/// The minimal file with `targets` morph targets on its primitive (each displacing the vertices
/// by their own positions) and a `weights` channel on the body whose output is `output`.
fn with_morph_targets(targets: usize, output: usize) -> Gltf {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["targets"] =
        json!(vec![json!({"POSITION": POSITION}); targets]);
    file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(json!({"sampler": 2, "target": {"node": BODY, "path": "weights"}}));
    file.json["animations"][0]["samplers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"input": TIMES, "output": output, "interpolation": "LINEAR"}));
    file
}

#[test]
fn one_morph_target_animated_by_a_scalar_channel_imports_and_bakes() {
    // The key times double as the weights: one per key of the one target.
    let file = with_morph_targets(1, TIMES);
    let rigs = import_and_bake("morph.gltf", &file.to_gltf(), None)
        .unwrap_or_else(|e| panic!("one target animated by one weight per key: {e}"));
    assert_eq!(
        rigs[0].morph.weight_count(),
        4,
        "one target, padded to a chunk"
    );
    assert_eq!(rigs[0].meshes[0].morph.target_count, 1);
}

#[test]
fn primitives_with_different_morph_target_counts() {
    let mut file = with_morph_targets(1, TIMES);
    let mut second = file.json["meshes"][0]["primitives"][0].clone();
    second.as_object_mut().unwrap().remove("targets");
    file.json["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(second);
    let err = import_error("target-counts.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::MorphTargetCount {
            mesh: 0,
            primitive: 1,
            found: 0,
            expected: 1,
        },
        "mesh 0 primitive 1",
        "morph targets"
    );
}

#[test]
fn weights_channel_on_a_node_without_morph_targets() {
    // The body's mesh has no targets; the root has no mesh at all.
    for (node, name) in [(BODY, "weights-body.gltf"), (ROOT, "weights-root.gltf")] {
        let mut file = with_morph_targets(0, TIMES);
        file.json["animations"][0]["channels"][2]["target"]["node"] = json!(node);
        let err = import_error(name, &file.to_gltf());
        assert_kind!(
            err,
            ImportErrorKind::WeightsTarget {
                animation: 0,
                channel: 2,
                node: n,
            } if *n == node,
            "animation 0 channel 2",
            format!("node {node}")
        );
    }
}

#[test]
fn weights_output_that_is_not_keys_times_targets() {
    // Two targets need four weights for the two keys; the output has two.
    let file = with_morph_targets(2, TIMES);
    let err = import_error("weight-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::WeightKeyCount {
            animation: 0,
            channel: 2,
            times: 2,
            targets: 2,
            values: 2,
        },
        "animation 0 channel 2",
        "2 weight values"
    );
}

#[test]
fn morph_target_with_a_wrong_vertex_count() {
    let mut file = with_morph_targets(1, TIMES);
    file.json["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] = json!(TRANSLATIONS);
    let err = import_error("target-length.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("morph target 0"),
        "mesh 0 primitive 0"
    );
}

#[test]
fn default_morph_weights_that_are_not_one_per_target() {
    let mut file = with_morph_targets(1, TIMES);
    file.json["meshes"][0]["weights"] = json!([0.5, 0.5]);
    let err = import_error("mesh-weights.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::MorphWeights {
            found: 2,
            expected: 1,
            ..
        },
        "mesh 0"
    );
}

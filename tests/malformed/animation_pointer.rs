//! `KHR_animation_pointer`: pointer channels to node and mesh properties animate as the core
//! channels they mean; pointers to other properties are ignored with a note; a pointer naming
//! an object the file does not have is a typed error naming the animation and channel.

use serde_json::{Value, json};
use sinew::ImportErrorKind;

use super::common;
use super::fixtures::{CHILD, ROOT, declare, glb, import_error, import_ok, valid};

const EXTENSION: &str = "KHR_animation_pointer";

/// A channel of `sampler` animating what `pointer` names.
fn pointer_channel(sampler: usize, pointer: &str) -> Value {
    json!({
        "sampler": sampler,
        "target": {"path": "pointer", "extensions": {EXTENSION: {"pointer": pointer}}},
    })
}

#[test]
fn node_pointers_animate_as_core_channels() {
    let mut file = valid();
    declare(&mut file, &[(EXTENSION, true)]);
    file.json["animations"][0]["channels"] = json!([
        pointer_channel(0, &format!("/nodes/{CHILD}/rotation")),
        pointer_channel(1, &format!("/nodes/{ROOT}/translation")),
    ]);
    let asset = import_ok("pointers.gltf", &file.to_gltf());
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(asset.clips, plain.clips);
    assert!(asset.extensions[0].notes.is_empty());
}

#[test]
fn pointers_to_other_properties_are_ignored_with_a_note() {
    let mut file = valid();
    declare(&mut file, &[(EXTENSION, false)]);
    let material = "/materials/0/pbrMetallicRoughness/baseColorFactor";
    file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(pointer_channel(1, material));
    let asset = import_ok("material-pointer.gltf", &file.to_gltf());
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(asset.clips, plain.clips);
    let notes = &asset.extensions[0].notes;
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("animation 0 channel 2") && notes[0].contains(material));
}

#[test]
fn pointers_to_missing_objects_are_errors() {
    let cases = [
        ("/nodes/7/rotation", "names node 7, the file has 3"),
        ("/meshes/4/weights", "names mesh 4, the file has 1"),
        ("/nodes/one/rotation", "\"one\" where an index belongs"),
    ];
    for (pointer, needle) in cases {
        let mut file = valid();
        declare(&mut file, &[(EXTENSION, false)]);
        file.json["animations"][0]["channels"][1] = pointer_channel(1, pointer);
        let err = import_error("bad-pointer.gltf", &file.to_gltf());
        assert_kind!(
            err,
            ImportErrorKind::ChannelRule {
                animation: 0,
                channel: 1,
                ..
            },
            "animation 0 channel 1",
            needle
        );
    }
    let mut file = valid();
    declare(&mut file, &[(EXTENSION, false)]);
    file.json["animations"][0]["channels"][0]["target"] =
        json!({"path": "pointer", "extensions": {EXTENSION: {}}});
    let err = import_error("no-pointer.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ChannelRule { .. },
        "no pointer string"
    );
}

/// The JSON and binary chunks of a GLB.
fn split_glb(bytes: &[u8]) -> (Value, Vec<u8>) {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let json_len = word(12);
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin = bytes[bin_at + 8..bin_at + 8 + word(bin_at)].to_vec();
    (json, bin)
}

/// A mesh's weights animate every node that draws it: the morph rig's mesh 0 is drawn by two
/// nodes, and a pointer to it equals core channels on both.
#[test]
fn mesh_weight_pointers_animate_every_node_that_draws_the_mesh() {
    let (json, bin) =
        split_glb(&std::fs::read(common::repo().join("assets/synthetic/morph.glb")).unwrap());
    let drawers: Vec<usize> = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, n)| n["mesh"] == 0)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(drawers.len(), 2, "the morph rig draws its mesh twice");
    let (mut core, mut pointer) = (json.clone(), json);
    let animations = core["animations"].as_array().unwrap().len();
    for a in 0..animations {
        let channels = core["animations"][a]["channels"].as_array_mut().unwrap();
        let Some(weights) = channels
            .iter()
            .position(|c| c["target"]["path"] == "weights")
        else {
            continue;
        };
        assert_eq!(channels[weights]["target"]["node"], drawers[0]);
        let sampler = channels[weights]["sampler"].as_u64().unwrap() as usize;
        channels
            .push(json!({"sampler": sampler, "target": {"node": drawers[1], "path": "weights"}}));
        pointer["animations"][a]["channels"][weights] =
            pointer_channel(sampler, "/meshes/0/weights");
    }
    pointer["extensionsUsed"] = json!([EXTENSION]);
    let bytes = |json: &Value| glb(&serde_json::to_vec(json).unwrap(), Some(&bin));
    let from_pointer = import_ok("mesh-pointer.glb", &bytes(&pointer));
    let from_core = import_ok("mesh-core.glb", &bytes(&core));
    assert_eq!(from_pointer.clips, from_core.clips);
    assert!(from_pointer.clips.iter().any(|c| c.weights.len() == 2));
    assert!(from_pointer.clips.iter().all(|c| c.weights.len() != 1));
}

//! Animations.

use serde_json::json;
use sinew::ImportErrorKind;

use super::fixtures::{BODY, CHILD, import_error, valid, with_streams};

#[test]
fn nan_key_value() {
    let file = with_streams(|s| s.rotations[1][0] = f32::NAN);
    let err = import_error("nan-key.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains("animation 0 channel 0"),
        "animation 0 channel 0"
    );
}

#[test]
fn infinite_key_time() {
    let file = with_streams(|s| s.times[1] = f32::INFINITY);
    let err = import_error("inf-time.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 0,
            key: 1,
        },
        "animation 0 channel 0"
    );
}

#[test]
fn non_increasing_key_times() {
    let file = with_streams(|s| s.times = vec![0.5, 0.5]);
    let err = import_error("flat-times.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 0,
            key: 1,
        },
        "animation 0 channel 0",
        "key time 1"
    );
}

#[test]
pub(crate) fn negative_key_time() {
    let file = with_streams(|s| s.times[0] = -0.5);
    let err = import_error("negative-time.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 0,
            key: 0,
        },
        "animation 0 channel 0",
        "key time 0"
    );
}

#[test]
fn linear_output_count_differs_from_input_count() {
    let file = with_streams(|s| s.rotations.push([0.0, 0.0, 0.0, 1.0]));
    let err = import_error("linear-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyCount {
            animation: 0,
            channel: 0,
            times: 2,
            values: 3,
        },
        "animation 0 channel 0"
    );
}

#[test]
fn cubic_spline_output_count_differs_from_three_per_key() {
    let mut file = valid();
    file.json["animations"][0]["samplers"][1]["interpolation"] = json!("CUBICSPLINE");
    let err = import_error("cubic-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyCount {
            animation: 0,
            channel: 1,
            times: 2,
            ..
        },
        "animation 0 channel 1"
    );
}

#[test]
fn zero_length_rotation_key() {
    let file = with_streams(|s| s.rotations[1] = [0.0; 4]);
    let err = import_error("zero-rotation.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ZeroRotation {
            animation: 0,
            channel: 0,
            key: 1,
        },
        "animation 0 channel 0",
        "rotation key 1"
    );
}

#[test]
fn animation_without_channels() {
    let mut file = valid();
    file.json["animations"][0]["channels"] = json!([]);
    file.json["animations"][0]["samplers"] = json!([]);
    let err = import_error("no-channels.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ZeroLengthClip { animation: 0, .. },
        "animation 0"
    );
}

#[test]
fn two_channels_animating_the_same_property() {
    let mut file = valid();
    file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(json!({"sampler": 0, "target": {"node": CHILD, "path": "rotation"}}));
    let err = import_error("duplicate-channel.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::DuplicateChannel {
            animation: 0,
            target,
            channel: "rotation",
        } if target == "child",
        "animation 0",
        "child"
    );
}

#[test]
fn two_channels_animating_a_node_outside_every_rig() {
    // The skin does not contain node `body`: the duplicate is still an import error.
    let mut file = valid();
    let channels = file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap();
    for _ in 0..2 {
        channels.push(json!({"sampler": 1, "target": {"node": BODY, "path": "translation"}}));
    }
    let err = import_error("duplicate-outside-rig.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::DuplicateChannel {
            animation: 0,
            target,
            channel: "translation",
        } if target == "body",
        "animation 0",
        "body"
    );
}

#[test]
fn sync_markers_come_from_an_animations_extras() {
    let mut file = valid();
    file.json["animations"][0]["extras"] = json!({
        "sync_markers": [{"time": 0.5, "name": "right"}, {"time": 0.0, "name": "left"}],
        "author": "anyone"
    });
    let asset = super::fixtures::import_ok("markers.gltf", &file.to_gltf());
    let markers: Vec<(f32, &str)> = asset.clips[0]
        .markers
        .iter()
        .map(|m| (m.time, m.name.as_str()))
        .collect();
    assert_eq!(markers, [(0.5, "right"), (0.0, "left")]);
}

#[test]
fn malformed_sync_markers_are_errors_naming_the_animation() {
    for extras in [
        json!({"sync_markers": [{"time": "soon", "name": "left"}]}),
        json!({"sync_markers": {"left": [0.1, null]}}),
        json!({"markers": "left"}),
    ] {
        let mut file = valid();
        file.json["animations"][0]["extras"] = extras.clone();
        let err = import_error("bad-markers.gltf", &file.to_gltf());
        assert_kind!(
            err,
            ImportErrorKind::SyncMarker { animation: 0, .. },
            "animation 0",
            "sync marker"
        );
    }
}

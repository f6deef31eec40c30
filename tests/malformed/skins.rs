//! Skins.

use serde_json::json;
use sinew::{ImportErrorKind, MAX_JOINTS};

use super::fixtures::{ROOT, import_error, valid, with_streams};

#[test]
fn more_joints_than_max_joints() {
    let mut file = valid();
    let count = 300;
    let first = file.json["nodes"].as_array().unwrap().len();
    for k in 0..count {
        let children = if k + 1 < count {
            json!([first + k + 1])
        } else {
            json!([])
        };
        file.push_node(json!({"name": format!("bone{k}"), "children": children}));
    }
    file.json["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(first));
    let skin = file.json["skins"][0].as_object_mut().unwrap();
    skin.remove("inverseBindMatrices");
    skin.remove("skeleton");
    skin.insert(
        "joints".into(),
        json!((first..first + count).collect::<Vec<_>>()),
    );
    let err = import_error("300-joints.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::TooManyJoints {
            count: 300,
            limit: MAX_JOINTS,
            object,
        } if object.contains("skin 0"),
        "skin 0",
        "300"
    );
}

#[test]
fn nan_in_an_inverse_bind_matrix() {
    let file = with_streams(|s| s.inverse_binds[1][5] = f32::NAN);
    let err = import_error("nan-inverse-bind.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains("skin 0"),
        "skin 0",
        "inverse bind matrix 1"
    );
}

#[test]
fn inverse_bind_matrix_that_is_not_affine() {
    let file = with_streams(|s| s.inverse_binds[1][3] = 0.5);
    let err = import_error("projective-inverse-bind.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, reason } if reason.contains("inverse bind matrix 1"),
        "skin 0"
    );
}

#[test]
pub(crate) fn inverse_bind_count_differs_from_joint_count() {
    let file = with_streams(|s| s.inverse_binds.truncate(1));
    let err = import_error("inverse-bind-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, reason } if reason.contains("1 inverse bind"),
        "skin 0"
    );
}

#[test]
fn skin_with_duplicate_joints() {
    let mut file = valid();
    file.json["skins"][0]["joints"] = json!([ROOT, ROOT]);
    let err = import_error("duplicate-joints.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, reason } if reason.contains("twice"),
        "skin 0",
        format!("node {ROOT}")
    );
}

#[test]
pub(crate) fn skin_without_joints() {
    let mut file = valid();
    let skin = file.json["skins"][0].as_object_mut().unwrap();
    skin.remove("inverseBindMatrices");
    skin.insert("joints".into(), json!([]));
    let err = import_error("no-joints.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Skin { skin: 0, .. }, "skin 0");
}

//! Accessors and buffer views.

use serde_json::json;
use sinew::ImportErrorKind;

use super::fixtures::{
    FLOAT, INVERSE_BINDS, JOINTS, ROTATIONS, SHORT, SPARSE_INDEX_VIEW, SPARSE_VALUE_VIEW, TIMES,
    TRANSLATIONS, UNSIGNED_SHORT, WEIGHTS, import_error, valid, with_streams,
};

#[test]
fn accessor_range_beyond_its_buffer_view() {
    let mut file = valid();
    file.json["accessors"][TIMES]["count"] = json!(3);
    let err = import_error("times-past-view.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: TIMES,
            ..
        },
        format!("accessor {TIMES}")
    );
}

#[test]
fn accessor_with_a_huge_count_is_rejected_before_allocating() {
    let mut file = valid();
    file.json["accessors"][INVERSE_BINDS]["count"] = json!(1u64 << 58);
    let err = import_error("huge-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: INVERSE_BINDS,
            ..
        },
        format!("accessor {INVERSE_BINDS}")
    );
}

#[test]
fn accessor_without_a_view_and_a_huge_count() {
    let mut file = valid();
    let times = &mut file.json["accessors"][TIMES];
    times.as_object_mut().unwrap().remove("bufferView");
    times["count"] = json!(1u64 << 40);
    times["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": TIMES},
    });
    let err = import_error("huge-zero-filled.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: TIMES,
            ..
        },
        format!("accessor {TIMES}")
    );
}

#[test]
fn buffer_view_beyond_its_buffer() {
    let mut file = valid();
    let length = file.json["bufferViews"][ROTATIONS]["byteLength"]
        .as_u64()
        .unwrap();
    file.json["bufferViews"][ROTATIONS]["byteLength"] = json!(length + 4096);
    let err = import_error("view-past-buffer.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: ROTATIONS,
            ..
        },
        format!("accessor {ROTATIONS}"),
        format!("buffer view {ROTATIONS}")
    );
}

#[test]
fn byte_stride_smaller_than_the_element() {
    let mut file = valid();
    file.json["bufferViews"][WEIGHTS]["byteStride"] = json!(4);
    let err = import_error("small-stride.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: WEIGHTS,
            reason,
        } if reason.contains("stride"),
        format!("accessor {WEIGHTS}")
    );
}

#[test]
fn joints_stored_as_float() {
    let mut file = valid();
    file.json["accessors"][JOINTS]["componentType"] = json!(FLOAT);
    let err = import_error("float-joints.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: JOINTS,
            usage,
            ..
        } if usage.starts_with("JOINTS"),
        format!("accessor {JOINTS}")
    );
}

#[test]
fn key_times_stored_as_unsigned_short() {
    let mut file = valid();
    file.json["accessors"][TIMES]["componentType"] = json!(UNSIGNED_SHORT);
    let err = import_error("short-times.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: TIMES,
            ..
        },
        format!("accessor {TIMES}"),
        "key times"
    );
}

#[test]
fn weights_stored_as_normalized_short() {
    let mut file = valid();
    file.json["accessors"][WEIGHTS]["componentType"] = json!(SHORT);
    file.json["accessors"][WEIGHTS]["normalized"] = json!(true);
    let err = import_error("short-weights.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: WEIGHTS,
            ..
        },
        format!("accessor {WEIGHTS}"),
        "WEIGHTS"
    );
}

#[test]
fn rotation_keys_of_type_vec3() {
    let mut file = valid();
    file.json["accessors"][ROTATIONS]["type"] = json!("VEC3");
    let err = import_error("vec3-rotations.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: ROTATIONS,
            ..
        },
        format!("accessor {ROTATIONS}"),
        "rotation keys"
    );
}

#[test]
fn sparse_index_not_below_the_accessor_count() {
    let mut file = with_streams(|s| s.sparse_indices = vec![5]);
    file.json["accessors"][TRANSLATIONS]["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": SPARSE_VALUE_VIEW},
    });
    let err = import_error("sparse-index.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: TRANSLATIONS,
            reason,
        } if reason.contains("sparse index 5"),
        format!("accessor {TRANSLATIONS}")
    );
}

#[test]
fn sparse_count_above_the_accessor_count() {
    let mut file = valid();
    file.json["accessors"][TRANSLATIONS]["sparse"] = json!({
        "count": 3,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": SPARSE_VALUE_VIEW},
    });
    let err = import_error("sparse-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: TRANSLATIONS,
            ..
        },
        format!("accessor {TRANSLATIONS}"),
        "sparse count"
    );
}

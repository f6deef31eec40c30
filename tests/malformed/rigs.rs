//! Hand-built data given to `SkinnedMesh::build`, `Rig::from_skin`, `Rig::from_nodes`,
//! `bake_rigs` and `retarget_clips` (the asset and the runner are in `constructors.rs`).

use sinew::bake::retarget_clips;
use sinew::import::{RawAsset, RawMesh};
use sinew::{ImportError, ImportErrorKind, Rig, SkinnedMesh, bake_rigs};

use super::constructors::{
    BODY, CHILD, FILE, ROOT, asset, error_of, rotation_track, skeleton, triangle,
};

fn skin_error(case: &str, edit: impl FnOnce(&mut RawAsset)) -> ImportError {
    let mut a = asset();
    edit(&mut a);
    error_of(case, move || Rig::from_skin(&a, 0))
}

fn mesh_error(
    case: &str,
    skin_joints: &'static [u16],
    edit: impl FnOnce(&mut RawMesh),
) -> ImportError {
    let mut mesh = triangle();
    edit(&mut mesh);
    error_of(case, move || {
        SkinnedMesh::build(&mesh, &skeleton(), skin_joints, FILE)
    })
}

/// A one-clip rig and a source asset with `edit` applied, retargeted.
fn retarget_error(case: &str, edit: impl FnOnce(&mut RawAsset)) -> ImportError {
    let mut source = asset();
    edit(&mut source);
    error_of(case, move || {
        let mut rig_asset = asset();
        rig_asset.file = "rig.gltf".to_string();
        let rig = Rig::from_skin(&rig_asset, 0)?;
        retarget_clips(&rig, &source).map(|(rig, _)| rig.clips.clip_count())
    })
}

// ---------------------------------------------------------------------------------------------
// SkinnedMesh::build.
// ---------------------------------------------------------------------------------------------

#[test]
fn vertex_joint_beyond_the_skin_joints() {
    let err = mesh_error("vertex joint", &[0, 1], |m| m.joints[2][3] = 2);
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "skin joint",
            index: 2,
            count: 2,
            ..
        },
        "mesh \"triangle\" vertex 2"
    );
}

#[test]
fn skin_joint_beyond_the_skeleton() {
    let err = mesh_error("skin joint", &[0, 5], |_| {});
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "skeleton joint",
            index: 5,
            count: 2,
            ..
        },
        "mesh \"triangle\" skin joint 1"
    );
}

#[test]
fn normals_shorter_than_positions() {
    let err = mesh_error("normals", &[0, 1], |m| {
        m.normals.pop();
    });
    assert_kind!(
        err,
        ImportErrorKind::Mesh { mesh, reason } if mesh == "triangle" && reason.contains("normals"),
        "\"triangle\"",
        "2 normals for 3 positions"
    );
}

#[test]
fn weights_longer_than_positions() {
    let err = mesh_error("weights", &[0, 1], |m| {
        m.weights.push(super::common::eight([1.0, 0.0, 0.0, 0.0]))
    });
    assert_kind!(
        err,
        ImportErrorKind::Mesh { reason, .. } if reason.contains("weights"),
        "\"triangle\"",
        "4 weights for 3 positions"
    );
}

#[test]
fn triangle_index_beyond_the_vertices() {
    let err = mesh_error("index", &[0, 1], |m| m.indices[1] = 3);
    assert_kind!(
        err,
        ImportErrorKind::Mesh { reason, .. } if reason.contains("index 3"),
        "\"triangle\""
    );
}

#[test]
fn index_count_that_is_not_whole_triangles() {
    let err = mesh_error("partial triangle", &[0, 1], |m| m.indices.push(0));
    assert_kind!(
        err,
        ImportErrorKind::Mesh { reason, .. } if reason.contains("4 indices"),
        "\"triangle\""
    );
}

#[test]
fn position_that_is_not_finite() {
    let err = mesh_error("nan position", &[0, 1], |m| m.positions[1][2] = f32::NAN);
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains("position 1"),
        "mesh \"triangle\" position 1"
    );
}

#[test]
fn negative_weight() {
    let err = mesh_error("negative weight", &[0, 1], |m| {
        m.weights[0] = super::common::eight([1.5, -0.5, 0.0, 0.0])
    });
    assert_kind!(
        err,
        ImportErrorKind::Mesh { reason, .. } if reason.contains("vertex 0"),
        "\"triangle\"",
        "vertex 0"
    );
}

// ---------------------------------------------------------------------------------------------
// Rig::from_skin, Rig::from_nodes, bake_rigs.
// ---------------------------------------------------------------------------------------------

#[test]
fn skin_index_beyond_the_skins() {
    let err = error_of("skin index", || Rig::from_skin(&asset(), 4));
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 4, .. },
        "skin 4",
        "1 skins"
    );
}

#[test]
fn skin_without_joints() {
    let err = skin_error("no joints", |a| {
        a.skins[0].joints.clear();
        a.skins[0].inverse_binds.clear();
    });
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, .. },
        "skin 0",
        "no joints"
    );
}

#[test]
fn inverse_bind_count_differs_from_joint_count() {
    let err = skin_error("bind count", |a| {
        a.skins[0].inverse_binds.pop();
    });
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, .. },
        "skin 0",
        "1 inverse bind matrices for 2 joints"
    );
}

#[test]
fn skin_listing_a_joint_twice() {
    let err = skin_error("duplicate joint", |a| {
        a.skins[0].joints = vec![CHILD, CHILD]
    });
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, .. },
        "skin 0",
        "node 1 appears twice"
    );
}

#[test]
fn skin_joint_node_beyond_the_nodes() {
    let err = skin_error("joint node", |a| a.skins[0].joints[1] = 8);
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "node",
            index: 8,
            count: 3,
            ..
        },
        "skin 0 (skin) joint 1"
    );
}

#[test]
fn skin_whose_mesh_names_a_joint_it_lacks() {
    let err = skin_error("mesh joint", |a| a.meshes[0].joints[0][1] = 9);
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "skin joint",
            index: 9,
            ..
        },
        "mesh \"triangle\" vertex 0"
    );
}

#[test]
fn track_target_beyond_the_nodes() {
    let err = skin_error("target node", |a| a.clips[0].tracks[1].target = 3);
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "target node",
            index: 3,
            ..
        },
        "animation 0 channel 1"
    );
}

#[test]
fn bad_keys_are_numbered_as_in_the_asset() {
    // Channel 0 animates `body`, outside the skin: the rig keeps only channel 1, yet the error
    // names channel 1 of the asset.
    let err = skin_error("numbering", |a| {
        a.clips[0].tracks[0].target = BODY;
        a.clips[0].tracks[1].times = vec![0.0, 0.0];
    });
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 1,
            key: 1
        },
        "animation 0 channel 1"
    );
}

#[test]
fn node_rig_over_a_node_beyond_the_nodes() {
    let err = error_of("node rig", || {
        Rig::from_nodes(&asset(), &[CHILD, 6], "nodes")
    });
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "node",
            index: 6,
            ..
        },
        "nodes joint 1"
    );
}

#[test]
fn mesh_naming_a_skin_the_asset_lacks() {
    let mut a = asset();
    a.meshes[0].skin = Some(2);
    let err = error_of("mesh skin", move || bake_rigs(&a));
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "skin",
            index: 2,
            count: 1,
            ..
        },
        "mesh 0 (\"triangle\")"
    );
}

#[test]
fn skinless_asset_animating_a_node_beyond_the_nodes() {
    let mut a = asset();
    a.skins.clear();
    a.meshes.clear();
    a.clips[0].tracks[0].target = 5;
    let err = error_of("skinless target", move || bake_rigs(&a));
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "target node",
            index: 5,
            ..
        },
        "animation 0 channel 0"
    );
}

// ---------------------------------------------------------------------------------------------
// retarget_clips.
// ---------------------------------------------------------------------------------------------

#[test]
fn retarget_source_target_beyond_its_nodes() {
    let err = retarget_error("source target", |s| s.clips[0].tracks[0].target = 11);
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "target node",
            index: 11,
            ..
        },
        "animation 0 channel 0"
    );
}

#[test]
fn retarget_source_keys_are_numbered_as_in_the_source() {
    // The rig already holds one clip: the bad source clip is still animation 0.
    let err = retarget_error("source keys", |s| {
        s.clips[0].tracks[1].values.pop();
    });
    assert_kind!(
        err,
        ImportErrorKind::ValueCount {
            animation: 0,
            channel: 1,
            ..
        },
        "animation 0 channel 1"
    );
}

#[test]
fn retarget_two_source_tracks_onto_one_joint_property() {
    let err = retarget_error("source duplicate", |s| {
        s.nodes[BODY].name = "child".to_string();
        s.clips[0].tracks.push(rotation_track(BODY));
    });
    assert_kind!(
        err,
        ImportErrorKind::DuplicateChannel { animation: 0, channel: "rotation", target } if target == "child",
        "animation 0",
        "child"
    );
}

#[test]
fn retarget_source_clip_of_zero_length_is_a_pose() {
    // A clip without keys lasts 0 s: a valid pose clip, not an error.
    let rig = Rig::from_skin(&asset(), 0).unwrap();
    let mut source = asset();
    source.clips[0].tracks.clear();
    let (retargeted, _) = retarget_clips(&rig, &source).unwrap();
    let last = retargeted.clips.clips().last().unwrap();
    assert_eq!(last.duration, 0.0);
}

/// A valid rig whose clips were swapped for a node rig's (over fewer joints), as a rig assembled
/// by hand from its public fields may be.
fn mismatched_rig() -> Rig {
    let a = asset();
    let mut rig = Rig::from_skin(&a, 0).unwrap();
    rig.clips = Rig::from_nodes(&a, &[ROOT], "root").unwrap().clips;
    rig.name = "mismatched".into();
    rig
}

fn assert_invalid_rig(err: sinew::EvalError) {
    assert!(
        matches!(&err, sinew::EvalError::InvalidRig { rig: 1, name, reason }
            if name == "mismatched" && reason.contains("the clips cover")),
        "expected InvalidRig for rig 1, got {err:?}"
    );
    assert!(
        err.to_string().contains("mismatched"),
        "{err} names the rig"
    );
}

#[test]
fn cpu_backend_refuses_a_rig_whose_parts_disagree() {
    let good = Rig::from_skin(&asset(), 0).unwrap();
    sinew::CpuBackend::new(vec![good.clone()], Vec::new()).unwrap();
    let err = sinew::CpuBackend::new(vec![good, mismatched_rig()], Vec::new()).unwrap_err();
    assert_invalid_rig(err);
}

#[test]
fn fast_cpu_backend_refuses_a_rig_whose_parts_disagree() {
    let good = Rig::from_skin(&asset(), 0).unwrap();
    let err =
        sinew::FastCpuBackend::new(vec![good, mismatched_rig()], Vec::new(), 30.0).unwrap_err();
    assert_invalid_rig(err);
}

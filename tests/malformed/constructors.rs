//! Hand-built data given straight to the public constructors (no importer in between): each
//! case starts from one small valid raw asset, breaks one thing, and checks that the
//! constructor returns the typed error naming the file and the object, on a thread that must
//! return (a hang or a panic fails the case). This file holds the asset, the runner, the valid
//! cases, and the cases of `Skeleton::from_nodes` and `ClipLibrary::build`; `rigs.rs` and
//! `images.rs` hold the rest.

use std::sync::mpsc;

use glam::{Mat4, Quat, Vec3, Vec4};
use sinew::bake::retarget_clips;
use sinew::import::{RawClip, RawMesh, RawNode, RawSkin, RawTrack};
use sinew::{
    Channel, ClipLibrary, ImportError, ImportErrorKind, Interpolation, RawAsset, Rig, Skeleton,
    Sqt, bake_rigs,
};

use super::common::HANG_DEADLINE;

pub(super) const FILE: &str = "hand-built.gltf";

// ---------------------------------------------------------------------------------------------
// The valid asset every case starts from.
// ---------------------------------------------------------------------------------------------

pub(super) fn node(name: &str, parent: Option<usize>, translation: Vec3) -> RawNode {
    RawNode {
        name: name.to_string(),
        parent,
        rest: Sqt {
            translation,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
        },
    }
}

pub(super) fn rotation_track(target: usize) -> RawTrack {
    RawTrack {
        target,
        channel: Channel::Rotation,
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: vec![
            Vec4::from(Quat::IDENTITY),
            Vec4::from(Quat::from_rotation_z(1.0)),
        ],
    }
}

pub(super) fn translation_track(target: usize) -> RawTrack {
    RawTrack {
        target,
        channel: Channel::Translation,
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: vec![Vec4::ZERO, Vec4::new(0.0, 0.5, 0.0, 0.0)],
    }
}

pub(super) fn triangle() -> RawMesh {
    RawMesh {
        name: "triangle".to_string(),
        node: BODY,
        skin: Some(0),
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        normals: vec![[0.0, 0.0, 1.0]; 3],
        uvs: vec![[0.0, 0.0]; 3],
        tangents: None,
        uvs1: None,
        colors: None,
        material: None,
        joints: [[0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]]
            .map(super::common::eight)
            .to_vec(),
        weights: [
            [0.5, 0.5, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
        ]
        .map(super::common::eight)
        .to_vec(),
        indices: vec![0, 1, 2],
        ..RawMesh::default()
    }
}

/// Node indices: a two-joint chain and the mesh node.
pub(super) const ROOT: usize = 0;
pub(super) const CHILD: usize = 1;
pub(super) const BODY: usize = 2;

/// Skin 0 binds `root` and `child`; clip 0, `wave`, turns the child (channel 0) and moves the
/// root (channel 1); the mesh is one triangle.
pub(super) fn asset() -> RawAsset {
    RawAsset {
        file: FILE.to_string(),
        nodes: vec![
            node("root", None, Vec3::ZERO),
            node("child", Some(ROOT), Vec3::Y),
            node("body", None, Vec3::ZERO),
        ],
        skins: vec![RawSkin {
            name: Some("skin".to_string()),
            joints: vec![ROOT, CHILD],
            inverse_binds: vec![Mat4::IDENTITY, Mat4::from_translation(-Vec3::Y)],
            skeleton_root: None,
            mesh_nodes: vec![BODY],
        }],
        clips: vec![RawClip {
            name: "wave".to_string(),
            tracks: vec![rotation_track(CHILD), translation_track(ROOT)],
            ..RawClip::default()
        }],
        meshes: vec![triangle()],
        ..RawAsset::default()
    }
}

/// The skeleton of `root` and `child`: joint 0 is `root`, joint 1 `child`.
pub(super) fn skeleton() -> Skeleton {
    Skeleton::from_nodes(&asset(), &[ROOT, CHILD], &[], "test rig").unwrap()
}

/// Clip `wave` over joint indices of [`skeleton`].
pub(super) fn joint_clip() -> RawClip {
    RawClip {
        name: "wave".to_string(),
        tracks: vec![rotation_track(1), translation_track(0)],
        ..RawClip::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Running a case.
// ---------------------------------------------------------------------------------------------

/// Runs `build` on a thread of its own and returns its result; fails the case when it panics
/// or has not returned within [`HANG_DEADLINE`].
pub(super) fn returns<T: Send + 'static>(
    case: &str,
    build: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        // The receiver waits below; if it gave up there is nobody to tell.
        let _ = send.send(build());
    });
    match receive.recv_timeout(HANG_DEADLINE) {
        Ok(result) => result,
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("case {case}: did not return within {HANG_DEADLINE:?}")
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("case {case}: panicked"),
    }
}

/// The error `build` must return; checks it names [`FILE`].
pub(super) fn error_of<T: std::fmt::Debug + Send + 'static>(
    case: &str,
    build: impl FnOnce() -> Result<T, ImportError> + Send + 'static,
) -> ImportError {
    match returns(case, build) {
        Ok(value) => panic!("case {case}: expected an error, got {value:?}"),
        Err(err) => {
            assert_eq!(
                err.file, FILE,
                "case {case}: the error names the wrong file ({err})"
            );
            err
        }
    }
}

fn skeleton_error(
    case: &str,
    edit: impl FnOnce(&mut RawAsset),
    seeds: &'static [usize],
    binds: Vec<(usize, Mat4)>,
) -> ImportError {
    let mut a = asset();
    edit(&mut a);
    error_of(case, move || {
        Skeleton::from_nodes(&a, seeds, &binds, "test rig")
    })
}

fn clip_error(case: &str, edit: impl FnOnce(&mut RawClip)) -> ImportError {
    let mut clip = joint_clip();
    edit(&mut clip);
    error_of(case, move || ClipLibrary::build(&skeleton(), &[clip], FILE))
}

// ---------------------------------------------------------------------------------------------
// The valid asset.
// ---------------------------------------------------------------------------------------------

#[test]
fn the_hand_built_asset_bakes() {
    let rigs = returns("valid", || bake_rigs(&asset())).unwrap();
    assert_eq!(rigs.len(), 1, "rig count");
    assert_eq!(rigs[0].skeleton.names(), ["root", "child"], "joint names");
    assert_eq!(
        rigs[0].meshes[0].joints[2],
        super::common::eight([1, 0, 0, 0]),
        "mesh joint indices"
    );
    assert_eq!(rigs[0].clips.clips()[0].duration, 1.0, "clip duration");
}

#[test]
fn the_hand_built_asset_retargets_onto_its_own_rig() {
    let rig = Rig::from_skin(&asset(), 0).unwrap();
    let (out, report) = returns("retarget", move || retarget_clips(&rig, &asset())).unwrap();
    assert_eq!(out.clips.clip_count(), 2, "clip count");
    assert!(
        report.unmatched.is_empty(),
        "unmatched: {:?}",
        report.unmatched
    );
}

#[test]
fn a_node_rig_of_the_hand_built_asset_bakes() {
    let rig = returns("node rig", || Rig::from_nodes(&asset(), &[CHILD], "nodes")).unwrap();
    assert_eq!(rig.skeleton.names(), ["root", "child"], "joint names");
}

#[test]
fn cubic_spline_keys_with_three_values_each_build() {
    let mut clip = joint_clip();
    let track = &mut clip.tracks[0];
    track.interpolation = Interpolation::CubicSpline;
    track.values = [
        Vec4::ZERO,
        track.values[0],
        Vec4::ZERO,
        Vec4::ZERO,
        track.values[1],
        Vec4::ZERO,
    ]
    .to_vec();
    let library = ClipLibrary::build(&skeleton(), &[clip], FILE).unwrap();
    assert_eq!(library.clip_count(), 1, "clip count");
}

// ---------------------------------------------------------------------------------------------
// Skeleton::from_nodes.
// ---------------------------------------------------------------------------------------------

#[test]
fn parent_cycle_returns_an_error() {
    let err = skeleton_error(
        "parent cycle",
        |a| a.nodes[ROOT].parent = Some(CHILD),
        &[CHILD],
        Vec::new(),
    );
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node, reason } if *node <= CHILD && reason.contains("cycle"),
        "cycle"
    );
}

#[test]
fn node_that_is_its_own_parent_returns_an_error() {
    let err = skeleton_error(
        "own parent",
        |a| a.nodes[CHILD].parent = Some(CHILD),
        &[CHILD],
        Vec::new(),
    );
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node: CHILD, reason } if reason.contains("cycle"),
        "node 1"
    );
}

#[test]
fn parent_out_of_range() {
    let err = skeleton_error(
        "parent out of range",
        |a| a.nodes[CHILD].parent = Some(9),
        &[CHILD],
        Vec::new(),
    );
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node: CHILD, .. },
        "node 1",
        "parent 9"
    );
}

#[test]
fn seed_node_out_of_range() {
    let err = skeleton_error("seed out of range", |_| {}, &[ROOT, 7], Vec::new());
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "node",
            index: 7,
            count: 3,
            ..
        },
        "test rig joint 1",
        "node 7"
    );
}

#[test]
fn inverse_bind_node_out_of_range() {
    let err = skeleton_error(
        "bind out of range",
        |_| {},
        &[ROOT],
        vec![(5, Mat4::IDENTITY)],
    );
    assert_kind!(
        err,
        ImportErrorKind::IndexOutOfRange {
            what: "node",
            index: 5,
            ..
        },
        "test rig inverse bind 0"
    );
}

#[test]
fn inverse_bind_that_is_not_finite() {
    let nan = Mat4::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
    let err = skeleton_error("nan bind", |_| {}, &[ROOT], vec![(ROOT, nan)]);
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains("inverse bind 0"),
        "test rig"
    );
}

#[test]
fn rest_pose_that_is_not_finite() {
    let err = skeleton_error(
        "nan rest",
        |a| a.nodes[CHILD].rest.translation.x = f32::INFINITY,
        &[CHILD],
        Vec::new(),
    );
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains("node 1"),
        "node 1"
    );
}

// ---------------------------------------------------------------------------------------------
// ClipLibrary::build.
// ---------------------------------------------------------------------------------------------

#[test]
fn linear_track_with_more_values_than_keys() {
    let err = clip_error("linear count", |c| c.tracks[0].values.push(Vec4::W));
    assert_kind!(
        err,
        ImportErrorKind::ValueCount {
            animation: 0,
            channel: 0,
            times: 2,
            expected: 2,
            values: 3,
            ..
        },
        "animation 0 channel 0"
    );
}

#[test]
fn cubic_spline_track_with_one_value_per_key() {
    let err = clip_error("cubic count", |c| {
        c.tracks[1].interpolation = Interpolation::CubicSpline;
    });
    assert_kind!(
        err,
        ImportErrorKind::ValueCount {
            animation: 0,
            channel: 1,
            interpolation: "CUBICSPLINE",
            times: 2,
            expected: 6,
            values: 2,
        },
        "animation 0 channel 1",
        "CUBICSPLINE"
    );
}

#[test]
fn track_without_keys() {
    let err = clip_error("no keys", |c| {
        c.tracks[0].times.clear();
        c.tracks[0].values.clear();
    });
    assert_kind!(
        err,
        ImportErrorKind::KeyCount {
            animation: 0,
            channel: 0,
            times: 0,
            ..
        },
        "animation 0 channel 0"
    );
}

#[test]
fn unsorted_key_times() {
    let err = clip_error("unsorted", |c| c.tracks[1].times = vec![1.0, 0.5]);
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 1,
            key: 1
        },
        "animation 0 channel 1",
        "key time 1"
    );
}

#[test]
fn key_time_that_is_not_finite() {
    let err = clip_error("nan time", |c| c.tracks[0].times[0] = f32::NAN);
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 0,
            key: 0
        },
        "animation 0 channel 0",
        "key time 0"
    );
}

#[test]
fn negative_key_time() {
    let err = clip_error("negative time", |c| c.tracks[0].times[0] = -1.0);
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 0,
            key: 0
        },
        "animation 0 channel 0"
    );
}

#[test]
fn key_value_that_is_not_finite() {
    let err = clip_error("nan value", |c| c.tracks[1].values[1].y = f32::NAN);
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains("animation 0 channel 1"),
        "animation 0 channel 1"
    );
}

#[test]
fn track_target_beyond_the_skeleton() {
    let err = clip_error("target out of range", |c| c.tracks[1].target = 2);
    assert_kind!(
        err,
        ImportErrorKind::NotFound { what } if what == "clip 0 joint 2",
        "clip 0 joint 2"
    );
}

#[test]
fn track_target_too_large_to_index() {
    let err = clip_error("huge target", |c| c.tracks[0].target = usize::MAX);
    assert_kind!(err, ImportErrorKind::NotFound { .. }, "clip 0 joint");
}

#[test]
fn duration_that_is_not_finite() {
    let err = error_of("infinite duration", || {
        ClipLibrary::build_with_durations(&skeleton(), &[joint_clip()], &[f32::INFINITY], FILE)
    });
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object == "animation 0 duration",
        "animation 0 duration"
    );
}

//! Retargeting

use sinew::bake::{UnmatchedChannel, retarget_clips};
use sinew::{Channel, RawAsset, Rig, Sqt};

use super::common::assert_quat_close;
use super::fixtures::{Fixture, assert_v3, at, hold, linear, qv, rz, sample, trs, xyz};

/// Rig: Hips → Spine → Head with clip "idle" (Spine Rz 0° → 20° over 1 s). Source: nodes Tail,
/// Hips, Spine with clip "walk": Spine Rz 0° → 80° and Hips (0, 1, 0) → (4, 1, 0) over 2 s,
/// Tail rotation (over 3 s) and scale.
fn retarget_fixture() -> (Rig, RawAsset) {
    let mut f = Fixture::new();
    let hips = f.node("Hips", None, at([0.0, 1.0, 0.0]));
    let spine = f.node("Spine", Some(hips), at([0.0, 0.5, 0.0]));
    f.node(
        "Head",
        Some(spine),
        trs([0.0, 0.3, 0.0], rz(10.0), [1.0; 3]),
    );
    f.clip(
        "idle",
        vec![linear(
            spine,
            Channel::Rotation,
            &[0.0, 1.0],
            &[qv(rz(0.0)), qv(rz(20.0))],
        )],
    );
    let rig = f.node_rig();
    let mut s = Fixture::new();
    let tail = s.node("Tail", None, Sqt::IDENTITY);
    let hips = s.node("Hips", None, at([0.0, 1.0, 0.0]));
    let spine = s.node("Spine", Some(hips), at([0.0, 0.5, 0.0]));
    s.clip(
        "walk",
        vec![
            linear(
                spine,
                Channel::Rotation,
                &[0.0, 2.0],
                &[qv(rz(0.0)), qv(rz(80.0))],
            ),
            linear(
                hips,
                Channel::Translation,
                &[0.0, 2.0],
                &[xyz(0.0, 1.0, 0.0), xyz(4.0, 1.0, 0.0)],
            ),
            linear(
                tail,
                Channel::Rotation,
                &[0.0, 3.0],
                &[qv(rz(0.0)), qv(rz(50.0))],
            ),
            hold(tail, Channel::Scale, xyz(2.0, 2.0, 2.0)),
        ],
    );
    (rig, s.asset)
}

#[test]
fn retarget_appends_clips_matched_by_joint_name() {
    let (rig, source) = retarget_fixture();
    let (out, _) = retarget_clips(&rig, &source).unwrap();
    assert_eq!(out.clips.clip_count(), 2, "clip count");
    let walk = out.clips.find_clip("walk").expect("walk clip") as u32;
    assert_eq!(walk, 1, "walk is appended after idle");
    assert_quat_close(
        sample(&out, walk, "Spine", 1.0).rotation,
        rz(40.0),
        "Spine at t = 1",
    );
    assert_v3(
        sample(&out, walk, "Hips", 1.0).translation,
        [2.0, 1.0, 0.0],
        "Hips at t = 1",
    );
    let head = sample(&out, walk, "Head", 1.0);
    assert_quat_close(head.rotation, rz(10.0), "Head keeps its rest rotation");
    assert_v3(
        head.translation,
        [0.0, 0.3, 0.0],
        "Head keeps its rest translation",
    );
    assert_quat_close(
        sample(&out, 0, "Spine", 0.5).rotation,
        rz(10.0),
        "idle is unchanged",
    );
}

#[test]
fn retarget_reports_unmatched_channels() {
    let (rig, source) = retarget_fixture();
    let (_, report) = retarget_clips(&rig, &source).unwrap();
    let expected = vec![
        UnmatchedChannel {
            clip: 0,
            node: "Tail".to_string(),
            channel: Channel::Rotation,
        },
        UnmatchedChannel {
            clip: 0,
            node: "Tail".to_string(),
            channel: Channel::Scale,
        },
    ];
    assert_eq!(report.unmatched, expected);
}

#[test]
fn retargeted_clip_keeps_the_source_animation_duration() {
    // Tail's 3 s track is dropped, but the animation still lasts 3 s.
    let (rig, source) = retarget_fixture();
    let (out, _) = retarget_clips(&rig, &source).unwrap();
    let durations: Vec<f32> = out.clips.clips().iter().map(|c| c.duration).collect();
    assert_eq!(durations, vec![1.0, 3.0], "clip durations");
}

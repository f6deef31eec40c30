//! Reference poses: the CPU evaluator and the `pose` command against the three.js poses in
//! `../shared/reference-poses`.

use std::path::Path;

use sinew::report::{CpuPose, NodeSelection, PoseReport, PoseRequest, pose_report};

use super::common;

/// One entry of `../shared/reference-poses/index.json`.
#[derive(serde::Deserialize)]
struct ReferenceEntry {
    asset: String,
    animation: Option<usize>,
    #[serde(default)]
    times: Vec<f32>,
    expected: String,
}

fn reference_entries(shared: &Path) -> Vec<ReferenceEntry> {
    let text = std::fs::read_to_string(shared.join("reference-poses/index.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn request(entry: &ReferenceEntry) -> PoseRequest {
    PoseRequest {
        clip: entry.animation.map(|a| (a, entry.times.clone())),
        nodes: NodeSelection::None,
    }
}

fn assert_report_matches(got: &PoseReport, expected: &PoseReport, what: &str) {
    assert_eq!(got.skins.len(), expected.skins.len(), "{what}: skin count");
    assert_eq!(
        got.animation.as_ref().map(|a| a.index),
        expected.animation.as_ref().map(|a| a.index)
    );
    for (gs, es) in got.skins.iter().zip(&expected.skins) {
        assert_eq!(gs.joints, es.joints, "{what}: joint names");
        assert_eq!(gs.joint_nodes, es.joint_nodes, "{what}: joint nodes");
        assert_eq!(gs.mesh_nodes, es.mesh_nodes, "{what}: mesh nodes");
        assert_eq!(gs.frames.len(), es.frames.len(), "{what}: frame count");
        for (gf, ef) in gs.frames.iter().zip(&es.frames) {
            for (j, name) in gs.joints.iter().enumerate() {
                let at = format!("{what} skin {} t={:?} joint {name}", gs.index, ef.t);
                common::assert_matrix_close(&gf.world[j], &ef.world[j], &format!("{at} world"));
                common::assert_matrix_close(&gf.skin[j], &ef.skin[j], &format!("{at} skin"));
            }
        }
    }
}

#[test]
fn cpu_matches_every_reference_pose() {
    let Some(shared) = common::shared() else {
        return;
    };
    let entries = reference_entries(&shared);
    assert!(!entries.is_empty());
    for entry in entries {
        let asset = sinew::import_file(shared.join("gltf").join(&entry.asset)).unwrap();
        let got = pose_report(&asset, &request(&entry), &mut CpuPose).unwrap();
        let text =
            std::fs::read_to_string(shared.join("reference-poses").join(&entry.expected)).unwrap();
        let expected: PoseReport = serde_json::from_str(&text).unwrap();
        assert_report_matches(&got, &expected, &entry.expected);
    }
}

#[test]
fn pose_command_prints_the_reference_fox_walk() {
    let Some(shared) = common::shared() else {
        return;
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["pose", shared.join("gltf/Fox.glb").to_str().unwrap()])
        .args(["--anim", "1", "--times", "0,0.1,0.35", "--backend", "cpu"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: PoseReport = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got.times, vec![Some(0.0), Some(0.1), Some(0.35)]);
    // The reference samples other times; compare against our own library evaluation of these
    // times, and the library against the reference at its times (previous test), plus t = 0
    // directly, which both share.
    let text = std::fs::read_to_string(shared.join("reference-poses/Fox.anim1.json")).unwrap();
    let reference: PoseReport = serde_json::from_str(&text).unwrap();
    let first = |r: &PoseReport| PoseReport {
        times: r.times[..1].to_vec(),
        skins: r
            .skins
            .iter()
            .map(|s| sinew::report::SkinFrames {
                frames: s.frames[..1].to_vec(),
                ..s.clone()
            })
            .collect(),
        ..r.clone()
    };
    assert_report_matches(&first(&got), &first(&reference), "Fox.anim1 t=0 via CLI");
    let asset = sinew::import_file(shared.join("gltf/Fox.glb")).unwrap();
    let library = pose_report(
        &asset,
        &PoseRequest {
            clip: Some((1, vec![0.0, 0.1, 0.35])),
            nodes: NodeSelection::None,
        },
        &mut CpuPose,
    )
    .unwrap();
    assert_report_matches(&got, &library, "CLI vs library");
}

#[test]
fn pose_command_matches_reference_times_exactly_as_printed() {
    let Some(shared) = common::shared() else {
        return;
    };
    for entry in reference_entries(&shared) {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"));
        cmd.arg("pose").arg(shared.join("gltf").join(&entry.asset));
        match entry.animation {
            None => {
                cmd.arg("--rest");
            }
            Some(a) => {
                let times: Vec<String> = entry.times.iter().map(|t| t.to_string()).collect();
                cmd.args(["--anim", &a.to_string(), "--times", &times.join(",")]);
            }
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            entry.expected,
            String::from_utf8_lossy(&out.stderr)
        );
        let got: PoseReport = serde_json::from_slice(&out.stdout).unwrap();
        let text =
            std::fs::read_to_string(shared.join("reference-poses").join(&entry.expected)).unwrap();
        let expected: PoseReport = serde_json::from_str(&text).unwrap();
        assert_report_matches(&got, &expected, &format!("CLI {}", entry.expected));
    }
}

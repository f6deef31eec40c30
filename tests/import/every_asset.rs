//! Every asset imports, bakes, poses every clip and inspects; node animation without a skin.

use sinew::report::{CpuPose, NodeSelection, PoseRequest, pose_report};

use super::common;
use super::fixtures::all_assets;

#[test]
fn every_asset_imports_bakes_and_poses_every_clip() {
    for path in all_assets() {
        let asset = sinew::import_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let rigs = sinew::bake_rigs(&asset).unwrap_or_else(|e| panic!("{e}"));
        assert!(!rigs.is_empty(), "{}: no rig", path.display());
        let rest = PoseRequest {
            clip: None,
            nodes: NodeSelection::Animated,
        };
        pose_report(&asset, &rest, &mut CpuPose)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (c, clip) in asset.clips.iter().enumerate() {
            let d = clip.duration();
            let times = vec![-1.0, 0.0, d * 0.3, d * 0.5, d, d + 1.0];
            let req = PoseRequest {
                clip: Some((c, times)),
                nodes: NodeSelection::Animated,
            };
            let report = pose_report(&asset, &req, &mut CpuPose)
                .unwrap_or_else(|e| panic!("{} clip {c}: {e}", path.display()));
            for skin in &report.skins {
                for frame in &skin.frames {
                    assert!(
                        frame
                            .world
                            .iter()
                            .chain(&frame.skin)
                            .flatten()
                            .all(|v| v.is_finite()),
                        "{} clip {c}: non-finite matrix",
                        path.display()
                    );
                }
            }
        }
    }
}

#[test]
fn inspect_command_runs_on_every_asset() {
    for path in all_assets() {
        for json in [false, true] {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"));
            cmd.arg("inspect").arg(&path);
            if json {
                cmd.arg("--json");
            }
            let out = cmd.output().unwrap();
            assert!(
                out.status.success(),
                "{}: {}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            if json {
                let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                assert!(
                    !v["rigs"].as_array().unwrap().is_empty(),
                    "{}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn node_animation_without_a_skin_follows_each_interpolation_mode() {
    let Some(shared) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(shared.join("gltf/InterpolationTest.glb")).unwrap();
    assert!(asset.skins.is_empty());
    // (clip, time, matrix element, expected): keys sit at t = 0, 0.5, 1, 1.5, 2. Scale and
    // rotation read element 0 (x scale / cos of the Z rotation), translation element 13 (y).
    let half_step = (22.5f32).to_radians().cos();
    let expectations = [
        ("Step Scale", 0.25, 0, 1.0),
        ("Step Scale", 0.5, 0, 0.0),
        ("Linear Scale", 0.25, 0, 0.5),
        ("CubicSpline Scale", 0.5, 0, 0.0),
        ("CubicSpline Scale", 1.0, 0, 1.0),
        ("Step Rotation", 0.25, 0, 1.0),
        ("Step Rotation", 0.5, 0, std::f32::consts::FRAC_1_SQRT_2),
        ("Linear Rotation", 0.25, 0, half_step),
        ("CubicSpline Rotation", 1.0, 0, 0.0),
        ("Step Translation", 0.25, 13, 6.8),
        ("Step Translation", 0.5, 13, 10.8),
        ("Linear Translation", 0.25, 13, 8.8),
        ("CubicSpline Translation", 0.5, 13, 10.8),
    ];
    for (name, t, element, expected) in expectations {
        let c = asset.clips.iter().position(|c| c.name == name).unwrap();
        let req = PoseRequest {
            clip: Some((c, vec![t])),
            nodes: NodeSelection::Animated,
        };
        let report = pose_report(&asset, &req, &mut CpuPose).unwrap();
        let nodes = report.nodes.unwrap();
        let target = asset.clips[c].tracks[0].target;
        let k = nodes.indices.iter().position(|&n| n == target).unwrap();
        let got = nodes.frames[0].world[k][element];
        assert!(
            (got - expected).abs() < 1e-4,
            "{name} at {t}: element {element} is {got}, expected {expected}"
        );
    }
}

#[test]
fn nodes_all_covers_files_larger_than_one_rig() {
    let Some(shared) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(shared.join("gltf/RecursiveSkeletons.glb")).unwrap();
    assert!(asset.nodes.len() > sinew::MAX_JOINTS);
    let req = PoseRequest {
        clip: Some((0, vec![0.5])),
        nodes: NodeSelection::All,
    };
    let report = pose_report(&asset, &req, &mut CpuPose).unwrap();
    let nodes = report.nodes.unwrap();
    assert_eq!(nodes.indices.len(), asset.nodes.len());
    // Every skin joint's world matrix from the node listing equals the one from its skin.
    for skin in &report.skins {
        for (j, &node) in skin.joint_nodes.iter().enumerate() {
            common::assert_matrix_close(
                &nodes.frames[0].world[node],
                &skin.frames[0].world[j],
                "node vs skin",
            );
        }
    }
}

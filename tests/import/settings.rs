//! Import settings: the default imports exactly what plain import does; a unit scale, an axis
//! change and an extra root transform put every joint world matrix and every skinned vertex at
//! `correction × original`; the CLI flags reach the importer.

use std::f32::consts::FRAC_PI_2;
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec3};
use sinew::report::{CpuPose, NodeSelection, PoseReport, PoseRequest, pose_report};
use sinew::{Axis, ImportSettings, RawAsset};

use super::common;
use super::fbx::{asset_size, import, key_times, skinned};

fn humanoids() -> Vec<PathBuf> {
    let repo = common::repo();
    vec![
        repo.join("assets/humanoid.glb"),
        repo.join("assets/fbx/humanoid.fbx"),
    ]
}

fn import_with(path: &Path, settings: &ImportSettings) -> RawAsset {
    sinew::import_file_with(path, settings).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn default_settings_import_the_same_bits_as_plain_import() {
    let mut files = common::repo_assets();
    files.extend(humanoids());
    files.push(common::repo().join("assets/fbx/ascii_pivot.fbx"));
    for path in files {
        let plain = import(&path);
        let with = import_with(&path, &ImportSettings::default());
        // Debug prints every float so that it reads back to the same bits (and -0 as -0).
        assert_eq!(
            format!("{with:?}"),
            format!("{plain:?}"),
            "{}",
            path.display()
        );
    }
}

/// Settings and the correction they mean, written out independently of the importer.
fn cases() -> Vec<(&'static str, ImportSettings, Mat4)> {
    let z_up = ImportSettings {
        up: Axis::Z,
        forward: Axis::NegY,
        ..Default::default()
    };
    let turn = Quat::from_rotation_y(0.7);
    let offset = Vec3::new(1.5, -2.0, 0.25);
    vec![
        (
            "centimetres",
            ImportSettings {
                unit_scale: 0.01,
                ..Default::default()
            },
            Mat4::from_scale(Vec3::splat(0.01)),
        ),
        ("z up", z_up, Mat4::from_rotation_x(-FRAC_PI_2)),
        (
            "x up, -z forward, moved and turned, in centimetres",
            ImportSettings {
                unit_scale: 0.01,
                up: Axis::X,
                forward: Axis::NegZ,
                rotation: turn,
                translation: offset,
            },
            // +X up → +Y, -Z forward → +Z, and up × forward = +Y → +X.
            Mat4::from_translation(offset)
                * Mat4::from_quat(turn)
                * Mat4::from_cols(
                    glam::Vec4::new(0.0, 1.0, 0.0, 0.0),
                    glam::Vec4::new(1.0, 0.0, 0.0, 0.0),
                    glam::Vec4::new(0.0, 0.0, -1.0, 0.0),
                    glam::Vec4::W,
                )
                * Mat4::from_scale(Vec3::splat(0.01)),
        ),
    ]
}

/// Poses of every clip at its key times, and the rest pose.
fn poses(asset: &RawAsset) -> Vec<PoseReport> {
    let mut requests = vec![PoseRequest {
        clip: None,
        nodes: NodeSelection::All,
    }];
    for (c, clip) in asset.clips.iter().enumerate() {
        let mut times = key_times(clip);
        times.push(times.last().copied().unwrap_or(0.0) * 0.37);
        requests.push(PoseRequest {
            clip: Some((c, times)),
            nodes: NodeSelection::All,
        });
    }
    requests
        .iter()
        .map(|r| pose_report(asset, r, &mut CpuPose).unwrap_or_else(|e| panic!("{e}")))
        .collect()
}

#[test]
fn settings_put_joints_and_skinned_vertices_at_correction_times_original() {
    for path in humanoids() {
        let plain = import(&path);
        let plain_poses = poses(&plain);
        let tol = common::settings_tolerance(asset_size(&plain));
        for (what, settings, correction) in cases() {
            let corrected = import_with(&path, &settings);
            let at = format!("{} {what}", path.display());
            let mut compared = 0;
            for (got, want) in poses(&corrected).iter().zip(&plain_poses) {
                let node_worlds = got.nodes.iter().zip(&want.nodes).flat_map(|(g, w)| {
                    g.frames
                        .iter()
                        .zip(&w.frames)
                        .flat_map(|(g, w)| g.world.iter().zip(&w.world))
                });
                for (g, w) in node_worlds {
                    let want = correction * Mat4::from_cols_array(w);
                    for (k, (g, w)) in g.iter().zip(want.to_cols_array()).enumerate() {
                        assert!((g - w).abs() <= tol, "{at}: node element {k} {g}, want {w}");
                    }
                }
                for (gs, ws) in got.skins.iter().zip(&want.skins) {
                    for (gf, wf) in gs.frames.iter().zip(&ws.frames) {
                        for (j, (g, w)) in gf.world.iter().zip(&wf.world).enumerate() {
                            let want = correction * Mat4::from_cols_array(w);
                            for (k, (g, w)) in g.iter().zip(want.to_cols_array()).enumerate() {
                                assert!(
                                    (g - w).abs() <= tol,
                                    "{at} t={:?}: joint {} element {k} is {g}, want {w}",
                                    wf.t,
                                    ws.joints[j]
                                );
                            }
                        }
                        let g = skinned(&corrected, &gf.skin);
                        let w = skinned(&plain, &wf.skin);
                        assert_eq!(g.len(), w.len(), "{at}: vertex count");
                        for (v, (g, w)) in g.iter().zip(&w).enumerate() {
                            let want = correction.transform_point3(*w);
                            assert!(
                                g.distance(want) <= tol,
                                "{at} t={:?}: vertex {v} at {g}, want {want}",
                                wf.t
                            );
                        }
                        compared += 1;
                    }
                }
            }
            assert!(compared > 1, "{at}: nothing compared");
        }
    }
}

/// Joint world translations of `sinew pose FILE --anim 0 --times 0.5 EXTRA...`.
fn cli_translations(file: &Path, extra: &[&str]) -> Vec<Vec3> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .arg("pose")
        .arg(file)
        .args(["--anim", "0", "--times", "0.5"])
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "sinew pose {extra:?}: {err}");
    let report: PoseReport = serde_json::from_slice(&out.stdout).unwrap();
    report.skins[0].frames[0]
        .world
        .iter()
        .map(|m| Mat4::from_cols_array(m).w_axis.truncate())
        .collect()
}

#[test]
fn pose_command_flags_reach_the_importer() {
    for path in humanoids() {
        let plain = cli_translations(&path, &[]);
        let half = cli_translations(&path, &["--unit-scale", "0.5"]);
        let z_up = cli_translations(&path, &["--up", "z"]);
        let minus = cli_translations(&path, &["--up=-x", "--forward", "-z"]);
        let tol = common::settings_tolerance(1.0);
        assert!(plain.iter().any(|p| p.length() > 0.1), "joints away from 0");
        for (j, p) in plain.iter().enumerate() {
            let at = format!("{} joint {j}", path.display());
            assert!(
                half[j].distance(*p * 0.5) <= tol,
                "{at}: {} vs {p}",
                half[j]
            );
            let turned = Vec3::new(p.x, p.z, -p.y);
            assert!(
                z_up[j].distance(turned) <= tol,
                "{at}: {} vs {turned}",
                z_up[j]
            );
            // -X up → +Y, -Z forward → +Z, so up × forward = -Y → +X.
            let turned = Vec3::new(-p.y, -p.x, -p.z);
            assert!(
                minus[j].distance(turned) <= tol,
                "{at}: {} vs {turned}",
                minus[j]
            );
        }
    }
}

#[test]
fn bake_command_flags_reach_the_importer() {
    let file = common::repo().join("assets/humanoid.glb");
    let dir = std::env::temp_dir().join(format!("sinew-settings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bake = |name: &str, extra: &[&str]| {
        let out_path = dir.join(name);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
            .arg("bake")
            .arg(&file)
            .arg("-o")
            .arg(&out_path)
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "sinew bake {extra:?}: {err}");
        sinew::bake::file::read_file(&out_path).unwrap_or_else(|e| panic!("{e}"))
    };
    let plain = bake("plain.sinew", &[]);
    let scaled = bake("scaled.sinew", &["--unit-scale", "0.5", "--up", "z"]);
    let expected = ImportSettings {
        unit_scale: 0.5,
        up: Axis::Z,
        forward: Axis::NegY,
        ..Default::default()
    };
    let want = sinew::bake_rigs(&import_with(&file, &expected)).unwrap();
    assert_eq!(scaled.len(), want.len());
    for (got, want) in scaled.iter().zip(&want) {
        assert_eq!(got.skeleton.rest_pose(), want.skeleton.rest_pose());
    }
    assert_ne!(
        plain[0].skeleton.rest_pose(),
        scaled[0].skeleton.rest_pose(),
        "the flags changed the rest pose"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

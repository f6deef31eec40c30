//! Import, bake and pose every real asset; match the independent three.js reference poses.

mod common;

use std::path::Path;

use sinew::report::{CpuPose, NodeSelection, PoseReport, PoseRequest, pose_report};

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

fn all_assets() -> Vec<std::path::PathBuf> {
    let mut files = common::shared_assets();
    files.extend(common::repo_assets());
    files
}

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

// ---------------------------------------------------------------------------------------------
// The command line's grammar: help, version, usage errors (exit 2) and run-time errors (exit 1).

/// Runs `sinew` with `args`.
fn sinew(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .output()
        .unwrap()
}

/// The shipped default rig, as a command-line argument.
fn humanoid_arg() -> String {
    common::repo()
        .join("assets/humanoid.glb")
        .to_str()
        .unwrap()
        .to_string()
}

/// Asserts `sinew args` is a usage error: exit code 2 and clap's message naming each of
/// `named`, with no panic.
fn assert_usage_error(args: &[&str], named: &[&str]) {
    let out = sinew(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "sinew {args:?}: {err}");
    assert!(err.starts_with("error: "), "sinew {args:?}: {err}");
    for name in named {
        assert!(
            err.contains(name),
            "sinew {args:?} does not name {name}: {err}"
        );
    }
    assert!(!err.contains("panicked"), "sinew {args:?}: {err}");
}

#[test]
fn every_subcommand_answers_help_with_its_options() {
    let subcommands: [(&str, &[&str]); 5] = [
        ("inspect", &["<FILE>", "--json"]),
        (
            "pose",
            &[
                "<FILE>",
                "--anim",
                "--times",
                "--rest",
                "--backend",
                "--nodes",
                "animated",
            ],
        ),
        ("bake", &["<FILE>", "-o", "--out"]),
        (
            "crowd",
            &[
                "--characters",
                "--frames",
                "--model",
                "--backend",
                "--resampled",
                "--out",
                "--json",
                "--no-look-at",
                "--lod",
                "--update-every",
                "--skip-culled",
                "--view-fraction",
            ],
        ),
        (
            "render",
            &[
                "<FILE>",
                "--anim",
                "--time",
                "--rest",
                "--out",
                "--bones",
                "--size",
                "--skinning",
                "dq",
                "--backend",
            ],
        ),
    ];
    let top = sinew(&["--help"]);
    assert!(top.status.success());
    let top = String::from_utf8_lossy(&top.stdout);
    for (sub, options) in subcommands {
        assert!(top.contains(sub), "sinew --help does not list {sub}: {top}");
        let out = sinew(&[sub, "--help"]);
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "sinew {sub} --help failed");
        assert!(help.contains(&format!("Usage: sinew {sub}")), "{help}");
        for option in options {
            assert!(
                help.contains(option),
                "sinew {sub} --help does not mention {option}: {help}"
            );
        }
    }
}

#[test]
fn version_prints_the_package_version() {
    let out = sinew(&["--version"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("sinew {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn unknown_options_and_commands_are_usage_errors() {
    let rig = humanoid_arg();
    assert_usage_error(&["inspect", &rig, "--bogus"], &["--bogus"]);
    assert_usage_error(&["dance"], &["dance"]);
    // No subcommand: the top-level help, on stderr, as a usage error.
    let out = sinew(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage: sinew <COMMAND>"));
}

#[test]
fn pose_takes_either_an_animation_or_the_rest_pose() {
    let rig = humanoid_arg();
    assert_usage_error(
        &["pose", &rig, "--rest", "--anim", "1", "--times", "0"],
        &["--rest", "--anim"],
    );
    assert_usage_error(&["pose", &rig], &["--anim", "--rest"]);
    assert_usage_error(&["pose", &rig, "--anim", "1"], &["--times"]);
    assert_usage_error(&["pose", &rig, "--times", "0"], &["--anim"]);
    assert_usage_error(
        &["pose", &rig, "--anim", "1", "--times", "0,nan"],
        &["--times", "nan"],
    );
    assert_usage_error(&["pose", &rig, "--rest", "--nodes", "some"], &["--nodes"]);
    assert_usage_error(
        &["pose", &rig, "--rest", "--backend", "tpu"],
        &["--backend"],
    );
    assert_usage_error(&["render", &rig, "--rest", "--anim", "1"], &["--rest"]);
    assert_usage_error(
        &["render", &rig, "--rest", "--time", "1", "--out", "x.png"],
        &["--time"],
    );
    assert_usage_error(&["crowd", "--characters", "0"], &["--characters"]);
    assert_usage_error(&["crowd", "--backend", "cpu", "--lod"], &["--lod"]);
    assert_usage_error(&["crowd", "--update-every", "0"], &["--update-every"]);
    assert_usage_error(&["crowd", "--view-fraction", "2"], &["--view-fraction"]);
}

#[test]
fn pose_command_accepts_negative_and_spaced_times() {
    let rig = humanoid_arg();
    let out = sinew(&["pose", &rig, "--anim", "1", "--times", "-1, 0.5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: PoseReport = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got.times, vec![Some(-1.0), Some(0.5)]);
}

#[test]
fn run_time_errors_exit_1_with_a_message() {
    let rig = humanoid_arg();
    let missing = common::repo().join("target/no-such-file.glb");
    for args in [
        vec!["pose", &rig, "--anim", "9", "--times", "0"],
        vec!["inspect", missing.to_str().unwrap()],
        vec!["pose", missing.to_str().unwrap(), "--rest"],
    ] {
        let out = sinew(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.starts_with("sinew: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let out = sinew(&["inspect", missing.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no-such-file.glb"), "names the file: {err}");
}

/// `(node, parent node)` of every joint line of `sinew inspect`'s text, per rig, read from the
/// indentation: a joint's parent is the nearest line above it one level shallower.
fn printed_trees(text: &str) -> Vec<Vec<(u64, Option<u64>)>> {
    let mut rigs: Vec<Vec<(u64, Option<u64>)>> = Vec::new();
    let mut path: Vec<u64> = Vec::new();
    for line in text.lines() {
        if line.starts_with("rig ") {
            rigs.push(Vec::new());
            path.clear();
            continue;
        }
        // Mesh and clip lines quote their names; joint lines do not.
        let trimmed = line.trim_start();
        if trimmed.starts_with("mesh \"") || trimmed.starts_with("clip \"") {
            continue;
        }
        let Some((head, node)) = line
            .strip_suffix(')')
            .and_then(|l| l.rsplit_once(" (node "))
        else {
            continue;
        };
        let node: u64 = node.parse().unwrap();
        let indent = head.len() - head.trim_start().len();
        assert!(indent >= 2 && indent % 2 == 0, "odd indentation: {line:?}");
        let depth = indent / 2 - 1;
        assert!(
            depth <= path.len(),
            "{line:?} is deeper than a child of the line above"
        );
        path.truncate(depth);
        rigs.last_mut().unwrap().push((node, path.last().copied()));
        path.push(node);
    }
    rigs
}

#[test]
fn inspect_prints_each_joint_under_its_real_parent() {
    let mut level_order_misleads = false;
    for path in all_assets() {
        let file = path.to_str().unwrap();
        let text = sinew(&["inspect", file]);
        assert!(text.status.success(), "{file}");
        let json = sinew(&["inspect", file, "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        let printed = printed_trees(&String::from_utf8_lossy(&text.stdout));
        let rigs = json["rigs"].as_array().unwrap();
        assert_eq!(printed.len(), rigs.len(), "{file}: rig count");
        for (r, (rig, lines)) in rigs.iter().zip(&printed).enumerate() {
            let joints = rig["joints"].as_array().unwrap();
            let node = |j: &serde_json::Value| j["node"].as_u64().unwrap();
            let parent_node =
                |j: &serde_json::Value| j["parent"].as_u64().map(|p| node(&joints[p as usize]));
            assert_eq!(lines.len(), joints.len(), "{file} rig {r}: joint lines");
            let index_of = |n: u64| joints.iter().position(|j| node(j) == n).unwrap();
            let mut last_child: std::collections::HashMap<Option<u64>, usize> = Default::default();
            for &(n, parent) in lines {
                let j = index_of(n);
                assert_eq!(
                    parent,
                    parent_node(&joints[j]),
                    "{file} rig {r}: node {n} printed under {parent:?}"
                );
                // Siblings appear in joint order.
                if let Some(&before) = last_child.get(&parent) {
                    assert!(
                        before < j,
                        "{file} rig {r}: node {n} before its elder sibling"
                    );
                }
                last_child.insert(parent, j);
            }
            let mut seen: Vec<u64> = lines.iter().map(|l| l.0).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(
                seen.len(),
                joints.len(),
                "{file} rig {r}: a joint printed twice"
            );
            // Printing joints in index (depth level) order, indented by depth, would read back
            // other parents on some of these rigs: the test tells the two apart.
            let mut path: Vec<u64> = Vec::new();
            for j in joints {
                let depth = j["depth"].as_u64().unwrap() as usize;
                path.truncate(depth);
                level_order_misleads |= path.last().copied() != parent_node(j);
                path.push(node(j));
            }
        }
    }
    assert!(
        level_order_misleads,
        "no asset tells tree order from level order"
    );
}

// ---------------------------------------------------------------------------------------------
// Morph targets.

fn morph_asset() -> sinew::RawAsset {
    sinew::import_file(common::repo().join("assets/synthetic/morph.glb")).unwrap()
}

#[test]
fn morph_targets_default_weights_and_weight_channels_are_imported() {
    let asset = morph_asset();
    // Node 2 takes the mesh's weights; node 3 overrides them with its own.
    let defaults: Vec<(usize, Vec<f32>)> = asset
        .morph_nodes
        .iter()
        .map(|n| (n.node, n.weights.clone()))
        .collect();
    assert_eq!(
        defaults,
        vec![(2, vec![0.25, 0.0, 0.5]), (3, vec![0.0, 0.5, 1.0])]
    );
    // Two skinned nodes of one two-primitive mesh; target 2 is stored sparse.
    assert_eq!(asset.meshes.len(), 4);
    for mesh in &asset.meshes {
        assert_eq!(mesh.targets.len(), 3, "{}", mesh.name);
        for (v, p) in mesh.positions.iter().enumerate() {
            let above = if p[1] > 1.0 { 1.0 } else { 0.0 };
            let expected = [
                ([p[0] * 0.5, 0.0, p[2] * 0.5], [0.0, 0.2, 0.0]),
                ([0.3 * p[1], 0.0, 0.0], [-0.2, 0.0, 0.0]),
                (
                    [0.0, above * 0.25 * (p[1] - 1.0), 0.0],
                    [0.0, 0.0, above * 0.1],
                ),
            ];
            for (t, (dp, dn)) in expected.iter().enumerate() {
                let what = format!("{} vertex {v} target {t}", mesh.name);
                common::assert_vec_close(
                    &mesh.targets[t].positions[v],
                    dp,
                    common::EXACT_TOLERANCE,
                    &format!("{what} position"),
                );
                common::assert_vec_close(
                    &mesh.targets[t].normals[v],
                    dn,
                    common::EXACT_TOLERANCE,
                    &format!("{what} normal"),
                );
            }
        }
    }
    // One weights channel per clip but `still`, on node 2.
    let names: Vec<&str> = asset.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["linear", "step", "cubic", "still"]);
    let modes = [
        sinew::Interpolation::Linear,
        sinew::Interpolation::Step,
        sinew::Interpolation::CubicSpline,
    ];
    for (clip, mode) in asset.clips.iter().zip(modes) {
        assert_eq!(clip.weights.len(), 1, "{}", clip.name);
        let track = &clip.weights[0];
        assert_eq!((track.target, track.interpolation), (2, mode));
        assert_eq!(track.target_count, 3);
        let per_key = if mode == sinew::Interpolation::CubicSpline {
            3
        } else {
            1
        };
        assert_eq!(track.values.len(), track.times.len() * per_key * 3);
    }
    assert_eq!(
        asset.clips[0].weights[0].values,
        [0.0, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 1.0, 0.25]
    );
    assert!(asset.clips[3].weights.is_empty());
    // The weight keys count toward a clip's duration like joint keys.
    assert_eq!(asset.clips[2].duration(), 1.2);
}

#[test]
fn robot_expressive_morph_weights_are_imported_and_drawn_on_its_rigid_head() {
    let Some(shared) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(shared.join("gltf/RobotExpressive.glb")).unwrap();
    assert_eq!(asset.morph_nodes.len(), 1);
    let head = &asset.morph_nodes[0];
    assert_eq!((head.node, head.weights.clone()), (13, vec![0.0; 3]));
    for clip in &asset.clips {
        assert_eq!(clip.weights.len(), 1, "{}", clip.name);
        let track = &clip.weights[0];
        assert_eq!((track.target, track.target_count), (13, 3), "{}", clip.name);
        assert_eq!(track.values.len(), track.times.len() * 3, "{}", clip.name);
    }
    // The head is not skinned: a rigid part on a joint both skins share, in their one rig,
    // where its node is a joint of its own.
    let rigs = sinew::bake_rigs(&asset).unwrap();
    assert_eq!(rigs.len(), 1);
    let rig = &rigs[0];
    let node = rig.morph.node_of(13).unwrap();
    assert_eq!((node.first_weight, node.target_count), (0, 3));
    assert_eq!(rig.skeleton.source_nodes()[node.joint as usize], 13);
    assert_eq!(rig.palette_entries(), rig.joint_count() + 1);
    let heads: Vec<_> = rig.meshes.iter().filter(|m| m.node == Some(13)).collect();
    assert_eq!(heads.len(), 3, "the head's three primitives");
    assert!(
        heads.iter().all(|m| m.morph.target_count == 3),
        "each carries the head's three targets"
    );
}

/// `sinew pose` on `file` with `args`, as JSON.
fn pose_json(file: &Path, args: &[&str]) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .arg("pose")
        .arg(file)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn pose_command_reports_the_morph_weights_applied_at_each_time() {
    let file = common::repo().join("assets/synthetic/morph.glb");
    let json = pose_json(&file, &["--anim", "0", "--times", "0,0.25,0.5"]);
    let morph = &json["morph_weights"];
    assert_eq!(morph["nodes"], serde_json::json!([2, 3]));
    let frames = morph["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    // Node 2 follows the `linear` clip; node 3 keeps its own weights.
    let expected = [
        (0.0, [0.0, 0.0, 0.0]),
        (0.25, [0.5, 0.25, 0.0]),
        (0.5, [1.0, 0.5, 0.0]),
    ];
    for (frame, (t, first)) in frames.iter().zip(expected) {
        assert_eq!(frame["t"].as_f64(), Some(t));
        let weights: Vec<Vec<f32>> = serde_json::from_value(frame["weights"].clone()).unwrap();
        assert_eq!(weights.len(), 2, "one list per node");
        common::assert_vec_close(&weights[0], &first, common::WEIGHT_TOLERANCE, "node 2");
        common::assert_vec_close(
            &weights[1],
            &[0.0, 0.5, 1.0],
            common::WEIGHT_TOLERANCE,
            "node 3",
        );
    }
    // The rest pose shows the defaults.
    let rest = pose_json(&file, &["--rest"]);
    assert_eq!(
        rest["morph_weights"]["frames"],
        serde_json::json!([{"t": null, "weights": [[0.25, 0.0, 0.5], [0.0, 0.5, 1.0]]}])
    );
    // A file without morph targets has no such key.
    let plain = pose_json(&common::repo().join("assets/humanoid.glb"), &["--rest"]);
    assert!(plain.get("morph_weights").is_none(), "{plain}");
}

// ---------------------------------------------------------------------------------------------
// Quantized and meshopt-compressed files: `assets/synthetic/rig64_packed.glb` is `rig64.glb`
// with 16-bit positions (dequantization folded into the inverse bind matrices), 8-bit octahedral
// normals, 16-bit texture coordinates, compressed views with every filter, and clip `b`'s
// rotations through the 16-bit quaternion filter (see tools/generate_assets/pack.rs).
// ---------------------------------------------------------------------------------------------

/// Bits of the packed file's quantized positions and of its quaternion filter.
const PACKED_POSITION_BITS: u32 = 16;
const PACKED_QUATERNION_BITS: u32 = 16;

fn float_and_packed() -> (sinew::RawAsset, sinew::RawAsset) {
    let dir = common::repo().join("assets/synthetic");
    let float = sinew::import_file(dir.join("rig64.glb")).unwrap();
    let packed = sinew::import_file(dir.join("rig64_packed.glb")).unwrap_or_else(|e| panic!("{e}"));
    (float, packed)
}

/// World-space skinned positions of `asset`'s first mesh, from the report's skin matrices.
fn skinned_positions(asset: &sinew::RawAsset, frame: &sinew::report::SkinFrame) -> Vec<glam::Vec3> {
    let mesh = &asset.meshes[0];
    let skin: Vec<glam::Mat4> = frame.skin.iter().map(glam::Mat4::from_cols_array).collect();
    mesh.positions
        .iter()
        .zip(mesh.joints.iter().zip(&mesh.weights))
        .map(|(p, (joints, weights))| {
            (0..sinew::MAX_INFLUENCES)
                .map(|k| {
                    weights[k] * skin[joints[k] as usize].transform_point3(glam::Vec3::from(*p))
                })
                .sum()
        })
        .collect()
}

#[test]
fn packed_file_lists_its_required_extensions_as_applied() {
    let (float, packed) = float_and_packed();
    assert!(float.extensions.is_empty());
    let listed: Vec<(&str, bool, sinew::import::ExtensionHandling)> = packed
        .extensions
        .iter()
        .map(|e| (e.name.as_str(), e.required, e.handling))
        .collect();
    use sinew::import::ExtensionHandling::Applied;
    assert_eq!(
        listed,
        [
            ("KHR_mesh_quantization", true, Applied),
            ("EXT_meshopt_compression", true, Applied),
        ]
    );
}

#[test]
fn packed_file_bakes_like_its_float_original() {
    let (float, packed) = float_and_packed();
    let (a, b) = (
        sinew::bake_rigs(&float).unwrap(),
        sinew::bake_rigs(&packed).unwrap(),
    );
    assert_eq!(a.len(), b.len(), "rig count");
    for (a, b) in a.iter().zip(&b) {
        assert_eq!(a.skeleton.names(), b.skeleton.names(), "joint names");
        assert_eq!(a.clips.clips(), b.clips.clips(), "clip names and durations");
        assert_eq!(a.meshes.len(), b.meshes.len(), "mesh count");
        for (ma, mb) in a.meshes.iter().zip(&b.meshes) {
            assert_eq!(ma.indices, mb.indices, "triangle indices (triangle codec)");
            assert_eq!(ma.joints, mb.joints, "joint indices");
            assert_eq!(ma.weights, mb.weights, "weights");
        }
    }
}

#[test]
fn packed_file_poses_and_skins_like_its_float_original() {
    let (float, packed) = float_and_packed();
    // Clip `a` keeps float rotations; its translations pass the exponential filter at 24 bits.
    let a = float.clips.iter().position(|c| c.name == "a").unwrap();
    let times = vec![0.0, 0.3, 0.55, 1.0];
    let mut lo = glam::Vec3::splat(f32::INFINITY);
    let mut hi = glam::Vec3::splat(f32::NEG_INFINITY);
    for p in &float.meshes[0].positions {
        lo = lo.min(glam::Vec3::from(*p));
        hi = hi.max(glam::Vec3::from(*p));
    }
    let bound = common::position_quantization_bound((hi - lo).max_element(), PACKED_POSITION_BITS)
        + common::QUANTIZATION_SLACK;
    for clip in [None, Some((a, times))] {
        let request = PoseRequest {
            clip,
            nodes: NodeSelection::None,
        };
        let want = pose_report(&float, &request, &mut CpuPose).unwrap();
        let got = pose_report(&packed, &request, &mut CpuPose).unwrap();
        for (gf, wf) in got.skins[0].frames.iter().zip(&want.skins[0].frames) {
            for j in 0..gf.world.len() {
                common::assert_matrix_close(
                    &gf.world[j],
                    &wf.world[j],
                    &format!("t={:?} joint {j}", wf.t),
                );
            }
            let (g, w) = (
                skinned_positions(&packed, gf),
                skinned_positions(&float, wf),
            );
            let worst = g
                .iter()
                .zip(&w)
                .map(|(g, w)| g.distance(*w))
                .fold(0.0, f32::max);
            assert!(
                worst <= bound,
                "t={:?}: a skinned vertex moved {worst}, bound {bound}",
                wf.t
            );
        }
    }
}

#[test]
fn packed_normals_and_texture_coordinates_decode_within_their_precision() {
    let (float, packed) = float_and_packed();
    let (f, p) = (&float.meshes[0], &packed.meshes[0]);
    let cos = common::OCTAHEDRAL_8BIT_ANGLE.cos();
    for (v, (a, b)) in f.normals.iter().zip(&p.normals).enumerate() {
        let (a, b) = (glam::Vec3::from(*a), glam::Vec3::from(*b));
        assert!(
            (b.length() - 1.0).abs() <= common::EXACT_TOLERANCE,
            "vertex {v}: |n| = {}",
            b.length()
        );
        assert!(
            a.dot(b) >= cos,
            "vertex {v}: normal {b} is {} rad from {a}",
            a.angle_between(b)
        );
    }
    for (a, b) in f.uvs.iter().zip(&p.uvs) {
        common::assert_vec_close(
            b,
            a,
            common::EXACT_TOLERANCE,
            "16-bit normalized TEXCOORD_0",
        );
    }
}

#[test]
fn packed_rotation_keys_match_within_the_quaternion_filter_bound() {
    let (float, packed) = float_and_packed();
    let b = float.clips.iter().position(|c| c.name == "b").unwrap();
    let bound = common::quaternion_filter_bound(PACKED_QUATERNION_BITS);
    let mut compared = 0;
    for (ft, pt) in float.clips[b].tracks.iter().zip(&packed.clips[b].tracks) {
        assert_eq!(
            (ft.target, ft.channel, &ft.times),
            (pt.target, pt.channel, &pt.times)
        );
        if ft.channel != sinew::Channel::Rotation {
            continue;
        }
        for (k, (q, r)) in ft.values.iter().zip(&pt.values).enumerate() {
            // The filter may store -q for q: the same rotation.
            let r = if q.dot(*r) < 0.0 { -*r } else { *r };
            let worst = (*q - r).abs().max_element();
            assert!(
                worst <= bound,
                "joint node {} key {k}: {r} vs {q} ({worst} > {bound})",
                ft.target
            );
            compared += 1;
        }
    }
    assert!(compared > 0, "clip b has rotation keys");
}

/// `sinew inspect` lists the extensions a file declares and what sinew does with each.
#[test]
fn inspect_lists_declared_extensions_with_their_handling() {
    let file = common::repo().join("assets/synthetic/rig64_packed.glb");
    let run = |json: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"));
        cmd.arg("inspect").arg(&file);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let v: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    let listed: Vec<(String, bool, String)> = v["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["required"].as_bool().unwrap(),
                e["handling"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for name in ["KHR_mesh_quantization", "EXT_meshopt_compression"] {
        assert!(
            listed.contains(&(name.to_string(), true, "applied".to_string())),
            "{name} missing from {listed:?}"
        );
    }
    let text = run(false);
    assert!(
        text.contains("extension KHR_mesh_quantization (required): applied"),
        "{text}"
    );
    // A file that declares none lists none.
    let plain = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["inspect", "--json"])
        .arg(common::repo().join("assets/synthetic/rig64.glb"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(v.get("extensions").is_none(), "{v}");
}

// ---------------------------------------------------------------------------------------------
// Up to eight influences per vertex: synthetic/influences.glb has a column whose vertices have
// 5 to 8 nonzero influences (JOINTS_0/1) and one with 9 to 12 (JOINTS_0/1/2).

fn influences_path() -> std::path::PathBuf {
    common::repo().join("assets/synthetic/influences.glb")
}

/// Every nonzero (skin joint, weight) of every vertex of primitive `p`, as the file stores them,
/// read with the `gltf` crate.
fn file_influences(p: usize) -> Vec<Vec<(u16, f32)>> {
    let (doc, buffers, _) = gltf::import(influences_path()).unwrap();
    let prim = doc.meshes().next().unwrap().primitives().nth(p).unwrap();
    let reader = prim.reader(|b| Some(&buffers[b.index()]));
    let mut out: Vec<Vec<(u16, f32)>> = Vec::new();
    for set in 0.. {
        let (Some(joints), Some(weights)) = (reader.read_joints(set), reader.read_weights(set))
        else {
            break;
        };
        for (v, (j, w)) in joints.into_u16().zip(weights.into_f32()).enumerate() {
            if set == 0 {
                out.push(Vec::new());
            }
            out[v].extend(
                j.iter()
                    .zip(w)
                    .filter(|(_, w)| *w > 0.0)
                    .map(|(&j, w)| (j, w)),
            );
        }
    }
    out
}

/// The nonzero (joint, weight) pairs of an imported vertex.
fn kept(joints: &[u16; 8], weights: &[f32; 8]) -> Vec<(u16, f32)> {
    joints
        .iter()
        .zip(weights)
        .filter(|(_, w)| **w > 0.0)
        .map(|(&j, &w)| (j, w))
        .collect()
}

fn assert_same_influences(got: &[(u16, f32)], expected: &[(u16, f32)], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: {got:?} vs {expected:?}");
    for (g, e) in got.iter().zip(expected) {
        assert_eq!(g.0, e.0, "{what}: joints of {got:?} vs {expected:?}");
        assert!(
            (g.1 - e.1).abs() <= common::WEIGHT_TOLERANCE,
            "{what}: weights of {got:?} vs {expected:?}"
        );
    }
}

#[test]
fn up_to_eight_influences_are_kept_as_the_file_has_them() {
    let asset = sinew::import_file(influences_path()).unwrap();
    let mesh = &asset.meshes[0];
    let file = file_influences(0);
    assert_eq!(mesh.positions.len(), file.len());
    let counts: Vec<usize> = file.iter().map(Vec::len).collect();
    assert_eq!(
        counts.iter().min(),
        Some(&5),
        "fewest influences in the file"
    );
    assert_eq!(counts.iter().max(), Some(&8), "most influences in the file");
    for (v, expected) in file.iter().enumerate() {
        let mut expected = expected.clone();
        expected.sort_by(|a, b| b.1.total_cmp(&a.1));
        let got = kept(&mesh.joints[v], &mesh.weights[v]);
        assert_same_influences(&got, &expected, &format!("vertex {v}"));
    }
    assert_eq!(mesh.influences_cut, 0, "no vertex has more than eight");
}

#[test]
fn more_than_eight_influences_keep_the_strongest_eight_renormalized_and_are_counted() {
    let asset = sinew::import_file(influences_path()).unwrap();
    let mesh = &asset.meshes[1];
    let file = file_influences(1);
    let mut over = 0;
    for (v, influences) in file.iter().enumerate() {
        assert!(influences.len() >= 9, "vertex {v} has {}", influences.len());
        over += 1;
        let mut strongest = influences.clone();
        strongest.sort_by(|a, b| b.1.total_cmp(&a.1));
        strongest.truncate(8);
        let sum: f32 = strongest.iter().map(|i| i.1).sum();
        let expected: Vec<(u16, f32)> = strongest.iter().map(|&(j, w)| (j, w / sum)).collect();
        let got = kept(&mesh.joints[v], &mesh.weights[v]);
        assert_same_influences(&got, &expected, &format!("vertex {v}"));
        let total: f32 = mesh.weights[v].iter().sum();
        assert!(
            (total - 1.0).abs() <= common::WEIGHT_TOLERANCE,
            "vertex {v} sums to {total}"
        );
    }
    assert_eq!(mesh.influences_cut, over, "cut vertices");
    let rigs = sinew::bake_rigs(&asset).unwrap();
    let baked: Vec<usize> = rigs[0].meshes.iter().map(|m| m.influences_cut).collect();
    assert_eq!(baked, [0, over], "cut vertices of the baked meshes");
}

#[test]
fn inspect_reports_influences_and_cut_vertices() {
    let path = influences_path();
    let out = sinew(&["inspect", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let cut = file_influences(1).len();
    let meshes: Vec<&str> = text.lines().filter(|l| l.contains("mesh ")).collect();
    assert_eq!(meshes.len(), 2, "{text}");
    assert!(
        meshes[0].ends_with("up to 8 influences per vertex"),
        "{}",
        meshes[0]
    );
    assert!(
        meshes[1].ends_with(&format!(
            "up to 8 influences per vertex ({cut} vertices cut to their strongest 8)"
        )),
        "{}",
        meshes[1]
    );
    let out = sinew(&["inspect", path.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cuts: Vec<u64> = v["rigs"][0]["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["influences_cut"].as_u64().unwrap())
        .collect();
    assert_eq!(cuts, [0, cut as u64], "{v}");
}

#[path = "import/fbx.rs"]
mod fbx;
#[path = "import/materials.rs"]
mod materials;
#[path = "import/retarget.rs"]
mod retarget;
#[path = "import/settings.rs"]
mod settings;

//! The command line's grammar: help, version, usage errors (exit 2) and run-time errors (exit 1).

use sinew::report::PoseReport;

use super::common;
use super::fixtures::{all_assets, sinew};

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
                "--compressed",
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

/// `inspect` lists the `KHR_animation_pointer` channels sinew does not animate, as text and as
/// JSON, on a copy of the humanoid with a material pointer added.
#[test]
fn inspect_notes_ignored_animation_pointers() {
    let bytes = std::fs::read(humanoid_arg()).unwrap();
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let json_len = word(12);
    let mut json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    json["extensionsUsed"] = serde_json::json!(["KHR_animation_pointer"]);
    let pointer = "/materials/0/emissiveFactor";
    json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "sampler": 0,
            "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": pointer}}},
        }));
    let mut text = serde_json::to_vec(&json).unwrap();
    text.resize(text.len().next_multiple_of(4), b' ');
    let bin = &bytes[20 + json_len..];
    let mut glb = b"glTF".to_vec();
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&((20 + text.len() + bin.len()) as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.extend_from_slice(bin);
    let file = std::env::temp_dir().join(format!("sinew-pointer-{}.glb", std::process::id()));
    std::fs::write(&file, glb).unwrap();
    let path = file.to_str().unwrap();
    let out = sinew(&["inspect", path]);
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        listing.contains("extension KHR_animation_pointer (used): applied")
            && listing.contains("note: animation 0 channel")
            && listing.contains(pointer),
        "{listing}"
    );
    let out = sinew(&["inspect", path, "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes = &report["extensions"][0]["notes"];
    assert!(notes[0].as_str().unwrap().contains(pointer), "{notes}");
    std::fs::remove_file(file).ok();
}

/// Runs `sinew pose` with `args` and reads its JSON.
fn pose_json(args: &[&str]) -> serde_json::Value {
    let out = sinew(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "sinew {args:?}: {err}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The largest difference between the numbers of two JSON values of the same shape.
fn largest_difference(a: &serde_json::Value, b: &serde_json::Value) -> f64 {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => (x.as_f64().unwrap() - y.as_f64().unwrap()).abs(),
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{a} vs {b}");
            x.iter()
                .zip(y)
                .map(|(x, y)| largest_difference(x, y))
                .fold(0.0, f64::max)
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.len(), y.len(), "{a} vs {b}");
            x.iter()
                .map(|(k, v)| largest_difference(v, &y[k]))
                .fold(0.0, f64::max)
        }
        _ => {
            assert_eq!(a, b);
            0.0
        }
    }
}

#[test]
fn pose_reads_baked_files_as_their_gltf_and_their_stored_compressed_clips() {
    for asset in [
        "humanoid.glb",
        "synthetic/morph.glb",
        "synthetic/features.glb",
    ] {
        let gltf = common::repo().join("assets").join(asset);
        let gltf = gltf.to_str().unwrap();
        let baked = std::env::temp_dir().join(format!(
            "sinew-pose-{}-{}.sinew",
            std::process::id(),
            asset.replace('/', "-")
        ));
        let baked = baked.to_str().unwrap();
        let out = sinew(&["bake", gltf, "-o", baked, "--compress"]);
        assert!(out.status.success(), "{asset}: {out:?}");
        let times = ["--anim", "0", "--times", "0,0.37,0.9"];
        let from_gltf = pose_json(&[&["pose", gltf][..], &times].concat());
        let exact = pose_json(&[&["pose", baked][..], &times].concat());
        let compressed = pose_json(&[&["pose", baked, "--compressed"][..], &times].concat());
        let rest = pose_json(&["pose", baked, "--rest"]);
        std::fs::remove_file(baked).unwrap();
        // The same JSON as the glTF's: skins, joints, nodes, weights, matrices.
        for key in ["animation", "times", "skins", "morph_weights", "nodes"] {
            let d = largest_difference(&from_gltf[key], &exact[key]);
            assert!(d <= 1e-6, "{asset}: {key} differs by {d}");
        }
        assert_eq!(exact["clips"], "exact");
        assert_eq!(rest["times"], serde_json::json!([null]));
        // The stored compressed clips, within the budget: world matrices move the 3 cm
        // vertices by at most its order.
        assert_eq!(compressed["clips"], "compressed");
        let d = largest_difference(&exact["skins"], &compressed["skins"]);
        assert!(d < 1e-2, "{asset}: compressed differs by {d}");
    }
    // A glTF file stores no compressed clips.
    let out = sinew(&[
        "pose",
        &humanoid_arg(),
        "--anim",
        "0",
        "--times",
        "0",
        "--compressed",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("stores no compressed clips"), "{err}");
}

/// The world matrices of every frame of the first skin of `sinew pose args`.
fn pose_worlds(args: &[&str]) -> Vec<Vec<[f32; 16]>> {
    let report: PoseReport = serde_json::from_str(&common::run_sinew(args)).unwrap();
    report.skins[0]
        .frames
        .iter()
        .map(|f| f.world.clone())
        .collect()
}

#[test]
fn pose_clips_from_retargets_and_mirrors_and_names_bad_maps() {
    let rig = humanoid_arg();
    let pose = ["pose", &rig, "--anim", "1", "--times", "0.2,0.6"];
    let plain = pose_worlds(&pose);
    // The rig's own clip through a map onto itself is the plain pose.
    let own = pose_worlds(&[&pose[..], &["--clips-from", &rig]].concat());
    let mirrored = pose_worlds(&[&pose[..], &["--clips-from", &rig, "--mirror"]].concat());
    let mut mirror_moved = false;
    for (f, frame) in plain.iter().enumerate() {
        for (j, m) in frame.iter().enumerate() {
            common::assert_vec_close(&own[f][j], m, 1e-4, &format!("frame {f} joint {j}"));
            // The mirrored pose puts some joint elsewhere (the walk is not symmetric in time).
            mirror_moved |= m
                .iter()
                .zip(&mirrored[f][j])
                .any(|(a, b)| (a - b).abs() > 1e-3);
        }
    }
    assert!(mirror_moved, "the mirrored walk is the walk");

    let text = common::run_sinew(["inspect", rig.as_str(), "--clips-from", rig.as_str()]);
    assert!(text.contains("retarget onto rig \"Humanoid\""), "{text}");
    assert!(text.contains("LeftUpperArm <- LeftUpperArm"), "{text}");
    assert!(text.contains("target joints at rest (0)"), "{text}");
    // `--json` carries the same map, per rig.
    let json = common::run_sinew([
        "inspect",
        rig.as_str(),
        "--json",
        "--clips-from",
        rig.as_str(),
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let maps = json["retarget"].as_array().expect("a retarget array");
    assert_eq!(maps.len(), json["rigs"].as_array().unwrap().len(), "{json}");
    assert_eq!(maps[0]["rig"], "Humanoid", "{json}");
    assert_eq!(maps[0]["target_at_rest"].as_array().unwrap().len(), 0);
    assert!(
        maps[0]["matched"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["target"] == "LeftUpperArm" && m["source"] == "LeftUpperArm")
    );

    let dir = std::env::temp_dir().join(format!("sinew-retarget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let map = dir.join("bad-retarget-map.json");
    std::fs::write(&map, r#"{ "joints": { "Hips": "NoSuchJoint" } }"#).unwrap();
    let map = map.to_str().unwrap();
    let out = sinew(&[&pose[..], &["--clips-from", &rig, "--retarget-map", map]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("bad-retarget-map.json") && err.contains("NoSuchJoint"),
        "{err}"
    );
}

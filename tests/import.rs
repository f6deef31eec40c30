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

#[test]
fn pose_command_rejects_bad_arguments_with_a_message() {
    let Some(shared) = common::shared() else {
        return;
    };
    let fox = shared.join("gltf/Fox.glb");
    for args in [
        vec!["--anim", "9", "--times", "0"],
        vec!["--anim", "1"],
        vec!["--anim", "1", "--times", "0,nan"],
        vec!["--rest", "--anim", "1", "--times", "0"],
        vec!["--rest", "--nodes", "some"],
        vec!["--rest", "--backend", "tpu"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
            .arg("pose")
            .arg(&fox)
            .args(&args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("sinew: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

// ---------------------------------------------------------------------------------------------
// Quantized and meshopt-compressed files: `assets/synthetic/rig64_packed.glb` is `rig64.glb`
// with 16-bit positions (dequantization folded into the inverse bind matrices), 8-bit octahedral
// normals, 16-bit texture coordinates, compressed views with every filter, and clip `b`'s
// rotations through the 16-bit quaternion filter (see `pack` in tools/generate_assets.rs).
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
            (0..4)
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

//! The main job: `sinew crowd`.

use sinew::render::RgbaImage;

use super::common;
use super::fixtures::{crowd_json, gpu};

/// `--lod --skip-culled --view-fraction`: one dispatch per frame, the flags in the report and a
/// camera that sees part of the crowd.
#[test]
fn crowd_with_lod_and_culling_sees_part_of_the_crowd() {
    if gpu().is_none() {
        return;
    }
    let dir = common::repo().join("target/render-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("crowd-lod.png");
    let report = crowd_json(&[
        "--characters",
        "400",
        "--frames",
        "3",
        "--lod",
        "--update-every",
        "2",
        "--skip-culled",
        "--view-fraction",
        "0.05",
        "--out",
        png.to_str().unwrap(),
    ]);
    assert_eq!(report["lod"], true, "{report}");
    assert_eq!(report["skip_culled"], true, "{report}");
    assert_eq!(report["update_every"], 2, "{report}");
    assert_eq!(report["framed_characters"], 20, "{report}");
    assert_eq!(report["dispatches_per_frame"], 1, "{report}");
    let in_view = report["characters_in_view"].as_u64().unwrap();
    assert!((1..400).contains(&in_view), "{report}");
    assert!(
        report["stages_ms"]["cull"].as_f64().unwrap() > 0.0,
        "{report}"
    );
}

#[test]
fn crowd_reports_every_field_and_writes_a_varied_png() {
    if gpu().is_none() {
        return;
    }
    let dir = common::repo().join("target/render-tests");
    std::fs::create_dir_all(&dir).unwrap();
    for backend in ["gpu", "cpu"] {
        let png = dir.join(format!("crowd-{backend}.png"));
        let _ = std::fs::remove_file(&png);
        let report = crowd_json(&[
            "--characters",
            "36",
            "--frames",
            "3",
            "--backend",
            backend,
            "--out",
            png.to_str().unwrap(),
        ]);
        assert_eq!(report["characters"], 36, "{report}");
        assert_eq!(report["frames"], 3, "{report}");
        assert_eq!(report["backend"], backend, "{report}");
        assert_eq!(report["joints_per_character"], 57, "{report}");
        assert_eq!(report["look_at"], true, "{report}");
        // Four or eight slots per evaluate workgroup, by the device's workgroup memory.
        let per_workgroup = &report["instances_per_workgroup"];
        if backend == "gpu" {
            assert!(per_workgroup == 4 || per_workgroup == 8, "{report}");
        } else {
            assert!(per_workgroup.is_null(), "{report}");
        }
        for stage in ["control", "upload", "compute", "render"] {
            assert!(
                report["stages_ms"][stage].as_f64().unwrap() >= 0.0,
                "{report}"
            );
        }
        for key in ["median", "p90"] {
            assert!(report["frame_ms"][key].as_f64().unwrap() > 0.0, "{report}");
        }
        assert!(
            report["joints_per_second"].as_f64().unwrap() > 0.0,
            "{report}"
        );
        // The GPU writes each 48-byte palette entry and one 32-byte AABB per 57-joint character;
        // the look-at target entry is read, not written.
        let written = if backend == "gpu" {
            48.0 + 32.0 / 57.0
        } else {
            48.0
        };
        assert!(
            (report["bytes_written_per_joint"].as_f64().unwrap() - written).abs() < 1e-3,
            "{report}"
        );
        // Both exact evaluators count their reads: each joint's rest pose and inverse bind and
        // its layers' tracks and keys, well over 100 bytes.
        let read = report["bytes_read_per_joint"].as_f64();
        assert!(read.is_some_and(|r| r > 100.0), "{report}");
        // The characters are posed differently: the image has many distinct colours and is not
        // just background and floor.
        let image = RgbaImage::load_png(&png).unwrap();
        let mut colours = std::collections::HashSet::new();
        for px in image.pixels.chunks_exact(4) {
            colours.insert([px[0] >> 3, px[1] >> 3, px[2] >> 3]);
        }
        assert!(
            colours.len() > 50,
            "{backend}: only {} colours",
            colours.len()
        );
    }
}

#[test]
fn crowd_heads_turn_to_the_camera_unless_turned_off() {
    if gpu().is_none() {
        return;
    }
    let dir = common::repo().join("target/render-tests");
    std::fs::create_dir_all(&dir).unwrap();
    for backend in ["gpu", "cpu"] {
        let mut images = Vec::new();
        for flag in [None, Some("--no-look-at")] {
            let png = dir.join(format!("crowd-look-{backend}-{}.png", flag.is_some()));
            let mut args = vec!["--characters", "9", "--frames", "2", "--backend", backend];
            args.extend(["--out", png.to_str().unwrap()]);
            args.extend(flag);
            let report = crowd_json(&args);
            assert_eq!(report["look_at"], flag.is_none(), "{report}");
            images.push(RgbaImage::load_png(&png).unwrap().pixels);
        }
        let changed = images[0]
            .chunks_exact(4)
            .zip(images[1].chunks_exact(4))
            .filter(|(a, b)| a != b)
            .count();
        assert!(
            changed > 500,
            "{backend}: looking at the camera changed {changed} pixels"
        );
    }
}

/// The fast CPU evaluator (`--backend cpu --resampled`) counts its reads too: its records,
/// per-joint constants in every lane and frame records, over 100 bytes per joint.
#[test]
fn crowd_resampled_on_the_cpu_reports_bytes_read_per_joint() {
    if gpu().is_none() {
        return;
    }
    let dir = common::repo().join("target/render-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("crowd-cpu-resampled.png");
    let report = crowd_json(&[
        "--characters",
        "12",
        "--frames",
        "2",
        "--backend",
        "cpu",
        "--resampled",
        "--out",
        png.to_str().unwrap(),
    ]);
    assert_eq!(report["backend"], "cpu", "{report}");
    let read = report["bytes_read_per_joint"].as_f64();
    assert!(read.is_some_and(|r| r > 100.0), "{report}");
}

#[test]
fn crowd_resampled_on_the_gpu_decodes_compressed_clips_and_reads_fewer_bytes() {
    if gpu().is_none() {
        return;
    }
    let dir = common::repo().join("target/render-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let mut reports = Vec::new();
    for flag in [None, Some("--resampled")] {
        let png = dir.join(format!("crowd-gpu-{}.png", flag.is_some()));
        let mut args = vec!["--characters", "16", "--frames", "2", "--backend", "gpu"];
        args.extend(["--out", png.to_str().unwrap()]);
        args.extend(flag);
        let report = crowd_json(&args);
        assert_eq!(report["backend"], "gpu", "{report}");
        assert_eq!(report["dispatches_per_frame"], 1, "{report}");
        let image = RgbaImage::load_png(&png).unwrap();
        let mut colours = std::collections::HashSet::new();
        for px in image.pixels.chunks_exact(4) {
            colours.insert([px[0] >> 3, px[1] >> 3, px[2] >> 3]);
        }
        assert!(
            colours.len() > 50,
            "{flag:?}: only {} colours",
            colours.len()
        );
        reports.push(report);
    }
    let [exact, compressed] = [&reports[0], &reports[1]];
    assert_eq!(exact["clips"], "exact", "{exact}");
    assert_eq!(compressed["clips"], "compressed", "{compressed}");
    let read = |r: &serde_json::Value| r["bytes_read_per_joint"].as_f64().unwrap();
    assert!(read(compressed) > 0.0, "{compressed}");
    assert!(
        read(compressed) < read(exact),
        "compressed {compressed}\nexact {exact}"
    );
}

#[test]
fn crowd_dispatches_do_not_grow_with_the_character_count() {
    if gpu().is_none() {
        return;
    }
    let dir = common::repo().join("target/render-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("crowd-scale.png");
    let report = |n: &str| {
        crowd_json(&[
            "--characters",
            n,
            "--frames",
            "2",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let small = report("1000");
    let large = report("10000");
    assert_eq!(
        small["dispatches_per_frame"], large["dispatches_per_frame"],
        "1,000: {small}\n10,000: {large}"
    );
    assert!(small["dispatches_per_frame"].as_u64().unwrap() >= 1);
}

/// `--clips-from`: the humanoid crowd plays the Fox's clips, retargeted per instance in the
/// kernel on the GPU backend and in the CPU backend (half the crowd mirrored with `--mirror`),
/// and through a copy baked on load on the fast CPU evaluator, which refuses `--mirror`.
#[test]
fn crowd_plays_another_files_clips_retargeted() {
    if gpu().is_none() {
        return;
    }
    let Some(shared) = common::shared() else {
        return;
    };
    let fox = shared.join("gltf/Fox.glb");
    let humanoid = common::repo().join("assets/humanoid.glb");
    let dir = common::repo().join("target/render-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("crowd-retargeted.png");
    let args = |backend: &'static str, mirror: bool| {
        let (backend, resampled) = match backend {
            "fast" => ("cpu", true),
            other => (other, false),
        };
        let mut args = vec![
            "--characters",
            "30",
            "--frames",
            "3",
            "--backend",
            backend,
            "--model",
            humanoid.to_str().unwrap(),
            "--clips-from",
            fox.to_str().unwrap(),
            "--out",
            png.to_str().unwrap(),
        ];
        if mirror {
            args.push("--mirror");
        }
        if resampled {
            args.push("--resampled");
        }
        args
    };
    for (backend, mirror, retargeting, mirrored) in [
        ("gpu", false, "kernel", 0),
        ("gpu", true, "kernel", 15),
        ("cpu", true, "cpu", 15),
        ("fast", false, "baked", 0),
    ] {
        let report = crowd_json(&args(backend, mirror));
        assert_eq!(report["characters"], 30, "{report}");
        assert_eq!(report["retargeting"], retargeting, "{report}");
        assert_eq!(report["mirrored_characters"], mirrored, "{report}");
        assert!(png.is_file());
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .arg("crowd")
        .args(args("fast", true))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--mirror"), "{err}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args([
            "crowd",
            "--characters",
            "2",
            "--frames",
            "1",
            "--clips-from",
        ])
        .arg(common::repo().join("target/no-such-source.glb"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no-such-source.glb"), "{err}");
}

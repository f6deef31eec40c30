//! `sinew render`.

use sinew::render::RgbaImage;

use super::common;
use super::fixtures::{PIXEL_THRESHOLD, REFERENCE_TOLERANCE, crowd_json, differing_fraction, gpu};

/// Index of the clip of `file` whose name is `name` or ends in `|name` (FBX stacks exported by
/// Blender are named `<armature>|<action>`).
fn clip_named(file: &std::path::Path, name: &str) -> usize {
    let asset = sinew::import_file(file).unwrap();
    asset
        .clips
        .iter()
        .position(|c| c.name == name || c.name.ends_with(&format!("|{name}")))
        .unwrap_or_else(|| panic!("{} has no clip {name:?}", file.display()))
}

#[test]
fn fbx_rig_renders_and_crowds_like_its_gltf_original() {
    if gpu().is_none() {
        return;
    }
    let dir = common::repo().join("target/render-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let render = |file: &str| {
        let path = common::repo().join(file);
        let clip = clip_named(&path, "walk").to_string();
        let png = dir.join(format!(
            "cli-{}.png",
            path.extension().unwrap().to_string_lossy()
        ));
        let _ = std::fs::remove_file(&png);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
            .arg("render")
            .arg(&path)
            // The FBX copy has no materials sinew reads: compare flat colours.
            .args([
                "--anim",
                &clip,
                "--time",
                "0.5",
                "--size",
                "96",
                "--no-materials",
            ])
            .arg("--out")
            .arg(&png)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "sinew render {file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        RgbaImage::load_png(&png).unwrap()
    };
    let gltf = render("assets/humanoid.glb");
    let fbx = render("assets/fbx/humanoid.fbx");
    let fraction = differing_fraction(&gltf, &fbx, PIXEL_THRESHOLD);
    eprintln!(
        "glTF against FBX: {:.3}% of pixels differ",
        fraction * 100.0
    );
    assert!(
        fraction <= REFERENCE_TOLERANCE,
        "{:.3}% of pixels differ between the glTF and FBX renders",
        fraction * 100.0
    );
    let fbx_model = common::repo().join("assets/fbx/humanoid.fbx");
    let report = crowd_json(&[
        "--model",
        fbx_model.to_str().unwrap(),
        "--characters",
        "4",
        "--frames",
        "2",
        "--out",
        dir.join("crowd-fbx.png").to_str().unwrap(),
    ]);
    assert_eq!(report["characters"], 4, "{report}");
}

#[test]
fn render_command_draws_the_rest_pose_without_an_animation() {
    if gpu().is_none() {
        return;
    }
    let dir = common::repo().join("target/render-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let rig = common::repo().join("assets/humanoid.glb");
    let render = |name: &str, pose: &[&str]| {
        let png = dir.join(name);
        let _ = std::fs::remove_file(&png);
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
            .arg("render")
            .arg(&rig)
            .args(pose)
            .args(["--size", "96", "--out", png.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "sinew render {pose:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            RgbaImage::load_png(&png).unwrap(),
        )
    };
    let (said, rest) = render("cli-rest.png", &["--rest"]);
    assert!(said.contains("rest pose"), "{said}");
    assert_eq!((rest.width, rest.height), (96, 96));
    let (_, walk) = render("cli-walk.png", &["--anim", "1", "--time", "0.25"]);
    // The character is drawn (more than background and floor) and posed differently.
    let mut colours = std::collections::HashSet::new();
    for px in rest.pixels.chunks_exact(4) {
        colours.insert([px[0] >> 3, px[1] >> 3, px[2] >> 3]);
    }
    assert!(colours.len() > 10, "only {} colours", colours.len());
    let differing = rest
        .pixels
        .chunks_exact(4)
        .zip(walk.pixels.chunks_exact(4))
        .filter(|(a, b)| {
            a.iter()
                .zip(*b)
                .any(|(x, y)| x.abs_diff(*y) > PIXEL_THRESHOLD)
        })
        .count();
    assert!(
        differing as f64 > 0.01 * (96 * 96) as f64,
        "the rest pose looks like the walk: {differing} pixels differ"
    );
}

//! A baked file draws the pixels of its glTF or FBX: `sinew bake` stores materials, their
//! images, vertex colours and `TEXCOORD_1`, so `sinew render` of the `.sinew` matches `sinew
//! render` of the source exactly.

use std::path::{Path, PathBuf};

use sinew::render::RgbaImage;

use super::common;
use super::fixtures::{gpu, output_dir};

/// `sinew render` of `file` at 0.5 s of clip 0, 96², into `name`.
fn render(file: &Path, name: &str) -> RgbaImage {
    let png = output_dir().join(name);
    common::run_sinew([
        "render".as_ref(),
        file.as_os_str(),
        "--anim".as_ref(),
        "0".as_ref(),
        "--time".as_ref(),
        "0.5".as_ref(),
        "--size".as_ref(),
        "96".as_ref(),
        "--out".as_ref(),
        png.as_os_str(),
    ]);
    RgbaImage::load_png(&png).unwrap()
}

/// Renders `source` and its baked file and asserts the same pixels.
fn assert_baked_renders_like(source: &Path, tag: &str) {
    let dir = output_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let baked: PathBuf = dir.join(format!("baked-{tag}.sinew"));
    common::run_sinew([
        "bake".as_ref(),
        source.as_os_str(),
        "-o".as_ref(),
        baked.as_os_str(),
    ]);
    let from_source = render(source, &format!("baked-{tag}-source.png"));
    let from_baked = render(&baked, &format!("baked-{tag}-baked.png"));
    assert_eq!(
        (from_source.width, from_source.height),
        (from_baked.width, from_baked.height)
    );
    let differing = from_source
        .pixels
        .chunks_exact(4)
        .zip(from_baked.pixels.chunks_exact(4))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        differing, 0,
        "{tag}: pixels differ between the source and .sinew"
    );
}

#[test]
fn a_baked_textured_file_renders_like_its_gltf() {
    if gpu().is_none() {
        return;
    }
    // Tangents, a normal map, a base colour texture on `TEXCOORD_1` and vertex colours.
    let panel = common::repo().join("assets/synthetic/normal_map.glb");
    assert_baked_renders_like(&panel, "normal-map-panel");
    if let Some(shared) = common::shared() {
        assert_baked_renders_like(&shared.join("gltf/CesiumMan.glb"), "cesium-man");
    }
}

#[test]
fn a_baked_fbx_renders_like_its_fbx() {
    if gpu().is_none() {
        return;
    }
    // Two materials on one skinned mesh (an external texture, a blended colour), vertex
    // colours, and a rigid badge with an embedded texture on its second UV set.
    let fbx = common::repo().join("assets/fbx/materials.fbx");
    assert_baked_renders_like(&fbx, "fbx-materials");
}

//! Normal maps change the shading: `synthetic/normal_map.glb` (tangents, a normal map of
//! tilted stripes) drawn by `sinew render` differs, across its panel, from the same rig whose
//! material has no normal map, and the rest of the picture does not.

use std::sync::Arc;

use sinew::render::RgbaImage;

use super::common;
use super::fixtures::{gpu, output_dir};

/// `sinew render --rest` of `file`, 96², into `name`.
fn render_rest(file: &std::path::Path, name: &str) -> RgbaImage {
    let png = output_dir().join(name);
    common::run_sinew([
        "render".as_ref(),
        file.as_os_str(),
        "--rest".as_ref(),
        "--size".as_ref(),
        "96".as_ref(),
        "--out".as_ref(),
        png.as_os_str(),
    ]);
    RgbaImage::load_png(&png).unwrap()
}

/// The panel's rigs baked to `name`, with their normal maps dropped where `keep` is false.
fn baked(name: &str, keep: bool) -> std::path::PathBuf {
    let source = common::repo().join("assets/synthetic/normal_map.glb");
    let mut rigs = sinew::bake_rigs(&sinew::import_file(&source).unwrap()).unwrap();
    for mesh in rigs.iter_mut().flat_map(|r| &mut r.meshes) {
        let material = mesh.material.as_mut().expect("the panel has a material");
        assert!(
            material.normal_texture.is_some(),
            "the panel has a normal map"
        );
        assert!(mesh.tangents.is_some(), "the panel has tangents");
        if !keep {
            Arc::make_mut(material).normal_texture = None;
        }
    }
    let path = output_dir().join(name);
    sinew::bake::file::write_file(&path, &rigs).unwrap();
    path
}

#[test]
fn the_normal_map_changes_the_panels_shading() {
    if gpu().is_none() {
        return;
    }
    std::fs::create_dir_all(output_dir()).unwrap();
    let mapped = render_rest(&baked("normal-map.sinew", true), "normal-map.png");
    let plain = render_rest(
        &baked("normal-map-plain.sinew", false),
        "normal-map-plain.png",
    );
    let changed = mapped
        .pixels
        .chunks_exact(4)
        .zip(plain.pixels.chunks_exact(4))
        .filter(|(a, b)| a.iter().zip(b.iter()).any(|(x, y)| x.abs_diff(*y) > 12))
        .count();
    let total = (mapped.width * mapped.height) as usize;
    // The panel covers a good part of the frame; the ground and sky around it do not change.
    assert!(
        changed > total / 20,
        "the normal map changed {changed} of {total} pixels"
    );
    assert!(
        changed < total * 3 / 4,
        "{changed} of {total} pixels changed: more than the panel"
    );
}

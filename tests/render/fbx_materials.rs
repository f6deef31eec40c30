//! An FBX file draws with its materials: `assets/fbx/materials.fbx`'s checker texture (an
//! external PNG beside it) shows its orange cells in `sinew render`, and `--no-materials` draws
//! flat colours instead.

use sinew::render::RgbaImage;

use super::common;
use super::fixtures::{gpu, output_dir};

/// `sinew render --rest` of `materials.fbx`, 96², into `name`, with `extra` arguments.
fn render_fbx(name: &str, extra: &[&str]) -> RgbaImage {
    let dir = output_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(name);
    let file = common::repo().join("assets/fbx/materials.fbx");
    let mut args: Vec<&std::ffi::OsStr> = vec!["render".as_ref(), file.as_os_str()];
    args.extend(["--rest", "--size", "96", "--out"].map(std::ffi::OsStr::new));
    args.push(png.as_os_str());
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    common::run_sinew(args);
    RgbaImage::load_png(&png).unwrap()
}

/// Pixels of the checker's orange cells (230, 140, 40 in the texture, lit and tinted by the
/// vertex colours): red well above green, green well above blue.
fn orange_pixels(image: &RgbaImage) -> usize {
    image
        .pixels
        .chunks_exact(4)
        .filter(|p| p[0] > 150 && u16::from(p[0]) > u16::from(p[1]) + 50 && p[1] > p[2] + 30)
        .count()
}

#[test]
fn an_fbx_draws_with_its_texture() {
    if gpu().is_none() {
        return;
    }
    let textured = orange_pixels(&render_fbx("fbx-materials.png", &[]));
    let flat = orange_pixels(&render_fbx("fbx-materials-flat.png", &["--no-materials"]));
    assert!(textured > 100, "{textured} orange checker pixels");
    assert_eq!(flat, 0, "flat colours have no orange");
}

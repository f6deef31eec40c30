//! Materials as the file has them: CesiumMan's JPEG texture reaches the pixels of
//! `sinew render`, and `--no-materials` draws flat colours instead.

use sinew::render::RgbaImage;

use super::{common, gpu, output_dir};

/// `sinew render` of CesiumMan at 0.5 s, 128², with `extra` arguments.
fn render_cesium_man(name: &str, extra: &[&str]) -> Option<RgbaImage> {
    let shared = common::shared()?;
    let dir = output_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(name);
    let file = shared.join("gltf/CesiumMan.glb");
    let mut args: Vec<&std::ffi::OsStr> = vec!["render".as_ref(), file.as_os_str()];
    args.extend(
        ["--anim", "0", "--time", "0.5", "--size", "128", "--out"].map(std::ffi::OsStr::new),
    );
    args.push(png.as_os_str());
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    common::run_sinew(args);
    Some(RgbaImage::load_png(&png).unwrap())
}

/// Pixels of the texture's green stripes and blue-green helmet: green above red.
fn green_pixels(image: &RgbaImage) -> usize {
    image
        .pixels
        .chunks_exact(4)
        .filter(|p| p[1] > 60 && u16::from(p[1]) > u16::from(p[0]) + 30)
        .count()
}

#[test]
fn cesium_man_draws_with_its_texture() {
    if gpu().is_none() {
        return;
    }
    let Some(textured) = render_cesium_man("materials-cesium-man.png", &[]) else {
        return;
    };
    let Some(flat) = render_cesium_man("materials-cesium-man-flat.png", &["--no-materials"]) else {
        return;
    };
    let (green, flat_green) = (green_pixels(&textured), green_pixels(&flat));
    assert!(green > 40, "{green} green texture pixels");
    assert_eq!(flat_green, 0, "flat colours have no green");
}

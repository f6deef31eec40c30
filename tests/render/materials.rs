//! Materials as the file has them: CesiumMan's JPEG texture reaches the pixels of
//! `sinew render`, and `--no-materials` draws flat colours instead; vertex colours multiply the
//! base colour and an alpha mask discards fragments; `BLEND` materials draw blended over the
//! opaque meshes (`SkinnedBatch::use_materials`).

use sinew::render::PaletteSegment;
use sinew::render::RgbaImage;

use super::common;
use super::fixtures::{gpu, output_dir};

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

/// A triangle around `center` in the z = 0 plane, bound to joint 0, with vertex colours
/// `color` and `material`.
pub(crate) fn coloured_triangle(
    center: glam::Vec3,
    color: [f32; 4],
    material: sinew::import::Material,
) -> sinew::SkinnedMesh {
    let mut mesh = super::fixtures::triangle_mesh();
    mesh.positions = [[-0.4, -0.4, 0.0], [0.4, -0.4, 0.0], [0.0, 0.4, 0.0]]
        .map(|p| (glam::Vec3::from(p) + center).to_array())
        .to_vec();
    mesh.colors = Some(vec![color; 3]);
    mesh.material = Some(std::sync::Arc::new(material));
    mesh
}

/// Draws `meshes` (bound to joint 0 at the identity) seen from +Z at 64², with their
/// materials or in flat colours; returns the image and each of `points`' pixel.
pub(crate) fn draw_triangles(
    meshes: &[sinew::SkinnedMesh],
    materials: bool,
    points: &[glam::Vec3],
) -> Option<Vec<[u8; 4]>> {
    use sinew::render::{Camera, RenderTarget, Scene, SkinnedBatch, SkinnedBatchDesc};
    let gpu = gpu()?;
    let (device, queue) = (gpu.device(), gpu.queue());
    let palette = sinew::render::create_palette_buffer(device, 1).unwrap();
    sinew::render::write_palette(device, queue, &palette, 0, &[sinew::Mat3x4Rows::IDENTITY])
        .unwrap();
    let aabbs = sinew::render::create_aabb_buffer(device, 1).unwrap();
    let mut batch = SkinnedBatch::new(
        device,
        &gpu.renderer,
        &SkinnedBatchDesc {
            label: "material test",
            meshes,
            mesh_colors: &vec![[0.8, 0.8, 0.8]; meshes.len()],
            capacity: 1,
            palette: &[PaletteSegment::whole(&palette)],
            aabbs: &aabbs,
            preskin: false,
        },
    )
    .unwrap();
    batch
        .write_instances(
            queue,
            &[sinew::render::SkinnedInstance::new(0, 1, 0, [1.0; 3])],
        )
        .unwrap();
    if materials {
        batch
            .use_materials(device, queue, &gpu.renderer, meshes)
            .unwrap();
    }
    let camera = Camera::look_at(
        glam::Vec3::new(0.0, 0.0, 3.0),
        glam::Vec3::ZERO,
        glam::Vec3::Y,
        1.0,
        1.0,
        0.1,
        10.0,
    );
    let batches = [&batch];
    let scene = Scene {
        skinned: &batches,
        cull: false,
        ..Scene::new(camera)
    };
    let target = RenderTarget::new(device, &gpu.renderer, 64, 64, 16).unwrap();
    gpu.renderer.render(device, queue, &target, &scene).unwrap();
    let image = target.read_rgba8(device, queue).unwrap();
    let pixel = |p: &glam::Vec3| {
        let (x, y, _) = camera.to_pixel(*p, 64, 64);
        image.pixel(x as u32, y as u32).unwrap()
    };
    Some(points.iter().map(pixel).collect())
}

/// A white, opaque dielectric (glTF's default material is fully metallic).
fn matte() -> sinew::import::Material {
    sinew::import::Material {
        metallic: 0.0,
        ..sinew::import::Material::default()
    }
}

#[test]
fn materials_multiply_vertex_colours_and_mask_by_alpha() {
    use sinew::import::{AlphaMode, Material};
    let (left, right) = (
        glam::Vec3::new(-0.6, 0.0, 0.0),
        glam::Vec3::new(0.6, 0.0, 0.0),
    );
    let meshes = [
        // Opaque: white factor times green vertices.
        coloured_triangle(left, [0.0, 1.0, 0.0, 1.0], matte()),
        // Masked out: vertex alpha 0 under a 0.5 cutoff.
        coloured_triangle(
            right,
            [1.0, 1.0, 1.0, 0.0],
            Material {
                alpha: AlphaMode::Mask(0.5),
                ..matte()
            },
        ),
    ];
    let points = [left, right, glam::Vec3::new(0.0, 0.9, 0.0)];
    let Some(flat) = draw_triangles(&meshes, false, &points) else {
        return;
    };
    let [flat_left, flat_right, background] = flat[..] else {
        unreachable!()
    };
    assert!(
        flat_left[1].abs_diff(flat_left[0]) < 8,
        "flat grey {flat_left:?}"
    );
    assert_ne!(
        flat_right, background,
        "without materials both triangles draw"
    );
    let lit = draw_triangles(&meshes, true, &points).unwrap();
    let (green, masked) = (lit[0], lit[1]);
    assert!(
        green[1] > green[0] + 60 && green[1] > green[2] + 60,
        "{green:?}"
    );
    assert_eq!(masked, background, "the masked triangle is discarded");
}

#[test]
fn blend_materials_draw_over_the_opaque_ones_blended() {
    use sinew::import::{AlphaMode, Material};
    let center = glam::Vec3::ZERO;
    // The half-transparent red triangle comes first and stands in front; the opaque green one
    // behind it must still show through.
    let blended = |alpha| Material { alpha, ..matte() };
    let meshes = |alpha| {
        [
            coloured_triangle(
                glam::Vec3::new(0.0, 0.0, 0.5),
                [1.0, 0.0, 0.0, 0.5],
                blended(alpha),
            ),
            coloured_triangle(
                glam::Vec3::new(0.0, 0.0, -0.5),
                [0.0, 1.0, 0.0, 1.0],
                matte(),
            ),
        ]
    };
    let Some(mixed) = draw_triangles(&meshes(AlphaMode::Blend), true, &[center]) else {
        return;
    };
    let opaque = draw_triangles(&meshes(AlphaMode::Opaque), true, &[center]).unwrap();
    let (mixed, opaque) = (mixed[0], opaque[0]);
    assert!(
        opaque[0] > 60 && opaque[1] < 20,
        "opaque red hides the green: {opaque:?}"
    );
    // Half red over green: both channels, each about half of what the opaque colours give.
    assert!(
        mixed[0] > 30 && mixed[1] > 30 && mixed[0] < opaque[0],
        "blended red over green: {mixed:?} (opaque {opaque:?})"
    );
}

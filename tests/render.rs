//! The render passes: a reference image of the default rig, Fox.glb's silhouette against its
//! animated AABB, GPU culling (the camera's and the light's lists) against the CPU frustum test,
//! the shadow of a character outside the view, dual-quaternion against linear skinning,
//! pre-skinning against CPU skinning, the bone overlay, and input errors; and all of these on
//! buffers larger than one storage binding (a renderer and a GPU evaluator with a small
//! binding limit, so a few hundred characters span many windows), against one page.
//!
//! One device and two renderers (the device's binding limit, and [`PAGED_BINDING`]) serve the
//! whole file (pipelines compile on first use and are shared). Without an adapter the GPU tests print why and pass, except under `REQUIRE_GPU=1`,
//! where a missing adapter fails them. `WGPU_BACKEND` picks the backend. `SINEW_BLESS=1`
//! rewrites the reference images in `tests/reference/` instead of comparing with them. Every
//! image a test renders is also written to `target/render-tests/` for inspection.

mod common;
#[path = "render/materials.rs"]
mod materials;
#[path = "render/view.rs"]
mod view;

use common::Rng;

use std::path::PathBuf;
use std::sync::LazyLock;

use glam::{Affine3A, Quat, Vec3};
use sinew::gpu::GpuOptions;
use sinew::render::{
    BoneOverlay, Camera, CullFrusta, DirectionalLight, PaletteWindow, RenderError, RenderTarget,
    Renderer, RendererOptions, RgbaImage, Scene, ShadowSettings, SkinnedBatch, SkinnedBatchDesc,
    SkinnedInstance, SkinningMode, StaticMesh, aabb_in_frustum, bounding_sphere, morph_vertex,
    skin_vertex,
};
use sinew::{
    Aabb, CpuBackend, GpuBackend, GpuContext, GpuError, InstanceRecord, Layer, Mat3x4Rows, Rig,
    SkinnedMesh,
};

// ---------------------------------------------------------------------------------------------
// Tolerances, stated once.

/// A pixel "differs" when any channel differs by more than this (of 255).
const PIXEL_THRESHOLD: u8 = 8;
/// The reference image test passes when at most this fraction of pixels differ.
const REFERENCE_TOLERANCE: f64 = 0.01;
/// Two renders of the same scene (culled against unculled, paged against one page) pass when
/// at most this fraction of pixels differ.
const SAME_SCENE_TOLERANCE: f64 = 0.002;

/// The storage binding limit of the paged renderer and of the windowed GPU evaluator.
const PAGED_BINDING: u64 = 64 << 10;

// ---------------------------------------------------------------------------------------------
// The shared device.

struct Gpu {
    context: GpuContext,
    /// Binds up to the device's limit: every test scene fits one page.
    renderer: Renderer,
    /// Binds at most [`PAGED_BINDING`] bytes: batches of a few hundred characters page.
    paged: Renderer,
}

static GPU: LazyLock<Option<Gpu>> = LazyLock::new(|| {
    let context = common::headless_gpu("render tests")?;
    eprintln!("render tests on {}", context.adapter_summary());
    let renderer = Renderer::new(&context.device).unwrap();
    let paged = Renderer::with_options(
        &context.device,
        RendererOptions {
            max_binding: Some(PAGED_BINDING),
        },
    )
    .unwrap();
    Some(Gpu {
        context,
        renderer,
        paged,
    })
});

/// The shared device and renderer, or `None` (after printing why) when no adapter exists.
fn gpu() -> Option<&'static Gpu> {
    GPU.as_ref()
}

impl Gpu {
    fn device(&self) -> &wgpu::Device {
        &self.context.device
    }

    fn queue(&self) -> &wgpu::Queue {
        &self.context.queue
    }

    fn backend_name(&self) -> String {
        format!("{:?}", self.context.adapter_info.backend).to_lowercase()
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers.

/// The shipped default rig (committed, so always present).
fn humanoid() -> Option<Rig> {
    let path = common::repo().join("assets/humanoid.glb");
    let asset = sinew::import_file(&path).unwrap();
    Some(sinew::bake_rigs(&asset).unwrap().remove(0))
}

fn fox() -> Option<Rig> {
    let path = common::shared()?.join("gltf/Fox.glb");
    let asset = sinew::import_file(&path).unwrap();
    Some(
        sinew::bake_rigs(&asset)
            .unwrap()
            .into_iter()
            .find(|r| !r.meshes.is_empty())
            .unwrap(),
    )
}

/// Instances of one rig evaluated (on the CPU, or by the GPU evaluator) and uploaded: palette
/// blocks one after another, AABB `i` for instance `i`.
struct Posed {
    palette: Vec<Mat3x4Rows>,
    aabbs: Vec<Aabb>,
    palette_buffer: wgpu::Buffer,
    aabb_buffer: wgpu::Buffer,
    instances: Vec<SkinnedInstance>,
}

/// One record per pose, palette blocks one after another.
fn records(rig: &Rig, poses: &[(u32, f32, Affine3A)]) -> Vec<InstanceRecord> {
    let block = rig.palette_entries();
    poses
        .iter()
        .enumerate()
        .map(|(i, (clip, time, world))| {
            InstanceRecord::new(0, (i * block) as u32, world, &[Layer::clip(*clip, *time)]).unwrap()
        })
        .collect()
}

/// `count` tinted instances of `joints` joints: palette block `i * block`, box `i`.
fn tinted_instances(count: usize, block: usize, joints: usize) -> Vec<SkinnedInstance> {
    (0..count)
        .map(|i| {
            let tint = [
                0.85 - 0.1 * (i % 3) as f32,
                0.6,
                0.4 + 0.15 * (i % 2) as f32,
            ];
            SkinnedInstance::new((i * block) as u32, joints as u32, i as u32, tint)
        })
        .collect()
}

fn pose(gpu: &Gpu, rig: &Rig, poses: &[(u32, f32, Affine3A)]) -> Posed {
    let joints = rig.joint_count();
    let block = rig.palette_entries();
    let records = records(rig, poses);
    let mut palette = vec![Mat3x4Rows::IDENTITY; block * poses.len()];
    let mut aabbs = vec![Aabb::EMPTY; poses.len()];
    CpuBackend::new(vec![rig.clone()], Vec::new())
        .unwrap()
        .evaluate(&records, &mut palette, &mut aabbs)
        .unwrap();
    let palette_buffer = sinew::render::create_palette_buffer(gpu.device(), palette.len()).unwrap();
    sinew::render::write_palette(gpu.device(), gpu.queue(), &palette_buffer, 0, &palette).unwrap();
    let aabb_buffer = sinew::render::create_aabb_buffer(gpu.device(), aabbs.len()).unwrap();
    sinew::render::write_aabbs(gpu.device(), gpu.queue(), &aabb_buffer, 0, &aabbs).unwrap();
    let instances = tinted_instances(poses.len(), block, joints);
    Posed {
        palette,
        aabbs,
        palette_buffer,
        aabb_buffer,
        instances,
    }
}

fn batch(gpu: &Gpu, meshes: &[SkinnedMesh], posed: &Posed, preskin: bool) -> SkinnedBatch {
    batch_on(gpu, &gpu.renderer, meshes, posed, preskin)
}

/// [`batch`] for `renderer`.
fn batch_on(
    gpu: &Gpu,
    renderer: &Renderer,
    meshes: &[SkinnedMesh],
    posed: &Posed,
    preskin: bool,
) -> SkinnedBatch {
    let mut batch = SkinnedBatch::new(
        gpu.device(),
        renderer,
        &SkinnedBatchDesc {
            label: "test",
            meshes,
            mesh_colors: &[[1.0, 1.0, 1.0], [0.5, 0.7, 1.0]],
            capacity: posed.instances.len() as u32,
            palette: &posed.palette_buffer,
            aabbs: &posed.aabb_buffer,
            preskin,
        },
    )
    .unwrap();
    batch
        .write_instances(gpu.queue(), &posed.instances)
        .unwrap();
    batch
}

fn union(aabbs: &[Aabb]) -> Aabb {
    let mut all = Aabb::EMPTY;
    for a in aabbs {
        all.merge(a);
    }
    all
}

/// Renders `scene` at `size`² and returns the image, also written to
/// `target/render-tests/NAME-BACKEND.png`.
fn render(gpu: &Gpu, name: &str, size: u32, scene: &Scene<'_>) -> RgbaImage {
    render_on(gpu, &gpu.renderer, name, size, scene)
}

/// [`render`] with `renderer` (which made the scene's batches and overlays).
fn render_on(
    gpu: &Gpu,
    renderer: &Renderer,
    name: &str,
    size: u32,
    scene: &Scene<'_>,
) -> RgbaImage {
    let target = RenderTarget::new(gpu.device(), renderer, size, size, 1024).unwrap();
    renderer
        .render(gpu.device(), gpu.queue(), &target, scene)
        .unwrap();
    let image = target.read_rgba8(gpu.device(), gpu.queue()).unwrap();
    let path = output_dir().join(format!("{name}-{}.png", gpu.backend_name()));
    image.save_png(&path).unwrap();
    image
}

fn output_dir() -> PathBuf {
    common::repo().join("target/render-tests")
}

/// Fraction of pixels where some channel differs by more than `threshold`.
fn differing_fraction(a: &RgbaImage, b: &RgbaImage, threshold: u8) -> f64 {
    assert_eq!(
        (a.width, a.height),
        (b.width, b.height),
        "image sizes differ"
    );
    let differing = a
        .pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .filter(|(p, q)| {
            p.iter()
                .zip(q.iter())
                .any(|(x, y)| x.abs_diff(*y) > threshold)
        })
        .count();
    differing as f64 / (a.width * a.height) as f64
}

/// The pixel coordinates a box covers on screen (its eight corners projected), as
/// `(x0, y0, x1, y1)`.
fn screen_rect(camera: &Camera, aabb: &Aabb, size: u32) -> (f32, f32, f32, f32) {
    let mut rect = (
        f32::INFINITY,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NEG_INFINITY,
    );
    for i in 0..8 {
        let c = Vec3::new(
            if i & 1 == 0 { aabb.min[0] } else { aabb.max[0] },
            if i & 2 == 0 { aabb.min[1] } else { aabb.max[1] },
            if i & 4 == 0 { aabb.min[2] } else { aabb.max[2] },
        );
        let (x, y, in_front) = camera.to_pixel(c, size, size);
        assert!(in_front, "box corner {c} is behind the camera");
        rect = (rect.0.min(x), rect.1.min(y), rect.2.max(x), rect.3.max(y));
    }
    rect
}

/// A single-triangle skinned mesh bound to joint 0, for tests that only need something to draw.
fn triangle_mesh() -> SkinnedMesh {
    SkinnedMesh {
        name: "triangle".into(),
        node: None,
        skin: Some(0),
        positions: vec![[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 0.1, 0.0]],
        normals: vec![[0.0, 0.0, 1.0]; 3],
        uvs: vec![[0.0; 2]; 3],
        tangents: None,
        uvs1: None,
        colors: None,
        material: None,
        joints: vec![[0; 8]; 3],
        weights: vec![common::eight([1.0, 0.0, 0.0, 0.0]); 3],
        indices: vec![0, 1, 2],
        bind_aabb: Aabb::EMPTY,
        joint_bounds: Vec::new(),
        morph: Default::default(),
        influences_cut: 0,
    }
}

fn camera_for(aabb: &Aabb) -> Camera {
    Camera::frame_aabb(aabb, Vec3::new(0.45, 0.3, 1.0), 0.7, 1.0)
}

// ---------------------------------------------------------------------------------------------
// Without a GPU.

#[test]
fn render_shaders_validate_with_naga() {
    for (name, source) in sinew::render::render_sources() {
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
    }
}

/// On the CPU, [`CullFrusta`] keeps a box in view, and a box outside the view but inside the
/// shadow map's frustum (it may cast a shadow into the view), but neither one outside both, nor
/// the second without a shadow map.
#[test]
fn cull_frusta_keep_what_is_seen_or_casts_a_shadow_into_the_view() {
    let (camera, light) = offscreen_caster_view();
    let half = Vec3::new(0.3, 0.9, 0.3);
    let beside = box_around(Vec3::new(3.0, 0.9, 0.0), half);
    let seen = box_around(Vec3::new(-0.5, 0.9, 0.0), half);
    let away = box_around(Vec3::new(-30.0, 0.9, 0.0), half);
    let lit = Scene {
        light,
        shadow: Some(ShadowSettings::covering(union(&[
            beside,
            offscreen_caster_ground(0.0),
        ]))),
        ..Scene::new(camera)
    };
    let frusta = CullFrusta::of(&lit);
    assert_eq!(frusta.camera, camera.frustum_planes());
    let light_planes = sinew::render::frustum_planes(&lit.light_view_projection().unwrap());
    assert_eq!(frusta.light, Some(light_planes));
    assert!(!aabb_in_frustum(&frusta.camera, &beside));
    assert!(frusta.keeps(&seen), "the box in view was culled");
    assert!(
        frusta.keeps(&beside),
        "the shadow caster beside the view was culled"
    );
    assert!(!frusta.keeps(&away), "the box outside both frusta was kept");
    assert!(!frusta.keeps(&Aabb::EMPTY));
    let unlit = CullFrusta::of(&Scene {
        shadow: None,
        ..lit
    });
    assert_eq!(unlit.light, None);
    assert!(unlit.keeps(&seen) && !unlit.keeps(&beside));
}

#[test]
fn bone_overlay_joint_origins_are_the_model_matrices_origins() {
    let mut rigs: Vec<Rig> = humanoid().into_iter().collect();
    rigs.extend(fox());
    for rig in rigs {
        let origins = sinew::render::bind_space_origins(&rig.skeleton);
        let n = rig.joint_count();
        let world = Affine3A::from_rotation_translation(Quat::from_rotation_y(0.7), Vec3::X);
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; n];
        sinew::cpu::evaluate_pose(
            &rig,
            &[],
            &[Layer::clip(0, 0.3)],
            &world,
            &mut models,
            &mut palette,
        );
        let scale = bounding_sphere(&rig.joint_bounds.iter().fold(Aabb::EMPTY, |mut a, b| {
            a.merge(b);
            a
        }))
        .1
        .max(1.0);
        for (j, ((entry, origin), model)) in palette.iter().zip(&origins).zip(&models).enumerate() {
            let got = entry.to_affine().transform_point3(*origin);
            let expected = Vec3::from(model.translation);
            assert!(
                got.abs_diff_eq(expected, 1e-4 * scale.max(expected.abs().max_element())),
                "{}: joint {j}: palette x bind origin = {got}, model origin = {expected}",
                rig.name
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The default rig against a committed reference image.

/// The reference scene: the default rig walking, lit, shadowed on a ground plane, 256².
fn humanoid_reference(gpu: &Gpu, rig: &Rig) -> RgbaImage {
    let walk = rig.clips.find_clip("walk").unwrap_or(0) as u32;
    let posed = pose(gpu, rig, &[(walk, 0.4, Affine3A::IDENTITY)]);
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let aabb = posed.aabbs[0];
    let (center, radius) = bounding_sphere(&aabb);
    let floor = Vec3::new(center.x, aabb.min[1], center.z);
    let ground = StaticMesh::ground_plane(
        gpu.device(),
        gpu.queue(),
        &gpu.renderer,
        floor,
        radius * 2.0,
        [0.5, 0.5, 0.48],
    )
    .unwrap();
    let mut shadow_bounds = aabb;
    shadow_bounds.grow(floor + Vec3::new(radius, 0.0, radius));
    shadow_bounds.grow(floor - Vec3::new(radius, 0.0, radius));
    let batches = [&batch];
    let statics = [&ground];
    let scene = Scene {
        shadow: Some(ShadowSettings::covering(shadow_bounds)),
        skinned: &batches,
        statics: &statics,
        ..Scene::new(camera_for(&aabb))
    };
    render(gpu, "humanoid_walk", 256, &scene)
}

#[test]
fn humanoid_walk_matches_the_reference_image() {
    let Some(gpu) = gpu() else { return };
    let Some(rig) = humanoid() else { return };
    let image = humanoid_reference(gpu, &rig);
    let reference = common::repo().join("tests/reference/humanoid_walk.png");
    if std::env::var("SINEW_BLESS").is_ok_and(|v| v == "1") {
        let checking = common::in_ci() || common::gpu_required();
        assert!(
            !checking,
            "SINEW_BLESS=1 under CI or REQUIRE_GPU would skip the comparison"
        );
        image.save_png(&reference).unwrap();
        eprintln!("blessed {}", reference.display());
        return;
    }
    let expected = RgbaImage::load_png(&reference)
        .unwrap_or_else(|e| panic!("{e}\nrun with SINEW_BLESS=1 to create the reference image"));
    let fraction = differing_fraction(&image, &expected, PIXEL_THRESHOLD);
    eprintln!(
        "{:.3}% of pixels differ from the reference by more than {PIXEL_THRESHOLD}/255",
        fraction * 100.0
    );
    assert!(
        fraction <= REFERENCE_TOLERANCE,
        "{:.3}% of pixels differ by more than {PIXEL_THRESHOLD}/255 from {} (tolerance {}%); \
         the render is in {}; if the change is intended, rerun with SINEW_BLESS=1",
        fraction * 100.0,
        reference.display(),
        REFERENCE_TOLERANCE * 100.0,
        output_dir().display()
    );
    // The character is posed and lit: many distinct colours, not a flat silhouette.
    let mut colours: Vec<[u8; 4]> = image
        .pixels
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(
        colours.len() > 50,
        "only {} distinct colours",
        colours.len()
    );
}

// ---------------------------------------------------------------------------------------------
// Fox.glb: the silhouette stays inside the projected animated AABB and moves with the clip.

#[test]
fn fox_pixels_lie_inside_the_projected_aabb_and_the_silhouette_moves() {
    let Some(gpu) = gpu() else { return };
    let Some(rig) = fox() else { return };
    let clip = rig.clips.find_clip("Walk").unwrap_or(0) as u32;
    let times = [0.1, 0.5];
    let posed = pose(
        gpu,
        &rig,
        &[
            (clip, times[0], Affine3A::IDENTITY),
            (clip, times[1], Affine3A::IDENTITY),
        ],
    );
    let camera = camera_for(&union(&posed.aabbs));
    let size = 256;
    let black = wgpu::Color::BLACK;
    let mut masks = Vec::new();
    for (i, time) in times.iter().enumerate() {
        let one = Posed {
            instances: vec![posed.instances[i]],
            palette: Vec::new(),
            aabbs: Vec::new(),
            palette_buffer: posed.palette_buffer.clone(),
            aabb_buffer: posed.aabb_buffer.clone(),
        };
        let batch = batch(gpu, &rig.meshes, &one, false);
        let batches = [&batch];
        let scene = Scene {
            clear_color: black,
            skinned: &batches,
            ..Scene::new(camera)
        };
        let image = render(gpu, &format!("fox_walk_{time}"), size, &scene);
        let (x0, y0, x1, y1) = screen_rect(&camera, &posed.aabbs[i], size);
        let mut mask = vec![false; (size * size) as usize];
        for y in 0..size {
            for x in 0..size {
                let p = image.pixel(x, y).unwrap();
                if p[..3] == [0, 0, 0] {
                    continue;
                }
                mask[(y * size + x) as usize] = true;
                let (cx, cy) = (x as f32 + 0.5, y as f32 + 0.5);
                assert!(
                    cx >= x0 - 1.0 && cx <= x1 + 1.0 && cy >= y0 - 1.0 && cy <= y1 + 1.0,
                    "t = {time}: pixel ({x}, {y}) = {p:?} lies outside the projected AABB \
                     ({x0:.1}, {y0:.1})..({x1:.1}, {y1:.1})"
                );
            }
        }
        let covered = mask.iter().filter(|&&m| m).count();
        assert!(
            covered > (size * size / 50) as usize,
            "t = {time}: the fox covers only {covered} pixels"
        );
        masks.push(mask);
    }
    let changed = masks[0]
        .iter()
        .zip(&masks[1])
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        changed > (size * size / 200) as usize,
        "the silhouette changed in only {changed} pixels between t = {} and t = {}",
        times[0],
        times[1]
    );
}

// ---------------------------------------------------------------------------------------------
// GPU culling against the CPU frustum test.

#[test]
fn gpu_culling_keeps_exactly_the_boxes_the_cpu_frustum_test_keeps() {
    let Some(gpu) = gpu() else { return };
    let pages = check_culling(gpu, &gpu.renderer, 1);
    assert_eq!(pages, 1);
}

/// The same with 3,000 instances of 57 joints each over [`PAGED_BINDING`]-byte windows: the
/// palette (8 MB) and the boxes (96 KB) both span several windows, and instance `i` reads box
/// `count - 1 - i`, so pages end at palette and at AABB window boundaries.
#[test]
fn paged_culling_keeps_exactly_the_boxes_the_cpu_frustum_test_keeps() {
    let Some(gpu) = gpu() else { return };
    let pages = check_culling(gpu, &gpu.paged, 57);
    assert!(pages > 100, "{pages} pages");
}

/// The light and shadow-map bounds of [`check_culling`]: a frustum that overlaps the camera's
/// and reaches far beside it.
fn culling_test_light() -> (DirectionalLight, ShadowSettings) {
    let light = DirectionalLight {
        direction: Vec3::new(0.5, -1.0, 0.3),
        ..DirectionalLight::default()
    };
    let bounds = Aabb {
        min: [0.0, -4.0, -30.0, 0.0],
        max: [24.0, 4.0, -6.0, 0.0],
    };
    (light, ShadowSettings::covering(bounds))
}

/// A box of half extents `half` around `center`.
fn box_around(center: Vec3, half: Vec3) -> Aabb {
    Aabb {
        min: (center - half).extend(0.0).to_array(),
        max: (center + half).extend(0.0).to_array(),
    }
}

/// Whether all eight corners of `aabb` lie more than 1e-3 outside one of `planes`.
fn surely_outside(planes: &[glam::Vec4; 6], aabb: &Aabb) -> bool {
    planes.iter().any(|p| {
        (0..8).all(|k| {
            let c = Vec3::new(
                if k & 1 == 0 { aabb.min[0] } else { aabb.max[0] },
                if k & 2 == 0 { aabb.min[1] } else { aabb.max[1] },
                if k & 4 == 0 { aabb.min[2] } else { aabb.max[2] },
            );
            p.truncate().dot(c) + p.w < -1e-3
        })
    })
}

/// Culls 3,000 random boxes (instance `i` has palette block `i * joints`, `joints` entries,
/// and box `count - 1 - i`) with `renderer` for the camera and for a light
/// ([`culling_test_light`]), and checks both visible lists and their indirect draws against
/// [`aabb_in_frustum`] with the camera's and the light's matrix; then checks that without a
/// shadow map the light's list is empty, and that culling off lists every instance in order in
/// both. Returns the batch's page count.
fn check_culling(gpu: &Gpu, renderer: &Renderer, joints: u32) -> usize {
    let count = 3000;
    let mut rng = Rng(7);
    let camera = Camera::look_at(
        Vec3::new(0.0, 2.0, 12.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::Y,
        0.9,
        1.5,
        0.5,
        40.0,
    );
    let (light, shadow) = culling_test_light();
    let lit = Scene {
        light,
        shadow: Some(shadow),
        ..Scene::new(camera)
    };
    let light_view_proj = lit.light_view_projection().unwrap();
    let frusta = [camera.view_projection(), light_view_proj];
    let planes = frusta.map(|m| sinew::render::frustum_planes(&m));
    let mut aabbs = Vec::with_capacity(count);
    let mut must_keep = [Vec::new(), Vec::new()];
    let mut must_cull = [Vec::new(), Vec::new()];
    for i in 0..count {
        let half = Vec3::new(
            rng.range(0.05, 1.5),
            rng.range(0.05, 1.5),
            rng.range(0.05, 1.5),
        );
        let center = match i % 3 {
            // Around a point strictly inside the camera's (0) or the light's (1) frustum: must
            // be kept in that list.
            f @ (0 | 1) => {
                let ndc = Vec3::new(
                    rng.range(-0.95, 0.95),
                    rng.range(-0.95, 0.95),
                    rng.range(0.05, 0.98),
                );
                must_keep[f].push(i);
                frusta[f].inverse().project_point3(ndc)
            }
            // Anywhere in a large region around both frusta.
            _ => Vec3::new(
                rng.range(-60.0, 60.0),
                rng.range(-40.0, 40.0),
                rng.range(-60.0, 30.0),
            ),
        };
        let aabb = box_around(center, half);
        for (f, planes) in planes.iter().enumerate() {
            if surely_outside(planes, &aabb) {
                must_cull[f].push(i);
            }
        }
        aabbs.push(aabb);
    }
    // Empty and NaN boxes are culled.
    aabbs[1] = Aabb::EMPTY;
    aabbs[2].min[0] = f32::NAN;
    for list in &mut must_cull {
        list.extend([1, 2]);
    }
    must_keep[1].retain(|&b| b != 1);

    let aabb_buffer = sinew::render::create_aabb_buffer(gpu.device(), count).unwrap();
    sinew::render::write_aabbs(gpu.device(), gpu.queue(), &aabb_buffer, 0, &aabbs).unwrap();
    let entries = count * joints as usize;
    let palette_buffer = sinew::render::create_palette_buffer(gpu.device(), entries).unwrap();
    let identity = vec![Mat3x4Rows::IDENTITY; entries];
    sinew::render::write_palette(gpu.device(), gpu.queue(), &palette_buffer, 0, &identity).unwrap();
    // Instance i reads box count-1-i: the kernel must follow `aabb_index`.
    let instances: Vec<SkinnedInstance> = (0..count)
        .map(|i| {
            let offset = i as u32 * joints;
            SkinnedInstance::new(offset, joints, (count - 1 - i) as u32, [1.0; 3])
        })
        .collect();
    let meshes = [triangle_mesh(), triangle_mesh()];
    let mut batch = SkinnedBatch::new(
        gpu.device(),
        renderer,
        &SkinnedBatchDesc {
            label: "cull test",
            meshes: &meshes,
            mesh_colors: &[],
            capacity: count as u32,
            palette: &palette_buffer,
            aabbs: &aabb_buffer,
            preskin: false,
        },
    )
    .unwrap();
    batch.write_instances(gpu.queue(), &instances).unwrap();
    let batches = [&batch];
    let scene = Scene {
        skinned: &batches,
        ..lit
    };
    let target = RenderTarget::new(gpu.device(), renderer, 32, 32, 16).unwrap();
    renderer
        .render(gpu.device(), gpu.queue(), &target, &scene)
        .unwrap();

    let box_of = |instance: u32| count - 1 - instance as usize;
    let mut kept_lists = Vec::new();
    for (f, name) in ["camera", "light"].into_iter().enumerate() {
        let (visible, args) = match f {
            0 => (
                batch.read_visible(gpu.device(), gpu.queue()).unwrap(),
                batch.read_draw_args(gpu.device(), gpu.queue()).unwrap(),
            ),
            _ => (
                batch.read_light_visible(gpu.device(), gpu.queue()).unwrap(),
                batch
                    .read_light_draw_args(gpu.device(), gpu.queue())
                    .unwrap(),
            ),
        };
        let kept = check_list(
            name,
            &visible,
            &args,
            &planes[f],
            |i| &aabbs[box_of(i)],
            count,
        );
        for &b in &must_keep[f] {
            assert!(
                kept[count - 1 - b],
                "{name}: box {b} holds a point inside the frustum but was culled"
            );
        }
        for &b in &must_cull[f] {
            assert!(
                !kept[count - 1 - b],
                "{name}: box {b} lies outside the frustum but was kept"
            );
        }
        kept_lists.push(kept);
    }
    assert_ne!(
        kept_lists[0], kept_lists[1],
        "the camera's and the light's lists are the same"
    );

    // No shadow map: the light's list is empty.
    let unlit = Scene {
        shadow: None,
        ..scene
    };
    renderer
        .render(gpu.device(), gpu.queue(), &target, &unlit)
        .unwrap();
    let light_list = batch.read_light_visible(gpu.device(), gpu.queue()).unwrap();
    assert!(
        light_list.is_empty(),
        "{} in the light's list",
        light_list.len()
    );
    for a in batch
        .read_light_draw_args(gpu.device(), gpu.queue())
        .unwrap()
    {
        assert_eq!(a.instance_count, 0);
    }
    let camera_list = batch.read_visible(gpu.device(), gpu.queue()).unwrap();
    assert_eq!(
        camera_list.len(),
        kept_lists[0].iter().filter(|&&k| k).count()
    );

    // Culling off: every instance, in order, in both lists.
    let scene = Scene {
        cull: false,
        ..scene
    };
    renderer
        .render(gpu.device(), gpu.queue(), &target, &scene)
        .unwrap();
    let every: Vec<u32> = (0..count as u32).collect();
    assert_eq!(
        batch.read_visible(gpu.device(), gpu.queue()).unwrap(),
        every
    );
    assert_eq!(
        batch.read_light_visible(gpu.device(), gpu.queue()).unwrap(),
        every
    );
    let args = [
        batch.read_draw_args(gpu.device(), gpu.queue()).unwrap(),
        batch
            .read_light_draw_args(gpu.device(), gpu.queue())
            .unwrap(),
    ];
    for a in args.iter().flatten() {
        assert_eq!(a.instance_count as usize, count);
    }
    batch.page_count()
}

/// Checks one visible list read back from the GPU (`visible`, with its per-mesh draws `args`)
/// against [`aabb_in_frustum`] with `planes` on each instance's box (`box_of`): listed once
/// each, counted by every draw, and kept exactly when the CPU test keeps it (but for boxes
/// within rounding of a plane); at least a quarter of `count` kept and a quarter culled.
/// Returns which instances were kept.
fn check_list<'a>(
    name: &str,
    visible: &[u32],
    args: &[sinew::render::DrawIndexedArgs],
    planes: &[glam::Vec4; 6],
    box_of: impl Fn(u32) -> &'a Aabb,
    count: usize,
) -> Vec<bool> {
    for (k, a) in args.iter().enumerate() {
        assert_eq!(
            a.instance_count as usize,
            visible.len(),
            "{name}: draw {k} counts {} instances, the visible list has {}",
            a.instance_count,
            visible.len()
        );
        assert_eq!(a.index_count, 3);
    }
    let mut sorted = visible.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        visible.len(),
        "{name}: an instance was listed twice"
    );
    let mut kept = vec![false; count];
    for &i in &sorted {
        kept[i as usize] = true;
    }
    let mut disagreements = Vec::new();
    for (instance, &gpu_keeps) in kept.iter().enumerate() {
        let aabb = box_of(instance as u32);
        let cpu = aabb_in_frustum(planes, aabb);
        if cpu != gpu_keeps {
            // Only a box within rounding of a plane may go either way.
            let margin = planes
                .iter()
                .map(|p| {
                    let n = p.truncate();
                    let corner = Vec3::select(
                        n.cmpge(Vec3::ZERO),
                        Vec3::from(aabb.max3()),
                        Vec3::from(aabb.min3()),
                    );
                    (n.dot(corner) + p.w).abs()
                })
                .fold(f32::INFINITY, f32::min);
            disagreements.push((instance, cpu, margin));
        }
    }
    assert!(
        disagreements.iter().all(|d| d.2 < 1e-4),
        "{name}: GPU and CPU culling disagree on {} instances; the first (instance, cpu keeps, \
         distance to the nearest plane): {:?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(10)]
    );
    let culled = count - visible.len();
    assert!(
        culled > count / 4 && visible.len() > count / 4,
        "{name}: {} of {count} kept",
        visible.len()
    );
    kept
}

#[test]
fn culled_crowd_renders_like_the_unculled_crowd() {
    let Some(gpu) = gpu() else { return };
    let Some(rig) = humanoid() else { return };
    let clips = rig.clips.clip_count() as u32;
    let mut poses = Vec::new();
    for row in 0..6 {
        for col in 0..8 {
            let world = Affine3A::from_rotation_translation(
                Quat::from_rotation_y(0.3 * (row * 8 + col) as f32),
                Vec3::new(col as f32 * 1.2 - 4.2, 0.0, -(row as f32) * 1.5),
            );
            poses.push(((row * 8 + col) as u32 % clips, 0.13 * col as f32, world));
        }
    }
    let posed = pose(gpu, &rig, &poses);
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let camera = Camera::look_at(
        Vec3::new(0.0, 2.5, 5.0),
        Vec3::new(0.0, 0.8, -2.0),
        Vec3::Y,
        0.9,
        1.0,
        0.1,
        60.0,
    );
    let batches = [&batch];
    let mut scene = Scene {
        skinned: &batches,
        shadow: Some(ShadowSettings::covering(union(&posed.aabbs))),
        ..Scene::new(camera)
    };
    let culled = render(gpu, "crowd_culled", 256, &scene);
    let kept = batch.read_visible(gpu.device(), gpu.queue()).unwrap().len();
    scene.cull = false;
    scene.shadow = None;
    let unculled_unshadowed = render(gpu, "crowd_unculled_unshadowed", 256, &scene);
    scene.shadow = Some(ShadowSettings::covering(union(&posed.aabbs)));
    let unculled = render(gpu, "crowd_unculled", 256, &scene);
    assert!(
        kept < poses.len() && kept > 4,
        "culling kept {kept} of {}",
        poses.len()
    );
    // The shadow pass draws the characters in the light's frustum, culled or not in view, so
    // the frames are equal.
    let fraction = differing_fraction(&culled, &unculled, PIXEL_THRESHOLD);
    assert!(
        fraction <= SAME_SCENE_TOLERANCE,
        "{:.3}% of pixels differ",
        fraction * 100.0
    );
    // Shadows darken some pixels.
    let shadowed = differing_fraction(&unculled, &unculled_unshadowed, PIXEL_THRESHOLD);
    assert!(
        shadowed > 0.01,
        "shadows changed only {:.3}% of pixels",
        shadowed * 100.0
    );
}

/// The camera and light of the off-screen caster tests: looking down on the ground beside
/// x = 3, where the character stands; a low light from +x throws shadows about twice as long as
/// a character is tall toward -x, into the view.
fn offscreen_caster_view() -> (Camera, DirectionalLight) {
    let camera = Camera::look_at(
        Vec3::new(-0.5, 7.0, 0.5),
        Vec3::new(-0.5, 0.0, 0.0),
        Vec3::Y,
        0.5,
        1.0,
        0.1,
        20.0,
    );
    let light = DirectionalLight {
        direction: Vec3::new(-1.0, -0.5, 0.0).normalize(),
        ..DirectionalLight::default()
    };
    (camera, light)
}

/// The ground the off-screen caster tests' shadow map covers, at height `floor`: the view and
/// the character beside it.
fn offscreen_caster_ground(floor: f32) -> Aabb {
    Aabb {
        min: [-2.5, floor, -2.0, 0.0],
        max: [3.6, floor + 0.01, 2.0, 0.0],
    }
}

/// A character outside the camera's frustum but inside the light's casts its shadow into the
/// view: the shadow pass draws the light's list, not the camera's. Rendered with and without
/// the character, the frames differ exactly where its shadow falls on the ground (darker
/// there, nowhere else), and the culled frame equals the unculled one.
#[test]
fn a_character_outside_the_view_casts_its_shadow_into_it() {
    let Some(gpu) = gpu() else { return };
    let Some(rig) = humanoid() else { return };
    let clips = rig.clips.clip_count() as u32;
    // Turned broadside to the light.
    let world = Affine3A::from_rotation_translation(
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        Vec3::new(3.0, 0.0, 0.0),
    );
    let posed = pose(gpu, &rig, &[(1 % clips, 0.3, world)]);
    let caster = posed.aabbs[0];
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let (camera, light) = offscreen_caster_view();
    let floor = caster.min[1];
    let ground_box = offscreen_caster_ground(floor);
    let ground = StaticMesh::ground_plane(
        gpu.device(),
        gpu.queue(),
        &gpu.renderer,
        Vec3::new(0.5, floor, 0.0),
        4.0,
        [0.6, 0.6, 0.58],
    )
    .unwrap();
    let statics = [&ground];
    let batches = [&batch];
    let with = Scene {
        light,
        shadow: Some(ShadowSettings::covering(union(&[caster, ground_box]))),
        skinned: &batches,
        statics: &statics,
        ..Scene::new(camera)
    };
    let frusta = CullFrusta::of(&with);
    assert!(!aabb_in_frustum(&frusta.camera, &caster));
    assert!(aabb_in_frustum(&frusta.light.unwrap(), &caster));

    let size = 256;
    let shadowed = render(gpu, "offscreen_caster", size, &with);
    assert!(
        batch
            .read_visible(gpu.device(), gpu.queue())
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        batch.read_light_visible(gpu.device(), gpu.queue()).unwrap(),
        [0]
    );
    let bare = render(
        gpu,
        "offscreen_caster_absent",
        size,
        &Scene {
            skinned: &[],
            ..with
        },
    );
    let unculled = render(
        gpu,
        "offscreen_caster_unculled",
        size,
        &Scene {
            cull: false,
            ..with
        },
    );

    // Where the shadow falls: the box's corners cast along the light onto the ground.
    let d = light.direction;
    let mut footprint = Aabb::EMPTY;
    for k in 0..8 {
        let c = Vec3::new(
            if k & 1 == 0 {
                caster.min[0]
            } else {
                caster.max[0]
            },
            if k & 2 == 0 {
                caster.min[1]
            } else {
                caster.max[1]
            },
            if k & 4 == 0 {
                caster.min[2]
            } else {
                caster.max[2]
            },
        );
        let on_ground = c + d * ((c.y - floor) / -d.y);
        footprint.merge(&box_around(on_ground, Vec3::ZERO));
    }
    let (x0, y0, x1, y1) = screen_rect(&camera, &footprint, size);
    let margin = 3.0;
    let mut darker = 0;
    for (k, (a, b)) in shadowed
        .pixels
        .chunks_exact(4)
        .zip(bare.pixels.chunks_exact(4))
        .enumerate()
    {
        if !a
            .iter()
            .zip(b)
            .any(|(x, y)| x.abs_diff(*y) > PIXEL_THRESHOLD)
        {
            continue;
        }
        let (x, y) = (
            (k as u32 % size) as f32 + 0.5,
            (k as u32 / size) as f32 + 0.5,
        );
        assert!(
            x >= x0 - margin && x <= x1 + margin && y >= y0 - margin && y <= y1 + margin,
            "pixel ({x}, {y}) changed outside the shadow's footprint ({x0}, {y0})..({x1}, {y1})"
        );
        assert!(
            a.iter().zip(b).take(3).all(|(x, y)| x <= y),
            "pixel ({x}, {y}) is lighter with the caster: {a:?} against {b:?}"
        );
        darker += 1;
    }
    let fraction = f64::from(darker) / f64::from(size * size);
    assert!(
        fraction > 0.005,
        "the off-screen character's shadow darkened only {:.3}% of pixels",
        fraction * 100.0
    );
    let fraction = differing_fraction(&shadowed, &unculled, PIXEL_THRESHOLD);
    assert!(
        fraction <= SAME_SCENE_TOLERANCE,
        "{:.3}% of pixels differ between the culled and the unculled frame",
        fraction * 100.0
    );
}

// ---------------------------------------------------------------------------------------------
// Skinning: pre-skinned against CPU, dual quaternion against linear.

/// Pre-skins `posed` with `mode` and compares every vertex of every instance and mesh with the
/// CPU twin. Returns the pre-skinned vertices per mesh.
fn check_preskin(
    gpu: &Gpu,
    meshes: &[SkinnedMesh],
    joints: usize,
    posed: &Posed,
    mode: SkinningMode,
) -> Vec<Vec<sinew::render::StaticVertex>> {
    check_preskin_on(gpu, &gpu.renderer, meshes, joints, posed, mode)
}

/// [`check_preskin`] with `renderer`.
fn check_preskin_on(
    gpu: &Gpu,
    renderer: &Renderer,
    meshes: &[SkinnedMesh],
    joints: usize,
    posed: &Posed,
    mode: SkinningMode,
) -> Vec<Vec<sinew::render::StaticVertex>> {
    let batch = batch_on(gpu, renderer, meshes, posed, true);
    let batches = [&batch];
    let scene = Scene {
        skinned: &batches,
        preskin: true,
        skinning: mode,
        cull: false,
        ..Scene::new(camera_for(&union(&posed.aabbs)))
    };
    let target = RenderTarget::new(gpu.device(), renderer, 32, 32, 16).unwrap();
    renderer
        .render(gpu.device(), gpu.queue(), &target, &scene)
        .unwrap();
    let mut out = Vec::new();
    for (m, mesh) in meshes.iter().enumerate() {
        let skinned = batch.read_preskinned(gpu.device(), gpu.queue(), m).unwrap();
        let n = mesh.vertex_count();
        assert_eq!(skinned.len(), n * posed.instances.len());
        let normals =
            sinew::render::normals_or_smooth(&mesh.positions, &mesh.normals, &mesh.indices);
        for (i, inst) in posed.instances.iter().enumerate() {
            // Joint entries, then (for a rig with morph targets) the weights.
            let block = &posed.palette[inst.palette_offset as usize..];
            for (v, got) in skinned[i * n..][..n].iter().enumerate() {
                let (position, normal) = morph_vertex(
                    mesh,
                    v,
                    block,
                    joints,
                    Vec3::from(mesh.positions[v]),
                    Vec3::from(normals[v]),
                );
                let expected = skin_vertex(
                    mode,
                    &block[..joints],
                    mesh.joints[v],
                    mesh.weights[v],
                    position,
                    normal,
                );
                for (what, a, b) in [
                    ("position", Vec3::from(got.position), expected.position),
                    ("normal", Vec3::from(got.normal), expected.normal),
                ] {
                    for (x, y) in a.to_array().into_iter().zip(b.to_array()) {
                        assert!(
                            (x - y).abs() <= common::SKIN_TOLERANCE * y.abs().max(1.0),
                            "{mode:?} mesh {m} instance {i} vertex {v} {what}: GPU {a}, CPU {b}, \
                             difference {}",
                            (a - b).abs()
                        );
                    }
                }
            }
        }
        out.push(skinned);
    }
    out
}

fn three_poses(rig: &Rig) -> Vec<(u32, f32, Affine3A)> {
    let clips = rig.clips.clip_count() as u32;
    vec![
        (0, 0.2, Affine3A::IDENTITY),
        (
            1 % clips,
            0.45,
            Affine3A::from_rotation_translation(
                Quat::from_rotation_y(1.2),
                Vec3::new(2.0, 0.0, -1.0),
            ),
        ),
        (
            (clips - 1),
            0.8,
            Affine3A::from_scale_rotation_translation(
                Vec3::splat(1.5),
                Quat::from_rotation_x(0.3),
                Vec3::new(-1.0, 0.5, 0.0),
            ),
        ),
    ]
}

#[test]
fn preskinned_vertices_equal_cpu_skinning() {
    let Some(gpu) = gpu() else { return };
    let mut rigs: Vec<Rig> = humanoid().into_iter().collect();
    rigs.extend(fox());
    if rigs.is_empty() {
        return;
    }
    for rig in &rigs {
        let posed = pose(gpu, rig, &three_poses(rig));
        check_preskin(
            gpu,
            &rig.meshes,
            rig.joint_count(),
            &posed,
            SkinningMode::Linear,
        );
        check_preskin(
            gpu,
            &rig.meshes,
            rig.joint_count(),
            &posed,
            SkinningMode::DualQuaternion,
        );
    }
}

#[test]
fn preskin_leaves_zero_weight_and_out_of_range_vertices_in_bind_pose() {
    let Some(gpu) = gpu() else { return };
    let mut mesh = triangle_mesh();
    mesh.positions.push([0.3, 0.2, 0.1]);
    mesh.normals.push([0.0, 1.0, 0.0]);
    mesh.uvs.push([0.0; 2]);
    mesh.joints = [[0, 0, 0, 0], [1, 0, 0, 0], [9, 9, 0, 0], [0, 1, 0, 0]]
        .map(common::eight)
        .to_vec();
    mesh.weights = [
        [0.0; 4],
        [0.5, 0.5, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
        [0.25, 0.75, 0.0, 0.0],
    ]
    .map(common::eight)
    .to_vec();
    mesh.indices = vec![0, 1, 2, 1, 3, 2];
    let palette = [
        Mat3x4Rows::from_affine(&Affine3A::from_rotation_translation(
            Quat::from_rotation_z(0.5),
            Vec3::new(1.0, 2.0, 3.0),
        )),
        Mat3x4Rows::from_affine(&Affine3A::from_rotation_translation(
            Quat::from_rotation_x(-0.8),
            Vec3::new(-1.0, 0.0, 0.5),
        )),
    ];
    let palette_buffer = sinew::render::create_palette_buffer(gpu.device(), 2).unwrap();
    sinew::render::write_palette(gpu.device(), gpu.queue(), &palette_buffer, 0, &palette).unwrap();
    let aabb_buffer = sinew::render::create_aabb_buffer(gpu.device(), 1).unwrap();
    let posed = Posed {
        palette: palette.to_vec(),
        aabbs: vec![Aabb {
            min: [-2.0, -2.0, -2.0, 0.0],
            max: [2.0, 2.0, 2.0, 0.0],
        }],
        palette_buffer,
        aabb_buffer,
        instances: vec![SkinnedInstance::new(0, 2, 0, [1.0; 3])],
    };
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let skinned = check_preskin(gpu, std::slice::from_ref(&mesh), 2, &posed, mode);
        assert_eq!(
            skinned[0][0].position,
            [0.0, 0.0, 0.0],
            "zero weights: bind pose"
        );
    }
}

#[test]
fn dual_quaternion_and_linear_skinning_agree_on_an_unscaled_pose() {
    let Some(gpu) = gpu() else { return };
    let Some(rig) = humanoid() else { return };
    let walk = rig.clips.find_clip("walk").unwrap_or(0) as u32;
    let posed = pose(gpu, &rig, &[(walk, 0.3, Affine3A::from_rotation_y(0.4))]);
    for (j, m) in posed.palette.iter().enumerate() {
        let a = m.to_affine().matrix3;
        for c in [a.x_axis, a.y_axis, a.z_axis] {
            assert!(
                (c.length() - 1.0).abs() < 1e-4,
                "joint {j} is scaled: {m:?}"
            );
        }
    }
    let joints = rig.joint_count();
    let linear = check_preskin(gpu, &rig.meshes, joints, &posed, SkinningMode::Linear);
    let dual = check_preskin(
        gpu,
        &rig.meshes,
        joints,
        &posed,
        SkinningMode::DualQuaternion,
    );
    let (_, radius) = bounding_sphere(&posed.aabbs[0]);
    let mut worst: f32 = 0.0;
    for (m, mesh) in rig.meshes.iter().enumerate() {
        for (v, ((l, q), weights)) in linear[m]
            .iter()
            .zip(&dual[m])
            .zip(&mesh.weights)
            .enumerate()
        {
            let d = Vec3::from(l.position).distance(Vec3::from(q.position));
            worst = worst.max(d);
            let rigid = weights.iter().any(|&w| w >= 0.9999);
            if rigid {
                assert!(
                    d <= 1e-4 * radius.max(1.0),
                    "rigid vertex {v} differs by {d}"
                );
            }
            assert!(
                d <= 0.03 * radius,
                "vertex {v} differs by {d} (radius {radius})"
            );
        }
    }
    eprintln!("dual quaternion vs linear: largest vertex difference {worst} (radius {radius})");

    // And the images agree closely.
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let batches = [&batch];
    let mut scene = Scene {
        skinned: &batches,
        ..Scene::new(camera_for(&posed.aabbs[0]))
    };
    let lbs = render(gpu, "humanoid_linear", 192, &scene);
    scene.skinning = SkinningMode::DualQuaternion;
    let dq = render(gpu, "humanoid_dual_quaternion", 192, &scene);
    let fraction = differing_fraction(&lbs, &dq, PIXEL_THRESHOLD);
    assert!(
        fraction <= 0.03,
        "{:.3}% of pixels differ",
        fraction * 100.0
    );
}

#[test]
fn preskinned_render_equals_in_shader_render() {
    let Some(gpu) = gpu() else { return };
    let Some(rig) = humanoid() else { return };
    let posed = pose(gpu, &rig, &three_poses(&rig));
    let batch = batch(gpu, &rig.meshes, &posed, true);
    let batches = [&batch];
    let all = union(&posed.aabbs);
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let mut scene = Scene {
            skinned: &batches,
            skinning: mode,
            shadow: Some(ShadowSettings::covering(all)),
            light: DirectionalLight::default(),
            ..Scene::new(camera_for(&all))
        };
        let in_shader = render(gpu, &format!("three_in_shader_{mode:?}"), 192, &scene);
        scene.preskin = true;
        let preskinned = render(gpu, &format!("three_preskinned_{mode:?}"), 192, &scene);
        let fraction = differing_fraction(&in_shader, &preskinned, PIXEL_THRESHOLD);
        assert!(
            fraction <= SAME_SCENE_TOLERANCE,
            "{mode:?}: {:.3}% of pixels differ",
            fraction * 100.0
        );
    }
}

/// synthetic/influences.glb: 5 to 8 influences per vertex in mesh 0, the strongest 8 of 9 to
/// 12 in mesh 1.
fn influences_rig() -> Rig {
    let path = common::repo().join("assets/synthetic/influences.glb");
    sinew::bake_rigs(&sinew::import_file(path).unwrap())
        .unwrap()
        .remove(0)
}

#[test]
fn eight_influence_preskinned_vertices_equal_cpu_skinning() {
    let Some(gpu) = gpu() else { return };
    let rig = influences_rig();
    let posed = pose(gpu, &rig, &three_poses(&rig));
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        check_preskin(gpu, &rig.meshes, rig.joint_count(), &posed, mode);
    }
}

#[test]
fn eight_influence_in_shader_render_equals_preskinned_render() {
    let Some(gpu) = gpu() else { return };
    let rig = influences_rig();
    let posed = pose(gpu, &rig, &three_poses(&rig));
    let all = union(&posed.aabbs);
    // Influences 5-8 dropped: what a vertex pass that read only four slots would draw.
    let mut four = rig.meshes.clone();
    for mesh in &mut four {
        mesh.weights.iter_mut().for_each(|w| w[4..].fill(0.0));
    }
    let full = batch(gpu, &rig.meshes, &posed, true);
    let cut = batch(gpu, &four, &posed, false);
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let full_batches = [&full];
        let mut scene = Scene {
            skinned: &full_batches,
            skinning: mode,
            cull: false,
            ..Scene::new(camera_for(&all))
        };
        let in_shader = render(gpu, &format!("influences_in_shader_{mode:?}"), 128, &scene);
        scene.preskin = true;
        let preskinned = render(gpu, &format!("influences_preskinned_{mode:?}"), 128, &scene);
        let fraction = differing_fraction(&in_shader, &preskinned, PIXEL_THRESHOLD);
        assert!(
            fraction <= SAME_SCENE_TOLERANCE,
            "{mode:?}: {:.3}% of pixels differ",
            fraction * 100.0
        );
        let cut_batches = [&cut];
        let four_only = Scene {
            skinned: &cut_batches,
            preskin: false,
            ..scene
        };
        let four_only = render(gpu, &format!("influences_four_{mode:?}"), 128, &four_only);
        let fraction = differing_fraction(&in_shader, &four_only, PIXEL_THRESHOLD);
        assert!(
            fraction > 4.0 * SAME_SCENE_TOLERANCE,
            "{mode:?}: dropping influences 5-8 changes only {:.3}% of pixels",
            fraction * 100.0
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Bone overlay.

#[test]
fn bone_overlay_draws_lines_over_the_character() {
    let Some(gpu) = gpu() else { return };
    let Some(rig) = humanoid() else { return };
    let posed = pose(gpu, &rig, &[(0, 0.5, Affine3A::IDENTITY)]);
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let colour = [0.0, 1.0, 0.0];
    let overlay = BoneOverlay::new(
        gpu.device(),
        &gpu.renderer,
        &rig.skeleton,
        &posed.palette_buffer,
        0,
        colour,
    )
    .unwrap();
    assert_eq!(overlay.bone_count() as usize, rig.joint_count() - 1);
    let batches = [&batch];
    let overlays = [&overlay];
    let camera = camera_for(&posed.aabbs[0]);
    let scene = Scene {
        skinned: &batches,
        bones: &overlays,
        ..Scene::new(camera)
    };
    let size = 256;
    let image = render(gpu, "humanoid_bones", size, &scene);
    let (x0, y0, x1, y1) = screen_rect(&camera, &posed.aabbs[0], size);
    let mut green = 0;
    for y in 0..size {
        for x in 0..size {
            if image.pixel(x, y) == Some([0, 255, 0, 255]) {
                green += 1;
                assert!(
                    (x as f32) >= x0 - 1.0
                        && (x as f32) <= x1 + 1.0
                        && (y as f32) >= y0 - 1.0
                        && (y as f32) <= y1 + 1.0,
                    "bone pixel ({x}, {y}) outside the character's box"
                );
            }
        }
    }
    assert!(green > 200, "only {green} bone pixels");
}

// ---------------------------------------------------------------------------------------------
// Buffers larger than one storage binding: the paged renderer against one page.

/// Characters of the paged crowd: their palette (656 KB) spans ten [`PAGED_BINDING`] windows.
const PAGED_CROWD: usize = 240;

/// [`PAGED_CROWD`] humanoids in rows of 20, each with its own clip, phase and heading.
fn crowd_poses(rig: &Rig) -> Vec<(u32, f32, Affine3A)> {
    let clips = rig.clips.clip_count() as u32;
    (0..PAGED_CROWD)
        .map(|i| {
            let (row, column) = ((i / 20) as f32, (i % 20) as f32);
            let world = Affine3A::from_rotation_translation(
                Quat::from_rotation_y(0.37 * i as f32),
                Vec3::new(column * 1.2 - 11.4, 0.0, -row * 1.5),
            );
            (i as u32 % clips, (0.07 * i as f32) % 1.0, world)
        })
        .collect()
}

/// A camera on the middle of the front rows: the rest of the crowd lies beside the view and
/// beyond its far plane.
fn crowd_camera() -> Camera {
    Camera::look_at(
        Vec3::new(0.0, 2.5, 5.0),
        Vec3::new(0.0, 0.8, -3.0),
        Vec3::Y,
        0.9,
        1.0,
        0.1,
        14.0,
    )
}

/// The crowd evaluated by a GPU evaluator whose palette binding is [`PAGED_BINDING`] bytes (so
/// in windows, one dispatch each), with its palette and boxes read back.
static EVALUATED_CROWD: LazyLock<Option<(Rig, Posed)>> = LazyLock::new(|| {
    let gpu = gpu()?;
    let rig = humanoid()?;
    let joints = rig.joint_count();
    let options = GpuOptions {
        max_palette_binding: Some(PAGED_BINDING),
        ..GpuOptions::default()
    };
    let mut backend =
        GpuBackend::with_options(&gpu.context, std::slice::from_ref(&rig), &[], options).unwrap();
    let entries = (PAGED_CROWD * joints) as u32;
    backend.reserve_palette(entries).unwrap();
    backend
        .evaluate(&records(&rig, &crowd_poses(&rig)))
        .unwrap();
    assert!(
        backend.dispatches_last_frame() > 1,
        "the evaluator did not window a {entries}-entry palette"
    );
    let posed = Posed {
        palette: backend.read_palette(0..entries).unwrap(),
        aabbs: backend.read_bounds(0..PAGED_CROWD).unwrap(),
        palette_buffer: backend.palette_buffer().clone(),
        aabb_buffer: backend.bounds_buffer().clone(),
        instances: tinted_instances(PAGED_CROWD, joints, joints),
    };
    Some((rig, posed))
});

fn evaluated_crowd() -> Option<&'static (Rig, Posed)> {
    EVALUATED_CROWD.as_ref()
}

/// Renders `posed` with the paged renderer and with one page, culled and shadowed, in-shader
/// and (when `preskin`) pre-skinned; asserts the images agree and returns the paged in-shader
/// one.
fn check_paged_render(gpu: &Gpu, rig: &Rig, posed: &Posed, name: &str, preskin: bool) -> RgbaImage {
    assert!(posed.palette_buffer.size() > PAGED_BINDING);
    let paged = batch_on(gpu, &gpu.paged, &rig.meshes, posed, preskin);
    let whole = batch(gpu, &rig.meshes, posed, preskin);
    assert!(paged.page_count() >= 10, "{} pages", paged.page_count());
    assert_eq!(whole.page_count(), 1);
    let mut images = Vec::new();
    for preskinned in [false, preskin]
        .into_iter()
        .take(if preskin { 2 } else { 1 })
    {
        let mut shots = Vec::new();
        for (renderer, batch, which) in [
            (&gpu.paged, &paged, "paged"),
            (&gpu.renderer, &whole, "whole"),
        ] {
            let batches = [batch];
            let scene = Scene {
                skinned: &batches,
                shadow: Some(ShadowSettings::covering(union(&posed.aabbs))),
                preskin: preskinned,
                ..Scene::new(crowd_camera())
            };
            let file = format!(
                "{name}_{which}{}",
                if preskinned { "_preskinned" } else { "" }
            );
            shots.push(render_on(gpu, renderer, &file, 256, &scene));
            let kept = batch.read_visible(gpu.device(), gpu.queue()).unwrap().len();
            assert!(
                kept > 10 && kept < PAGED_CROWD / 2,
                "{which}: culling kept {kept}"
            );
        }
        let fraction = differing_fraction(&shots[0], &shots[1], PIXEL_THRESHOLD);
        assert!(
            fraction <= SAME_SCENE_TOLERANCE,
            "{name} (pre-skinned: {preskinned}): {:.3}% of pixels differ between the paged and \
             the one-page render",
            fraction * 100.0
        );
        images.push(shots.swap_remove(0));
    }
    let mut colours = std::collections::HashSet::new();
    for px in images[0].pixels.chunks_exact(4) {
        colours.insert([px[0] >> 3, px[1] >> 3, px[2] >> 3]);
    }
    assert!(colours.len() > 50, "only {} colours", colours.len());
    images.swap_remove(0)
}

/// The evaluated crowd, culled on the GPU page by page, keeps exactly the characters whose
/// evaluated boxes pass the CPU frustum test, on both sides of palette window boundaries: for
/// the camera, and for the light of a shadow map over the characters in view (which keeps
/// those beside the view too).
#[test]
fn paged_culling_of_an_evaluated_crowd_keeps_what_the_cpu_frustum_test_keeps() {
    let Some(gpu) = gpu() else { return };
    let Some((rig, posed)) = evaluated_crowd() else {
        return;
    };
    let camera = crowd_camera();
    let planes = camera.frustum_planes();
    let in_view: Vec<Aabb> = posed
        .aabbs
        .iter()
        .filter(|b| aabb_in_frustum(&planes, b))
        .copied()
        .collect();
    let batch = batch_on(gpu, &gpu.paged, &rig.meshes, posed, false);
    assert!(batch.page_count() >= 10, "{} pages", batch.page_count());
    let batches = [&batch];
    let target = RenderTarget::new(gpu.device(), &gpu.paged, 32, 32, 16).unwrap();
    let scene = Scene {
        skinned: &batches,
        shadow: Some(ShadowSettings::covering(union(&in_view))),
        ..Scene::new(camera)
    };
    let light_planes = sinew::render::frustum_planes(&scene.light_view_projection().unwrap());
    gpu.paged
        .render(gpu.device(), gpu.queue(), &target, &scene)
        .unwrap();
    let boundary = (PAGED_BINDING / sinew::render::PALETTE_ENTRY_SIZE) as usize / rig.joint_count();
    let mut lists = Vec::new();
    for (name, planes) in [("camera", &planes), ("light", &light_planes)] {
        let (mut visible, args) = match name {
            "camera" => (
                batch.read_visible(gpu.device(), gpu.queue()).unwrap(),
                batch.read_draw_args(gpu.device(), gpu.queue()).unwrap(),
            ),
            _ => (
                batch.read_light_visible(gpu.device(), gpu.queue()).unwrap(),
                batch
                    .read_light_draw_args(gpu.device(), gpu.queue())
                    .unwrap(),
            ),
        };
        visible.sort_unstable();
        let expected: Vec<u32> = (0..PAGED_CROWD as u32)
            .filter(|&i| aabb_in_frustum(planes, &posed.aabbs[i as usize]))
            .collect();
        assert_eq!(
            visible, expected,
            "{name}: GPU culling (left) against the CPU frustum test"
        );
        // The first palette window ends inside instance 23's block.
        assert!(
            visible.iter().any(|&i| (i as usize) < boundary)
                && visible.iter().any(|&i| i as usize > boundary + 1),
            "{name}: kept {visible:?}: none on one side of instance {boundary}"
        );
        for a in args {
            assert_eq!(a.instance_count as usize, visible.len());
        }
        lists.push(visible);
    }
    let (camera_list, light_list) = (&lists[0], &lists[1]);
    assert!(
        camera_list.iter().all(|i| light_list.contains(i))
            && light_list.len() > camera_list.len()
            && light_list.len() < PAGED_CROWD,
        "{} in view, {} of {PAGED_CROWD} in the light's frustum",
        camera_list.len(),
        light_list.len()
    );
}

/// The evaluated crowd drawn in pages (in-shader and pre-skinned, with shadows) looks like the
/// same crowd drawn as one page.
#[test]
fn paged_crowd_renders_like_one_page() {
    let Some(gpu) = gpu() else { return };
    let Some((rig, posed)) = evaluated_crowd() else {
        return;
    };
    check_paged_render(gpu, rig, posed, "crowd_evaluated", true);
}

/// The first 300 vertices of the humanoid's mesh (and the triangles among them): small enough
/// that a page of the paged renderer pre-skins several characters.
fn trimmed_mesh(mesh: &SkinnedMesh) -> SkinnedMesh {
    let keep = 300;
    let mut trimmed = mesh.clone();
    trimmed.positions.truncate(keep);
    trimmed.normals.truncate(keep);
    trimmed.uvs.truncate(keep);
    trimmed.joints.truncate(keep);
    trimmed.weights.truncate(keep);
    trimmed.tangents = None;
    trimmed.indices = mesh
        .indices
        .chunks_exact(3)
        .filter(|t| t.iter().all(|&i| (i as usize) < keep))
        .flatten()
        .copied()
        .collect();
    trimmed
}

/// Pre-skinning in pages (whose palette windows start all over the palette) writes what CPU
/// skinning computes from the evaluated palette.
#[test]
fn paged_preskinned_vertices_equal_cpu_skinning() {
    let Some(gpu) = gpu() else { return };
    let Some((rig, posed)) = evaluated_crowd() else {
        return;
    };
    let meshes = [trimmed_mesh(&rig.meshes[0])];
    assert!(!meshes[0].indices.is_empty());
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        check_preskin_on(gpu, &gpu.paged, &meshes, rig.joint_count(), posed, mode);
    }
}

/// Bone overlays of characters whose palette blocks lie past the first window (one of them
/// across its end) draw as with one window.
#[test]
fn bone_overlays_across_palette_windows_draw_like_one_window() {
    let Some(gpu) = gpu() else { return };
    let Some((rig, posed)) = evaluated_crowd() else {
        return;
    };
    let joints = rig.joint_count();
    let boundary = (PAGED_BINDING / sinew::render::PALETTE_ENTRY_SIZE) as usize / joints;
    let characters = [9, boundary, 29, 49, 70, 110];
    let mut shots = Vec::new();
    for (renderer, which) in [(&gpu.paged, "paged"), (&gpu.renderer, "whole")] {
        let overlays: Vec<BoneOverlay> = characters
            .iter()
            .map(|&i| {
                BoneOverlay::new(
                    gpu.device(),
                    renderer,
                    &rig.skeleton,
                    &posed.palette_buffer,
                    (i * joints) as u32,
                    [0.0, 1.0, 0.0],
                )
                .unwrap()
            })
            .collect();
        let overlays: Vec<&BoneOverlay> = overlays.iter().collect();
        let scene = Scene {
            bones: &overlays,
            clear_color: wgpu::Color::BLACK,
            ..Scene::new(crowd_camera())
        };
        shots.push(render_on(
            gpu,
            renderer,
            &format!("crowd_bones_{which}"),
            256,
            &scene,
        ));
    }
    assert_eq!(
        shots[0].pixels, shots[1].pixels,
        "paged and one-window overlays differ"
    );
    let green = shots[0]
        .pixels
        .chunks_exact(4)
        .filter(|p| p[..3] == [0, 255, 0])
        .count();
    assert!(green > 500, "only {green} bone pixels");
}

/// The CPU evaluator's palette, uploaded with `write_palette` into a buffer larger than the
/// binding limit, renders in pages like one page, and like the GPU evaluator's.
#[test]
fn cpu_palette_beyond_one_binding_renders_like_one_page() {
    let Some(gpu) = gpu() else { return };
    let Some(rig) = humanoid() else { return };
    let posed = pose(gpu, &rig, &crowd_poses(&rig));
    let cpu = check_paged_render(gpu, &rig, &posed, "crowd_cpu", false);
    if let Some((_, evaluated)) = evaluated_crowd() {
        let gpu_image = check_paged_render(gpu, &rig, evaluated, "crowd_evaluated_again", false);
        let fraction = differing_fraction(&cpu, &gpu_image, PIXEL_THRESHOLD);
        assert!(
            fraction <= SAME_SCENE_TOLERANCE,
            "{:.3}% of pixels differ between the CPU and the GPU evaluator's crowd",
            fraction * 100.0
        );
    }
}

/// Binding limits are typed errors naming the limit, never wgpu validation errors.
#[test]
fn binding_limits_are_typed_errors() {
    let Some(gpu) = gpu() else { return };
    let limit = |e: &RenderError| match e {
        RenderError::LimitExceeded { limit, .. } => *limit,
        other => panic!("not a limit error: {other}"),
    };
    // A binding too small for the largest palette block.
    let tiny = RendererOptions {
        max_binding: Some(4096),
    };
    let err = Renderer::with_options(gpu.device(), tiny).unwrap_err();
    assert_eq!(limit(&err), "max_storage_buffer_binding_size", "{err}");
    let mut device_limits = gpu.device().limits();
    device_limits.max_storage_buffer_binding_size = 4096;
    let err = sinew::render::palette_windows(&device_limits, 1000).unwrap_err();
    assert_eq!(limit(&err), "max_storage_buffer_binding_size", "{err}");

    // One instance's pre-skinned vertices larger than a binding.
    let mut big = triangle_mesh();
    let n = (PAGED_BINDING / 24 + 1) as usize;
    big.positions.resize(n, [0.0; 3]);
    big.normals.resize(n, [0.0, 0.0, 1.0]);
    big.uvs.resize(n, [0.0; 2]);
    big.joints.resize(n, [0; 8]);
    big.weights.resize(n, common::eight([1.0, 0.0, 0.0, 0.0]));
    let palette = sinew::render::create_palette_buffer(gpu.device(), 300).unwrap();
    let aabbs = sinew::render::create_aabb_buffer(gpu.device(), 2).unwrap();
    let desc = SkinnedBatchDesc {
        label: "limits",
        meshes: std::slice::from_ref(&big),
        mesh_colors: &[],
        capacity: 2,
        palette: &palette,
        aabbs: &aabbs,
        preskin: true,
    };
    let err = SkinnedBatch::new(gpu.device(), &gpu.paged, &desc).unwrap_err();
    assert_eq!(limit(&err), "max_storage_buffer_binding_size", "{err}");
    assert!(
        err.to_string().contains("max_storage_buffer_binding_size"),
        "{err}"
    );

    // A palette buffer beyond max_buffer_size.
    let entries = gpu.device().limits().max_buffer_size / 48 + 1;
    let err = sinew::render::create_palette_buffer(gpu.device(), entries as usize).unwrap_err();
    assert_eq!(limit(&err), "max_buffer_size", "{err}");

    // Blocks and boxes past their buffers.
    let good = [triangle_mesh()];
    let mut batch = SkinnedBatch::new(
        gpu.device(),
        &gpu.paged,
        &SkinnedBatchDesc {
            meshes: &good,
            preskin: false,
            ..desc
        },
    )
    .unwrap();
    for bad in [
        SkinnedInstance::new(290, 57, 0, [1.0; 3]),
        SkinnedInstance::new(0, 57, 2, [1.0; 3]),
    ] {
        let err = batch.write_instances(gpu.queue(), &[bad]).unwrap_err();
        assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");
    }
    batch
        .write_instances(gpu.queue(), &[SkinnedInstance::new(243, 57, 1, [1.0; 3])])
        .unwrap();
    assert_eq!(batch.page_count(), 1);
    let err = BoneOverlay::new(
        gpu.device(),
        &gpu.paged,
        &humanoid().unwrap().skeleton,
        &palette,
        250,
        [1.0; 3],
    )
    .unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");

    // Host palette windows: unaligned or past the buffer.
    let layout =
        sinew::render::create_palette_bind_group_layout(gpu.device(), wgpu::ShaderStages::VERTEX)
            .unwrap();
    for window in [
        PaletteWindow {
            first_entry: 1,
            entries: 10,
        },
        PaletteWindow {
            first_entry: 0,
            entries: 301,
        },
    ] {
        let err = sinew::render::create_palette_window_bind_group(
            gpu.device(),
            &layout,
            &palette,
            &window,
        )
        .unwrap_err();
        assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");
    }
    sinew::render::create_palette_bind_group(gpu.device(), &layout, &palette).unwrap();
}

// ---------------------------------------------------------------------------------------------
// Errors.

#[test]
fn invalid_inputs_are_typed_errors() {
    let Some(gpu) = gpu() else { return };
    let palette = sinew::render::create_palette_buffer(gpu.device(), 1).unwrap();
    let aabbs = sinew::render::create_aabb_buffer(gpu.device(), 1).unwrap();
    let mut bad = triangle_mesh();
    bad.indices = vec![0, 1, 7];
    let desc = SkinnedBatchDesc {
        label: "bad",
        meshes: std::slice::from_ref(&bad),
        mesh_colors: &[],
        capacity: 1,
        palette: &palette,
        aabbs: &aabbs,
        preskin: false,
    };
    let err = SkinnedBatch::new(gpu.device(), &gpu.renderer, &desc).unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");
    assert!(err.to_string().contains("index 7"), "{err}");

    let good = [triangle_mesh()];
    let mut batch = SkinnedBatch::new(
        gpu.device(),
        &gpu.renderer,
        &SkinnedBatchDesc {
            meshes: &good,
            ..desc
        },
    )
    .unwrap();
    let two = [SkinnedInstance::new(0, 1, 0, [1.0; 3]); 2];
    let err = batch.write_instances(gpu.queue(), &two).unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");

    // Drawing pre-skinned without pre-skin buffers.
    batch.write_instances(gpu.queue(), &two[..1]).unwrap();
    let batches = [&batch];
    let target = RenderTarget::new(gpu.device(), &gpu.renderer, 16, 16, 16).unwrap();
    let camera = Camera::look_at(Vec3::Z, Vec3::ZERO, Vec3::Y, 1.0, 1.0, 0.1, 10.0);
    let scene = Scene {
        skinned: &batches,
        preskin: true,
        ..Scene::new(camera)
    };
    let err = gpu
        .renderer
        .render(gpu.device(), gpu.queue(), &target, &scene)
        .unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");

    // A palette write past the end of its buffer.
    let err = sinew::render::write_palette(
        gpu.device(),
        gpu.queue(),
        &palette,
        1,
        &[Mat3x4Rows::IDENTITY],
    )
    .unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");

    // A zero-sized target.
    let err = RenderTarget::new(gpu.device(), &gpu.renderer, 0, 16, 16).unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");
}

/// What wgpu rejects in the host calls comes back as an error, not as a panic in wgpu's
/// uncaptured-error handler.
#[test]
fn wgpu_rejections_of_host_calls_are_typed_errors() {
    let Some(gpu) = gpu() else { return };
    let device = gpu.device();
    // Visibility bits of no shader stage.
    let err = sinew::render::create_palette_bind_group_layout(
        device,
        wgpu::ShaderStages::from_bits_retain(1 << 30),
    )
    .unwrap_err();
    assert!(matches!(err, RenderError::Validation(_)), "{err}");

    // A palette bind group over a buffer that is no storage buffer.
    let layout =
        sinew::render::create_palette_bind_group_layout(device, wgpu::ShaderStages::VERTEX)
            .unwrap();
    let uniform = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("not a palette"),
        size: 10 * 48,
        usage: wgpu::BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    let err = sinew::render::create_palette_bind_group(device, &layout, &uniform).unwrap_err();
    assert!(matches!(err, RenderError::Validation(_)), "{err}");

    // A palette write into a buffer that cannot be written to.
    let err = sinew::render::write_palette(
        gpu.device(),
        gpu.queue(),
        &uniform,
        0,
        &[Mat3x4Rows::IDENTITY; 2],
    )
    .unwrap_err();
    assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");
    assert!(err.to_string().contains("COPY_DST"), "{err}");

    // A palette write into a destroyed buffer: wgpu's rejection, inside the device's scopes.
    let destroyed = sinew::render::create_palette_buffer(device, 4).unwrap();
    destroyed.destroy();
    let err =
        sinew::render::write_palette(device, gpu.queue(), &destroyed, 0, &[Mat3x4Rows::IDENTITY])
            .unwrap_err();
    assert!(matches!(err, RenderError::Validation(_)), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Device loss.

/// A GPU evaluator and a renderer on a device made for one test.
struct Engine {
    context: GpuContext,
    backend: GpuBackend,
    renderer: Renderer,
}

fn engine(rig: &Rig) -> Option<Engine> {
    let context = common::headless_gpu("device loss")?;
    let backend = GpuBackend::new(&context, std::slice::from_ref(rig), &[]).unwrap();
    let renderer = Renderer::new(&context.device).unwrap();
    Some(Engine {
        context,
        backend,
        renderer,
    })
}

impl Engine {
    /// A batch of `count` characters drawing from the evaluator's palette and boxes, and a
    /// target.
    fn scene_parts(&self, rig: &Rig, count: usize) -> (SkinnedBatch, RenderTarget) {
        let device = &self.context.device;
        let mut batch = SkinnedBatch::new(
            device,
            &self.renderer,
            &SkinnedBatchDesc {
                label: "device loss",
                meshes: &rig.meshes,
                mesh_colors: &[],
                capacity: count as u32,
                palette: self.backend.palette_buffer(),
                aabbs: self.backend.bounds_buffer(),
                preskin: false,
            },
        )
        .unwrap();
        batch
            .write_instances(
                &self.context.queue,
                &tinted_instances(count, rig.palette_entries(), rig.joint_count()),
            )
            .unwrap();
        let target = RenderTarget::new(device, &self.renderer, 64, 64, 64).unwrap();
        (batch, target)
    }

    fn render(&self, batch: &SkinnedBatch, target: &RenderTarget) -> Result<(), RenderError> {
        let batches = [batch];
        let camera = Camera::look_at(
            Vec3::new(0.0, 1.0, 6.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::Y,
            0.9,
            1.0,
            0.1,
            20.0,
        );
        let scene = Scene {
            skinned: &batches,
            ..Scene::new(camera)
        };
        let ctx = &self.context;
        self.renderer
            .render(&ctx.device, &ctx.queue, target, &scene)
    }
}

/// After `Device::destroy`, evaluation, read-backs and rendering return `DeviceLost` (nothing is
/// submitted, nothing panics); an engine rebuilt on a new device in the same process evaluates
/// the same palette, bit for bit, and renders it.
#[test]
fn a_lost_device_is_an_error_and_a_rebuilt_engine_gives_the_same_palette() {
    let Some(rig) = humanoid() else { return };
    let Some(mut lost) = engine(&rig) else { return };
    let records = records(&rig, &three_poses(&rig));
    let entries = (records.len() * rig.joint_count()) as u32;
    lost.backend.evaluate(&records).unwrap();
    let before = lost.backend.read_palette(0..entries).unwrap();
    let (batch, target) = lost.scene_parts(&rig, records.len());

    lost.context.device.destroy();
    let expect_lost = |r: Result<(), GpuError>, what: &str| {
        assert!(
            matches!(r, Err(GpuError::DeviceLost { .. })),
            "{what} on a destroyed device: {r:?}"
        );
    };
    let backend = &mut lost.backend;
    expect_lost(backend.read_palette(0..entries).map(drop), "read_palette");
    expect_lost(
        backend.read_bounds(0..records.len()).map(drop),
        "read_bounds",
    );
    expect_lost(
        backend.read_instances(&records, &[1]).map(drop),
        "read_instances",
    );
    expect_lost(
        backend.read_worlds_async(&[0]).map(drop),
        "read_worlds_async",
    );
    expect_lost(backend.wait(), "wait");
    expect_lost(backend.reserve_palette(4 * entries), "reserve_palette");
    expect_lost(backend.evaluate(&records), "evaluate");
    expect_lost(backend.evaluate_resident(0.5), "evaluate_resident");
    let rigs = std::slice::from_ref(&rig);
    expect_lost(
        GpuBackend::new(&lost.context, rigs, &[]).map(drop),
        "GpuBackend::new",
    );
    let expect_render_lost = |r: Result<(), RenderError>, what: &str| {
        assert!(
            matches!(r, Err(RenderError::DeviceLost { .. })),
            "{what} on a destroyed device: {r:?}"
        );
    };
    expect_render_lost(lost.render(&batch, &target), "render");
    let ctx = &lost.context;
    let read = target.read_rgba8(&ctx.device, &ctx.queue);
    assert!(read.is_err(), "read_rgba8 on a destroyed device");
    assert_eq!(ctx.device_loss().reason(), Some("destroyed"));
    let err = lost.backend.evaluate(&records).unwrap_err();
    assert!(err.to_string().contains("destroyed"), "{err}");

    let Some(mut again) = engine(&rig) else {
        return;
    };
    again.backend.evaluate(&records).unwrap();
    let after = again.backend.read_palette(0..entries).unwrap();
    let bits = |p: &[Mat3x4Rows]| -> Vec<[[u32; 4]; 3]> {
        p.iter()
            .map(|m| m.rows.map(|r| r.map(f32::to_bits)))
            .collect()
    };
    assert!(
        bits(&before) == bits(&after),
        "the rebuilt engine's palette differs"
    );
    let (batch, target) = again.scene_parts(&rig, records.len());
    again.render(&batch, &target).unwrap();
    let image = target
        .read_rgba8(&again.context.device, &again.context.queue)
        .unwrap();
    let corner = &image.pixels[..4];
    let drawn = image
        .pixels
        .chunks_exact(4)
        .filter(|px| *px != corner)
        .count();
    assert!(drawn > 50, "the rebuilt renderer drew {drawn} pixels");
}

// ---------------------------------------------------------------------------------------------
// The main job: `sinew crowd`.

/// Runs `sinew crowd --json` with `args` and returns its report.
fn crowd_json(args: &[&str]) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .arg("crowd")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sinew crowd {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

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
    let out = common::repo().join("target/render-tests/crowd-scale.png");
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

// ---------------------------------------------------------------------------------------------
// `sinew render`.

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

// ---------------------------------------------------------------------------------------------
// Morph targets.

fn morph_rig() -> Rig {
    let path = common::repo().join("assets/synthetic/morph.glb");
    sinew::bake_rigs(&sinew::import_file(&path).unwrap())
        .unwrap()
        .remove(0)
}

/// The vertex stage morphs like pre-skinning does (which is checked against the CPU twins
/// below), and the morph targets change the picture.
#[test]
fn in_shader_morphing_draws_like_preskinned_morphing() {
    let Some(gpu) = gpu() else { return };
    let rig = morph_rig();
    let poses = [
        (0, 0.5, Affine3A::IDENTITY),
        (2, 0.9, Affine3A::from_translation(Vec3::new(1.2, 0.0, 0.0))),
        (
            1,
            0.5,
            Affine3A::from_rotation_translation(Quat::from_rotation_y(0.8), Vec3::X * -1.2),
        ),
    ];
    let posed = pose(gpu, &rig, &poses);
    let morphed = batch(gpu, &rig.meshes, &posed, true);
    let all = union(&posed.aabbs);
    let mut images = Vec::new();
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let batches = [&morphed];
        let mut scene = Scene {
            skinned: &batches,
            skinning: mode,
            shadow: Some(ShadowSettings::covering(all)),
            light: DirectionalLight::default(),
            ..Scene::new(camera_for(&all))
        };
        let in_shader = render(gpu, &format!("morph_in_shader_{mode:?}"), 192, &scene);
        scene.preskin = true;
        let preskinned = render(gpu, &format!("morph_preskinned_{mode:?}"), 192, &scene);
        let fraction = differing_fraction(&in_shader, &preskinned, PIXEL_THRESHOLD);
        assert!(
            fraction <= SAME_SCENE_TOLERANCE,
            "{mode:?}: {:.3}% of pixels differ",
            fraction * 100.0
        );
        images.push(in_shader);
    }
    let plain: Vec<SkinnedMesh> = rig
        .meshes
        .iter()
        .map(|m| SkinnedMesh {
            morph: Default::default(),
            ..m.clone()
        })
        .collect();
    let unmorphed = batch(gpu, &plain, &posed, false);
    let batches = [&unmorphed];
    let scene = Scene {
        skinned: &batches,
        shadow: Some(ShadowSettings::covering(all)),
        light: DirectionalLight::default(),
        ..Scene::new(camera_for(&all))
    };
    let without = render(gpu, "morph_without_targets", 192, &scene);
    let fraction = differing_fraction(&images[0], &without, PIXEL_THRESHOLD);
    assert!(
        fraction > 0.01,
        "the targets changed {:.3}% of pixels",
        fraction * 100.0
    );
}

/// Pre-skinning applies the morph targets at the weights the GPU evaluator wrote, then skins:
/// what the CPU twins compute from the same palette (linear and dual quaternion).
#[test]
fn preskinned_morphed_vertices_equal_cpu_morph_then_skinning() {
    let Some(gpu) = gpu() else { return };
    let rig = morph_rig();
    let joints = rig.joint_count();
    let block = rig.palette_entries();
    let poses = [
        (0, 0.25, Affine3A::IDENTITY),
        (1, 0.5, Affine3A::from_rotation_y(0.7)),
        (
            2,
            0.3,
            Affine3A::from_translation(Vec3::new(1.0, 0.0, -0.5)),
        ),
        (3, 0.6, Affine3A::from_scale(Vec3::splat(1.5))),
    ];
    let mut backend = GpuBackend::new(&gpu.context, std::slice::from_ref(&rig), &[]).unwrap();
    let entries = (block * poses.len()) as u32;
    backend.reserve_palette(entries).unwrap();
    backend.evaluate(&records(&rig, &poses)).unwrap();
    let posed = Posed {
        palette: backend.read_palette(0..entries).unwrap(),
        aabbs: backend.read_bounds(0..poses.len()).unwrap(),
        palette_buffer: backend.palette_buffer().clone(),
        aabb_buffer: backend.bounds_buffer().clone(),
        instances: tinted_instances(poses.len(), block, joints),
    };
    let mut moved = 0.0f32;
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let skinned = check_preskin(gpu, &rig.meshes, joints, &posed, mode);
        // The targets moved the vertices: skinning the bind-space vertices alone differs.
        for (mesh, out) in rig.meshes.iter().zip(&skinned) {
            let n = mesh.vertex_count();
            for (i, inst) in posed.instances.iter().enumerate() {
                let at = inst.palette_offset as usize;
                for v in 0..n {
                    let plain = skin_vertex(
                        mode,
                        &posed.palette[at..at + joints],
                        mesh.joints[v],
                        mesh.weights[v],
                        Vec3::from(mesh.positions[v]),
                        Vec3::from(mesh.normals[v]),
                    );
                    moved =
                        moved.max((Vec3::from(out[i * n + v].position) - plain.position).length());
                }
            }
        }
    }
    assert!(moved > 0.05, "the morph targets moved no vertex ({moved})");

    // In pages: a crowd whose palette spans many windows of the paged renderer (each block
    // holds the joints and the weights, so the weights lie in the page's window too).
    let poses: Vec<(u32, f32, Affine3A)> = (0..1000)
        .map(|i| {
            let x = (i % 40) as f32 * 0.8;
            let z = (i / 40) as f32 * 0.8;
            (
                i % 4,
                0.05 * (i % 17) as f32,
                Affine3A::from_translation(Vec3::new(x, 0.0, -z)),
            )
        })
        .collect();
    let posed = pose(gpu, &rig, &poses);
    assert!(posed.palette.len() as u64 * 48 > 2 * PAGED_BINDING);
    check_preskin_on(
        gpu,
        &gpu.paged,
        &rig.meshes,
        joints,
        &posed,
        SkinningMode::Linear,
    );
}

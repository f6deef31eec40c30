//! What the render tests share: the tolerances (stated once), the shared device and its two
//! renderers, and helpers that pose, batch and render rigs.

use sinew::render::PaletteSegment;
use std::path::PathBuf;
use std::sync::LazyLock;

use glam::{Affine3A, Quat, Vec3};
use sinew::render::{
    Camera, DirectionalLight, RenderTarget, Renderer, RendererOptions, RgbaImage, Scene,
    SkinnedBatch, SkinnedBatchDesc, SkinnedInstance, SkinningMode, morph_vertex, skin_vertex,
};
use sinew::{Aabb, CpuBackend, GpuContext, InstanceRecord, Layer, Mat3x4Rows, Rig, SkinnedMesh};

use super::common;

/// A pixel "differs" when any channel differs by more than this (of 255).
pub(crate) const PIXEL_THRESHOLD: u8 = 8;
/// The reference image test passes when at most this fraction of pixels differ.
pub(crate) const REFERENCE_TOLERANCE: f64 = 0.01;
/// Two renders of the same scene (culled against unculled, paged against one page) pass when
/// at most this fraction of pixels differ.
pub(crate) const SAME_SCENE_TOLERANCE: f64 = 0.002;

/// The storage binding limit of the paged renderer and of the windowed GPU evaluator.
pub(crate) const PAGED_BINDING: u64 = 64 << 10;

pub(crate) struct Gpu {
    pub(crate) context: GpuContext,
    /// Binds up to the device's limit: every test scene fits one page.
    pub(crate) renderer: Renderer,
    /// Binds at most [`fixtures::PAGED_BINDING`] bytes: batches of a few hundred characters page.
    pub(crate) paged: Renderer,
}

pub(crate) static GPU: LazyLock<Option<Gpu>> = LazyLock::new(|| {
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
pub(crate) fn gpu() -> Option<&'static Gpu> {
    GPU.as_ref()
}

impl Gpu {
    pub(crate) fn device(&self) -> &wgpu::Device {
        &self.context.device
    }

    pub(crate) fn queue(&self) -> &wgpu::Queue {
        &self.context.queue
    }

    pub(crate) fn backend_name(&self) -> String {
        format!("{:?}", self.context.adapter_info.backend).to_lowercase()
    }
}

pub(crate) fn fox() -> Option<Rig> {
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
pub(crate) struct Posed {
    pub(crate) palette: Vec<Mat3x4Rows>,
    pub(crate) aabbs: Vec<Aabb>,
    pub(crate) palette_buffers: Vec<PaletteSegment>,
    pub(crate) aabb_buffer: wgpu::Buffer,
    pub(crate) instances: Vec<SkinnedInstance>,
}

/// One record per pose, palette blocks one after another.
pub(crate) fn records(rig: &Rig, poses: &[(u32, f32, Affine3A)]) -> Vec<InstanceRecord> {
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
pub(crate) fn tinted_instances(count: usize, block: usize, joints: usize) -> Vec<SkinnedInstance> {
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

pub(crate) fn pose(gpu: &Gpu, rig: &Rig, poses: &[(u32, f32, Affine3A)]) -> Posed {
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
        palette_buffers: vec![PaletteSegment::whole(&palette_buffer)],
        aabb_buffer,
        instances,
    }
}

pub(crate) fn batch(
    gpu: &Gpu,
    meshes: &[SkinnedMesh],
    posed: &Posed,
    preskin: bool,
) -> SkinnedBatch {
    batch_on(gpu, &gpu.renderer, meshes, posed, preskin)
}

/// [`batch`] for `renderer`.
pub(crate) fn batch_on(
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
            palette: &posed.palette_buffers,
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

pub(crate) fn union(aabbs: &[Aabb]) -> Aabb {
    let mut all = Aabb::EMPTY;
    for a in aabbs {
        all.merge(a);
    }
    all
}

/// Renders `scene` at `size`² and returns the image, also written to
/// `target/render-tests/NAME-BACKEND.png`.
pub(crate) fn render(gpu: &Gpu, name: &str, size: u32, scene: &Scene<'_>) -> RgbaImage {
    render_on(gpu, &gpu.renderer, name, size, scene)
}

/// [`render`] with `renderer` (which made the scene's batches and overlays).
pub(crate) fn render_on(
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

pub(crate) fn output_dir() -> PathBuf {
    common::repo().join("target/render-tests")
}

/// Fraction of pixels where some channel differs by more than `threshold`.
pub(crate) fn differing_fraction(a: &RgbaImage, b: &RgbaImage, threshold: u8) -> f64 {
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
pub(crate) fn screen_rect(camera: &Camera, aabb: &Aabb, size: u32) -> (f32, f32, f32, f32) {
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
pub(crate) fn triangle_mesh() -> SkinnedMesh {
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

pub(crate) fn camera_for(aabb: &Aabb) -> Camera {
    Camera::frame_aabb(aabb, Vec3::new(0.45, 0.3, 1.0), 0.7, 1.0)
}

/// A box of half extents `half` around `center`.
pub(crate) fn box_around(center: Vec3, half: Vec3) -> Aabb {
    Aabb {
        min: (center - half).extend(0.0).to_array(),
        max: (center + half).extend(0.0).to_array(),
    }
}

/// The camera and light of the off-screen caster tests: looking down on the ground beside
/// x = 3, where the character stands; a low light from +x throws shadows about twice as long as
/// a character is tall toward -x, into the view.
pub(crate) fn offscreen_caster_view() -> (Camera, DirectionalLight) {
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
pub(crate) fn offscreen_caster_ground(floor: f32) -> Aabb {
    Aabb {
        min: [-2.5, floor, -2.0, 0.0],
        max: [3.6, floor + 0.01, 2.0, 0.0],
    }
}

/// Pre-skins `posed` with `mode` and compares every vertex of every instance and mesh with the
/// CPU twin. Returns the pre-skinned vertices per mesh.
pub(crate) fn check_preskin(
    gpu: &Gpu,
    meshes: &[SkinnedMesh],
    joints: usize,
    posed: &Posed,
    mode: SkinningMode,
) -> Vec<Vec<sinew::render::StaticVertex>> {
    check_preskin_on(gpu, &gpu.renderer, meshes, joints, posed, mode)
}

/// [`check_preskin`] with `renderer`.
pub(crate) fn check_preskin_on(
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

pub(crate) fn three_poses(rig: &Rig) -> Vec<(u32, f32, Affine3A)> {
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

/// Runs `sinew crowd --json` with `args` and returns its report.
pub(crate) fn crowd_json(args: &[&str]) -> serde_json::Value {
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

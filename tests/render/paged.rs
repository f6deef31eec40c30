//! Buffers larger than one storage binding: the paged renderer against one page.

use sinew::render::PaletteSegment;
use std::sync::LazyLock;

use glam::{Affine3A, Quat, Vec3};
use sinew::gpu::GpuOptions;
use sinew::render::{
    BoneOverlay, Camera, PaletteWindow, RenderError, RenderTarget, Renderer, RendererOptions,
    RgbaImage, Scene, ShadowSettings, SkinnedBatch, SkinnedBatchDesc, SkinnedInstance,
    SkinningMode, aabb_in_frustum,
};
use sinew::{Aabb, GpuBackend, Rig, SkinnedMesh};

use super::common;
use super::common::rigs::humanoid;
use super::fixtures::{
    Gpu, PAGED_BINDING, PIXEL_THRESHOLD, Posed, SAME_SCENE_TOLERANCE, batch, batch_on,
    check_preskin_on, differing_fraction, gpu, pose, records, render_on, tinted_instances,
    triangle_mesh, union,
};

/// Characters of the paged crowd: their palette (656 KB) spans ten [`fixtures::PAGED_BINDING`] windows.
pub(crate) const PAGED_CROWD: usize = 240;

/// [`PAGED_CROWD`] humanoids in rows of 20, each with its own clip, phase and heading.
pub(crate) fn crowd_poses(rig: &Rig) -> Vec<(u32, f32, Affine3A)> {
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
pub(crate) fn crowd_camera() -> Camera {
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

/// The crowd evaluated by a GPU evaluator whose palette binding is [`fixtures::PAGED_BINDING`] bytes (so
/// in windows, one dispatch each), with its palette and boxes read back.
static EVALUATED_CROWD: LazyLock<Option<(Rig, Posed)>> = LazyLock::new(|| {
    let gpu = gpu()?;
    let rig = humanoid();
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
        backend.dispatches_last_frame() > 1 && backend.palette_segments().len() > 1,
        "the evaluator did not window a {entries}-entry palette"
    );
    let posed = Posed {
        palette: backend.read_palette(0..entries).unwrap(),
        aabbs: backend.read_bounds(0..PAGED_CROWD).unwrap(),
        palette_buffers: backend.palette_segments().to_vec(),
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
    // The palette exceeds one binding: one large buffer, or (the evaluator's) several. The
    // whole render draws the palette read back from them (each block from the buffer it lives
    // in), uploaded as one buffer.
    let buffers = &posed.palette_buffers;
    assert!(buffers.len() > 1 || buffers[0].buffer.size() > PAGED_BINDING);
    let uploaded = sinew::render::create_palette_buffer(gpu.device(), posed.palette.len()).unwrap();
    sinew::render::write_palette(gpu.device(), gpu.queue(), &uploaded, 0, &posed.palette).unwrap();
    let one_buffer = Posed {
        palette: posed.palette.clone(),
        aabbs: posed.aabbs.clone(),
        palette_buffers: vec![PaletteSegment::whole(&uploaded)],
        aabb_buffer: posed.aabb_buffer.clone(),
        instances: posed.instances.clone(),
    };
    let paged = batch_on(gpu, &gpu.paged, &rig.meshes, posed, preskin);
    let whole = batch(gpu, &rig.meshes, &one_buffer, preskin);
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
                    &posed.palette_buffers,
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
    let rig = humanoid();
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
        palette: &[PaletteSegment::whole(&palette)],
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
        &humanoid().skeleton,
        &[PaletteSegment::whole(&palette)],
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
            &[PaletteSegment::whole(&palette)],
            &window,
        )
        .unwrap_err();
        assert!(matches!(err, RenderError::InvalidInput { .. }), "{err}");
    }
    sinew::render::create_palette_bind_group(gpu.device(), &layout, &palette).unwrap();
}

/// A fixed paging puts every block in a window that holds it, the one `palette_windows` names,
/// and windows keep their starts as the palette grows.
#[test]
fn palette_paging_places_every_block_in_its_window() {
    let block = sinew::MAX_PALETTE_BLOCK as u32;
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: 48 * u64::from(block) * 3,
        min_storage_buffer_offset_alignment: 256,
        ..wgpu::Limits::default()
    };
    let paging = sinew::render::palette_paging(&limits).unwrap();
    assert!(paging.stride > 0 && paging.stride + block <= paging.window_entries);
    for total in [paging.window_entries + 1, 5 * paging.window_entries + 17] {
        let windows = sinew::render::palette_windows(&limits, total).unwrap();
        assert!(windows.len() > 1);
        for (k, w) in windows.iter().enumerate() {
            assert_eq!(w.first_entry, k as u32 * paging.stride);
            assert_eq!(w.entries, paging.window_len(k as u32, total));
        }
        for first in (0..total - block).step_by(37) {
            let k = paging.window_of(first);
            assert_eq!(
                sinew::render::palette_window_of(&windows, first),
                Some(k as usize)
            );
            assert!(
                windows[k as usize].contains(first, block),
                "block at {first}"
            );
        }
    }
}

//! Errors.

use glam::Vec3;
use sinew::Mat3x4Rows;
use sinew::render::PaletteSegment;
use sinew::render::{
    Camera, RenderError, RenderTarget, Scene, SkinnedBatch, SkinnedBatchDesc, SkinnedInstance,
};

use super::fixtures::{gpu, triangle_mesh};

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
        palette: &[PaletteSegment::whole(&palette)],
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

//! Device loss.

use glam::Vec3;
use sinew::render::{
    Camera, RenderError, RenderTarget, Renderer, Scene, SkinnedBatch, SkinnedBatchDesc,
};
use sinew::{GpuBackend, GpuContext, GpuError, Mat3x4Rows, Rig};

use super::common;
use super::common::rigs::humanoid;
use super::fixtures::{records, three_poses, tinted_instances};

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
                palette: self.backend.palette_segments(),
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
    let rig = humanoid();
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

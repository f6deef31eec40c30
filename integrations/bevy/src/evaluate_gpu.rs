//! [`crate::SinewBackend::Gpu`]: sinew's [`GpuBackend`] on Bevy's own device and queue. The
//! main world's animator update leaves the records that changed ([`GpuFrame`], a few bytes per
//! changed character); Bevy extracts them, and in the render world, before Bevy's passes are
//! encoded, they go up to the backend's resident table, one dispatch evaluates every character
//! and the palette is copied into the buffer the skinning material binds. The animated boxes
//! come back for Bevy's culling one frame later ([`GpuBounds`], widened for that frame).

use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy::render::extract_resource::ExtractResource;
use bevy::render::render_asset::RenderAssets;
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::render::storage::{GpuShaderBuffer, ShaderBuffer};
use sinew::runtime::{Animator, RecordChanges};
use sinew::{Aabb, GpuBackend, GpuContext, GpuError, JointMask, Rig};

/// What the render world's evaluation needs from this frame's animator update.
#[derive(Resource, Clone, Default)]
pub(crate) struct GpuFrame {
    /// The animator's rigs and masks, shared (replaced when one is added).
    pub rigs: Arc<(Vec<Rig>, Vec<JointMask>)>,
    /// The records the update changed.
    pub changes: RecordChanges,
    /// The buffer the skinning material reads.
    pub palette: Handle<ShaderBuffer>,
}

impl ExtractResource for GpuFrame {
    type Source = GpuFrame;

    fn extract_resource(source: &Self::Source) -> Self {
        source.clone()
    }
}

impl GpuFrame {
    /// This update's changes from `animator` (the rigs shared again only when their count
    /// changed).
    pub(crate) fn record(&mut self, animator: &Animator, palette: &Handle<ShaderBuffer>) {
        let (rigs, masks) = (animator.rigs(), animator.masks());
        if self.rigs.0.len() != rigs.len() || self.rigs.1.len() != masks.len() {
            self.rigs = Arc::new((rigs.to_vec(), masks.to_vec()));
        }
        self.changes.take_from(animator);
        self.palette = palette.clone();
    }
}

/// The boxes of the last GPU evaluation, by slot, shared by both worlds.
#[derive(Resource, Clone, Default)]
pub(crate) struct GpuBounds(pub Arc<Mutex<Vec<Aabb>>>);

impl GpuBounds {
    /// The boxes last read back, each widened by a quarter of its size on every side: they
    /// are a frame old when Bevy's culling reads them.
    pub(crate) fn take_into(&self, out: &mut Vec<Aabb>) {
        let boxes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        out.clear();
        out.extend(boxes.iter().map(|b| {
            if b.is_empty() {
                return *b;
            }
            let margin = (b.max3() - b.min3()) * 0.25;
            let mut wide = Aabb::EMPTY;
            wide.grow((b.min3() - margin).into());
            wide.grow((b.max3() + margin).into());
            wide
        }));
    }
}

/// The render world's [`GpuBackend`] with [`crate::SinewBackend::Gpu`], made on Bevy's device
/// with the first rig: read it in the render world (its palette and boxes, timings).
#[derive(Resource, Default)]
pub struct SinewGpu {
    backend: Option<GpuBackend>,
    rigs: Arc<(Vec<Rig>, Vec<JointMask>)>,
}

impl SinewGpu {
    /// The backend, once a rig was added.
    pub fn backend(&self) -> Option<&GpuBackend> {
        self.backend.as_ref()
    }
}

/// Uploads the changed records, evaluates every character, copies the palette into the
/// material's buffer and reads the boxes back.
pub(crate) fn evaluate_on_gpu(
    frame: Res<GpuFrame>,
    mut evaluator: ResMut<SinewGpu>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
    buffers: Res<RenderAssets<GpuShaderBuffer>>,
    bounds: Res<GpuBounds>,
) {
    if frame.rigs.0.is_empty() {
        return;
    }
    let queue: &wgpu::Queue = &queue;
    let result =
        evaluate(&frame, &mut evaluator, device.wgpu_device(), queue).and_then(|backend| {
            if let Some(target) = buffers.get(frame.palette.id()) {
                let source = backend.palette_buffer();
                let size = source.size().min(target.buffer.size());
                let mut encoder =
                    device
                        .wgpu_device()
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("sinew palette to Bevy"),
                        });
                encoder.copy_buffer_to_buffer(source, 0, &target.buffer, 0, size);
                queue.submit([encoder.finish()]);
            }
            let slots = backend.slot_count() as usize;
            let boxes = backend.read_bounds(0..slots)?;
            *bounds.0.lock().unwrap_or_else(|e| e.into_inner()) = boxes;
            Ok(())
        });
    if let Err(e) = result {
        error!("sinew: GPU evaluation failed: {e}");
    }
}

fn evaluate<'a>(
    frame: &GpuFrame,
    evaluator: &'a mut SinewGpu,
    device: &wgpu::Device,
    queue: &wgpu::Queue,
) -> Result<&'a mut GpuBackend, GpuError> {
    let (rigs, masks) = &*frame.rigs;
    let SinewGpu {
        backend,
        rigs: uploaded,
    } = evaluator;
    let backend = match backend {
        Some(backend) => {
            if !Arc::ptr_eq(uploaded, &frame.rigs) {
                backend.update_rigs(rigs, masks)?;
            }
            backend
        }
        None => backend.insert(GpuBackend::new(
            &GpuContext::from_device(device, queue),
            rigs,
            masks,
        )?),
    };
    *uploaded = frame.rigs.clone();
    frame.changes.apply(backend)?;
    backend.evaluate_resident(frame.changes.frame_time())?;
    Ok(backend)
}

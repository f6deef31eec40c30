//! [`crate::SinewBackend::Gpu`]: sinew's [`GpuBackend`] on Bevy's own device and queue. The
//! main world's animator update leaves the records that changed ([`GpuFrame`], a few bytes per
//! changed character); Bevy extracts them, and in the render world, before Bevy's passes are
//! encoded, they go up to the backend's resident table, one dispatch evaluates every character
//! and the palette is copied into the page buffers the skinning materials bind. The animated
//! boxes come back for Bevy's culling without a wait, a frame or two later ([`GpuBounds`],
//! widened for their age).

use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy::render::extract_resource::ExtractResource;
use bevy::render::render_asset::RenderAssets;
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::render::storage::GpuShaderBuffer;
use sinew::runtime::{Animator, RecordChanges};
use sinew::{Aabb, GpuBackend, GpuContext, GpuError, JointMask, Mat3x4Rows, Rig};

use crate::palette::PageTable;

/// What the render world's evaluation needs from this frame's animator update.
#[derive(Resource, Clone, Default)]
pub(crate) struct GpuFrame {
    /// The animator's rigs and masks, shared (replaced when one is added).
    pub rigs: Arc<(Vec<Rig>, Vec<JointMask>)>,
    /// The records the update changed.
    pub changes: RecordChanges,
    /// The page buffers the skinning materials read.
    pub pages: PageTable,
    /// The main world's frame number of this update (the tag of its boxes).
    pub frame: u64,
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
    pub(crate) fn record(&mut self, animator: &Animator, pages: &Mutex<PageTable>, frame: u64) {
        let (rigs, masks) = (animator.rigs(), animator.masks());
        if self.rigs.0.len() != rigs.len() || self.rigs.1.len() != masks.len() {
            self.rigs = Arc::new((rigs.to_vec(), masks.to_vec()));
        }
        self.changes.take_from(animator);
        self.pages
            .clone_from(&pages.lock().unwrap_or_else(|e| e.into_inner()));
        self.frame = frame;
    }
}

/// The boxes of the newest GPU evaluation read back, by slot, and the frame they belong to;
/// shared by both worlds.
#[derive(Resource, Clone, Default)]
pub(crate) struct GpuBounds(pub Arc<Mutex<(Vec<Aabb>, u64)>>);

/// How much a box grows on every side per frame of age, as a fraction of its size.
const MARGIN_PER_FRAME: f32 = 0.25;

impl GpuBounds {
    /// The boxes last read back into `out`, each widened on every side by a quarter of its
    /// size per frame between their evaluation and `frame` (what a limb may move meanwhile);
    /// returns the frame they belong to.
    pub(crate) fn take_into(&self, out: &mut Vec<Aabb>, frame: u64) -> u64 {
        let read = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (boxes, evaluated) = (&read.0, read.1);
        let age = frame.saturating_sub(evaluated).min(4) as f32;
        out.clear();
        out.extend(boxes.iter().map(|b| {
            if b.is_empty() {
                return *b;
            }
            let margin = (b.max3() - b.min3()) * (MARGIN_PER_FRAME * age);
            let mut wide = Aabb::EMPTY;
            wide.grow((b.min3() - margin).into());
            wide.grow((b.max3() + margin).into());
            wide
        }));
        evaluated
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

/// Uploads the changed records, evaluates every character, copies the palette into the page
/// buffers and asks for the boxes (taking the newest that arrived).
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
            let segments = backend.palette_segments();
            let mut encoder =
                device
                    .wgpu_device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("sinew palette to Bevy's pages"),
                    });
            // A page is a window of the palette: the evaluator keeps a palette past one
            // binding in one buffer per window of the same paging, so each page copies from
            // the buffer holding its first entry.
            for (first, page) in frame.pages.pages() {
                let Some(target) = buffers.get(page.id()) else {
                    continue;
                };
                let k = segments
                    .partition_point(|s| s.first_entry as usize <= first)
                    .saturating_sub(1);
                let Some(source) = segments.get(k) else {
                    continue;
                };
                let from = ((first - source.first_entry as usize) * size_of::<Mat3x4Rows>()) as u64;
                let size = source
                    .buffer
                    .size()
                    .saturating_sub(from)
                    .min(target.buffer.size());
                if size > 0 {
                    encoder.copy_buffer_to_buffer(&source.buffer, from, &target.buffer, 0, size);
                }
            }
            queue.submit([encoder.finish()]);
            if let Some(read) = backend.read_bounds_async(frame.frame)? {
                *bounds.0.lock().unwrap_or_else(|e| e.into_inner()) = (read.bounds, read.tag);
            }
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

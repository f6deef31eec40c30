//! The GPU backend's previous palette for motion vectors ([`super::GpuOptions::previous_palette`],
//! [`crate::gpu::PreviousPalette`]): its buffers and stamps for hosts, its bind group per
//! dispatch, and reading it back.

use std::num::NonZeroU64;
use std::ops::Range;

use super::GpuBackend;
use crate::error::GpuError;
use crate::gpu::layout::PALETTE_ENTRY_BYTES;
use crate::gpu::previous_palette::STAMP_BYTES;
use crate::gpu::readback::{ReadRange, palette_from_bytes};
use crate::gpu::resident::Dispatch;
use crate::gpu::scope::capture;
use crate::gpu::{PaletteSegment, locate_block};
use crate::math::Mat3x4Rows;

impl GpuBackend {
    /// Whether the kernel keeps the previous palette ([`super::GpuOptions::previous_palette`]).
    pub fn keeps_previous_palette(&self) -> bool {
        self.previous.is_some()
    }

    /// The previous palette's buffers, segment for segment as
    /// [`GpuBackend::palette_segments`] (bind them with the same windows): each evaluated
    /// instance's joint and morph weight entries as they were before its last evaluation, the
    /// pose shown until then. `None` without [`super::GpuOptions::previous_palette`]. Buffers
    /// are replaced or added when the palette grows.
    pub fn previous_palette_segments(&self) -> Option<&[PaletteSegment]> {
        self.previous.as_ref().map(|p| p.segments())
    }

    /// One `u32` per resident slot: [`GpuBackend::evaluated_stamp`] of the evaluation that
    /// last evaluated it (0: never). A slot whose stamp is the last evaluation's moved this
    /// frame (its previous entries are the pose it showed before); any other slot shows the
    /// pose it showed last frame (its current entries serve as previous ones). `None` without
    /// [`super::GpuOptions::previous_palette`].
    pub fn evaluated_at_buffer(&self) -> Option<&wgpu::Buffer> {
        self.previous.as_ref().map(|p| p.stamps())
    }

    /// The stamp the last evaluation wrote into [`GpuBackend::evaluated_at_buffer`] for the
    /// slots it evaluated: its frame counter plus one (the next evaluation's
    /// [`GpuBackend::frame_index`]); 0 before any evaluation.
    pub fn evaluated_stamp(&self) -> u32 {
        self.frame
    }

    /// Reads `len` previous palette entries from palette entry `offset` (one block, from the
    /// buffer it lives in): for tests. An error without the previous palette.
    pub fn read_previous_palette(
        &self,
        offset: u32,
        len: u32,
    ) -> Result<Vec<Mat3x4Rows>, GpuError> {
        let previous = self.previous.as_ref().ok_or_else(|| no_previous("read"))?;
        let range = self.palette_range(offset, len)?;
        let segments = previous.segments();
        let (k, at) =
            locate_block(segments, offset, u64::from(len)).map_err(GpuError::Validation)?;
        let bytes = self.read(&[ReadRange {
            buffer: &segments[k].buffer,
            offset: at * PALETTE_ENTRY_BYTES,
            size: range.size,
        }])?;
        Ok(bytes
            .first()
            .map_or_else(Vec::new, |b| palette_from_bytes(b)))
    }

    /// Reads the evaluated-at stamps of `slots` back: for tests. An error without the previous
    /// palette.
    pub fn read_evaluated_at(&self, slots: Range<u32>) -> Result<Vec<u32>, GpuError> {
        let previous = self.previous.as_ref().ok_or_else(|| no_previous("read"))?;
        let stamps = previous.stamps();
        let end = u64::from(slots.end).min(stamps.size() / STAMP_BYTES);
        let start = u64::from(slots.start).min(end);
        let bytes = self.read(&[ReadRange {
            buffer: stamps,
            offset: start * STAMP_BYTES,
            size: (end - start) * STAMP_BYTES,
        }])?;
        Ok(bytes
            .first()
            .map_or_else(Vec::new, |b| bytemuck::pod_collect_to_vec(b)))
    }

    /// Grows the previous palette with the palette and the stamps with the `slots`.
    pub(super) fn follow_previous(&mut self, slots: u32) -> Result<(), GpuError> {
        match self.previous.as_mut() {
            Some(p) => p.follow(&self.device, &self.queue, &self.palette, slots),
            None => Ok(()),
        }
    }

    /// The previous palette's generation (0 without it): frame groups that bind it are stale
    /// when it changes.
    pub(super) fn previous_generation(&self) -> u64 {
        self.previous.as_ref().map_or(0, |p| p.generation())
    }

    /// Group 2 of dispatch `d` in the pipeline keeping the previous palette: the previous
    /// buffer of its palette window (as group 1 binds the palette's) and the stamps; `None`
    /// without it.
    pub(super) fn previous_group(
        &self,
        d: &Dispatch,
        windowed: Option<u32>,
    ) -> Result<Option<wgpu::BindGroup>, GpuError> {
        let (Some(previous), Some(layout)) = (&self.previous, &self.pipeline.previous_layout)
        else {
            return Ok(None);
        };
        let window = windowed.map_or(0, |_| d.window as usize);
        let buffer = &previous
            .segments()
            .get(window)
            .ok_or_else(|| {
                GpuError::Validation(format!("no previous palette buffer for window {window}"))
            })?
            .buffer;
        let device = &self.device;
        fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: 0,
                    size: NonZeroU64::new(buffer.size()),
                }),
            }
        }
        capture(device, || {
            Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("sinew previous palette bind group"),
                layout,
                entries: &[entry(0, buffer), entry(1, previous.stamps())],
            }))
        })
    }
}

/// The error of a previous-palette call on a backend without one.
fn no_previous(what: &str) -> GpuError {
    GpuError::Validation(format!(
        "cannot {what} the previous palette: the backend was made without \
         GpuOptions::previous_palette"
    ))
}

//! The previous palette of motion vectors ([`crate::GpuOptions::previous_palette`]): buffers
//! parallel to the palette's segments (the same entries, the same windows) into which the
//! kernel copies an instance's joint and morph weight entries before it evaluates the instance
//! again, so they hold the pose last shown, and one evaluated-at stamp per slot (the frame
//! counter of the slot's last evaluation, plus one; 0: never). Only the slots evaluated in a
//! frame are copied, never the whole palette. The buffers follow the palette's growth (and its
//! split into windows) with the palette's own rule, their contents copied on the GPU.

use super::palette::Palette;
use super::palette_segment::PaletteSegment;
use super::scope::capture;
use crate::error::GpuError;

/// Bytes of one evaluated-at stamp (a `u32` per slot).
pub const STAMP_BYTES: u64 = 4;

/// The previous palette's buffers and the slots' stamps.
#[derive(Debug)]
pub struct PreviousPalette {
    /// Buffers of the palette's sizes (the allocator unused).
    buffers: Palette,
    stamps: wgpu::Buffer,
    generation: u64,
}

fn stamp_buffer(device: &wgpu::Device, slots: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("sinew evaluated-at stamps"),
        size: slots.max(1) * STAMP_BYTES,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl PreviousPalette {
    /// Buffers of `palette`'s sizes (zeroed) and stamps for 64 slots.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        palette: &Palette,
    ) -> Result<Self, GpuError> {
        let buffers = Palette::new(device, queue, palette.capacity(), palette.paging())?;
        let stamps = capture(device, || stamp_buffer(device, 64))?;
        let previous = Self {
            buffers,
            stamps,
            generation: 0,
        };
        previous.check_follows(palette)?;
        Ok(previous)
    }

    /// Grows with `palette` (buffers of its sizes, contents kept as the palette keeps its
    /// own) and makes room for `slots` stamps (kept).
    pub fn follow(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        palette: &Palette,
        slots: u32,
    ) -> Result<(), GpuError> {
        if self.buffers.capacity() != palette.capacity() {
            self.buffers.reserve(device, queue, palette.capacity())?;
            self.check_follows(palette)?;
            self.generation += 1;
        }
        let needed = u64::from(slots) * STAMP_BYTES;
        if self.stamps.size() < needed {
            let grown = u64::from(slots).next_power_of_two();
            let old = &self.stamps;
            self.stamps = capture(device, || {
                let buffer = stamp_buffer(device, grown);
                let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("sinew grow evaluated-at stamps"),
                });
                encoder.copy_buffer_to_buffer(old, 0, &buffer, 0, old.size());
                queue.submit([encoder.finish()]);
                buffer
            })?;
            self.generation += 1;
        }
        Ok(())
    }

    /// An error unless the buffers have the sizes of `palette`'s.
    fn check_follows(&self, palette: &Palette) -> Result<(), GpuError> {
        let sizes = |s: &[PaletteSegment]| s.iter().map(|s| s.entries()).collect::<Vec<_>>();
        let (kept, live) = (sizes(self.segments()), sizes(palette.segments()));
        if kept == live {
            Ok(())
        } else {
            Err(GpuError::Validation(format!(
                "previous palette buffers of {kept:?} entries do not follow the palette's {live:?}"
            )))
        }
    }

    /// The buffers, segment for segment as the palette's
    /// ([`crate::GpuBackend::palette_segments`]).
    pub fn segments(&self) -> &[PaletteSegment] {
        self.buffers.segments()
    }

    /// One `u32` per resident slot: the frame counter of its last evaluation plus one.
    pub fn stamps(&self) -> &wgpu::Buffer {
        &self.stamps
    }

    /// Changes whenever a buffer is replaced or added.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

//! The buffers and bind groups behind [`GpuBackend`]'s resident records: the record table,
//! the staging buffer its changes go up through, one dispatch header per dispatch, and the frame
//! bind groups, kept from one frame to the next while their dispatch and buffers stay.

use std::num::NonZeroU64;

use super::windows::bounds_base;
use super::{FrameKey, GpuBackend};
use crate::error::GpuError;
use crate::gpu::layout::{AABB_BYTES, FRAME_HEADER_BYTES, INSTANCE_RECORD_BYTES};
use crate::gpu::resident::Dispatch;
use crate::gpu::scope::capture;

impl GpuBackend {
    pub(super) fn reserve_records(&mut self, slots: u32) -> Result<(), GpuError> {
        let bytes = u64::from(slots) * INSTANCE_RECORD_BYTES;
        if self.records.as_ref().is_some_and(|b| b.size() >= bytes) {
            return Ok(());
        }
        let size = self.grown_size(bytes, 64 * INSTANCE_RECORD_BYTES)?;
        let old = self.records.take();
        let device = &self.device;
        let buffer = capture(device, || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("sinew instance records"),
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        })?;
        if let Some(old) = old {
            // Keep what the GPU already holds: the slots written before stay valid.
            let queue = &self.queue;
            capture(device, || {
                let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("sinew grow instance records"),
                });
                encoder.copy_buffer_to_buffer(&old, 0, &buffer, 0, old.size());
                queue.submit([encoder.finish()]);
            })?;
        } else {
            self.table.mark_all();
        }
        self.records = Some(buffer);
        self.records_generation += 1;
        Ok(())
    }

    pub(super) fn reserve_headers(&mut self, dispatches: u64) -> Result<(), GpuError> {
        let bytes = dispatches.max(1) * self.header_stride;
        if self.headers.as_ref().is_some_and(|b| b.size() >= bytes) {
            return Ok(());
        }
        let size = self.grown_size(bytes, 4 * self.header_stride)?;
        let device = &self.device;
        self.headers = Some(capture(device, || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("sinew dispatch headers"),
                size,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?);
        self.headers_generation += 1;
        Ok(())
    }

    pub(super) fn reserve_staging(&mut self, bytes: u64) -> Result<(), GpuError> {
        if self.staging.as_ref().is_some_and(|b| b.size() >= bytes) {
            return Ok(());
        }
        let size = self.grown_size(bytes, 64 * INSTANCE_RECORD_BYTES)?;
        let device = &self.device;
        self.staging = Some(capture(device, || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("sinew instance upload"),
                size,
                usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?);
        Ok(())
    }

    /// A buffer size of at least `bytes` (and `floor`), rounded up to a power of two where the
    /// device allows, else exactly `bytes`; an error past `max_buffer_size`.
    pub(super) fn grown_size(&self, bytes: u64, floor: u64) -> Result<u64, GpuError> {
        let available = self.device.limits().max_buffer_size;
        let size = bytes.max(floor).next_power_of_two();
        let size = if size > available { bytes } else { size };
        if size > available {
            return Err(GpuError::LimitExceeded {
                limit: "max_buffer_size",
                needed: size,
                available,
            });
        }
        Ok(size)
    }

    /// Makes `frame_groups` the frame bind groups of `plan`: one per dispatch, in plan order.
    /// Dispatch `k`'s group is the previous frame's group `k` where it binds the same (the
    /// same dispatch and buffers), else made anew; the list replaces the previous frame's
    /// whole, so the groups of dispatches that are gone go and none of this frame's can.
    pub(super) fn build_frame_groups(
        &mut self,
        plan: &[Dispatch],
        windowed: Option<u32>,
    ) -> Result<(), GpuError> {
        let previous = std::mem::take(&mut self.frame_groups);
        let mut groups = Vec::with_capacity(plan.len());
        for (k, d) in plan.iter().enumerate() {
            let key = FrameKey {
                index: k,
                dispatch: *d,
                records: self.records_generation,
                headers: self.headers_generation,
                palette: self.palette.generation(),
                bounds: self.bounds.generation(),
                previous: self.previous_generation(),
            };
            let group = match previous.get(k) {
                Some((kept, group, keep)) if *kept == key => (group.clone(), keep.clone()),
                _ => (
                    self.frame_group(k, d, windowed)?,
                    self.previous_group(d, windowed)?,
                ),
            };
            groups.push((key, group.0, group.1));
        }
        self.frame_groups = groups;
        Ok(())
    }

    /// A new frame bind group for dispatch `k`.
    fn frame_group(
        &self,
        k: usize,
        d: &Dispatch,
        windowed: Option<u32>,
    ) -> Result<wgpu::BindGroup, GpuError> {
        let (Some(records), Some(headers)) = (self.records.as_ref(), self.headers.as_ref()) else {
            return Err(GpuError::Validation("instance buffers missing".into()));
        };
        // Dispatch `d` binds the buffer of its palette window whole (the one buffer when the
        // palette is not windowed).
        let palette = match windowed {
            None => self.palette.segments().first(),
            Some(_) => self.palette.segments().get(d.window as usize),
        }
        .map(|s| &s.buffer)
        .ok_or_else(|| {
            GpuError::Validation(format!("no palette buffer for window {}", d.window))
        })?;
        let bounds = self.bounds.buffer();
        let bounds_start = u64::from(bounds_base(d.first, self.offset_alignment)) * AABB_BYTES;
        let bounds_size = (bounds.size() - bounds_start).min(self.max_binding) / 16 * 16;
        let device = &self.device;
        let buffer = |binding, buffer, offset, size| wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset,
                size,
            }),
        };
        capture(device, || {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("sinew frame bind group"),
                layout: &self.pipeline.frame_layout,
                entries: &[
                    buffer(
                        0,
                        headers,
                        k as u64 * self.header_stride,
                        NonZeroU64::new(FRAME_HEADER_BYTES),
                    ),
                    buffer(
                        1,
                        records,
                        u64::from(d.first) * INSTANCE_RECORD_BYTES,
                        NonZeroU64::new(u64::from(d.count) * INSTANCE_RECORD_BYTES),
                    ),
                    buffer(2, palette, 0, None),
                    buffer(3, bounds, bounds_start, NonZeroU64::new(bounds_size)),
                ],
            })
        })
    }
}

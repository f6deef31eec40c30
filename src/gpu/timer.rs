//! GPU time of the evaluate pass from timestamp queries written at the pass's start and end,
//! where the device has `TIMESTAMP_QUERY`. Reading it waits for the frame, so it is opt-in
//! ([`crate::GpuBackend::enable_timing`]); without the feature callers fall back to wall time.

use super::readback::{ReadRange, read_ranges};
use super::scope::capture;
use crate::error::GpuError;

/// Two timestamps around one compute pass, and where they are resolved.
#[derive(Debug)]
pub struct PassTimer {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    period_ns: f32,
}

impl PassTimer {
    /// A timer on `device`, or `None` when it lacks `TIMESTAMP_QUERY`; wgpu's errors creating
    /// the query set or its buffer are captured.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Option<Self>, GpuError> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return Ok(None);
        }
        capture(device, || {
            Some(Self {
                queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("sinew evaluate timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                }),
                resolved: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("sinew evaluate timestamps resolved"),
                    size: 2 * wgpu::QUERY_SIZE as u64,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                period_ns: queue.get_timestamp_period(),
            })
        })
    }

    /// The pass descriptor's timestamp writes: start into query 0, end into query 1.
    pub fn pass_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Records the resolve of both timestamps (after the pass, in the same encoder).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolved, 0);
    }

    /// Milliseconds between the two timestamps of the last resolved pass (waits for the GPU).
    pub fn read_ms(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<f64, GpuError> {
        let bytes = read_ranges(
            device,
            queue,
            &[ReadRange {
                buffer: &self.resolved,
                offset: 0,
                size: self.resolved.size(),
            }],
        )?;
        let ticks = |i: usize| {
            bytes
                .first()
                .and_then(|b| b.get(i * 8..i * 8 + 8))
                .map_or(0, |s| {
                    u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]])
                })
        };
        let elapsed = ticks(1).saturating_sub(ticks(0));
        Ok(elapsed as f64 * self.period_ns as f64 / 1e6)
    }
}

//! GPU time of passes from timestamp queries written at each timed stage's start and end,
//! where the device has `TIMESTAMP_QUERY`: the evaluate pass ([`crate::GpuBackend::enable_timing`])
//! or a renderer's stages (culling, shadow, main pass; see
//! [`SceneTimestamps`](crate::render::SceneTimestamps)). [`PassTimer::read_ms`] waits for the
//! frame; [`PassTimer::read_async`] does not (a few resolved copies in flight, each read a
//! frame or two late). Without the feature callers fall back to wall time.

use super::async_read::AsyncReads;
use super::readback::{ReadRange, read_ranges};
use super::scope::capture;
use crate::error::GpuError;

/// Two timestamps (start, end) around each of a few stages, and where they are resolved.
#[derive(Debug)]
pub struct PassTimer {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    stages: u32,
    period_ns: f32,
    reads: AsyncReads<()>,
}

impl PassTimer {
    /// A timer of one stage on `device`, or `None` when it lacks `TIMESTAMP_QUERY`; wgpu's
    /// errors creating the query set or its buffer are captured.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Result<Option<Self>, GpuError> {
        Self::with_stages(device, queue, 1)
    }

    /// A timer of `stages` stages (at least 1): queries `2k` and `2k + 1` are stage `k`'s start
    /// and end.
    pub fn with_stages(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        stages: u32,
    ) -> Result<Option<Self>, GpuError> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return Ok(None);
        }
        let stages = stages.clamp(1, wgpu::QUERY_SET_MAX_QUERIES / 2);
        capture(device, || {
            Some(Self {
                queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("sinew pass timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2 * stages,
                }),
                resolved: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("sinew pass timestamps resolved"),
                    size: u64::from(2 * stages) * wgpu::QUERY_SIZE as u64,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                }),
                stages,
                period_ns: queue.get_timestamp_period(),
                reads: AsyncReads::new("sinew pass timestamps readback"),
            })
        })
    }

    /// How many stages it times.
    pub fn stages(&self) -> u32 {
        self.stages
    }

    /// The query set (stage `k`: queries `2k`, `2k + 1`).
    pub fn query_set(&self) -> &wgpu::QuerySet {
        &self.queries
    }

    /// The pass descriptor's timestamp writes of stage 0: start into query 0, end into query 1.
    pub fn pass_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Records the resolve of every timestamp (after the timed passes, in the same encoder).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2 * self.stages, &self.resolved, 0);
    }

    /// Milliseconds of each stage from resolved timestamp bytes.
    fn stage_ms(&self, bytes: &[u8]) -> Vec<f64> {
        let ticks = |i: u32| {
            let i = i as usize;
            bytes.get(i * 8..i * 8 + 8).map_or(0, |s| {
                u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]])
            })
        };
        (0..self.stages)
            .map(|k| {
                let elapsed = ticks(2 * k + 1).saturating_sub(ticks(2 * k));
                elapsed as f64 * f64::from(self.period_ns) / 1e6
            })
            .collect()
    }

    /// Milliseconds between the two timestamps of stage 0 of the last resolved pass (waits for
    /// the GPU).
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
        let ms = self.stage_ms(bytes.first().map_or(&[][..], Vec::as_slice));
        Ok(ms.first().copied().unwrap_or(0.0))
    }

    /// Without waiting: queues a copy of the timestamps as last resolved (after the work
    /// submitted so far) and returns the milliseconds of each stage from the newest earlier
    /// copy that has arrived (usually a frame or two old), or `None` while none has.
    pub fn read_async(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Option<Vec<f64>>, GpuError> {
        let latest = self.reads.collect(device, |(), bytes| bytes.to_vec())?;
        if self.reads.has_room() {
            let (resolved, size) = (&self.resolved, self.resolved.size());
            self.reads
                .request(device, queue, size, (), |encoder, buffer| {
                    encoder.copy_buffer_to_buffer(resolved, 0, buffer, 0, size);
                })?;
        }
        Ok(latest.map(|bytes| self.stage_ms(&bytes)))
    }
}

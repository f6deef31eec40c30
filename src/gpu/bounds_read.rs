//! Reading the animated boxes of the last evaluation back without waiting (for a host's
//! culling): the asynchronous twin of [`GpuBackend::read_bounds`](crate::GpuBackend::read_bounds).

use super::async_read::AsyncReads;
use crate::error::GpuError;
use crate::math::Aabb;

/// Boxes read back from an evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundsRead {
    /// The caller's tag of the evaluation (a frame number, say).
    pub tag: u64,
    /// Its frame time.
    pub time: f32,
    /// One box per record or resident slot of that evaluation, in order.
    pub bounds: Vec<Aabb>,
}

/// The asynchronous box reads of one backend.
#[derive(Debug)]
pub(crate) struct BoundsReadback(AsyncReads<(u64, f32)>);

impl Default for BoundsReadback {
    fn default() -> Self {
        Self(AsyncReads::new("sinew bounds readback"))
    }
}

impl BoundsReadback {
    /// Polls the device once (no wait) and returns the newest finished request's boxes; then,
    /// unless three are pending, requests the first `count` boxes of `bounds` as they stand
    /// after the work submitted so far.
    pub(crate) fn request(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        bounds: &wgpu::Buffer,
        count: u64,
        (tag, time): (u64, f32),
    ) -> Result<Option<BoundsRead>, GpuError> {
        let latest = self.0.collect(device, |(tag, time), bytes| BoundsRead {
            tag,
            time,
            bounds: bytemuck::pod_collect_to_vec(bytes),
        })?;
        let size = count * std::mem::size_of::<Aabb>() as u64;
        if !self.0.has_room() || size == 0 {
            return Ok(latest);
        }
        self.0
            .request(device, queue, size, (tag, time), |encoder, buffer| {
                encoder.copy_buffer_to_buffer(bounds, 0, buffer, 0, size);
            })?;
        Ok(latest)
    }
}

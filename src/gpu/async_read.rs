//! Reads that do not wait: each request's copies go into a read buffer that maps in the
//! background, a few requests stay in flight, and each call hands back the newest one that has
//! arrived (usually the previous frame's). Used for root-motion worlds and animated boxes.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use super::scope::capture;
use crate::error::GpuError;

/// Requests kept in flight at most; past it, a request is not made.
pub(crate) const MAX_IN_FLIGHT: usize = 3;

/// Map state of a request: pending, mapped, failed.
const PENDING: u8 = 0;
const MAPPED: u8 = 1;
const FAILED: u8 = 2;

#[derive(Debug)]
struct Request<T> {
    buffer: wgpu::Buffer,
    size: u64,
    state: Arc<AtomicU8>,
    tag: T,
}

/// Asynchronous reads tagged with a `T` (what the bytes are): requests in flight (oldest first)
/// and read buffers to reuse.
#[derive(Debug)]
pub(crate) struct AsyncReads<T> {
    label: &'static str,
    in_flight: VecDeque<Request<T>>,
    pool: Vec<wgpu::Buffer>,
}

impl<T> AsyncReads<T> {
    /// No request yet; read buffers are labelled `label`.
    pub(crate) fn new(label: &'static str) -> Self {
        Self {
            label,
            in_flight: VecDeque::new(),
            pool: Vec::new(),
        }
    }

    /// Polls the device once (no wait) and returns `read` of the newest request that arrived
    /// (its tag and bytes); older arrived ones are dropped, failed ones forgotten.
    pub(crate) fn collect<R>(
        &mut self,
        device: &wgpu::Device,
        read: impl Fn(T, &[u8]) -> R,
    ) -> Result<Option<R>, GpuError> {
        device
            .poll(wgpu::PollType::Poll)
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        let mut newest = None;
        while let Some(front) = self.in_flight.front() {
            let state = front.state.load(Ordering::Acquire);
            if state == PENDING {
                break;
            }
            let Some(done) = self.in_flight.pop_front() else {
                break;
            };
            if state == MAPPED {
                newest = Some({
                    let view = done.buffer.get_mapped_range(..done.size);
                    read(done.tag, &view)
                });
                done.buffer.unmap();
            }
            self.pool.push(done.buffer);
        }
        Ok(newest)
    }

    /// Whether another request may be made.
    pub(crate) fn has_room(&self) -> bool {
        self.in_flight.len() < MAX_IN_FLIGHT
    }

    /// Queues `copies` (encoded into a read buffer of at least `size` bytes, after the work
    /// submitted so far) and maps the buffer's first `size` bytes in the background.
    pub(crate) fn request(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        size: u64,
        tag: T,
        copies: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    ) -> Result<(), GpuError> {
        let buffer = match self.pool.iter().position(|b| b.size() >= size) {
            Some(i) => self.pool.swap_remove(i),
            None => capture(device, || {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(self.label),
                    size: size.next_power_of_two(),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })?,
        };
        let state = Arc::new(AtomicU8::new(PENDING));
        let signal = Arc::clone(&state);
        capture(device, || {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(self.label),
            });
            copies(&mut encoder, &buffer);
            queue.submit([encoder.finish()]);
            buffer.map_async(wgpu::MapMode::Read, ..size, move |result| {
                signal.store(
                    if result.is_ok() { MAPPED } else { FAILED },
                    Ordering::Release,
                );
            });
        })?;
        self.in_flight.push_back(Request {
            buffer,
            size,
            state,
            tag,
        });
        Ok(())
    }
}

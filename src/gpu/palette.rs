//! The palette on the GPU: one buffer of skin matrices in which every instance owns a block of
//! entries, handed out by the crate's [`PaletteAllocator`] (first fit, coalescing). The buffer
//! grows on demand by copying on the GPU, so existing blocks keep their offsets and contents.
//! The per-instance AABB buffer lives beside it.

use super::layout::{AABB_BYTES, PALETTE_ENTRY_BYTES};
use super::scope::capture;
use crate::error::GpuError;
use crate::palette::{PaletteAllocator, PaletteBlock};

/// The palette buffer and the allocator of its blocks.
#[derive(Debug)]
pub struct Palette {
    allocator: PaletteAllocator,
    buffer: wgpu::Buffer,
    capacity: u32,
    generation: u64,
}

fn palette_buffer(device: &wgpu::Device, entries: u32) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("sinew palette"),
        size: u64::from(entries.max(1)) * PALETTE_ENTRY_BYTES,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl Palette {
    /// A palette of `entries` free entries.
    pub fn new(device: &wgpu::Device, entries: u32) -> Result<Self, GpuError> {
        let entries = entries.max(1);
        check_size(device, entries)?;
        let buffer = capture(device, || palette_buffer(device, entries))?;
        Ok(Self {
            allocator: PaletteAllocator::with_capacity(entries),
            buffer,
            capacity: entries,
            generation: 0,
        })
    }

    /// The buffer: [`crate::Mat3x4Rows`] entries, read by a vertex shader at each instance's
    /// offset.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The allocator.
    pub fn allocator(&self) -> &PaletteAllocator {
        &self.allocator
    }

    /// Capacity of the buffer in entries.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Changes whenever the buffer is replaced (bind groups that name it are stale).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// A block of `len` entries, growing the buffer when the allocator had to grow.
    pub fn allocate(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        len: u32,
    ) -> Result<PaletteBlock, GpuError> {
        let block = self
            .allocator
            .allocate(len)
            .ok_or(GpuError::LimitExceeded {
                limit: "palette entries",
                needed: u64::from(self.allocator.capacity()) + u64::from(len),
                available: u64::from(u32::MAX),
            })?;
        if let Err(e) = self.reserve(device, queue, self.allocator.capacity()) {
            self.allocator.free(block);
            return Err(e);
        }
        Ok(block)
    }

    /// Frees a block from [`Palette::allocate`].
    pub fn free(&mut self, block: PaletteBlock) -> Result<(), GpuError> {
        if block.len == 0 || self.allocator.free(block) {
            return Ok(());
        }
        Err(GpuError::BadBlock {
            offset: block.offset,
            len: block.len,
        })
    }

    /// Grows the buffer to hold at least `entries` entries (doubling, within the device's
    /// `max_buffer_size`), copying the old contents on the GPU.
    pub fn reserve(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        entries: u32,
    ) -> Result<(), GpuError> {
        let old = self.capacity;
        if entries <= old {
            return Ok(());
        }
        check_size(device, entries)?;
        let max_entries = device.limits().max_buffer_size / PALETTE_ENTRY_BYTES;
        let doubled = u64::from(old)
            .saturating_mul(2)
            .min(max_entries)
            .min(u64::from(u32::MAX));
        let new = entries.max(doubled as u32);
        let buffer = capture(device, || {
            let buffer = palette_buffer(device, new);
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("sinew palette growth"),
            });
            encoder.copy_buffer_to_buffer(
                &self.buffer,
                0,
                &buffer,
                0,
                u64::from(old) * PALETTE_ENTRY_BYTES,
            );
            queue.submit([encoder.finish()]);
            buffer
        })?;
        self.buffer = buffer;
        self.capacity = new;
        self.generation += 1;
        Ok(())
    }
}

fn check_size(device: &wgpu::Device, entries: u32) -> Result<(), GpuError> {
    let bytes = u64::from(entries) * PALETTE_ENTRY_BYTES;
    let available = device.limits().max_buffer_size;
    if bytes > available {
        return Err(GpuError::LimitExceeded {
            limit: "max_buffer_size",
            needed: bytes,
            available,
        });
    }
    Ok(())
}

/// One animated AABB ([`crate::Aabb`]) per instance record of the last frame.
#[derive(Debug)]
pub struct BoundsBuffer {
    buffer: wgpu::Buffer,
    capacity: u64,
    generation: u64,
}

fn bounds_buffer(device: &wgpu::Device, capacity: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("sinew instance bounds"),
        size: capacity.max(1) * AABB_BYTES,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

impl BoundsBuffer {
    /// A buffer for `capacity` boxes.
    pub fn new(device: &wgpu::Device, capacity: u64) -> Result<Self, GpuError> {
        let capacity = capacity.max(1);
        let buffer = capture(device, || bounds_buffer(device, capacity))?;
        Ok(Self {
            buffer,
            capacity,
            generation: 0,
        })
    }

    /// The buffer.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// Capacity in boxes.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Changes whenever the buffer is replaced.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Makes room for `count` boxes (doubling). Contents are not kept: every frame rewrites them.
    pub fn reserve(&mut self, device: &wgpu::Device, count: u64) -> Result<(), GpuError> {
        if count <= self.capacity {
            return Ok(());
        }
        let available = device.limits().max_storage_buffer_binding_size;
        let new = count.max(self.capacity.saturating_mul(2).min(available / AABB_BYTES));
        if new * AABB_BYTES > available {
            return Err(GpuError::LimitExceeded {
                limit: "max_storage_buffer_binding_size",
                needed: new * AABB_BYTES,
                available,
            });
        }
        self.buffer = capture(device, || bounds_buffer(device, new))?;
        self.capacity = new;
        self.generation += 1;
        Ok(())
    }
}

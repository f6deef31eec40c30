//! The palette on the GPU: skin matrices in which every instance owns a block of entries,
//! handed out by the crate's [`PaletteAllocator`] (first fit, coalescing). A palette that fits
//! one storage binding is one buffer; a larger one is one buffer per binding window
//! ([`PaletteSegment`]s, paged by [`PalettePaging`]), so the crowd is limited by device memory,
//! not by one buffer. The palette grows on demand by copying on the GPU, so existing blocks keep
//! their offsets and contents. The per-instance AABB buffer lives beside it.

use super::layout::{AABB_BYTES, PALETTE_ENTRY_BYTES};
use super::palette_segment::PaletteSegment;
use super::scope::capture;
use crate::error::GpuError;
use crate::palette::{PaletteAllocator, PaletteBlock};
use crate::render::PalettePaging;

/// The palette's buffers and the allocator of its blocks.
#[derive(Debug)]
pub struct Palette {
    allocator: PaletteAllocator,
    segments: Vec<PaletteSegment>,
    paging: PalettePaging,
    capacity: u32,
    generation: u64,
}

fn palette_buffer(device: &wgpu::Device, entries: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("sinew palette"),
        size: entries.max(1) * PALETTE_ENTRY_BYTES,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Entries of each buffer of a palette of `capacity` entries under `paging`.
fn segment_sizes(capacity: u32, paging: PalettePaging) -> Vec<u64> {
    let (capacity, window) = (u64::from(capacity), u64::from(paging.window_entries));
    if capacity <= window {
        return vec![capacity];
    }
    let stride = u64::from(paging.stride);
    (0..capacity.div_ceil(stride))
        .map(|k| (capacity - k * stride).min(window))
        .collect()
}

impl Palette {
    /// A palette of `entries` free entries, in buffers of at most one window of `paging`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        entries: u32,
        paging: PalettePaging,
    ) -> Result<Self, GpuError> {
        let mut palette = Self {
            allocator: PaletteAllocator::with_capacity(0),
            segments: Vec::new(),
            paging,
            capacity: 0,
            generation: 0,
        };
        palette.reserve(device, queue, entries.max(1))?;
        palette.allocator = PaletteAllocator::with_capacity(palette.capacity);
        Ok(palette)
    }

    /// The buffers, by first entry: one while the palette fits one window of its paging, else
    /// buffer `k` holds window `k` (entries from `k * stride` on).
    pub fn segments(&self) -> &[PaletteSegment] {
        &self.segments
    }

    /// How the palette is cut into buffers.
    pub fn paging(&self) -> PalettePaging {
        self.paging
    }

    /// Entries from one buffer's start to the next, when the palette spans several buffers.
    pub fn stride(&self) -> Option<u32> {
        (self.segments.len() > 1).then_some(self.paging.stride)
    }

    /// The allocator.
    pub fn allocator(&self) -> &PaletteAllocator {
        &self.allocator
    }

    /// Capacity in entries.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Changes whenever a buffer is replaced or added (bind groups that name one are stale).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// A block of `len` entries, growing the palette when the allocator had to grow.
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

    /// Grows the palette to hold at least `entries` entries (doubling), copying what its
    /// buffers hold on the GPU. Past one window, every window gets a buffer of its own: a block
    /// written while the palette was one buffer is copied into the buffer of the window it
    /// starts in, and buffers already whole stay as they are.
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
        let window = self.paging.window_entries;
        let doubled = old.saturating_mul(2);
        let new = entries.max(if entries <= window {
            doubled.min(window)
        } else {
            doubled
        });
        let sizes = segment_sizes(new, self.paging);
        let available = device.limits().max_buffer_size;
        let largest = sizes.iter().copied().max().unwrap_or(0) * PALETTE_ENTRY_BYTES;
        if largest > available {
            return Err(GpuError::LimitExceeded {
                limit: "max_buffer_size",
                needed: largest,
                available,
            });
        }
        // One buffer becoming several: each new buffer takes its window's part of the old one.
        let splitting = self.segments.len() == 1 && sizes.len() > 1;
        let stride = if sizes.len() > 1 {
            u64::from(self.paging.stride)
        } else {
            0
        };
        let old_segments = &self.segments;
        let segments = capture(device, || {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("sinew palette growth"),
            });
            let mut segments = Vec::with_capacity(sizes.len());
            for (k, &len) in sizes.iter().enumerate() {
                let first = k as u64 * stride;
                let (source, from) = if splitting {
                    (old_segments.first(), first)
                } else {
                    (old_segments.get(k), 0)
                };
                let buffer = match source {
                    Some(s) if !splitting && s.entries() == len => s.buffer.clone(),
                    _ => {
                        let buffer = palette_buffer(device, len);
                        let copied =
                            source.map_or(0, |s| s.entries().saturating_sub(from).min(len));
                        if let (Some(s), true) = (source, copied > 0) {
                            encoder.copy_buffer_to_buffer(
                                &s.buffer,
                                from * PALETTE_ENTRY_BYTES,
                                &buffer,
                                0,
                                copied * PALETTE_ENTRY_BYTES,
                            );
                        }
                        buffer
                    }
                };
                segments.push(PaletteSegment {
                    first_entry: first as u32,
                    buffer,
                });
            }
            queue.submit([encoder.finish()]);
            segments
        })?;
        self.segments = segments;
        self.capacity = new;
        self.generation += 1;
        Ok(())
    }
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

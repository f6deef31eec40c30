//! The upload path: palettes and animated boxes evaluated on the CPU ([`crate::CpuBackend`])
//! written into storage buffers shaped like the ones the GPU evaluator fills, so the renderer
//! reads either through the same `&wgpu::Buffer`.

use crate::math::Aabb;
use crate::math::Mat3x4Rows;

use super::error::{RenderError, capture, check_buffer_size};

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

/// A palette buffer of `entries` [`Mat3x4Rows`] (at least one), usable as a read-only storage
/// binding and as a copy source and destination. It may exceed one storage binding (the
/// renderer binds it in windows); it may not exceed the device's `max_buffer_size`.
pub fn create_palette_buffer(
    device: &wgpu::Device,
    entries: usize,
) -> Result<wgpu::Buffer, RenderError> {
    let size = (entries.max(1) as u64).saturating_mul(std::mem::size_of::<Mat3x4Rows>() as u64);
    create_storage(device, "sinew palette", size)
}

/// Writes `palette` into `buffer` (a buffer of `device`) from entry `first_entry` on, inside
/// `device`'s error scopes. Errors when the buffer lacks `COPY_DST` or ends before the last entry
/// ([`RenderError::InvalidInput`]), or with what wgpu reports (a destroyed buffer, say).
pub fn write_palette(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    first_entry: usize,
    palette: &[Mat3x4Rows],
) -> Result<(), RenderError> {
    write(device, queue, buffer, "palette", first_entry, palette)
}

/// An AABB buffer of `count` boxes (at least one): `array<Aabb>` in WGSL. Like the palette, it
/// may exceed one storage binding but not `max_buffer_size`.
pub fn create_aabb_buffer(
    device: &wgpu::Device,
    count: usize,
) -> Result<wgpu::Buffer, RenderError> {
    let size = (count.max(1) as u64).saturating_mul(std::mem::size_of::<Aabb>() as u64);
    create_storage(device, "sinew animated aabbs", size)
}

/// A storage buffer of `size` bytes, with wgpu's errors captured.
fn create_storage(
    device: &wgpu::Device,
    label: &str,
    size: u64,
) -> Result<wgpu::Buffer, RenderError> {
    check_buffer_size(size, device.limits().max_buffer_size)?;
    capture(device, || {
        Ok(device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: STORAGE,
            mapped_at_creation: false,
        }))
    })
}

/// Writes `aabbs` into `buffer` from box `first` on; errors as [`write_palette`] does.
pub fn write_aabbs(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    first: usize,
    aabbs: &[Aabb],
) -> Result<(), RenderError> {
    write(device, queue, buffer, "aabb buffer", first, aabbs)
}

fn write<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    what: &str,
    first: usize,
    items: &[T],
) -> Result<(), RenderError> {
    let stride = std::mem::size_of::<T>() as u64;
    let offset = first as u64 * stride;
    let size = items.len() as u64 * stride;
    // The queue has no error scope of its own: refuse here what wgpu would reject.
    if !buffer.usage().contains(wgpu::BufferUsages::COPY_DST) {
        return Err(RenderError::invalid(
            what,
            format!("the buffer's usage {:?} lacks COPY_DST", buffer.usage()),
        ));
    }
    if offset + size > buffer.size() {
        return Err(RenderError::invalid(
            what,
            format!(
                "writing {} entries at {first} needs {} bytes; the buffer has {}",
                items.len(),
                offset + size,
                buffer.size()
            ),
        ));
    }
    if items.is_empty() {
        return Ok(());
    }
    capture(device, || {
        queue.write_buffer(buffer, offset, bytemuck::cast_slice(items));
        Ok(())
    })
}

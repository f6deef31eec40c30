//! Reading GPU results back: byte ranges of any buffers copied into one `MAP_READ` staging
//! buffer, mapped, and waited for. A debug and gameplay path (attachments, culling statistics);
//! rendering never needs it.

use glam::{Affine3A, DAffine3};

use super::scope::capture;
use crate::error::GpuError;
use crate::math::Aabb;
use crate::math::Mat3x4Rows;

/// One byte range of a buffer to read.
#[derive(Clone, Copy, Debug)]
pub struct ReadRange<'a> {
    /// The buffer (must have `COPY_SRC` usage).
    pub buffer: &'a wgpu::Buffer,
    /// First byte (a multiple of 4).
    pub offset: u64,
    /// Length in bytes (a multiple of 4).
    pub size: u64,
}

/// Copies every range into one staging buffer, waits for the GPU, and returns the bytes of each
/// range, in order.
pub fn read_ranges(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    ranges: &[ReadRange<'_>],
) -> Result<Vec<Vec<u8>>, GpuError> {
    let total: u64 = ranges.iter().map(|r| r.size).sum();
    if total == 0 {
        return Ok(ranges.iter().map(|_| Vec::new()).collect());
    }
    for r in ranges {
        if r.offset % wgpu::COPY_BUFFER_ALIGNMENT != 0
            || r.size % wgpu::COPY_BUFFER_ALIGNMENT != 0
            || r.offset + r.size > r.buffer.size()
        {
            return Err(GpuError::Readback(format!(
                "range {}..{} of a {}-byte buffer is unaligned or out of bounds",
                r.offset,
                r.offset + r.size,
                r.buffer.size()
            )));
        }
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let (staging, submission) = capture(device, || {
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sinew readback staging"),
            size: total,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("sinew readback copies"),
        });
        let mut at = 0;
        for r in ranges {
            if r.size > 0 {
                encoder.copy_buffer_to_buffer(r.buffer, r.offset, &staging, at, r.size);
            }
            at += r.size;
        }
        let submission = queue.submit([encoder.finish()]);
        staging.map_async(wgpu::MapMode::Read, .., move |result| {
            // The receiver outlives the wait below; a failed send only means nobody listens.
            let _ = sender.send(result);
        });
        (staging, submission)
    })?;
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(submission),
            timeout: None,
        })
        .map_err(|e| GpuError::Readback(e.to_string()))?;
    receiver
        .recv()
        .map_err(|e| GpuError::Readback(e.to_string()))?
        .map_err(|e| GpuError::Readback(e.to_string()))?;
    let out = {
        let view = staging.get_mapped_range(..);
        let mut out = Vec::with_capacity(ranges.len());
        let mut at = 0usize;
        for r in ranges {
            let end = at + r.size as usize;
            out.push(view[at..end].to_vec());
            at = end;
        }
        out
    };
    staging.unmap();
    Ok(out)
}

/// Palette entries from raw bytes.
pub fn palette_from_bytes(bytes: &[u8]) -> Vec<Mat3x4Rows> {
    bytemuck::pod_collect_to_vec(bytes)
}

/// Boxes from raw bytes.
pub fn bounds_from_bytes(bytes: &[u8]) -> Vec<Aabb> {
    bytemuck::pod_collect_to_vec(bytes)
}

/// A joint's model matrix recovered from its palette entry: `palette x inverse(inverse bind)`,
/// in double precision so the only error left is the palette's own rounding. `None` when the
/// inverse bind matrix is singular.
pub fn model_from_palette(entry: &Mat3x4Rows, inverse_bind: &Affine3A) -> Option<Affine3A> {
    let ibm = inverse_bind.as_daffine3();
    let det = ibm.matrix3.determinant();
    if !det.is_finite() || det.abs() < 1e-300 {
        return None;
    }
    let model: DAffine3 = entry.to_affine().as_daffine3() * ibm.inverse();
    Some(model.as_affine3a())
}

/// What was read back of one instance.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceReadback {
    /// Index of the instance record in the frame.
    pub record: usize,
    /// The instance's palette block: the entry of each joint, then its morph weights.
    pub palette: Vec<Mat3x4Rows>,
    /// Model matrix of each joint (world x joint-to-model), recovered from the palette.
    pub models: Vec<Affine3A>,
    /// The animated AABB.
    pub bounds: Aabb,
}

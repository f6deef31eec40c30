//! Offscreen capture: texture and buffer readback through a MAP_READ staging buffer, and PNG
//! files.

use std::path::Path;

use super::error::{RenderError, capture};

/// An 8-bit RGBA image, rows top to bottom, no padding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes ([`RgbaImage::new`] checks; an image built from its fields is
    /// checked where it is read or saved).
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    /// An image of `width × height` pixels from `pixels`, which must hold exactly
    /// `width * height * 4` bytes.
    pub fn new(width: u32, height: u32, pixels: Vec<u8>) -> Result<Self, RenderError> {
        let image = Self {
            width,
            height,
            pixels,
        };
        image
            .check_size()
            .map_err(|reason| RenderError::invalid(format!("{width}×{height} image"), reason))?;
        Ok(image)
    }

    /// `width * height * 4`, the byte count the pixels must have.
    fn byte_len(&self) -> u128 {
        u128::from(self.width) * u128::from(self.height) * 4
    }

    /// Checks that the byte buffer holds exactly `width * height * 4` bytes.
    fn check_size(&self) -> Result<(), String> {
        if self.pixels.len() as u128 != self.byte_len() {
            return Err(format!(
                "{} bytes of pixels, {} expected",
                self.pixels.len(),
                self.byte_len()
            ));
        }
        Ok(())
    }

    /// The RGBA value at `(x, y)`: `None` outside the image, or where the byte buffer is too
    /// short to hold the pixel.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (u128::from(y) * u128::from(self.width) + u128::from(x)) * 4;
        let i = usize::try_from(i).ok()?;
        let bytes = self.pixels.get(i..i.checked_add(4)?)?;
        bytes.try_into().ok()
    }

    /// Writes the image as an 8-bit sRGB RGBA PNG.
    pub fn save_png(&self, path: impl AsRef<Path>) -> Result<(), RenderError> {
        let path = path.as_ref();
        let fail = |reason: String| RenderError::Image {
            path: path.display().to_string(),
            reason,
        };
        self.check_size().map_err(fail)?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create folder: {e}")))?;
        }
        let file =
            std::fs::File::create(path).map_err(|e| fail(format!("cannot create file: {e}")))?;
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = encoder
            .write_header()
            .map_err(|e| fail(format!("cannot write PNG header: {e}")))?;
        writer
            .write_image_data(&self.pixels)
            .map_err(|e| fail(format!("cannot write PNG data: {e}")))?;
        writer
            .finish()
            .map_err(|e| fail(format!("cannot finish PNG: {e}")))
    }

    /// Reads an 8-bit RGBA or RGB PNG.
    pub fn load_png(path: impl AsRef<Path>) -> Result<Self, RenderError> {
        let path = path.as_ref();
        let fail = |reason: String| RenderError::Image {
            path: path.display().to_string(),
            reason,
        };
        let file = std::fs::File::open(path).map_err(|e| fail(format!("cannot open: {e}")))?;
        let decoder = png::Decoder::new(std::io::BufReader::new(file));
        let mut reader = decoder
            .read_info()
            .map_err(|e| fail(format!("not a PNG: {e}")))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| fail("image too large".into()))?;
        let mut data = vec![0; size];
        let info = reader
            .next_frame(&mut data)
            .map_err(|e| fail(format!("cannot decode: {e}")))?;
        if info.bit_depth != png::BitDepth::Eight {
            return Err(fail(format!("bit depth {:?}, expected 8", info.bit_depth)));
        }
        data.truncate(info.buffer_size());
        let pixels = match info.color_type {
            png::ColorType::Rgba => data,
            png::ColorType::Rgb => data
                .chunks_exact(3)
                .flat_map(|c| [c[0], c[1], c[2], 255])
                .collect(),
            other => return Err(fail(format!("colour type {other:?}, expected RGBA or RGB"))),
        };
        let image = Self {
            width: info.width,
            height: info.height,
            pixels,
        };
        image.check_size().map_err(fail)?;
        Ok(image)
    }
}

/// Copies an RGBA8 texture (one of the `Rgba8*` formats, or `Bgra8*` swizzled to RGBA;
/// `COPY_SRC` usage) to the CPU: a copy
/// into a MAP_READ buffer whose rows are padded to 256 bytes, then the padding removed.
pub fn read_texture_rgba8(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<RgbaImage, RenderError> {
    let format = texture.format();
    let bgra = match format {
        wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Rgba8UnormSrgb => false,
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb => true,
        _ => {
            return Err(RenderError::invalid(
                "texture readback",
                format!("format {format:?} is not Rgba8Unorm(Srgb) or Bgra8Unorm(Srgb)"),
            ));
        }
    };
    let mut pixels = read_texture_rows(device, queue, texture, 4)?;
    if bgra {
        for p in pixels.chunks_exact_mut(4) {
            p.swap(0, 2);
        }
    }
    RgbaImage::new(texture.width(), texture.height(), pixels)
}

/// Copies a texture (`COPY_SRC` usage) of `texel_bytes` bytes per texel to the CPU, rows
/// packed: a copy into a MAP_READ buffer whose rows are padded to 256 bytes, then the padding
/// removed.
pub(crate) fn read_texture_rows(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    texel_bytes: u32,
) -> Result<Vec<u8>, RenderError> {
    let (width, height) = (texture.width(), texture.height());
    let row = width * texel_bytes;
    let padded =
        row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let size = u64::from(padded) * u64::from(height);
    let staging = capture(device, || {
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sinew texture readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("sinew texture readback"),
        });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([encoder.finish()]);
        Ok(staging)
    })?;
    let bytes = map_read(device, &staging, 0, size)?;
    let mut pixels = Vec::with_capacity((row * height) as usize);
    for r in bytes.chunks_exact(padded as usize) {
        pixels.extend_from_slice(&r[..row as usize]);
    }
    Ok(pixels)
}

/// Copies `size` bytes from `offset` of `buffer` (which needs `COPY_SRC`) to the CPU. `offset`
/// and `size` must be multiples of 4.
pub fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, RenderError> {
    if size == 0 {
        return Ok(Vec::new());
    }
    if !offset.is_multiple_of(4) || !size.is_multiple_of(4) || offset + size > buffer.size() {
        return Err(RenderError::invalid(
            "buffer readback",
            format!(
                "range {offset}..{} of a {}-byte buffer is not 4-byte aligned or out of bounds",
                offset + size,
                buffer.size()
            ),
        ));
    }
    let staging = capture(device, || {
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sinew buffer readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("sinew buffer readback"),
        });
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
        queue.submit([encoder.finish()]);
        Ok(staging)
    })?;
    map_read(device, &staging, 0, size)
}

/// Maps `buffer` for reading (wgpu's errors captured), waits, and copies the bytes out.
fn map_read(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, RenderError> {
    let (sender, receiver) = std::sync::mpsc::channel();
    capture(device, || {
        buffer.map_async(wgpu::MapMode::Read, offset..offset + size, move |result| {
            // The receiver waits below; if it is gone there is nobody to tell.
            let _ = sender.send(result);
        });
        Ok(())
    })?;
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    receiver
        .recv()
        .map_err(|e| RenderError::Readback(format!("map callback never ran: {e}")))?
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    let bytes = buffer.get_mapped_range(offset..offset + size).to_vec();
    buffer.unmap();
    Ok(bytes)
}

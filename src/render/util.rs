//! Small helpers the passes share: bind group layout entries, lazily created pipelines and
//! shader modules.

use std::borrow::Cow;
use std::num::NonZeroU64;
use std::sync::OnceLock;

use super::error::{RenderError, capture};

/// A storage buffer entry at `binding` whose elements are `min_size` bytes.
pub(crate) fn storage_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    read_only: bool,
    min_size: u64,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(min_size),
        },
        count: None,
    }
}

/// A uniform buffer entry at `binding` of `size` bytes.
pub(crate) fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
    size: u64,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(size),
        },
        count: None,
    }
}

/// Something created on first use (a pipeline or shader module), or the error creating it
/// gave; later calls return the same.
#[derive(Debug)]
pub(crate) struct Lazy<T>(OnceLock<Result<T, RenderError>>);

impl<T> Default for Lazy<T> {
    fn default() -> Self {
        Self(OnceLock::new())
    }
}

impl<T> Lazy<T> {
    pub(crate) fn get(
        &self,
        create: impl FnOnce() -> Result<T, RenderError>,
    ) -> Result<&T, RenderError> {
        match self.0.get_or_init(create) {
            Ok(value) => Ok(value),
            Err(e) => Err(e.clone()),
        }
    }
}

/// Creates a shader module from WGSL, with wgpu's errors captured.
pub(crate) fn shader_module(
    device: &wgpu::Device,
    label: &str,
    source: String,
) -> Result<wgpu::ShaderModule, RenderError> {
    capture(device, || {
        Ok(device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(Cow::Owned(source)),
        }))
    })
}

/// A buffer initialized with `contents`, zero-padded to a multiple of 4 bytes and to at least
/// 64 bytes (so an empty list still satisfies every `min_binding_size`).
pub(crate) fn buffer_init(
    device: &wgpu::Device,
    label: &str,
    contents: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    let mut bytes = contents.to_vec();
    bytes.resize(contents.len().max(64).next_multiple_of(4), 0);
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: &bytes,
        usage,
    })
}

/// A zeroed buffer of `size` bytes (at least 4).
pub(crate) fn buffer_zeroed(
    device: &wgpu::Device,
    label: &str,
    size: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(4).next_multiple_of(4),
        usage,
        mapped_at_creation: false,
    })
}

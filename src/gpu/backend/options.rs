//! [`GpuOptions`]: how a [`crate::GpuBackend`] is set up.

use crate::gpu::ClipFormat;

/// Settings of a [`crate::GpuBackend`]; the defaults suit any device.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuOptions {
    /// Palette entries to allocate up front.
    pub initial_palette_entries: u32,
    /// Largest palette binding in bytes (the device's `max_storage_buffer_binding_size` when
    /// `None` or larger). A palette beyond it is evaluated in windows, one dispatch each.
    pub max_palette_binding: Option<u64>,
    /// Largest binding of instance records in bytes (the device's
    /// `max_storage_buffer_binding_size` when `None` or larger). Slots beyond it are evaluated
    /// in further dispatches.
    pub max_record_binding: Option<u64>,
    /// The clips the kernel samples: exact key tracks (the default) or compressed clips.
    pub clips: ClipFormat,
    /// Keep the previous palette for motion vectors ([`crate::GpuBackend::previous_palette_segments`],
    /// [`crate::GpuBackend::evaluated_at_buffer`]): before the kernel evaluates an instance it copies
    /// the instance's joint and morph weight entries aside and stamps its slot. Off by default:
    /// the buffers then do not exist and the kernel copies nothing. Needs ten storage buffers
    /// per compute stage ([`crate::gpu::PREVIOUS_PALETTE_STORAGE_BUFFERS`]).
    pub previous_palette: bool,
}

impl Default for GpuOptions {
    fn default() -> Self {
        Self {
            initial_palette_entries: 4096,
            max_palette_binding: None,
            max_record_binding: None,
            clips: ClipFormat::Exact,
            previous_palette: false,
        }
    }
}

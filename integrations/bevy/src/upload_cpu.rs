//! The CPU backends' palette into the buffer the skinning material binds: the main world swaps
//! (fast mode) or copies (exact mode) each frame's palette into [`CpuPalette`], shared with the
//! render world, which writes the entries in use with one `write_buffer` before Bevy's passes.
//! The palette asset itself is touched only to grow, so nothing the size of the buffer is
//! allocated, zeroed or uploaded per frame.

use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy::render::render_asset::RenderAssets;
use bevy::render::renderer::RenderQueue;
use bevy::render::storage::{GpuShaderBuffer, ShaderBuffer};
use sinew::Mat3x4Rows;

/// The last palette a CPU backend evaluated, shared by both worlds.
#[derive(Resource, Clone)]
pub(crate) struct CpuPalette {
    /// The entries, indexed by palette offset.
    pub entries: Arc<Mutex<Vec<Mat3x4Rows>>>,
    /// The buffer they go to.
    pub buffer: Handle<ShaderBuffer>,
}

impl CpuPalette {
    pub(crate) fn new(buffer: Handle<ShaderBuffer>) -> Self {
        Self {
            entries: Arc::default(),
            buffer,
        }
    }

    /// Hands `palette` over, taking the previous frame's vector back in its place.
    pub(crate) fn swap(&self, palette: &mut Vec<Mat3x4Rows>) {
        std::mem::swap(
            &mut *self.entries.lock().unwrap_or_else(|e| e.into_inner()),
            palette,
        );
    }

    /// Copies `palette` in.
    pub(crate) fn copy_from(&self, palette: &[Mat3x4Rows]) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.clear();
        entries.extend_from_slice(palette);
    }

    /// Entries `offset..offset + count`, or `None` out of range.
    pub(crate) fn read(&self, offset: usize, count: usize) -> Option<Vec<Mat3x4Rows>> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(offset..offset + count).map(<[_]>::to_vec)
    }
}

/// Writes the shared palette into the material's buffer (as much of it as the buffer holds).
pub(crate) fn upload_cpu_palette(
    palette: Res<CpuPalette>,
    buffers: Res<RenderAssets<GpuShaderBuffer>>,
    queue: Res<RenderQueue>,
) {
    let Some(target) = buffers.get(palette.buffer.id()) else {
        return;
    };
    let entries = palette.entries.lock().unwrap_or_else(|e| e.into_inner());
    let bytes: &[u8] = bytemuck::cast_slice(&entries);
    let len = (bytes.len() as u64).min(target.buffer.size()) as usize;
    if len > 0 {
        queue.write_buffer(&target.buffer, 0, &bytes[..len]);
    }
}

//! The CPU backends' palette into the page buffers the skinning materials bind: the main world
//! swaps (fast mode) or copies (exact mode) each frame's palette into [`CpuPalette`], shared with
//! the render world, which writes each page's entries with one `write_buffer` before Bevy's
//! passes. The page assets are touched only to grow, so nothing the size of the palette is
//! allocated, zeroed or uploaded per frame beyond the entries themselves.

use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy::render::render_asset::RenderAssets;
use bevy::render::renderer::RenderQueue;
use bevy::render::storage::GpuShaderBuffer;
use sinew::Mat3x4Rows;

use crate::palette::PageTable;

/// The last palette a CPU backend evaluated, shared by both worlds.
#[derive(Resource, Clone)]
pub(crate) struct CpuPalette {
    /// The entries, indexed by palette offset.
    pub entries: Arc<Mutex<Vec<Mat3x4Rows>>>,
    /// The pages they go to.
    pub pages: Arc<Mutex<PageTable>>,
}

impl CpuPalette {
    pub(crate) fn new(pages: Arc<Mutex<PageTable>>) -> Self {
        Self {
            entries: Arc::default(),
            pages,
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

/// Writes the shared palette into the page buffers (each as much of its page as it holds).
pub(crate) fn upload_cpu_palette(
    palette: Res<CpuPalette>,
    buffers: Res<RenderAssets<GpuShaderBuffer>>,
    queue: Res<RenderQueue>,
) {
    let pages = palette.pages.lock().unwrap_or_else(|e| e.into_inner());
    let entries = palette.entries.lock().unwrap_or_else(|e| e.into_inner());
    for (first, buffer) in pages.pages() {
        let Some(target) = buffers.get(buffer.id()) else {
            continue;
        };
        let holds = target.buffer.size() as usize / std::mem::size_of::<Mat3x4Rows>();
        let page = entries.get(first..).unwrap_or_default();
        let page = &page[..page.len().min(holds)];
        if !page.is_empty() {
            queue.write_buffer(&target.buffer, 0, bytemuck::cast_slice(page));
        }
    }
}

//! [`SinewPalette`]: the palette the skinning materials read, in pages.
//!
//! One storage binding holds at most the device's `max_storage_buffer_binding_size` (128 MiB on
//! many devices: about 2.8 million entries, some 49,000 characters of 57 joints), so the palette
//! is split as sinew's renderer binds it ([`PalettePaging`]): page `k` is a buffer of its own
//! holding entries `k * stride ..` (at most one binding), and a character whose block starts at
//! entry `o` is drawn from page `o / stride`, with `MeshTag(o - k * stride)` and its rig's
//! materials for that page. The pages are fixed by the device's limits, so a character never
//! changes page; each page's buffer grows with the animator's palette, ahead of need.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bevy::asset::RenderAssetUsages;
use bevy::prelude::*;
use bevy::render::renderer::RenderDevice;
use bevy::render::storage::ShaderBuffer;
use sinew::Mat3x4Rows;
use sinew::render::{PalettePaging, palette_paging};

use crate::material::SinewMaterial;

/// Bytes of one palette entry.
const ENTRY_BYTES: usize = std::mem::size_of::<Mat3x4Rows>();

/// Where each page's entries start and the buffer holding them: shared with the render world,
/// which fills the buffers (`upload_cpu.rs`, `evaluate_gpu.rs`).
#[derive(Clone, Debug, Default)]
pub(crate) struct PageTable {
    /// Entries from one page's start to the next.
    pub stride: u32,
    /// Page `k`'s buffer, holding entries `k * stride ..`.
    pub buffers: Vec<Handle<ShaderBuffer>>,
}

impl PageTable {
    /// Each page's first palette entry and buffer.
    pub(crate) fn pages(&self) -> impl Iterator<Item = (usize, &Handle<ShaderBuffer>)> {
        let stride = self.stride as usize;
        self.buffers
            .iter()
            .enumerate()
            .map(move |(k, b)| (k * stride, b))
    }
}

/// One page: its buffer, and the materials binding it.
#[derive(Debug)]
struct Page {
    buffer: Handle<ShaderBuffer>,
    /// The buffer's size in bytes.
    bytes: usize,
    /// Whether the buffer grew last frame (its materials rebind this frame).
    rebind: bool,
    materials: Vec<Handle<SinewMaterial>>,
}

/// The palette the skinning materials read: page buffers filled each frame in the render world
/// from the CPU backends' palette or by copies from the GPU backend's.
#[derive(Resource)]
pub struct SinewPalette {
    pages: Vec<Page>,
    /// The device's paging, known with its limits.
    paging: Option<PalettePaging>,
    /// The largest page the plugin was asked for, in bytes.
    page_cap: Option<u64>,
    /// A page-0 material's twin on another page.
    on_page: HashMap<(AssetId<SinewMaterial>, u32), Handle<SinewMaterial>>,
    /// The page table the render world fills, shared.
    pub(crate) table: Arc<Mutex<PageTable>>,
    /// The morph displacements bound for meshes without targets (a binding cannot be empty),
    /// made with the first rig: an asset added before the renderer runs is never extracted.
    pub(crate) no_morph: Option<Handle<ShaderBuffer>>,
    /// The CPU backends' last palette, shared with the render world.
    pub(crate) cpu: crate::upload_cpu::CpuPalette,
}

impl SinewPalette {
    /// A palette of one empty page, with pages of at most `page_cap` bytes (default: one
    /// storage binding of the device).
    pub(crate) fn new(buffers: &mut Assets<ShaderBuffer>, page_cap: Option<u64>) -> Self {
        let table = Arc::new(Mutex::new(PageTable::default()));
        let mut palette = Self {
            pages: Vec::new(),
            paging: None,
            page_cap,
            on_page: HashMap::new(),
            table: table.clone(),
            no_morph: None,
            cpu: crate::upload_cpu::CpuPalette::new(table),
        };
        palette.add_page(buffers, ENTRY_BYTES);
        palette
    }

    /// Page 0's buffer: the one a new character's materials bind.
    pub(crate) fn first_buffer(&self) -> Handle<ShaderBuffer> {
        self.pages[0].buffer.clone() // ok: a palette has a page from its creation
    }

    /// The page buffers, in order.
    pub fn page_buffers(&self) -> impl Iterator<Item = &Handle<ShaderBuffer>> {
        self.pages.iter().map(|p| &p.buffer)
    }

    /// Entries `offset..offset + count` of the palette a CPU backend last evaluated (what the
    /// vertex shader reads this frame), or `None` when out of range or with
    /// [`crate::SinewBackend::Gpu`] (read [`crate::SinewGpu`]'s backend in the render world).
    pub fn read(&self, offset: usize, count: usize) -> Option<Vec<Mat3x4Rows>> {
        self.cpu.read(offset, count)
    }

    /// A material of a new character, on page 0 until the character is placed.
    pub(crate) fn track(&mut self, material: Handle<SinewMaterial>) {
        self.pages[0].materials.push(material); // ok: page 0 exists from the creation
    }

    /// The device's paging (computed once, with the plugin's page cap); `None` when one binding
    /// cannot hold a palette block (logged).
    fn paging(&mut self, device: Option<&RenderDevice>) -> Option<PalettePaging> {
        if self.paging.is_none() {
            let mut limits = device.map_or_else(wgpu::Limits::default, |d| d.limits());
            if let Some(cap) = self.page_cap {
                limits.max_storage_buffer_binding_size =
                    limits.max_storage_buffer_binding_size.min(cap);
            }
            match palette_paging(&limits) {
                Ok(p) => self.paging = Some(p),
                Err(e) => {
                    error!("sinew: the palette cannot be bound on this device: {e}");
                    self.paging = Some(PalettePaging {
                        window_entries: 0,
                        stride: 0,
                    });
                }
            }
        }
        self.paging.filter(|p| p.stride > 0)
    }

    /// Rebinds the materials of pages that grew last frame (their buffers exist in the render
    /// world now), then adds and grows pages so that `entries` palette entries fit: each page
    /// twice what it holds, once half full, up to one binding. A grown buffer keeps its
    /// contents; the frame before its materials rebind still finds every character in the old
    /// one.
    pub(crate) fn grow(
        &mut self,
        entries: u32,
        device: Option<&RenderDevice>,
        buffers: &mut Assets<ShaderBuffer>,
        materials: &mut Assets<SinewMaterial>,
    ) {
        for page in &mut self.pages {
            if std::mem::take(&mut page.rebind) {
                for m in &page.materials {
                    materials.get_mut(m);
                }
            }
        }
        let Some(paging) = self.paging(device) else {
            return;
        };
        let count = entries.div_ceil(paging.stride).max(1);
        while self.pages.len() < count as usize {
            self.add_page(buffers, ENTRY_BYTES);
        }
        let max = paging.window_entries as usize * ENTRY_BYTES;
        for (k, page) in self.pages.iter_mut().enumerate() {
            let needed = paging.window_len(k as u32, entries) as usize * ENTRY_BYTES;
            if needed * 2 <= page.bytes {
                continue;
            }
            let bytes = (needed * 2).next_power_of_two().min(max);
            if bytes != page.bytes
                && let Some(mut buffer) = buffers.get_mut(&page.buffer)
            {
                buffer.resize_in_place(bytes as u64);
                page.bytes = bytes;
                page.rebind = true;
            }
        }
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        table.stride = paging.stride;
        table.buffers.clear();
        table
            .buffers
            .extend(self.pages.iter().map(|p| p.buffer.clone()));
    }

    fn add_page(&mut self, buffers: &mut Assets<ShaderBuffer>, bytes: usize) {
        let buffer = buffers.add(ShaderBuffer::with_size(
            bytes,
            RenderAssetUsages::RENDER_WORLD,
        ));
        self.pages.push(Page {
            buffer,
            bytes,
            rebind: false,
            materials: Vec::new(),
        });
    }

    /// Where a character whose block starts at palette entry `offset` is drawn: its page and
    /// its offset in the page.
    pub(crate) fn place(&self, offset: u32) -> (u32, u32) {
        match self.paging.filter(|p| p.stride > 0) {
            Some(p) if (p.window_of(offset) as usize) < self.pages.len() => {
                let page = p.window_of(offset);
                (page, offset - page * p.stride)
            }
            _ => (0, offset),
        }
    }

    /// `material` (a page-0 material) for page `page`: itself, or its twin binding that page's
    /// buffer, made once.
    pub(crate) fn on_page(
        &mut self,
        material: &Handle<SinewMaterial>,
        page: u32,
        materials: &mut Assets<SinewMaterial>,
    ) -> Handle<SinewMaterial> {
        if page == 0 {
            return material.clone();
        }
        let key = (material.id(), page);
        if let Some(twin) = self.on_page.get(&key) {
            return twin.clone();
        }
        let Some(mut twin) = materials.get(material).cloned() else {
            return material.clone();
        };
        let page_entry = &mut self.pages[page as usize]; // ok: `place` gives existing pages
        twin.extension.palette = page_entry.buffer.clone();
        let handle = materials.add(twin);
        page_entry.materials.push(handle.clone());
        self.on_page.insert(key, handle.clone());
        handle
    }
}

//! [`SkinnedBatch`]: one rig's meshes on the GPU, a list of instances, and the buffers that
//! culling and pre-skinning fill each frame.
//!
//! The instances are drawn in pages ([`paging`](super::paging)): runs of consecutive instances
//! whose palette blocks and boxes each lie in one storage-binding window. A page binds its
//! windows and its own regions of the batch's buffers, and gets one culling dispatch, one
//! pre-skinning dispatch per mesh and one indirect draw per mesh and pass, whatever its instance
//! count. Culling fills two lists per page, each with its indirect draws: the instances in the
//! camera's frustum (the main pass draws them) and those in the light's (the shadow pass). A
//! palette that fits one binding makes one page.

mod blend_order;
mod encode;
mod mesh;
mod pages;
mod reads;
mod velocity;
mod wire;

use self::mesh::{MeshGpu, upload_mesh, validate_mesh};
use self::pages::{PageGroups, PagedBuffers};

use super::error::{RenderError, capture, check_buffer_size};
use super::layout::{CullParams, DrawIndexedArgs, PreskinParams, SkinnedInstance, dispatch_grid};
use super::paging::{
    AABB_SIZE, BindingLimits, DRAW_SIZE, INSTANCE_SIZE, Page, PageInputs, PagedBytes, VERTEX_SIZE,
    VISIBLE_SIZE, plan_pages,
};
use super::sort::SORT_PARAMS_SIZE;
use super::util::{buffer_init, buffer_zeroed};
use super::{Renderer, preskin};
use crate::baked::{AlphaMode, SkinnedMesh};
use crate::gpu::PaletteSegment;

/// Which of a batch's meshes a draw records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MeshSet {
    /// Every mesh (the shadow pass).
    All,
    /// Meshes without a `BLEND` material (the main pass, first).
    Opaque,
    /// Meshes with a `BLEND` material (the main pass, after every opaque mesh).
    Blended,
    /// Every mesh's edges as lines (the main pass's wireframe).
    Wire,
}

impl MeshSet {
    fn holds(self, blended: bool) -> bool {
        match self {
            Self::All | Self::Wire => true,
            Self::Opaque => !blended,
            Self::Blended => blended,
        }
    }
}

/// What a [`SkinnedBatch`] is made from.
#[derive(Clone, Copy, Debug)]
pub struct SkinnedBatchDesc<'a> {
    /// Names the batch's GPU resources.
    pub label: &'a str,
    /// The rig's meshes (joint indices are skeleton indices).
    pub meshes: &'a [SkinnedMesh],
    /// One colour per mesh (linear rgb), multiplied with each instance's colour; missing ones
    /// are white.
    pub mesh_colors: &'a [[f32; 3]],
    /// The most instances the batch will hold.
    pub capacity: u32,
    /// The palette the instances' offsets point into: the GPU evaluator's buffers
    /// ([`GpuBackend::palette_segments`](crate::GpuBackend::palette_segments)), or one buffer
    /// from [`create_palette_buffer`](super::create_palette_buffer)
    /// ([`PaletteSegment::whole`]); a buffer may exceed one storage binding. The batch's bind
    /// groups hold these buffers: when the evaluator replaces or adds one (a palette that
    /// grows), make a new batch.
    pub palette: &'a [PaletteSegment],
    /// The animated boxes culling reads (`array<Aabb>`, indexed by each instance's
    /// `aabb_index`); it may exceed one storage binding.
    pub aabbs: &'a wgpu::Buffer,
    /// Whether to allocate the pre-skinned vertex buffers (`capacity` × vertices × 24 bytes per
    /// mesh), so the batch can be drawn with [`Scene::preskin`](super::Scene::preskin).
    pub preskin: bool,
}

/// The renderer's layouts a batch binds with.
#[derive(Debug)]
struct Layouts {
    cull: wgpu::BindGroupLayout,
    skin: wgpu::BindGroupLayout,
    preskinned: wgpu::BindGroupLayout,
    preskin: wgpu::BindGroupLayout,
    sort: wgpu::BindGroupLayout,
}

const CULL_PARAMS_SIZE: u64 = std::mem::size_of::<CullParams>() as u64;
const PRESKIN_PARAMS_SIZE: u64 = std::mem::size_of::<PreskinParams>() as u64;

/// One rig's meshes on the GPU with a list of instances to draw, and the buffers that culling
/// and pre-skinning fill each frame.
#[derive(Debug)]
pub struct SkinnedBatch {
    label: String,
    device: wgpu::Device,
    limits: BindingLimits,
    layouts: Layouts,
    capacity: u32,
    instance_count: u32,
    palette: Vec<PaletteSegment>,
    aabbs: wgpu::Buffer,
    meshes: Vec<MeshGpu>,
    /// The morph target displacements of every mesh (see [`super::morph`]).
    morph_deltas: wgpu::Buffer,
    /// Palette entries of morph weights the meshes read after an instance's joints.
    morph_entries: u64,
    buffers: PagedBuffers,
    /// `0, 1, 2, ...`: copied into each page's visible region when culling is off.
    all_visible: wgpu::Buffer,
    pages: Vec<Page>,
    bytes: PagedBytes,
    groups: Vec<PageGroups>,
}

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_DST);
const COPY: wgpu::BufferUsages = wgpu::BufferUsages::COPY_SRC.union(wgpu::BufferUsages::COPY_DST);
const DRAWS: wgpu::BufferUsages = wgpu::BufferUsages::INDIRECT
    .union(wgpu::BufferUsages::STORAGE)
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);
const UNIFORM: wgpu::BufferUsages = wgpu::BufferUsages::UNIFORM.union(wgpu::BufferUsages::COPY_DST);
const PRESKINNED: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC);

impl SkinnedBatch {
    /// Uploads the meshes and creates the batch's buffers, sized for one page of `capacity`
    /// instances (a batch whose instances need more pages grows them on
    /// [`SkinnedBatch::write_instances`]).
    pub fn new(
        device: &wgpu::Device,
        renderer: &Renderer,
        desc: &SkinnedBatchDesc<'_>,
    ) -> Result<Self, RenderError> {
        let object = format!("skinned batch {:?}", desc.label);
        if desc.meshes.is_empty() {
            return Err(RenderError::invalid(object, "has no meshes"));
        }
        if desc.capacity == 0 {
            return Err(RenderError::invalid(object, "capacity is 0"));
        }
        for (k, mesh) in desc.meshes.iter().enumerate() {
            validate_mesh(mesh).map_err(|reason| {
                RenderError::invalid(format!("{object} mesh {k} ({:?})", mesh.name), reason)
            })?;
        }
        let limits = renderer.binding_limits();
        let capacity = u64::from(desc.capacity);
        check_buffer_size(capacity * INSTANCE_SIZE, limits.max_buffer)?;
        if desc.preskin {
            for mesh in desc.meshes {
                let one = mesh.vertex_count() as u64 * VERTEX_SIZE;
                if one > limits.max_binding {
                    return Err(RenderError::LimitExceeded {
                        limit: "max_storage_buffer_binding_size",
                        needed: one,
                        available: limits.max_binding,
                    });
                }
                check_buffer_size(capacity * one, limits.max_buffer)?;
            }
        }
        let meshes_len = desc.meshes.len() as u64;
        capture(device, || {
            let name = |what: &str| format!("sinew {} {what}", desc.label);
            let buffers = PagedBuffers {
                instances: buffer_zeroed(
                    device,
                    &name("instances"),
                    limits.align(capacity * INSTANCE_SIZE),
                    STORAGE,
                ),
                // Two lists (the camera's and the light's) of one page.
                visible: buffer_zeroed(
                    device,
                    &name("visible instances"),
                    2 * limits.align(capacity * VISIBLE_SIZE),
                    STORAGE | wgpu::BufferUsages::COPY_SRC,
                ),
                draws: buffer_zeroed(
                    device,
                    &name("indirect draws"),
                    2 * limits.align(meshes_len * DRAW_SIZE),
                    DRAWS,
                ),
                draws_reset: buffer_zeroed(
                    device,
                    &name("indirect draws reset"),
                    2 * limits.align(meshes_len * DRAW_SIZE),
                    COPY,
                ),
                draws_all: buffer_zeroed(
                    device,
                    &name("indirect draws, all instances"),
                    2 * limits.align(meshes_len * DRAW_SIZE),
                    COPY,
                ),
                wire_draws: buffer_zeroed(
                    device,
                    &name("wireframe draws"),
                    2 * limits.align(meshes_len * DRAW_SIZE),
                    DRAWS,
                ),
                cull_params: buffer_zeroed(
                    device,
                    &name("cull params"),
                    limits.uniform_stride(CULL_PARAMS_SIZE),
                    UNIFORM,
                ),
                preskin_params: buffer_zeroed(
                    device,
                    &name("preskin params"),
                    meshes_len * limits.uniform_stride(PRESKIN_PARAMS_SIZE),
                    UNIFORM,
                ),
                sort_pairs: buffer_zeroed(device, &name("blend sort pairs"), 16, STORAGE),
                sort_params: buffer_zeroed(
                    device,
                    &name("blend sort params"),
                    limits.uniform_stride(SORT_PARAMS_SIZE),
                    UNIFORM,
                ),
            };
            let identity: Vec<u32> = (0..desc.capacity).collect();
            let all_visible = buffer_init(
                device,
                &name("all instances"),
                bytemuck::cast_slice(&identity),
                wgpu::BufferUsages::COPY_SRC,
            );
            let (deltas, delta_offsets) = super::morph::pack_deltas(desc.meshes);
            let morph_deltas = buffer_init(
                device,
                &name("morph target displacements"),
                bytemuck::cast_slice(&deltas),
                wgpu::BufferUsages::STORAGE,
            );
            let meshes = desc
                .meshes
                .iter()
                .zip(delta_offsets)
                .enumerate()
                .map(|(k, (mesh, delta_offset))| {
                    let color = desc.mesh_colors.get(k).copied().unwrap_or([1.0; 3]);
                    upload_mesh(
                        device,
                        renderer,
                        desc,
                        &format!("{} mesh {k}", desc.label),
                        mesh,
                        color,
                        delta_offset,
                    )
                })
                .collect();
            Ok(Self {
                label: desc.label.to_string(),
                device: device.clone(),
                limits,
                layouts: Layouts {
                    cull: renderer.cull.layout.clone(),
                    skin: renderer.skinned.skin_layout.clone(),
                    preskinned: renderer.skinned.preskinned_layout.clone(),
                    preskin: renderer.preskin.layout.clone(),
                    sort: renderer.sort.layout.clone(),
                },
                capacity: desc.capacity,
                instance_count: 0,
                palette: desc.palette.to_vec(),
                aabbs: desc.aabbs.clone(),
                meshes,
                morph_deltas,
                morph_entries: super::morph::morph_entries(desc.meshes),
                buffers,
                all_visible,
                pages: Vec::new(),
                bytes: PagedBytes::default(),
                groups: Vec::new(),
            })
        })
    }

    fn object(&self) -> String {
        format!("skinned batch {:?}", self.label)
    }

    /// Draws each mesh with the material it carries ([`SkinnedMesh::material`]: base colour
    /// factor and texture, vertex colours, alpha mask, normal map, metallic-roughness,
    /// occlusion and emissive, shaded by [`shade_pbr`](super::shade_pbr)'s BRDF; a `BLEND`
    /// material blended, after every opaque mesh of the scene, the page's instances far to near)
    /// instead of the batch's mesh colours; meshes without one keep theirs. `meshes` are the meshes the batch was made from.
    pub fn use_materials(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &Renderer,
        meshes: &[SkinnedMesh],
    ) -> Result<(), RenderError> {
        if meshes.len() != self.meshes.len() {
            return Err(RenderError::invalid(
                self.object(),
                format!("{} meshes given for {}", meshes.len(), self.meshes.len()),
            ));
        }
        let groups = renderer
            .skinned
            .materials
            .groups(device, queue, &self.label, meshes)?;
        let had_blended = self.has_blended();
        for ((gpu, group), mesh) in self.meshes.iter_mut().zip(groups).zip(meshes) {
            gpu.material = group;
            gpu.blended = mesh
                .material
                .as_ref()
                .is_some_and(|m| m.alpha == AlphaMode::Blend);
        }
        if self.has_blended() != had_blended && !self.pages.is_empty() {
            // The pages' groups gain (or lose) the blend sort's.
            let pages = std::mem::take(&mut self.pages);
            let bytes = self.bytes.clone();
            let result = capture(device, || {
                self.reserve(&pages, &bytes)?;
                self.groups = pages
                    .iter()
                    .enumerate()
                    .map(|(p, page)| self.page_groups(p, page))
                    .collect();
                Ok(())
            });
            self.pages = pages;
            result?;
        }
        Ok(())
    }

    /// Whether a mesh of the batch draws blended.
    pub(crate) fn has_blended(&self) -> bool {
        self.meshes.iter().any(|m| m.blended)
    }

    /// The batch's name.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The most instances the batch holds.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Instances set by the last [`SkinnedBatch::write_instances`].
    pub fn instance_count(&self) -> u32 {
        self.instance_count
    }

    /// Number of meshes (indirect draws per page, frame and pass).
    pub fn mesh_count(&self) -> usize {
        self.meshes.len()
    }

    /// Pages the instances of the last [`SkinnedBatch::write_instances`] were split into: 1
    /// when every binding fits (0 without instances).
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// Whether pre-skinned vertex buffers were allocated.
    pub fn has_preskin(&self) -> bool {
        self.meshes.iter().all(|m| m.preskinned.is_some())
    }

    /// Sets the instances drawn from the next frame on, and splits them into pages. Each
    /// instance's palette block (`palette_offset`, `max(joint_count, 1)` entries, then the
    /// entries of morph weights the meshes read) must lie in the palette buffer and its
    /// `aabb_index` in the AABB buffer.
    pub fn write_instances(
        &mut self,
        queue: &wgpu::Queue,
        instances: &[SkinnedInstance],
    ) -> Result<(), RenderError> {
        if instances.len() > self.capacity as usize {
            return Err(RenderError::invalid(
                self.object(),
                format!("{} instances, capacity {}", instances.len(), self.capacity),
            ));
        }
        let vertices: Vec<u32> = match self.has_preskin() {
            true => self.meshes.iter().map(|m| m.vertex_count).collect(),
            false => Vec::new(),
        };
        let palette: Vec<(u64, u64)> = self
            .palette
            .iter()
            .map(|s| (u64::from(s.first_entry), s.end()))
            .collect();
        let inputs = PageInputs {
            palette: &palette,
            aabb_count: self.aabbs.size() / AABB_SIZE,
            draw_count: self.meshes.len() as u64,
            preskin_vertices: &vertices,
            morph_entries: self.morph_entries,
        };
        let plan = plan_pages(&self.limits, instances, &inputs)
            .map_err(|reason| RenderError::invalid(self.object(), reason))?;
        // Until the new pages are in place, draw nothing.
        let previous = std::mem::take(&mut self.pages);
        self.instance_count = 0;
        let device = self.device.clone();
        capture(&device, || {
            let grown = self.reserve(&plan.pages, &plan.bytes)?;
            if grown || plan.pages != previous {
                self.groups = plan
                    .pages
                    .iter()
                    .enumerate()
                    .map(|(p, page)| self.page_groups(p, page))
                    .collect();
            }
            Ok(())
        })?;
        if !plan.staged.is_empty() {
            queue.write_buffer(
                &self.buffers.instances,
                0,
                bytemuck::cast_slice(&plan.staged),
            );
        }
        let draws = |all: bool, wire: bool| {
            let mut bytes = vec![0u8; plan.bytes.draws as usize];
            for page in &plan.pages {
                for (m, mesh) in self.meshes.iter().enumerate() {
                    let args = DrawIndexedArgs {
                        index_count: match wire {
                            false => mesh.index_count,
                            true => mesh.wire_index_count,
                        },
                        instance_count: if all { page.count } else { 0 },
                        ..Default::default()
                    };
                    for list in [page.draws_at, page.light_draws_at] {
                        let at = (list + m as u64 * DRAW_SIZE) as usize;
                        bytes[at..at + DRAW_SIZE as usize]
                            .copy_from_slice(bytemuck::bytes_of(&args));
                    }
                }
            }
            bytes
        };
        if !plan.pages.is_empty() {
            queue.write_buffer(&self.buffers.draws_reset, 0, &draws(false, false));
            queue.write_buffer(&self.buffers.draws_all, 0, &draws(true, false));
            queue.write_buffer(&self.buffers.wire_draws, 0, &draws(false, true));
        }
        if !vertices.is_empty() && !plan.pages.is_empty() {
            let stride = self.limits.uniform_stride(PRESKIN_PARAMS_SIZE) as usize;
            let mut bytes = vec![0u8; plan.pages.len() * self.meshes.len() * stride];
            for (p, page) in plan.pages.iter().enumerate() {
                for (m, mesh) in self.meshes.iter().enumerate() {
                    let (_, _, grid_width) = dispatch_grid(
                        u64::from(page.count) * u64::from(mesh.vertex_count),
                        preskin::PRESKIN_WORKGROUP_SIZE,
                    );
                    let params = PreskinParams {
                        vertex_count: mesh.vertex_count,
                        instance_count: page.count,
                        grid_width,
                        pad: 0,
                    };
                    let at = (p * self.meshes.len() + m) * stride;
                    bytes[at..at + PRESKIN_PARAMS_SIZE as usize]
                        .copy_from_slice(bytemuck::bytes_of(&params));
                }
            }
            queue.write_buffer(&self.buffers.preskin_params, 0, &bytes);
        }
        self.pages = plan.pages;
        self.bytes = plan.bytes;
        self.instance_count = instances.len() as u32;
        Ok(())
    }
}

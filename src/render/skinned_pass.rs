//! The skinned render pass (`wgsl/render/skinned.wgsl`) and the batch it draws.
//!
//! A [`SkinnedBatch`] is one rig's meshes and a list of instances. Each frame it is drawn with
//! one `draw_indexed_indirect` per mesh, whatever the instance count; the indirect arguments'
//! `instance_count` comes from GPU culling ([`cull`](super::cull)) or is the whole list. The
//! vertex stage skins from the palette at each instance's offset (linear blend or dual
//! quaternion, a pipeline variant chosen with the `DUAL_QUATERNION` override constant), or
//! reads the vertices the pre-skinning kernel wrote. The shadow pass reuses the same vertex
//! code in depth-only pipelines.

use glam::Vec4;

use super::error::{RenderError, capture, check_storage_size};
use super::layout::{
    CullParams, DrawIndexedArgs, MeshParams, PreskinParams, SkinnedInstance, SkinnedVertex,
    StaticVertex, dispatch_grid,
};
use super::shader::skinned_source;
use super::skinning::{SkinningMode, palette_layout_entry};
use super::target::{COLOR_FORMAT, DEPTH_FORMAT, FrameLayouts, SHADOW_FORMAT};
use super::util::{Lazy, buffer_init, buffer_zeroed, shader_module, storage_entry, uniform_entry};
use super::{Renderer, cull, preskin};
use crate::bake::SkinnedMesh;

/// Which pass a pipeline draws in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PassKind {
    /// Lit colour pass.
    Main,
    /// Depth-only shadow pass from the light.
    Shadow,
}

/// Where the vertex stage's skinned vertices come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VertexSource {
    /// Skinned in the vertex shader from the vertex buffer and the palette.
    InShader(SkinningMode),
    /// Read from the pre-skinned buffer.
    Preskinned,
}

/// The skinned pass's group-1 layouts and its pipelines (created on first use).
#[derive(Debug)]
pub(crate) struct SkinnedPass {
    /// Palette, instances, visible list, mesh parameters.
    pub(crate) skin_layout: wgpu::BindGroupLayout,
    /// Instances, visible list, mesh parameters, pre-skinned vertices.
    pub(crate) preskinned_layout: wgpu::BindGroupLayout,
    module: Lazy<wgpu::ShaderModule>,
    /// Indexed by [`SkinnedPass::slot`].
    pipelines: [Lazy<wgpu::RenderPipeline>; 6],
}

impl SkinnedPass {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let v = wgpu::ShaderStages::VERTEX;
        let instances = storage_entry(1, v, true, std::mem::size_of::<SkinnedInstance>() as u64);
        let visible = storage_entry(2, v, true, 4);
        let params = uniform_entry(3, v, std::mem::size_of::<MeshParams>() as u64);
        let skin_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew skinned draw layout"),
            entries: &[palette_layout_entry(0, v), instances, visible, params],
        });
        let preskinned_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew preskinned draw layout"),
            entries: &[
                instances,
                visible,
                params,
                storage_entry(4, v, true, std::mem::size_of::<StaticVertex>() as u64),
            ],
        });
        Self {
            skin_layout,
            preskinned_layout,
            module: Lazy::default(),
            pipelines: Default::default(),
        }
    }

    fn slot(kind: PassKind, source: VertexSource) -> usize {
        let k = match kind {
            PassKind::Main => 0,
            PassKind::Shadow => 3,
        };
        k + match source {
            VertexSource::InShader(SkinningMode::Linear) => 0,
            VertexSource::InShader(SkinningMode::DualQuaternion) => 1,
            VertexSource::Preskinned => 2,
        }
    }

    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
        frame: &FrameLayouts,
        kind: PassKind,
        source: VertexSource,
    ) -> Result<&wgpu::RenderPipeline, RenderError> {
        self.pipelines[Self::slot(kind, source)].get(|| {
            let module = self
                .module
                .get(|| shader_module(device, "sinew skinned shader", skinned_source()))?;
            capture(device, || {
                let (group0, label_kind) = match kind {
                    PassKind::Main => (&frame.main, "main"),
                    PassKind::Shadow => (&frame.shadow, "shadow"),
                };
                let (group1, mode) = match source {
                    VertexSource::InShader(mode) => (&self.skin_layout, mode),
                    VertexSource::Preskinned => (&self.preskinned_layout, SkinningMode::Linear),
                };
                let label = format!("sinew skinned pipeline ({label_kind}, {source:?})");
                let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(&label),
                    bind_group_layouts: &[Some(group0), Some(group1)],
                    immediate_size: 0,
                });
                let entry = match (kind, source) {
                    (PassKind::Main, VertexSource::InShader(_)) => "vs_skinned",
                    (PassKind::Main, VertexSource::Preskinned) => "vs_preskinned",
                    (PassKind::Shadow, VertexSource::InShader(_)) => "vs_shadow_skinned",
                    (PassKind::Shadow, VertexSource::Preskinned) => "vs_shadow_preskinned",
                };
                let constants = [("DUAL_QUATERNION", mode.override_value())];
                let buffers = [Some(SkinnedVertex::layout())];
                let vertex = wgpu::VertexState {
                    module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        zero_initialize_workgroup_memory: false,
                    },
                    buffers: match source {
                        VertexSource::InShader(_) => &buffers,
                        VertexSource::Preskinned => &[],
                    },
                };
                Ok(device.create_render_pipeline(&lit_or_depth_pipeline(
                    &label, &layout, vertex, module, kind,
                )))
            })
        })
    }
}

/// The descriptor of a lit (main) or depth-only (shadow) triangle pipeline, shared by the
/// skinned and static passes.
pub(crate) fn lit_or_depth_pipeline<'a>(
    label: &'a str,
    layout: &'a wgpu::PipelineLayout,
    vertex: wgpu::VertexState<'a>,
    module: &'a wgpu::ShaderModule,
    kind: PassKind,
) -> wgpu::RenderPipelineDescriptor<'a> {
    const TARGETS: [Option<wgpu::ColorTargetState>; 1] = [Some(wgpu::ColorTargetState {
        format: COLOR_FORMAT,
        blend: None,
        write_mask: wgpu::ColorWrites::ALL,
    })];
    let (fragment, depth) = match kind {
        PassKind::Main => (
            Some(wgpu::FragmentState {
                module,
                entry_point: Some("fs_lit"),
                compilation_options: Default::default(),
                targets: &TARGETS,
            }),
            wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            },
        ),
        PassKind::Shadow => (
            None,
            wgpu::DepthStencilState {
                format: SHADOW_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: wgpu::DepthBiasState {
                    constant: 2,
                    slope_scale: 2.0,
                    clamp: 0.0,
                },
            },
        ),
    };
    wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        vertex,
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: Some(depth),
        multisample: Default::default(),
        fragment,
        multiview_mask: None,
        cache: None,
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
    /// The palette buffer the instances' offsets point into (from the GPU evaluator or
    /// [`create_palette_buffer`](super::create_palette_buffer)). The batch's bind groups hold
    /// this buffer: when the evaluator replaces it (a palette that grows), make a new batch.
    pub palette: &'a wgpu::Buffer,
    /// The animated boxes culling reads (`array<Aabb>`, indexed by each instance's
    /// `aabb_index`).
    pub aabbs: &'a wgpu::Buffer,
    /// Whether to allocate the pre-skinned vertex buffers (`capacity` × vertices × 24 bytes per
    /// mesh), so the batch can be drawn with [`Scene::preskin`](super::Scene::preskin).
    pub preskin: bool,
}

#[derive(Debug)]
struct MeshGpu {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    vertex_count: u32,
    index_count: u32,
    draw_group: wgpu::BindGroup,
    preskin: Option<MeshPreskin>,
}

#[derive(Debug)]
struct MeshPreskin {
    output: wgpu::Buffer,
    params: wgpu::Buffer,
    compute_group: wgpu::BindGroup,
    draw_group: wgpu::BindGroup,
}

/// One rig's meshes on the GPU with a list of instances to draw, and the buffers that culling
/// and pre-skinning fill each frame.
#[derive(Debug)]
pub struct SkinnedBatch {
    label: String,
    capacity: u32,
    instance_count: u32,
    meshes: Vec<MeshGpu>,
    instances: wgpu::Buffer,
    visible: wgpu::Buffer,
    /// `0, 1, 2, ...`: copied into `visible` when culling is off.
    all_visible: wgpu::Buffer,
    /// One [`DrawIndexedArgs`] per mesh, fed to `draw_indexed_indirect`.
    draws: wgpu::Buffer,
    /// The draws with instance count 0: copied into `draws` before culling.
    draws_reset: wgpu::Buffer,
    /// The draws with every instance: copied into `draws` when culling is off.
    draws_all: wgpu::Buffer,
    cull_params: wgpu::Buffer,
    cull_group: wgpu::BindGroup,
}

const DRAW_ARGS_SIZE: u64 = std::mem::size_of::<DrawIndexedArgs>() as u64;

impl SkinnedBatch {
    /// Uploads the meshes and creates the batch's buffers and bind groups.
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
        let capacity = u64::from(desc.capacity);
        check_storage_size(
            device,
            capacity * std::mem::size_of::<SkinnedInstance>() as u64,
        )?;
        if desc.preskin {
            for mesh in desc.meshes {
                check_storage_size(
                    device,
                    capacity
                        * mesh.vertex_count() as u64
                        * std::mem::size_of::<StaticVertex>() as u64,
                )?;
            }
        }
        capture(device, || {
            let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
            let name = |what: &str| format!("sinew {} {what}", desc.label);
            let instances = buffer_zeroed(
                device,
                &name("instances"),
                capacity * std::mem::size_of::<SkinnedInstance>() as u64,
                storage,
            );
            let visible = buffer_zeroed(
                device,
                &name("visible instances"),
                capacity * 4,
                storage | wgpu::BufferUsages::COPY_SRC,
            );
            let identity: Vec<u32> = (0..desc.capacity).collect();
            let all_visible = buffer_init(
                device,
                &name("all instances"),
                bytemuck::cast_slice(&identity),
                wgpu::BufferUsages::COPY_SRC,
            );
            let args: Vec<DrawIndexedArgs> = desc
                .meshes
                .iter()
                .map(|m| DrawIndexedArgs {
                    index_count: m.indices.len() as u32,
                    ..Default::default()
                })
                .collect();
            let draws = buffer_init(
                device,
                &name("indirect draws"),
                bytemuck::cast_slice(&args),
                wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
            );
            let draws_reset = buffer_init(
                device,
                &name("indirect draws reset"),
                bytemuck::cast_slice(&args),
                wgpu::BufferUsages::COPY_SRC,
            );
            let draws_all = buffer_init(
                device,
                &name("indirect draws, all instances"),
                bytemuck::cast_slice(&args),
                wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            );
            let cull_params = buffer_zeroed(
                device,
                &name("cull params"),
                std::mem::size_of::<CullParams>() as u64,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            );
            let cull_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&name("cull bind group")),
                layout: &renderer.cull.layout,
                entries: &[
                    entry(0, &instances),
                    entry(1, desc.aabbs),
                    entry(2, &cull_params),
                    entry(3, &visible),
                    entry(4, &draws),
                ],
            });
            let meshes = desc
                .meshes
                .iter()
                .enumerate()
                .map(|(k, mesh)| {
                    let color = desc.mesh_colors.get(k).copied().unwrap_or([1.0; 3]);
                    upload_mesh(
                        device,
                        renderer,
                        desc,
                        &format!("{} mesh {k}", desc.label),
                        mesh,
                        color,
                        &instances,
                        &visible,
                    )
                })
                .collect();
            Ok(Self {
                label: desc.label.to_string(),
                capacity: desc.capacity,
                instance_count: 0,
                meshes,
                instances,
                visible,
                all_visible,
                draws,
                draws_reset,
                draws_all,
                cull_params,
                cull_group,
            })
        })
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

    /// Number of meshes (indirect draws per frame and pass).
    pub fn mesh_count(&self) -> usize {
        self.meshes.len()
    }

    /// Whether pre-skinned vertex buffers were allocated.
    pub fn has_preskin(&self) -> bool {
        self.meshes.iter().all(|m| m.preskin.is_some())
    }

    /// Sets the instances drawn from the next frame on.
    pub fn write_instances(
        &mut self,
        queue: &wgpu::Queue,
        instances: &[SkinnedInstance],
    ) -> Result<(), RenderError> {
        if instances.len() > self.capacity as usize {
            return Err(RenderError::invalid(
                format!("skinned batch {:?}", self.label),
                format!("{} instances, capacity {}", instances.len(), self.capacity),
            ));
        }
        self.instance_count = instances.len() as u32;
        if !instances.is_empty() {
            queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(instances));
        }
        let all: Vec<DrawIndexedArgs> = self
            .meshes
            .iter()
            .map(|m| DrawIndexedArgs {
                index_count: m.index_count,
                instance_count: self.instance_count,
                ..Default::default()
            })
            .collect();
        queue.write_buffer(&self.draws_all, 0, bytemuck::cast_slice(&all));
        for mesh in &self.meshes {
            if let Some(p) = &mesh.preskin {
                let (_, _, grid_width) = dispatch_grid(
                    u64::from(self.instance_count) * u64::from(mesh.vertex_count),
                    preskin::PRESKIN_WORKGROUP_SIZE,
                );
                let params = PreskinParams {
                    vertex_count: mesh.vertex_count,
                    instance_count: self.instance_count,
                    grid_width,
                    pad: 0,
                };
                queue.write_buffer(&p.params, 0, bytemuck::bytes_of(&params));
            }
        }
        Ok(())
    }

    /// Records this frame's visible list and indirect arguments: GPU culling against `planes`,
    /// or every instance when `planes` is `None`.
    pub(crate) fn encode_visibility(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &Renderer,
        planes: Option<&[Vec4; 6]>,
    ) -> Result<(), RenderError> {
        let draws_size = self.meshes.len() as u64 * DRAW_ARGS_SIZE;
        let Some(planes) = planes else {
            encoder.copy_buffer_to_buffer(&self.draws_all, 0, &self.draws, 0, draws_size);
            if self.instance_count > 0 {
                encoder.copy_buffer_to_buffer(
                    &self.all_visible,
                    0,
                    &self.visible,
                    0,
                    u64::from(self.instance_count) * 4,
                );
            }
            return Ok(());
        };
        let pipeline = renderer.cull.pipeline(device)?;
        let (x, y, grid_width) =
            dispatch_grid(u64::from(self.instance_count), cull::CULL_WORKGROUP_SIZE);
        let params = CullParams {
            planes: planes.map(|p| p.to_array()),
            instance_count: self.instance_count,
            draw_count: self.meshes.len() as u32,
            grid_width,
            pad: 0,
        };
        queue.write_buffer(&self.cull_params, 0, bytemuck::bytes_of(&params));
        encoder.copy_buffer_to_buffer(&self.draws_reset, 0, &self.draws, 0, draws_size);
        if self.instance_count > 0 {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("sinew cull pass"),
                timestamp_writes: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &self.cull_group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        Ok(())
    }

    /// Records the pre-skinning dispatches (one per mesh).
    pub(crate) fn encode_preskin(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        renderer: &Renderer,
        mode: SkinningMode,
    ) -> Result<(), RenderError> {
        if !self.has_preskin() {
            return Err(RenderError::invalid(
                format!("skinned batch {:?}", self.label),
                "drawn pre-skinned but created without `preskin`",
            ));
        }
        if self.instance_count == 0 {
            return Ok(());
        }
        let pipeline = renderer.preskin.pipeline(device, mode)?;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("sinew preskin pass"),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        for mesh in &self.meshes {
            if let Some(p) = &mesh.preskin {
                let (x, y, _) = dispatch_grid(
                    u64::from(self.instance_count) * u64::from(mesh.vertex_count),
                    preskin::PRESKIN_WORKGROUP_SIZE,
                );
                pass.set_bind_group(0, &p.compute_group, &[]);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        Ok(())
    }

    /// Records the batch's draws (one indirect draw per mesh) into `pass`, whose group 0 is
    /// already bound and whose pipeline is `pipeline`.
    pub(crate) fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        pipeline: &wgpu::RenderPipeline,
        source: VertexSource,
    ) {
        pass.set_pipeline(pipeline);
        for (k, mesh) in self.meshes.iter().enumerate() {
            match (source, &mesh.preskin) {
                (VertexSource::InShader(_), _) => {
                    pass.set_bind_group(1, &mesh.draw_group, &[]);
                    pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                }
                (VertexSource::Preskinned, Some(p)) => {
                    pass.set_bind_group(1, &p.draw_group, &[]);
                }
                (VertexSource::Preskinned, None) => continue,
            }
            pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed_indirect(&self.draws, k as u64 * DRAW_ARGS_SIZE);
        }
    }

    /// Reads back the visible list of the last frame: the instance indices culling kept, in the
    /// order the GPU appended them (every instance, in order, when culling was off).
    pub fn read_visible(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<u32>, RenderError> {
        let args = super::capture::read_buffer(device, queue, &self.draws, 0, DRAW_ARGS_SIZE)?;
        let args: DrawIndexedArgs = bytemuck::pod_read_unaligned(&args);
        let count = args.instance_count.min(self.capacity);
        let bytes =
            super::capture::read_buffer(device, queue, &self.visible, 0, u64::from(count) * 4)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// Reads back the indirect draw arguments of the last frame, one per mesh.
    pub fn read_draw_args(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<DrawIndexedArgs>, RenderError> {
        let size = self.meshes.len() as u64 * DRAW_ARGS_SIZE;
        let bytes = super::capture::read_buffer(device, queue, &self.draws, 0, size)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }

    /// Reads back the pre-skinned vertices of mesh `mesh` written by the last frame:
    /// `instance_count × vertex_count` vertices, instance-major.
    pub fn read_preskinned(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mesh: usize,
    ) -> Result<Vec<StaticVertex>, RenderError> {
        let object = format!("skinned batch {:?}", self.label);
        let m = self
            .meshes
            .get(mesh)
            .ok_or_else(|| RenderError::invalid(&object, format!("has no mesh {mesh}")))?;
        let p = m
            .preskin
            .as_ref()
            .ok_or_else(|| RenderError::invalid(&object, "was created without `preskin`"))?;
        let size = u64::from(self.instance_count)
            * u64::from(m.vertex_count)
            * std::mem::size_of::<StaticVertex>() as u64;
        let bytes = super::capture::read_buffer(device, queue, &p.output, 0, size)?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}

fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// Checks that a mesh can be drawn: vertices, whole triangles, indices in range, matching
/// stream lengths.
fn validate_mesh(mesh: &SkinnedMesh) -> Result<(), String> {
    let n = mesh.vertex_count();
    if n == 0 || mesh.indices.is_empty() {
        return Err("has no vertices or no triangles".into());
    }
    if !mesh.indices.len().is_multiple_of(3) {
        return Err(format!(
            "{} indices is not a whole number of triangles",
            mesh.indices.len()
        ));
    }
    if mesh.joints.len() != n || mesh.weights.len() != n {
        return Err(format!(
            "{n} positions but {} joint and {} weight entries",
            mesh.joints.len(),
            mesh.weights.len()
        ));
    }
    if let Some(i) = mesh.indices.iter().find(|&&i| i as usize >= n) {
        return Err(format!("index {i} but {n} vertices"));
    }
    if u32::try_from(n).is_err() {
        return Err(format!("{n} vertices do not fit 32-bit indices"));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn upload_mesh(
    device: &wgpu::Device,
    renderer: &Renderer,
    desc: &SkinnedBatchDesc<'_>,
    label: &str,
    mesh: &SkinnedMesh,
    color: [f32; 3],
    instances: &wgpu::Buffer,
    visible: &wgpu::Buffer,
) -> MeshGpu {
    let vertices = SkinnedVertex::from_mesh(mesh);
    let vertex_count = vertices.len() as u32;
    let vertex_buffer = buffer_init(
        device,
        &format!("sinew {label} vertices"),
        bytemuck::cast_slice(&vertices),
        wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::STORAGE,
    );
    let index_buffer = buffer_init(
        device,
        &format!("sinew {label} indices"),
        bytemuck::cast_slice(&mesh.indices),
        wgpu::BufferUsages::INDEX,
    );
    let params = MeshParams {
        color: [color[0], color[1], color[2], 1.0],
        vertex_count,
        pad: [0; 3],
    };
    let params_buffer = buffer_init(
        device,
        &format!("sinew {label} params"),
        bytemuck::bytes_of(&params),
        wgpu::BufferUsages::UNIFORM,
    );
    let draw_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(&format!("sinew {label} draw bind group")),
        layout: &renderer.skinned.skin_layout,
        entries: &[
            entry(0, desc.palette),
            entry(1, instances),
            entry(2, visible),
            entry(3, &params_buffer),
        ],
    });
    let preskin = desc.preskin.then(|| {
        let output = buffer_zeroed(
            device,
            &format!("sinew {label} preskinned vertices"),
            u64::from(desc.capacity)
                * u64::from(vertex_count)
                * std::mem::size_of::<StaticVertex>() as u64,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let preskin_params = buffer_zeroed(
            device,
            &format!("sinew {label} preskin params"),
            std::mem::size_of::<PreskinParams>() as u64,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        let compute_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&format!("sinew {label} preskin bind group")),
            layout: &renderer.preskin.layout,
            entries: &[
                entry(0, desc.palette),
                entry(1, instances),
                entry(2, &vertex_buffer),
                entry(3, &preskin_params),
                entry(4, &output),
            ],
        });
        let draw_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&format!("sinew {label} preskinned draw bind group")),
            layout: &renderer.skinned.preskinned_layout,
            entries: &[
                entry(1, instances),
                entry(2, visible),
                entry(3, &params_buffer),
                entry(4, &output),
            ],
        });
        MeshPreskin {
            output,
            params: preskin_params,
            compute_group,
            draw_group,
        }
    });
    MeshGpu {
        vertices: vertex_buffer,
        indices: index_buffer,
        vertex_count,
        index_count: mesh.indices.len() as u32,
        draw_group,
        preskin,
    }
}

//! The static (unskinned) mesh pass (`wgsl/render/static.wgsl`): a smaller vertex format
//! (position and normal, [`StaticVertex`]) and per-instance world transforms, one instanced
//! draw per mesh. Static meshes receive and cast shadows.

use glam::{Affine3A, Vec3};

use super::Renderer;
use super::error::{RenderError, capture, check_storage_size};
use super::layout::{StaticInstance, StaticVertex, normals_or_smooth};
use super::shader::static_source;
use super::skinned_pass::{PassKind, lit_or_depth_pipeline};
use super::target::FrameLayouts;
use super::util::{Lazy, buffer_init, buffer_zeroed, shader_module, storage_entry};

/// The static pass's group-1 layout and pipelines (main, shadow).
#[derive(Debug)]
pub(crate) struct StaticPass {
    pub(crate) layout: wgpu::BindGroupLayout,
    module: Lazy<wgpu::ShaderModule>,
    pipelines: [Lazy<wgpu::RenderPipeline>; 2],
}

impl StaticPass {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew static draw layout"),
            entries: &[storage_entry(
                0,
                wgpu::ShaderStages::VERTEX,
                true,
                std::mem::size_of::<StaticInstance>() as u64,
            )],
        });
        Self {
            layout,
            module: Lazy::default(),
            pipelines: Default::default(),
        }
    }

    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
        frame: &FrameLayouts,
        kind: PassKind,
    ) -> Result<&wgpu::RenderPipeline, RenderError> {
        let slot = match kind {
            PassKind::Main => 0,
            PassKind::Shadow => 1,
        };
        self.pipelines[slot].get(|| {
            let module = self
                .module
                .get(|| shader_module(device, "sinew static shader", static_source()))?;
            capture(device, || {
                let (group0, entry, label) = match kind {
                    PassKind::Main => (&frame.main, "vs_static", "sinew static pipeline (main)"),
                    PassKind::Shadow => (
                        &frame.shadow,
                        "vs_shadow_static",
                        "sinew static pipeline (shadow)",
                    ),
                };
                let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(label),
                    bind_group_layouts: &[Some(group0), Some(&self.layout)],
                    immediate_size: 0,
                });
                let buffers = [StaticVertex::layout()];
                let vertex = wgpu::VertexState {
                    module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    buffers: &buffers,
                };
                Ok(device.create_render_pipeline(&lit_or_depth_pipeline(
                    label, &layout, vertex, module, kind, "fs_lit",
                )))
            })
        })
    }
}

/// What a [`StaticMesh`] is made from.
#[derive(Clone, Copy, Debug)]
pub struct StaticMeshDesc<'a> {
    /// Names the mesh's GPU resources.
    pub label: &'a str,
    /// Vertex positions.
    pub positions: &'a [[f32; 3]],
    /// Vertex normals; missing or zero ones are computed from the triangles.
    pub normals: &'a [[f32; 3]],
    /// Triangle list.
    pub indices: &'a [u32],
    /// The instances; their number is also the capacity.
    pub instances: &'a [StaticInstance],
}

/// A static mesh on the GPU with its instances.
#[derive(Debug)]
pub struct StaticMesh {
    label: String,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
    instances: wgpu::Buffer,
    capacity: u32,
    instance_count: u32,
    group: wgpu::BindGroup,
}

impl StaticMesh {
    /// Uploads a triangle mesh with its instances (room for as many as `desc.instances`, at
    /// least one).
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &Renderer,
        desc: &StaticMeshDesc<'_>,
    ) -> Result<Self, RenderError> {
        let StaticMeshDesc {
            label,
            positions,
            normals,
            indices,
            instances,
        } = *desc;
        let object = format!("static mesh {label:?}");
        let n = positions.len();
        if n == 0 || indices.is_empty() || !indices.len().is_multiple_of(3) {
            return Err(RenderError::invalid(
                object,
                "needs vertices and a whole number of triangles",
            ));
        }
        if let Some(i) = indices.iter().find(|&&i| i as usize >= n) {
            return Err(RenderError::invalid(
                object,
                format!("index {i} but {n} vertices"),
            ));
        }
        let capacity = instances.len().max(1) as u32;
        check_storage_size(
            device,
            u64::from(capacity) * std::mem::size_of::<StaticInstance>() as u64,
        )?;
        let normals = normals_or_smooth(positions, normals, indices);
        let vertices: Vec<StaticVertex> = positions
            .iter()
            .zip(&normals)
            .map(|(p, n)| StaticVertex {
                position: *p,
                normal: *n,
            })
            .collect();
        let mut mesh = capture(device, || {
            let instance_buffer = buffer_zeroed(
                device,
                &format!("sinew {label} instances"),
                u64::from(capacity) * std::mem::size_of::<StaticInstance>() as u64,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            );
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&format!("sinew {label} bind group")),
                layout: &renderer.statics.layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: instance_buffer.as_entire_binding(),
                }],
            });
            Ok(Self {
                label: label.to_string(),
                vertices: buffer_init(
                    device,
                    &format!("sinew {label} vertices"),
                    bytemuck::cast_slice(&vertices),
                    wgpu::BufferUsages::VERTEX,
                ),
                indices: buffer_init(
                    device,
                    &format!("sinew {label} indices"),
                    bytemuck::cast_slice(indices),
                    wgpu::BufferUsages::INDEX,
                ),
                index_count: indices.len() as u32,
                instances: instance_buffer,
                capacity,
                instance_count: 0,
                group,
            })
        })?;
        mesh.write_instances(queue, instances)?;
        Ok(mesh)
    }

    /// A horizontal square of half-size `half_extent` centred on `center` (normal +Y), one
    /// instance in `color`: a ground plane.
    pub fn ground_plane(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        renderer: &Renderer,
        center: Vec3,
        half_extent: f32,
        color: [f32; 3],
    ) -> Result<Self, RenderError> {
        let positions = [
            [-1.0, 0.0, -1.0],
            [1.0, 0.0, -1.0],
            [1.0, 0.0, 1.0],
            [-1.0, 0.0, 1.0],
        ];
        let normals = [[0.0, 1.0, 0.0]; 4];
        let world = Affine3A::from_translation(center)
            * Affine3A::from_scale(Vec3::new(half_extent, 1.0, half_extent));
        Self::new(
            device,
            queue,
            renderer,
            &StaticMeshDesc {
                label: "ground plane",
                positions: &positions,
                normals: &normals,
                indices: &[0, 2, 1, 0, 3, 2],
                instances: &[StaticInstance::new(&world, color)],
            },
        )
    }

    /// Replaces the instances (at most the capacity given at creation).
    pub fn write_instances(
        &mut self,
        queue: &wgpu::Queue,
        instances: &[StaticInstance],
    ) -> Result<(), RenderError> {
        if instances.len() > self.capacity as usize {
            return Err(RenderError::invalid(
                format!("static mesh {:?}", self.label),
                format!("{} instances, capacity {}", instances.len(), self.capacity),
            ));
        }
        self.instance_count = instances.len() as u32;
        if !instances.is_empty() {
            queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(instances));
        }
        Ok(())
    }

    /// Records the mesh's instanced draw into `pass` (group 0 bound, pipeline set).
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.instance_count == 0 {
            return;
        }
        pass.set_bind_group(1, &self.group, &[]);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..self.index_count, 0, 0..self.instance_count);
    }
}

//! A batch's meshes on the GPU: checked, then uploaded as vertex, index and parameter buffers.

use super::{PRESKINNED, SkinnedBatchDesc};
use crate::baked::SkinnedMesh;
use crate::render::Renderer;
use crate::render::layout::{MeshParams, SkinnedVertex};
use crate::render::paging::VERTEX_SIZE;
use crate::render::util::{buffer_init, buffer_zeroed};
use crate::render::wire_indices;

#[derive(Debug)]
pub(super) struct MeshGpu {
    pub(super) vertices: wgpu::Buffer,
    pub(super) indices: wgpu::Buffer,
    pub(super) params: wgpu::Buffer,
    /// The material streams ([`MaterialVertex`](crate::render::MaterialVertex)).
    pub(super) material_vertices: wgpu::Buffer,
    /// The material's bind group (the neutral one until
    /// [`SkinnedBatch::use_materials`](super::SkinnedBatch::use_materials)).
    pub(super) material: wgpu::BindGroup,
    /// Whether its material is `BLEND` (drawn after the opaque meshes, blended; set by
    /// [`SkinnedBatch::use_materials`](super::SkinnedBatch::use_materials)).
    pub(super) blended: bool,
    pub(super) vertex_count: u32,
    pub(super) index_count: u32,
    /// The mesh's edges as a line list ([`wire_indices`]), for the wireframe.
    pub(super) wire_indices: wgpu::Buffer,
    pub(super) wire_index_count: u32,
    /// The pre-skinned vertices, page by page, when the batch pre-skins.
    pub(super) preskinned: Option<wgpu::Buffer>,
}

/// Checks that a mesh can be drawn: vertices, whole triangles, indices in range, matching
/// stream lengths (morph displacements included).
pub(super) fn validate_mesh(mesh: &SkinnedMesh) -> Result<(), String> {
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
    let targets = mesh.morph.target_count as usize;
    if mesh.morph.positions.len() != targets * n || mesh.morph.normals.len() != targets * n {
        return Err(format!(
            "{} position and {} normal displacements for {targets} morph targets × {n} vertices",
            mesh.morph.positions.len(),
            mesh.morph.normals.len()
        ));
    }
    if u32::try_from(n).is_err() {
        return Err(format!("{n} vertices do not fit 32-bit indices"));
    }
    Ok(())
}

pub(super) fn upload_mesh(
    device: &wgpu::Device,
    renderer: &Renderer,
    desc: &SkinnedBatchDesc<'_>,
    label: &str,
    mesh: &SkinnedMesh,
    color: [f32; 3],
    morph_delta_offset: u32,
) -> MeshGpu {
    let limits = renderer.binding_limits();
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
    let lines = wire_indices(&mesh.indices);
    let wire_index_buffer = buffer_init(
        device,
        &format!("sinew {label} wire indices"),
        bytemuck::cast_slice(&lines),
        wgpu::BufferUsages::INDEX,
    );
    let params = MeshParams {
        color: [color[0], color[1], color[2], 1.0],
        vertex_count,
        morph_first_weight: mesh.morph.first_weight,
        morph_target_count: mesh.morph.target_count,
        morph_delta_offset,
    };
    let params_buffer = buffer_init(
        device,
        &format!("sinew {label} params"),
        bytemuck::bytes_of(&params),
        wgpu::BufferUsages::UNIFORM,
    );
    let material_vertices = buffer_init(
        device,
        &format!("sinew {label} material streams"),
        bytemuck::cast_slice(&crate::render::MaterialVertex::from_mesh(mesh)),
        wgpu::BufferUsages::VERTEX,
    );
    let preskinned = desc.preskin.then(|| {
        buffer_zeroed(
            device,
            &format!("sinew {label} preskinned vertices"),
            limits.align(u64::from(desc.capacity) * u64::from(vertex_count) * VERTEX_SIZE),
            PRESKINNED,
        )
    });
    MeshGpu {
        vertices: vertex_buffer,
        indices: index_buffer,
        params: params_buffer,
        material_vertices,
        material: renderer.skinned.materials.neutral.clone(),
        blended: false,
        vertex_count,
        index_count: mesh.indices.len() as u32,
        wire_indices: wire_index_buffer,
        wire_index_count: lines.len() as u32,
        preskinned,
    }
}

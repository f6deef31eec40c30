//! Rust twins of the structs in `wgsl/render/layout.wgsl`, and the vertex formats.
//!
//! Keep in sync with `wgsl/render/layout.wgsl`: every struct here is `#[repr(C)]` with explicit
//! padding, checked by `offset_of!` assertions below and by a test that parses the WGSL with
//! naga and compares every member offset and struct size.

use std::mem::{offset_of, size_of};

use glam::Vec3;

use crate::baked::{MAX_INFLUENCES, SkinnedMesh};
use crate::math::Mat3x4Rows;

/// Per frame and render target: camera, light and shadow settings. Twin of `FrameUniforms`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FrameUniforms {
    /// World to clip space of the camera, column-major.
    pub view_proj: [[f32; 4]; 4],
    /// World to clip space of the shadow-casting light, column-major.
    pub light_view_proj: [[f32; 4]; 4],
    /// xyz: the direction the light travels in, unit length.
    pub light_direction: [f32; 4],
    /// rgb: light colour times intensity (linear).
    pub light_color: [f32; 4],
    /// rgb: ambient colour (linear).
    pub ambient_color: [f32; 4],
    /// x: 1 when the shadow map is valid, y: depth bias, z: one shadow-map texel in uv.
    pub shadow: [f32; 4],
    /// xyz: the camera's position (the eye of specular highlights).
    pub camera_position: [f32; 4],
}

const _: () = assert!(size_of::<FrameUniforms>() == 208);
const _: () = assert!(offset_of!(FrameUniforms, camera_position) == 192);
const _: () = assert!(offset_of!(FrameUniforms, light_view_proj) == 64);
const _: () = assert!(offset_of!(FrameUniforms, light_direction) == 128);
const _: () = assert!(offset_of!(FrameUniforms, shadow) == 176);

/// One drawn skinned instance: where its palette block is and what colour it gets. Twin of
/// `SkinnedInstance`. A [`SkinnedBatch`](super::SkinnedBatch) is given offsets into the whole
/// palette and AABB buffers and stores each page's instances relative to the windows it binds.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SkinnedInstance {
    /// First palette entry of the instance.
    pub palette_offset: u32,
    /// Joint entries of the instance's palette block (the rig's joint count); vertex influences
    /// naming a joint at or past it are ignored, and the morph weights follow them.
    pub joint_count: u32,
    /// Index of the instance's animated box in the AABB buffer (used by culling).
    pub aabb_index: u32,
    /// Padding.
    pub pad: u32,
    /// Base colour (linear rgb; a unused), multiplied with the mesh colour.
    pub color: [f32; 4],
}

const _: () = assert!(size_of::<SkinnedInstance>() == 32);
const _: () = assert!(offset_of!(SkinnedInstance, color) == 16);

impl SkinnedInstance {
    /// An instance whose palette block starts at `palette_offset` and whose box is
    /// `aabb_index`, in `color`.
    pub fn new(palette_offset: u32, joint_count: u32, aabb_index: u32, color: [f32; 3]) -> Self {
        Self {
            palette_offset,
            joint_count,
            aabb_index,
            pad: 0,
            color: [color[0], color[1], color[2], 1.0],
        }
    }
}

/// One skinned mesh of a batch. Twin of `MeshParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MeshParams {
    /// Base colour (linear rgb; a unused).
    pub color: [f32; 4],
    /// Vertices of the mesh: the stride of one instance in the pre-skinned buffer.
    pub vertex_count: u32,
    /// Index of the weight of morph target 0 in the instance's weight vector.
    pub morph_first_weight: u32,
    /// Morph targets of the mesh (0: none).
    pub morph_target_count: u32,
    /// First float of the mesh's displacements in the batch's morph buffer.
    pub morph_delta_offset: u32,
}

const _: () = assert!(size_of::<MeshParams>() == 32);
const _: () = assert!(offset_of!(MeshParams, vertex_count) == 16);

/// A static vertex, and the output of pre-skinning. Twin of `PackedVertex`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StaticVertex {
    /// Position.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
}

const _: () = assert!(size_of::<StaticVertex>() == 24);

impl StaticVertex {
    /// Attributes: position at location 0, normal at location 1.
    pub const ATTRIBUTES: [wgpu::VertexAttribute; 2] = [
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 0,
            shader_location: 0,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 12,
            shader_location: 1,
        },
    ];

    /// The vertex buffer layout of the static pass.
    pub fn layout() -> wgpu::VertexBufferLayout<'static> {
        wgpu::VertexBufferLayout {
            array_stride: size_of::<Self>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &Self::ATTRIBUTES,
        }
    }
}

/// A skinned vertex: bind-space position and normal, up to eight skeleton joint indices and
/// their weights (slots 5-8 zero for a vertex with four influences or fewer), 72 bytes. The
/// vertex buffer format of the skinned pass and the input of pre-skinning. Twin of
/// `PackedSkinnedVertex` (which reads the joints as little-endian u16 pairs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SkinnedVertex {
    /// Bind-space position.
    pub position: [f32; 3],
    /// Bind-space unit normal.
    pub normal: [f32; 3],
    /// Skeleton joint indices.
    pub joints: [u16; MAX_INFLUENCES],
    /// Weights of the joints.
    pub weights: [f32; MAX_INFLUENCES],
}

const _: () = assert!(size_of::<SkinnedVertex>() == 72);
const _: () = assert!(offset_of!(SkinnedVertex, joints) == 24);
const _: () = assert!(offset_of!(SkinnedVertex, weights) == 40);

impl SkinnedVertex {
    /// Attributes: position 0, normal 1, joints 1-4 at 2 (`Uint16x4`), their weights at 3
    /// (`Float32x4`), joints 5-8 at 4 (`Uint16x4`), their weights at 5 (`Float32x4`).
    pub const ATTRIBUTES: [wgpu::VertexAttribute; 6] = [
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 0,
            shader_location: 0,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 12,
            shader_location: 1,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Uint16x4,
            offset: 24,
            shader_location: 2,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 40,
            shader_location: 3,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Uint16x4,
            offset: 32,
            shader_location: 4,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 56,
            shader_location: 5,
        },
    ];

    /// The vertex buffer layout of the skinned pass.
    pub fn layout() -> wgpu::VertexBufferLayout<'static> {
        wgpu::VertexBufferLayout {
            array_stride: size_of::<Self>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &Self::ATTRIBUTES,
        }
    }

    /// The vertices of `mesh`. Missing (zero) normals are replaced by smooth normals computed
    /// from the triangles.
    pub fn from_mesh(mesh: &SkinnedMesh) -> Vec<Self> {
        let normals = normals_or_smooth(&mesh.positions, &mesh.normals, &mesh.indices);
        (0..mesh.vertex_count())
            .map(|v| Self {
                position: mesh.positions[v],
                normal: normals[v],
                joints: mesh.joints.get(v).copied().unwrap_or_default(),
                weights: mesh.weights.get(v).copied().unwrap_or_default(),
            })
            .collect()
    }
}

/// `normals`, with every zero-length (or missing) one replaced by the normalized sum of the
/// face normals of the triangles around its vertex.
pub fn normals_or_smooth(
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
    indices: &[u32],
) -> Vec<[f32; 3]> {
    let given = |v: usize| {
        normals
            .get(v)
            .map(|n| Vec3::from(*n))
            .filter(|n| n.length_squared() > 1e-12)
    };
    if (0..positions.len()).all(|v| given(v).is_some()) {
        return (0..positions.len())
            .filter_map(|v| given(v).map(|n| n.normalize().to_array()))
            .collect();
    }
    let mut sums = vec![Vec3::ZERO; positions.len()];
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| i as usize);
        if a >= positions.len() || b >= positions.len() || c >= positions.len() {
            continue;
        }
        let (pa, pb, pc) = (
            Vec3::from(positions[a]),
            Vec3::from(positions[b]),
            Vec3::from(positions[c]),
        );
        let face = (pb - pa).cross(pc - pa);
        for v in [a, b, c] {
            sums[v] += face;
        }
    }
    (0..positions.len())
        .map(|v| {
            given(v)
                .unwrap_or(sums[v])
                .try_normalize()
                .unwrap_or(Vec3::Y)
                .to_array()
        })
        .collect()
}

/// One instance of a static mesh: world transform and colour. Twin of `StaticInstance`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StaticInstance {
    /// World transform.
    pub world: Mat3x4Rows,
    /// Colour (linear rgb; a unused).
    pub color: [f32; 4],
}

const _: () = assert!(size_of::<StaticInstance>() == 64);
const _: () = assert!(offset_of!(StaticInstance, color) == 48);

impl StaticInstance {
    /// An instance at `world` in `color`.
    pub fn new(world: &glam::Affine3A, color: [f32; 3]) -> Self {
        Self {
            world: Mat3x4Rows::from_affine(world),
            color: [color[0], color[1], color[2], 1.0],
        }
    }
}

/// The culling kernel's inputs. Twin of `CullParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullParams {
    /// Camera frustum planes (xyz inward normal, w distance): left, right, bottom, top, near,
    /// far. They fill the camera's list, which the main pass draws.
    pub planes: [[f32; 4]; 6],
    /// The light's (shadow map's) frustum planes, in the same order. When `light_list` is 1
    /// they fill the light's list, which the shadow pass draws.
    pub light_planes: [[f32; 4]; 6],
    /// Instances of the batch.
    pub instance_count: u32,
    /// Indirect draws fed per list (one per mesh).
    pub draw_count: u32,
    /// Workgroups per row of the dispatch grid.
    pub grid_width: u32,
    /// 1 to fill the light's list too, 0 to leave it empty.
    pub light_list: u32,
}

const _: () = assert!(size_of::<CullParams>() == 208);
const _: () = assert!(offset_of!(CullParams, light_planes) == 96);
const _: () = assert!(offset_of!(CullParams, instance_count) == 192);

/// Arguments of one `draw_indexed_indirect`. Twin of `DrawArgs` (whose instance count is
/// atomic) and of `wgpu::util::DrawIndexedIndirectArgs`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawIndexedArgs {
    /// Indices per instance.
    pub index_count: u32,
    /// Instances drawn.
    pub instance_count: u32,
    /// First index.
    pub first_index: u32,
    /// Added to each index.
    pub base_vertex: i32,
    /// First instance (must stay 0 without `INDIRECT_FIRST_INSTANCE`).
    pub first_instance: u32,
}

const _: () = assert!(size_of::<DrawIndexedArgs>() == 20);

/// The pre-skinning kernel's inputs. Twin of `PreskinParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PreskinParams {
    /// Vertices of the mesh.
    pub vertex_count: u32,
    /// Instances of the batch.
    pub instance_count: u32,
    /// Workgroups per row of the dispatch grid.
    pub grid_width: u32,
    /// Padding.
    pub pad: u32,
}

const _: () = assert!(size_of::<PreskinParams>() == 16);

/// One pass of the back-to-front sort of a page's camera list. Twin of `SortParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SortParams {
    /// The camera's unit view direction (xyz) and `-dot(direction, eye)` (w).
    pub view_depth: [f32; 4],
    /// Entries sorted: a power of two at least the page's instance count.
    pub size: u32,
    /// Instances of the page.
    pub instance_count: u32,
    /// Workgroups per row of the dispatch grid.
    pub grid_width: u32,
    /// The bitonic pass's block size (`sort_step` only).
    pub k: u32,
    /// The bitonic pass's compare distance (`sort_step` only).
    pub j: u32,
    /// Padding.
    pub pad: [u32; 3],
}

const _: () = assert!(size_of::<SortParams>() == 48);

/// The bone overlay of one instance. Twin of `BoneParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BoneParams {
    /// First palette entry of the instance in the bound palette window.
    pub palette_offset: u32,
    /// Joints of the rig.
    pub joint_count: u32,
    /// Lines drawn.
    pub bone_count: u32,
    /// Padding.
    pub pad: u32,
    /// Line colour (linear rgba).
    pub color: [f32; 4],
}

const _: () = assert!(size_of::<BoneParams>() == 32);

/// Workgroups of a 1D kernel over `items` invocations laid out on a 2D grid (at most 65,535
/// per dimension, wgpu's default): `(x, y, grid_width)`.
pub(crate) fn dispatch_grid(items: u64, workgroup_size: u32) -> (u32, u32, u32) {
    const MAX: u64 = 65_535;
    let groups = items.div_ceil(u64::from(workgroup_size)).max(1);
    let x = groups.min(MAX);
    let y = groups.div_ceil(x);
    (x as u32, y.min(MAX) as u32, x as u32)
}

#[cfg(test)]
mod tests;

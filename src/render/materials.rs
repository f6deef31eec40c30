//! Materials in the skinned pass's main pipeline (group 2 of `wgsl/render/material.wgsl`):
//! the base colour factor and texture (its sampler and UV set), vertex colours, the alpha
//! mask and the normal map where the mesh has tangents. Every mesh of a batch starts with the
//! neutral material (white, no texture: it draws in its batch's mesh colour, as before);
//! [`SkinnedBatch::use_materials`](super::SkinnedBatch::use_materials) switches a batch to the
//! materials its meshes carry.
//!
//! Shadows ignore materials (a masked-out fragment still casts one), and pre-skinned draws do
//! not apply normal maps (their tangents are not skinned).

use std::collections::HashMap;
use std::sync::Arc;

use super::error::{RenderError, capture};
use super::util::{buffer_init, uniform_entry};
use crate::baked::{AlphaMode, Material, MaterialImage, Sampler, SkinnedMesh, TextureRef, Wrap};

/// A mesh's material streams, one per vertex: both UV sets, the vertex colour, the tangent.
/// Twin of `MaterialIn` in `wgsl/render/material.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MaterialVertex {
    /// `TEXCOORD_0`.
    pub uv0: [f32; 2],
    /// `TEXCOORD_1` (zero when the mesh has none).
    pub uv1: [f32; 2],
    /// Vertex colour (white when the mesh has none).
    pub color: [f32; 4],
    /// Tangent and handedness (zero when the mesh has none).
    pub tangent: [f32; 4],
}

const _: () = assert!(size_of::<MaterialVertex>() == 48);

impl MaterialVertex {
    /// Attributes at locations 6 (uv0), 7 (uv1), 8 (colour), 9 (tangent).
    pub const ATTRIBUTES: [wgpu::VertexAttribute; 4] = wgpu::vertex_attr_array![
        6 => Float32x2, 7 => Float32x2, 8 => Float32x4, 9 => Float32x4
    ];

    /// The vertex buffer layout (per vertex).
    pub fn layout() -> wgpu::VertexBufferLayout<'static> {
        wgpu::VertexBufferLayout {
            array_stride: size_of::<Self>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &Self::ATTRIBUTES,
        }
    }

    /// The streams of `mesh` (missing ones filled as documented on the fields).
    pub fn from_mesh(mesh: &SkinnedMesh) -> Vec<Self> {
        (0..mesh.positions.len())
            .map(|v| Self {
                uv0: mesh.uvs.get(v).copied().unwrap_or_default(),
                uv1: mesh
                    .uvs1
                    .as_ref()
                    .and_then(|u| u.get(v).copied())
                    .unwrap_or_default(),
                color: mesh
                    .colors
                    .as_ref()
                    .and_then(|c| c.get(v).copied())
                    .unwrap_or([1.0; 4]),
                tangent: mesh
                    .tangents
                    .as_ref()
                    .and_then(|t| t.get(v).copied())
                    .unwrap_or_default(),
            })
            .collect()
    }
}

/// A material's uniform. Twin of `MaterialParams` in `wgsl/render/material.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MaterialParams {
    /// Base colour factor (linear RGBA).
    pub base_color: [f32; 4],
    /// x: alpha cutoff (negative: no mask), y: 1 with a base colour texture, z: 1 with a
    /// normal map, w: the normal map's scale.
    pub alpha_texture_normal: [f32; 4],
    /// x: the base colour texture's UV set, y: the normal map's, z: 1 to multiply vertex
    /// colours in, w: 1 when the material replaces the batch's mesh colour.
    pub sets: [u32; 4],
}

impl MaterialParams {
    /// The neutral material: the mesh colour, no texture, no mask.
    pub const NEUTRAL: Self = Self {
        base_color: [1.0; 4],
        alpha_texture_normal: [-1.0, 0.0, 0.0, 1.0],
        sets: [0; 4],
    };

    /// The uniform of `material` on `mesh` (normal maps only where the mesh has tangents).
    pub fn of(material: &Material, mesh: &SkinnedMesh) -> Self {
        let uv_set = |t: &Option<TextureRef>| {
            t.as_ref().map_or(0, |t| match t.uv_set {
                1 if mesh.uvs1.is_some() => 1,
                _ => 0,
            })
        };
        let normal_map = material.normal_texture.is_some() && mesh.tangents.is_some();
        Self {
            base_color: material.base_color,
            alpha_texture_normal: [
                match material.alpha {
                    AlphaMode::Mask(cutoff) => cutoff,
                    AlphaMode::Opaque | AlphaMode::Blend => -1.0,
                },
                f32::from(u8::from(material.base_color_texture.is_some())),
                f32::from(u8::from(normal_map)),
                material.normal_scale,
            ],
            sets: [
                uv_set(&material.base_color_texture),
                uv_set(&material.normal_texture),
                u32::from(mesh.colors.is_some()),
                1,
            ],
        }
    }
}

/// The material group's layout, the neutral textures and the neutral group.
#[derive(Debug)]
pub(crate) struct MaterialPass {
    pub(crate) layout: wgpu::BindGroupLayout,
    white: wgpu::TextureView,
    flat_normal: wgpu::TextureView,
    sampler: wgpu::Sampler,
    pub(crate) neutral: wgpu::BindGroup,
}

impl MaterialPass {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let f = wgpu::ShaderStages::FRAGMENT;
        let texture = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: f,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let sampler = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: f,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew material layout"),
            entries: &[
                uniform_entry(
                    0,
                    wgpu::ShaderStages::VERTEX_FRAGMENT,
                    size_of::<MaterialParams>() as u64,
                ),
                texture(1),
                sampler(2),
                texture(3),
                sampler(4),
            ],
        });
        // Bound where a material has no such texture; the shader does not sample them then.
        let white = unused_texture(device, wgpu::TextureFormat::Rgba8UnormSrgb);
        let flat_normal = unused_texture(device, wgpu::TextureFormat::Rgba8Unorm);
        let sampler = make_sampler(device, &Sampler::default());
        let neutral = group(
            device,
            &layout,
            "sinew neutral material",
            &MaterialParams::NEUTRAL,
            [(&white, &sampler), (&flat_normal, &sampler)],
        );
        Self {
            layout,
            white,
            flat_normal,
            sampler,
            neutral,
        }
    }

    /// One bind group per mesh: its material's (textures uploaded once per image), or the
    /// neutral one for a mesh without a material.
    pub(crate) fn groups(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        label: &str,
        meshes: &[SkinnedMesh],
    ) -> Result<Vec<wgpu::BindGroup>, RenderError> {
        let max = device.limits().max_texture_dimension_2d;
        capture(device, || {
            let mut views: HashMap<(*const MaterialImage, bool), wgpu::TextureView> =
                HashMap::new();
            let mut view_of = |image: &Arc<MaterialImage>, srgb: bool| {
                views
                    .entry((Arc::as_ptr(image), srgb))
                    .or_insert_with(|| upload_image(device, queue, image, srgb))
                    .clone()
            };
            let mut out = Vec::with_capacity(meshes.len());
            for (k, mesh) in meshes.iter().enumerate() {
                let Some(material) = &mesh.material else {
                    out.push(self.neutral.clone());
                    continue;
                };
                let fits = |t: &&TextureRef| t.image.width <= max && t.image.height <= max;
                let base = material.base_color_texture.as_ref().filter(fits);
                let normal = material.normal_texture.as_ref().filter(fits);
                let mut params = MaterialParams::of(material, mesh);
                params.alpha_texture_normal[1] = f32::from(u8::from(base.is_some()));
                if normal.is_none() {
                    params.alpha_texture_normal[2] = 0.0;
                }
                let base_view =
                    base.map_or_else(|| self.white.clone(), |t| view_of(&t.image, true));
                let normal_view =
                    normal.map_or_else(|| self.flat_normal.clone(), |t| view_of(&t.image, false));
                let base_sampler = base.map_or_else(
                    || self.sampler.clone(),
                    |t| make_sampler(device, &t.sampler),
                );
                let normal_sampler = normal.map_or_else(
                    || self.sampler.clone(),
                    |t| make_sampler(device, &t.sampler),
                );
                out.push(group(
                    device,
                    &self.layout,
                    &format!("sinew {label} mesh {k} material {:?}", material.name),
                    &params,
                    [(&base_view, &base_sampler), (&normal_view, &normal_sampler)],
                ));
            }
            Ok(out)
        })
    }
}

fn group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    label: &str,
    params: &MaterialParams,
    textures: [(&wgpu::TextureView, &wgpu::Sampler); 2],
) -> wgpu::BindGroup {
    let buffer = buffer_init(
        device,
        label,
        bytemuck::bytes_of(params),
        wgpu::BufferUsages::UNIFORM,
    );
    let [(base, base_sampler), (normal, normal_sampler)] = textures;
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(base),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Sampler(base_sampler),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::TextureView(normal),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::Sampler(normal_sampler),
            },
        ],
    })
}

fn make_sampler(device: &wgpu::Device, s: &Sampler) -> wgpu::Sampler {
    let wrap = |w: Wrap| match w {
        Wrap::Repeat => wgpu::AddressMode::Repeat,
        Wrap::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
        Wrap::ClampToEdge => wgpu::AddressMode::ClampToEdge,
    };
    let filter = |linear: bool| {
        if linear {
            wgpu::FilterMode::Linear
        } else {
            wgpu::FilterMode::Nearest
        }
    };
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("sinew material sampler"),
        address_mode_u: wrap(s.wrap_u),
        address_mode_v: wrap(s.wrap_v),
        mag_filter: filter(s.mag_linear),
        min_filter: filter(s.min_linear),
        ..Default::default()
    })
}

/// A 1×1 texture (zeroed) to bind where nothing is sampled.
fn unused_texture(device: &wgpu::Device, format: wgpu::TextureFormat) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("sinew unused material texture"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&wgpu::TextureViewDescriptor::default())
}

/// `image` as a texture: sRGB (base colours) or linear (normal maps).
fn upload_image(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    image: &MaterialImage,
    srgb: bool,
) -> wgpu::TextureView {
    let size = wgpu::Extent3d {
        width: image.width.max(1),
        height: image.height.max(1),
        depth_or_array_layers: 1,
    };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some(&image.name),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: if srgb {
            wgpu::TextureFormat::Rgba8UnormSrgb
        } else {
            wgpu::TextureFormat::Rgba8Unorm
        },
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let expected = size.width as usize * size.height as usize * 4;
    if image.rgba8.len() == expected {
        queue.write_texture(
            texture.as_image_copy(),
            &image.rgba8,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(size.width * 4),
                rows_per_image: Some(size.height),
            },
            size,
        );
    }
    texture.create_view(&wgpu::TextureViewDescriptor::default())
}

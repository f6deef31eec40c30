//! Materials in the skinned pass's main pipeline (group 2 of `wgsl/render/material.wgsl`):
//! the base colour factor and texture (its sampler and UV set), vertex colours, the alpha
//! mask, the normal map where the mesh has tangents, and the metallic-roughness model
//! (factors and texture, occlusion, emissive) shaded with the BRDF of [`super::brdf`]. Base
//! colour and emissive textures are sampled as sRGB, the others as linear. Every mesh of a
//! batch starts with the
//! neutral material (white, no texture: it draws in its batch's mesh colour, Lambert-lit);
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

/// A material's uniform. Twin of `MaterialParams` in `wgsl/render/layout.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MaterialParams {
    /// Base colour factor (linear RGBA).
    pub base_color: [f32; 4],
    /// x: alpha cutoff (negative: no mask), y: 1 with a base colour texture, z: 1 with a
    /// normal map, w: the normal map's scale.
    pub alpha_texture_normal: [f32; 4],
    /// x: the base colour texture's UV set, y: the normal map's, z: 1 to multiply vertex
    /// colours in, w: 1 when the material replaces the batch's mesh colour (and shades with
    /// the metallic-roughness BRDF; 0: the neutral material, Lambert-lit).
    pub sets: [u32; 4],
    /// x: metallic, y: roughness, z: occlusion strength.
    pub metallic_roughness: [f32; 4],
    /// rgb: emissive factor (linear).
    pub emissive: [f32; 4],
    /// 1 where the material has the texture: x metallic-roughness, y occlusion, z emissive.
    pub textures: [u32; 4],
    /// The UV sets of the metallic-roughness (x), occlusion (y) and emissive (z) textures.
    pub texture_sets: [u32; 4],
}

const _: () = assert!(size_of::<MaterialParams>() == 112);

impl MaterialParams {
    /// The neutral material: the mesh colour, no texture, no mask.
    pub const NEUTRAL: Self = Self {
        base_color: [1.0; 4],
        alpha_texture_normal: [-1.0, 0.0, 0.0, 1.0],
        sets: [0; 4],
        metallic_roughness: [0.0, 1.0, 1.0, 0.0],
        emissive: [0.0; 4],
        textures: [0; 4],
        texture_sets: [0; 4],
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
            metallic_roughness: [
                material.metallic,
                material.roughness,
                material.occlusion_strength,
                0.0,
            ],
            emissive: [
                material.emissive[0],
                material.emissive[1],
                material.emissive[2],
                0.0,
            ],
            textures: [
                u32::from(material.metallic_roughness_texture.is_some()),
                u32::from(material.occlusion_texture.is_some()),
                u32::from(material.emissive_texture.is_some()),
                0,
            ],
            texture_sets: [
                uv_set(&material.metallic_roughness_texture),
                uv_set(&material.occlusion_texture),
                uv_set(&material.emissive_texture),
                0,
            ],
        }
    }

    /// Marks texture `slot` (in [`Material::textures`] order) as absent: it was not uploaded.
    fn drop_texture(&mut self, slot: usize) {
        match slot {
            0 => self.alpha_texture_normal[1] = 0.0,
            1 => self.alpha_texture_normal[2] = 0.0,
            s => self.textures[s - 2] = 0,
        }
    }
}

/// Whether each of a material's textures (in [`Material::textures`] order, which is their
/// binding order) is sampled as sRGB: the base colour and emissive ones.
const SRGB: [bool; 5] = [true, false, false, false, true];

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
                texture(5),
                sampler(6),
                texture(7),
                sampler(8),
                texture(9),
                sampler(10),
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
            &Self::unused(&white, &flat_normal, &sampler),
        );
        Self {
            layout,
            white,
            flat_normal,
            sampler,
            neutral,
        }
    }

    /// What is bound where a material has no texture: a view of the slot's colour space.
    fn unused<'a>(
        white: &'a wgpu::TextureView,
        flat: &'a wgpu::TextureView,
        sampler: &'a wgpu::Sampler,
    ) -> [(wgpu::TextureView, wgpu::Sampler); 5] {
        SRGB.map(|srgb| {
            let view = if srgb { white } else { flat };
            (view.clone(), sampler.clone())
        })
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
                let mut params = MaterialParams::of(material, mesh);
                let mut bound = Self::unused(&self.white, &self.flat_normal, &self.sampler);
                let textures = material.textures().into_iter().zip(SRGB).enumerate();
                for (slot, (texture, srgb)) in textures {
                    match texture.filter(fits) {
                        Some(t) => {
                            let sampler = make_sampler(device, &t.sampler);
                            bound[slot] = (view_of(&t.image, srgb), sampler);
                        }
                        None => params.drop_texture(slot),
                    }
                }
                out.push(group(
                    device,
                    &self.layout,
                    &format!("sinew {label} mesh {k} material {:?}", material.name),
                    &params,
                    &bound,
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
    textures: &[(wgpu::TextureView, wgpu::Sampler); 5],
) -> wgpu::BindGroup {
    let buffer = buffer_init(
        device,
        label,
        bytemuck::bytes_of(params),
        wgpu::BufferUsages::UNIFORM,
    );
    let mut entries = vec![wgpu::BindGroupEntry {
        binding: 0,
        resource: buffer.as_entire_binding(),
    }];
    for (k, (view, sampler)) in (1u32..).step_by(2).zip(textures) {
        entries.push(wgpu::BindGroupEntry {
            binding: k,
            resource: wgpu::BindingResource::TextureView(view),
        });
        entries.push(wgpu::BindGroupEntry {
            binding: k + 1,
            resource: wgpu::BindingResource::Sampler(sampler),
        });
    }
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
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

/// `image` as a texture: sRGB (base and emissive colours) or linear (metallic-roughness,
/// occlusion and normal maps).
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

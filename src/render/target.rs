//! The offscreen render target: colour and depth textures, the shadow map, and the per-frame
//! uniforms with their bind groups. Each target owns its own, so targets can be rendered from
//! several threads sharing one [`Renderer`](super::Renderer).

use std::path::Path;

use super::capture::{RgbaImage, read_texture_rgba8};
use super::error::{RenderError, capture};
use super::layout::FrameUniforms;
use super::util::{buffer_zeroed, uniform_entry};

/// Format of the colour target (8-bit sRGB: the PNG bytes as they are).
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Format of the depth buffer.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Format of the shadow map.
pub const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The group-0 layouts: the main pass's (uniforms, shadow map, comparison sampler) and the
/// shadow pass's (uniforms only).
#[derive(Debug)]
pub(crate) struct FrameLayouts {
    pub(crate) main: wgpu::BindGroupLayout,
    pub(crate) shadow: wgpu::BindGroupLayout,
    pub(crate) sampler: wgpu::Sampler,
}

impl FrameLayouts {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let uniforms = uniform_entry(
            0,
            wgpu::ShaderStages::VERTEX_FRAGMENT,
            std::mem::size_of::<FrameUniforms>() as u64,
        );
        let main = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew frame layout"),
            entries: &[
                uniforms,
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
            ],
        });
        let shadow = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew shadow frame layout"),
            entries: &[uniforms],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("sinew shadow sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            address_mode_w: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        Self {
            main,
            shadow,
            sampler,
        }
    }
}

/// Where a frame is drawn: a colour texture (readable back), a depth buffer, a shadow map and
/// the frame's uniforms.
#[derive(Debug)]
pub struct RenderTarget {
    width: u32,
    height: u32,
    shadow_size: u32,
    color: wgpu::Texture,
    pub(crate) color_view: wgpu::TextureView,
    pub(crate) depth_view: wgpu::TextureView,
    pub(crate) shadow_view: wgpu::TextureView,
    pub(crate) uniforms: wgpu::Buffer,
    pub(crate) main_group: wgpu::BindGroup,
    pub(crate) shadow_group: wgpu::BindGroup,
}

impl RenderTarget {
    /// A `width` x `height` target with a `shadow_size`² shadow map, for `renderer`.
    pub fn new(
        device: &wgpu::Device,
        renderer: &super::Renderer,
        width: u32,
        height: u32,
        shadow_size: u32,
    ) -> Result<Self, RenderError> {
        let max = device.limits().max_texture_dimension_2d;
        for (what, size) in [
            ("width", width),
            ("height", height),
            ("shadow map", shadow_size),
        ] {
            if size == 0 || size > max {
                return Err(RenderError::invalid(
                    "render target",
                    format!("{what} {size} is outside 1..={max}"),
                ));
            }
        }
        let layouts = renderer.frame_layouts();
        capture(device, || {
            let texture = |label: &str, w: u32, h: u32, format, usage| {
                device.create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width: w,
                        height: h,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
            };
            let color = texture(
                "sinew color target",
                width,
                height,
                COLOR_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            );
            let depth = texture(
                "sinew depth buffer",
                width,
                height,
                DEPTH_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            );
            let shadow = texture(
                "sinew shadow map",
                shadow_size,
                shadow_size,
                SHADOW_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            );
            let view = |t: &wgpu::Texture, label: &str| {
                t.create_view(&wgpu::TextureViewDescriptor {
                    label: Some(label),
                    ..Default::default()
                })
            };
            let color_view = view(&color, "sinew color target view");
            let depth_view = view(&depth, "sinew depth buffer view");
            let shadow_view = view(&shadow, "sinew shadow map view");
            let uniforms = buffer_zeroed(
                device,
                "sinew frame uniforms",
                std::mem::size_of::<FrameUniforms>() as u64,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            );
            let main_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("sinew frame bind group"),
                layout: &layouts.main,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: uniforms.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&shadow_view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Sampler(&layouts.sampler),
                    },
                ],
            });
            let shadow_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("sinew shadow frame bind group"),
                layout: &layouts.shadow,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniforms.as_entire_binding(),
                }],
            });
            Ok(Self {
                width,
                height,
                shadow_size,
                color,
                color_view,
                depth_view,
                shadow_view,
                uniforms,
                main_group,
                shadow_group,
            })
        })
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Width aspect ratio (width / height).
    pub fn aspect(&self) -> f32 {
        self.width as f32 / self.height as f32
    }

    /// Side of the square shadow map in texels.
    pub fn shadow_size(&self) -> u32 {
        self.shadow_size
    }

    /// The colour texture ([`COLOR_FORMAT`], `COPY_SRC`).
    pub fn color_texture(&self) -> &wgpu::Texture {
        &self.color
    }

    /// Reads the colour target back.
    pub fn read_rgba8(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<RgbaImage, RenderError> {
        read_texture_rgba8(device, queue, &self.color)
    }

    /// Reads the colour target back and writes it to `path` as a PNG; returns the image.
    pub fn save_png(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        path: impl AsRef<Path>,
    ) -> Result<RgbaImage, RenderError> {
        let image = self.read_rgba8(device, queue)?;
        image.save_png(path)?;
        Ok(image)
    }
}

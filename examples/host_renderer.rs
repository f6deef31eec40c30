//! A host engine that owns its device, its pipelines and its render loop, and uses sinew only
//! for animation: sinew evaluates the poses into its palette buffer on the GPU, and the host's
//! own vertex shader skins with the WGSL that `sinew::render::skinning_wgsl` returns, reading
//! that buffer through a bind group made with sinew's layout.
//!
//! ```text
//! cargo run --example host_renderer -- [OUT.png] [--cpu] [--characters N] [--max-binding BYTES]
//! ```
//!
//! Renders a few frames of three characters (or `N`, in rows) headless and writes the last one
//! to `OUT.png` (default `target/host_renderer.png`). `--cpu` evaluates on the CPU and uploads
//! the palette instead (the same buffer layout). The palette is bound in windows of at most one
//! storage binding (`--max-binding` makes them smaller), one draw per window; the GPU evaluator
//! keeps a palette larger than one binding in one buffer per window. Without a GPU
//! adapter it prints why and exits 0 (fails under `REQUIRE_GPU=1`).

#[path = "../tests/common/env.rs"]
mod env;

use std::borrow::Cow;
use std::process::ExitCode;

use glam::{Affine3A, Mat4, Quat, Vec3};
use sinew::gpu::GpuOptions;
use sinew::render::{
    PaletteSegment, RgbaImage, create_palette_bind_group_layout, create_palette_window_bind_group,
    palette_window_of, palette_windows, skinning_wgsl,
};
use sinew::{Aabb, CpuBackend, GpuBackend, GpuContext, InstanceRecord, Layer, Mat3x4Rows};

/// The host's own vertex format: sinew does not dictate it.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct HostVertex {
    position: [f32; 3],
    normal: [f32; 3],
    /// Up to eight joints and their weights (`SkinnedMesh` slots; unused ones zero).
    joints: [u16; 8],
    weights: [f32; 8],
}

/// The host's uniforms, one per palette window.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct HostFrame {
    view_proj: [[f32; 4]; 4],
    joint_count: u32,
    /// First palette entry of the window bound with this frame.
    window_first: u32,
    pad: [u32; 2],
}

/// The host's shader: its own bindings at group 0, sinew's palette at group 1.
const HOST_WGSL: &str = r#"
struct HostFrame {
    view_proj: mat4x4<f32>,
    joint_count: u32,
    window_first: u32,
}
@group(0) @binding(0) var<uniform> host: HostFrame;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) joints0: vec4<u32>,
    @location(3) joints1: vec4<u32>,
    @location(4) weights0: vec4<f32>,
    @location(5) weights1: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

@vertex
fn vs_main(v: VertexIn, @builtin(instance_index) instance: u32) -> VertexOut {
    // The host lays palette blocks out one per instance; the bound window starts at
    // `window_first`, so the offset is relative to it.
    let offset = instance * host.joint_count - host.window_first;
    let influences = SinewInfluences(v.joints0, v.joints1, v.weights0, v.weights1);
    let s = sinew_skin_linear(offset, host.joint_count, influences, v.position, v.normal);
    return VertexOut(host.view_proj * vec4<f32>(s.position, 1.0), s.normal);
}

@fragment
fn fs_main(v: VertexOut) -> @location(0) vec4<f32> {
    let light = normalize(vec3<f32>(0.4, 1.0, 0.6));
    let lit = 0.25 + 0.75 * max(dot(normalize(v.normal), light), 0.0);
    return vec4<f32>(vec3<f32>(0.35, 0.6, 0.85) * lit, 1.0);
}
"#;

const SIZE: u32 = 256;
const FRAMES: u32 = 4;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("host_renderer: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut out = "target/host_renderer.png".to_string();
    let (mut use_cpu, mut characters, mut max_binding) = (false, 3u32, None);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--cpu" => use_cpu = true,
            "--characters" => {
                characters = args.next().ok_or("--characters needs a count")?.parse()?;
            }
            "--max-binding" => {
                let bytes = args.next().ok_or("--max-binding needs a size in bytes")?;
                max_binding = Some(bytes.parse::<u64>()?);
            }
            _ => out = arg,
        }
    }
    let characters = characters.max(1);

    // The host's device: created here, not by sinew.
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let instance = wgpu::Instance::new(desc);
    let adapter =
        match pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
        {
            Ok(adapter) => adapter,
            Err(e) if env::gpu_required() => {
                return Err(format!("REQUIRE_GPU=1 but no GPU adapter: {e}").into());
            }
            Err(e) => {
                println!("host_renderer: no GPU adapter ({e}); nothing to render");
                return Ok(());
            }
        };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("host device"),
        ..Default::default()
    }))?;
    println!("host_renderer on {:?}", adapter.get_info().name);

    // Animation data.
    let asset = sinew::import_file("assets/humanoid.glb")?;
    let rigs = sinew::bake_rigs(&asset)?;
    let rig = &rigs[0];
    let joints = rig.joint_count() as u32;
    let mesh = &rig.meshes[0];
    // Clips that stay in place (a clip with root motion would walk out of the fixed camera).
    let clips: Vec<u32> = ["idle", "walk", "wave"]
        .iter()
        .map(|name| rig.clips.find_clip(name).unwrap_or(0) as u32)
        .collect();

    // sinew's evaluator on the host's device, or the CPU evaluator plus an upload.
    let context = GpuContext::from_device(&device, &queue);
    let mut gpu = if use_cpu {
        None
    } else {
        // Palette buffers of the windows the host binds (below): buffer `k` is window `k`.
        let options = GpuOptions {
            max_palette_binding: max_binding,
            ..GpuOptions::default()
        };
        let mut backend = GpuBackend::with_options(&context, &rigs, &[], options)?;
        // Reserve every palette block before binding the buffers: growing replaces them.
        backend.reserve_palette(characters * joints)?;
        Some(backend)
    };
    let mut cpu = CpuBackend::new(rigs.clone(), Vec::new())?;
    let uploaded = sinew::render::create_palette_buffer(&device, (characters * joints) as usize)?;
    let whole = [PaletteSegment::whole(&uploaded)];
    let palette = gpu.as_ref().map_or(&whole[..], |g| g.palette_segments());

    // The palette in windows of at most one storage binding (one for a small palette), and the
    // characters each window draws: those whose blocks start in it.
    let mut limits = device.limits();
    if let Some(max) = max_binding {
        limits.max_storage_buffer_binding_size = limits.max_storage_buffer_binding_size.min(max);
    }
    let palette_entries = palette.last().map_or(0, PaletteSegment::end) as u32;
    let windows = palette_windows(&limits, palette_entries)?;
    let mut drawn_by = vec![(0u32, 0u32); windows.len()];
    for c in 0..characters {
        let w = palette_window_of(&windows, c * joints).ok_or("palette block outside")?;
        let (first, end) = &mut drawn_by[w];
        if first == end {
            *first = c;
        }
        *end = c + 1;
    }

    // The host's pipeline, with sinew's palette layout at group 1 and sinew's WGSL prepended.
    let palette_layout = create_palette_bind_group_layout(&device, wgpu::ShaderStages::VERTEX)?;
    let palette_groups = windows
        .iter()
        .map(|w| create_palette_window_bind_group(&device, &palette_layout, palette, w))
        .collect::<Result<Vec<_>, _>>()?;
    let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("host frame layout"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: wgpu::BufferSize::new(size_of::<HostFrame>() as u64),
            },
            count: None,
        }],
    });
    let source = format!("{}\n{HOST_WGSL}", skinning_wgsl(1, 0));
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("host shader"),
        source: wgpu::ShaderSource::Wgsl(Cow::Owned(source)),
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("host pipeline layout"),
        bind_group_layouts: &[Some(&frame_layout), Some(&palette_layout)],
        immediate_size: 0,
    });
    // Joints 1-4 and 5-8, then their weights, in `HostVertex` order.
    let attributes = wgpu::vertex_attr_array![
        0 => Float32x3, 1 => Float32x3, 2 => Uint16x4, 3 => Uint16x4, 4 => Float32x4, 5 => Float32x4
    ];
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("host pipeline"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[wgpu::VertexBufferLayout {
                array_stride: size_of::<HostVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attributes,
            }],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: wgpu::TextureFormat::Depth32Float,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        multiview_mask: None,
        cache: None,
    });

    // The host's buffers and targets.
    use wgpu::util::DeviceExt;
    let vertices: Vec<HostVertex> = (0..mesh.vertex_count())
        .map(|v| HostVertex {
            position: mesh.positions[v],
            normal: mesh.normals[v],
            joints: mesh.joints[v],
            weights: mesh.weights[v],
        })
        .collect();
    let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("host vertices"),
        contents: bytemuck::cast_slice(&vertices),
        usage: wgpu::BufferUsages::VERTEX,
    });
    let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("host indices"),
        contents: bytemuck::cast_slice(&mesh.indices),
        usage: wgpu::BufferUsages::INDEX,
    });
    let view_proj = glam::camera::rh::proj::directx::perspective(0.8, 1.0, 0.1, 50.0)
        * glam::camera::rh::view::look_at_mat4(
            Vec3::new(0.0, 1.6, 5.5),
            Vec3::new(0.0, 0.9, 0.0),
            Vec3::Y,
        );
    let frame_groups: Vec<wgpu::BindGroup> = windows
        .iter()
        .map(|w| {
            let frame = HostFrame {
                view_proj: Mat4::to_cols_array_2d(&view_proj),
                joint_count: joints,
                window_first: w.first_entry,
                pad: [0; 2],
            };
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("host frame"),
                contents: bytemuck::bytes_of(&frame),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("host frame bind group"),
                layout: &frame_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: buffer.as_entire_binding(),
                }],
            })
        })
        .collect();
    let texture = |label, format, usage| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: SIZE,
                height: SIZE,
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
        "host color",
        format,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let depth = texture(
        "host depth",
        wgpu::TextureFormat::Depth32Float,
        wgpu::TextureUsages::RENDER_ATTACHMENT,
    );
    let view = |texture: &wgpu::Texture, label| {
        texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some(label),
            ..Default::default()
        })
    };
    let color_view = view(&color, "host color view");
    let depth_view = view(&depth, "host depth view");

    // The render loop: the host advances time and asks sinew for the poses; sinew writes the
    // palette buffer the host's pipeline reads.
    let mut palette = vec![Mat3x4Rows::IDENTITY; (characters * joints) as usize];
    let mut bounds = vec![Aabb::EMPTY; characters as usize];
    for frame in 0..FRAMES {
        let time = frame as f32 / 30.0;
        let records = (0..characters)
            .map(|c| {
                // Rows of three, receding from the camera.
                let (row, column) = ((c / 3) as f32, (c % 3) as f32);
                let world = Affine3A::from_rotation_translation(
                    Quat::from_rotation_y(0.4 * (column - 1.0)),
                    Vec3::new(1.3 * (column - 1.0), 0.0, -1.5 * row),
                );
                InstanceRecord::new(
                    0,
                    c * joints,
                    &world,
                    &[Layer::clip(
                        clips[c as usize % clips.len()],
                        time + c as f32 * 0.3,
                    )],
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        match gpu.as_mut() {
            Some(backend) => backend.evaluate(&records)?,
            None => {
                cpu.evaluate(&records, &mut palette, &mut bounds)?;
                sinew::render::write_palette(&device, &queue, &uploaded, 0, &palette)?;
            }
        }
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("host frame"),
        });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("host pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &color_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.9,
                            g: 0.9,
                            b: 0.88,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipeline);
            pass.set_vertex_buffer(0, vertex_buffer.slice(..));
            pass.set_index_buffer(index_buffer.slice(..), wgpu::IndexFormat::Uint32);
            // One draw per palette window, of the characters whose blocks start in it.
            for ((frame_group, palette_group), &(first, end)) in
                frame_groups.iter().zip(&palette_groups).zip(&drawn_by)
            {
                if first == end {
                    continue;
                }
                pass.set_bind_group(0, frame_group, &[]);
                pass.set_bind_group(1, palette_group, &[]);
                pass.draw_indexed(0..mesh.indices.len() as u32, 0, first..end);
            }
        }
        queue.submit([encoder.finish()]);
    }

    // Readback with sinew's capture helper (any readback works).
    let image: RgbaImage = sinew::render::read_texture_rgba8(&device, &queue, &color)?;
    image.save_png(&out)?;
    let drawn = image
        .pixels
        .chunks_exact(4)
        .filter(|p| u16::from(p[2]) > u16::from(p[0]) + 40)
        .count();
    println!(
        "host_renderer: {FRAMES} frames of {characters} characters ({} evaluator, {} palette \
         windows), {drawn} character pixels, wrote {out}",
        if gpu.is_some() { "GPU" } else { "CPU" },
        windows.len()
    );
    if drawn == 0 {
        return Err("no character pixels in the last frame".into());
    }
    Ok(())
}

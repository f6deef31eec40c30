//! The window: winit's event loop, a wgpu surface, the egui panels around the stage. Each
//! frame the stage is drawn by [`ViewerFrame`] into a texture the central panel shows, egui
//! draws the whole window into a texture of the surface's format, and that texture is copied
//! to the surface (and, for `--screenshot`, read back).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop, OwnedDisplayHandle};
use winit::window::{Window, WindowId};

use super::ViewError;
use super::camera_control::OrbitCamera;
use super::frame::ViewerFrame;
use super::panels::{self, Interaction, PanelView, StageInfo};
use super::state::ViewerState;
use crate::GpuContext;
use crate::render::{RenderTarget, RgbaImage};

/// Seconds per frame when frames are counted (`--exit-after`): the clock is the frame count.
const FIXED_DT: f32 = 1.0 / 60.0;

/// How `sinew view` runs.
#[derive(Clone, Debug, Default)]
pub struct ViewOptions {
    /// The file to open first.
    pub file: Option<PathBuf>,
    /// Save what the window shows after [`ViewOptions::exit_after`] frames to this PNG.
    pub screenshot: Option<PathBuf>,
    /// Close the window after this many frames (time then advances 1/60 s per frame).
    pub exit_after: Option<u32>,
    /// Inner size of the window in pixels.
    pub size: (u32, u32),
}

/// Opens the window and runs until it closes (or `exit_after` frames).
pub fn run(options: ViewOptions) -> Result<(), ViewError> {
    let event_loop = EventLoop::new().map_err(|e| ViewError::Window(e.to_string()))?;
    let mut app = App {
        display: event_loop.owned_display_handle(),
        state: ViewerState::new(),
        options,
        window: None,
        frames: 0,
        last: Instant::now(),
        outcome: Ok(()),
    };
    if let Some(file) = app.options.file.clone() {
        // A file that fails to open is shown in the window, which stays open.
        let _ = app.state.open(&file);
    }
    event_loop
        .run_app(&mut app)
        .map_err(|e| ViewError::Window(e.to_string()))?;
    app.outcome
}

/// Everything that needs the window: the device, the surface, egui and the stage's frame.
struct Gfx {
    window: Arc<Window>,
    context: GpuContext,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The surface accepts copies (else egui draws into it a second time).
    copies: bool,
    /// The whole window, in the surface's format.
    frame_texture: wgpu::Texture,
    egui_state: egui_winit::State,
    egui_renderer: egui_wgpu::Renderer,
    stage_frame: ViewerFrame,
    target: RenderTarget,
    /// The stage's pixels as egui reads textures (sRGB-encoded bytes in an `Rgba8Unorm`
    /// texture), copied from the target each frame.
    shown: wgpu::Texture,
    stage_texture: egui::TextureId,
    camera: Option<OrbitCamera>,
    framed_for: Option<PathBuf>,
    view: PanelView,
}

struct App {
    display: OwnedDisplayHandle,
    state: ViewerState,
    options: ViewOptions,
    window: Option<Gfx>,
    frames: u32,
    last: Instant,
    outcome: Result<(), ViewError>,
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, error: ViewError) {
        self.outcome = Err(error);
        event_loop.exit();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        match Gfx::new(event_loop, self.display.clone(), &self.options) {
            Ok(gfx) => {
                gfx.window.request_redraw();
                self.window = Some(gfx);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(gfx) = self.window.as_mut() else {
            return;
        };
        let _ = gfx.egui_state.on_window_event(&gfx.window, &event);
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => gfx.resize(size),
            WindowEvent::DroppedFile(path) => {
                let _ = self.state.open(&path);
            }
            WindowEvent::RedrawRequested => {
                let dt = if self.options.exit_after.is_some() {
                    FIXED_DT
                } else {
                    let now = Instant::now();
                    let dt = (now - self.last).as_secs_f32().min(0.1);
                    self.last = now;
                    dt
                };
                if let Err(e) = self.state.update(dt) {
                    self.state.error = Some(e.to_string());
                }
                let last = self
                    .options
                    .exit_after
                    .is_some_and(|n| self.frames + 1 >= n);
                match gfx.redraw(&mut self.state, last) {
                    Ok(image) => {
                        self.frames += 1;
                        if last {
                            if let (Some(path), Some(image)) = (&self.options.screenshot, image)
                                && let Err(e) = image.save_png(path)
                            {
                                self.outcome = Err(e.into());
                            }
                            event_loop.exit();
                        }
                    }
                    Err(e) => self.fail(event_loop, e),
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(gfx) = &self.window {
            gfx.window.request_redraw();
        }
    }
}

impl Gfx {
    fn new(
        event_loop: &ActiveEventLoop,
        display: OwnedDisplayHandle,
        options: &ViewOptions,
    ) -> Result<Self, ViewError> {
        let window_error = |e: &dyn std::fmt::Display| ViewError::Window(e.to_string());
        let (width, height) = options.size;
        let attributes = Window::default_attributes()
            .with_title("sinew view")
            .with_inner_size(PhysicalSize::new(width.max(64), height.max(64)));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| window_error(&e))?,
        );
        let mut desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(display));
        desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
        desc.flags = wgpu::InstanceFlags::default().with_env();
        let instance = wgpu::Instance::new(desc);
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| window_error(&e))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
        }))
        .map_err(|e| window_error(&e))?;
        let context = GpuContext::from_adapter(&adapter)?;
        let caps = surface.get_capabilities(&adapter);
        let format = caps
            .formats
            .iter()
            .copied()
            .find(|f| {
                f.is_srgb()
                    && matches!(
                        f,
                        wgpu::TextureFormat::Bgra8UnormSrgb | wgpu::TextureFormat::Rgba8UnormSrgb
                    )
            })
            .or_else(|| caps.formats.first().copied())
            .ok_or_else(|| ViewError::Window("the surface offers no format".into()))?;
        let copies = caps.usages.contains(wgpu::TextureUsages::COPY_DST);
        let size = window.inner_size();
        let config = wgpu::SurfaceConfiguration {
            usage: if copies {
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_DST
            } else {
                wgpu::TextureUsages::RENDER_ATTACHMENT
            },
            format,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps
                .alpha_modes
                .first()
                .copied()
                .unwrap_or(wgpu::CompositeAlphaMode::Auto),
            view_formats: vec![],
        };
        surface.configure(&context.device, &config);
        let frame_texture = window_texture(&context.device, &config);
        let egui_ctx = egui::Context::default();
        let egui_state = egui_winit::State::new(
            egui_ctx,
            egui::ViewportId::ROOT,
            event_loop,
            Some(window.scale_factor() as f32),
            None,
            Some(context.device.limits().max_texture_dimension_2d as usize),
        );
        let mut egui_renderer = egui_wgpu::Renderer::new(
            &context.device,
            format,
            egui_wgpu::RendererOptions::default(),
        );
        let stage_frame = ViewerFrame::new(&context.device)?;
        let target = RenderTarget::new(&context.device, stage_frame.renderer(), 64, 64, 2048)?;
        let shown = shown_texture(&context.device, &target);
        let stage_texture = egui_renderer.register_native_texture(
            &context.device,
            &shown.create_view(&wgpu::TextureViewDescriptor::default()),
            wgpu::FilterMode::Linear,
        );
        Ok(Self {
            window,
            context,
            surface,
            config,
            copies,
            frame_texture,
            egui_state,
            egui_renderer,
            stage_frame,
            target,
            shown,
            stage_texture,
            camera: None,
            framed_for: None,
            view: PanelView::default(),
        })
    }

    fn resize(&mut self, size: PhysicalSize<u32>) {
        if size.width == 0 || size.height == 0 {
            return;
        }
        self.config.width = size.width;
        self.config.height = size.height;
        self.surface.configure(&self.context.device, &self.config);
        self.frame_texture = window_texture(&self.context.device, &self.config);
    }

    /// Draws one frame; returns what the window shows when `capture` asks for it.
    fn redraw(
        &mut self,
        state: &mut ViewerState,
        capture: bool,
    ) -> Result<Option<RgbaImage>, ViewError> {
        let raw_input = self.egui_state.take_egui_input(&self.window);
        let ctx = self.egui_state.egui_ctx().clone();
        let info = StageInfo {
            texture: self.stage_texture,
            camera: self.camera,
            times: self.stage_frame.times(),
            bounds: self.stage_frame.bounds(),
            joints: self.stage_frame.joints(),
        };
        let mut interaction = Interaction::default();
        let view = &mut self.view;
        let full = ctx.run_ui(raw_input, |ui| {
            interaction = panels::show(ui, state, view, &info);
        });
        self.egui_state
            .handle_platform_output(&self.window, full.platform_output);

        // The stage, at the size the central panel gives it.
        let (device, queue) = (&self.context.device, &self.context.queue);
        let [w, h] = interaction.stage_size;
        let (w, h) = (w.clamp(16, 4096), h.clamp(16, 4096));
        if (w, h) != (self.target.width(), self.target.height()) {
            self.target = RenderTarget::new(device, self.stage_frame.renderer(), w, h, 2048)?;
            self.shown = shown_texture(device, &self.target);
            self.egui_renderer.update_egui_texture_from_wgpu_texture(
                device,
                &self
                    .shown
                    .create_view(&wgpu::TextureViewDescriptor::default()),
                wgpu::FilterMode::Linear,
                self.stage_texture,
            );
        }
        if self.framed_for.as_deref() != state.path() || interaction.frame {
            if interaction.frame {
                state.set_framing(self.stage_frame.pose_bounds());
            }
            self.camera = Some(OrbitCamera::framing(&state.framing(), self.target.aspect()));
            self.framed_for = state.path().map(PathBuf::from);
        }
        let camera = self
            .camera
            .get_or_insert_with(|| OrbitCamera::framing(&crate::math::Aabb::EMPTY, 1.0));
        interaction.apply(camera, h as f32);
        let camera = camera.camera(self.target.aspect());
        if let Err(e) = self
            .stage_frame
            .draw(&self.context, state, &camera, &self.target)
        {
            state.error = Some(e.to_string());
        }

        // egui over the whole window.
        let pixels_per_point = full.pixels_per_point;
        let jobs = ctx.tessellate(full.shapes, pixels_per_point);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point,
        };
        for (id, delta) in &full.textures_delta.set {
            self.egui_renderer.update_texture(device, queue, *id, delta);
        }
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("sinew view egui"),
        });
        // The same bytes, read by egui as the sRGB-encoded colours its own textures hold.
        encoder.copy_texture_to_texture(
            self.target.color_texture().as_image_copy(),
            self.shown.as_image_copy(),
            self.shown.size(),
        );
        let command_buffers =
            self.egui_renderer
                .update_buffers(device, queue, &mut encoder, &jobs, &screen);
        let surface_texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => Some(t),
            _ => {
                self.surface.configure(device, &self.config);
                None
            }
        };
        let frame_view = self
            .frame_texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        self.paint(&mut encoder, &frame_view, &jobs, &screen);
        if let Some(t) = &surface_texture {
            if self.copies {
                encoder.copy_texture_to_texture(
                    self.frame_texture.as_image_copy(),
                    t.texture.as_image_copy(),
                    self.frame_texture.size(),
                );
            } else {
                let view = t
                    .texture
                    .create_view(&wgpu::TextureViewDescriptor::default());
                self.paint(&mut encoder, &view, &jobs, &screen);
            }
        }
        queue.submit(command_buffers.into_iter().chain([encoder.finish()]));
        for id in &full.textures_delta.free {
            self.egui_renderer.free_texture(id);
        }
        let image = if capture {
            Some(crate::render::read_texture_rgba8(
                device,
                queue,
                &self.frame_texture,
            )?)
        } else {
            None
        };
        if let Some(t) = surface_texture {
            self.window.pre_present_notify();
            t.present();
        }
        Ok(image)
    }

    fn paint(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        jobs: &[egui::ClippedPrimitive],
        screen: &egui_wgpu::ScreenDescriptor,
    ) {
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("sinew view window"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            })
            .forget_lifetime();
        self.egui_renderer.render(&mut pass, jobs, screen);
    }
}

/// A texture of `target`'s size that egui shows the stage from (`Rgba8Unorm`: egui treats
/// texture bytes as sRGB-encoded and decodes them itself).
fn shown_texture(device: &wgpu::Device, target: &RenderTarget) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("sinew view stage"),
        size: wgpu::Extent3d {
            width: target.width(),
            height: target.height(),
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    })
}

/// The texture the window is drawn into, in the surface's format.
fn window_texture(device: &wgpu::Device, config: &wgpu::SurfaceConfiguration) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("sinew view window"),
        size: wgpu::Extent3d {
            width: config.width,
            height: config.height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: config.format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

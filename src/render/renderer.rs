//! The renderer: every pass's layouts and pipelines for one device, and the frame it records
//! from a [`Scene`]: visibility (GPU culling, for the camera and the light) and pre-skinning
//! dispatches, the back-to-front order of batches with `BLEND` meshes, the shadow pass, then the
//! main pass (static meshes, skinned batches' opaque meshes, then their `BLEND` meshes blended,
//! far to near within a page, bone overlays).

use glam::{Mat4, Vec3};

use super::batch::{MeshSet, SkinnedBatch};
use super::bones::{BoneOverlay, BonePass};
use super::camera::{Camera, DirectionalLight, ShadowSettings, frustum_planes};
use super::cull::{CullFrusta, CullPass, DrawList};
use super::error::{RenderError, capture};
use super::layout::FrameUniforms;
use super::paging::BindingLimits;
use super::preskin::PreskinPass;
use super::skinned_pass::{PassKind, SkinnedPass, VertexSource};
use super::skinning::SkinningMode;
use super::sort::SortPass;
use super::static_pass::{StaticMesh, StaticPass};
use super::target::{FrameLayouts, RenderTarget};
use super::timestamps::{SceneStage, SceneTimestamps};
use super::wire_pass::WirePass;

/// Layouts and pipelines of every render pass for one device. Pipelines are created on first
/// use (some drivers compile slowly) and shared by every target and batch made from this
/// renderer; it may be shared across threads. On a lost device it records and submits nothing
/// and returns [`RenderError::DeviceLost`] (the reason is the one
/// [`GpuContext::device_loss`](crate::GpuContext::device_loss) holds).
#[derive(Debug)]
pub struct Renderer {
    limits: BindingLimits,
    frame: FrameLayouts,
    pub(crate) skinned: SkinnedPass,
    pub(crate) wire: WirePass,
    pub(crate) statics: StaticPass,
    pub(crate) cull: CullPass,
    pub(crate) preskin: PreskinPass,
    pub(crate) bones: BonePass,
    pub(crate) sort: SortPass,
}

/// Settings of a [`Renderer`]; the defaults suit any device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RendererOptions {
    /// Largest storage binding in bytes (the device's `max_storage_buffer_binding_size` when
    /// `None` or larger). Batches whose palette, boxes or instances need more are drawn in
    /// pages, each binding a window of them.
    pub max_binding: Option<u64>,
}

/// What one frame draws and how.
#[derive(Clone, Copy, Debug)]
pub struct Scene<'a> {
    /// The camera (also the culling frustum).
    pub camera: Camera,
    /// The light.
    pub light: DirectionalLight,
    /// Shadow mapping, or `None` for no shadows.
    pub shadow: Option<ShadowSettings>,
    /// Background colour (linear).
    pub clear_color: wgpu::Color,
    /// Skinned batches: one indirect draw per mesh and page each.
    pub skinned: &'a [&'a SkinnedBatch],
    /// Static meshes: one instanced draw each.
    pub statics: &'a [&'a StaticMesh],
    /// Bone overlays, drawn last, over everything.
    pub bones: &'a [&'a BoneOverlay],
    /// Linear blend or dual-quaternion skinning.
    pub skinning: SkinningMode,
    /// Skin each vertex once in a compute pass and let the shadow and main passes read the
    /// result (needs batches created with `preskin`), instead of skinning in both vertex stages.
    pub preskin: bool,
    /// Cull instances on the GPU: against the camera's frustum for the main pass and, with a
    /// shadow map, against the light's ([`Scene::light_view_projection`]) for the shadow pass,
    /// so a character outside the view still casts its shadow into it.
    pub cull: bool,
    /// Draw the skinned batches' meshes in the main pass as their skinned edges (lines, unlit,
    /// in their material colours) instead of filled; the shadow pass still fills them.
    pub wireframe: bool,
    /// Where to write GPU timestamps of the frame's stages (culling, shadow pass, main pass),
    /// or `None`.
    pub timestamps: Option<SceneTimestamps<'a>>,
}

impl<'a> Scene<'a> {
    /// A scene seen by `camera` with the default light, no shadow, a grey background and
    /// nothing in it; linear skinning in the vertex shader, culling on.
    pub fn new(camera: Camera) -> Self {
        Self {
            camera,
            light: DirectionalLight::default(),
            shadow: None,
            clear_color: wgpu::Color {
                r: 0.05,
                g: 0.06,
                b: 0.08,
                a: 1.0,
            },
            skinned: &[],
            statics: &[],
            bones: &[],
            skinning: SkinningMode::Linear,
            preskin: false,
            cull: true,
            wireframe: false,
            timestamps: None,
        }
    }

    /// The light's world-to-clip matrix when the scene has a shadow map: the frustum the shadow
    /// map covers, and the one its casters are culled against.
    pub fn light_view_projection(&self) -> Option<Mat4> {
        self.shadow.map(|s| self.light.view_projection(&s.bounds))
    }

    /// The frame uniforms of this scene on `target`.
    pub fn frame_uniforms(&self, target: &RenderTarget) -> FrameUniforms {
        let light_view_proj = self.light_view_projection().unwrap_or_default();
        let direction = self.light.direction.try_normalize().unwrap_or(Vec3::NEG_Y);
        FrameUniforms {
            view_proj: self.camera.view_projection().to_cols_array_2d(),
            light_view_proj: light_view_proj.to_cols_array_2d(),
            light_direction: direction.extend(0.0).to_array(),
            light_color: self.light.color.extend(1.0).to_array(),
            ambient_color: self.light.ambient.extend(1.0).to_array(),
            shadow: [
                if self.shadow.is_some() { 1.0 } else { 0.0 },
                self.shadow.map_or(0.0, |s| s.depth_bias),
                1.0 / target.shadow_size() as f32,
                0.0,
            ],
            camera_position: self.camera.position().extend(1.0).to_array(),
        }
    }
}

impl CullFrusta {
    /// The frusta `scene` is culled against.
    pub fn of(scene: &Scene<'_>) -> Self {
        Self {
            camera: scene.camera.frustum_planes(),
            light: scene.light_view_projection().map(|m| frustum_planes(&m)),
        }
    }
}

impl Renderer {
    /// Creates the layouts (pipelines come on first use).
    pub fn new(device: &wgpu::Device) -> Result<Self, RenderError> {
        Self::with_options(device, RendererOptions::default())
    }

    /// [`Renderer::new`] with explicit options. Errors with [`RenderError::LimitExceeded`]
    /// when the binding limit cannot hold the largest palette block (`MAX_PALETTE_BLOCK` entries).
    pub fn with_options(
        device: &wgpu::Device,
        options: RendererOptions,
    ) -> Result<Self, RenderError> {
        let limits = BindingLimits::from_limits(&device.limits(), options.max_binding).checked()?;
        capture(device, || {
            Ok(Self {
                limits,
                frame: FrameLayouts::new(device),
                skinned: SkinnedPass::new(device),
                wire: WirePass::default(),
                statics: StaticPass::new(device),
                cull: CullPass::new(device),
                preskin: PreskinPass::new(device),
                bones: BonePass::new(device),
                sort: SortPass::new(device),
            })
        })
    }

    /// The largest storage binding the passes use, in bytes.
    pub fn max_binding(&self) -> u64 {
        self.limits.max_binding
    }

    pub(crate) fn binding_limits(&self) -> BindingLimits {
        self.limits
    }

    pub(crate) fn frame_layouts(&self) -> &FrameLayouts {
        &self.frame
    }

    /// Records `scene` into `encoder`, writing the frame's uniforms with `queue` (so submit the
    /// encoder before rendering another scene into the same target). Errors that wgpu reports
    /// only at submission are caught by [`Renderer::render`], not here; on a lost device
    /// nothing is recorded.
    pub fn encode(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        target: &RenderTarget,
        scene: &Scene<'_>,
    ) -> Result<(), RenderError> {
        if scene.preskin
            && let Some(batch) = scene.skinned.iter().find(|b| !b.has_preskin())
        {
            return Err(RenderError::invalid(
                format!("skinned batch {:?}", batch.label()),
                "drawn pre-skinned but created without `preskin`",
            ));
        }
        let source = if scene.preskin {
            VertexSource::Preskinned
        } else {
            VertexSource::InShader(scene.skinning)
        };
        // The uniforms first: a lost device refuses them before any pipeline is made for it.
        write_uniforms(device, queue, target, &scene.frame_uniforms(target))?;
        // Every pipeline next, so a creation error stops the frame before anything is recorded.
        let frame = &self.frame;
        let has_skinned = !scene.skinned.is_empty();
        let has_static = !scene.statics.is_empty();
        let (filled, wire) = (
            has_skinned && !scene.wireframe,
            has_skinned && scene.wireframe,
        );
        let skinned_main = filled
            .then(|| self.skinned.pipeline(device, frame, PassKind::Main, source))
            .transpose()?;
        let has_blended = filled && scene.skinned.iter().any(|b| b.has_blended());
        let skinned_blended = has_blended
            .then(|| self.skinned.blended_pipeline(device, frame, source))
            .transpose()?;
        let blend_sort = has_blended
            .then(|| self.sort.pipelines(device))
            .transpose()?;
        let skinned_wire = wire
            .then(|| self.wire.pipeline(device, frame, &self.skinned, source))
            .transpose()?;
        let static_main = has_static
            .then(|| self.statics.pipeline(device, frame, PassKind::Main))
            .transpose()?;
        let bones = (!scene.bones.is_empty())
            .then(|| self.bones.pipeline(device, frame))
            .transpose()?;
        let shadows = match scene.shadow {
            Some(_) => Some((
                has_skinned
                    .then(|| {
                        self.skinned
                            .pipeline(device, frame, PassKind::Shadow, source)
                    })
                    .transpose()?,
                has_static
                    .then(|| self.statics.pipeline(device, frame, PassKind::Shadow))
                    .transpose()?,
            )),
            None => None,
        };

        let frusta = CullFrusta::of(scene);
        let stamps = scene.timestamps;
        if let Some(t) = stamps {
            t.mark(encoder, SceneStage::Cull, true, false);
        }
        for batch in scene.skinned {
            batch.encode_visibility(device, queue, encoder, self, scene.cull.then_some(&frusta))?;
            if let Some(pipelines) = blend_sort {
                batch.encode_blend_order(queue, encoder, pipelines, &scene.camera);
            }
            if scene.preskin {
                batch.encode_preskin(device, encoder, self, scene.skinning)?;
            }
            if scene.wireframe {
                batch.encode_wire_draws(encoder);
            }
        }

        if let Some(t) = stamps {
            t.mark(encoder, SceneStage::Cull, false, true);
            if shadows.is_none() {
                t.mark(encoder, SceneStage::Shadow, true, true);
            }
        }
        if let Some((skinned_shadow, static_shadow)) = shadows {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("sinew shadow pass"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &target.shadow_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: stamps.map(|t| t.render_writes(SceneStage::Shadow)),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &target.shadow_group, &[]);
            if let Some(pipeline) = static_shadow {
                pass.set_pipeline(pipeline);
                for mesh in scene.statics {
                    mesh.draw(&mut pass);
                }
            }
            if let Some(pipeline) = skinned_shadow {
                for batch in scene.skinned {
                    batch.draw(&mut pass, pipeline, source, DrawList::Light, MeshSet::All);
                }
            }
        }

        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("sinew main pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &target.color_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(scene.clear_color),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &target.depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: stamps.map(|t| t.render_writes(SceneStage::Main)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &target.main_group, &[]);
        if let Some(pipeline) = static_main {
            pass.set_pipeline(pipeline);
            for mesh in scene.statics {
                mesh.draw(&mut pass);
            }
        }
        // Opaque meshes, then `BLEND` materials over every opaque mesh; or every mesh's edges.
        let main_sets = [
            (skinned_main, MeshSet::Opaque),
            (skinned_blended, MeshSet::Blended),
            (skinned_wire, MeshSet::Wire),
        ];
        for (pipeline, set) in main_sets {
            let Some(pipeline) = pipeline else { continue };
            for batch in scene.skinned {
                batch.draw(&mut pass, pipeline, source, DrawList::Camera, set);
            }
        }
        if let Some(pipeline) = bones {
            pass.set_pipeline(pipeline);
            for overlay in scene.bones {
                overlay.draw(&mut pass);
            }
        }
        Ok(())
    }

    /// Records and submits only the culling of `scene`'s skinned batches (the camera's and the
    /// light's lists and indirect draws, and each tested box's verdict for the evaluator's
    /// [`crate::InstanceRecord::SKIP_CULLED`]), drawing nothing: for frames a host evaluates
    /// but does not draw. Does nothing when `scene.cull` is off.
    pub fn cull(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        scene: &Scene<'_>,
    ) -> Result<(), RenderError> {
        if !scene.cull || scene.skinned.is_empty() {
            return Ok(());
        }
        let frusta = CullFrusta::of(scene);
        capture(device, || {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("sinew cull only"),
            });
            for batch in scene.skinned {
                batch.encode_visibility(device, queue, &mut encoder, self, Some(&frusta))?;
            }
            queue.submit([encoder.finish()]);
            Ok(())
        })
    }

    /// Records and submits `scene` into `target`, with wgpu's validation errors captured. On a
    /// lost device nothing is submitted: [`RenderError::DeviceLost`].
    pub fn render(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        target: &RenderTarget,
        scene: &Scene<'_>,
    ) -> Result<(), RenderError> {
        capture(device, || {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("sinew frame"),
            });
            self.encode(device, queue, &mut encoder, target, scene)?;
            queue.submit([encoder.finish()]);
            Ok(())
        })
    }
}

/// Writes the frame's uniforms into `target`: the first thing a frame asks of the queue, and
/// where a lost device shows, since the queue refuses the write without a validation error.
fn write_uniforms(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    target: &RenderTarget,
    uniforms: &FrameUniforms,
) -> Result<(), RenderError> {
    let bytes = bytemuck::bytes_of(uniforms);
    let size = wgpu::BufferSize::new(bytes.len() as u64);
    let written = capture(device, || {
        let view = size.and_then(|size| queue.write_buffer_with(&target.uniforms, 0, size));
        Ok(view.map(|mut view| view.copy_from_slice(bytes)).is_some())
    })?;
    match written {
        true => Ok(()),
        false => Err(crate::gpu::refused_work().into()),
    }
}

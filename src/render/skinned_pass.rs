//! The skinned render pass (`wgsl/render/skinned.wgsl`): its bind group layouts and pipelines.
//!
//! A [`SkinnedBatch`](super::SkinnedBatch) is drawn with one `draw_indexed_indirect` per mesh
//! and page, whatever the instance count; the indirect arguments' `instance_count` comes from
//! GPU culling ([`cull`](super::cull)) or is the whole page. The vertex stage skins from the
//! palette at each instance's offset (linear blend or dual quaternion, a pipeline variant chosen
//! with the `DUAL_QUATERNION` override constant), or reads the vertices the pre-skinning kernel
//! wrote. The shadow pass reuses the same vertex code in depth-only pipelines.

use super::error::{RenderError, capture};
use super::layout::{MeshParams, SkinnedInstance, SkinnedVertex, StaticVertex};
use super::materials::{MaterialPass, MaterialVertex};
use super::shader::skinned_source;
use super::skinning::{SkinningMode, palette_layout_entry};
use super::target::{COLOR_FORMAT, DEPTH_FORMAT, FrameLayouts, SHADOW_FORMAT};
use super::util::{Lazy, shader_module, storage_entry, uniform_entry};

/// Which pass a pipeline draws in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PassKind {
    /// Lit colour pass.
    Main,
    /// Depth-only shadow pass from the light.
    Shadow,
}

/// How the main pass's pipelines draw a mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Look {
    /// Filled, opaque.
    Filled,
    /// Filled, alpha-blended (`BLEND` materials).
    Blended,
    /// Its edges as lines ([`super::wire_pass`]).
    Wire,
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
    /// Palette, instances, visible list, mesh parameters, morph target displacements.
    pub(crate) skin_layout: wgpu::BindGroupLayout,
    /// Instances, visible list, mesh parameters, pre-skinned vertices.
    pub(crate) preskinned_layout: wgpu::BindGroupLayout,
    /// Group 2 of the main pipelines: the material.
    pub(crate) materials: MaterialPass,
    module: Lazy<wgpu::ShaderModule>,
    /// Indexed by [`SkinnedPass::slot`].
    pipelines: [Lazy<wgpu::RenderPipeline>; 6],
    /// The main pass's pipelines for `BLEND` materials, by vertex source.
    blended: [Lazy<wgpu::RenderPipeline>; 3],
}

impl SkinnedPass {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let v = wgpu::ShaderStages::VERTEX;
        let instances = storage_entry(1, v, true, std::mem::size_of::<SkinnedInstance>() as u64);
        let visible = storage_entry(2, v, true, 4);
        let params = uniform_entry(3, v, std::mem::size_of::<MeshParams>() as u64);
        let morph = storage_entry(5, v, true, 4);
        let skin_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew skinned draw layout"),
            entries: &[
                palette_layout_entry(0, v),
                instances,
                visible,
                params,
                morph,
            ],
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
            materials: MaterialPass::new(device),
            module: Lazy::default(),
            pipelines: Default::default(),
            blended: Default::default(),
        }
    }

    pub(crate) fn source_slot(source: VertexSource) -> usize {
        match source {
            VertexSource::InShader(SkinningMode::Linear) => 0,
            VertexSource::InShader(SkinningMode::DualQuaternion) => 1,
            VertexSource::Preskinned => 2,
        }
    }

    fn slot(kind: PassKind, source: VertexSource) -> usize {
        let k = match kind {
            PassKind::Main => 0,
            PassKind::Shadow => 3,
        };
        k + Self::source_slot(source)
    }

    /// The main pass's pipeline for meshes with a `BLEND` material: alpha-blended over what is
    /// drawn, depth-tested without writing depth.
    pub(crate) fn blended_pipeline(
        &self,
        device: &wgpu::Device,
        frame: &FrameLayouts,
        source: VertexSource,
    ) -> Result<&wgpu::RenderPipeline, RenderError> {
        self.blended[Self::source_slot(source)]
            .get(|| self.create(device, frame, PassKind::Main, source, Look::Blended))
    }

    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
        frame: &FrameLayouts,
        kind: PassKind,
        source: VertexSource,
    ) -> Result<&wgpu::RenderPipeline, RenderError> {
        self.pipelines[Self::slot(kind, source)]
            .get(|| self.create(device, frame, kind, source, Look::Filled))
    }

    /// A pipeline of `kind` for `source` drawing as `look` says (the shadow pass only fills).
    pub(crate) fn create(
        &self,
        device: &wgpu::Device,
        frame: &FrameLayouts,
        kind: PassKind,
        source: VertexSource,
        look: Look,
    ) -> Result<wgpu::RenderPipeline, RenderError> {
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
            let label = format!("sinew skinned pipeline ({label_kind}, {source:?}, {look:?})");
            // The main pass reads the material (group 2, and its vertex streams).
            let group2 = (kind == PassKind::Main).then_some(&self.materials.layout);
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(&label),
                bind_group_layouts: &[Some(group0), Some(group1), group2],
                immediate_size: 0,
            });
            let entry = match (kind, source) {
                (PassKind::Main, VertexSource::InShader(_)) => "vs_skinned",
                (PassKind::Main, VertexSource::Preskinned) => "vs_preskinned",
                (PassKind::Shadow, VertexSource::InShader(_)) => "vs_shadow_skinned",
                (PassKind::Shadow, VertexSource::Preskinned) => "vs_shadow_preskinned",
            };
            let constants = [("DUAL_QUATERNION", mode.override_value())];
            let skinned = [SkinnedVertex::layout()];
            let with_material = [SkinnedVertex::layout(), MaterialVertex::layout()];
            let material_only = [MaterialVertex::layout()];
            let vertex = wgpu::VertexState {
                module,
                entry_point: Some(entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &constants,
                    zero_initialize_workgroup_memory: false,
                },
                buffers: match (kind, source) {
                    (PassKind::Main, VertexSource::InShader(_)) => &with_material,
                    (PassKind::Main, VertexSource::Preskinned) => &material_only,
                    (PassKind::Shadow, VertexSource::InShader(_)) => &skinned,
                    (PassKind::Shadow, VertexSource::Preskinned) => &[],
                },
            };
            let fragment = match look {
                Look::Filled => "fs_material",
                Look::Blended => "fs_material_blended",
                Look::Wire => "fs_wire",
            };
            let mut desc = lit_or_depth_pipeline(&label, &layout, vertex, module, kind, fragment);
            match look {
                Look::Filled => {}
                Look::Blended => {
                    if let Some(f) = desc.fragment.as_mut() {
                        f.targets = &BLENDED_TARGETS;
                    }
                    if let Some(depth) = desc.depth_stencil.as_mut() {
                        depth.depth_write_enabled = Some(false);
                    }
                }
                // Lines over the edges of each triangle (works on every backend, unlike
                // `PolygonMode::Line`); a line on a line already drawn passes the depth test.
                Look::Wire => {
                    desc.primitive.topology = wgpu::PrimitiveTopology::LineList;
                    if let Some(depth) = desc.depth_stencil.as_mut() {
                        depth.depth_compare = Some(wgpu::CompareFunction::LessEqual);
                    }
                }
            }
            Ok(device.create_render_pipeline(&desc))
        })
    }
}

/// The colour target of `BLEND` materials: premultiplied by the fragment's alpha, over what is
/// drawn.
const BLENDED_TARGETS: [Option<wgpu::ColorTargetState>; 1] = [Some(wgpu::ColorTargetState {
    format: COLOR_FORMAT,
    blend: Some(wgpu::BlendState::ALPHA_BLENDING),
    write_mask: wgpu::ColorWrites::ALL,
})];

/// The descriptor of a lit (main, with fragment entry point `fragment_entry`) or depth-only
/// (shadow) triangle pipeline, shared by the skinned and static passes.
pub(crate) fn lit_or_depth_pipeline<'a>(
    label: &'a str,
    layout: &'a wgpu::PipelineLayout,
    vertex: wgpu::VertexState<'a>,
    module: &'a wgpu::ShaderModule,
    kind: PassKind,
    fragment_entry: &'a str,
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
                entry_point: Some(fragment_entry),
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

//! The wireframe of the skinned main pass: each mesh's edges as a line list, drawn by pipelines
//! that run the skinned pass's own vertex stages (`vs_skinned`, `vs_preskinned`: same palette,
//! linear blend or dual quaternion, morph targets) with `wgsl/render/wire.wgsl`'s fragment
//! stage. Lines work on every backend, where `PolygonMode::Line` needs a feature GL lacks.
//!
//! A batch derives each mesh's edge list once, when it uploads the mesh, and draws it with the
//! same culled instance counts as the filled mesh (copied from the culling's indirect draws
//! into draws of its own, whose index counts are the edge lists'). A [`Scene`](super::Scene)
//! with `wireframe` set draws its skinned batches this way instead of filled.

use std::collections::HashSet;

use super::error::RenderError;
use super::skinned_pass::{Look, PassKind, SkinnedPass, VertexSource};
use super::target::FrameLayouts;
use super::util::Lazy;

/// The wireframe's pipelines, by vertex source (created on first use).
#[derive(Debug, Default)]
pub(crate) struct WirePass {
    pipelines: [Lazy<wgpu::RenderPipeline>; 3],
}

impl WirePass {
    /// The line-list pipeline of the main pass for `source`, over `skinned`'s layouts.
    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
        frame: &FrameLayouts,
        skinned: &SkinnedPass,
        source: VertexSource,
    ) -> Result<&wgpu::RenderPipeline, RenderError> {
        self.pipelines[SkinnedPass::source_slot(source)]
            .get(|| skinned.create(device, frame, PassKind::Main, source, Look::Wire))
    }
}

/// The edges of a triangle list (`triangles`: three vertex indices per triangle) as a line
/// list: each edge once, whichever triangles share it and in whichever direction, in the order
/// first met; edges from a vertex to itself left out. A trailing partial triangle is ignored.
pub fn wire_indices(triangles: &[u32]) -> Vec<u32> {
    let mut seen = HashSet::with_capacity(triangles.len());
    let mut lines = Vec::with_capacity(triangles.len() * 2);
    for t in triangles.chunks_exact(3) {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            if a != b && seen.insert((a.min(b), a.max(b))) {
                lines.extend([a, b]);
            }
        }
    }
    lines
}

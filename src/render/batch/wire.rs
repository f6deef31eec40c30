//! The wireframe's indirect draws ([`super::super::wire_pass`]): each mesh's edge list drawn
//! for the instances the camera's culling listed.

use super::SkinnedBatch;
use crate::render::cull::DrawList;
use crate::render::paging::DRAW_SIZE;

/// Byte offset of `instance_count` in a [`DrawIndexedArgs`](crate::render::DrawIndexedArgs).
const INSTANCE_COUNT_AT: u64 = 4;

impl SkinnedBatch {
    /// Records the copy of each mesh and page's camera instance count from this frame's
    /// indirect draws into the wireframe's (after [`SkinnedBatch::encode_visibility`]).
    pub(crate) fn encode_wire_draws(&self, encoder: &mut wgpu::CommandEncoder) {
        let b = &self.buffers;
        for page in &self.pages {
            for m in 0..self.meshes.len() as u64 {
                let at = page.draws_at_of(DrawList::Camera) + m * DRAW_SIZE + INSTANCE_COUNT_AT;
                encoder.copy_buffer_to_buffer(&b.draws, at, &b.wire_draws, at, 4);
            }
        }
    }
}

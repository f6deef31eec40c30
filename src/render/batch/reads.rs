//! Reading back what a [`SkinnedBatch`] computed on the GPU: the visible lists (the camera's
//! and the light's), their indirect draw arguments and the pre-skinned vertices, page by page,
//! in the caller's terms.

use super::SkinnedBatch;
use crate::render::cull::DrawList;
use crate::render::error::RenderError;
use crate::render::layout::{DrawIndexedArgs, StaticVertex};
use crate::render::paging::{DRAW_SIZE, VERTEX_SIZE, VISIBLE_SIZE};

impl SkinnedBatch {
    /// Reads back the camera's list of the last frame: the indices (in the list given to
    /// [`SkinnedBatch::write_instances`]) of the instances culling kept for the main pass, page
    /// by page, each page's in the order the GPU appended them (every instance, in order, when
    /// culling was off).
    pub fn read_visible(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<u32>, RenderError> {
        self.read_list(device, queue, DrawList::Camera)
    }

    /// Reads back the light's list of the last frame, as [`SkinnedBatch::read_visible`] does
    /// the camera's: the instances culling kept in the shadow map's frustum for the shadow
    /// pass. Empty when the frame was culled without a shadow map; every instance when culling
    /// was off.
    pub fn read_light_visible(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<u32>, RenderError> {
        self.read_list(device, queue, DrawList::Light)
    }

    fn read_list(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        list: DrawList,
    ) -> Result<Vec<u32>, RenderError> {
        if self.pages.is_empty() {
            return Ok(Vec::new());
        }
        let draws = self.read_draws(device, queue, list)?;
        let read = crate::render::capture::read_buffer;
        let bytes = read(device, queue, &self.buffers.visible, 0, self.bytes.visible)?;
        let visible: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes);
        let mut out = Vec::new();
        for (page, args) in self.pages.iter().zip(draws.chunks(self.meshes.len())) {
            let count = args[0].instance_count.min(page.count) as usize;
            let at = (page.visible_at_of(list) / VISIBLE_SIZE) as usize;
            out.extend(visible[at..at + count].iter().map(|&i| page.first + i));
        }
        Ok(out)
    }

    /// Every page's draws of `list`, page-major.
    fn read_draws(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        list: DrawList,
    ) -> Result<Vec<DrawIndexedArgs>, RenderError> {
        let read = crate::render::capture::read_buffer;
        let bytes = read(device, queue, &self.buffers.draws, 0, self.bytes.draws)?;
        let mut out = Vec::with_capacity(self.pages.len() * self.meshes.len());
        for page in &self.pages {
            for m in 0..self.meshes.len() as u64 {
                let at = (page.draws_at_of(list) + m * DRAW_SIZE) as usize;
                out.push(bytemuck::pod_read_unaligned(
                    &bytes[at..at + DRAW_SIZE as usize],
                ));
            }
        }
        Ok(out)
    }

    /// Reads back the indirect draw arguments of the camera's list (the main pass) of the last
    /// frame, one per mesh, summed over the pages: `instance_count` is the number of instances
    /// drawn of that mesh.
    pub fn read_draw_args(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<DrawIndexedArgs>, RenderError> {
        self.read_list_draw_args(device, queue, DrawList::Camera)
    }

    /// [`SkinnedBatch::read_draw_args`] for the light's list (the shadow pass).
    pub fn read_light_draw_args(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<DrawIndexedArgs>, RenderError> {
        self.read_list_draw_args(device, queue, DrawList::Light)
    }

    fn read_list_draw_args(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        list: DrawList,
    ) -> Result<Vec<DrawIndexedArgs>, RenderError> {
        let mut out: Vec<DrawIndexedArgs> = self
            .meshes
            .iter()
            .map(|m| DrawIndexedArgs {
                index_count: m.index_count,
                ..Default::default()
            })
            .collect();
        if self.pages.is_empty() {
            return Ok(out);
        }
        let draws = self.read_draws(device, queue, list)?;
        for args in draws.chunks(self.meshes.len()) {
            for (sum, a) in out.iter_mut().zip(args) {
                sum.instance_count += a.instance_count;
            }
        }
        Ok(out)
    }

    /// Reads back the pre-skinned vertices of mesh `mesh` written by the last frame:
    /// `instance_count × vertex_count` vertices, instance-major.
    pub fn read_preskinned(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        mesh: usize,
    ) -> Result<Vec<StaticVertex>, RenderError> {
        let object = self.object();
        let m = self
            .meshes
            .get(mesh)
            .ok_or_else(|| RenderError::invalid(&object, format!("has no mesh {mesh}")))?;
        let output = m
            .preskinned
            .as_ref()
            .ok_or_else(|| RenderError::invalid(&object, "was created without `preskin`"))?;
        let Some(&size) = self.bytes.preskin.get(mesh).filter(|&&s| s > 0) else {
            return Ok(Vec::new());
        };
        let bytes = crate::render::capture::read_buffer(device, queue, output, 0, size)?;
        let mut out = Vec::with_capacity(self.instance_count as usize * m.vertex_count as usize);
        for page in &self.pages {
            // Regions start at binding-aligned bytes, not necessarily at whole vertices.
            let at = page.preskin_at[mesh] as usize;
            let len = page.count as usize * m.vertex_count as usize * VERTEX_SIZE as usize;
            out.extend(bytemuck::pod_collect_to_vec::<u8, StaticVertex>(
                &bytes[at..at + len],
            ));
        }
        Ok(out)
    }
}

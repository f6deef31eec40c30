//! Where a frame's stages write GPU timestamps ([`Scene::timestamps`](super::Scene)): a pair
//! of queries (start, end) per stage of [`SCENE_STAGES`], in a query set the host owns (a
//! [`PassTimer`](crate::gpu::PassTimer) of three stages, say), resolved and read by the host.
//! Every pair is written every frame: a stage the frame does not run (no shadow map) is
//! timed by an empty pass, so it reads about 0.

/// The stages a timed scene writes, in the order of their query pairs: GPU culling (every
/// batch's visibility, compute passes and copies), the shadow pass, the main pass.
pub const SCENE_STAGES: [&str; 3] = ["cull", "shadow", "main"];

/// A stage of [`SCENE_STAGES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SceneStage {
    Cull = 0,
    Shadow = 1,
    Main = 2,
}

/// Where a scene writes its timestamps: queries `first + 2k` (start) and `first + 2k + 1`
/// (end) of `queries` for stage `k` of [`SCENE_STAGES`].
#[derive(Clone, Copy, Debug)]
pub struct SceneTimestamps<'a> {
    /// The query set (of type `Timestamp`, with at least `first + 6` queries).
    pub queries: &'a wgpu::QuerySet,
    /// The query of the first stage's start.
    pub first: u32,
}

impl<'a> SceneTimestamps<'a> {
    fn start(&self, stage: SceneStage) -> u32 {
        self.first + 2 * stage as u32
    }

    /// The render pass writes of `stage`: its start and end.
    pub(crate) fn render_writes(&self, stage: SceneStage) -> wgpu::RenderPassTimestampWrites<'a> {
        wgpu::RenderPassTimestampWrites {
            query_set: self.queries,
            beginning_of_pass_write_index: Some(self.start(stage)),
            end_of_pass_write_index: Some(self.start(stage) + 1),
        }
    }

    /// Records an empty compute pass that writes `stage`'s start (`start`) and end (`end`).
    pub(crate) fn mark(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        stage: SceneStage,
        start: bool,
        end: bool,
    ) {
        let at = self.start(stage);
        encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("sinew timestamp mark"),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: self.queries,
                beginning_of_pass_write_index: start.then_some(at),
                end_of_pass_write_index: end.then_some(at + 1),
            }),
        });
    }
}

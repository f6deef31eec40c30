//! The viewer's stage times: GPU time from timestamp queries where the device has
//! `TIMESTAMP_QUERY` (the GPU evaluate pass, then the draw's culling, shadow and main passes;
//! egui's pass is not timed), read back without stalling the frame (resolved copies mapped in
//! the background, each read a frame or two late), else wall time, labelled as such.

use std::time::Instant;

use crate::GpuContext;
use crate::gpu::PassTimer;
use crate::render::{SCENE_STAGES, SceneTimestamps};

/// Milliseconds each stage of a recent frame took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameTimes {
    /// The evaluation: GPU time of the evaluate pass when `evaluate_gpu`, else wall time (the
    /// CPU backend evaluating and uploading; the GPU backend recording and submitting).
    pub evaluate: f64,
    /// Whether `evaluate` is GPU time.
    pub evaluate_gpu: bool,
    /// GPU time of the draw's stages ([`SCENE_STAGES`]: culling, shadow pass, main pass), once
    /// timestamps have arrived; `None` without `TIMESTAMP_QUERY`.
    pub passes: Option<[f64; 3]>,
    /// Wall time recording and submitting the draw.
    pub draw: f64,
}

impl FrameTimes {
    /// What the graph shows: each stage's label (with `(GPU)` or `(wall)`) and milliseconds:
    /// the evaluation, then the three draw passes' GPU times, or the draw's wall time without
    /// them.
    pub fn stages(&self) -> Vec<(String, f64)> {
        let clock = |gpu: bool| if gpu { "GPU" } else { "wall" };
        let mut out = vec![(
            format!("evaluate ({})", clock(self.evaluate_gpu)),
            self.evaluate,
        )];
        match self.passes {
            Some(passes) => out.extend(
                SCENE_STAGES
                    .iter()
                    .zip(passes)
                    .map(|(name, ms)| (format!("{name} (GPU)"), ms)),
            ),
            None => out.push(("draw (wall)".into(), self.draw)),
        }
        out
    }
}

/// The frame's clocks: the wall clock, and the draw's timestamps when the device has them.
pub(super) struct FrameTimer {
    /// Use timestamp queries where the device has them.
    gpu: bool,
    /// The draw's three stages, made on the first timed draw.
    passes: Option<PassTimer>,
    made: bool,
    times: FrameTimes,
    start: Instant,
}

impl FrameTimer {
    pub(super) fn new() -> Self {
        Self {
            gpu: true,
            passes: None,
            made: false,
            times: FrameTimes::default(),
            start: Instant::now(),
        }
    }

    pub(super) fn times(&self) -> FrameTimes {
        self.times
    }

    /// Whether GPU timestamps are used where the device has them.
    pub(super) fn uses_gpu(&self) -> bool {
        self.gpu
    }

    /// Uses GPU timestamps where the device has them (`true`, the default) or wall time only.
    pub(super) fn set_gpu(&mut self, gpu: bool) {
        self.gpu = gpu;
        if !gpu {
            self.passes = None;
            self.made = false;
            self.times.passes = None;
            self.times.evaluate_gpu = false;
        }
    }

    /// Starts the wall clock of a stage.
    pub(super) fn start(&mut self) {
        self.start = Instant::now();
    }

    fn elapsed_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1e3
    }

    /// Ends the evaluation: its GPU time when `gpu_ms` brings one (else the last one stays,
    /// while timestamps are on their way), or the wall time since [`FrameTimer::start`].
    pub(super) fn evaluated(&mut self, gpu_ms: Option<Option<f64>>) {
        match gpu_ms {
            Some(Some(ms)) => {
                self.times.evaluate = ms;
                self.times.evaluate_gpu = true;
            }
            Some(None) if self.times.evaluate_gpu => {}
            _ => {
                self.times.evaluate = self.elapsed_ms();
                self.times.evaluate_gpu = false;
            }
        }
    }

    /// Where the draw writes its timestamps (the timer is made on the first call, on a device
    /// with `TIMESTAMP_QUERY`).
    pub(super) fn scene_timestamps(
        &mut self,
        context: &GpuContext,
    ) -> Result<Option<SceneTimestamps<'_>>, crate::error::GpuError> {
        if self.gpu && !self.made {
            self.passes =
                PassTimer::with_stages(&context.device, &context.queue, SCENE_STAGES.len() as u32)?;
            self.made = true;
        }
        Ok(self.passes.as_ref().map(|t| SceneTimestamps {
            queries: t.query_set(),
            first: 0,
        }))
    }

    /// Ends the draw: resolves its timestamps, asks for them without waiting and takes the
    /// newest that arrived; the wall time since [`FrameTimer::start`] too.
    pub(super) fn drawn(&mut self, context: &GpuContext) -> Result<(), crate::error::GpuError> {
        self.times.draw = self.elapsed_ms();
        let Some(timer) = self.passes.as_mut() else {
            return Ok(());
        };
        let (device, queue) = (&context.device, &context.queue);
        crate::gpu::capture(device, || {
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("sinew view timestamps"),
            });
            timer.resolve(&mut encoder);
            queue.submit([encoder.finish()]);
        })?;
        if let Some(ms) = timer.read_async(device, queue)?
            && let [cull, shadow, main] = ms[..]
        {
            self.times.passes = Some([cull, shadow, main]);
        }
        Ok(())
    }
}

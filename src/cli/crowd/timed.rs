//! The crowd's timed frames: one evaluator (the GPU backend with exact or compressed clips, the
//! exact CPU evaluator, or the fast CPU evaluator) runs every frame, and what it produced on
//! the last one is kept for the rendered frame, with what it applied (look-at, LOD, update
//! rate, culling skips) for the report.

use std::time::Instant;

use sinew::gpu::{ClipFormat, GpuOptions};
use sinew::runtime::Scheduling;
use sinew::{
    Aabb, DEFAULT_ERROR_BUDGET, FastCpuBackend, GpuBackend, GpuContext, Mat3x4Rows, PaletteWindows,
    Rig,
};

use super::motion::head_look_at;
use super::render::{self, FrameCull, FramePalette, Painter};
use super::steering::Steering;
use super::times::{StageTimes, median_p90, ms_since};
use super::{Crowd, CrowdArgs, DT, KernelRetarget, PRE_ROLL_UPDATES, Retargeting};
use crate::cli::Backend;

/// The evaluator a crowd runs on: one per combination of `--backend` and `--resampled`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Evaluator {
    /// `GpuBackend` with exact clips.
    GpuExact,
    /// `GpuBackend` with clips compressed to the default error budget, decoded in the kernel.
    GpuCompressed,
    /// The exact CPU evaluator (`CpuBackend`, through the animator).
    CpuExact,
    /// `FastCpuBackend`: clips resampled at bake time.
    CpuFast,
}

impl Evaluator {
    /// The evaluator `args` ask for.
    pub(super) fn of(args: &CrowdArgs) -> Self {
        match (args.backend, args.resampled) {
            (Backend::Gpu, false) => Self::GpuExact,
            (Backend::Gpu, true) => Self::GpuCompressed,
            (Backend::Cpu, false) => Self::CpuExact,
            (Backend::Cpu, true) => Self::CpuFast,
        }
    }

    /// The library type that evaluates.
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::GpuExact | Self::GpuCompressed => "GpuBackend",
            Self::CpuExact => "CpuBackend",
            Self::CpuFast => "FastCpuBackend",
        }
    }

    /// The clip format it samples.
    pub(super) fn clips(self) -> &'static str {
        match self {
            Self::GpuExact | Self::CpuExact => "exact",
            Self::GpuCompressed => "compressed",
            Self::CpuFast => "resampled",
        }
    }
}

/// What the evaluator produced on the last timed frame: the rendered frame is drawn from it.
pub(super) enum Evaluated {
    /// In the GPU backend's palette and bounds buffers (one box per slot).
    Gpu,
    /// The CPU evaluator's output: the palette at each record's offset and one box per record
    /// of [`sinew::runtime::Animator::records`].
    Cpu {
        palette: Vec<Mat3x4Rows>,
        bounds: Vec<Aabb>,
    },
}

/// What the timed run applied, which the report states (not what the flags asked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Applied {
    /// Heads turned toward the camera by the evaluator's IK stage.
    pub look_at: bool,
    /// Joint LOD by distance chosen by the kernel.
    pub lod: bool,
    /// Frames between evaluations of the nearest characters (1: every frame).
    pub update_every: u32,
    /// Characters culled on the last frame skipped on the next.
    pub skip_culled: bool,
    /// The kernel kept the previous palette (motion vectors).
    pub motion_vectors: bool,
}

/// A crowd after its timed frames, with the evaluator that ran them and what it measured.
pub(super) struct TimedRun {
    pub rig: Rig,
    pub crowd: Crowd,
    pub evaluator: Evaluator,
    pub gpu: Option<GpuBackend>,
    pub cull: Option<FrameCull>,
    pub evaluated: Evaluated,
    pub applied: Applied,
    pub times: StageTimes,
    pub dispatches: u32,
    pub bytes_written_per_joint: f64,
    pub bytes_read_per_joint: Option<f64>,
    /// Instance state written to the GPU over the timed frames.
    pub uploaded_bytes: u64,
    /// Whether the compute stage was timed by GPU timestamps (else wall time).
    pub gpu_timestamps: bool,
    /// Characters in the culling camera's view at the end (with a GPU culling pass).
    pub characters_in_view: Option<usize>,
    /// What `--budget-ms` held.
    pub budget: Option<BudgetReport>,
    /// How `--clips-from` was played.
    pub retargeting: Option<Retargeting>,
}

/// The GPU-time budget's outcome: its target, the evaluate pass's median GPU time over the
/// second half of the timed frames, and where the loop left the policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct BudgetReport {
    pub target_ms: f32,
    pub achieved_median_ms: f64,
    /// Whether the evaluate pass was timed by GPU timestamps (else the policy was held).
    pub timestamps: bool,
    /// Factor on the policy's LOD distances, and doublings of its update intervals.
    pub distance_scale: f32,
    pub rate_shift: u32,
    /// Characters at each joint LOD level on the last frame, as the kernel chose.
    pub levels: [usize; sinew::lod::LOD_LEVELS],
}

impl CrowdArgs {
    /// Spawns the crowd on `rig`, pre-rolls it, and times `--frames` frames of control, upload
    /// and evaluation on the evaluator the flags pick.
    pub(super) fn time_frames(
        &self,
        context: &GpuContext,
        mut rig: Rig,
        retarget: Option<KernelRetarget>,
    ) -> crate::cli::Result<TimedRun> {
        let characters = self.characters as usize;
        let frames = self.frames as usize;
        let evaluator = Evaluator::of(self);
        // The look-at is an IK constraint, solved by every evaluator's IK stage.
        let constrained = match head_look_at(&rig) {
            Some(constraint) if !self.no_look_at => {
                rig.set_ik(vec![constraint])?;
                true
            }
            _ => false,
        };
        // On the GPU backend records are the whole per-frame interface: only characters with
        // something happening are updated. The CPU evaluators evaluate every character anyway.
        let scheduling = match self.backend {
            Backend::Gpu => Scheduling::EventDriven,
            Backend::Cpu => Scheduling::PerFrame,
        };
        let progress = crate::cli::progress::steps("crowd");
        progress.set_message(format!("spawning {characters} characters"));
        let retargeting = match (&retarget, &self.clips_from) {
            (Some(_), _) if self.backend == Backend::Cpu => Some(Retargeting::Cpu),
            (Some(_), _) => Some(Retargeting::Kernel),
            (None, Some(_)) => Some(Retargeting::Baked),
            (None, None) => None,
        };
        let mut crowd = Crowd::new(rig.clone(), retarget, characters, scheduling, self.steering)?;
        let on_gpu = matches!(evaluator, Evaluator::GpuExact | Evaluator::GpuCompressed);
        if self.steering == Steering::Inertialized && on_gpu {
            // Inertialization blocks where the kernel reads them, in their character's palette
            // window, with a third of each window kept for them (a quarter of its characters in
            // transition at once) should the palette need several.
            let paging = sinew::render::palette_paging(&context.device.limits())?;
            let windows = PaletteWindows::new(paging, paging.stride / 3);
            crowd.animator.set_palette_windows(windows);
        }
        for _ in 0..PRE_ROLL_UPDATES {
            crowd.control()?;
        }

        let mut gpu = match evaluator {
            Evaluator::GpuExact | Evaluator::GpuCompressed => {
                progress.set_message("uploading the crowd (the pipeline compiles on first use)");
                let clips = match evaluator {
                    Evaluator::GpuCompressed => ClipFormat::Compressed {
                        budget: DEFAULT_ERROR_BUDGET,
                    },
                    _ => ClipFormat::Exact,
                };
                let options = GpuOptions {
                    clips,
                    previous_palette: self.motion_vectors,
                    ..GpuOptions::default()
                };
                let (rigs, masks) = (crowd.animator.rigs(), crowd.animator.masks());
                let mut b = GpuBackend::with_options(context, rigs, masks, options)?;
                // The animator's retarget maps, in its order: records name them by index.
                let maps = crowd.animator.retarget_maps();
                if !maps.is_empty() {
                    b.set_retargets(rigs, masks, maps)?;
                }
                b.reserve_palette(crowd.animator.palette().capacity())?;
                // Every character's record, then a first dispatch, which compiles the pipeline
                // (lazily, on software drivers): untimed.
                for (slot, record) in (0u32..).zip(crowd.animator.slot_records()) {
                    b.set_record_world(slot, record)?;
                }
                crowd.upload(&mut b)?;
                b.wait()?;
                Some(b)
            }
            Evaluator::CpuExact | Evaluator::CpuFast => None,
        };
        let mut look_at = false;
        if constrained {
            // Heads turn toward where the camera stands for the crowd as it is now.
            let bounds = match gpu.as_ref() {
                Some(g) => g.read_bounds(0..crowd.animator.slot_records().len())?,
                None => crowd.animator.evaluate_cpu()?.bounds.to_vec(),
            };
            if let Some(eye) = render::camera_eye(&bounds, self.framed()) {
                crowd.look_at(eye, gpu.as_mut())?;
                look_at = true;
            }
        }
        let mut fast = (evaluator == Evaluator::CpuFast)
            .then(|| {
                FastCpuBackend::new(
                    crowd.animator.rigs().to_vec(),
                    crowd.animator.masks().to_vec(),
                    sinew::cpu::fast::DEFAULT_RATE,
                )
            })
            .transpose()?;
        // The fast evaluator writes joints and morph weights into a palette of the animator's
        // layout, whose IK entries (the look-at targets) it reads: seeded from the animator's.
        let mut fast_palette = match fast {
            Some(_) => crowd.animator.evaluate_cpu()?.palette.to_vec(),
            None => Vec::new(),
        };
        let mut fast_bounds = Vec::new();
        // The exact CPU evaluator's output, kept when a frame is drawn from it.
        let (mut exact_palette, mut exact_bounds) = (Vec::new(), Vec::new());

        // LOD: the policy travels in the frame header (no per-character CPU work); culling runs
        // every frame so its verdicts reach the next evaluation.
        let mut cull = match gpu.as_mut() {
            Some(g) if self.uses_lod() || self.skip_culled => {
                let cull = FrameCull::new(context, &rig, &crowd, g, self.framed())?;
                let near = cull.near();
                g.set_lod_policy(self.policy(cull.eye(), near));
                Some(cull)
            }
            _ => None,
        };
        let gpu_timestamps = match gpu.as_mut() {
            Some(g) => g.enable_timing()?,
            None => false,
        };
        // `--budget-ms`: a closed loop on the evaluate pass's GPU time around the policy.
        let mut budget = self.budget(gpu.as_ref().and_then(|g| g.lod_policy().copied()));
        let mut run = TimedRun {
            rig,
            crowd,
            evaluator,
            gpu: None,
            cull: None,
            evaluated: Evaluated::Gpu,
            applied: Applied {
                look_at,
                motion_vectors: gpu.as_ref().is_some_and(|g| g.keeps_previous_palette()),
                ..Applied::default()
            },
            times: StageTimes::default(),
            dispatches: 0,
            bytes_written_per_joint: 48.0,
            bytes_read_per_joint: None,
            uploaded_bytes: 0,
            gpu_timestamps,
            characters_in_view: None,
            budget: None,
            retargeting,
        };
        // `--frames-out`: every timed frame drawn (untimed) from the evaluator's output.
        let mut movie = match self.frames_out.as_deref() {
            Some(path) => {
                let painter = Painter::new(context, true)?;
                let (width, height) = painter.size();
                let fps = (1.0 / DT).round() as u32;
                let apng =
                    sinew::render::AnimatedPng::create(path, width, height, frames as u32, fps)?;
                Some((painter, apng, path))
            }
            None => None,
        };
        progress.finish_and_clear();
        let bar = crate::cli::progress::bar(frames as u64, "crowd frames");
        let (crowd, times) = (&mut run.crowd, &mut run.times);
        for frame in 0..frames {
            let last = frame + 1 == frames;
            // The reads are counted on the last frame only: the count walks every record on
            // the CPU, which the other frames' stage times should not include.
            if let Some(g) = gpu.as_mut() {
                g.set_read_counting(last);
            }
            let frame_start = Instant::now();
            let control = Instant::now();
            crowd.control()?;
            times.control.push(ms_since(control));
            match gpu.as_mut() {
                Some(g) => {
                    let upload = Instant::now();
                    crowd.upload(g)?;
                    times.upload.push(ms_since(upload));
                    run.uploaded_bytes += g.last_frame().upload_bytes;
                    let compute = Instant::now();
                    g.wait()?;
                    let wall = ms_since(compute);
                    // GPU time of the pass where the adapter has timestamp queries, else wall time.
                    let gpu_ms = g.last_gpu_ms()?;
                    times.compute.push(gpu_ms.unwrap_or(wall));
                    if let Some(policy) = budget.as_mut().and_then(|b| b.observe(gpu_ms)) {
                        g.set_lod_policy(Some(policy));
                    }
                    run.dispatches = g.dispatches_last_frame();
                    run.bytes_written_per_joint = g.bytes_written_per_joint();
                    run.bytes_read_per_joint = g.bytes_read_per_joint();
                    if let Some(c) = cull.as_mut().filter(|_| self.skip_culled) {
                        let start = Instant::now();
                        c.run(context, &run.rig, crowd, g)?;
                        g.wait()?;
                        times.cull.push(ms_since(start));
                    }
                    times.frame.push(ms_since(frame_start));
                }
                None => {
                    let records = crowd.animator.records();
                    let now = crowd.animator.frame_time();
                    let compute = Instant::now();
                    match fast.as_mut() {
                        Some(f) => {
                            let entries = crowd.animator.palette().capacity() as usize;
                            fast_palette.resize(entries, Mat3x4Rows::IDENTITY);
                            fast_bounds.resize(records.len(), Aabb::EMPTY);
                            f.evaluate_at(now, records, &mut fast_palette, &mut fast_bounds)?;
                            times.compute.push(ms_since(compute));
                            run.bytes_read_per_joint = Some(f.bytes_read_per_joint());
                            times.frame.push(ms_since(frame_start));
                        }
                        None => {
                            let pose = crowd.animator.evaluate_cpu()?;
                            times.compute.push(ms_since(compute));
                            times.frame.push(ms_since(frame_start));
                            // Kept outside the frame's time: the palette a frame is drawn from.
                            if last || movie.is_some() {
                                exact_palette.clear();
                                exact_palette.extend_from_slice(pose.palette);
                                exact_bounds.clear();
                                exact_bounds.extend_from_slice(pose.bounds);
                            }
                            run.bytes_read_per_joint =
                                Some(crowd.animator.cpu_bytes_read_per_joint());
                        }
                    }
                    times.upload.push(0.0);
                    run.dispatches = 0;
                }
            }
            if let Some((painter, apng, path)) = movie.as_mut() {
                let frame = match gpu.as_ref() {
                    Some(g) => FramePalette::Gpu(g),
                    None if fast.is_some() => FramePalette::Cpu {
                        palette: &fast_palette,
                        bounds: &fast_bounds,
                    },
                    None => FramePalette::Cpu {
                        palette: &exact_palette,
                        bounds: &exact_bounds,
                    },
                };
                let image = painter.draw(context, &run.rig, crowd, frame, self.framed(), path)?;
                apng.write_frame(&image)?;
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        if let Some((_, apng, _)) = movie {
            apng.finish()?;
        }
        // The CPU evaluators' last output, which the rendered frame is drawn from.
        if gpu.is_none() {
            run.evaluated = match fast {
                Some(_) => Evaluated::Cpu {
                    palette: fast_palette,
                    bounds: fast_bounds,
                },
                None => Evaluated::Cpu {
                    palette: exact_palette,
                    bounds: exact_bounds,
                },
            };
        }
        if let (Some(b), Some(g)) = (budget, gpu.as_ref()) {
            // Each character's level as the kernel chose it on the last frame.
            let mut levels = [0; sinew::lod::LOD_LEVELS];
            for aabb in g.read_bounds(0..run.crowd.characters.len())? {
                levels[sinew::lod::level_of_box(&aabb) as usize] += 1;
            }
            // The second half of the timed frames: the loop has had the first to settle.
            let settled = &run.times.compute[run.times.compute.len() / 2..];
            run.budget = Some(BudgetReport {
                target_ms: b.target_ms,
                achieved_median_ms: median_p90(settled).0,
                timestamps: run.gpu_timestamps,
                distance_scale: b.scale(),
                rate_shift: b.rate_shift(),
                levels,
            });
        }
        if let Some(policy) = gpu.as_ref().and_then(GpuBackend::lod_policy) {
            run.applied.lod = policy.distances.iter().any(|d| d.is_finite());
            run.applied.update_every = policy.update_every[0].max(1);
            run.applied.skip_culled = policy.skip_culled && cull.is_some();
        } else {
            run.applied.update_every = 1;
        }
        run.gpu = gpu;
        run.cull = cull;
        Ok(run)
    }
}

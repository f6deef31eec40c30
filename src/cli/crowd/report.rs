//! The crowd's report, as a timing table or one JSON object: the figures of the evaluator that
//! ran and what it applied.

use sinew::GpuContext;
use sinew::runtime::Retargeted;

use super::CrowdArgs;
use super::timed::TimedRun;
use super::times::median_p90;

impl TimedRun {
    /// Characters × joints ÷ the median compute stage (0 when nothing was timed).
    fn joints_per_second(&self) -> f64 {
        let compute_s = median_p90(&self.times.compute).0 / 1e3;
        let joints = self.rig.joint_count() * self.crowd.characters.len();
        if compute_s > 0.0 {
            joints as f64 / compute_s
        } else {
            0.0
        }
    }

    /// Instance state written to the GPU per character per timed frame (the CPU evaluators
    /// upload none: their palette goes up once, for the rendered frame).
    fn bytes_uploaded_per_character(&self) -> f64 {
        let frames = self.times.frame.len().max(1);
        self.uploaded_bytes as f64 / (frames * self.crowd.characters.len().max(1)) as f64
    }

    /// Characters playing their clips through a mirrored map.
    fn mirrored_characters(&self) -> usize {
        let world = &self.crowd.world;
        (self.crowd.characters.iter())
            .filter(|&&e| world.get::<&Retargeted>(e).is_ok_and(|r| r.mirror))
            .count()
    }

    fn compute_clock(&self) -> &'static str {
        if self.gpu_timestamps {
            "gpu timestamps"
        } else {
            "wall"
        }
    }

    /// The `--json` report.
    pub(super) fn json(&self, args: &CrowdArgs, context: &GpuContext) -> serde_json::Value {
        let characters = self.crowd.characters.len();
        let (frame_median, frame_p90) = median_p90(&self.times.frame);
        let stage = |s: &[f64]| median_p90(s).0;
        serde_json::json!({
            "characters": characters,
            "joints_per_character": self.rig.joint_count(),
            "frames": self.times.frame.len(),
            "backend": args.backend.name(),
            // The evaluator that ran: the rendered frame is its output on the last timed frame.
            "evaluator": self.evaluator.name(),
            "clips": self.evaluator.clips(),
            "adapter": context.adapter_summary(),
            "frame_ms": { "median": frame_median, "p90": frame_p90 },
            "stages_ms": {
                "control": stage(&self.times.control),
                "upload": stage(&self.times.upload),
                "compute": stage(&self.times.compute),
                "cull": stage(&self.times.cull),
                "render": stage(&self.times.render),
            },
            "lod": self.applied.lod,
            "update_every": self.applied.update_every,
            "skip_culled": self.applied.skip_culled,
            "motion_vectors": self.applied.motion_vectors,
            "framed_characters": args.framed().min(characters),
            "characters_in_view": self.characters_in_view,
            "joints_per_second": self.joints_per_second(),
            "dispatches_per_frame": self.dispatches,
            // Instance slots per evaluate workgroup (EvaluateShape; null on the CPU).
            "instances_per_workgroup": self.gpu.as_ref().map(|g| g.evaluate_shape().group_instances()),
            "bytes_written_per_joint": self.bytes_written_per_joint,
            // Counted from the layout of the evaluator that ran.
            "bytes_read_per_joint": self.bytes_read_per_joint,
            "bytes_uploaded_per_character": self.bytes_uploaded_per_character(),
            "compute_clock": self.compute_clock(),
            "look_at": self.applied.look_at,
            // How --clips-from was played: "kernel" (per instance on the GPU), "cpu" (per
            // instance in the CPU backend), "baked" (a retargeted copy of the clips), or null.
            "retargeting": self.retargeting.map(|r| r.name()),
            "mirrored_characters": self.mirrored_characters(),
            "budget": self.budget.map(|b| serde_json::json!({
                "target_ms": b.target_ms,
                // The evaluate pass's median over the second half of the timed frames.
                "achieved_median_ms": b.achieved_median_ms,
                // Without GPU timestamps the loop holds the policy as set.
                "timestamps": b.timestamps,
                "distance_scale": b.distance_scale,
                "update_rate_doublings": b.rate_shift,
                "characters_per_level": b.levels,
            })),
        })
    }

    /// The timing table.
    pub(super) fn table(&self, args: &CrowdArgs, context: &GpuContext, model: &str) -> String {
        let row = |name: &str, s: &[f64]| {
            let (m, p) = median_p90(s);
            format!("  {name:<8} {m:>10.3} {p:>10.3}\n")
        };
        let times = &self.times;
        let mut table = format!(
            "sinew crowd: {} x {model} ({} joints), {} frames, {} ({} clips) on {}\n  stage    median ms     p90 ms\n",
            self.crowd.characters.len(),
            self.rig.joint_count(),
            times.frame.len(),
            self.evaluator.name(),
            self.evaluator.clips(),
            context.adapter_summary()
        );
        table += &row("control", &times.control);
        table += &row("upload", &times.upload);
        table += &row("compute", &times.compute);
        if self.applied.skip_culled {
            table += &row("cull", &times.cull);
        }
        table += &row("render", &times.render);
        table += &row("frame", &times.frame);
        let look_at = match (self.applied.look_at, args.no_look_at) {
            (true, _) => "on",
            (false, true) => "off",
            (false, false) => "off (no head or neck joint, or nothing to frame)",
        };
        table += &format!(
            "  compute measured by {}\n  {:.1} M joints/s, {} dispatch(es) per frame, {:.1} bytes written per joint\n  {:.1} bytes of instance state uploaded per character per frame\n  look-at {look_at}; lod {}, update every {} frame(s), skip culled {}, motion vectors {}\n  wrote {}, drawn from {}'s last frame",
            self.compute_clock(),
            self.joints_per_second() / 1e6,
            self.dispatches,
            self.bytes_written_per_joint,
            self.bytes_uploaded_per_character(),
            on_off(self.applied.lod),
            self.applied.update_every,
            on_off(self.applied.skip_culled),
            on_off(self.applied.motion_vectors),
            args.out.display(),
            self.evaluator.name(),
        );
        if let Some(r) = self.retargeting {
            table += &format!(
                "\n  clips from {} retargeted: {}, {} character(s) mirrored",
                args.clips_from
                    .as_deref()
                    .map_or_else(String::new, |p| p.display().to_string()),
                r.name(),
                self.mirrored_characters()
            );
        }
        if let Some(b) = &self.budget {
            table += &match b.timestamps {
                true => format!(
                    "\n  budget {:.3} ms: achieved median {:.3} ms (second half of the frames); \
                     distances x{:.3}, update intervals x{}; characters per LOD level {:?}",
                    b.target_ms,
                    b.achieved_median_ms,
                    b.distance_scale,
                    1u32 << b.rate_shift,
                    b.levels
                ),
                false => format!(
                    "\n  budget {:.3} ms: no GPU timestamps on this adapter, the policy was held \
                     as set; characters per LOD level {:?}",
                    b.target_ms, b.levels
                ),
            };
        }
        table
    }
}

fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

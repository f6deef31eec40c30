//! `sinew crowd`: the main job. N characters on a grid, each driven by a locomotion state
//! machine (idle / walk / run with cross-fades) from its own speed parameter, some waving
//! through a masked upper-body layer; F frames of control → upload → compute, the last frame
//! rendered to a PNG, and where the time went.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use glam::Vec3;
use hecs::World;
use sinew::gpu::{ClipFormat, GpuOptions};
use sinew::runtime::{
    Animated, Animator, ClipLayer, Layers, MaskSpec, RootMotion, RootTranslation, Scheduling,
    StateMachine, Transform, Value,
};
use sinew::{
    Aabb, DEFAULT_ERROR_BUDGET, FastCpuBackend, GpuBackend, GpuContext, IkTarget, Mat3x4Rows, Rig,
};

mod lod;
mod motion;
mod pace;
mod render;
mod times;

use self::motion::{head_look_at, locomotion};

use self::pace::PacePlan;
use self::times::{StageTimes, median_p90, ms_since};
use super::{Backend, CliError};

/// The default rig, built into the binary so `sinew crowd` runs from anywhere.
const DEFAULT_RIG: &[u8] = include_bytes!("../../../assets/humanoid.glb");

/// The name errors and the report give the built-in rig.
const DEFAULT_RIG_NAME: &str = "assets/humanoid.glb";

/// Seconds per frame of the simulation clock.
const DT: f32 = 1.0 / 60.0;

/// How many characters the rendered frame is framed on (the rest extend out of view).
const FRAMED_CHARACTERS: usize = 24;

/// Untimed updates before the first timed frame, so characters start in different states.
const PRE_ROLL_UPDATES: usize = 30;

/// Colours characters are tinted with, by grid cell.
const TINTS: [[f32; 3]; 6] = [
    [0.85, 0.55, 0.40],
    [0.45, 0.60, 0.85],
    [0.55, 0.80, 0.50],
    [0.85, 0.75, 0.40],
    [0.70, 0.50, 0.80],
    [0.80, 0.80, 0.80],
];

/// The simulated crowd: rig, animator, world, the characters and their pace plan.
struct Crowd {
    animator: Animator,
    world: World,
    characters: Vec<hecs::Entity>,
    paces: PacePlan,
    /// Seconds of simulated time.
    clock: f64,
    joints: usize,
}

impl Crowd {
    fn new(rig: Rig, characters: usize, scheduling: Scheduling) -> crate::cli::Result<Self> {
        let joints = rig.joint_count();
        let spacing = {
            // The rest pose's bounds in model space (bind-space bounds would miss where rigid
            // parts, modelled in their node's space, are drawn).
            let mut models = vec![glam::Affine3A::IDENTITY; joints];
            let mut palette = vec![sinew::Mat3x4Rows::IDENTITY; rig.palette_entries()];
            let b = sinew::cpu::evaluate_pose(
                &rig,
                &[],
                &[],
                &glam::Affine3A::IDENTITY,
                &mut models,
                &mut palette,
            );
            let extent = if b.is_empty() {
                1.0
            } else {
                (b.max[0] - b.min[0])
                    .max(b.max[2] - b.min[2])
                    .max((b.max[1] - b.min[1]) * 0.5)
            };
            extent * 1.6
        };
        let wave = rig.clips.find_clip("wave");
        let upper_body = ["Spine", "Spine1", "spine", "b_Spine01_02"]
            .into_iter()
            .find(|j| rig.skeleton.find_joint(j).is_some());
        let machine_def = locomotion(&rig);
        let mut animator = Animator::new(vec![rig])?;
        animator.set_scheduling(scheduling);
        let machine = animator.add_state_machine(0, &machine_def)?;
        let wave_layer = match (wave, upper_body) {
            (Some(clip), Some(joint)) => {
                let mask = animator.add_mask(0, &MaskSpec::subtrees("upper body", &[joint]))?;
                Some(ClipLayer::new(clip as u32).with_mask(mask))
            }
            _ => None,
        };
        let root = animator.root_joint(0)?;
        // On the GPU backend root motion accumulates on the GPU, in the resident records.
        let root_motion = match scheduling {
            Scheduling::EventDriven => RootMotion::new(root, RootTranslation::Xz, false).on_gpu(),
            Scheduling::PerFrame => RootMotion::new(root, RootTranslation::Xz, false),
        };
        let side = (characters as f32).sqrt().ceil() as usize;
        let mut world = World::new();
        let mut entities = Vec::with_capacity(characters);
        for i in 0..characters {
            let (row, col) = (i / side, i % side);
            let position = Vec3::new(
                (col as f32 - side as f32 * 0.5) * spacing,
                0.0,
                (row as f32 - side as f32 * 0.5) * spacing,
            );
            let state_machine: StateMachine = animator.state_machine(machine)?;
            let entity = world.spawn((
                Animated::new(0),
                Transform::from_translation(position),
                state_machine,
                root_motion,
            ));
            if let (Some(layer), true) = (wave_layer, i % 3 == 0) {
                let layers = Layers::from_layers(&[layer])?;
                world.insert_one(entity, layers)?;
            }
            entities.push(entity);
        }
        Ok(Self {
            animator,
            world,
            characters: entities,
            paces: PacePlan::new(characters),
            clock: 0.0,
            joints,
        })
    }

    /// Sends the records that changed in the last update to the GPU and evaluates every
    /// character at the animator's frame time.
    fn upload(&self, gpu: &mut GpuBackend) -> crate::cli::Result {
        let records = self.animator.slot_records();
        let placed = self.animator.placed_slots();
        for &slot in self.animator.changed_slots() {
            let record = &records[slot as usize];
            // A spawn places the record's world; later writes keep the GPU-moved one.
            if placed.binary_search(&slot).is_ok() {
                gpu.set_record_world(slot, record)
            } else {
                gpu.set_record(slot, record).map(|_| ())
            }?;
        }
        if let Some(shift) = self.animator.epoch_shift() {
            gpu.rebase_frame_time(shift as f32);
        }
        gpu.evaluate_resident(self.animator.frame_time())?;
        Ok(())
    }

    /// Turns every character's head toward `eye` (the camera) from the next evaluation on: in
    /// the GPU backend's palette when there is one, else in the animator's CPU palette.
    fn look_at(&mut self, eye: Vec3, gpu: Option<&mut GpuBackend>) -> crate::cli::Result {
        let targets = [IkTarget::at(eye)];
        match gpu {
            Some(g) => {
                for record in self
                    .animator
                    .slot_records()
                    .iter()
                    .filter(|r| !r.is_empty())
                {
                    g.set_ik_targets(record, &targets)?;
                }
            }
            None => {
                for &entity in &self.characters {
                    self.animator
                        .set_ik_targets(&self.world, entity, &targets)?;
                }
            }
        }
        Ok(())
    }

    /// Applies the pace changes due now (through the animator, so it knows whom they touch)
    /// and advances the animator by one frame.
    fn control(&mut self) -> crate::cli::Result {
        self.clock += f64::from(DT);
        let Self {
            animator,
            world,
            characters,
            paces,
            clock,
            ..
        } = self;
        paces.due(*clock, |c, speed| {
            animator.set_parameter(
                world,
                characters[c as usize],
                "speed",
                Value::Float(f64::from(speed)),
            )
        })?;
        self.animator.update(&mut self.world, DT)?;
        Ok(())
    }
}

/// Arguments of `sinew crowd`.
#[derive(Debug, Args)]
pub struct CrowdArgs {
    /// How many characters to animate.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1000,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub characters: u32,
    /// How many frames to time (after an untimed pre-roll); the last is rendered.
    #[arg(
        long,
        value_name = "F",
        default_value_t = 60,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub frames: u32,
    /// The rig to animate: a glTF, FBX or `.sinew` file (its first skin with a mesh) [default: the
    /// built-in assets/humanoid.glb].
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// How to read `--model`.
    #[command(flatten)]
    pub import: crate::cli::settings::ImportFlags,
    /// Which evaluator computes the poses: the GPU (event-driven, GPU-resident records) or the
    /// CPU (every character every frame).
    #[arg(long, value_enum, default_value_t = Backend::Gpu)]
    pub backend: Backend,
    /// Evaluate lossy clips: compressed clips decoded in the kernel on the GPU backend (within
    /// the default error budget), resampled clips on the CPU backend (its fast mode; lossy
    /// within a documented bound).
    #[arg(long)]
    pub resampled: bool,
    /// The PNG file the last frame is rendered to.
    #[arg(long, value_name = "PNG", default_value = "crowd.png")]
    pub out: PathBuf,
    /// Also render every timed frame into this animated PNG (at 60 frames per second, the
    /// simulation's rate; the camera framed as on the first frame). Drawing is not timed.
    #[arg(long, value_name = "PNG")]
    pub frames_out: Option<PathBuf>,
    /// Print one JSON object instead of the timing table.
    #[arg(long)]
    pub json: bool,
    /// Do not turn the characters' heads toward the camera (look-at IK on a joint named
    /// like `Head` or `Neck`; not applied by `--resampled`).
    #[arg(long)]
    pub no_look_at: bool,
    /// Animation LOD by distance to the camera, chosen on the GPU: characters beyond 2, 4 and
    /// 8 times the camera's distance to the framed ones sample fewer joints (LOD 1 to 3) and
    /// are evaluated every 2, 4 and 8 frames (times `--update-every`). Needs `--backend gpu`.
    #[arg(long)]
    pub lod: bool,
    /// Evaluate each character every N frames (phases spread by slot; with `--lod`, the
    /// nearest level's interval). Needs `--backend gpu`.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        value_parser = clap::value_parser!(u32).range(1..=31)
    )]
    pub update_every: u32,
    /// Cull the crowd on the GPU every frame and skip evaluating the characters the last
    /// frame's culling left out of view (refreshed every 8 frames so they can walk back in).
    /// Needs `--backend gpu`.
    #[arg(long)]
    pub skip_culled: bool,
    /// Share of the characters (nearest the front) the camera is framed on, 0 to 1 [default:
    /// 24 characters]; the rest extend out of view.
    #[arg(long, value_name = "F")]
    pub view_fraction: Option<f64>,
}

impl CrowdArgs {
    /// Runs the crowd, renders its last frame and prints the timing table or JSON report.
    pub fn run(&self) -> crate::cli::Result {
        let args = self;
        let characters = args.characters as usize;
        let frames = args.frames as usize;
        let backend = args.backend;
        let out = &args.out;
        let progress = super::progress::steps("crowd");
        progress.set_message("loading the rig");
        let mut rig = load_rig(args.model.as_deref(), &args.import.settings())?;
        let look_at = match head_look_at(&rig) {
            Some(constraint) if !args.no_look_at => {
                rig.set_ik(vec![constraint])?;
                true
            }
            _ => false,
        };
        let model = args
            .model
            .as_deref()
            .map_or_else(|| DEFAULT_RIG_NAME.to_string(), |m| m.display().to_string());

        progress.set_message("starting the GPU device");
        let context = GpuContext::new_headless()?;
        // On the GPU backend records are the whole per-frame interface: only characters with
        // something happening are updated. The CPU backend evaluates every character anyway.
        let scheduling = match backend {
            Backend::Gpu => Scheduling::EventDriven,
            Backend::Cpu => Scheduling::PerFrame,
        };
        progress.set_message(format!("spawning {characters} characters"));
        let mut crowd = Crowd::new(rig.clone(), characters, scheduling)?;
        let joints = crowd.joints;
        for _ in 0..PRE_ROLL_UPDATES {
            crowd.control()?;
        }

        let mut gpu = match backend {
            Backend::Gpu => {
                progress.set_message("uploading the crowd (the pipeline compiles on first use)");
                let clips = if args.resampled {
                    ClipFormat::Compressed {
                        budget: DEFAULT_ERROR_BUDGET,
                    }
                } else {
                    ClipFormat::Exact
                };
                let options = GpuOptions {
                    clips,
                    ..GpuOptions::default()
                };
                let mut b = GpuBackend::with_options(
                    &context,
                    std::slice::from_ref(&rig),
                    crowd.animator.masks(),
                    options,
                )?;
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
            Backend::Cpu => None,
        };
        if look_at {
            // Heads turn toward where the camera stands for the crowd as it is now.
            let bounds = match gpu.as_ref() {
                Some(g) => g.read_bounds(0..crowd.animator.slot_records().len())?,
                None => crowd.animator.evaluate_cpu()?.bounds.to_vec(),
            };
            if let Some(eye) = render::camera_eye(&bounds, args.framed()) {
                crowd.look_at(eye, gpu.as_mut())?;
            }
        }
        // The resampled CPU mode is an explicit opt-in (lossy within the bound documented on
        // `FastCpuBackend`); exact is the default.
        let mut fast = (args.resampled && gpu.is_none())
            .then(|| {
                FastCpuBackend::new(
                    crowd.animator.rigs().to_vec(),
                    crowd.animator.masks().to_vec(),
                    sinew::cpu::fast::DEFAULT_RATE,
                )
            })
            .transpose()?;
        let mut fast_palette = Vec::new();
        let mut fast_bounds = Vec::new();

        // LOD: the policy travels in the frame header (no per-character CPU work); culling runs
        // every frame so its verdicts reach the next evaluation.
        let mut cull = match gpu.as_mut() {
            Some(g) if args.uses_lod() || args.skip_culled => {
                let cull = render::FrameCull::new(&context, &rig, &crowd, g, args.framed())?;
                let near = cull.near();
                g.set_lod_policy(args.policy(cull.eye(), near));
                Some(cull)
            }
            _ => None,
        };
        let timestamps = match gpu.as_mut() {
            Some(g) => g.enable_timing()?,
            None => false,
        };
        let compute_clock = if timestamps { "gpu timestamps" } else { "wall" };
        let mut times = StageTimes::default();
        let mut dispatches = 0;
        let mut bytes_per_joint = 48.0;
        let mut bytes_read_per_joint = None;
        let mut uploaded_bytes = 0u64;
        let mut movie = match args.frames_out.as_deref() {
            Some(path) => {
                let painter = render::Painter::new(&context, true)?;
                let (width, height) = painter.size();
                let fps = (1.0 / DT).round() as u32;
                let apng =
                    sinew::render::AnimatedPng::create(path, width, height, frames as u32, fps)?;
                Some((painter, apng, path))
            }
            None => None,
        };
        progress.finish_and_clear();
        let bar = super::progress::bar(frames as u64, "crowd frames");
        for frame in 0..frames {
            // The reads are counted on the last frame only: the count walks every record on
            // the CPU, which the other frames' stage times should not include.
            if let Some(g) = gpu.as_mut() {
                g.set_read_counting(frame + 1 == frames);
            }
            let frame_start = Instant::now();
            let control = Instant::now();
            crowd.control()?;
            times.control.push(ms_since(control));
            match gpu.as_mut() {
                Some(g) => {
                    if g.palette_capacity() < crowd.animator.palette().capacity() {
                        g.reserve_palette(crowd.animator.palette().capacity())?;
                    }
                    let upload = Instant::now();
                    crowd.upload(g)?;
                    times.upload.push(ms_since(upload));
                    uploaded_bytes += g.last_frame().upload_bytes;
                    let compute = Instant::now();
                    g.wait()?;
                    let wall = ms_since(compute);
                    // GPU time of the pass where the adapter has timestamp queries, else wall time.
                    let gpu_ms = g.last_gpu_ms()?;
                    times.compute.push(gpu_ms.unwrap_or(wall));
                    dispatches = g.dispatches_last_frame();
                    bytes_per_joint = g.bytes_written_per_joint();
                    bytes_read_per_joint = g.bytes_read_per_joint();
                    if let Some(c) = cull.as_mut().filter(|_| args.skip_culled) {
                        let start = Instant::now();
                        c.run(&context, &rig, &crowd, g)?;
                        g.wait()?;
                        times.cull.push(ms_since(start));
                    }
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
                            bytes_read_per_joint = Some(f.bytes_read_per_joint());
                        }
                        None => {
                            crowd.animator.evaluate_cpu()?;
                            bytes_read_per_joint = Some(crowd.animator.cpu_bytes_read_per_joint());
                        }
                    }
                    times.compute.push(ms_since(compute));
                    times.upload.push(0.0);
                    dispatches = 0;
                }
            }
            times.frame.push(ms_since(frame_start));
            if let Some((painter, apng, path)) = movie.as_mut() {
                let image = painter.draw(
                    &context,
                    &rig,
                    &mut crowd,
                    gpu.as_ref(),
                    args.framed(),
                    path,
                )?;
                apng.write_frame(&image)?;
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        if let Some((_, apng, _)) = movie {
            apng.finish()?;
        }

        // Characters in the culling camera's view at the end (their boxes as last evaluated).
        let in_view = match (&cull, gpu.as_ref()) {
            (Some(c), Some(g)) => Some(c.in_view(g, crowd.animator.slot_records().len())?),
            _ => None,
        };
        let progress = super::progress::steps("crowd");
        progress.set_message(format!("rendering the last frame to {}", out.display()));
        let render = Instant::now();
        render::render_last_frame(&context, &rig, &mut crowd, gpu.as_ref(), out, args.framed())?;
        times.render.push(ms_since(render));
        progress.finish_and_clear();

        let (frame_median, frame_p90) = median_p90(&times.frame);
        // Instance state written to the GPU per character per measured frame (the CPU backend
        // uploads none: its palette goes up once, for the rendered frame).
        let bytes_uploaded_per_character = uploaded_bytes as f64 / (frames * characters) as f64;
        let stage = |s: &[f64]| median_p90(s).0;
        let compute_s = stage(&times.compute) / 1e3;
        let joints_per_second = if compute_s > 0.0 {
            (characters * joints) as f64 / compute_s
        } else {
            0.0
        };
        let report = serde_json::json!({
            "characters": characters,
            "joints_per_character": joints,
            "frames": frames,
            "backend": backend.name(),
            "clips": match (args.resampled, backend) {
                (false, _) => "exact",
                (true, Backend::Gpu) => "compressed",
                (true, Backend::Cpu) => "resampled",
            },
            "adapter": context.adapter_summary(),
            "frame_ms": { "median": frame_median, "p90": frame_p90 },
            "stages_ms": {
                "control": stage(&times.control),
                "upload": stage(&times.upload),
                "compute": stage(&times.compute),
                "cull": stage(&times.cull),
                "render": stage(&times.render),
            },
            "lod": args.lod,
            "update_every": args.update_every,
            "skip_culled": args.skip_culled,
            "framed_characters": args.framed().min(characters),
            "characters_in_view": in_view,
            "joints_per_second": joints_per_second,
            "dispatches_per_frame": dispatches,
            // Instance slots per evaluate workgroup (EvaluateShape; null on the CPU).
            "instances_per_workgroup": gpu.as_ref().map(|g| g.evaluate_shape().group_instances()),
            "bytes_written_per_joint": bytes_per_joint,
            // Counted on the GPU backend only (null on the CPU).
            "bytes_read_per_joint": bytes_read_per_joint,
            "bytes_uploaded_per_character": bytes_uploaded_per_character,
            "compute_clock": compute_clock,
            "look_at": look_at,
        });
        if args.json {
            return super::print(&report.to_string());
        }
        let row = |name: &str, s: &[f64]| {
            let (m, p) = median_p90(s);
            format!("  {name:<8} {m:>10.3} {p:>10.3}\n")
        };
        let mut table = format!(
            "sinew crowd: {characters} x {model} ({joints} joints), {frames} frames, {} backend on {}\n  stage    median ms     p90 ms\n",
            backend.name(),
            context.adapter_summary()
        );
        table += &row("control", &times.control);
        table += &row("upload", &times.upload);
        table += &row("compute", &times.compute);
        if args.skip_culled {
            table += &row("cull", &times.cull);
        }
        table += &row("render", &times.render);
        table += &row("frame", &times.frame);
        table += &format!(
            "  compute measured by {compute_clock}\n  {:.1} M joints/s, {dispatches} dispatch(es) per frame, {bytes_per_joint:.1} bytes written per joint\n  {bytes_uploaded_per_character:.1} bytes of instance state uploaded per character per frame\n  wrote {}",
            joints_per_second / 1e6,
            out.display()
        );
        super::print(&table)
    }
}

/// The first rig with meshes of `model` (a glTF, FBX or `.sinew` file), or the built-in humanoid.
fn load_rig(model: Option<&Path>, settings: &sinew::ImportSettings) -> crate::cli::Result<Rig> {
    let rigs = match model {
        None => {
            let asset = sinew::import_bytes_with(DEFAULT_RIG, DEFAULT_RIG_NAME, None, settings)?;
            sinew::bake_rigs(&asset)?
        }
        Some(path) => super::load_rigs(path, settings)?,
    };
    let name = model.unwrap_or(Path::new(DEFAULT_RIG_NAME));
    let rig = rigs
        .into_iter()
        .find(|r| !r.meshes.is_empty())
        .ok_or_else(|| CliError::unusable(name, "no skinned mesh to draw"))?;
    if rig.clips.clip_count() == 0 {
        return Err(CliError::unusable(name, "the rig has no clips to play").into());
    }
    Ok(rig)
}

//! `sinew crowd`: the main job. N characters on a grid, each driven by a locomotion state
//! machine (idle / walk / run with cross-fades) from its own speed parameter, some waving
//! through a masked upper-body layer; F frames of control → upload → compute, the last frame
//! rendered to a PNG, and where the time went.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use glam::Vec3;
use hecs::World;
use sinew::baked::retarget_map::RetargetMap;
use sinew::runtime::{
    Animated, Animator, ClipLayer, Layers, MaskSpec, RecordChanges, Retargeted, RootMotion,
    RootTranslation, Scheduling, StateMachine, Transform, Value,
};
use sinew::{GpuBackend, GpuContext, IkTarget, Rig};

mod lod;
mod motion;
mod pace;
mod render;
mod report;
mod steering;
#[cfg(test)]
mod tests;
mod timed;
mod times;

use self::motion::locomotion;

use self::pace::PacePlan;
use self::steering::{FrameSteering, Steering};
use self::times::ms_since;
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

/// `--clips-from` played per character through the animator's map: the source rig (rig 1 of the
/// animator), the map from its skeleton to the model's, and whether every other character
/// plays it mirrored.
pub(super) struct KernelRetarget {
    pub source: Rig,
    pub map: RetargetMap,
    pub mirror: bool,
}

/// How `--clips-from` reached the characters, for the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Retargeting {
    /// Per instance in the GPU kernel, through the uploaded map.
    Kernel,
    /// Per instance in the CPU backend, through the animator's map.
    Cpu,
    /// A retargeted copy of the clips baked when loading (`sinew::bake::retarget_rig`).
    Baked,
}

impl Retargeting {
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Kernel => "kernel",
            Self::Cpu => "cpu",
            Self::Baked => "baked",
        }
    }
}

/// The simulated crowd: rig, animator, world, the characters and their pace plan.
struct Crowd {
    animator: Animator,
    world: World,
    characters: Vec<hecs::Entity>,
    paces: PacePlan,
    /// Seconds of simulated time.
    clock: f64,
    /// The last update's record changes, for the GPU (reused).
    changes: RecordChanges,
    /// How pace changes reach the characters, and the gait blend space when not by the
    /// state machine.
    steering: Steering,
    gait: u32,
    /// Gait inputs on their way, with [`Steering::Frames`].
    frame_steering: FrameSteering,
}

impl Crowd {
    fn new(
        rig: Rig,
        retarget: Option<KernelRetarget>,
        characters: usize,
        scheduling: Scheduling,
        steering: Steering,
    ) -> crate::cli::Result<Self> {
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
        // The clips played are the source rig's when retargeted in the kernel (rig 1).
        let clips_rig = retarget.as_ref().map_or(&rig, |r| &r.source);
        let wave = clips_rig.clips.find_clip("wave");
        let upper_body = ["Spine", "Spine1", "spine", "b_Spine01_02"]
            .into_iter()
            .find(|j| rig.skeleton.find_joint(j).is_some());
        let mut machine_def = locomotion(clips_rig);
        if steering == Steering::Inertialized {
            for t in &mut machine_def.transitions {
                t.inertialized = true;
            }
        }
        let (rigs, map, mirror) = match retarget {
            Some(r) => (vec![rig, r.source], Some(r.map), r.mirror),
            None => (vec![rig], None, false),
        };
        let mut animator = Animator::new(rigs)?;
        animator.set_scheduling(scheduling);
        let (motion, map) = match map {
            Some(map) => (1, Some(animator.add_retarget_map(1, 0, map)?)),
            None => (0, None),
        };
        let machine = animator.add_state_machine(motion, &machine_def)?;
        let gait = match steering {
            Steering::Machine | Steering::Inertialized => 0,
            _ => {
                let def = steering::gait(&machine_def).ok_or_else(|| CliError::Unusable {
                    file: machine_def.name.clone(),
                    reason: "--steering needs clips for idle, walk and run".to_string(),
                })?;
                animator.add_blend_space(motion, "gait", &def)?
            }
        };
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
            let placed = (
                Animated::new(0),
                Transform::from_translation(position),
                root_motion,
            );
            let entity = match steering {
                Steering::Machine | Steering::Inertialized => {
                    let state_machine: StateMachine = animator.state_machine(machine)?;
                    world.spawn((placed.0, placed.1, placed.2, state_machine))
                }
                _ => {
                    let gait = animator.blend_space_fade(motion, gait, glam::Vec2::ZERO)?;
                    world.spawn((placed.0, placed.1, placed.2, gait))
                }
            };
            if let Some(map) = map {
                // `--mirror`: every other character plays the clips mirrored.
                let through = Retargeted::new(map);
                let through = match mirror && i % 2 == 1 {
                    true => through.mirrored(),
                    false => through,
                };
                world.insert_one(entity, through)?;
            }
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
            changes: RecordChanges::default(),
            steering,
            gait,
            frame_steering: FrameSteering::default(),
        })
    }

    /// Sends the records that changed in the last update to the GPU and evaluates every
    /// character at the animator's frame time.
    fn upload(&mut self, gpu: &mut GpuBackend) -> crate::cli::Result {
        self.changes.take_from(&self.animator);
        self.changes.apply(gpu)?;
        gpu.evaluate_resident(self.changes.frame_time())?;
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
            steering,
            gait,
            frame_steering,
            ..
        } = self;
        paces.due(*clock, |c, speed| {
            let entity = characters[c as usize];
            match steering {
                Steering::Machine | Steering::Inertialized => {
                    animator.set_parameter(world, entity, "speed", Value::Float(f64::from(speed)))
                }
                Steering::Ramps => steering::ramp_to(animator, world, entity, *gait, speed),
                Steering::Frames => {
                    frame_steering.head_for(world, entity, speed);
                    Ok(())
                }
            }
        })?;
        if *steering == Steering::Frames {
            frame_steering.step(animator, world, *gait, DT);
        }
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
    /// Play this file's clips (its first rig's) on the model instead of its own, retargeted:
    /// per character through the animator's map, in the GPU kernel (exact or compressed clips)
    /// or the CPU backend; as a retargeted copy baked when loading (`sinew::bake::retarget_rig`)
    /// on the fast CPU evaluator (`--backend cpu --resampled`).
    #[arg(long, value_name = "SOURCE")]
    pub clips_from: Option<PathBuf>,
    /// A JSON retarget map for `--clips-from` (see `sinew pose --retarget-map`).
    #[arg(long, value_name = "MAP.json", requires = "clips_from")]
    pub retarget_map: Option<PathBuf>,
    /// With `--clips-from`: every other character (odd characters in grid order, half the
    /// crowd) plays the clips mirrored across the model's X = 0 plane, left and right swapped,
    /// per character. Not with `--backend cpu --resampled`.
    #[arg(long, requires = "clips_from")]
    pub mirror: bool,
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
    /// Keep the previous palette for motion vectors (`GpuOptions::previous_palette`): before
    /// the kernel evaluates a character it copies the character's palette entries aside and
    /// stamps its slot. Needs `--backend gpu`.
    #[arg(long)]
    pub motion_vectors: bool,
    /// Hold the GPU evaluation near this many milliseconds per frame: `--lod`'s policy with a
    /// closed loop on the evaluate pass's GPU time (timestamps) that moves the LOD distances
    /// and update rates (`LodBudget`). The report gives the target, the achieved median and the
    /// characters at each LOD level. Needs `--backend gpu`.
    #[arg(long, value_name = "MS")]
    pub budget_ms: Option<f32>,
    /// Share of the characters (nearest the front) the camera is framed on, 0 to 1 [default:
    /// 24 characters]; the rest extend out of view.
    #[arg(long, value_name = "F")]
    pub view_fraction: Option<f64>,
    /// How characters change pace: the locomotion state machine's cross-fades (machine) or
    /// inertialized transitions (inertialized: one clip sampled per character, the pose left
    /// decaying into it), or a gait blend space's input moving to the new speed, given as a
    /// ramp (ramps: a record per region of the space crossed) or set every frame (frames).
    #[arg(long, value_enum, default_value_t = Steering::Machine)]
    pub steering: Steering,
}

impl CrowdArgs {
    /// Runs the crowd, renders its last frame and prints the timing table or JSON report.
    pub fn run(&self) -> crate::cli::Result {
        let progress = super::progress::steps("crowd");
        progress.set_message("loading the rig");
        let mut rig = load_rig(self.model.as_deref(), &self.import.settings())?;
        let mut retarget = None;
        if let Some(path) = &self.clips_from {
            progress.set_message("retargeting the clips");
            let (source, map) = self.retarget_map(&rig, path)?;
            if timed::Evaluator::of(self) != timed::Evaluator::CpuFast {
                retarget = Some(KernelRetarget {
                    source,
                    map,
                    mirror: self.mirror,
                });
            } else if self.mirror {
                return Err(CliError::unusable(
                    path,
                    "--mirror retargets per character: --resampled on the CPU plays a baked \
                     copy of the clips",
                )
                .into());
            } else {
                rig = sinew::bake::retarget_rig(&rig, &source, &map)?;
            }
        }
        progress.set_message("starting the GPU device");
        let context = GpuContext::new_headless()?;
        progress.finish_and_clear();
        let mut run = self.time_frames(&context, rig, retarget)?;

        let progress = super::progress::steps("crowd");
        progress.set_message(format!(
            "rendering the last frame to {}",
            self.out.display()
        ));
        let render = Instant::now();
        run.render(&context, &self.out, self.framed())?;
        run.times.render.push(ms_since(render));
        progress.finish_and_clear();
        let model = self
            .model
            .as_deref()
            .map_or_else(|| DEFAULT_RIG_NAME.to_string(), |m| m.display().to_string());
        if self.json {
            return super::print(&run.json(self, &context).to_string());
        }
        super::print(&run.table(self, &context, &model))
    }
}

impl CrowdArgs {
    /// The first rig of `path` and the retarget map from its skeleton to `rig`'s.
    fn retarget_map(&self, rig: &Rig, path: &Path) -> crate::cli::Result<(Rig, RetargetMap)> {
        let settings = self.import.settings();
        let source = super::load_rigs(path, &settings)?
            .into_iter()
            .next()
            .ok_or_else(|| CliError::unusable(path, "it has no rig"))?;
        if source.clips.clip_count() == 0 {
            return Err(CliError::unusable(path, "the rig has no clips to play").into());
        }
        let user = self
            .retarget_map
            .as_deref()
            .map(sinew::baked::retarget_map::UserMap::read)
            .transpose()?;
        let map = RetargetMap::build(&source.skeleton, &rig.skeleton, user.as_ref())?;
        Ok((source, map))
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

//! The viewer's state: the open file, its characters in an [`Animator`], and every choice the
//! panels make. The panels call its methods, the frame reads it; nothing here needs a window,
//! so every UI action is testable headless. Layers, morph weights and events are in
//! `mixing.rs`.

use std::path::{Path, PathBuf};

use glam::{Affine3A, Vec3};
use hecs::{Entity, World};

use super::ViewError;
use crate::baked::Rig;
use crate::math::Aabb;
use crate::render::SkinningMode;
use crate::runtime::{Animated, Animator, Clock, CrossFade, LoopMode, Motion, Transform};

/// Seconds of one step of [`ViewerState::step`].
pub const STEP_SECONDS: f32 = 1.0 / 60.0;

/// Most characters the crowd mode spawns.
pub const MAX_CHARACTERS: u32 = 1024;

/// Which evaluator computes the poses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ViewBackend {
    /// The CPU evaluator.
    #[default]
    Cpu,
    /// The WGSL compute passes.
    Gpu,
}

/// Which clips are sampled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ViewClips {
    /// The baked keys.
    #[default]
    Exact,
    /// The compressed clips (within [`crate::DEFAULT_ERROR_BUDGET`]).
    Compressed,
}

/// One extra layer over every character's base motion.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewLayer {
    /// The clip it plays.
    pub clip: u32,
    /// Its weight, 0 to 1.
    pub weight: f32,
    /// The joint whose subtree it is restricted to, or `None` for every joint.
    pub mask_root: Option<String>,
}

/// A file open in the viewer: its rigs and the characters playing them.
pub(super) struct Open {
    pub(super) path: PathBuf,
    pub(super) rigs: Vec<Rig>,
    /// Rigs with meshes: each character is one entity per drawn rig.
    pub(super) drawn: Vec<u32>,
    pub(super) animator: Animator,
    pub(super) world: World,
    pub(super) entities: Vec<Entity>,
    /// The box the camera and the ground were last framed on.
    pub(super) framing: Aabb,
    /// The compressed clips' largest measured error, once compressed.
    pub(super) compressed_error: Option<f32>,
}

/// Everything the viewer shows and the choices that change it.
pub struct ViewerState {
    pub(super) open: Option<Open>,
    /// The last error (a file that failed to open, a refused action), shown in the window.
    pub error: Option<String>,
    /// The clip the characters play (or fade to), if any.
    pub(super) clip: Option<u32>,
    /// Whether time stands still.
    paused: bool,
    /// Clip speed (negative plays backwards).
    pub(super) speed: f32,
    /// What clocks do at the clip's ends.
    pub(super) loop_mode: LoopMode,
    /// Seconds a click on a clip cross-fades over.
    pub fade_seconds: f32,
    /// Draw the skeletons.
    pub show_bones: bool,
    /// Label the first character's joints.
    pub show_joint_names: bool,
    /// Draw each character's animated box.
    pub show_boxes: bool,
    /// Draw every character as its skinned wireframe (the GPU's lines, instead of filled).
    pub show_wireframe: bool,
    /// Linear or dual-quaternion skinning.
    pub skinning: SkinningMode,
    backend: ViewBackend,
    clips: ViewClips,
    characters: u32,
    /// Apply the LOD policy of `sinew crowd --lod` around the camera and colour each character
    /// by the level it gets ([`crate::view::LOD_COLORS`]).
    pub lod_colors: bool,
    pub(super) layers: Vec<ViewLayer>,
    /// Morph weights set by hand, by (rig, weight index): they replace the animated ones.
    pub(super) morph_overrides: std::collections::BTreeMap<(u32, u32), f32>,
    /// Bumped whenever the characters, rigs, backend or clips change: the frame rebuilds
    /// its evaluator and stage when it differs from the one it built for.
    generation: u64,
}

impl Default for ViewerState {
    fn default() -> Self {
        Self::new()
    }
}

impl ViewerState {
    /// Nothing open, playing at speed 1, looping, 0.25 s fades, one character.
    pub fn new() -> Self {
        Self {
            open: None,
            error: None,
            clip: None,
            paused: false,
            speed: 1.0,
            loop_mode: LoopMode::Loop,
            fade_seconds: 0.25,
            show_bones: false,
            show_joint_names: false,
            show_boxes: false,
            show_wireframe: false,
            skinning: SkinningMode::Linear,
            backend: ViewBackend::Cpu,
            clips: ViewClips::Exact,
            characters: 1,
            lod_colors: false,
            layers: Vec::new(),
            morph_overrides: Default::default(),
            generation: 0,
        }
    }

    /// Opens `path` (glTF, FBX or `.sinew`) and plays its first clip; on failure the error is
    /// kept in [`ViewerState::error`] and returned, and the open file stays.
    pub fn open(&mut self, path: &Path) -> Result<(), String> {
        let loaded = load(path).and_then(|rigs| self.open_rigs(path, rigs));
        loaded.map_err(|e| {
            let message = e.to_string();
            self.error = Some(message.clone());
            message
        })
    }

    /// Opens rigs already loaded (from `path`, which names them).
    pub fn open_rigs(&mut self, path: &Path, rigs: Vec<Rig>) -> Result<(), ViewError> {
        let drawn: Vec<u32> = (0u32..)
            .zip(&rigs)
            .filter(|(_, r)| !r.meshes.is_empty())
            .map(|(i, _)| i)
            .collect();
        if drawn.is_empty() {
            return Err(ViewError::Unusable {
                file: path.display().to_string(),
                reason: "no skinned mesh to draw".into(),
            });
        }
        let framing = rest_bounds(&rigs, &drawn);
        let animator = Animator::new(rigs.clone())?;
        self.open = Some(Open {
            path: path.to_path_buf(),
            rigs,
            drawn,
            animator,
            world: World::new(),
            entities: Vec::new(),
            framing,
            compressed_error: None,
        });
        self.error = None;
        self.layers.clear();
        self.morph_overrides.clear();
        self.clip = None;
        self.spawn()?;
        if self.clip_count() > 0 {
            self.play_clip(0)?;
            // The first clip starts at full weight.
            self.cut_fades()?;
        }
        self.update(0.0)?;
        Ok(())
    }

    /// The open file's path.
    pub fn path(&self) -> Option<&Path> {
        self.open.as_ref().map(|o| o.path.as_path())
    }

    /// The open file's rigs.
    pub fn rigs(&self) -> &[Rig] {
        self.open.as_ref().map_or(&[], |o| &o.rigs)
    }

    /// Changes whenever the frame must rebuild what it draws from.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The animator driving the characters.
    pub fn animator(&self) -> Option<&Animator> {
        self.open.as_ref().map(|o| &o.animator)
    }

    /// The box the camera and ground are framed on.
    pub fn framing(&self) -> Aabb {
        self.open.as_ref().map_or(Aabb::EMPTY, |o| o.framing)
    }

    /// Frames the camera and the ground on `aabb` (the current pose's box, say).
    pub fn set_framing(&mut self, aabb: Aabb) {
        if let Some(open) = self.open.as_mut().filter(|_| !aabb.is_empty()) {
            open.framing = aabb;
            self.generation += 1;
        }
    }

    /// `(name, duration)` of each clip of the first drawn rig.
    pub fn clip_list(&self) -> Vec<(String, f32)> {
        let Some(open) = &self.open else {
            return Vec::new();
        };
        open.rigs[open.drawn[0] as usize]
            .clips
            .clips()
            .iter()
            .map(|c| (c.name.clone(), c.duration))
            .collect()
    }

    pub(super) fn clip_count(&self) -> usize {
        self.open
            .as_ref()
            .map_or(0, |o| o.rigs[o.drawn[0] as usize].clips.clip_count())
    }

    /// The clip playing (or being faded to).
    pub fn clip(&self) -> Option<u32> {
        self.clip
    }

    /// The playing clip's duration in seconds (0 with none).
    pub fn duration(&self) -> f32 {
        let clips = self.clip_list();
        self.clip
            .and_then(|c| clips.get(c as usize))
            .map_or(0.0, |c| c.1)
    }

    /// Cross-fades every character to clip `clip` over [`ViewerState::fade_seconds`].
    pub fn play_clip(&mut self, clip: u32) -> Result<(), ViewError> {
        if clip as usize >= self.clip_count() {
            return Err(self.refuse(format!("clip {clip} of {}", self.clip_count())));
        }
        let mut clock = Clock::new(self.loop_mode).with_speed(self.speed);
        clock.paused = self.paused;
        let fade = self.fade_seconds;
        self.for_each_fade(|f| f.fade_to(Motion::Clip(clip), clock, fade))?;
        self.clip = Some(clip);
        Ok(())
    }

    /// Ends every fade: the newest motion alone at full weight.
    fn cut_fades(&mut self) -> Result<(), ViewError> {
        self.for_each_fade(|f| {
            if let Some((motion, clock)) = f.current().map(|(m, c)| (*m, *c)) {
                f.fade_to(motion, clock, 0.0);
            }
        })
    }

    /// Whether a cross-fade is under way, and the newest motion's weight.
    pub fn fade(&self) -> Option<(bool, f32)> {
        let open = self.open.as_ref()?;
        let entity = *open.entities.first()?;
        let fade = open.world.get::<&CrossFade>(entity).ok()?;
        Some((fade.is_fading(), fade.current_weight()))
    }

    /// The playing clip's time in seconds.
    pub fn time(&self) -> f32 {
        let Some(open) = &self.open else { return 0.0 };
        open.entities
            .first()
            .and_then(|&e| open.world.get::<&CrossFade>(e).ok())
            .and_then(|f| f.current().map(|(_, c)| c.time))
            .unwrap_or(0.0)
    }

    /// Sets the playing clip's time (clamped to the clip) on every character.
    pub fn scrub(&mut self, time: f32) -> Result<(), ViewError> {
        if !time.is_finite() {
            return Err(self.refuse(format!("scrub to {time} s")));
        }
        let time = time.clamp(0.0, self.duration());
        self.for_each_fade(|f| {
            if let Some(clock) = f.current_clock_mut() {
                clock.time = time;
            }
        })?;
        self.update(0.0)
    }

    /// Whether time stands still.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Pauses or resumes every character's clock.
    pub fn set_paused(&mut self, paused: bool) -> Result<(), ViewError> {
        self.paused = paused;
        self.for_each_fade(|f| {
            if let Some(clock) = f.current_clock_mut() {
                clock.paused = paused;
            }
        })
    }

    /// Pauses and moves the clip `frames` steps of [`STEP_SECONDS`] (negative: back).
    pub fn step(&mut self, frames: i32) -> Result<(), ViewError> {
        self.set_paused(true)?;
        let time = self.time() + frames as f32 * STEP_SECONDS * self.speed.abs().max(1e-3);
        let duration = self.duration();
        let time = match self.loop_mode {
            LoopMode::Loop if duration > 0.0 => time.rem_euclid(duration),
            _ => time,
        };
        self.scrub(time)
    }

    /// Clip speed.
    pub fn speed(&self) -> f32 {
        self.speed
    }

    /// Sets the clip speed of every character (negative plays backwards).
    pub fn set_speed(&mut self, speed: f32) -> Result<(), ViewError> {
        if !speed.is_finite() {
            return Err(self.refuse(format!("speed {speed}")));
        }
        self.speed = speed;
        self.for_each_fade(|f| {
            if let Some(clock) = f.current_clock_mut() {
                clock.speed = speed;
            }
        })
    }

    /// Loop, clamp or ping-pong.
    pub fn loop_mode(&self) -> LoopMode {
        self.loop_mode
    }

    /// Sets what every character's clock does at the clip's ends.
    pub fn set_loop_mode(&mut self, mode: LoopMode) -> Result<(), ViewError> {
        self.loop_mode = mode;
        self.for_each_fade(|f| {
            if let Some(clock) = f.current_clock_mut() {
                clock.mode = mode;
            }
        })
    }

    /// The evaluator.
    pub fn backend(&self) -> ViewBackend {
        self.backend
    }

    /// Switches the evaluator (the frame rebuilds its own on the next draw).
    pub fn set_backend(&mut self, backend: ViewBackend) {
        if backend != self.backend {
            self.backend = backend;
            self.generation += 1;
        }
    }

    /// Exact or compressed clips.
    pub fn clips(&self) -> ViewClips {
        self.clips
    }

    /// Switches between exact and compressed clips; compressing measures the error, which
    /// [`ViewerState::compressed_error`] then reports.
    pub fn set_clips(&mut self, clips: ViewClips) -> Result<(), ViewError> {
        if clips == self.clips {
            return Ok(());
        }
        if let (ViewClips::Compressed, Some(open)) = (clips, self.open.as_mut()) {
            let mut worst: f32 = 0.0;
            for rig in &mut open.rigs {
                if rig.compressed.is_none() && rig.clips.clip_count() > 0 {
                    rig.compress(crate::DEFAULT_ERROR_BUDGET)
                        .map_err(|e| ViewError::Unusable {
                            file: open.path.display().to_string(),
                            reason: e.to_string(),
                        })?;
                }
                if let Some(c) = &rig.compressed {
                    worst = worst.max(c.max_error());
                }
            }
            open.compressed_error = Some(worst);
        }
        self.clips = clips;
        self.generation += 1;
        Ok(())
    }

    /// The compressed clips' largest error measured while compressing (metres, ACL's metric).
    pub fn compressed_error(&self) -> Option<f32> {
        self.open.as_ref().and_then(|o| o.compressed_error)
    }

    /// How many characters stand on the stage.
    pub fn characters(&self) -> u32 {
        self.characters
    }

    /// Sets the crowd's size (1 to [`MAX_CHARACTERS`]): characters on a grid, each playing
    /// what the first plays.
    pub fn set_characters(&mut self, characters: u32) -> Result<(), ViewError> {
        let characters = characters.clamp(1, MAX_CHARACTERS);
        if characters == self.characters {
            return Ok(());
        }
        self.characters = characters;
        self.spawn()?;
        if let Some(clip) = self.clip {
            self.play_clip(clip)?;
            self.cut_fades()?;
        }
        self.set_paused(self.paused)?;
        self.update(0.0)
    }

    /// Advances the characters by `dt` seconds of wall time (their clocks move at their speed
    /// unless paused).
    pub fn update(&mut self, dt: f32) -> Result<(), ViewError> {
        let Some(open) = self.open.as_mut() else {
            return Ok(());
        };
        open.animator.update(&mut open.world, dt)?;
        // Events are markers here, not triggers.
        open.animator.drain_events().for_each(drop);
        Ok(())
    }

    /// The error `reason`, also kept in [`ViewerState::error`].
    pub(super) fn refuse(&mut self, reason: String) -> ViewError {
        self.error = Some(reason.clone());
        ViewError::Unusable {
            file: self
                .path()
                .map_or_else(|| "viewer".into(), |p| p.display().to_string()),
            reason,
        }
    }

    /// Runs `change` on every character's cross-fade and has the animator update them.
    fn for_each_fade(&mut self, mut change: impl FnMut(&mut CrossFade)) -> Result<(), ViewError> {
        let Some(open) = self.open.as_mut() else {
            return Ok(());
        };
        for &entity in &open.entities {
            if let Ok(mut fade) = open.world.get::<&mut CrossFade>(entity) {
                change(&mut fade);
            }
            open.animator.touch(entity);
        }
        Ok(())
    }

    /// Spawns the characters anew: one entity per drawn rig and character, on a grid spaced
    /// by the framing box.
    fn spawn(&mut self) -> Result<(), ViewError> {
        let characters = self.characters as usize;
        let Some(open) = self.open.as_mut() else {
            return Ok(());
        };
        for entity in open.entities.drain(..) {
            // Entities of this world only.
            let _ = open.world.despawn(entity);
        }
        let b = open.framing;
        let spacing = if b.is_empty() {
            1.0
        } else {
            (b.max[0] - b.min[0]).max(b.max[2] - b.min[2]) * 1.6
        };
        let side = (characters as f32).sqrt().ceil() as usize;
        for i in 0..characters {
            let (row, col) = (i / side, i % side);
            let position = if characters == 1 {
                Vec3::ZERO
            } else {
                Vec3::new(col as f32 * spacing, 0.0, -(row as f32) * spacing)
            };
            for &rig in &open.drawn {
                let entity = open.world.spawn((
                    Animated::new(rig),
                    Transform::from_translation(position),
                    CrossFade::new(),
                ));
                open.entities.push(entity);
            }
        }
        self.generation += 1;
        self.apply_layers()
    }
}

/// The rigs of a glTF, FBX or `.sinew` file.
pub fn load(path: &Path) -> Result<Vec<Rig>, ViewError> {
    if path.extension().is_some_and(|e| e == "sinew") {
        return Ok(crate::baked::file::read_file(path)?);
    }
    let asset = crate::import_file(path)?;
    Ok(crate::bake_rigs(&asset)?)
}

/// The box of the drawn rigs' rest poses.
fn rest_bounds(rigs: &[Rig], drawn: &[u32]) -> Aabb {
    let mut all = Aabb::EMPTY;
    for &r in drawn {
        let rig = &rigs[r as usize];
        let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
        let mut palette = vec![crate::Mat3x4Rows::IDENTITY; rig.palette_entries()];
        let b = crate::cpu::evaluate_pose(
            rig,
            &[],
            &[],
            &Affine3A::IDENTITY,
            &mut models,
            &mut palette,
        );
        all.merge(&b);
    }
    all
}

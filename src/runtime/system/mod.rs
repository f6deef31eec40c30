//! The animation system: [`Animator`] owns the rigs, masks, blend spaces, state machines, event
//! tables (registered through the methods in `registry.rs`), the palette allocator and the
//! outputs, and [`Animator::update`] advances the animated entities of a `hecs::World`.
//!
//! An entity is animated when it has [`Animated`] (its rig). Its base is the first present of
//! [`StateMachine`], [`CrossFade`] and [`Playback`] (none: the rest pose); [`Layers`] adds
//! layers above it, [`RootMotion`] moves its [`Transform`] (or, on the GPU, its record's world),
//! and an [`Attachment`] on another entity follows one of its joints. Each update:
//!
//! 1. for every animated entity ([`Scheduling::PerFrame`]), or for the new, touched and due
//!    ones ([`Scheduling::EventDriven`], `event_driven.rs`): advance the base and layers, queue
//!    crossed events, apply root motion, and build its record (`animate.rs`);
//! 2. palette blocks are allocated for entities seen for the first time and freed for entities
//!    no longer there (despawned, or `Animated` removed): hecs has no despawn hooks, so the
//!    animator keeps a table of tracked entities and sweeps the ones it no longer finds;
//! 3. attachments are solved against the records just built (`attachments.rs`);
//! 4. each record replaces its slot's only when it describes different motion (`records.rs`,
//!    with the accessors of the records handed out), and the changed slots are listed for
//!    upload.
//!
//! The records then go to the GPU pipeline ([`Animator::slot_records`],
//! [`Animator::changed_slots`]) or to the CPU backend ([`Animator::evaluate_cpu`], with the
//! hosts' IK targets: `evaluate.rs`). The queued events and scrubbing are in `event_queue.rs`,
//! the runtime state snapshots save in `state.rs`.
//!
//! [`StateMachine`]: super::StateMachine
//! [`CrossFade`]: super::CrossFade
//! [`Layers`]: super::Layers
//! [`RootMotion`]: super::RootMotion
//! [`Playback`]: super::Playback
//! [`Transform`]: super::Transform
//! [`Attachment`]: super::Attachment

mod animate;
mod attachments;
mod evaluate;
mod event_driven;
mod event_queue;
mod per_frame;
mod records;
mod state;

use std::sync::Mutex;

use hecs::{Entity, World};

pub use self::evaluate::EvaluatedPose;
pub(crate) use self::event_driven::Scheduled;
pub use self::records::{EPOCH_SPAN, RECORD_TIME_TOLERANCE, RECORD_WEIGHT_TOLERANCE};
pub(crate) use self::state::AnimatorState;
use super::RuntimeError;
use super::events::EventQueue;
use super::registry::{MaskEntry, NamedSpace, RigData};
use super::schedule::{Schedule, Scheduling};
use super::state_machine::CompiledMachine;
use crate::baked::Rig;
use crate::cpu::CpuBackend;
use crate::instance::InstanceRecord;
use crate::math::{Aabb, Mat3x4Rows};
use crate::palette::{PaletteAllocator, PaletteBlock};

/// Marks an entity as animated and names its rig. The animator tracks it from its first update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Animated {
    /// Rig index in the animator.
    pub rig: u32,
    /// The animator's tracking slot for this entity.
    slot: u32,
}

impl Animated {
    /// An entity of rig `rig`.
    pub const fn new(rig: u32) -> Self {
        Self {
            rig,
            slot: u32::MAX,
        }
    }
}

/// An entity the animator holds a palette block for.
#[derive(Clone, Copy, Debug)]
struct Tracked {
    entity: Entity,
    block: PaletteBlock,
    /// The update that last saw it.
    seen: u32,
    /// Its record index in that update.
    record: u32,
    live: bool,
}

/// Owns everything the animation runtime needs and updates a world's animated entities.
#[derive(Debug)]
pub struct Animator {
    pub(crate) backend: CpuBackend,
    pub(crate) rigs: Vec<RigData>,
    pub(crate) masks: Vec<MaskEntry>,
    pub(crate) spaces: Vec<NamedSpace>,
    pub(crate) machines: Vec<CompiledMachine>,
    pub(crate) events: EventQueue,
    palette: PaletteAllocator,
    /// Serials and blocks of inertialized transitions (blocks come from `palette`).
    inertial: crate::InertialTransitions,
    tracked: Vec<Tracked>,
    free_slots: Vec<u32>,
    frame: u32,
    /// Seconds of animation time since the animator was made, and the epoch frame times count
    /// from (see [`Animator::frame_time`]).
    now: f64,
    epoch: f64,
    records: Vec<InstanceRecord>,
    record_entities: Vec<Entity>,
    record_slots: Vec<u32>,
    /// The record each tracking slot holds on the GPU (empty for free slots).
    slot_records: Vec<InstanceRecord>,
    /// Slots whose record changed in the last update.
    changed: Vec<u32>,
    /// Of those, the slots that are new or whose world was set (spawns, teleports).
    placed: Vec<u32>,
    /// Slots freed since the last commit.
    freed: Vec<u32>,
    /// Seconds the epoch moved by in the last update, if it moved.
    rebased: Option<f64>,
    /// The epoch the held records are anchored in.
    rebased_from: f64,
    scheduling: Scheduling,
    schedule: Schedule,
    /// Entities touched since the last update (event-driven mode).
    touched: Mutex<Vec<Entity>>,
    /// Scratch: the slots due this update.
    due: Vec<u32>,
    /// Scratch of event-driven updates.
    scratch: event_driven::Scratch,
    /// The world's entity count at the last event-driven update.
    world_len: u32,
    /// Next slot of the rolling check for lost `Animated` components.
    rolling: usize,
    pose: Vec<Mat3x4Rows>,
    /// Blocks of `pose` holding IK targets (tracking slot, entity, block), cleared once the
    /// entity no longer holds the block so its targets do not pass to the next owner.
    ik_blocks: Vec<(u32, Entity, PaletteBlock)>,
    bounds: Vec<Aabb>,
}

impl Animator {
    /// An animator over `rigs` (rig indices are positions in `rigs`). Every clip must have a
    /// finite duration of 0 or more (0: a pose, which plays as a constant: its clock stays at 0
    /// and its events never fire), and each rig's clips, joint bounds and skin joints must fit
    /// its skeleton.
    pub fn new(rigs: Vec<Rig>) -> Result<Self, RuntimeError> {
        Self::with_backend(rigs, CpuBackend::new)
    }

    /// An animator over `rigs` played as compressed clips: each rig's stored
    /// [`Rig::compressed`], or its clips compressed within [`crate::DEFAULT_ERROR_BUDGET`] (as
    /// [`CpuBackend::with_compressed`] does, and rigs added later alike). Root motion then
    /// samples the compressed root tracks, as [`Animator::evaluate_cpu`] and the GPU's
    /// compressed pipeline sample the pose it moves; [`Animator::rigs`] hold the compressed
    /// clips for a GPU backend to take.
    pub fn with_compressed(rigs: Vec<Rig>) -> Result<Self, RuntimeError> {
        Self::with_backend(rigs, CpuBackend::with_compressed)
    }

    /// Where the animator's root motion and [`Animator::evaluate_cpu`] sample clips.
    pub fn clip_source(&self) -> crate::cpu::ClipSource {
        self.backend.clip_source()
    }

    /// An animator over `rigs` evaluated by the backend `make` builds of them.
    fn with_backend(
        rigs: Vec<Rig>,
        make: fn(Vec<Rig>, Vec<crate::JointMask>) -> Result<CpuBackend, crate::error::EvalError>,
    ) -> Result<Self, RuntimeError> {
        let mut data = Vec::with_capacity(rigs.len());
        let mut events = EventQueue::default();
        for rig in &rigs {
            data.push(super::content::rig_data(rig, &mut events)?);
        }
        Ok(Self {
            backend: make(rigs, Vec::new())?,
            rigs: data,
            masks: Vec::new(),
            spaces: Vec::new(),
            machines: Vec::new(),
            events,
            palette: PaletteAllocator::default(),
            inertial: crate::InertialTransitions::new(),
            tracked: Vec::new(),
            free_slots: Vec::new(),
            frame: 0,
            now: 0.0,
            epoch: 0.0,
            records: Vec::new(),
            record_entities: Vec::new(),
            record_slots: Vec::new(),
            slot_records: Vec::new(),
            changed: Vec::new(),
            placed: Vec::new(),
            freed: Vec::new(),
            rebased: None,
            rebased_from: 0.0,
            scheduling: Scheduling::PerFrame,
            schedule: Schedule::default(),
            touched: Mutex::new(Vec::new()),
            due: Vec::new(),
            scratch: event_driven::Scratch::default(),
            world_len: 0,
            rolling: 0,
            pose: Vec::new(),
            ik_blocks: Vec::new(),
            bounds: Vec::new(),
        })
    }

    /// The rigs.
    pub fn rigs(&self) -> &[Rig] {
        self.backend.rigs()
    }

    /// The mask table (what [`crate::Layer::mask`] indexes).
    pub fn masks(&self) -> &[crate::JointMask] {
        self.backend.masks()
    }

    /// Places palette blocks by the windows a GPU evaluator binds the palette in
    /// ([`crate::PaletteWindows`], from [`crate::GpuBackend::palette_paging`] or
    /// [`crate::render::palette_paging`]): each inertialization block inside its instance's
    /// window, where the kernel reads it, and instance blocks outside every window's reserve,
    /// which keeps room there for them. Set before the entities are first updated: blocks
    /// already placed stay (a restored snapshot's too; the windows are kept across restores). Without it blocks go anywhere, which suits a palette bound whole;
    /// with a windowed palette, an inertialized transition whose window has no room is a cut.
    pub fn set_palette_windows(&mut self, windows: Option<crate::PaletteWindows>) {
        self.palette.set_windows(windows);
    }

    /// Chooses which entities [`Animator::update`] updates (see [`Scheduling`]).
    pub fn set_scheduling(&mut self, scheduling: Scheduling) {
        self.scheduling = scheduling;
    }

    /// The scheduling mode.
    pub fn scheduling(&self) -> Scheduling {
        self.scheduling
    }

    /// Has the next update update `entity` (in [`Scheduling::EventDriven`] mode; every entity is
    /// updated in the other): call it after changing the entity's components directly.
    pub fn touch(&self, entity: Entity) {
        self.touched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(entity);
    }

    /// The palette allocator (its capacity is the palette size the GPU buffer needs).
    pub fn palette(&self) -> &PaletteAllocator {
        &self.palette
    }

    /// Number of entities holding a palette block.
    pub fn tracked_entities(&self) -> usize {
        self.tracked.len() - self.free_slots.len()
    }

    /// Advances every animated entity of `world` by `dt` seconds and writes their records (see
    /// the module documentation). A component that names something its rig does not have plays
    /// nothing there (a missing base clip leaves the rest pose, a missing layer clip or mask
    /// drops the layer; an unknown rig drops the entity), and the first such problem is
    /// returned after the whole pass.
    pub fn update(&mut self, world: &mut World, dt: f32) -> Result<(), RuntimeError> {
        if !(dt >= 0.0 && dt.is_finite()) {
            return Err(RuntimeError::InvalidValue {
                what: "time step".to_string(),
                value: dt,
            });
        }
        self.frame = self.frame.wrapping_add(1);
        self.rebased = None;
        self.changed.clear();
        self.placed.clear();
        self.now += f64::from(dt);
        let rebase = self.now - self.epoch >= EPOCH_SPAN;
        if rebase {
            self.epoch = self.now;
        }
        self.records.clear();
        self.record_entities.clear();
        self.record_slots.clear();
        let mut first_error = None;
        match self.scheduling {
            Scheduling::PerFrame => self.update_every_entity(world, dt, &mut first_error),
            Scheduling::EventDriven => self.update_due_entities(world, dt, &mut first_error),
        }
        if let Err(e) = self.solve_attachments(world) {
            first_error.get_or_insert(e);
        }
        if rebase {
            self.rebase_records();
        }
        self.commit();
        first_error.map_or(Ok(()), Err)
    }
}

/// Finds (or starts) the tracking of `entity` and returns its palette block, sized for its rig
/// in `rigs` (an error when the rig does not exist).
fn track(
    rigs: &[Rig],
    tracked: &mut Vec<Tracked>,
    free_slots: &mut Vec<u32>,
    palette: &mut PaletteAllocator,
    frame: u32,
    entity: Entity,
    animated: &mut Animated,
) -> Result<PaletteBlock, RuntimeError> {
    let joints = rigs
        .get(animated.rig as usize)
        .ok_or_else(|| RuntimeError::UnknownRig {
            rig: format!("#{}", animated.rig),
        })?
        .palette_entries() as u32;
    if let Some(t) = tracked.get_mut(animated.slot as usize)
        && t.live
        && t.entity == entity
    {
        if t.block.len != joints {
            // The entity changed to a rig of another size.
            let block = palette.allocate(joints).ok_or(RuntimeError::PaletteFull)?;
            palette.free(std::mem::replace(&mut t.block, block));
        }
        t.seen = frame;
        return Ok(t.block);
    }
    let block = palette.allocate(joints).ok_or(RuntimeError::PaletteFull)?;
    let entry = Tracked {
        entity,
        block,
        seen: frame,
        record: 0,
        live: true,
    };
    let slot = match free_slots.pop() {
        Some(slot) => {
            tracked[slot as usize] = entry;
            slot
        }
        None => {
            tracked.push(entry);
            (tracked.len() - 1) as u32
        }
    };
    animated.slot = slot;
    Ok(block)
}

fn bad_motion(entity: Entity) -> RuntimeError {
    RuntimeError::InvalidComponent {
        entity: format!("{entity:?}"),
    }
}

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
//! 3. attachments are solved against the records just built;
//! 4. each record replaces its slot's only when it describes different motion (`records.rs`),
//!    and the changed slots are listed for upload.
//!
//! The records then go to the GPU pipeline ([`Animator::slot_records`],
//! [`Animator::changed_slots`]) or to the CPU backend ([`Animator::evaluate_cpu`]).
//!
//! [`StateMachine`]: super::StateMachine
//! [`CrossFade`]: super::CrossFade
//! [`Layers`]: super::Layers
//! [`RootMotion`]: super::RootMotion

mod animate;
mod event_driven;
mod per_frame;
mod records;
mod state;

use std::sync::Mutex;

use hecs::{Entity, World};

pub(crate) use self::event_driven::Scheduled;
pub use self::records::{EPOCH_SPAN, RECORD_TIME_TOLERANCE, RECORD_WEIGHT_TOLERANCE};
pub(crate) use self::state::AnimatorState;
use super::RuntimeError;
use super::attachment::Attachment;
use super::events::{Event, EventQueue};
use super::playback::Playback;
use super::registry::{MaskEntry, NamedSpace, RigData, no_entity};
use super::schedule::{Schedule, Scheduling};
use super::state_machine::CompiledMachine;
use super::transform::Transform;
use crate::baked::Rig;
use crate::cpu::CpuBackend;
use crate::instance::InstanceRecord;
use crate::math::Aabb;
use crate::math::Mat3x4Rows;
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

/// The output of [`Animator::evaluate_cpu`].
#[derive(Clone, Copy, Debug)]
pub struct EvaluatedPose<'a> {
    /// The whole palette; each record's entries start at its `palette_offset`.
    pub palette: &'a [Mat3x4Rows],
    /// One animated bounding box per record.
    pub bounds: &'a [Aabb],
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
        let mut data = Vec::with_capacity(rigs.len());
        for rig in &rigs {
            data.push(super::content::rig_data(rig)?);
        }
        Ok(Self {
            backend: CpuBackend::new(rigs, Vec::new())?,
            rigs: data,
            masks: Vec::new(),
            spaces: Vec::new(),
            machines: Vec::new(),
            events: EventQueue::default(),
            palette: PaletteAllocator::default(),
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

    /// Number of events waiting in the queue.
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// Empties the event queue, yielding the events in the order they fired.
    pub fn drain_events(&mut self) -> impl Iterator<Item = Event<'_>> {
        self.events.drain()
    }

    /// Sets the time of `entity`'s [`Playback`] to `time` seconds. With `fire_events`, the
    /// events between the old and the new time fire as if played straight there.
    pub fn scrub(
        &mut self,
        world: &mut World,
        entity: Entity,
        time: f32,
        fire_events: bool,
    ) -> Result<(), RuntimeError> {
        self.catch_up(world, entity);
        let (animated, playback) = world
            .query_one_mut::<(&Animated, &mut Playback)>(entity)
            .map_err(|_| no_entity(entity, "Animated and Playback"))?;
        let data =
            self.rigs
                .get(animated.rig as usize)
                .ok_or_else(|| RuntimeError::UnknownRig {
                    rig: format!("#{}", animated.rig),
                })?;
        let clip = playback.clip;
        let duration =
            *data
                .durations
                .get(clip as usize)
                .ok_or_else(|| RuntimeError::UnknownClip {
                    rig: format!("#{}", animated.rig),
                    clip: format!("#{clip}"),
                })?;
        let step = playback.clock.scrub(duration, time);
        self.touch(entity);
        if fire_events {
            self.events
                .fire(entity, clip, &data.events[clip as usize], &step);
        }
        Ok(())
    }

    /// This frame's instance records, one per animated entity, for the GPU pipeline.
    pub fn records(&self) -> &[InstanceRecord] {
        &self.records
    }

    /// The entity of each record.
    pub fn record_entities(&self) -> &[Entity] {
        &self.record_entities
    }

    /// The frame time of the last update: seconds since the current epoch, what the records'
    /// clocks and fades are read at ([`crate::GpuBackend::evaluate_resident`],
    /// [`crate::CpuBackend::evaluate_at`]).
    pub fn frame_time(&self) -> f32 {
        (self.now - self.epoch) as f32
    }

    /// The seconds frame times moved back by in the last update, when the epoch moved
    /// ([`EPOCH_SPAN`]): pass them to [`crate::GpuBackend::rebase_frame_time`] before that
    /// frame's evaluation (every record changed and is uploaded again).
    pub fn epoch_shift(&self) -> Option<f64> {
        self.rebased
    }

    /// Seconds of animation time since the animator was made.
    pub fn elapsed(&self) -> f64 {
        self.now
    }

    /// The GPU-resident form of the records: one per tracking slot, [`InstanceRecord::EMPTY`]
    /// for free slots. A record changes only when the entity's motion does.
    pub fn slot_records(&self) -> &[InstanceRecord] {
        &self.slot_records
    }

    /// The slots whose record changed in the last update, ascending: what to upload
    /// ([`crate::GpuBackend::set_record`]).
    pub fn changed_slots(&self) -> &[u32] {
        &self.changed
    }

    /// Of [`Animator::changed_slots`], those whose world transform was placed (a new entity, or
    /// its [`Transform`] set): for an entity with root motion on the GPU
    /// ([`super::RootMotion::on_gpu`]) the GPU owns the record's world, and only these uploads
    /// replace it ([`crate::GpuBackend::set_record_world`]).
    pub fn placed_slots(&self) -> &[u32] {
        &self.placed
    }

    /// `entity`'s record from the last update.
    pub fn record_of(&self, world: &World, entity: Entity) -> Option<&InstanceRecord> {
        let slot = world.get::<&Animated>(entity).ok()?.slot;
        let t = self.tracked.get(slot as usize)?;
        (t.live && t.entity == entity)
            .then(|| self.slot_records.get(slot as usize))
            .flatten()
            .filter(|r| !r.is_empty())
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

    /// Writes `entity`'s IK targets (one per constraint of its rig, [`crate::RigIk`]) into its
    /// palette block of the CPU palette, where [`Animator::evaluate_cpu`] reads them every
    /// frame until written again (the GPU backend's copy: [`crate::GpuBackend::set_ik_targets`]
    /// with [`Animator::record_of`]). The entity must have been updated once; its targets are
    /// cleared when it gives up its block (despawned, or moved to another rig).
    pub fn set_ik_targets(
        &mut self,
        world: &World,
        entity: Entity,
        targets: &[crate::IkTarget],
    ) -> Result<(), RuntimeError> {
        let missing = || RuntimeError::NoSuchEntity {
            entity: format!("{entity:?}"),
            component: "palette block (an update with Animated)",
        };
        let animated = world.get::<&Animated>(entity).map_err(|_| missing())?;
        let block = match self.tracked.get(animated.slot as usize) {
            Some(t) if t.live && t.entity == entity => t.block,
            _ => return Err(missing()),
        };
        let capacity = self.palette.capacity() as usize;
        if self.pose.len() != capacity {
            self.pose.resize(capacity, Mat3x4Rows::IDENTITY);
        }
        self.forget_stale_ik();
        let rig = self
            .backend
            .rigs()
            .get(animated.rig as usize)
            .ok_or_else(|| RuntimeError::UnknownRig {
                rig: format!("#{}", animated.rig),
            })?;
        let start = block.offset as usize + rig.ik_entry_offset();
        let end = block.offset as usize + block.len as usize;
        let entries = self
            .pose
            .get_mut(start..end)
            .ok_or(crate::EvalError::OutputSize {
                expected: end,
                found: capacity,
            })?;
        crate::baked::ik::encode_ik_targets(&rig.name, targets, entries)
            .map_err(crate::EvalError::from)?;
        let held = (animated.slot, entity, block);
        if !self.ik_blocks.contains(&held) {
            self.ik_blocks.push(held);
        }
        Ok(())
    }

    /// Resets the blocks whose IK targets belong to an entity that no longer holds them.
    fn forget_stale_ik(&mut self) {
        let tracked = &self.tracked;
        let pose = &mut self.pose;
        self.ik_blocks.retain(|&(slot, entity, block)| {
            let held = tracked
                .get(slot as usize)
                .is_some_and(|t| t.live && t.entity == entity && t.block == block);
            if !held {
                let range = block.offset as usize..(block.offset + block.len) as usize;
                if let Some(entries) = pose.get_mut(range) {
                    entries.fill(Mat3x4Rows::IDENTITY);
                }
            }
            held
        });
    }

    /// [`CpuBackend::bytes_read_per_joint`] of the last [`Animator::evaluate_cpu`].
    pub fn cpu_bytes_read_per_joint(&self) -> f64 {
        self.backend.bytes_read_per_joint()
    }

    /// Evaluates this frame's records with the CPU backend: the palette (indexed by each
    /// record's `palette_offset`) and one bounding box per record ([`Animator::records`]), or
    /// per slot ([`Animator::slot_records`]) in [`Scheduling::EventDriven`] mode.
    pub fn evaluate_cpu(&mut self) -> Result<EvaluatedPose<'_>, RuntimeError> {
        let capacity = self.palette.capacity() as usize;
        if self.pose.len() != capacity {
            self.pose.resize(capacity, Mat3x4Rows::IDENTITY);
        }
        if !self.ik_blocks.is_empty() {
            self.forget_stale_ik();
        }
        let now = self.frame_time();
        // Event-driven updates hold only the updated entities' records: evaluate the slots.
        let records = match self.scheduling {
            Scheduling::PerFrame => &self.records,
            Scheduling::EventDriven => &self.slot_records,
        };
        self.bounds.resize(records.len(), Aabb::EMPTY);
        self.backend
            .evaluate_at(now, records, &mut self.pose, &mut self.bounds)?;
        Ok(EvaluatedPose {
            palette: &self.pose,
            bounds: &self.bounds,
        })
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

    /// Record index of `entity` (tracking slot `slot`) in this update.
    fn record_index(&self, entity: Entity, slot: u32) -> Option<usize> {
        let t = self.tracked.get(slot as usize)?;
        (t.live && t.entity == entity && t.seen == self.frame).then_some(t.record as usize)
    }

    /// Sets every attachment's world matrix from its target's record (see
    /// [`crate::runtime::Attachment`]).
    fn solve_attachments(&mut self, world: &World) -> Result<(), RuntimeError> {
        let mut first_error = None;
        let mut query = world.query::<(Entity, &mut Attachment, Option<&mut Transform>)>();
        for (entity, attachment, transform) in query.iter() {
            let target = world
                .get::<&Animated>(attachment.target)
                .ok()
                .and_then(|a| self.current_record(attachment.target, a.slot));
            let Some(record) = target else {
                first_error.get_or_insert_with(|| no_entity(attachment.target, "Animated"));
                continue;
            };
            let rig = &self.backend.rigs()[record.rig as usize];
            let Some(joint) = attachment.joint_index(record.rig, rig) else {
                first_error.get_or_insert_with(|| RuntimeError::UnknownJoint {
                    rig: rig.name.clone(),
                    joint: attachment.joint.clone(),
                });
                continue;
            };
            let now = self.frame_time();
            let world_matrix = attachment.solve(rig, self.backend.masks(), &record, now, joint);
            if let Some(transform) = transform {
                *transform = Transform::from_affine(&world_matrix);
            }
            // An animated attachment is drawn where it is attached, this frame.
            if let Ok(a) = world.get::<&Animated>(entity) {
                let world_matrix = Mat3x4Rows::from_affine(&world_matrix);
                if let Some(own) = self.record_index(entity, a.slot) {
                    self.records[own].world = world_matrix;
                } else if let Some(mut held) = self.current_record(entity, a.slot) {
                    // Not updated this time (event-driven): its held record moves.
                    held.world = world_matrix;
                    self.records.push(held);
                    self.record_entities.push(entity);
                    self.record_slots.push(a.slot);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    /// `entity`'s record as of this update: the one just built, or the one its slot holds.
    fn current_record(&self, entity: Entity, slot: u32) -> Option<InstanceRecord> {
        if let Some(i) = self.record_index(entity, slot) {
            return Some(self.records[i]);
        }
        let t = self.tracked.get(slot as usize)?;
        (t.live && t.entity == entity)
            .then(|| self.slot_records.get(slot as usize).copied())
            .flatten()
            .filter(|r| !r.is_empty())
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

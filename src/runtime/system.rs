//! The animation system: [`Animator`] owns the rigs, masks, blend spaces, state machines, event
//! tables (registered through the methods in `registry.rs`), the palette allocator and the
//! per-frame outputs, and [`Animator::update`] advances every animated entity of a
//! `hecs::World` in one pass.
//!
//! An entity is animated when it has [`Animated`] (its rig). Its base is the first present of
//! [`StateMachine`], [`CrossFade`] and [`Playback`] (none: the rest pose); [`Layers`] adds
//! layers above it, [`RootMotion`] moves its [`Transform`], and an [`Attachment`] on another
//! entity follows one of its joints. Each update:
//!
//! 1. for every animated entity: advance the base and layers, queue crossed events, apply root
//!    motion, and write one [`InstanceRecord`] (reusing the record buffer: no allocation per
//!    frame once it has grown);
//! 2. palette blocks are allocated for entities seen for the first time and freed for entities
//!    no longer seen (despawned, or `Animated` removed): hecs has no despawn hooks, so the
//!    animator keeps a table of tracked entities, stamps each one it meets, and sweeps the rest;
//! 3. attachments are solved against the records just written.
//!
//! The records then go to the GPU pipeline ([`Animator::records`]) or to the CPU backend
//! ([`Animator::evaluate_cpu`]).

use std::sync::Mutex;

use glam::Affine3A;
use hecs::{Entity, World};
use rayon::prelude::*;

use super::RuntimeError;
use super::attachment::Attachment;
use super::events::{ClipEvents, Event, EventQueue};
use super::layers::Layers;
use super::motion::{Contribution, Contributions, MotionContext, clock_of};
use super::playback::{LoopMode, Playback, Step};
use super::registry::{MaskEntry, NamedSpace, RigData, context, no_entity};
use super::root_motion::RootMotion;
use super::schedule::{Schedule, Scheduling, next_crossing_in};
use super::state_machine::{CompiledMachine, StateMachine};
use super::transform::Transform;
use super::transition::{CrossFade, MAX_FADES};
use crate::bake::{Aabb, Rig};
use crate::cpu::CpuBackend;
use crate::cpu::{layer_time, layer_weight};
use crate::instance::{InstanceRecord, LayerRecord, MAX_LAYERS, TimeWrap};
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
    /// The world's entity count at the last event-driven update.
    world_len: u32,
    /// Next slot of the rolling check for lost `Animated` components.
    rolling: usize,
    pose: Vec<Mat3x4Rows>,
    bounds: Vec<Aabb>,
}

/// Frame times are `f32` seconds since an epoch; the epoch moves forward (and every record is
/// re-anchored to it) once this many seconds have passed, so times keep a precision of about
/// 0.1 ms however long the animator runs.
pub const EPOCH_SPAN: f64 = 1024.0;

/// A record is kept (not written again) while its clip times at the frame time are within this
/// many seconds of the runtime's own, its weights within [`RECORD_WEIGHT_TOLERANCE`], its clock
/// rates within this fraction, and everything else equal.
pub const RECORD_TIME_TOLERANCE: f32 = 1e-4;

/// See [`RECORD_TIME_TOLERANCE`].
pub const RECORD_WEIGHT_TOLERANCE: f32 = 1e-4;

impl Animator {
    /// An animator over `rigs` (rig indices are positions in `rigs`). Every clip must have a
    /// positive, finite duration.
    pub fn new(rigs: Vec<Rig>) -> Result<Self, RuntimeError> {
        let mut data = Vec::with_capacity(rigs.len());
        for rig in &rigs {
            let durations: Vec<f32> = rig.clips.clips().iter().map(|c| c.duration).collect();
            let usable = |d: f32| d > 0.0 && d.is_finite();
            if let Some(c) = rig.clips.clips().iter().find(|c| !usable(c.duration)) {
                return Err(RuntimeError::ZeroLengthClip {
                    rig: rig.name.clone(),
                    clip: c.name.clone(),
                });
            }
            let mut rest_models = vec![Affine3A::IDENTITY; rig.joint_count()];
            crate::cpu::local_to_model(
                &rig.skeleton,
                &Affine3A::IDENTITY,
                rig.skeleton.rest_pose(),
                &mut rest_models,
            );
            data.push(RigData {
                events: vec![ClipEvents::default(); durations.len()],
                durations,
                spaces: Vec::new(),
                rest_models,
            });
        }
        Ok(Self {
            backend: CpuBackend::new(rigs, Vec::new()),
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
            world_len: 0,
            rolling: 0,
            pose: Vec::new(),
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
    /// ([`RootMotion::on_gpu`]) the GPU owns the record's world, and only these uploads replace
    /// it ([`crate::GpuBackend::set_record_world`]).
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

    /// Evaluates this frame's records with the CPU backend: the palette (indexed by each
    /// record's `palette_offset`) and one bounding box per record ([`Animator::records`]), or
    /// per slot ([`Animator::slot_records`]) in [`Scheduling::EventDriven`] mode.
    pub fn evaluate_cpu(&mut self) -> Result<EvaluatedPose<'_>, RuntimeError> {
        let capacity = self.palette.capacity() as usize;
        if self.pose.len() != capacity {
            self.pose.resize(capacity, Mat3x4Rows::IDENTITY);
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

    /// [`Scheduling::PerFrame`]: one pass over every animated entity.
    fn update_every_entity(
        &mut self,
        world: &mut World,
        dt: f32,
        first_error: &mut Option<RuntimeError>,
    ) {
        let mut base = Contributions::new();
        let mut seen = 0;
        {
            let Self {
                backend,
                rigs: data,
                masks,
                machines,
                events,
                palette,
                tracked,
                free_slots,
                frame,
                records,
                record_entities,
                record_slots,
                ..
            } = self;
            let now = (self.now - self.epoch) as f32;
            let cx = FrameContext {
                rigs: backend.rigs(),
                data,
                masks,
                machines,
                now,
            };
            let query = world.query_mut::<(Entity, &mut Animated, Components<'_>)>();
            for (entity, animated, parts) in query {
                let Some(rig) = cx.rigs.get(animated.rig as usize) else {
                    first_error.get_or_insert_with(|| RuntimeError::UnknownRig {
                        rig: format!("#{}", animated.rig),
                    });
                    continue;
                };
                let block = match track(
                    tracked,
                    free_slots,
                    palette,
                    *frame,
                    entity,
                    animated,
                    rig.joint_count() as u32,
                ) {
                    Ok(block) => {
                        seen += 1;
                        block
                    }
                    Err(e) => {
                        first_error.get_or_insert(e);
                        continue;
                    }
                };
                let out = animate(
                    &cx,
                    events,
                    entity,
                    animated,
                    block,
                    parts,
                    f64::from(dt),
                    f64::from(dt),
                    &mut base,
                );
                if out.invalid {
                    first_error.get_or_insert_with(|| bad_motion(entity));
                }
                tracked[animated.slot as usize].record = records.len() as u32;
                records.push(out.record);
                record_entities.push(entity);
                record_slots.push(animated.slot);
            }
        }
        if seen != self.tracked_entities() {
            self.sweep();
        }
    }

    /// [`Scheduling::EventDriven`]: the new entities, then the due and touched ones.
    fn update_due_entities(
        &mut self,
        world: &mut World,
        dt: f32,
        first_error: &mut Option<RuntimeError>,
    ) {
        let now64 = self.now;
        // New entities: those without the marker.
        let mut fresh = Vec::new();
        for (entity, _) in world
            .query_mut::<(Entity, &Animated)>()
            .without::<&Scheduled>()
        {
            fresh.push(entity);
        }
        for &entity in &fresh {
            // The entity was just listed, so the insert cannot fail.
            let _ = world.insert_one(entity, Scheduled);
        }
        // Despawns (or a removed `Animated`) change the entity count or leave stale slots:
        // check every slot then, and a few slots each update otherwise.
        let len = world.len();
        if len != self.world_len || !fresh.is_empty() {
            self.sweep_missing(world, 0..self.tracked.len());
        } else if !self.tracked.is_empty() {
            let n = self.tracked.len();
            let from = self.rolling % n;
            let to = (from + ROLLING_CHECK).min(n);
            self.sweep_missing(world, from..to);
            self.rolling = to % n;
        }
        self.world_len = len;

        let mut due = std::mem::take(&mut self.due);
        due.clear();
        let touched = std::mem::take(&mut *self.touched.lock().unwrap_or_else(|e| e.into_inner()));
        for entity in touched {
            if let Ok(a) = world.get::<&Animated>(entity)
                && let Some(t) = self.tracked.get(a.slot as usize)
                && t.live
                && t.entity == entity
            {
                self.schedule.touch(a.slot);
            }
        }
        self.schedule.take_due(now64, &mut due);
        let now = self.frame_time();
        let Self {
            backend,
            rigs: data,
            masks,
            machines,
            events,
            palette,
            tracked,
            free_slots,
            frame,
            records,
            record_entities,
            record_slots,
            schedule,
            ..
        } = self;
        let cx = FrameContext {
            rigs: backend.rigs(),
            data,
            masks,
            machines,
            now,
        };
        // New entities first (in the order found), then the due ones by slot.
        let mut work: Vec<(Entity, bool)> = fresh.iter().map(|&e| (e, true)).collect();
        work.extend(
            due.iter()
                .filter_map(|&slot| tracked.get(slot as usize))
                .filter(|t| t.live)
                .map(|t| (t.entity, false)),
        );
        // Gather: track each entity and copy its components out.
        let mut jobs = Vec::with_capacity(work.len());
        for (entity, new) in work {
            let Ok((animated, parts)) =
                world.query_one_mut::<(&mut Animated, Components<'_>)>(entity)
            else {
                continue;
            };
            let Some(rig) = cx.rigs.get(animated.rig as usize) else {
                first_error.get_or_insert_with(|| RuntimeError::UnknownRig {
                    rig: format!("#{}", animated.rig),
                });
                continue;
            };
            let block = match track(
                tracked,
                free_slots,
                palette,
                *frame,
                entity,
                animated,
                rig.joint_count() as u32,
            ) {
                Ok(block) => block,
                Err(e) => {
                    first_error.get_or_insert(e);
                    continue;
                }
            };
            let slot = animated.slot;
            let step = if new {
                schedule.start(slot, now64);
                f64::from(dt)
            } else {
                schedule.elapsed(slot, now64)
            };
            jobs.push(Job {
                entity,
                animated: *animated,
                block,
                parts: Owned::copy(parts),
                step,
                out: None,
            });
        }
        // Animate on every core, in fixed chunks: the events of each chunk are merged in chunk
        // order, so records and events do not depend on the thread count.
        let recent = f64::from(dt);
        let queues: Vec<EventQueue> = jobs
            .par_chunks_mut(JOB_CHUNK)
            .map(|chunk| {
                let mut queue = EventQueue::default();
                let mut base = Contributions::new();
                for job in chunk {
                    job.out = Some(animate(
                        &cx,
                        &mut queue,
                        job.entity,
                        &job.animated,
                        job.block,
                        job.parts.borrow(),
                        job.step,
                        recent,
                        &mut base,
                    ));
                }
                queue
            })
            .collect();
        for mut queue in queues {
            events.append(&mut queue);
        }
        // Write back, in job order.
        for job in jobs {
            let Some(out) = job.out else { continue };
            if let Ok(parts) = world.query_one_mut::<Components<'_>>(job.entity) {
                job.parts.write_back(parts);
            }
            if out.invalid {
                first_error.get_or_insert_with(|| bad_motion(job.entity));
            }
            let slot = job.animated.slot;
            schedule.wake_in(slot, now64, f64::from(out.wake));
            tracked[slot as usize].record = records.len() as u32;
            records.push(out.record);
            record_entities.push(job.entity);
            record_slots.push(slot);
        }
        self.due = due;
    }

    /// In [`Scheduling::EventDriven`] mode, brings `entity` up to the last update (as if it had
    /// been updated every frame), so that a change made now starts from where it is. Its
    /// record is written again by the next update.
    fn catch_up(&mut self, world: &mut World, entity: Entity) {
        if self.scheduling != Scheduling::EventDriven {
            return;
        }
        let now64 = self.now;
        let now = self.frame_time();
        let Ok((animated, parts)) = world.query_one_mut::<(&mut Animated, Components<'_>)>(entity)
        else {
            return;
        };
        let slot = animated.slot;
        let Some(t) = self.tracked.get(slot as usize).copied() else {
            return;
        };
        if !t.live || t.entity != entity || animated.rig as usize >= self.rigs.len() {
            return;
        }
        let elapsed = self.schedule.elapsed(slot, now64);
        if elapsed <= 0.0 {
            return;
        }
        let cx = FrameContext {
            rigs: self.backend.rigs(),
            data: &self.rigs,
            masks: &self.masks,
            machines: &self.machines,
            now,
        };
        let mut base = Contributions::new();
        // Changes made since the last update are made after it: none applies to this step.
        let out = animate(
            &cx,
            &mut self.events,
            entity,
            animated,
            t.block,
            parts,
            elapsed,
            0.0,
            &mut base,
        );
        self.schedule.wake_in(slot, now64, f64::from(out.wake));
    }

    /// Frees the tracking slots in `range` whose entity is gone or no longer animated.
    fn sweep_missing(&mut self, world: &mut World, range: std::ops::Range<usize>) {
        for slot in range {
            let t = self.tracked[slot];
            if !t.live {
                continue;
            }
            let animated = world
                .get::<&Animated>(t.entity)
                .is_ok_and(|a| a.slot == slot as u32);
            if !animated {
                self.tracked[slot].live = false;
                self.palette.free(t.block);
                self.free_slots.push(slot as u32);
                self.freed.push(slot as u32);
                self.schedule.stop(slot as u32);
                // A live entity that lost `Animated` is found again if it gets it back.
                let _ = world.remove_one::<Scheduled>(t.entity);
            }
        }
    }

    /// Moves every held record's clocks and fades to the new epoch (frame times restart near 0)
    /// and lists their slots as changed.
    fn rebase_records(&mut self) {
        let shift = self.epoch - self.rebased_from;
        self.rebased_from = self.epoch;
        self.rebased = Some(shift);
        for (slot, rec) in self.slot_records.iter_mut().enumerate() {
            if rec.is_empty() {
                continue;
            }
            for layer in rec.layers.iter_mut().take(rec.layer_count as usize) {
                *layer = reanchored(layer, shift);
            }
            self.changed.push(slot as u32);
        }
    }

    /// Compares each new record with the one its slot holds: a record that still describes the
    /// same motion ([`RECORD_TIME_TOLERANCE`]) is replaced by the held one, so the slot needs no
    /// upload; the others are stored and their slots listed in [`Animator::changed_slots`]
    /// (after the slots a rebase rewrote).
    fn commit(&mut self) {
        let now = self.frame_time();
        if self.slot_records.len() < self.tracked.len() {
            self.slot_records
                .resize(self.tracked.len(), InstanceRecord::EMPTY);
        }
        for (rec, &slot) in self.records.iter_mut().zip(&self.record_slots) {
            let held = &mut self.slot_records[slot as usize];
            if same_motion(held, rec, now) {
                *rec = *held;
            } else {
                if held.is_empty() || held.world != rec.world {
                    self.placed.push(slot);
                }
                *held = *rec;
                self.changed.push(slot);
            }
        }
        for slot in self.freed.drain(..) {
            let t = &self.tracked[slot as usize];
            if !t.live && !self.slot_records[slot as usize].is_empty() {
                self.slot_records[slot as usize] = InstanceRecord::EMPTY;
                self.changed.push(slot);
            }
        }
        self.changed.sort_unstable();
        self.changed.dedup();
        self.placed.sort_unstable();
        self.placed.dedup();
    }

    /// Frees the palette blocks of tracked entities this update did not see (skipped when every
    /// tracked entity was seen: the steady state costs nothing).
    fn sweep(&mut self) {
        for (slot, t) in self.tracked.iter_mut().enumerate() {
            if t.live && t.seen != self.frame {
                t.live = false;
                self.palette.free(t.block);
                self.free_slots.push(slot as u32);
                self.freed.push(slot as u32);
            }
        }
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

/// Advances a plain [`Playback`] and pushes its one full-weight contribution.
fn play(
    ctx: &MotionContext,
    p: &mut Playback,
    dt: f64,
    recent: f64,
    out: &mut Contributions,
) -> bool {
    let Some(duration) = ctx.duration(p.clip) else {
        return false;
    };
    let step: Step = p.clock.advance_since(duration, dt, recent);
    out.push(Contribution {
        clip: p.clip,
        time: p.clock.time,
        weight: 1.0,
        step,
        events: true,
        fade: None,
    });
    true
}

/// Finds (or starts) the tracking of `entity` and returns its palette block.
fn track(
    tracked: &mut Vec<Tracked>,
    free_slots: &mut Vec<u32>,
    palette: &mut PaletteAllocator,
    frame: u32,
    entity: Entity,
    animated: &mut Animated,
    joints: u32,
) -> Result<PaletteBlock, RuntimeError> {
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

/// Whether `held` still describes the motion of `new` at frame time `now`: the same rig,
/// palette block, flags, world and layers (clip, mask, mode, wrap, period), clip times and
/// weights at `now` within the tolerances, and clock rates within [`RECORD_TIME_TOLERANCE`]
/// relative.
fn same_motion(held: &InstanceRecord, new: &InstanceRecord, now: f32) -> bool {
    if held.rig != new.rig
        || held.palette_offset != new.palette_offset
        || held.layer_count != new.layer_count
        || held.flags != new.flags
        || held.world != new.world
    {
        return false;
    }
    held.used_layers()
        .iter()
        .zip(new.used_layers())
        .all(|(a, b)| {
            let (ta, tb) = (layer_time(a, now), layer_time(b, now));
            let mut dt = (ta - tb).abs();
            if a.wrap() == TimeWrap::Loop {
                dt = dt.min(a.period - dt);
            }
            a.clip == b.clip
                && a.flags == b.flags
                && a.period == b.period
                && dt <= RECORD_TIME_TOLERANCE
                && (a.rate - b.rate).abs() <= RECORD_TIME_TOLERANCE * a.rate.abs().max(1.0)
                && (layer_weight(a, now) - layer_weight(b, now)).abs() <= RECORD_WEIGHT_TOLERANCE
        })
}

/// Marks an entity the event-driven animator has found (a private component).
#[derive(Clone, Copy, Debug)]
struct Scheduled;

/// Tracking slots checked per update for a lost `Animated` when the entity count did not change.
const ROLLING_CHECK: usize = 64;

/// The optional components of an animated entity.
type Components<'a> = (
    Option<&'a mut Transform>,
    Option<&'a mut Playback>,
    Option<&'a mut CrossFade>,
    Option<&'a mut StateMachine>,
    Option<&'a mut Layers>,
    Option<&'a mut RootMotion>,
);

/// What every entity's update reads.
struct FrameContext<'a> {
    rigs: &'a [Rig],
    data: &'a [RigData],
    masks: &'a [MaskEntry],
    machines: &'a [CompiledMachine],
    /// The frame time records are anchored at.
    now: f32,
}

/// What updating one entity produced.
struct EntityUpdate {
    record: InstanceRecord,
    /// A component names something its rig does not have.
    invalid: bool,
    /// Seconds until the entity next needs an update (infinite: only when touched).
    wake: f32,
}

/// Advances one entity by `dt64` seconds since its last update (its base, layers, events, root
/// motion) and builds its record; changes made to its components since then take effect for
/// the latest `recent` seconds (the update's own step), as if it were updated every frame. The
/// entity's rig exists.
#[allow(clippy::too_many_arguments)]
fn animate(
    cx: &FrameContext,
    events: &mut EventQueue,
    entity: Entity,
    animated: &Animated,
    block: PaletteBlock,
    parts: Components<'_>,
    dt64: f64,
    recent: f64,
    base: &mut Contributions,
) -> EntityUpdate {
    let dt = dt64 as f32;
    let (mut transform, playback, fades, machine, layers, root) = parts;
    let rig = &cx.rigs[animated.rig as usize];
    let data = &cx.data[animated.rig as usize];
    let now = cx.now;
    let ctx = context(data);
    let extra = layers.as_ref().map_or(0, |l| l.len());
    let budget = MAX_LAYERS - extra;
    let mut wake = f32::INFINITY;

    // Base.
    base.clear();
    let valid = if let Some(sm) = machine {
        match cx.machines.get(sm.machine() as usize) {
            Some(m) if m.rig == animated.rig => {
                let valid = sm.update(m, &ctx, dt64, recent, budget, base);
                wake = wake.min(sm.next_change_in(m).unwrap_or(f32::INFINITY));
                valid
            }
            _ => false,
        }
    } else if let Some(fades) = fades {
        let mut steps = [Step::still(0.0, 0.0, LoopMode::Loop); MAX_FADES];
        fades.advance(&ctx, dt64, recent, budget, &mut steps);
        wake = wake.min(fades.next_change_in().unwrap_or(f32::INFINITY));
        fades.contribute(&ctx, &steps, base)
    } else if let Some(p) = playback {
        play(&ctx, p, dt64, recent, base)
    } else {
        true
    };
    let mut invalid = !valid;
    base.limit(budget);
    let per_second = |step: &Step| step.velocity;
    for c in base.as_slice() {
        if c.events {
            let table = &data.events[c.clip as usize];
            events.fire(entity, c.clip, table, &c.step);
            if let Some(t) = next_crossing_in(&c.step, per_second(&c.step), table.times()) {
                wake = wake.min(t);
            }
        }
    }

    // Record: base layers, then the extra layers.
    let mut record = InstanceRecord {
        rig: animated.rig,
        palette_offset: block.offset,
        layer_count: 0,
        flags: 0,
        world: Mat3x4Rows::IDENTITY,
        layers: [LayerRecord::default(); MAX_LAYERS],
    };
    let mut count = base.write_layers(&mut record.layers, now);
    let base_layers = count;
    if let Some(layers) = layers {
        for layer in layers.as_mut_slice() {
            let clip = layer.playback.clip;
            let mask_ok = layer.mask.is_none_or(|m| {
                cx.masks
                    .get(m as usize)
                    .is_some_and(|e| e.rig == animated.rig)
            });
            let Some(duration) = ctx.duration(clip).filter(|_| mask_ok) else {
                invalid = true;
                continue;
            };
            let step = layer.advance(duration, dt64, recent);
            if let Some(t) = layer.ramp_left() {
                wake = wake.min(t);
            }
            if layer.weight > 0.0 && count < MAX_LAYERS {
                let table = &data.events[clip as usize];
                events.fire(entity, clip, table, &step);
                if let Some(t) = next_crossing_in(&step, per_second(&step), table.times()) {
                    wake = wake.min(t);
                }
                let mut layer_record = clock_of(layer.to_layer().to_record(), &step, now);
                // A weight fade in progress goes into the record as a linear ramp.
                if let Some((target, rate)) = layer.ramp() {
                    let span = (target - layer.weight).abs();
                    if span > 0.0 {
                        layer_record = LayerRecord {
                            weight: target,
                            ..layer_record
                        }
                        .with_fade(layer.weight, now, rate / span, 1.0);
                    }
                }
                record.layers[count] = layer_record;
                count += 1;
            }
        }
    }
    record.layer_count = count as u32;

    // Root motion, then the world transform.
    if let (Some(root), Some(transform)) = (root, transform.as_deref_mut()) {
        if root.is_on_gpu() {
            // The evaluator moves the record's world from the base layers' clocks.
            record.flags = root.record_flags(base_layers);
        } else {
            root.apply(rig, &data.rest_models, base.as_slice(), transform);
            record.flags = root.flags();
            // Root motion on the CPU moves the entity every update.
            wake = 0.0;
        }
    }
    if let Some(transform) = transform {
        record.world = Mat3x4Rows::from_affine(&transform.to_affine());
    }
    if dt <= 0.0 && wake.is_finite() {
        // No rate is known yet: look again next update.
        wake = 0.0;
    }
    EntityUpdate {
        record,
        invalid,
        wake,
    }
}

/// `layer` re-anchored at frame time 0 of an epoch `shift` seconds after its own (where the
/// frame time is now `now`): the same clip time and weight at every instant.
fn reanchored(layer: &LayerRecord, shift: f64) -> LayerRecord {
    let mut out = *layer;
    // Unwrapped position at the new epoch's time 0, in f64, folded back into one cycle.
    let at = f64::from(layer.time) + f64::from(layer.rate) * (shift - f64::from(layer.anchor));
    let period = f64::from(layer.period);
    out.time = match layer.wrap() {
        TimeWrap::None => at,
        TimeWrap::Loop => at.rem_euclid(period),
        TimeWrap::Clamp => at.clamp(0.0, period),
        TimeWrap::PingPong => at.rem_euclid(2.0 * period),
    } as f32;
    out.anchor = 0.0;
    if layer.fade_rate > 0.0 {
        let start = f64::from(layer.fade_start) - shift;
        if -start * f64::from(layer.fade_rate) >= 1.0 {
            // Long complete: the weight holds.
            out.fade_rate = 0.0;
            out.fade_start = 0.0;
        } else {
            out.fade_start = start as f32;
        }
    }
    out
}

/// Entities per parallel task of an event-driven update.
const JOB_CHUNK: usize = 64;

/// One entity to update in an event-driven update: its components copied out, and the result.
struct Job {
    entity: Entity,
    animated: Animated,
    block: PaletteBlock,
    parts: Owned,
    /// Seconds since its last update.
    step: f64,
    out: Option<EntityUpdate>,
}

/// [`Components`] by value (every component is `Copy`).
struct Owned {
    transform: Option<Transform>,
    playback: Option<Playback>,
    fades: Option<CrossFade>,
    machine: Option<StateMachine>,
    layers: Option<Layers>,
    root: Option<RootMotion>,
}

impl Owned {
    fn copy(parts: Components<'_>) -> Self {
        let (transform, playback, fades, machine, layers, root) = parts;
        Self {
            transform: transform.copied(),
            playback: playback.copied(),
            fades: fades.copied(),
            machine: machine.copied(),
            layers: layers.copied(),
            root: root.copied(),
        }
    }

    fn borrow(&mut self) -> Components<'_> {
        (
            self.transform.as_mut(),
            self.playback.as_mut(),
            self.fades.as_mut(),
            self.machine.as_mut(),
            self.layers.as_mut(),
            self.root.as_mut(),
        )
    }

    fn write_back(self, parts: Components<'_>) {
        fn put<T>(to: Option<&mut T>, from: Option<T>) {
            if let (Some(to), Some(from)) = (to, from) {
                *to = from;
            }
        }
        let (transform, playback, fades, machine, layers, root) = parts;
        put(transform, self.transform);
        put(playback, self.playback);
        put(fades, self.fades);
        put(machine, self.machine);
        put(layers, self.layers);
        put(root, self.root);
    }
}

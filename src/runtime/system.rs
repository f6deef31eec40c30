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

use glam::Affine3A;
use hecs::{Entity, World};

use super::RuntimeError;
use super::attachment::Attachment;
use super::events::{ClipEvents, Event, EventQueue};
use super::layers::Layers;
use super::motion::{Contribution, Contributions, MotionContext, clock_of};
use super::playback::{LoopMode, Playback, Step};
use super::registry::{MaskEntry, NamedSpace, RigData, context, no_entity};
use super::root_motion::RootMotion;
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

    /// `entity`'s record from the last update.
    pub fn record_of(&self, world: &World, entity: Entity) -> Option<&InstanceRecord> {
        let slot = world.get::<&Animated>(entity).ok()?.slot;
        self.record_index(entity, slot).map(|i| &self.records[i])
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
    /// record's `palette_offset`) and one bounding box per record.
    pub fn evaluate_cpu(&mut self) -> Result<EvaluatedPose<'_>, RuntimeError> {
        let capacity = self.palette.capacity() as usize;
        if self.pose.len() != capacity {
            self.pose.resize(capacity, Mat3x4Rows::IDENTITY);
        }
        self.bounds.resize(self.records.len(), Aabb::EMPTY);
        let now = self.frame_time();
        self.backend
            .evaluate_at(now, &self.records, &mut self.pose, &mut self.bounds)?;
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
        self.now += f64::from(dt);
        let rebase = self.now - self.epoch >= EPOCH_SPAN;
        if rebase {
            self.epoch = self.now;
        }
        let now = self.frame_time();
        self.records.clear();
        self.record_entities.clear();
        self.record_slots.clear();
        let mut first_error = None;
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
            let rigs = backend.rigs();
            let query = world.query_mut::<(
                Entity,
                &mut Animated,
                Option<&mut Transform>,
                Option<&mut Playback>,
                Option<&mut CrossFade>,
                Option<&mut StateMachine>,
                Option<&mut Layers>,
                Option<&mut RootMotion>,
            )>();
            for (entity, animated, mut transform, playback, fades, machine, layers, root) in query {
                let (Some(rig), Some(data)) = (
                    rigs.get(animated.rig as usize),
                    data.get(animated.rig as usize),
                ) else {
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
                let ctx = context(data);
                let extra = layers.as_ref().map_or(0, |l| l.len());
                let budget = MAX_LAYERS - extra;

                // Base.
                base.clear();
                let valid = if let Some(sm) = machine {
                    match machines.get(sm.machine() as usize) {
                        Some(m) if m.rig == animated.rig => {
                            sm.update(m, &ctx, dt, budget, &mut base)
                        }
                        _ => false,
                    }
                } else if let Some(fades) = fades {
                    let mut steps = [Step::still(0.0, 0.0, LoopMode::Loop); MAX_FADES];
                    fades.advance(&ctx, dt, budget, &mut steps);
                    fades.contribute(&ctx, &steps, &mut base)
                } else if let Some(p) = playback {
                    play(&ctx, p, dt, &mut base)
                } else {
                    true
                };
                if !valid {
                    first_error.get_or_insert_with(|| bad_motion(entity));
                }
                base.limit(budget);
                for c in base.as_slice() {
                    if c.events {
                        events.fire(entity, c.clip, &data.events[c.clip as usize], &c.step);
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
                let mut count = base.write_layers(&mut record.layers, now, dt);
                if let Some(layers) = layers {
                    for layer in layers.as_mut_slice() {
                        let clip = layer.playback.clip;
                        let mask_ok = layer.mask.is_none_or(|m| {
                            masks.get(m as usize).is_some_and(|e| e.rig == animated.rig)
                        });
                        let Some(duration) = ctx.duration(clip).filter(|_| mask_ok) else {
                            first_error.get_or_insert_with(|| bad_motion(entity));
                            continue;
                        };
                        let step = layer.advance(duration, dt);
                        if layer.weight > 0.0 && count < MAX_LAYERS {
                            events.fire(entity, clip, &data.events[clip as usize], &step);
                            record.layers[count] =
                                clock_of(layer.to_layer().to_record(), &step, now, dt);
                            count += 1;
                        }
                    }
                }
                record.layer_count = count as u32;

                // Root motion, then the world transform.
                if let (Some(root), Some(transform)) = (root, transform.as_deref_mut()) {
                    root.apply(rig, &data.rest_models, base.as_slice(), transform);
                    record.flags = root.flags();
                }
                if let Some(transform) = transform {
                    record.world = Mat3x4Rows::from_affine(&transform.to_affine());
                }
                tracked[animated.slot as usize].record = records.len() as u32;
                records.push(record);
                record_entities.push(entity);
                record_slots.push(animated.slot);
            }
        }
        if seen != self.tracked_entities() {
            self.sweep();
        }
        if let Err(e) = self.solve_attachments(world) {
            first_error.get_or_insert(e);
        }
        self.commit(rebase);
        first_error.map_or(Ok(()), Err)
    }

    /// Compares each new record with the one its slot holds: a record that still describes the
    /// same motion ([`RECORD_TIME_TOLERANCE`]) is replaced by the held one, so the slot needs no
    /// upload; the others are stored and their slots listed in [`Animator::changed_slots`].
    /// `rebase`: the epoch moved, every record is written anew.
    fn commit(&mut self, rebase: bool) {
        let now = self.frame_time();
        self.changed.clear();
        if self.slot_records.len() < self.tracked.len() {
            self.slot_records
                .resize(self.tracked.len(), InstanceRecord::EMPTY);
        }
        for (rec, &slot) in self.records.iter_mut().zip(&self.record_slots) {
            let held = &mut self.slot_records[slot as usize];
            if !rebase && same_motion(held, rec, now) {
                *rec = *held;
            } else {
                *held = *rec;
                self.changed.push(slot);
            }
        }
        for (slot, t) in self.tracked.iter().enumerate() {
            if !t.live && !self.slot_records[slot].is_empty() {
                self.slot_records[slot] = InstanceRecord::EMPTY;
                self.changed.push(slot as u32);
            }
        }
        self.changed.sort_unstable();
    }

    /// Frees the palette blocks of tracked entities this update did not see (skipped when every
    /// tracked entity was seen: the steady state costs nothing).
    fn sweep(&mut self) {
        for (slot, t) in self.tracked.iter_mut().enumerate() {
            if t.live && t.seen != self.frame {
                t.live = false;
                self.palette.free(t.block);
                self.free_slots.push(slot as u32);
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
                .and_then(|a| self.record_index(attachment.target, a.slot));
            let Some(index) = target else {
                first_error.get_or_insert_with(|| no_entity(attachment.target, "Animated"));
                continue;
            };
            let record = self.records[index];
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
            let own = world
                .get::<&Animated>(entity)
                .ok()
                .and_then(|a| self.record_index(entity, a.slot));
            if let Some(own) = own {
                self.records[own].world = Mat3x4Rows::from_affine(&world_matrix);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// Advances a plain [`Playback`] and pushes its one full-weight contribution.
fn play(ctx: &MotionContext, p: &mut Playback, dt: f32, out: &mut Contributions) -> bool {
    let Some(duration) = ctx.duration(p.clip) else {
        return false;
    };
    let step: Step = p.clock.advance(duration, dt);
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

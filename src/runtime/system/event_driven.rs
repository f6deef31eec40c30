//! [`Scheduling::EventDriven`] updates: find new entities and lost ones without visiting every
//! entity, take the due and touched ones from the schedule, animate them in parallel in fixed
//! chunks (events merged in chunk order, so results do not depend on the thread count) and
//! write their components back.

use hecs::{Entity, World};
use rayon::prelude::*;

use super::animate::{Components, EntityUpdate, FrameContext, animate};
use super::{Animated, Animator, bad_motion, track};
use crate::palette::PaletteBlock;
use crate::runtime::RuntimeError;
use crate::runtime::events::EventQueue;
use crate::runtime::input_ramp::BlendInputRamp;
use crate::runtime::layers::Layers;
use crate::runtime::motion::Contributions;
use crate::runtime::pace::Pace;
use crate::runtime::playback::Playback;
use crate::runtime::retarget::Retargeted;
use crate::runtime::root_motion::RootMotion;
use crate::runtime::schedule::Scheduling;
use crate::runtime::state_machine::StateMachine;
use crate::runtime::transform::Transform;
use crate::runtime::transition::CrossFade;

impl Animator {
    /// [`Scheduling::EventDriven`]: the new entities, then the due and touched ones.
    pub(super) fn update_due_entities(
        &mut self,
        world: &mut World,
        dt: f32,
        first_error: &mut Option<RuntimeError>,
    ) {
        let now64 = self.now;
        // Scratch reused from update to update: no allocation per frame once grown.
        let Scratch {
            mut fresh,
            mut work,
            mut jobs,
        } = std::mem::take(&mut self.scratch);
        fresh.clear();
        work.clear();
        jobs.clear();
        // New entities: those without the marker.
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
            source: backend.clip_source(),
            data,
            masks,
            machines,
            retargets: backend.retargets(),
            now,
        };
        // New entities first (in the order found), then the due ones by slot.
        work.extend(fresh.iter().map(|&e| (e, true)));
        work.extend(
            due.iter()
                .filter_map(|&slot| tracked.get(slot as usize))
                .filter(|t| t.live)
                .map(|t| (t.entity, false)),
        );
        // Gather: track each entity and copy its components out.
        for &(entity, new) in &work {
            let Ok((animated, parts)) =
                world.query_one_mut::<(&mut Animated, Components<'_>)>(entity)
            else {
                continue;
            };
            let block = match track(
                cx.rigs, tracked, free_slots, palette, *frame, entity, animated,
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
        for job in jobs.drain(..) {
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
        self.scratch = Scratch { fresh, work, jobs };
    }

    /// In [`Scheduling::EventDriven`] mode, brings `entity` up to the last update (as if it had
    /// been updated every frame), so that a change made now starts from where it is. Its
    /// record is written again by the next update.
    pub(crate) fn catch_up(&mut self, world: &mut World, entity: Entity) {
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
            source: self.backend.clip_source(),
            data: &self.rigs,
            masks: &self.masks,
            machines: &self.machines,
            retargets: self.backend.retargets(),
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
    pub(super) fn sweep_missing(&mut self, world: &mut World, range: std::ops::Range<usize>) {
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
}

/// Marks an entity the event-driven animator has found (a private component).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scheduled;

/// Tracking slots checked per update for a lost `Animated` when the entity count did not change.
const ROLLING_CHECK: usize = 64;

/// The lists an event-driven update fills, kept between updates.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Entities found without the marker.
    fresh: Vec<Entity>,
    /// Entities to update, and whether each is new.
    work: Vec<(Entity, bool)>,
    /// Their components, copied out, and the results.
    jobs: Vec<Job>,
}

/// Entities per parallel task of an event-driven update.
const JOB_CHUNK: usize = 64;

/// One entity to update in an event-driven update: its components copied out, and the result.
#[derive(Debug)]
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
#[derive(Debug)]
struct Owned {
    transform: Option<Transform>,
    playback: Option<Playback>,
    fades: Option<CrossFade>,
    machine: Option<StateMachine>,
    layers: Option<Layers>,
    root: Option<RootMotion>,
    pace: Option<Pace>,
    ramp: Option<BlendInputRamp>,
    retargeted: Option<Retargeted>,
}

impl Owned {
    fn copy(parts: Components<'_>) -> Self {
        let (transform, playback, fades, machine, layers, root, pace, ramp, retargeted) = parts;
        Self {
            transform: transform.copied(),
            playback: playback.copied(),
            fades: fades.copied(),
            machine: machine.copied(),
            layers: layers.copied(),
            root: root.copied(),
            pace: pace.copied(),
            ramp: ramp.copied(),
            retargeted: retargeted.copied(),
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
            self.pace.as_ref(),
            self.ramp.as_mut(),
            self.retargeted.as_ref(),
        )
    }

    fn write_back(self, parts: Components<'_>) {
        fn put<T>(to: Option<&mut T>, from: Option<T>) {
            if let (Some(to), Some(from)) = (to, from) {
                *to = from;
            }
        }
        let (transform, playback, fades, machine, layers, root, _, ramp, _) = parts;
        put(transform, self.transform);
        put(playback, self.playback);
        put(fades, self.fades);
        put(machine, self.machine);
        put(layers, self.layers);
        put(root, self.root);
        put(ramp, self.ramp);
    }
}

//! [`Scheduling::PerFrame`](crate::runtime::Scheduling::PerFrame) updates: one pass over every
//! animated entity of the world, which also finds new entities and, by the ones it no longer
//! meets, lost ones.
//!
//! The pass runs on every core over the world's own storage: hecs hands the query out in
//! batches of at most [`BATCH`] entities of one archetype, each animated in place by one task
//! into its own records and events, merged in batch order, so records and events do not depend
//! on the thread count. An entity the tracking must change (new, moved to a rig of another
//! size, or naming no rig) is left to a short sequential pass after.

use hecs::{Entity, World};
use rayon::prelude::*;

use super::animate::{Components, FrameContext, animate};
use super::{Animated, Animator, Tracked, bad_motion, track};
use crate::instance::InstanceRecord;
use crate::runtime::RuntimeError;
use crate::runtime::events::EventQueue;
use crate::runtime::motion::Contributions;

/// Entities per parallel task of a per-frame update (at most: a batch holds one archetype).
const BATCH: u32 = 256;

/// What one batch of a per-frame update produced.
#[derive(Default)]
struct BatchOut {
    /// Entities updated, with their slots and records, in query order.
    updated: Vec<(Entity, u32, InstanceRecord)>,
    /// Entities whose components name something their rig does not have.
    invalid: Vec<Entity>,
    /// Entities the tracking must change first.
    deferred: Vec<Entity>,
    events: EventQueue,
}

/// Whether `animated` is tracked for `entity` with a block of `entries` entries: it can be
/// updated without changing the tracking.
fn steady(tracked: &[Tracked], entity: Entity, animated: &Animated, entries: Option<u32>) -> bool {
    tracked
        .get(animated.slot as usize)
        .is_some_and(|t| t.live && t.entity == entity && Some(t.block.len) == entries)
}

impl Animator {
    /// [`crate::runtime::Scheduling::PerFrame`]: one pass over every animated entity.
    pub(super) fn update_every_entity(
        &mut self,
        world: &mut World,
        dt: f32,
        first_error: &mut Option<RuntimeError>,
    ) {
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
                source: backend.clip_source(),
                data,
                masks,
                machines,
                retargets: backend.retargets(),
                now,
            };
            let step = f64::from(dt);
            let batches: Vec<_> = world
                .query_mut::<(Entity, &mut Animated, Components<'_>)>()
                .into_iter_batched(BATCH)
                .collect();
            let tracked_now: &[Tracked] = tracked;
            let outs: Vec<BatchOut> = batches
                .into_par_iter()
                .map(|batch| {
                    let mut out = BatchOut::default();
                    let mut base = Contributions::new();
                    for (entity, animated, parts) in batch {
                        let entries = cx
                            .rigs
                            .get(animated.rig as usize)
                            .map(|r| r.palette_entries() as u32);
                        if !steady(tracked_now, entity, animated, entries) {
                            out.deferred.push(entity);
                            continue;
                        }
                        let block = tracked_now[animated.slot as usize].block;
                        let update = animate(
                            &cx,
                            &mut out.events,
                            entity,
                            animated,
                            block,
                            parts,
                            step,
                            step,
                            &mut base,
                        );
                        if update.invalid {
                            out.invalid.push(entity);
                        }
                        out.updated.push((entity, animated.slot, update.record));
                    }
                    out
                })
                .collect();
            let mut deferred = Vec::new();
            let mut base = Contributions::new();
            let frame = *frame;
            let mut push = |tracked: &mut [Tracked], entity: Entity, slot: u32, record| {
                tracked[slot as usize].record = records.len() as u32;
                tracked[slot as usize].seen = frame;
                records.push(record);
                record_entities.push(entity);
                record_slots.push(slot);
            };
            for mut out in outs {
                events.append(&mut out.events);
                seen += out.updated.len();
                for (entity, slot, record) in out.updated {
                    push(tracked, entity, slot, record);
                }
                for entity in out.invalid {
                    first_error.get_or_insert_with(|| bad_motion(entity));
                }
                deferred.append(&mut out.deferred);
            }
            // New entities and changed rigs, in the order the batches met them.
            for entity in deferred {
                let Ok((animated, parts)) =
                    world.query_one_mut::<(&mut Animated, Components<'_>)>(entity)
                else {
                    continue;
                };
                let block = match track(
                    cx.rigs, tracked, free_slots, palette, frame, entity, animated,
                ) {
                    Ok(block) => block,
                    Err(e) => {
                        first_error.get_or_insert(e);
                        continue;
                    }
                };
                seen += 1;
                let update = animate(
                    &cx, events, entity, animated, block, parts, step, step, &mut base,
                );
                if update.invalid {
                    first_error.get_or_insert_with(|| bad_motion(entity));
                }
                push(tracked, entity, animated.slot, update.record);
            }
        }
        if seen != self.tracked_entities() {
            self.sweep();
        }
    }

    /// Frees the palette blocks of tracked entities this update did not see (skipped when every
    /// tracked entity was seen: the steady state costs nothing).
    pub(super) fn sweep(&mut self) {
        for (slot, t) in self.tracked.iter_mut().enumerate() {
            if t.live && t.seen != self.frame {
                t.live = false;
                self.palette.free(t.block);
                self.free_slots.push(slot as u32);
                self.freed.push(slot as u32);
            }
        }
    }
}

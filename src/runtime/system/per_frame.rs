//! [`Scheduling::PerFrame`](crate::runtime::Scheduling::PerFrame) updates: one pass over every
//! animated entity of the world, which also finds new entities and, by the ones it no longer
//! meets, lost ones. Entities are tracked in query order, then animated on every core in fixed
//! chunks (events merged in chunk order), so records and events do not depend on the thread
//! count.

use hecs::{Entity, World};
use rayon::prelude::*;

use super::animate::{Components, EntityUpdate, FrameContext, animate};
use super::event_driven::JOB_CHUNK;
use super::{Animated, Animator, bad_motion, track};
use crate::palette::PaletteBlock;
use crate::runtime::RuntimeError;
use crate::runtime::events::EventQueue;
use crate::runtime::motion::Contributions;

/// One entity of a per-frame update: its components in the world, its palette block and the
/// result of animating it.
struct Item<'w> {
    entity: Entity,
    animated: &'w Animated,
    block: PaletteBlock,
    parts: Components<'w>,
    out: Option<EntityUpdate>,
}

impl Animator {
    /// [`crate::runtime::Scheduling::PerFrame`]: one pass over every animated entity.
    pub(super) fn update_every_entity(
        &mut self,
        world: &mut World,
        dt: f32,
        first_error: &mut Option<RuntimeError>,
    ) {
        let seen = {
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
            // Track every entity in query order (slots and palette blocks are shared state). The
            // list borrows the world's components: allocated per update.
            let query = world.query_mut::<(Entity, &mut Animated, Components<'_>)>();
            let mut items = Vec::with_capacity(tracked.len());
            for (entity, animated, parts) in query {
                match track(
                    cx.rigs, tracked, free_slots, palette, *frame, entity, animated,
                ) {
                    Ok(block) => items.push(Item {
                        entity,
                        animated,
                        block,
                        parts,
                        out: None,
                    }),
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            let seen = items.len();
            // Animate on every core in fixed chunks, each with its own event queue.
            let step = f64::from(dt);
            let queues: Vec<EventQueue> = items
                .par_chunks_mut(JOB_CHUNK)
                .map(|chunk| {
                    let mut queue = EventQueue::default();
                    let mut base = Contributions::new();
                    for item in chunk {
                        let (transform, playback, fades, machine, layers, root, pace) =
                            &mut item.parts;
                        let parts = (
                            transform.as_deref_mut(),
                            playback.as_deref_mut(),
                            fades.as_deref_mut(),
                            machine.as_deref_mut(),
                            layers.as_deref_mut(),
                            root.as_deref_mut(),
                            *pace,
                        );
                        item.out = Some(animate(
                            &cx,
                            &mut queue,
                            item.entity,
                            item.animated,
                            item.block,
                            parts,
                            step,
                            step,
                            &mut base,
                        ));
                    }
                    queue
                })
                .collect();
            for mut queue in queues {
                events.append(&mut queue);
            }
            // Records in query order.
            for item in items {
                let Some(out) = item.out else { continue };
                if out.invalid {
                    first_error.get_or_insert_with(|| bad_motion(item.entity));
                }
                tracked[item.animated.slot as usize].record = records.len() as u32;
                records.push(out.record);
                record_entities.push(item.entity);
                record_slots.push(item.animated.slot);
            }
            seen
        };
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

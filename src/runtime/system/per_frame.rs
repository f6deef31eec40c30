//! [`Scheduling::PerFrame`](crate::runtime::Scheduling::PerFrame) updates: one pass over every animated entity of the world, which
//! also finds new entities and, by the ones it no longer meets, lost ones.

use hecs::{Entity, World};

use super::animate::{Components, FrameContext, animate};
use super::{Animated, Animator, bad_motion, track};
use crate::runtime::RuntimeError;
use crate::runtime::motion::Contributions;

impl Animator {
    /// [`crate::runtime::Scheduling::PerFrame`]: one pass over every animated entity.
    pub(super) fn update_every_entity(
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
                source: backend.clip_source(),
                data,
                masks,
                machines,
                now,
            };
            let query = world.query_mut::<(Entity, &mut Animated, Components<'_>)>();
            for (entity, animated, parts) in query {
                let block = match track(
                    cx.rigs, tracked, free_slots, palette, *frame, entity, animated,
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

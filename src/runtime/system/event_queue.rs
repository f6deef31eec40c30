//! The events updates queue, drained by the host, and scrubbing a playback (which fires the
//! events it crosses when asked).

use hecs::{Entity, World};

use super::{Animated, Animator};
use crate::runtime::RuntimeError;
use crate::runtime::events::Event;
use crate::runtime::playback::Playback;
use crate::runtime::registry::no_entity;
use crate::runtime::retarget::{Retargeted, motion_rig};

impl Animator {
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
        let (animated, playback, retargeted) = world
            .query_one_mut::<(&Animated, &mut Playback, Option<&Retargeted>)>(entity)
            .map_err(|_| no_entity(entity, "Animated and Playback"))?;
        // A retargeted entity's clip is its map's source rig's.
        let rig =
            motion_rig(self.backend.retargets(), animated.rig, retargeted).ok_or_else(|| {
                RuntimeError::InvalidComponent {
                    entity: format!("{entity:?}"),
                }
            })?;
        let data = self
            .rigs
            .get(rig as usize)
            .ok_or_else(|| RuntimeError::UnknownRig {
                rig: format!("#{rig}"),
            })?;
        let clip = playback.clip;
        let duration =
            *data
                .durations
                .get(clip as usize)
                .ok_or_else(|| RuntimeError::UnknownClip {
                    rig: format!("#{rig}"),
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
}

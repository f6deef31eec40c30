//! Per-entity time control: a [`Pace`] scales (or stops) the time of every clock an entity
//! has — its playback, cross-fades and their fade weights, state machine and blend space
//! phases, layers and their weight ramps — whatever its base is. Its records, events, root
//! motion and event-driven wake-ups follow the scaled time.

use hecs::{Entity, World};

use super::RuntimeError;
use super::registry::no_entity;
use super::system::{Animated, Animator};

/// How fast an entity's animation time runs relative to the animator's.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pace {
    /// Entity seconds per animator second (0 or more).
    pub speed: f32,
    /// A paused entity's clocks and fades do not move.
    pub paused: bool,
}

impl Default for Pace {
    fn default() -> Self {
        Self::NORMAL
    }
}

impl Pace {
    /// Speed 1, running.
    pub const NORMAL: Self = Self {
        speed: 1.0,
        paused: false,
    };

    /// Running at `speed`.
    pub const fn with_speed(speed: f32) -> Self {
        Self {
            speed,
            paused: false,
        }
    }

    /// The factor the entity's time step is scaled by: 0 while paused (or for a speed that is
    /// negative or not a number), the speed otherwise.
    pub fn rate(&self) -> f32 {
        if !self.paused && self.speed > 0.0 {
            self.speed
        } else {
            0.0
        }
    }
}

impl Animator {
    /// Sets `entity`'s [`Pace`] (adding the component if it has none) from the next update on:
    /// in [`super::Scheduling::EventDriven`] mode the entity is first brought up to the last
    /// update at its old pace. `pace.speed` must be finite and not negative.
    pub fn set_pace(
        &mut self,
        world: &mut World,
        entity: Entity,
        pace: Pace,
    ) -> Result<(), RuntimeError> {
        if !(pace.speed >= 0.0 && pace.speed.is_finite()) {
            return Err(RuntimeError::InvalidValue {
                what: "entity speed".to_string(),
                value: pace.speed,
            });
        }
        if world.get::<&Animated>(entity).is_err() {
            return Err(no_entity(entity, "Animated"));
        }
        self.catch_up(world, entity);
        let present = match world.get::<&mut Pace>(entity) {
            Ok(mut p) => {
                *p = pace;
                true
            }
            Err(_) => false,
        };
        if !present {
            world
                .insert_one(entity, pace)
                .map_err(|_| no_entity(entity, "Animated"))?;
        }
        self.touch(entity);
        Ok(())
    }

    /// Pauses `entity` (every clock and fade of it), keeping its speed.
    pub fn pause_entity(&mut self, world: &mut World, entity: Entity) -> Result<(), RuntimeError> {
        let mut pace = self.pace_of(world, entity);
        pace.paused = true;
        self.set_pace(world, entity, pace)
    }

    /// Resumes a paused `entity`.
    pub fn resume_entity(&mut self, world: &mut World, entity: Entity) -> Result<(), RuntimeError> {
        let mut pace = self.pace_of(world, entity);
        pace.paused = false;
        self.set_pace(world, entity, pace)
    }

    /// `entity`'s pace ([`Pace::NORMAL`] without the component).
    pub fn pace_of(&self, world: &World, entity: Entity) -> Pace {
        world.get::<&Pace>(entity).map_or(Pace::NORMAL, |p| *p)
    }

    /// Sets `entity`'s speed, keeping whether it is paused.
    pub fn set_entity_speed(
        &mut self,
        world: &mut World,
        entity: Entity,
        speed: f32,
    ) -> Result<(), RuntimeError> {
        let mut pace = self.pace_of(world, entity);
        pace.speed = speed;
        self.set_pace(world, entity, pace)
    }
}

//! How the crowd's characters change pace: the locomotion state machine's cross-fades (or
//! inertialized transitions), or a
//! gait blend space (idle, walk and run at their paces' speeds) whose input moves smoothly to
//! the new speed, given as a ramp (one record per region of the space crossed) or set every
//! frame (a record per frame while it moves).

use clap::ValueEnum;
use glam::Vec2;
use hecs::{Entity, World};
use sinew::runtime::{
    Animator, BlendInputRamp, BlendSpaceDef, CrossFade, InputRamp, RuntimeError, StateMachineDef,
    StateMotion,
};

use super::pace::PACES;

/// How pace changes reach the characters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Steering {
    /// The locomotion state machine: a cross-fade to the pace's clip.
    #[default]
    Machine,
    /// The locomotion state machine with inertialized transitions: a cut to the pace's clip,
    /// the pose it leaves decaying into it.
    Inertialized,
    /// The gait blend space's input, as a ramp to the new speed.
    Ramps,
    /// The gait blend space's input, set every frame until it reaches the new speed.
    Frames,
}

/// Speed units per second the gait input changes by.
pub const ACCELERATION: f32 = 1.5;

/// The gait blend space over the clips of `machine`'s `idle`, `walk` and `run` states, at the
/// speeds of the paces; `None` when a state is missing or plays no clip.
pub fn gait(machine: &StateMachineDef) -> Option<BlendSpaceDef> {
    let mut samples = Vec::new();
    for (state, speed) in ["idle", "walk", "run"].into_iter().zip(PACES) {
        let s = machine.states.iter().find(|s| s.name == state)?;
        let StateMotion::Clip(clip) = &s.motion else {
            return None;
        };
        // Two states on one clip (a rig with fewer clips) would put it twice: keep the first.
        if samples
            .iter()
            .all(|b: &sinew::runtime::BlendSample| &b.clip != clip)
        {
            samples.push(sinew::runtime::BlendSample {
                clip: clip.clone(),
                x: speed,
                y: 0.0,
            });
        }
    }
    Some(BlendSpaceDef {
        x: "speed".to_string(),
        y: None,
        samples,
    })
}

/// Gait inputs moved every frame ([`Steering::Frames`]): each moving character's speed and
/// target.
#[derive(Debug, Default)]
pub struct FrameSteering {
    moving: Vec<(Entity, f32, f32)>,
}

impl FrameSteering {
    /// Sends `entity` toward `speed` from wherever it is.
    pub fn head_for(&mut self, world: &World, entity: Entity, speed: f32) {
        match self.moving.iter_mut().find(|m| m.0 == entity) {
            Some(m) => m.2 = speed,
            None => {
                let from = current_speed(world, entity);
                self.moving.push((entity, from, speed));
            }
        }
    }

    /// Moves every moving character's input one frame of `dt` seconds on.
    pub fn step(&mut self, animator: &Animator, world: &mut World, space: u32, dt: f32) {
        self.moving.retain_mut(|(entity, speed, target)| {
            let step = ACCELERATION * dt;
            *speed = if (*target - *speed).abs() <= step {
                *target
            } else {
                *speed + step * (*target - *speed).signum()
            };
            if let Ok(mut fades) = world.get::<&mut CrossFade>(*entity) {
                fades.set_blend_input(space, Vec2::new(*speed, 0.0));
                animator.touch(*entity);
            }
            *speed != *target
        });
    }
}

/// The gait input `entity` plays now.
fn current_speed(world: &World, entity: Entity) -> f32 {
    if let Ok(ramp) = world.get::<&BlendInputRamp>(entity) {
        return ramp.input().x;
    }
    world
        .get::<&CrossFade>(entity)
        .ok()
        .and_then(|f| match f.current() {
            Some((sinew::runtime::Motion::BlendSpace { input, .. }, _)) => Some(input.x),
            _ => None,
        })
        .unwrap_or(0.0)
}

/// Sends `entity` toward `speed` from wherever it is, as a ramp ([`Steering::Ramps`]).
pub fn ramp_to(
    animator: &Animator,
    world: &mut World,
    entity: Entity,
    space: u32,
    speed: f32,
) -> Result<(), RuntimeError> {
    let from = current_speed(world, entity);
    let delta = speed - from;
    let ramp = InputRamp::new(
        Vec2::new(from, 0.0),
        Vec2::new(ACCELERATION * delta.signum(), 0.0),
        delta.abs() / ACCELERATION,
    )?;
    animator.set_blend_input_ramp(world, entity, space, ramp)
}

//! Driving characters from Bevy: [`SinewControl`] (a system parameter: play, cross-fade,
//! layers and masks, state machine parameters, blend space input, speed and pause, clip
//! events), [`SinewRootMotion`] (the root's motion moves the entity's `Transform`),
//! [`SinewSocket`] (an entity following a joint) and [`SinewEvent`] messages.
//!
//! Every method wraps the matching part of sinew's runtime on the character's entity in
//! [`SinewRuntime::world`] and touches it, so event-driven scheduling picks the change up.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use sinew::runtime::{
    ClipLayer, Clock, CrossFade, Layers, MaskSpec, Motion, Pace, Playback, RuntimeError,
    StateMachine, Value,
};

use crate::runtime::SinewRuntime;
use crate::spawn::SinewInstance;

/// Root motion: the rig's root joint (or `joint`) stops translating in the pose and moves the
/// entity's `Transform` instead. Add it with [`crate::SinewCharacter`]; while present, the
/// runtime owns that `Transform` (the entity should have no parent).
#[derive(Component, Clone, Debug, Default)]
pub struct SinewRootMotion {
    /// The joint whose motion moves the entity (`None`: the shallowest translated joint).
    pub joint: Option<String>,
    /// Move along all three axes (default: the ground plane, X and Z).
    pub vertical: bool,
    /// Turn the entity with the root's yaw too.
    pub yaw: bool,
}

/// Places its entity on a joint of `character` every frame, after the pose is evaluated and in
/// the same frame (no lag): `Transform` and `GlobalTransform` are both written, so the entity
/// should have no parent.
#[derive(Component, Clone, Debug)]
pub struct SinewSocket {
    /// The character entity.
    pub character: Entity,
    /// The joint's name.
    pub joint: String,
    /// Offset in the joint's space.
    pub offset: Transform,
}

/// An animation event a character's clip crossed this frame.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct SinewEvent {
    /// The character entity.
    pub entity: Entity,
    /// The event's name.
    pub name: String,
    /// The clip's index in its rig.
    pub clip: u32,
}

/// Why a control call failed.
#[derive(Debug, thiserror::Error)]
pub enum SinewControlError {
    /// The entity is not an instantiated character (its file may still be loading).
    #[error("entity {0} is not an instantiated sinew character")]
    NotACharacter(Entity),
    /// sinew's runtime refused the call.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

/// Drives instantiated characters.
#[derive(SystemParam)]
pub struct SinewControl<'w, 's> {
    runtime: ResMut<'w, SinewRuntime>,
    instances: Query<'w, 's, &'static SinewInstance>,
}

type Result<T> = std::result::Result<T, SinewControlError>;

impl SinewControl<'_, '_> {
    fn target(&self, entity: Entity) -> Result<SinewInstance> {
        self.instances
            .get(entity)
            .copied()
            .map_err(|_| SinewControlError::NotACharacter(entity))
    }

    /// The runtime, for the rest of sinew's API.
    pub fn runtime(&mut self) -> &mut SinewRuntime {
        &mut self.runtime
    }

    /// Plays clip `clip` from its start as the base (replacing a state machine or cross-fade).
    pub fn play(&mut self, entity: Entity, clip: &str) -> Result<()> {
        let t = self.target(entity)?;
        let rt = &mut *self.runtime;
        let playback = rt.animator.playback(t.rig, clip)?;
        rt.world.remove_one::<StateMachine>(t.entity).ok();
        rt.world.remove_one::<CrossFade>(t.entity).ok();
        rt.world.insert_one(t.entity, playback).ok();
        rt.animator.touch(t.entity);
        Ok(())
    }

    /// Cross-fades the base to clip `clip` over `seconds` (from the playing clip, or from the
    /// rest pose).
    pub fn cross_fade(&mut self, entity: Entity, clip: &str, seconds: f32) -> Result<()> {
        let t = self.target(entity)?;
        let rt = &mut *self.runtime;
        let to = rt.animator.clip(t.rig, clip)?;
        rt.world.remove_one::<StateMachine>(t.entity).ok();
        let mut fade = match rt.world.remove_one::<CrossFade>(t.entity) {
            Ok(fade) => fade,
            Err(_) => match rt.world.remove_one::<Playback>(t.entity) {
                Ok(p) => CrossFade::playing(Motion::Clip(p.clip), p.clock),
                Err(_) => CrossFade::default(),
            },
        };
        fade.fade_to(Motion::Clip(to), Clock::default(), seconds);
        rt.world.insert_one(t.entity, fade).ok();
        rt.animator.touch(t.entity);
        Ok(())
    }

    /// Sets the speed of every clock of the character (1: as authored).
    pub fn set_speed(&mut self, entity: Entity, speed: f32) -> Result<()> {
        self.set_pace(entity, |p| p.speed = speed)
    }

    /// Pauses or resumes the character.
    pub fn set_paused(&mut self, entity: Entity, paused: bool) -> Result<()> {
        self.set_pace(entity, |p| p.paused = paused)
    }

    fn set_pace(&mut self, entity: Entity, change: impl FnOnce(&mut Pace)) -> Result<()> {
        let t = self.target(entity)?;
        let rt = &mut *self.runtime;
        let mut pace = rt
            .world
            .get::<&Pace>(t.entity)
            .map(|p| *p)
            .unwrap_or_default();
        change(&mut pace);
        rt.animator.set_pace(&mut rt.world, t.entity, pace)?;
        Ok(())
    }

    /// Sets parameter `name` of the character's state machine.
    pub fn set_parameter(&mut self, entity: Entity, name: &str, value: Value) -> Result<()> {
        let t = self.target(entity)?;
        let rt = &mut *self.runtime;
        rt.animator
            .set_parameter(&mut rt.world, t.entity, name, value)?;
        Ok(())
    }

    /// Moves the input point of blend space `name` in the character's base.
    pub fn set_blend_input(&mut self, entity: Entity, name: &str, input: Vec2) -> Result<()> {
        let t = self.target(entity)?;
        let rt = &mut *self.runtime;
        let space = rt
            .spaces
            .get(&(t.rig, name.to_string()))
            .copied()
            .ok_or_else(|| RuntimeError::BadBlendSpace {
                reason: format!("no blend space {name:?} on rig #{}", t.rig),
            })?;
        if let Ok(mut fade) = rt.world.get::<&mut CrossFade>(t.entity) {
            fade.set_blend_input(space, glam::Vec2::new(input.x, input.y));
        }
        rt.animator.touch(t.entity);
        Ok(())
    }

    /// Registers mask `spec` on the character's rig (once per name) and returns its id.
    pub fn mask(&mut self, entity: Entity, spec: &MaskSpec) -> Result<u32> {
        let t = self.target(entity)?;
        let rt = &mut *self.runtime;
        if let Ok(id) = rt.animator.mask(&spec.name) {
            return Ok(id);
        }
        let id = rt.animator.add_mask(t.rig, spec)?;
        rt.fast = None;
        Ok(id)
    }

    /// Sets extra layer `index` (0: the first above the base; one past the last adds one) to
    /// clip `clip` with `weight`, masked by `mask` (from [`SinewControl::mask`]) if given.
    pub fn set_layer(
        &mut self,
        entity: Entity,
        index: usize,
        clip: &str,
        weight: f32,
        mask: Option<u32>,
    ) -> Result<()> {
        let t = self.target(entity)?;
        let rt = &mut *self.runtime;
        let clip = rt.animator.clip(t.rig, clip)?;
        let mut layer = ClipLayer::new(clip).with_weight(weight);
        if let Some(mask) = mask {
            layer = layer.with_mask(mask);
        }
        let mut layers = rt.world.remove_one::<Layers>(t.entity).unwrap_or_default();
        let result = match layers.as_mut_slice().get_mut(index) {
            Some(slot) => {
                *slot = layer;
                Ok(())
            }
            None => layers.push(layer).map(|_| ()),
        };
        rt.world.insert_one(t.entity, layers).ok();
        rt.animator.touch(t.entity);
        Ok(result?)
    }

    /// Adds event `name` at `time` seconds of clip `clip` of the character's rig (every
    /// character of the rig fires it).
    pub fn add_event(&mut self, entity: Entity, clip: &str, time: f32, name: &str) -> Result<()> {
        let t = self.target(entity)?;
        self.runtime.animator.add_event(t.rig, clip, time, name)?;
        Ok(())
    }
}

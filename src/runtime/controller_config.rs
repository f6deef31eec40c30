//! An entity's controller as stable, human-readable JSON, by name: [`ControllerConfig`]
//! (see `persistence.rs` for the animator's configuration and what both documents hold).

use std::collections::BTreeMap;

use glam::Vec2;
use hecs::{Entity, World};

use super::RuntimeError;
use super::layers::{ClipLayer, Layers};
use super::motion::Motion;
use super::parameters::{ParamId, ParameterKind, Value};
use super::persistence::{from_json, to_json};
use super::playback::{Clock, LoopMode, Playback};
use super::retarget::{RetargetConfig, Retargeted};
use super::root_motion::{RootMotion, RootTranslation};
use super::state_machine::StateMachine;
use super::system::{Animated, Animator};
use super::transform::Transform;
use super::transition::CrossFade;
use crate::instance::BlendMode;

/// One entity's animation controller.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ControllerConfig {
    /// Rig name.
    pub rig: String,
    /// What the base plays.
    #[serde(default)]
    pub base: BaseConfig,
    /// Layers above the base, bottom first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<LayerConfig>,
    /// Root motion, if extracted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_motion: Option<RootMotionConfig>,
    /// Clips played from another rig through a retarget map: the base's and layers' clips,
    /// blend spaces and state machine are that rig's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retarget: Option<RetargetConfig>,
}

/// What an entity's base plays.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BaseConfig {
    /// Nothing: the rest pose.
    #[default]
    Rest,
    /// A [`Playback`] of a clip.
    Clip {
        /// Clip name.
        clip: String,
        /// Playback speed.
        #[serde(default = "one")]
        speed: f32,
        /// Loop mode.
        #[serde(default)]
        mode: LoopMode,
    },
    /// A [`CrossFade`] playing a clip.
    CrossFade {
        /// Clip name.
        clip: String,
        /// Playback speed.
        #[serde(default = "one")]
        speed: f32,
        /// Loop mode.
        #[serde(default)]
        mode: LoopMode,
    },
    /// A [`CrossFade`] playing a stand-alone blend space.
    BlendSpace {
        /// Blend space name.
        space: String,
        /// Input point `[x, y]`.
        input: [f32; 2],
        /// Phase speed.
        #[serde(default = "one")]
        speed: f32,
        /// Loop mode.
        #[serde(default)]
        mode: LoopMode,
    },
    /// A [`StateMachine`] and the parameter values to start with (unset ones are left out).
    StateMachine {
        /// State machine name.
        machine: String,
        /// Parameter values by name.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        parameters: BTreeMap<String, Value>,
    },
}

fn one() -> f32 {
    1.0
}

/// One extra layer.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LayerConfig {
    /// Clip name.
    pub clip: String,
    /// Weight, 0 to 1.
    #[serde(default = "one")]
    pub weight: f32,
    /// Playback speed.
    #[serde(default = "one")]
    pub speed: f32,
    /// Loop mode.
    #[serde(default)]
    pub mode: LoopMode,
    /// Override or additive.
    #[serde(default)]
    pub blend: BlendMode,
    /// Mask name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<String>,
}

/// Root motion settings.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RootMotionConfig {
    /// The root joint's name.
    pub joint: String,
    /// Which translation axes move the entity.
    #[serde(default)]
    pub translation: RootTranslation,
    /// Whether yaw turns the entity.
    #[serde(default)]
    pub yaw: bool,
    /// Whether the motion accumulates on the GPU ([`RootMotion::on_gpu`]).
    #[serde(default)]
    pub gpu: bool,
}

impl ControllerConfig {
    /// Pretty-printed JSON.
    pub fn to_json(&self) -> Result<String, RuntimeError> {
        to_json(self)
    }

    /// Reads JSON written by [`ControllerConfig::to_json`] (or by hand).
    pub fn from_json(text: &str) -> Result<Self, RuntimeError> {
        from_json(text)
    }
}

impl Animator {
    /// The controller configuration of `entity`.
    pub fn controller(
        &self,
        world: &World,
        entity: Entity,
    ) -> Result<ControllerConfig, RuntimeError> {
        let missing = |component| RuntimeError::NoSuchEntity {
            entity: format!("{entity:?}"),
            component,
        };
        let rig_index = world
            .get::<&Animated>(entity)
            .map_err(|_| missing("Animated"))?
            .rig;
        let rig = self.rig_ref(rig_index)?;
        let retargeted = world.get::<&Retargeted>(entity).ok().map(|r| *r);
        // The rig whose clips the components name.
        let motion_index = self
            .motion_rig(rig_index, retargeted.as_ref())
            .ok_or_else(|| RuntimeError::InvalidComponent {
                entity: format!("{entity:?}"),
            })?;
        let motion = self.rig_ref(motion_index)?;
        let retarget = retargeted.map(|r| r.config(&motion.name));
        let clip_name = |clip: u32| {
            motion
                .clips
                .clips()
                .get(clip as usize)
                .map(|c| c.name.clone())
                .ok_or_else(|| RuntimeError::UnknownClip {
                    rig: motion.name.clone(),
                    clip: format!("#{clip}"),
                })
        };
        let base = if let Ok(sm) = world.get::<&StateMachine>(entity) {
            let def = self.state_machine_def(sm.machine())?;
            let parameters = def
                .parameters
                .iter()
                .enumerate()
                .filter(|(_, p)| p.kind != ParameterKind::Trigger)
                .filter_map(|(i, p)| {
                    let value = sm.params().get(ParamId(i as u16))?;
                    Some((p.name.clone(), value))
                })
                .collect();
            BaseConfig::StateMachine {
                machine: def.name.clone(),
                parameters,
            }
        } else if let Ok(fades) = world.get::<&CrossFade>(entity) {
            match fades.current() {
                None => BaseConfig::Rest,
                Some((Motion::Clip(clip), clock)) => BaseConfig::CrossFade {
                    clip: clip_name(*clip)?,
                    speed: clock.speed,
                    mode: clock.mode,
                },
                Some((Motion::BlendSpace { space, input }, clock)) => {
                    let named = self
                        .spaces
                        .iter()
                        .find(|s| s.rig == motion_index && s.index == *space)
                        .ok_or_else(|| RuntimeError::BadBlendSpace {
                            reason: format!("blend space #{space} has no name to save"),
                        })?;
                    BaseConfig::BlendSpace {
                        space: named.name.clone(),
                        input: input.to_array(),
                        speed: clock.speed,
                        mode: clock.mode,
                    }
                }
            }
        } else if let Ok(p) = world.get::<&Playback>(entity) {
            BaseConfig::Clip {
                clip: clip_name(p.clip)?,
                speed: p.clock.speed,
                mode: p.clock.mode,
            }
        } else {
            BaseConfig::Rest
        };
        let layers = match world.get::<&Layers>(entity) {
            Ok(layers) => layers
                .as_slice()
                .iter()
                .map(|l| {
                    Ok(LayerConfig {
                        clip: clip_name(l.playback.clip)?,
                        weight: l.weight,
                        speed: l.playback.clock.speed,
                        mode: l.playback.clock.mode,
                        blend: l.mode,
                        mask: match l.mask {
                            Some(m) => Some(
                                self.masks
                                    .get(m as usize)
                                    .ok_or_else(|| RuntimeError::UnknownMask {
                                        mask: format!("#{m}"),
                                    })?
                                    .spec
                                    .name
                                    .clone(),
                            ),
                            None => None,
                        },
                    })
                })
                .collect::<Result<Vec<_>, RuntimeError>>()?,
            Err(_) => Vec::new(),
        };
        let root_motion = match world.get::<&RootMotion>(entity) {
            Ok(r) => Some(RootMotionConfig {
                joint: rig
                    .skeleton
                    .names()
                    .get(r.joint as usize)
                    .cloned()
                    .ok_or_else(|| RuntimeError::UnknownJoint {
                        rig: rig.name.clone(),
                        joint: format!("#{}", r.joint),
                    })?,
                translation: r.translation,
                yaw: r.yaw,
                gpu: r.is_on_gpu(),
            }),
            Err(_) => None,
        };
        Ok(ControllerConfig {
            rig: rig.name.clone(),
            base,
            layers,
            root_motion,
            retarget,
        })
    }

    /// Gives `entity` the components `config` describes (fresh clocks, no fades in flight),
    /// replacing its animation components; it keeps its [`Transform`] (or gets one).
    pub fn apply_controller(
        &self,
        world: &mut World,
        entity: Entity,
        config: &ControllerConfig,
    ) -> Result<(), RuntimeError> {
        if !world.contains(entity) {
            return Err(RuntimeError::NoSuchEntity {
                entity: format!("{entity:?}"),
                component: "any",
            });
        }
        let rig = self.rig(&config.rig)?;
        // The components name clips, blend spaces and state machines of `motion`.
        let (motion, retargeted) = self.retargeted_from(rig, config.retarget.as_ref())?;
        let motion_name = self.rig_ref(motion)?.name.clone();
        let mut layers = Layers::new();
        for l in &config.layers {
            let mut layer = ClipLayer::new(self.clip(motion, &l.clip)?)
                .with_weight(l.weight)
                .with_speed(l.speed)
                .with_loop_mode(l.mode);
            layer.mode = l.blend;
            if let Some(mask) = &l.mask {
                layer.mask = Some(self.mask(mask)?);
            }
            layers.push(layer)?;
        }
        let root = match &config.root_motion {
            Some(r) => {
                let root = self.root_motion(rig, &r.joint, r.translation, r.yaw)?;
                Some(if r.gpu { root.on_gpu() } else { root })
            }
            None => None,
        };
        let clock = |speed: f32, mode: LoopMode| Clock::new(mode).with_speed(speed);
        // Build the base before touching the world, so a bad configuration changes nothing.
        enum Base {
            Rest,
            Playback(Playback),
            Fades(Box<CrossFade>),
            Machine(Box<StateMachine>),
        }
        let base = match &config.base {
            BaseConfig::Rest => Base::Rest,
            BaseConfig::Clip { clip, speed, mode } => Base::Playback(
                Playback::new(self.clip(motion, clip)?)
                    .with_speed(*speed)
                    .with_mode(*mode),
            ),
            BaseConfig::CrossFade { clip, speed, mode } => Base::Fades(Box::new(
                CrossFade::playing(Motion::Clip(self.clip(motion, clip)?), clock(*speed, *mode)),
            )),
            BaseConfig::BlendSpace {
                space,
                input,
                speed,
                mode,
            } => {
                let named = self
                    .spaces
                    .iter()
                    .find(|s| s.name == *space && s.rig == motion)
                    .ok_or_else(|| RuntimeError::BadBlendSpace {
                        reason: format!("no blend space named {space:?} for rig {motion_name:?}"),
                    })?;
                Base::Fades(Box::new(CrossFade::playing(
                    Motion::BlendSpace {
                        space: named.index,
                        input: Vec2::from_array(*input),
                    },
                    clock(*speed, *mode),
                )))
            }
            BaseConfig::StateMachine {
                machine,
                parameters,
            } => {
                let id = self.state_machine_id(machine)?;
                let mut sm = self.state_machine(id)?;
                for (name, value) in parameters {
                    let p = self.parameter(id, name)?;
                    sm.params_mut()
                        .set(p, *value)
                        .map_err(|_| RuntimeError::ParameterType {
                            parameter: name.clone(),
                            expected: sm.params().kind(p).map_or("parameter", ParameterKind::name),
                            found: format!("{value:?}"),
                        })?;
                }
                Base::Machine(Box::new(sm))
            }
        };
        // Replace: drop the old animation components, then insert the new ones.
        let _ = world.remove_one::<Playback>(entity);
        let _ = world.remove_one::<CrossFade>(entity);
        let _ = world.remove_one::<StateMachine>(entity);
        let _ = world.remove_one::<Layers>(entity);
        let _ = world.remove_one::<RootMotion>(entity);
        let _ = world.remove_one::<Retargeted>(entity);
        let inserted = |result: Result<(), hecs::NoSuchEntity>| {
            result.map_err(|_| RuntimeError::NoSuchEntity {
                entity: format!("{entity:?}"),
                component: "any",
            })
        };
        inserted(world.insert_one(entity, Animated::new(rig)))?;
        if world.get::<&Transform>(entity).is_err() {
            inserted(world.insert_one(entity, Transform::IDENTITY))?;
        }
        inserted(match base {
            Base::Rest => Ok(()),
            Base::Playback(p) => world.insert_one(entity, p),
            Base::Fades(f) => world.insert_one(entity, *f),
            Base::Machine(sm) => world.insert_one(entity, *sm),
        })?;
        if !layers.is_empty() {
            inserted(world.insert_one(entity, layers))?;
        }
        if let Some(root) = root {
            inserted(world.insert_one(entity, root))?;
        }
        if let Some(r) = retargeted {
            inserted(world.insert_one(entity, r))?;
        }
        Ok(())
    }
}

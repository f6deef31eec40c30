//! What an [`Animator`] knows, registered once and looked up by name: rigs and their clips and
//! joints, masks, stand-alone blend spaces, state machines and clip events — and constructors
//! for the components that refer to them, which turn names into the indices the per-frame
//! system uses (unknown names are typed errors here, not surprises in the update).

use glam::Vec2;
use hecs::{Entity, World};

use super::RuntimeError;
use super::blend_space::{BlendSpace, BlendSpaceDef};
use super::events::ClipEvents;
use super::layers::MaskSpec;
use super::motion::{Motion, MotionContext};
use super::parameters::{ParamId, Value};
use super::playback::{Clock, Playback};
use super::root_motion::RootMotion;
use super::state_machine::{CompiledMachine, StateMachine, StateMachineDef};
use super::sync_markers::ClipMarkers;
use super::system::Animator;
use super::transition::CrossFade;
use crate::baked::{NO_PARENT, Rig};

/// What the animator keeps per rig besides the rig itself.
#[derive(Clone, Debug, Default)]
pub(crate) struct RigData {
    /// Duration of each clip, seconds.
    pub durations: Vec<f32>,
    /// Blend spaces over its clips (stand-alone ones and those of its state machines).
    pub spaces: Vec<BlendSpace>,
    /// Events of each clip.
    pub events: Vec<ClipEvents>,
    /// Sync markers of each clip.
    pub markers: Vec<ClipMarkers>,
    /// The model-space frame of root motion for each joint as the root
    /// ([`crate::cpu::RootFrame::table`]).
    pub root_frames: Vec<crate::cpu::RootFrame>,
}

/// A registered mask: its definition and rig (the weights live in the CPU backend's table).
#[derive(Clone, Debug)]
pub(crate) struct MaskEntry {
    pub spec: MaskSpec,
    pub rig: u32,
}

/// A named stand-alone blend space.
#[derive(Clone, Debug)]
pub(crate) struct NamedSpace {
    pub name: String,
    pub rig: u32,
    pub index: u32,
    pub def: BlendSpaceDef,
}

impl Animator {
    /// Index of the rig named `name`.
    pub fn rig(&self, name: &str) -> Result<u32, RuntimeError> {
        self.rigs()
            .iter()
            .position(|r| r.name == name)
            .map(|i| i as u32)
            .ok_or_else(|| RuntimeError::UnknownRig {
                rig: name.to_string(),
            })
    }

    pub(crate) fn rig_ref(&self, rig: u32) -> Result<&Rig, RuntimeError> {
        self.rigs()
            .get(rig as usize)
            .ok_or_else(|| RuntimeError::UnknownRig {
                rig: format!("#{rig}"),
            })
    }

    /// Index of clip `name` of rig `rig`.
    pub fn clip(&self, rig: u32, name: &str) -> Result<u32, RuntimeError> {
        let r = self.rig_ref(rig)?;
        r.clips
            .find_clip(name)
            .map(|c| c as u32)
            .ok_or_else(|| RuntimeError::UnknownClip {
                rig: r.name.clone(),
                clip: name.to_string(),
            })
    }

    /// Index of joint `name` of rig `rig`.
    pub fn joint(&self, rig: u32, name: &str) -> Result<u16, RuntimeError> {
        let r = self.rig_ref(rig)?;
        r.skeleton
            .find_joint(name)
            .map(|j| j as u16)
            .ok_or_else(|| RuntimeError::UnknownJoint {
                rig: r.name.clone(),
                joint: name.to_string(),
            })
    }

    /// Registers a mask for rig `rig` and returns its index (for [`crate::runtime::ClipLayer::mask`]).
    pub fn add_mask(&mut self, rig: u32, spec: &MaskSpec) -> Result<u32, RuntimeError> {
        if self.masks.iter().any(|m| m.spec.name == spec.name) {
            return Err(RuntimeError::DuplicateName {
                what: "mask",
                name: spec.name.clone(),
            });
        }
        let r = self.rig_ref(rig)?;
        let mask = spec.to_joint_mask(&r.skeleton, &r.name)?;
        self.masks.push(MaskEntry {
            spec: spec.clone(),
            rig,
        });
        Ok(self.backend.add_mask(mask))
    }

    /// Index of the mask named `name`.
    pub fn mask(&self, name: &str) -> Result<u32, RuntimeError> {
        self.masks
            .iter()
            .position(|m| m.spec.name == name)
            .map(|i| i as u32)
            .ok_or_else(|| RuntimeError::UnknownMask {
                mask: name.to_string(),
            })
    }

    /// Registers a stand-alone blend space `name` for rig `rig` (its axis parameter names are
    /// not used: set the input on the [`CrossFade`]) and returns its index on that rig.
    pub fn add_blend_space(
        &mut self,
        rig: u32,
        name: &str,
        def: &BlendSpaceDef,
    ) -> Result<u32, RuntimeError> {
        if self.spaces.iter().any(|s| s.name == name) {
            return Err(RuntimeError::DuplicateName {
                what: "blend space",
                name: name.to_string(),
            });
        }
        let space = BlendSpace::from_def(def, self.rig_ref(rig)?, None)?;
        let spaces = &mut self.rigs[rig as usize].spaces;
        spaces.push(space);
        let index = (spaces.len() - 1) as u32;
        self.spaces.push(NamedSpace {
            name: name.to_string(),
            rig,
            index,
            def: def.clone(),
        });
        Ok(index)
    }

    /// Index (on its rig) of the stand-alone blend space named `name`.
    pub fn blend_space(&self, name: &str) -> Result<u32, RuntimeError> {
        self.spaces
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.index)
            .ok_or_else(|| RuntimeError::BadBlendSpace {
                reason: format!("no blend space named {name:?}"),
            })
    }

    /// Blend space `space` of rig `rig`.
    pub fn blend_space_ref(&self, rig: u32, space: u32) -> Option<&BlendSpace> {
        self.rigs.get(rig as usize)?.spaces.get(space as usize)
    }

    /// Validates `def` against rig `rig` and registers it; returns its index.
    pub fn add_state_machine(
        &mut self,
        rig: u32,
        def: &StateMachineDef,
    ) -> Result<u32, RuntimeError> {
        if self.machines.iter().any(|m| m.def.name == def.name) {
            return Err(RuntimeError::DuplicateName {
                what: "state machine",
                name: def.name.clone(),
            });
        }
        let r = self
            .backend
            .rigs()
            .get(rig as usize)
            .ok_or_else(|| RuntimeError::UnknownRig {
                rig: format!("#{rig}"),
            })?;
        let machine = CompiledMachine::compile(def, rig, r, &mut self.rigs[rig as usize].spaces)?;
        self.machines.push(machine);
        Ok((self.machines.len() - 1) as u32)
    }

    /// Index of the state machine named `name`.
    pub fn state_machine_id(&self, name: &str) -> Result<u32, RuntimeError> {
        self.machines
            .iter()
            .position(|m| m.def.name == name)
            .map(|i| i as u32)
            .ok_or_else(|| RuntimeError::UnknownStateMachine {
                machine: name.to_string(),
            })
    }

    pub(crate) fn machine_ref(&self, machine: u32) -> Result<&CompiledMachine, RuntimeError> {
        self.machines
            .get(machine as usize)
            .ok_or_else(|| RuntimeError::UnknownStateMachine {
                machine: format!("#{machine}"),
            })
    }

    /// A new [`StateMachine`] component for state machine `machine`, in its initial state.
    pub fn state_machine(&self, machine: u32) -> Result<StateMachine, RuntimeError> {
        let m = self.machine_ref(machine)?;
        let data = &self.rigs[m.rig as usize];
        Ok(m.instantiate(machine, &context(data)))
    }

    /// The definition of state machine `machine`.
    pub fn state_machine_def(&self, machine: u32) -> Result<&StateMachineDef, RuntimeError> {
        Ok(&self.machine_ref(machine)?.def)
    }

    /// Parameter `name` of state machine `machine`.
    pub fn parameter(&self, machine: u32, name: &str) -> Result<ParamId, RuntimeError> {
        self.machine_ref(machine)?.parameter(name)
    }

    /// Index of state `name` of state machine `machine`.
    pub fn state(&self, machine: u32, name: &str) -> Result<u16, RuntimeError> {
        self.machine_ref(machine)?.state(name)
    }

    /// Name of state `state` of state machine `machine`.
    pub fn state_name(&self, machine: u32, state: u16) -> Option<&str> {
        let m = self.machines.get(machine as usize)?;
        m.def.states.get(state as usize).map(|s| s.name.as_str())
    }

    /// Sets parameter `name` of `entity`'s state machine.
    pub fn set_parameter(
        &self,
        world: &mut World,
        entity: Entity,
        name: &str,
        value: Value,
    ) -> Result<(), RuntimeError> {
        let sm = world
            .query_one_mut::<&mut StateMachine>(entity)
            .map_err(|_| no_entity(entity, "StateMachine"))?;
        let m = self.machine_ref(sm.machine())?;
        let id = m.parameter(name)?;
        self.touch(entity);
        sm.params_mut().set(id, value).map_err(|e| match e {
            RuntimeError::ParameterType {
                expected, found, ..
            } => RuntimeError::ParameterType {
                parameter: name.to_string(),
                expected,
                found,
            },
            other => other,
        })
    }

    /// Places event `name` at `time` seconds of clip `clip` of rig `rig`.
    pub fn add_event(
        &mut self,
        rig: u32,
        clip: &str,
        time: f32,
        name: &str,
    ) -> Result<(), RuntimeError> {
        let (c, id) = self.clip_point(rig, clip, time, "event", name)?;
        self.rigs[rig as usize].events[c].insert(time, id);
        Ok(())
    }

    /// The index of clip `clip` of rig `rig` and the id of `name` in the name table, for a
    /// `what` (an event, a sync marker) named `name` at `time` of the clip; an error when the
    /// time lies outside the clip.
    pub(crate) fn clip_point(
        &mut self,
        rig: u32,
        clip: &str,
        time: f32,
        what: &str,
        name: &str,
    ) -> Result<(usize, u32), RuntimeError> {
        let c = self.clip(rig, clip)? as usize;
        let duration = self.rigs[rig as usize].durations[c];
        if !(0.0..=duration).contains(&time) {
            return Err(RuntimeError::InvalidValue {
                what: format!("{what} {name:?} time on clip {clip:?} ({duration} s long)"),
                value: time,
            });
        }
        Ok((c, self.events.intern(name)))
    }

    /// Every event of rig `rig` as `(clip, time, name)`.
    pub(crate) fn event_list(&self, rig: u32) -> Vec<(u32, f32, &str)> {
        let Some(data) = self.rigs.get(rig as usize) else {
            return Vec::new();
        };
        data.events
            .iter()
            .enumerate()
            .flat_map(|(c, e)| e.iter().map(move |(t, n)| (c as u32, t, n)))
            .map(|(c, t, n)| (c, t, self.events.name(n)))
            .collect()
    }

    /// A [`Playback`] of clip `name` of rig `rig` (looping, speed 1).
    pub fn playback(&self, rig: u32, name: &str) -> Result<Playback, RuntimeError> {
        Ok(Playback::new(self.clip(rig, name)?))
    }

    /// A [`CrossFade`] playing clip `name` of rig `rig`.
    pub fn cross_fade(&self, rig: u32, name: &str) -> Result<CrossFade, RuntimeError> {
        Ok(CrossFade::playing(
            Motion::Clip(self.clip(rig, name)?),
            Clock::default(),
        ))
    }

    /// A [`CrossFade`] playing stand-alone blend space `space` of rig `rig` at `input`.
    pub fn blend_space_fade(
        &self,
        rig: u32,
        space: u32,
        input: Vec2,
    ) -> Result<CrossFade, RuntimeError> {
        if self.blend_space_ref(rig, space).is_none() {
            return Err(RuntimeError::BadBlendSpace {
                reason: format!("rig #{rig} has no blend space #{space}"),
            });
        }
        Ok(CrossFade::playing(
            Motion::BlendSpace { space, input },
            Clock::default(),
        ))
    }

    /// A [`RootMotion`] of joint `joint` of rig `rig`.
    pub fn root_motion(
        &self,
        rig: u32,
        joint: &str,
        translation: super::RootTranslation,
        yaw: bool,
    ) -> Result<RootMotion, RuntimeError> {
        Ok(RootMotion::new(self.joint(rig, joint)?, translation, yaw))
    }

    /// The joint root motion usually follows: the shallowest joint that some clip translates
    /// (glTF rigs often sit under static, non-joint ancestors, which never move), or the first
    /// root when no clip translates any joint.
    pub fn root_joint(&self, rig: u32) -> Result<u16, RuntimeError> {
        let r = self.rig_ref(rig)?;
        let translated = (0..r.joint_count()).find(|&j| {
            (0..r.clips.clip_count())
                .any(|c| r.clips.is_animated(c, j, crate::Channel::Translation))
        });
        let first_root = r.skeleton.parents().iter().position(|&p| p == NO_PARENT);
        Ok(translated.or(first_root).unwrap_or(0) as u16)
    }
}

/// The motion context of a rig.
pub(crate) fn context(data: &RigData) -> MotionContext<'_> {
    MotionContext {
        durations: &data.durations,
        spaces: &data.spaces,
        markers: &data.markers,
    }
}

pub(crate) fn no_entity(entity: Entity, component: &'static str) -> RuntimeError {
    RuntimeError::NoSuchEntity {
        entity: format!("{entity:?}"),
        component,
    }
}

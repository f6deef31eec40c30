//! Saving and loading the runtime's configuration as stable, human-readable JSON.
//!
//! Two documents, both referring to rigs, clips, joints, masks, blend spaces and state machines
//! **by name** (so they survive re-baking a rig):
//!
//! - [`AnimatorConfig`]: what is registered in an [`Animator`] — masks (by joint names),
//!   stand-alone blend spaces, state machine definitions, clip events and sync markers, and
//!   retarget maps (by joint names, with the corrections they were built with);
//! - [`super::ControllerConfig`] (`controller_config.rs`): one entity's controller — its rig, its base (a clip, a blend space or
//!   a state machine with its parameter values), its extra layers, its root motion and the rig
//!   it plays clips of through a retarget map ([`super::Retargeted`]).
//!
//! These documents hold configuration only: a controller applied from one starts afresh (clock
//! times at 0, no fades in flight, the initial state). The runtime *state* — clock times, fades
//! in flight, current states, pending triggers, schedules — is saved and restored exactly by a
//! [`super::RuntimeSnapshot`] (`snapshot.rs`). Output is
//! `serde_json` pretty-printed with fields in declaration order, so saving the same
//! configuration twice gives the same text.

use super::RuntimeError;
use super::blend_space::BlendSpaceDef;
use super::events::EventDef;
use super::layers::MaskSpec;
use super::retarget::RetargetMapConfig;
use super::state_machine::StateMachineDef;
use super::system::Animator;

/// Everything registered in an [`Animator`], by name.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AnimatorConfig {
    /// Layer masks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masks: Vec<MaskConfig>,
    /// Stand-alone blend spaces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blend_spaces: Vec<BlendSpaceConfig>,
    /// State machine definitions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub state_machines: Vec<StateMachineConfig>,
    /// Clip events.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventConfig>,
    /// Clip sync markers (an event's fields: clip, time, name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sync_markers: Vec<EventConfig>,
    /// Retarget maps, in registration order (records and controllers name them by it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retarget_maps: Vec<RetargetMapConfig>,
}

/// A mask and the rig it is for.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MaskConfig {
    /// Rig name.
    pub rig: String,
    /// The mask.
    #[serde(flatten)]
    pub mask: MaskSpec,
}

/// A named stand-alone blend space and its rig.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BlendSpaceConfig {
    /// Rig name.
    pub rig: String,
    /// The blend space's name.
    pub name: String,
    /// The blend space.
    #[serde(flatten)]
    pub space: BlendSpaceDef,
}

/// A state machine definition and its rig.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StateMachineConfig {
    /// Rig name.
    pub rig: String,
    /// The definition.
    #[serde(flatten)]
    pub machine: StateMachineDef,
}

/// A clip event and its rig.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EventConfig {
    /// Rig name.
    pub rig: String,
    /// The event.
    #[serde(flatten)]
    pub event: EventDef,
}

impl AnimatorConfig {
    /// Pretty-printed JSON.
    pub fn to_json(&self) -> Result<String, RuntimeError> {
        to_json(self)
    }

    /// Reads JSON written by [`AnimatorConfig::to_json`] (or by hand).
    pub fn from_json(text: &str) -> Result<Self, RuntimeError> {
        from_json(text)
    }
}

pub(super) fn to_json<T: serde::Serialize>(value: &T) -> Result<String, RuntimeError> {
    serde_json::to_string_pretty(value).map_err(|e| RuntimeError::Parse {
        reason: e.to_string(),
    })
}

pub(super) fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, RuntimeError> {
    serde_json::from_str(text).map_err(|e| RuntimeError::Parse {
        reason: e.to_string(),
    })
}

impl Animator {
    /// Everything registered, by name, in registration order.
    pub fn config(&self) -> AnimatorConfig {
        let rig_name = |rig: u32| self.rigs()[rig as usize].name.clone();
        AnimatorConfig {
            masks: self
                .masks
                .iter()
                .map(|m| MaskConfig {
                    rig: rig_name(m.rig),
                    mask: m.spec.clone(),
                })
                .collect(),
            blend_spaces: self
                .spaces
                .iter()
                .map(|s| BlendSpaceConfig {
                    rig: rig_name(s.rig),
                    name: s.name.clone(),
                    space: s.def.clone(),
                })
                .collect(),
            state_machines: self
                .machines
                .iter()
                .map(|m| StateMachineConfig {
                    rig: rig_name(m.rig),
                    machine: m.def.clone(),
                })
                .collect(),
            events: (0..self.rigs().len() as u32)
                .flat_map(|rig| {
                    self.event_list(rig)
                        .into_iter()
                        .map(move |(clip, time, name)| (rig, clip, time, name))
                })
                .map(|(rig, clip, time, name)| EventConfig {
                    rig: rig_name(rig),
                    event: EventDef {
                        clip: self.rigs()[rig as usize].clips.clips()[clip as usize]
                            .name
                            .clone(),
                        time,
                        name: name.to_string(),
                    },
                })
                .collect(),
            sync_markers: (0..self.rigs().len())
                .flat_map(|rig| {
                    self.rigs[rig]
                        .markers
                        .iter()
                        .enumerate()
                        .flat_map(move |(c, m)| m.iter().map(move |(t, n)| (rig, c, t, n)))
                })
                .map(|(rig, clip, time, name)| EventConfig {
                    rig: rig_name(rig as u32),
                    event: EventDef {
                        clip: self.rigs()[rig].clips.clips()[clip].name.clone(),
                        time,
                        name: self.events.name(name).to_string(),
                    },
                })
                .collect(),
            retarget_maps: self.retarget_map_configs(),
        }
    }

    /// Registers everything in `config`: masks, blend spaces, state machines, events, sync
    /// markers, then retarget maps (after those already registered). Stops at the first invalid
    /// entry (those before it stay registered).
    pub fn load_config(&mut self, config: &AnimatorConfig) -> Result<(), RuntimeError> {
        for m in &config.masks {
            let rig = self.rig(&m.rig)?;
            self.add_mask(rig, &m.mask)?;
        }
        for s in &config.blend_spaces {
            let rig = self.rig(&s.rig)?;
            self.add_blend_space(rig, &s.name, &s.space)?;
        }
        for m in &config.state_machines {
            let rig = self.rig(&m.rig)?;
            self.add_state_machine(rig, &m.machine)?;
        }
        for e in &config.events {
            let rig = self.rig(&e.rig)?;
            self.add_event(rig, &e.event.clip, e.event.time, &e.event.name)?;
        }
        for m in &config.sync_markers {
            let rig = self.rig(&m.rig)?;
            self.add_sync_marker(rig, &m.event.clip, m.event.time, &m.event.name)?;
        }
        for m in &config.retarget_maps {
            self.load_retarget_map(m)?;
        }
        Ok(())
    }
}

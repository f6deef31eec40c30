//! A state machine as data ([`StateMachineDef`]): states, parameters and transitions, built in
//! code or read from JSON, validated when registered.

use crate::runtime::blend_space::BlendSpaceDef;
use crate::runtime::parameters::{Condition, ParameterDef};
use crate::runtime::playback::LoopMode;

/// A state machine as data.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StateMachineDef {
    /// Its name, unique among the animator's state machines.
    pub name: String,
    /// Its parameters.
    #[serde(default)]
    pub parameters: Vec<ParameterDef>,
    /// Its states; the first is the initial state unless `initial` names another.
    pub states: Vec<StateDef>,
    /// The state entities start in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<String>,
    /// Its transitions, highest priority first.
    #[serde(default)]
    pub transitions: Vec<TransitionDef>,
}

/// One state.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StateDef {
    /// Its name, unique in the state machine.
    pub name: String,
    /// What it plays.
    pub motion: StateMotion,
    /// Playback speed (negative plays backwards).
    #[serde(default = "one")]
    pub speed: f32,
    /// What the clock does at the ends.
    #[serde(default)]
    pub mode: LoopMode,
}

fn one() -> f32 {
    1.0
}

/// What a state plays.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StateMotion {
    /// A clip, by name.
    Clip(String),
    /// A blend space whose axes read parameters of the state machine.
    BlendSpace(BlendSpaceDef),
}

/// One transition.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TransitionDef {
    /// The source state; absent for an any-state transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The target state.
    pub to: String,
    /// Cross-fade duration in seconds (0: a cut).
    #[serde(default)]
    pub duration: f32,
    /// Conditions, all of which must hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Normalized time in the source state before the transition may fire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_time: Option<f32>,
    /// Whether the target starts in phase with the source: from two motions with sync markers
    /// (clips, or blend spaces warped by them), at the same point between the same markers
    /// ([`crate::runtime::ClipMarkers`]), else at the source's normalized time; two clips with
    /// markers then stay in phase for the fade ([`crate::runtime::CrossFade::fade_to_in_phase`]).
    /// Off: the target starts at its beginning.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sync: bool,
    /// Whether the transition is inertialized instead of cross-faded: it cuts to the target and
    /// the pose it leaves decays into it over `duration` ([`crate::Inertialization`]), so only
    /// the target is sampled.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inertialized: bool,
}

impl StateMachineDef {
    /// An empty definition named `name`.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_string(),
            parameters: Vec::new(),
            states: Vec::new(),
            initial: None,
            transitions: Vec::new(),
        }
    }

    /// Adds a parameter.
    pub fn parameter(mut self, def: ParameterDef) -> Self {
        self.parameters.push(def);
        self
    }

    /// Adds a state playing clip `clip`, looping at speed 1.
    pub fn clip_state(mut self, name: &str, clip: &str) -> Self {
        self.states.push(StateDef {
            name: name.to_string(),
            motion: StateMotion::Clip(clip.to_string()),
            speed: 1.0,
            mode: LoopMode::Loop,
        });
        self
    }

    /// Adds a state.
    pub fn state(mut self, state: StateDef) -> Self {
        self.states.push(state);
        self
    }

    /// Adds a transition (after, so at lower priority than, those added before).
    pub fn transition(mut self, transition: TransitionDef) -> Self {
        self.transitions.push(transition);
        self
    }
}

impl TransitionDef {
    /// An unconditional transition from `from` to `to` that cuts.
    pub fn new(from: &str, to: &str) -> Self {
        Self {
            from: Some(from.to_string()),
            to: to.to_string(),
            duration: 0.0,
            conditions: Vec::new(),
            exit_time: None,
            sync: false,
            inertialized: false,
        }
    }

    /// An unconditional any-state transition to `to` that cuts.
    pub fn from_any(to: &str) -> Self {
        Self {
            from: None,
            ..Self::new("", to)
        }
    }

    /// The same transition fading over `seconds`.
    pub fn fade(mut self, seconds: f32) -> Self {
        self.duration = seconds;
        self
    }

    /// The same transition with one more condition.
    pub fn when(mut self, condition: Condition) -> Self {
        self.conditions.push(condition);
        self
    }

    /// The same transition waiting for normalized time `exit_time` in its source state.
    pub fn after(mut self, exit_time: f32) -> Self {
        self.exit_time = Some(exit_time);
        self
    }

    /// The same transition starting its target in phase with its source
    /// ([`TransitionDef::sync`]).
    pub fn synced(mut self) -> Self {
        self.sync = true;
        self
    }

    /// The same transition inertialized over its duration instead of cross-faded
    /// ([`TransitionDef::inertialized`]).
    pub fn inertialize(mut self) -> Self {
        self.inertialized = true;
        self
    }
}

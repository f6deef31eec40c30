//! What the animation runtime refuses, and why.

use std::fmt;

use crate::error::EvalError;

/// A runtime call was given a name, index, value or definition it cannot use.
#[derive(Clone, Debug, PartialEq)]
pub enum RuntimeError {
    /// A rig index or name that the animator does not have.
    UnknownRig {
        /// The index or name asked for.
        rig: String,
    },
    /// A clip name or index that the rig does not have.
    UnknownClip {
        /// The rig's name.
        rig: String,
        /// The clip asked for.
        clip: String,
    },
    /// A clip whose duration is zero, negative or not finite: it cannot be looped or timed.
    ZeroLengthClip {
        /// The rig's name.
        rig: String,
        /// The clip's name.
        clip: String,
    },
    /// A joint name that the rig's skeleton does not have.
    UnknownJoint {
        /// The rig's name.
        rig: String,
        /// The joint asked for.
        joint: String,
    },
    /// A mask name or index that was never registered (or was registered for another rig).
    UnknownMask {
        /// The mask asked for.
        mask: String,
    },
    /// A state machine name or index that was never registered.
    UnknownStateMachine {
        /// The state machine asked for.
        machine: String,
    },
    /// A parameter name that the state machine does not declare.
    UnknownParameter {
        /// The state machine's name.
        machine: String,
        /// The parameter asked for.
        parameter: String,
    },
    /// A parameter was set, or compared, with a value of the wrong type.
    ParameterType {
        /// The parameter's name.
        parameter: String,
        /// The parameter's declared type.
        expected: &'static str,
        /// What it was given.
        found: String,
    },
    /// A state name that the state machine does not declare.
    UnknownState {
        /// The state machine's name.
        machine: String,
        /// The state asked for.
        state: String,
    },
    /// A state machine definition without states.
    EmptyStateMachine {
        /// The state machine's name.
        machine: String,
    },
    /// Two objects of one kind share a name where names must be unique.
    DuplicateName {
        /// What kind of object (state, parameter, mask, state machine).
        what: &'static str,
        /// The repeated name.
        name: String,
    },
    /// More parameters in one state machine than [`crate::runtime::MAX_PARAMETERS`].
    TooManyParameters {
        /// The state machine's name.
        machine: String,
        /// How many it declares.
        count: usize,
    },
    /// More layers than an instance record holds ([`crate::MAX_LAYERS`], one kept for the base).
    TooManyLayers {
        /// How many were asked for.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A blend space that cannot be built: too few samples, duplicate or collinear positions.
    BadBlendSpace {
        /// Why it is unusable.
        reason: String,
    },
    /// A number outside its allowed range (a negative fade duration, a NaN time step...).
    InvalidValue {
        /// What the number is.
        what: String,
        /// The value given.
        value: f32,
    },
    /// An entity that does not exist or lacks the component the call needs.
    NoSuchEntity {
        /// The entity, as hecs prints it.
        entity: String,
        /// The component that was needed.
        component: &'static str,
    },
    /// An entity's component names a clip, mask, blend space or state machine that does not
    /// exist for the entity's rig (the entity is skipped or plays nothing there).
    InvalidComponent {
        /// The entity, as hecs prints it.
        entity: String,
    },
    /// The palette would outgrow `u32` entries.
    PaletteFull,
    /// Saved configuration text that is not valid (bad JSON or a shape that does not match).
    Parse {
        /// The parser's message.
        reason: String,
    },
    /// The CPU evaluator refused the records.
    Eval(EvalError),
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownRig { rig } => write!(f, "rig {rig} does not exist"),
            Self::UnknownClip { rig, clip } => write!(f, "rig {rig} has no clip {clip}"),
            Self::ZeroLengthClip { rig, clip } => {
                write!(f, "clip {clip:?} of rig {rig} has zero length")
            }
            Self::UnknownJoint { rig, joint } => write!(f, "rig {rig} has no joint {joint:?}"),
            Self::UnknownMask { mask } => write!(f, "mask {mask} is not registered"),
            Self::UnknownStateMachine { machine } => {
                write!(f, "state machine {machine} is not registered")
            }
            Self::UnknownParameter { machine, parameter } => {
                write!(
                    f,
                    "state machine {machine:?} has no parameter {parameter:?}"
                )
            }
            Self::ParameterType {
                parameter,
                expected,
                found,
            } => write!(f, "parameter {parameter:?} is a {expected}, not {found}"),
            Self::UnknownState { machine, state } => {
                write!(f, "state machine {machine:?} has no state {state:?}")
            }
            Self::EmptyStateMachine { machine } => {
                write!(f, "state machine {machine:?} has no states")
            }
            Self::DuplicateName { what, name } => write!(f, "two {what}s are named {name:?}"),
            Self::TooManyParameters { machine, count } => write!(
                f,
                "state machine {machine:?} declares {count} parameters, at most {}",
                super::MAX_PARAMETERS
            ),
            Self::TooManyLayers { count, limit } => {
                write!(f, "{count} layers, at most {limit}")
            }
            Self::BadBlendSpace { reason } => write!(f, "bad blend space: {reason}"),
            Self::InvalidValue { what, value } => write!(f, "{what} cannot be {value}"),
            Self::NoSuchEntity { entity, component } => {
                write!(f, "entity {entity} does not exist or has no {component}")
            }
            Self::InvalidComponent { entity } => write!(
                f,
                "entity {entity} names a clip, mask, blend space or state machine its rig does not have"
            ),
            Self::PaletteFull => write!(f, "the palette would exceed u32::MAX entries"),
            Self::Parse { reason } => write!(f, "cannot read configuration: {reason}"),
            Self::Eval(e) => write!(f, "evaluation failed: {e}"),
        }
    }
}

impl std::error::Error for RuntimeError {}

impl From<EvalError> for RuntimeError {
    fn from(e: EvalError) -> Self {
        Self::Eval(e)
    }
}

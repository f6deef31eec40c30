//! What the animation runtime refuses, and why.

use thiserror::Error;

use crate::error::EvalError;

/// A runtime call was given a name, index, value or definition it cannot use.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum RuntimeError {
    /// A rig index or name that the animator does not have.
    #[error("rig {rig} does not exist")]
    UnknownRig {
        /// The index or name asked for.
        rig: String,
    },
    /// A clip name or index that the rig does not have.
    #[error("rig {rig} has no clip {clip}")]
    UnknownClip {
        /// The rig's name.
        rig: String,
        /// The clip asked for.
        clip: String,
    },
    /// A rig whose parts disagree: clips or joint bounds that do not cover its skeleton's
    /// joints, or skin joints outside it (a rig assembled by hand from its public fields).
    #[error("rig {rig}: {reason}")]
    InvalidRig {
        /// The rig's name.
        rig: String,
        /// The disagreement.
        reason: String,
    },
    /// A replacement rig ([`crate::runtime::Animator::replace_rig`]) that would change what
    /// the rig's entities play.
    #[error("rig {rig} cannot be replaced: {reason}")]
    IncompatibleRig {
        /// The rig's name.
        rig: String,
        /// What differs.
        reason: String,
    },
    /// A clip whose duration is negative or not finite: it cannot be timed. (A duration of 0
    /// is a pose, which plays as a constant.)
    #[error("clip {clip:?} of rig {rig} has duration {duration}, which is negative or not finite")]
    InvalidClipDuration {
        /// The rig's name.
        rig: String,
        /// The clip's name.
        clip: String,
        /// The duration found.
        duration: f32,
    },
    /// A joint name that the rig's skeleton does not have.
    #[error("rig {rig} has no joint {joint:?}")]
    UnknownJoint {
        /// The rig's name.
        rig: String,
        /// The joint asked for.
        joint: String,
    },
    /// A mask name or index that was never registered (or was registered for another rig).
    #[error("mask {mask} is not registered")]
    UnknownMask {
        /// The mask asked for.
        mask: String,
    },
    /// A state machine name or index that was never registered.
    #[error("state machine {machine} is not registered")]
    UnknownStateMachine {
        /// The state machine asked for.
        machine: String,
    },
    /// A parameter name that the state machine does not declare.
    #[error("state machine {machine:?} has no parameter {parameter:?}")]
    UnknownParameter {
        /// The state machine's name.
        machine: String,
        /// The parameter asked for.
        parameter: String,
    },
    /// A parameter was set, or compared, with a value of the wrong type.
    #[error("parameter {parameter:?} is a {expected}, not {found}")]
    ParameterType {
        /// The parameter's name.
        parameter: String,
        /// The parameter's declared type.
        expected: &'static str,
        /// What it was given.
        found: String,
    },
    /// A state name that the state machine does not declare.
    #[error("state machine {machine:?} has no state {state:?}")]
    UnknownState {
        /// The state machine's name.
        machine: String,
        /// The state asked for.
        state: String,
    },
    /// A state machine definition without states.
    #[error("state machine {machine:?} has no states")]
    EmptyStateMachine {
        /// The state machine's name.
        machine: String,
    },
    /// Two objects of one kind share a name where names must be unique.
    #[error("two {what}s are named {name:?}")]
    DuplicateName {
        /// What kind of object (state, parameter, mask, state machine).
        what: &'static str,
        /// The repeated name.
        name: String,
    },
    /// More parameters in one state machine than [`crate::runtime::MAX_PARAMETERS`].
    #[error(
        "state machine {machine:?} declares {count} parameters, at most {}",
        super::MAX_PARAMETERS
    )]
    TooManyParameters {
        /// The state machine's name.
        machine: String,
        /// How many it declares.
        count: usize,
    },
    /// More layers than an instance record holds ([`crate::MAX_LAYERS`], one kept for the base).
    #[error("{count} layers, at most {limit}")]
    TooManyLayers {
        /// How many were asked for.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// A blend space that cannot be built: too few samples, duplicate or collinear positions.
    #[error("bad blend space: {reason}")]
    BadBlendSpace {
        /// Why it is unusable.
        reason: String,
    },
    /// A number outside its allowed range (a negative fade duration, a NaN time step...).
    #[error("{what} cannot be {value}")]
    InvalidValue {
        /// What the number is.
        what: String,
        /// The value given.
        value: f32,
    },
    /// An entity that does not exist or lacks the component the call needs.
    #[error("entity {entity} does not exist or has no {component}")]
    NoSuchEntity {
        /// The entity, as hecs prints it.
        entity: String,
        /// The component that was needed.
        component: &'static str,
    },
    /// An entity's component names a clip, mask, blend space, state machine or retarget map
    /// that does not exist for the entity's rig (the entity is skipped or plays nothing there).
    #[error(
        "entity {entity} names a clip, mask, blend space, state machine or retarget map its rig \
         does not have"
    )]
    InvalidComponent {
        /// The entity, as hecs prints it.
        entity: String,
    },
    /// A retarget map that does not fit its rigs ([`crate::runtime::Animator::add_retarget_map`]).
    #[error("retarget map from rig {source_rig} to rig {target_rig}: {reason}")]
    InvalidRetargetMap {
        /// The source rig's name.
        source_rig: String,
        /// The target rig's name.
        target_rig: String,
        /// What does not fit.
        reason: String,
    },
    /// The palette would outgrow `u32` entries.
    #[error("the palette would exceed u32::MAX entries")]
    PaletteFull,
    /// A runtime snapshot of a format version this build does not read.
    #[error(
        "runtime snapshot version {found} is not supported (this build reads version {supported})"
    )]
    SnapshotVersion {
        /// The version the document declares.
        found: u64,
        /// The version this build reads and writes.
        supported: u32,
    },
    /// A runtime snapshot that is well-formed JSON but cannot be restored: its contents
    /// contradict each other or the animator's configuration.
    #[error("runtime snapshot: {reason}")]
    BadSnapshot {
        /// What is wrong, naming the entity or table.
        reason: String,
    },
    /// Saved configuration text that is not valid (bad JSON or a shape that does not match).
    #[error("cannot read configuration: {reason}")]
    Parse {
        /// The parser's message.
        reason: String,
    },
    /// The CPU evaluator refused the records.
    #[error("evaluation failed: {0}")]
    Eval(#[from] EvalError),
}

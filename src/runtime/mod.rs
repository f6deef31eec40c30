//! The animation runtime: per-instance CPU work that turns gameplay intent into one
//! [`crate::InstanceRecord`] per character — clocks, layers, cross-fades, state machines, blend
//! spaces, events, root motion and bone attachments — as hecs components driven by one system,
//! [`Animator::update`]. Nothing here touches per-joint data, except sampling the root joint for
//! root motion and the root-to-joint chain of an attachment.
//!
//! Records describe motion as a function of the frame time, so a character's record changes
//! only when its motion does: upload [`Animator::changed_slots`] of [`Animator::slot_records`] to
//! a GPU-resident table ([`crate::GpuBackend::set_record`], then
//! [`crate::GpuBackend::evaluate_resident`] at [`Animator::frame_time`]). With
//! [`Scheduling::EventDriven`] only the characters that have something happening are updated
//! at all.
//!
//! ```
//! use sinew::runtime::{Animated, Animator, Transform};
//! # fn rigs() -> Vec<sinew::Rig> { Vec::new() }
//!
//! let mut animator = Animator::new(rigs())?;
//! let mut world = hecs::World::new();
//! # if !animator.rigs().is_empty() {
//! let walk = animator.playback(0, "walk")?;
//! world.spawn((Animated::new(0), Transform::IDENTITY, walk));
//! # }
//! animator.update(&mut world, 1.0 / 60.0)?;
//! let records = animator.records(); // upload to the GPU pipeline, or:
//! let pose = animator.evaluate_cpu()?;
//! for event in animator.drain_events() {
//!     println!("{:?}: {} on clip {}", event.entity, event.name, event.clip);
//! }
//! # Ok::<(), sinew::runtime::RuntimeError>(())
//! ```

mod attachment;
mod blend_space;
mod content;
mod controller_config;
mod error;
mod events;
mod input_ramp;
mod layers;
mod locomotion;
mod motion;
mod pace;
mod parameters;
mod persistence;
mod phase_warp;
mod playback;
mod record_changes;
mod registry;
mod retarget;
mod root_motion;
mod schedule;
mod snapshot;
mod state_machine;
mod sync_markers;
mod system;
mod transform;
mod transition;

pub use attachment::{Attachment, joint_model};
pub use blend_space::{BlendSample, BlendSpace, BlendSpaceDef, BlendWeights, MAX_BLEND_CLIPS};
pub use controller_config::{BaseConfig, ControllerConfig, LayerConfig, RootMotionConfig};
pub use error::RuntimeError;
pub use events::{Event, EventDef};
pub use input_ramp::{BlendInputRamp, InputRamp};
pub use layers::{ClipLayer, Layers, MAX_EXTRA_LAYERS, MaskSpec};
pub use locomotion::locomotion;
pub use motion::{
    Contribution, Contributions, FadeShare, MAX_CONTRIBUTIONS, Motion, MotionContext,
};
pub use pace::Pace;
pub use parameters::{
    Compare, Condition, FLOAT_EQUALITY, MAX_PARAMETERS, ParamId, ParameterDef, ParameterKind,
    Parameters, Value,
};
pub use persistence::{
    AnimatorConfig, BlendSpaceConfig, EventConfig, MaskConfig, StateMachineConfig,
};
pub use phase_warp::{MAX_WARP_MARKERS, PhaseWarp};
pub use playback::{Clock, LoopMode, MAX_EVENT_CYCLES, Playback, Step};
pub use record_changes::RecordChanges;
pub use retarget::{MAX_RETARGET_MAPS, MirrorAxis, RetargetConfig, RetargetMapConfig, Retargeted};
pub use root_motion::{RootMotion, RootTranslation};
pub use schedule::Scheduling;
pub use snapshot::{RuntimeSnapshot, SNAPSHOT_VERSION};
pub use state_machine::{StateDef, StateMachine, StateMachineDef, StateMotion, TransitionDef};
pub use sync_markers::{ClipMarkers, Following, MarkerPhase, lowest_point};
pub use system::{
    Animated, Animator, EPOCH_SPAN, EvaluatedPose, RECORD_TIME_TOLERANCE, RECORD_WEIGHT_TOLERANCE,
};
pub use transform::Transform;
pub use transition::{CrossFade, MAX_FADES};

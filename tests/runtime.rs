//! The animation runtime (`sinew::runtime`): playback, layers, cross-fades, state machines,
//! blend spaces, events, root motion, attachments, the system's bookkeeping and persistence.
//! Rigs are built here from raw data so that every expected number can be worked out by hand.

#[path = "runtime/attachments.rs"]
mod attachments;
#[path = "runtime/blend_spaces.rs"]
mod blend_spaces;
mod common;
#[path = "runtime/compressed_root_motion.rs"]
mod compressed_root_motion;
#[path = "runtime/content.rs"]
mod content;
#[path = "runtime/cross_fades.rs"]
mod cross_fades;
#[path = "runtime/events.rs"]
mod events;
#[path = "runtime/fixtures.rs"]
mod fixtures;
#[path = "runtime/gpu_records.rs"]
mod gpu_records;
#[path = "runtime/inertialized.rs"]
mod inertialized;
#[path = "runtime/input_ramps.rs"]
mod input_ramps;
#[path = "runtime/layers.rs"]
mod layers;
#[path = "runtime/pace.rs"]
mod pace;
#[path = "runtime/persistence.rs"]
mod persistence;
#[path = "runtime/playback.rs"]
mod playback;
#[path = "runtime/poses.rs"]
mod poses;
#[path = "runtime/retargeted.rs"]
mod retargeted;
#[path = "runtime/root_motion.rs"]
mod root_motion;
#[path = "runtime/shipped_humanoid.rs"]
mod shipped_humanoid;
#[path = "runtime/snapshot.rs"]
mod snapshot;
#[path = "runtime/state_machines.rs"]
mod state_machines;
#[path = "runtime/sync_markers.rs"]
mod sync_markers;
#[path = "runtime/system.rs"]
mod system;

//! `sinew view`: a window that plays a file. One [`ViewerState`] holds the open file, its
//! characters in an [`Animator`](crate::runtime::Animator) and every choice the panels make;
//! the panels (egui) call its methods and [`ViewerFrame`] draws what it says with the same
//! [`Stage`](crate::render::Stage) as `sinew render`, so the window and the PNG agree and every
//! UI action is testable without a window.
//!
//! The state, the orbit camera and the headless frame are always built; the window
//! ([`run`], winit and egui) needs the `view` feature (on by default).

#[cfg(feature = "view")]
mod app;
mod camera_control;
mod error;
mod evaluator;
mod frame;
mod lod;
mod mixing;
#[cfg(feature = "view")]
mod panels;
mod state;
mod timing;

#[cfg(feature = "view")]
pub use app::{ViewOptions, run};
pub use camera_control::OrbitCamera;
pub use error::ViewError;
pub use evaluator::RecordEvaluator;
pub use frame::ViewerFrame;
pub use lod::{LOD_COLORS, kernel_levels, policy_levels, view_policy};
pub use state::{
    MAX_CHARACTERS, STEP_SECONDS, ViewBackend, ViewClips, ViewLayer, ViewerState, load,
};
pub use timing::FrameTimes;

//! What can go wrong while the viewer opens a file or draws a frame. The window shows the
//! message and stays open.

use thiserror::Error;

use crate::render::RenderError;
use crate::runtime::RuntimeError;
use crate::{EvalError, FormatError, GpuError, ImportError};

/// An error of the viewer.
#[derive(Debug, Error)]
pub enum ViewError {
    /// The glTF or FBX file could not be imported or baked.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The `.sinew` file could not be read.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The runtime refused a control (an unknown clip, a bad value).
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// The CPU evaluator refused the rigs or records.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// The GPU evaluator failed.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// Drawing failed.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// The file has nothing the viewer can draw.
    #[error("{file}: {reason}")]
    Unusable {
        /// The file.
        file: String,
        /// What it lacks.
        reason: String,
    },
    /// The window, its surface or its event loop failed.
    #[error("window: {0}")]
    Window(String),
}

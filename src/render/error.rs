//! Errors of the render passes, and the error scopes that turn wgpu validation errors into them.

use thiserror::Error;

/// Something the renderer could not do.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum RenderError {
    /// wgpu rejected a pipeline, bind group, buffer, copy or draw (captured by an error scope).
    #[error("wgpu validation error: {0}")]
    Validation(String),
    /// The device ran out of memory while creating a resource or running a pass.
    #[error("GPU out of memory: {0}")]
    OutOfMemory(String),
    /// Reading a buffer or texture back failed (mapping refused or the device lost).
    #[error("GPU readback failed: {0}")]
    Readback(String),
    /// The device is lost (destroyed, reset or removed): nothing was submitted.
    #[error("the GPU device is lost: {reason}")]
    DeviceLost {
        /// wgpu's reason, with its message.
        reason: String,
    },
    /// An input the renderer was given cannot be drawn.
    #[error("{object}: {reason}")]
    InvalidInput {
        /// The object (a mesh, a batch, a buffer) being set up or drawn.
        object: String,
        /// Why it is refused.
        reason: String,
    },
    /// A buffer or binding would need more of a device limit than the device has.
    #[error("device limit {limit} is {available}, but the data needs {needed}")]
    LimitExceeded {
        /// The wgpu limit, by its field name.
        limit: &'static str,
        /// What the data needs.
        needed: u64,
        /// What the device allows.
        available: u64,
    },
    /// A PNG could not be written or read.
    #[error("{path}: {reason}")]
    Image {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

impl RenderError {
    pub(crate) fn invalid(object: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidInput {
            object: object.into(),
            reason: reason.into(),
        }
    }
}

impl From<crate::GpuError> for RenderError {
    fn from(e: crate::GpuError) -> Self {
        match e {
            crate::GpuError::Validation(e) => Self::Validation(e),
            crate::GpuError::OutOfMemory(e) => Self::OutOfMemory(e),
            crate::GpuError::Readback(e) => Self::Readback(e),
            crate::GpuError::DeviceLost { reason } => Self::DeviceLost { reason },
            other => Self::Validation(other.to_string()),
        }
    }
}

/// Runs `work` inside the device's validation and out-of-memory error scopes
/// ([`crate::gpu::capture`]) and returns its value, or the first error wgpu reported.
pub(crate) fn capture<T>(
    device: &wgpu::Device,
    work: impl FnOnce() -> Result<T, RenderError>,
) -> Result<T, RenderError> {
    crate::gpu::capture(device, work)?
}

/// Checks that a buffer of `bytes` fits a device whose `max_buffer_size` is `available`.
pub(crate) fn check_buffer_size(bytes: u64, available: u64) -> Result<(), RenderError> {
    if bytes > available {
        return Err(RenderError::LimitExceeded {
            limit: "max_buffer_size",
            needed: bytes,
            available,
        });
    }
    Ok(())
}

/// Checks that a storage binding of `bytes` fits the device.
pub(crate) fn check_storage_size(device: &wgpu::Device, bytes: u64) -> Result<(), RenderError> {
    let limits = device.limits();
    let available = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    if bytes > available {
        return Err(RenderError::LimitExceeded {
            limit: "max_storage_buffer_binding_size",
            needed: bytes,
            available,
        });
    }
    Ok(())
}

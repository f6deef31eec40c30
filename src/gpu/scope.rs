//! wgpu errors caught by error scopes and returned as [`GpuError`]s instead of reaching the
//! device's uncaptured-error handler.

use crate::error::GpuError;

/// Runs `work` inside validation and out-of-memory error scopes of `device` (scopes are per
/// thread) and returns its value, or the first error wgpu reported.
pub fn capture<T>(device: &wgpu::Device, work: impl FnOnce() -> T) -> Result<T, GpuError> {
    let memory = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let value = work();
    let validation_error = pollster::block_on(validation.pop());
    let memory_error = pollster::block_on(memory.pop());
    if let Some(e) = validation_error {
        return Err(GpuError::Validation(error_text(&e)));
    }
    if let Some(e) = memory_error {
        return Err(GpuError::OutOfMemory(error_text(&e)));
    }
    Ok(value)
}

/// The full text of a wgpu error, its sources included.
fn error_text(e: &wgpu::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

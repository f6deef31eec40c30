//! Compressed clips whose parts do not fit together.

use thiserror::Error;

/// Compressed clips assembled from parts that disagree: a count, offset, bit rate, range or
/// value the decoders cannot use.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("compressed clips: {object}: {reason}")]
pub struct CompressedError {
    /// The part at fault (`clip 2`, `clip 0 channel 14`, `budget`).
    pub object: String,
    /// What is wrong with it.
    pub reason: String,
}

impl CompressedError {
    /// An error about `object`.
    pub fn new(object: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            object: object.into(),
            reason: reason.into(),
        }
    }
}

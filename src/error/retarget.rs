//! Retarget and mirror maps that do not fit their skeletons.

use thiserror::Error;

/// A retarget or mirror map could not be built: the file (or `-` for a map built in code), the
/// object at fault and why.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("{file}: {object}: {reason}")]
pub struct RetargetError {
    /// The map file, or `-` for a map given in code.
    pub file: String,
    /// The joint, entry or field at fault (`joint "LeftArm"`, `JSON`).
    pub object: String,
    /// What is wrong with it.
    pub reason: String,
}

impl RetargetError {
    /// An error about `object` of `file`.
    pub fn new(file: &str, object: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            file: file.to_string(),
            object: object.into(),
            reason: reason.into(),
        }
    }
}

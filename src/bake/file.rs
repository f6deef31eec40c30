//! The `.sinew` baked file format.

use std::path::Path;

use super::Rig;
use crate::error::{FormatError, FormatErrorKind};

/// Writes `rigs` to `path`.
pub fn write_file(path: impl AsRef<Path>, rigs: &[Rig]) -> Result<(), FormatError> {
    let _ = rigs;
    Err(FormatError {
        file: path.as_ref().display().to_string(),
        kind: FormatErrorKind::Io("not implemented".into()),
    })
}

/// Reads rigs from `path`.
pub fn read_file(path: impl AsRef<Path>) -> Result<Vec<Rig>, FormatError> {
    Err(FormatError {
        file: path.as_ref().display().to_string(),
        kind: FormatErrorKind::Io("not implemented".into()),
    })
}

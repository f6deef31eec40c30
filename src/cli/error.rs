//! Why a subcommand cannot finish, beyond the library's own errors (exit code 1).

/// A run-time failure of the command line itself.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The file lacks what the subcommand needs (a skinned mesh, clips, an animation index).
    #[error("{file}: {reason}")]
    Unusable {
        /// The input file.
        file: String,
        /// What it lacks.
        reason: String,
    },
    /// The evaluated poses give nothing to frame or draw.
    #[error("{what}: {reason}")]
    NothingToDraw {
        /// The image being made.
        what: String,
        /// Why it would be empty.
        reason: &'static str,
    },
    /// Writing to stdout failed (a closed pipe is not a failure).
    #[error("cannot write output: {0}")]
    Output(#[source] std::io::Error),
}

impl CliError {
    /// [`CliError::Unusable`] for `file` (shown as given on the command line).
    pub fn unusable(file: &std::path::Path, reason: impl Into<String>) -> Self {
        Self::Unusable {
            file: file.display().to_string(),
            reason: reason.into(),
        }
    }
}

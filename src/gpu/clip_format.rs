//! Which clips the GPU backend samples: the baked key tracks, or the compressed clips
//! ([`crate::baked::CompressedClips`]) decoded inside the kernel.

/// The clip data a [`crate::GpuBackend`] uploads and its kernel samples.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ClipFormat {
    /// The baked key tracks, sampled exactly (the default).
    #[default]
    Exact,
    /// Compressed clips: each rig's [`crate::Rig::compressed`] when it has them, else clips
    /// compressed at upload within `budget` (metres, the error metric of
    /// [`crate::baked::CompressedClips::build`]).
    Compressed {
        /// Error budget for rigs compressed at upload.
        budget: f32,
    },
}

impl ClipFormat {
    /// Whether the kernel decodes compressed clips.
    pub fn is_compressed(&self) -> bool {
        matches!(self, Self::Compressed { .. })
    }
}

//! The crowd's animation LOD: the camera framing of `--view-fraction` and the GPU
//! [`LodPolicy`] of `--lod`, `--update-every` and `--skip-culled`.

use clap::error::ErrorKind;
use glam::Vec3;
use sinew::LodPolicy;

use super::{CrowdArgs, FRAMED_CHARACTERS};
use crate::cli::Backend;

impl CrowdArgs {
    /// The LOD flags need `--backend gpu`; a view fraction lies in 0..=1.
    pub fn check(&self) -> Result<(), clap::Error> {
        if self.backend != Backend::Gpu && (self.uses_lod() || self.skip_culled) {
            return Err(crate::cli::usage_error(
                "crowd",
                ErrorKind::ArgumentConflict,
                "--lod, --update-every and --skip-culled apply to --backend gpu only",
            ));
        }
        if let Some(f) = self.view_fraction
            && !(0.0..=1.0).contains(&f)
        {
            return Err(crate::cli::usage_error(
                "crowd",
                ErrorKind::ValueValidation,
                "--view-fraction must lie in 0..=1",
            ));
        }
        Ok(())
    }

    /// Whether a LOD policy applies: `--lod` or `--update-every` above 1.
    pub(super) fn uses_lod(&self) -> bool {
        self.lod || self.update_every > 1
    }

    /// How many characters the camera is framed on.
    pub(super) fn framed(&self) -> usize {
        match self.view_fraction {
            Some(f) => ((f * f64::from(self.characters)).round() as usize).max(1),
            None => FRAMED_CHARACTERS,
        }
    }

    /// The policy of `--lod`, `--update-every` and `--skip-culled` for a camera at `eye`, at
    /// `near` from the framed characters, or `None`.
    pub(super) fn policy(&self, eye: Vec3, near: f32) -> Option<LodPolicy> {
        if !self.uses_lod() && !self.skip_culled {
            return None;
        }
        let n = self.update_every;
        Some(if self.lod {
            LodPolicy::banded(eye, near, n, self.skip_culled)
        } else {
            LodPolicy {
                eye,
                distances: [f32::INFINITY; 3],
                update_every: [n; 4],
                skip_culled: self.skip_culled,
            }
        })
    }
}

//! The crowd's animation LOD: the camera framing of `--view-fraction`, the GPU [`LodPolicy`]
//! of `--lod`, `--update-every` and `--skip-culled`, and the GPU-time budget of `--budget-ms`.

use clap::error::ErrorKind;
use glam::Vec3;
use sinew::LodPolicy;
use sinew::lod::LodBudget;

use super::{CrowdArgs, FRAMED_CHARACTERS};
use crate::cli::Backend;

impl CrowdArgs {
    /// The LOD flags need `--backend gpu`; a view fraction lies in 0..=1.
    pub fn check(&self) -> Result<(), clap::Error> {
        if self.backend != Backend::Gpu
            && (self.uses_lod() || self.skip_culled || self.motion_vectors)
        {
            return Err(crate::cli::usage_error(
                "crowd",
                ErrorKind::ArgumentConflict,
                "--lod, --update-every, --skip-culled, --budget-ms and --motion-vectors apply to \
                 --backend gpu only",
            ));
        }
        if let Some(ms) = self.budget_ms
            && !(ms.is_finite() && ms > 0.0)
        {
            return Err(crate::cli::usage_error(
                "crowd",
                ErrorKind::ValueValidation,
                "--budget-ms must be a positive number of milliseconds",
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

    /// Whether a LOD policy applies: `--lod`, `--update-every` above 1 or `--budget-ms`.
    pub(super) fn uses_lod(&self) -> bool {
        self.banded() || self.update_every > 1
    }

    /// Whether the policy is banded by distance: `--lod`, or the base of `--budget-ms`.
    fn banded(&self) -> bool {
        self.lod || self.budget_ms.is_some()
    }

    /// The GPU-time budget of `--budget-ms` around `policy`.
    pub(super) fn budget(&self, policy: Option<LodPolicy>) -> Option<LodBudget> {
        Some(LodBudget::new(policy?, self.budget_ms?))
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
        Some(if self.banded() {
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

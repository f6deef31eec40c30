//! Content added to a running GPU backend: [`GpuBackend::update_rigs`] uploads a longer rig
//! list (rigs added, clips appended to re-baked rigs) while the resident records play on.

use super::GpuBackend;
use super::GpuLibrary;
use crate::baked::Rig;
use crate::error::GpuError;
use crate::gpu::RetargetBinding;
use crate::gpu::library::RigSummary;
use crate::mask::JointMask;

impl GpuBackend {
    /// Uploads the library again with `retargets` (the rigs and masks it was built from, the
    /// same as [`GpuBackend::update_rigs`] takes): layers name them by index
    /// ([`crate::LayerRecord::retargeted`]). Both pipelines retarget: the compressed one
    /// decodes the map's source rig's compressed clips (`wgsl/decode.wgsl`).
    pub fn set_retargets(
        &mut self,
        rigs: &[Rig],
        masks: &[JointMask],
        retargets: &[RetargetBinding],
    ) -> Result<(), GpuError> {
        self.update_rigs(rigs, masks)?;
        self.library = GpuLibrary::new(
            &self.device,
            &self.pipeline,
            rigs,
            masks,
            self.clips,
            retargets,
        )?;
        Ok(())
    }

    /// Uploads `rigs` and `masks` in place of the current ones, keeping the resident records,
    /// palette and bounds: for content streaming in (as [`crate::runtime::Animator::add_rig`]
    /// and [`crate::runtime::Animator::add_clips`] add it, pass the animator's rigs and masks).
    /// The uploaded rigs must come first, each with the same joints, palette entries and
    /// inverse binds and at least its clips (refused with [`GpuError::IncompatibleRig`]), and
    /// the uploaded masks first among the masks. The library is rebuilt whole: costly, meant
    /// for loading, not for every frame. With [`crate::gpu::ClipFormat::Compressed`] each rig
    /// goes up with its [`Rig::compressed`] clips, or clips compressed now within the budget.
    pub fn update_rigs(&mut self, rigs: &[Rig], masks: &[JointMask]) -> Result<(), GpuError> {
        crate::cpu::check_rigs(rigs)?;
        let old = self.library.rigs();
        if rigs.len() < old.len() {
            return Err(GpuError::IncompatibleRig {
                rig: rigs.len(),
                reason: format!("{} rigs are uploaded, {} given", old.len(), rigs.len()),
            });
        }
        for (i, (summary, rig)) in old.iter().zip(rigs).enumerate() {
            let reason = if summary.joint_count != rig.joint_count()
                || summary.palette_entries != rig.palette_entries()
            {
                "its joints or palette entries differ"
            } else if rig.clips.clip_count() < summary.clip_count {
                "it has fewer clips"
            } else {
                continue;
            };
            return Err(GpuError::IncompatibleRig {
                rig: i,
                reason: reason.to_string(),
            });
        }
        if masks.len() < self.library.mask_count() {
            return Err(GpuError::IncompatibleRig {
                rig: 0,
                reason: format!(
                    "{} masks are uploaded, {} given",
                    self.library.mask_count(),
                    masks.len()
                ),
            });
        }
        super::check_blocks(rigs, self.palette.paging())?;
        let retargets = self.library.retargets().to_vec();
        let library = GpuLibrary::new(
            &self.device,
            &self.pipeline,
            rigs,
            masks,
            self.clips,
            &retargets,
        )?;
        let old = self.library.rigs();
        let same = |(a, b): (&RigSummary, &RigSummary)| a.inverse_binds == b.inverse_binds;
        if let Some(i) = old.iter().zip(library.rigs()).position(|p| !same(p)) {
            return Err(GpuError::IncompatibleRig {
                rig: i,
                reason: "its inverse binds differ".to_string(),
            });
        }
        self.library = library;
        Ok(())
    }
}

//! The GPU backend's animation LOD state: the frame counter update rates are due on, the
//! evaluate-all frames, and the [`crate::LodPolicy`] the frame headers carry.

use super::GpuBackend;
use crate::gpu::layout::FrameHeader;

impl GpuBackend {
    /// The frame counter the next evaluation runs with: [`crate::UpdateRate`]s are due on it.
    /// It starts at 0 and counts every evaluation of a non-empty table.
    pub fn frame_index(&self) -> u32 {
        self.frame
    }

    /// Has the next evaluation run every slot, whatever its update rate, freeze or culling
    /// (as the first one and one after slots change rig or palette block do): after a
    /// teleport, say, so boxes and palettes match the records again.
    pub fn evaluate_all_next(&mut self) {
        self.evaluate_all = true;
    }

    /// Sets the LOD policy the kernel applies to every record whose LOD bits
    /// ([`InstanceRecord::LOD_BITS`]) are all 0, from the next evaluation on (`None`: such
    /// records are evaluated every frame with every joint). Costs no upload per record: the
    /// policy travels in the frame header.
    pub fn set_lod_policy(&mut self, policy: Option<crate::LodPolicy>) {
        self.lod_policy = policy;
    }

    /// The LOD policy in use.
    pub fn lod_policy(&self) -> Option<&crate::LodPolicy> {
        self.lod_policy.as_ref()
    }
}

/// The LOD fields of frame `frame`'s headers.
pub(super) fn lod_header(frame: u32, all: bool, policy: Option<&crate::LodPolicy>) -> FrameHeader {
    let mut lod_flags = if all { FrameHeader::EVALUATE_ALL } else { 0 };
    let mut header = FrameHeader {
        frame,
        ..FrameHeader::default()
    };
    if let Some(p) = policy {
        lod_flags |= FrameHeader::LOD_POLICY;
        if p.skip_culled {
            lod_flags |= FrameHeader::POLICY_SKIPS_CULLED;
        }
        header.lod_eye = p.eye.extend(0.0).to_array();
        let [a, b, c] = p.distances.map(|d| d * d.abs());
        header.lod_distances = [a, b, c, 0.0];
        header.lod_every = p.update_every;
    }
    header.lod_flags = lod_flags;
    header
}

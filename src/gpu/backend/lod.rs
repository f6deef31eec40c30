//! The GPU backend's animation LOD state: the frame counter update rates are due on, the
//! evaluate-all frames, and the [`crate::LodPolicy`] the frame headers carry.

use super::{GpuBackend, GpuError, ReadRange};
use crate::gpu::layout::{AABB_BYTES, FrameHeader};
use crate::gpu::lod_compact::list_boxes;

/// The slot list of the last indirect frame, as the GPU compacted it
/// ([`GpuBackend::read_slot_list`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotList {
    /// The listed slots, in the order the compaction appended them (not sorted).
    pub slots: Vec<u32>,
    /// The evaluation's indirect workgroup grid (x, y, z): rows of the frame's grid width
    /// covering the list.
    pub workgroups: [u32; 3],
}

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
    /// ([`crate::InstanceRecord::LOD_BITS`]) are all 0, from the next evaluation on (`None`: such
    /// records are evaluated every frame with every joint). Costs no upload per record: the
    /// policy travels in the frame header.
    pub fn set_lod_policy(&mut self, policy: Option<crate::LodPolicy>) {
        self.lod_policy = policy;
    }

    /// Reads back the slot list the last evaluation ran when it was indirect
    /// ([`crate::gpu::FrameStats::indirect`]); `None` after a direct one (every slot dispatched).
    /// For tests and diagnostics: waits for the GPU.
    pub fn read_slot_list(&self) -> Result<Option<SlotList>, GpuError> {
        let (Some(list_base), Some(compact)) = (self.listed_at, self.lod_compact.as_ref()) else {
            return Ok(None);
        };
        let boxes = list_boxes(u64::from(list_base));
        let bytes = self.read(&[
            ReadRange {
                buffer: compact.args(),
                offset: 0,
                size: 16,
            },
            ReadRange {
                buffer: self.bounds.buffer(),
                offset: u64::from(list_base) * AABB_BYTES,
                size: boxes * AABB_BYTES,
            },
        ])?;
        let words = |b: &[u8]| -> Vec<u32> {
            b.chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let (args, list) = match bytes.as_slice() {
            [args, list] => (words(args), words(list)),
            _ => return Err(GpuError::Readback("slot list read incomplete".into())),
        };
        let entry = |k: usize| list.get(k).map_or(0, |&w| f32::from_bits(w) as u32);
        let count = entry(0) as usize;
        Ok(Some(SlotList {
            slots: (1..=count).map(entry).collect(),
            workgroups: [0, 1, 2].map(|i| args.get(i).copied().unwrap_or(0)),
        }))
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

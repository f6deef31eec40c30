//! What the last frame's evaluation moved through global memory, per joint: bytes written
//! (palette entries, boxes) and bytes read (counted by [`crate::gpu::RigReads`]).

use super::{AABB_BYTES, GpuBackend, PALETTE_ENTRY_BYTES};
use crate::baked::MAX_JOINTS;

impl GpuBackend {
    /// Bytes the last frame's evaluation wrote to global memory per joint: the 48-byte palette
    /// entry plus each instance's 32-byte AABB and morph-weight entries spread over its joints.
    pub fn bytes_written_per_joint(&self) -> f64 {
        let f = self.last_frame;
        if f.joints == 0 {
            return 0.0;
        }
        ((f.joints + f.morph_entries) * PALETTE_ENTRY_BYTES + f.instances * AABB_BYTES) as f64
            / f.joints as f64
    }

    /// Bytes the last frame's evaluation read from global memory per joint, counted load by
    /// load from the layout of the path that ran ([`crate::gpu::GpuOptions::clips`]) and the layers each
    /// instance had at the frame time:
    ///
    /// `(Σ passes pass + Σ instances (instance + Σ layers (layer + Σ sampled joints and chunks
    /// channel))) / joints`
    ///
    /// - pass: the instances of one rig a workgroup evaluates together (consecutive slots of
    ///   its [`crate::gpu::EvaluateShape::group_instances`] with the same rig, as many as fit
    ///   in [`crate::gpu::EvaluateShape::pass_joints`] joints): rig descriptor (64), level starts (8 per level
    ///   below the roots), per joint rest pose with parent and `has_bounds` (48), inverse
    ///   bind (48), bounds (24, joints with vertices).
    /// - instance: record header (16) and world (48), rig descriptor (64); per weight chunk
    ///   defaults (16) and joint (4); per IK constraint its entries (64) and target (48)
    ///   (propagation and IK read the parents the pass keeps in workgroup memory); root motion (moving
    ///   records): root frame (112), layer count (4), each base layer again (48) and its root
    ///   channels at both frame ends, each with its clip's segment scan there.
    /// - layer: its record (48), with compressed clips its clip descriptor (24); a masked layer
    ///   reads the mask weight of every joint and chunk (4) and samples those weighted above 0.
    ///   A layer played through a retarget map also reads the table's row count and the map's
    ///   row (32) and the source rig's descriptor (64), and at each target joint the entry (80:
    ///   its last row twice) and its source joint's channels in the source rig's clip (with
    ///   that clip's segment scan); its weight chunks are not sampled.
    /// - channel, exact: track descriptor (16), first and last key times (8), the guessed key
    ///   pair (16) and interval (8), the key values interpolation reads (16 each: 1 STEP, 2
    ///   LINEAR, 4 CUBICSPLINE); one key: descriptor, one time, one value.
    /// - channel, compressed: a joint's rest mask (4), then per channel it does not mark REST
    ///   (a weight chunk: every one) its code (4); REST nothing more; a constant its words (12,
    ///   16 for a rotation or weight chunk); animated: bit offset (4), ranges (4 per component,
    ///   none raw), and in both frame records the words its bits span (4 each, read once).
    ///
    /// Loads at one address for the whole workgroup (record, descriptors, level starts, IK)
    /// count once per instance; times inside the keys are assumed (the uniform-grid guess).
    /// `None` when the last frame was not counted ([`GpuBackend::set_read_counting`]).
    pub fn bytes_read_per_joint(&self) -> Option<f64> {
        let f = self.last_frame;
        let bytes = f.bytes_read?;
        Some(if f.joints == 0 {
            0.0
        } else {
            bytes as f64 / f.joints as f64
        })
    }

    /// Whether the following evaluations count the kernel's global reads
    /// ([`GpuBackend::bytes_read_per_joint`]). Off by default: the count walks every record on
    /// the CPU each frame (about 0.2 µs per character), which a crowd whose CPU cost follows
    /// what changes should not pay unless it reports the figure.
    pub fn set_read_counting(&mut self, on: bool) {
        self.count_reads = on;
    }

    /// Global-memory bytes the kernel read evaluating every slot at `now` after the previous
    /// evaluation at `prev` ([`crate::gpu::RigReads`]), the slots grouped into workgroups and passes as the kernel
    /// groups them; an empty slot reads its rig index and flags.
    pub(super) fn frame_reads(&self, now: f32, prev: f32) -> u64 {
        let rigs = self.library.rigs();
        let masks = self.library.masks();
        let maps = self.library.map_reads();
        let shape = self.pipeline.shape;
        let pass_joints = shape.pass_joints() as usize;
        let mut bytes = 0;
        for group in self
            .table
            .records()
            .chunks(shape.group_instances() as usize)
        {
            // The rig and joint count of the pass in hand.
            let mut pass: Option<(u32, usize)> = None;
            for r in group {
                let Some(rig) = rigs.get(r.rig as usize) else {
                    bytes += 8;
                    pass = None;
                    continue;
                };
                let n = rig.joint_count.clamp(1, MAX_JOINTS);
                pass = match pass {
                    Some((index, count)) if index == r.rig && (count + 1) * n <= pass_joints => {
                        Some((index, count + 1))
                    }
                    _ => {
                        bytes += rig.reads.pass;
                        Some((r.rig, 1))
                    }
                };
                bytes += rig.reads.record_bytes(r, masks, maps, now, prev);
            }
        }
        bytes
    }
}

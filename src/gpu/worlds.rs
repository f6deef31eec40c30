//! Reading the worlds of resident records back (where root motion on the GPU has moved them):
//! the copy plan shared by the blocking read and the asynchronous one, which keeps a few
//! requests in flight and hands back the newest finished one without waiting.

use std::ops::Range;

use glam::Affine3A;

use super::async_read::AsyncReads;
use super::layout::INSTANCE_RECORD_BYTES;
use super::resident::WORLD_BYTES;
use crate::error::GpuError;
use crate::math::Mat3x4Rows;

/// Worlds read back from the resident records.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldsRead {
    /// Frame time of the evaluation whose worlds these are.
    pub time: f32,
    /// The slots asked for, in order.
    pub slots: Vec<u32>,
    /// Their worlds, one per slot.
    pub worlds: Vec<Affine3A>,
}

/// One copy of consecutive slots' worlds: `count` slots from `first`, landing at byte `at` of
/// the read buffer (the record bytes between the worlds come along).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub first: u32,
    pub count: u32,
    pub at: u64,
}

impl Run {
    /// The record-buffer bytes this run copies.
    pub fn source(&self) -> Range<u64> {
        let start = u64::from(self.first) * INSTANCE_RECORD_BYTES + WORLD_BYTES.start;
        start..start + self.len()
    }

    /// Bytes copied: whole records between the first world and the last.
    pub fn len(&self) -> u64 {
        u64::from(self.count - 1) * INSTANCE_RECORD_BYTES + (WORLD_BYTES.end - WORLD_BYTES.start)
    }
}

/// `slots` as runs of consecutive ascending slots, and the bytes they need.
pub(crate) fn plan(slots: &[u32]) -> (Vec<Run>, u64) {
    let mut runs: Vec<Run> = Vec::new();
    for &slot in slots {
        if let Some(r) = runs.last_mut()
            && r.first.checked_add(r.count) == Some(slot)
        {
            r.count += 1;
            continue;
        }
        let at = runs.last().map_or(0, |r| r.at + r.len());
        runs.push(Run {
            first: slot,
            count: 1,
            at,
        });
    }
    let total = runs.last().map_or(0, |r| r.at + r.len());
    (runs, total)
}

/// The worlds of `runs` in `bytes` (the read buffer), in slot order.
pub(crate) fn worlds_from(bytes: &[u8], runs: &[Run]) -> Vec<Affine3A> {
    let world = (WORLD_BYTES.end - WORLD_BYTES.start) as usize;
    let mut out = Vec::new();
    for r in runs {
        for i in 0..u64::from(r.count) {
            let at = (r.at + i * INSTANCE_RECORD_BYTES) as usize;
            let m: Mat3x4Rows = bytes
                .get(at..at + world)
                .map_or(Mat3x4Rows::IDENTITY, bytemuck::pod_read_unaligned);
            out.push(m.to_affine());
        }
    }
    out
}

/// What a world request asked for.
#[derive(Debug)]
struct Asked {
    time: f32,
    slots: Vec<u32>,
    runs: Vec<Run>,
}

/// The asynchronous world reads of one backend.
#[derive(Debug)]
pub(crate) struct WorldReadback(AsyncReads<Asked>);

impl Default for WorldReadback {
    fn default() -> Self {
        Self(AsyncReads::new("sinew world readback"))
    }
}

impl WorldReadback {
    /// Polls the device once (no wait), collects the finished requests and returns the newest
    /// one's worlds; then, unless [`MAX_IN_FLIGHT`](super::async_read::MAX_IN_FLIGHT) are
    /// pending, requests the worlds of `slots` of `records` as they stand after the work
    /// submitted so far (frame time `time`).
    pub fn request(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        records: &wgpu::Buffer,
        time: f32,
        slots: &[u32],
    ) -> Result<Option<WorldsRead>, GpuError> {
        let latest = self.0.collect(device, |asked, bytes| WorldsRead {
            time: asked.time,
            worlds: worlds_from(bytes, &asked.runs),
            slots: asked.slots,
        })?;
        if !self.0.has_room() || slots.is_empty() {
            return Ok(latest);
        }
        let (runs, size) = plan(slots);
        let copies = runs.clone();
        let asked = Asked {
            time,
            slots: slots.to_vec(),
            runs,
        };
        self.0
            .request(device, queue, size, asked, |encoder, buffer| {
                for r in &copies {
                    let source = r.source();
                    encoder.copy_buffer_to_buffer(records, source.start, buffer, r.at, r.len());
                }
            })?;
        Ok(latest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_slots_share_a_copy() {
        let (runs, size) = plan(&[4, 5, 6, 9, 2]);
        let world = WORLD_BYTES.end - WORLD_BYTES.start;
        let r = INSTANCE_RECORD_BYTES;
        assert_eq!(
            runs,
            vec![
                Run {
                    first: 4,
                    count: 3,
                    at: 0
                },
                Run {
                    first: 9,
                    count: 1,
                    at: 2 * r + world
                },
                Run {
                    first: 2,
                    count: 1,
                    at: 2 * r + 2 * world
                },
            ]
        );
        assert_eq!(size, 2 * r + 3 * world);
        assert_eq!(runs[0].source(), 4 * r + 16..6 * r + 64);
    }
}

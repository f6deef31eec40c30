//! Reading back what [`GpuBackend`] holds and computed: resident records, root-motion worlds
//! (blocking or one frame late), palette entries, boxes, and whole instances with their model
//! matrices.

use std::ops::Range;

use glam::Affine3A;

use super::GpuBackend;
use crate::error::{EvalError, GpuError};
use crate::gpu::BoundsRead;
use crate::gpu::layout::{AABB_BYTES, INSTANCE_RECORD_BYTES};
use crate::gpu::readback::{
    InstanceReadback, ReadRange, bounds_from_bytes, model_from_palette, palette_from_bytes,
    read_ranges,
};
use crate::gpu::worlds::{Run, WorldsRead, plan, worlds_from};
use crate::instance::InstanceRecord;
use crate::math::Aabb;

impl GpuBackend {
    /// [`read_ranges`] on this backend's device: [`GpuError::DeviceLost`] instead of a read
    /// on a lost device, or of the failed wait or mapping that a loss during the read gives.
    pub(super) fn read(&self, ranges: &[ReadRange<'_>]) -> Result<Vec<Vec<u8>>, GpuError> {
        self.loss.check()?;
        read_ranges(&self.device, &self.queue, ranges).map_err(|e| self.loss.explain(e))
    }

    /// Reads the resident record buffer back (slots `range`): for tests of the uploads.
    pub fn read_resident(&self, range: Range<u32>) -> Result<Vec<InstanceRecord>, GpuError> {
        let Some(buffer) = self.records.as_ref() else {
            return Ok(Vec::new());
        };
        let end = u64::from(range.end).min(buffer.size() / INSTANCE_RECORD_BYTES);
        let start = u64::from(range.start).min(end);
        let bytes = self.read(&[ReadRange {
            buffer,
            offset: start * INSTANCE_RECORD_BYTES,
            size: (end - start) * INSTANCE_RECORD_BYTES,
        }])?;
        Ok(bytes
            .first()
            .map_or_else(Vec::new, |b| bytemuck::pod_collect_to_vec(b)))
    }

    /// Checks that every slot of `slots` exists and, once a record buffer exists, is in it;
    /// returns that buffer.
    pub(super) fn world_source(&self, slots: &[u32]) -> Result<Option<&wgpu::Buffer>, GpuError> {
        let buffer = self.records.as_ref();
        let len = buffer.map_or(u64::from(self.table.len()), |b| {
            (b.size() / INSTANCE_RECORD_BYTES).min(u64::from(self.table.len()))
        });
        if let Some(&bad) = slots.iter().find(|&&s| u64::from(s) >= len) {
            return Err(EvalError::OutputSize {
                expected: bad as usize + 1,
                found: len as usize,
            }
            .into());
        }
        Ok(buffer)
    }

    /// The worlds of resident `slots` as the record buffer holds them after the work submitted
    /// so far (root motion included), in one round trip: blocks until the GPU gets there.
    /// Records written since the last evaluation are not in the buffer yet; before the first
    /// evaluation the worlds are those written. A slot past the buffer or the table is an error.
    pub fn read_worlds(&self, slots: &[u32]) -> Result<Vec<Affine3A>, GpuError> {
        let Some(records) = self.world_source(slots)? else {
            return Ok(slots
                .iter()
                .map(|&s| self.table.records()[s as usize].world.to_affine())
                .collect());
        };
        let (runs, _) = plan(slots);
        let ranges: Vec<ReadRange<'_>> = runs
            .iter()
            .map(|r| {
                let source = r.source();
                ReadRange {
                    buffer: records,
                    offset: source.start,
                    size: source.end - source.start,
                }
            })
            .collect();
        let bytes = self.read(&ranges)?;
        let mut out = Vec::with_capacity(slots.len());
        for (r, b) in runs.iter().zip(&bytes) {
            out.extend(worlds_from(b, &[Run { at: 0, ..*r }]));
        }
        Ok(out)
    }

    /// Asks for the worlds of resident `slots` after the last evaluation, without waiting: the
    /// copy is queued now and mapped in the background. Returns the newest earlier request that
    /// has arrived since the last call, usually the previous frame's (one frame late), with the
    /// frame time it belongs to; `None` on the first call and while the GPU has not finished
    /// any. At most three requests wait at once; a call past that requests nothing.
    pub fn read_worlds_async(&mut self, slots: &[u32]) -> Result<Option<WorldsRead>, GpuError> {
        self.loss.check()?;
        let time = self.prev_time.unwrap_or(0.0);
        let Some(records) = self.world_source(slots)?.cloned() else {
            return Ok(None);
        };
        self.worlds
            .request(&self.device, &self.queue, &records, time, slots)
    }

    /// Reads the AABBs of records `range` of the last frame back.
    pub fn read_bounds(&self, range: Range<usize>) -> Result<Vec<Aabb>, GpuError> {
        let bytes =
            self.read(&[self.bounds_range(range.start, range.end.saturating_sub(range.start))?])?;
        Ok(bytes
            .first()
            .map_or_else(Vec::new, |b| bounds_from_bytes(b)))
    }

    /// Asks for the boxes of the last evaluation (every record, or every resident slot) without
    /// waiting: the copy is queued now and mapped in the background. Returns the newest earlier
    /// request that has arrived since the last call (usually the previous frame's), with
    /// `tag` as it was given then and its frame time; `None` on the first call and while the
    /// GPU has finished none. At most three requests wait at once; a call past that requests
    /// nothing.
    pub fn read_bounds_async(&mut self, tag: u64) -> Result<Option<BoundsRead>, GpuError> {
        self.loss.check()?;
        let time = self.prev_time.unwrap_or(0.0);
        self.bounds_reads.request(
            &self.device,
            &self.queue,
            self.bounds.buffer(),
            self.last_frame.instances,
            (tag, time),
        )
    }

    /// Reads back palette block (joint entries, then morph weights), model matrices (one per
    /// joint) and AABB of the records `chosen` (indices into `frame`, the records last passed to
    /// [`GpuBackend::evaluate`]) in one GPU round trip.
    /// Model matrices are recovered on the CPU as palette x inverse(inverse bind), so the kernel
    /// writes nothing extra for them.
    pub fn read_instances(
        &self,
        frame: &[InstanceRecord],
        chosen: &[usize],
    ) -> Result<Vec<InstanceReadback>, GpuError> {
        let mut ranges = Vec::with_capacity(chosen.len() * 2);
        for &i in chosen {
            let rec = frame.get(i).ok_or(EvalError::OutputSize {
                expected: i + 1,
                found: frame.len(),
            })?;
            let n = self.library.validate(rec)?.palette_entries;
            ranges.push(self.palette_range(rec.palette_offset, n as u32)?);
            ranges.push(self.bounds_range(i, 1)?);
        }
        let bytes = self.read(&ranges)?;
        let mut out = Vec::with_capacity(chosen.len());
        for (k, &i) in chosen.iter().enumerate() {
            let rec = &frame[i];
            let palette = palette_from_bytes(&bytes[2 * k]);
            let bounds = bounds_from_bytes(&bytes[2 * k + 1])
                .first()
                .copied()
                .unwrap_or(Aabb::EMPTY);
            let binds = &self.library.rigs()[rec.rig as usize].inverse_binds;
            let models = palette
                .iter()
                .zip(binds)
                .enumerate()
                .map(|(j, (entry, ibm))| {
                    model_from_palette(entry, ibm).ok_or(GpuError::SingularBind {
                        rig: rec.rig,
                        joint: j as u32,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            out.push(InstanceReadback {
                record: i,
                palette,
                models,
                bounds,
            });
        }
        Ok(out)
    }

    pub(super) fn bounds_range(
        &self,
        first: usize,
        count: usize,
    ) -> Result<ReadRange<'_>, GpuError> {
        let end = (first + count) as u64;
        if end > self.last_frame.instances {
            return Err(EvalError::OutputSize {
                expected: end as usize,
                found: self.last_frame.instances as usize,
            }
            .into());
        }
        Ok(ReadRange {
            buffer: self.bounds.buffer(),
            offset: first as u64 * AABB_BYTES,
            size: count as u64 * AABB_BYTES,
        })
    }
}

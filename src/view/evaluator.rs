//! Instance records evaluated into the palette and box buffers a
//! [`Stage`](crate::render::Stage) draws from: by the GPU backend straight into its own
//! buffers, or by a CPU backend and uploaded into buffers of the same shape. `sinew render` and
//! the viewer's frame both evaluate through it.

use super::ViewError;
use crate::gpu::{PaletteSegment, locate_block};
use crate::math::Aabb;
use crate::{CpuBackend, GpuBackend, GpuContext, InstanceRecord, Mat3x4Rows};

/// A CPU or GPU evaluator and the buffers its poses land in.
pub struct RecordEvaluator {
    kind: Kind,
    bounds: Vec<Aabb>,
    /// Read the GPU's boxes without waiting ([`RecordEvaluator::set_late_bounds`]).
    late_bounds: bool,
}

enum Kind {
    Cpu {
        cpu: Box<CpuBackend>,
        palette: Vec<Mat3x4Rows>,
        /// The one buffer the palette is uploaded to.
        palette_buffer: [PaletteSegment; 1],
        aabb_buffer: wgpu::Buffer,
    },
    Gpu(Box<GpuBackend>),
}

impl RecordEvaluator {
    /// Evaluates with `cpu` and uploads into buffers of its own (grown as needed).
    pub fn cpu(device: &wgpu::Device, cpu: CpuBackend) -> Result<Self, ViewError> {
        Ok(Self {
            kind: Kind::Cpu {
                cpu: Box::new(cpu),
                palette: Vec::new(),
                palette_buffer: [PaletteSegment::whole(
                    &crate::render::create_palette_buffer(device, 1)?,
                )],
                aabb_buffer: crate::render::create_aabb_buffer(device, 1)?,
            },
            bounds: Vec::new(),
            late_bounds: false,
        })
    }

    /// Evaluates with `gpu`, into its own palette and box buffers.
    pub fn gpu(gpu: GpuBackend) -> Self {
        Self {
            kind: Kind::Gpu(Box::new(gpu)),
            bounds: Vec::new(),
            late_bounds: false,
        }
    }

    /// The palette and box buffers (replaced when [`RecordEvaluator::evaluate_at`] says so).
    pub fn buffers(&self) -> (&[PaletteSegment], &wgpu::Buffer) {
        match &self.kind {
            Kind::Cpu {
                palette_buffer,
                aabb_buffer,
                ..
            } => (palette_buffer, aabb_buffer),
            Kind::Gpu(gpu) => (gpu.palette_segments(), gpu.bounds_buffer()),
        }
    }

    /// Each record's box as last evaluated (or, with [`RecordEvaluator::set_late_bounds`], as
    /// last read back). On the GPU backend their `min.w` holds the LOD level the kernel chose
    /// (see [`crate::Aabb::min`]).
    pub fn bounds(&self) -> &[Aabb] {
        &self.bounds
    }

    /// Has the GPU evaluator read its boxes back without waiting from now on: [`bounds`]
    /// then holds those of a frame or two ago (the first evaluation, and one whose record
    /// count changed, still wait). Off by default: each evaluation's own boxes.
    ///
    /// [`bounds`]: RecordEvaluator::bounds
    pub fn set_late_bounds(&mut self, late: bool) {
        self.late_bounds = late;
    }

    /// Times the GPU evaluate pass with timestamp queries from now on (see
    /// [`GpuBackend::enable_timing`]); `false` on a CPU evaluator or without the feature.
    pub fn enable_timing(&mut self) -> Result<bool, ViewError> {
        Ok(match &mut self.kind {
            Kind::Gpu(gpu) => gpu.enable_timing()?,
            Kind::Cpu { .. } => false,
        })
    }

    /// GPU milliseconds of a recent evaluate pass without waiting (see
    /// [`GpuBackend::last_gpu_ms_async`]): `None` on a CPU evaluator or without timing,
    /// `Some(None)` while none has arrived.
    pub fn gpu_ms_async(&mut self) -> Result<Option<Option<f64>>, ViewError> {
        let Kind::Gpu(gpu) = &mut self.kind else {
            return Ok(None);
        };
        Ok(match gpu.enable_timing()? {
            true => Some(gpu.last_gpu_ms_async()?),
            false => None,
        })
    }

    /// Whether the GPU evaluates (and applies a [`crate::LodPolicy`] itself).
    pub fn is_gpu(&self) -> bool {
        matches!(self.kind, Kind::Gpu(_))
    }

    /// Has the GPU kernel apply `policy` from the next evaluation on (the CPU evaluators
    /// apply none: their callers use the policy's CPU twin).
    pub fn set_lod_policy(&mut self, policy: Option<crate::LodPolicy>) {
        if let Kind::Gpu(gpu) = &mut self.kind
            && gpu.lod_policy() != policy.as_ref()
        {
            gpu.set_lod_policy(policy);
        }
    }

    /// Evaluates `records` at frame time `now` into a palette of at least `palette_entries`
    /// entries; then sets the palette's floats `overrides` (index, value: morph weights set by
    /// hand). Returns whether the buffers were replaced (batches bound to the old ones must be
    /// made again).
    pub fn evaluate_at(
        &mut self,
        context: &GpuContext,
        now: f32,
        records: &[InstanceRecord],
        palette_entries: usize,
        overrides: &[(usize, f32)],
    ) -> Result<bool, ViewError> {
        let (device, queue) = (&context.device, &context.queue);
        let mut replaced = false;
        match &mut self.kind {
            Kind::Gpu(gpu) => {
                if (gpu.palette_capacity() as usize) < palette_entries {
                    gpu.reserve_palette(palette_entries as u32)?;
                    replaced = true;
                }
                gpu.evaluate_at(now, records)?;
                // A weight is written to the buffer of the block it lies in.
                let segments = gpu.palette_segments();
                let floats = size_of::<Mat3x4Rows>() / 4;
                for &(at, value) in overrides {
                    let entry = (at / floats) as u64;
                    let block = records.iter().find_map(|r| {
                        let len = gpu.palette_entries(r.rig)? as u64;
                        let start = u64::from(r.palette_offset);
                        (start..start + len)
                            .contains(&entry)
                            .then_some((r.palette_offset, len))
                    });
                    let Some((start, len)) = block else { continue };
                    if let Ok((k, first)) = locate_block(segments, start, len) {
                        let byte = (first + entry - u64::from(start)) * (floats as u64 * 4)
                            + (at % floats) as u64 * 4;
                        queue.write_buffer(&segments[k].buffer, byte, &value.to_le_bytes());
                    }
                }
                let count = records.len();
                let late = match self.late_bounds {
                    true => gpu.read_bounds_async(0)?,
                    false => None,
                };
                match late {
                    Some(read) if read.bounds.len() >= count => {
                        self.bounds.clear();
                        self.bounds.extend_from_slice(&read.bounds[..count]);
                    }
                    // Late boxes keep the last ones until newer arrive; the first wait.
                    _ if self.late_bounds && self.bounds.len() == count => {}
                    _ => self.bounds = gpu.read_bounds(0..count)?,
                }
            }
            Kind::Cpu {
                cpu,
                palette,
                palette_buffer,
                aabb_buffer,
            } => {
                palette.resize(palette_entries.max(1), Mat3x4Rows::IDENTITY);
                self.bounds.resize(records.len(), Aabb::EMPTY);
                cpu.evaluate_at(now, records, palette, &mut self.bounds)?;
                let floats: &mut [f32] = bytemuck::cast_slice_mut(palette.as_mut_slice());
                for &(at, value) in overrides {
                    if let Some(f) = floats.get_mut(at) {
                        *f = value;
                    }
                }
                let entry = size_of::<Mat3x4Rows>() as u64;
                if palette_buffer[0].buffer.size() < palette.len() as u64 * entry
                    || aabb_buffer.size() < self.bounds.len().max(1) as u64 * 32
                {
                    let buffer = crate::render::create_palette_buffer(device, palette.len())?;
                    *palette_buffer = [PaletteSegment::whole(&buffer)];
                    *aabb_buffer =
                        crate::render::create_aabb_buffer(device, self.bounds.len().max(1))?;
                    replaced = true;
                }
                crate::render::write_palette(device, queue, &palette_buffer[0].buffer, 0, palette)?;
                crate::render::write_aabbs(device, queue, aabb_buffer, 0, &self.bounds)?;
            }
        }
        Ok(replaced)
    }

    /// Palette entries `range` as last evaluated (read back from the GPU).
    pub fn palette_block(&self, range: std::ops::Range<u32>) -> Result<Vec<Mat3x4Rows>, ViewError> {
        Ok(match &self.kind {
            Kind::Gpu(gpu) => gpu.read_palette(range)?,
            Kind::Cpu { palette, .. } => palette
                .get(range.start as usize..range.end as usize)
                .map(<[Mat3x4Rows]>::to_vec)
                .unwrap_or_default(),
        })
    }
}

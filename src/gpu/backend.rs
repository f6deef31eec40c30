//! [`GpuBackend`]: every instance of every rig evaluated in one compute dispatch per frame
//! (more only when the palette outgrows one storage binding).

use std::num::NonZeroU64;
use std::ops::Range;
use std::sync::Arc;

use super::context::GpuContext;
use super::layout::{
    AABB_BYTES, FRAME_HEADER_BYTES, FrameHeader, INSTANCE_RECORD_BYTES, PALETTE_ENTRY_BYTES,
};
use super::library::GpuLibrary;
use super::palette::{BoundsBuffer, Palette};
use super::pipeline::EvaluatePipeline;
use super::readback::{
    InstanceReadback, ReadRange, bounds_from_bytes, model_from_palette, palette_from_bytes,
    read_ranges,
};
use super::scope::capture;
use crate::bake::{Aabb, MAX_JOINTS, Rig};
use crate::error::{EvalError, GpuError};
use crate::instance::InstanceRecord;
use crate::mask::JointMask;
use crate::math::Mat3x4Rows;
use crate::palette::PaletteBlock;

/// Settings of a [`GpuBackend`]; the defaults suit any device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuOptions {
    /// Palette entries to allocate up front.
    pub initial_palette_entries: u32,
    /// Largest palette binding in bytes (the device's `max_storage_buffer_binding_size` when
    /// `None` or larger). A palette beyond it is evaluated in windows, one dispatch each.
    pub max_palette_binding: Option<u64>,
}

impl Default for GpuOptions {
    fn default() -> Self {
        Self {
            initial_palette_entries: 4096,
            max_palette_binding: None,
        }
    }
}

/// Counters of the last [`GpuBackend::evaluate`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Instance records evaluated.
    pub instances: u64,
    /// Joints evaluated (palette entries written).
    pub joints: u64,
    /// Compute dispatches recorded.
    pub dispatches: u32,
    /// Bytes of instance data uploaded (one `write_buffer`).
    pub upload_bytes: u64,
}

/// One dispatch: consecutive records whose palette blocks start inside one palette window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Dispatch {
    first: usize,
    count: usize,
    window: u32,
    /// Byte offset of its header in the instance buffer.
    offset: u64,
}

/// What a frame bind group binds; equal keys can share the bind group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FrameKey {
    window: u32,
    offset: u64,
    instances: u64,
    palette: u64,
    bounds: u64,
}

/// The GPU evaluator: uploaded rigs and masks, the palette and AABB buffers, and the per-frame
/// instance buffer. Library code: it uses the device it is given and creates none.
#[derive(Debug)]
pub struct GpuBackend {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipeline: Arc<EvaluatePipeline>,
    library: GpuLibrary,
    palette: Palette,
    bounds: BoundsBuffer,
    instances: Option<wgpu::Buffer>,
    instances_generation: u64,
    frame_groups: Vec<(FrameKey, wgpu::BindGroup)>,
    max_binding: u64,
    palette_binding: u64,
    offset_alignment: u64,
    max_workgroups: u32,
    last_frame: FrameStats,
    plan: Vec<Dispatch>,
    timer: Option<super::PassTimer>,
}

fn align_up(x: u64, alignment: u64) -> u64 {
    x.div_ceil(alignment) * alignment
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl GpuBackend {
    /// Uploads `rigs` and `masks` (layer mask indices are positions in `masks`) to `context`'s
    /// device, compiling the evaluate pipeline if the context has not yet.
    pub fn new(context: &GpuContext, rigs: &[Rig], masks: &[JointMask]) -> Result<Self, GpuError> {
        Self::with_options(context, rigs, masks, GpuOptions::default())
    }

    /// [`GpuBackend::new`] with explicit options.
    pub fn with_options(
        context: &GpuContext,
        rigs: &[Rig],
        masks: &[JointMask],
        options: GpuOptions,
    ) -> Result<Self, GpuError> {
        let device = &context.device;
        let pipeline = context.evaluate_pipeline()?;
        let library = GpuLibrary::new(device, &pipeline, rigs, masks)?;
        let limits = device.limits();
        let max_binding = limits.max_storage_buffer_binding_size;
        let palette_binding = options
            .max_palette_binding
            .map_or(max_binding, |b| b.min(max_binding));
        let offset_alignment = u64::from(limits.min_storage_buffer_offset_alignment).max(16);
        let smallest_window = (MAX_JOINTS as u64 + 2 * offset_alignment) * PALETTE_ENTRY_BYTES;
        if palette_binding < smallest_window {
            return Err(GpuError::LimitExceeded {
                limit: "max_storage_buffer_binding_size",
                needed: smallest_window,
                available: palette_binding,
            });
        }
        Ok(Self {
            device: device.clone(),
            queue: context.queue.clone(),
            pipeline,
            library,
            palette: Palette::new(device, options.initial_palette_entries)?,
            bounds: BoundsBuffer::new(device, 1024)?,
            instances: None,
            instances_generation: 0,
            frame_groups: Vec::new(),
            max_binding,
            palette_binding,
            offset_alignment,
            max_workgroups: limits.max_compute_workgroups_per_dimension.max(1),
            last_frame: FrameStats::default(),
            plan: Vec::new(),
            timer: None,
        })
    }

    /// Joint count of rig `rig`, if it exists.
    pub fn joint_count(&self, rig: u32) -> Option<usize> {
        self.library.rigs().get(rig as usize).map(|r| r.joint_count)
    }

    /// Number of uploaded rigs.
    pub fn rig_count(&self) -> usize {
        self.library.rigs().len()
    }

    /// Bytes of storage the uploaded rigs and masks occupy.
    pub fn library_bytes(&self) -> u64 {
        self.library.bytes()
    }

    /// A palette block for one instance of rig `rig` (growing the palette if needed).
    pub fn allocate(&mut self, rig: u32) -> Result<PaletteBlock, GpuError> {
        let joints = self.joint_count(rig).ok_or(EvalError::NoSuchRig {
            rig,
            rig_count: self.rig_count(),
        })?;
        self.allocate_entries(joints as u32)
    }

    /// A palette block of `len` entries (growing the palette if needed).
    pub fn allocate_entries(&mut self, len: u32) -> Result<PaletteBlock, GpuError> {
        self.palette.allocate(&self.device, &self.queue, len)
    }

    /// Frees a block from [`GpuBackend::allocate`].
    pub fn free(&mut self, block: PaletteBlock) -> Result<(), GpuError> {
        self.palette.free(block)
    }

    /// Grows the palette to at least `entries` entries, for callers that lay out palette
    /// offsets themselves instead of allocating blocks.
    pub fn reserve_palette(&mut self, entries: u32) -> Result<(), GpuError> {
        self.palette.reserve(&self.device, &self.queue, entries)
    }

    /// Palette capacity in entries.
    pub fn palette_capacity(&self) -> u32 {
        self.palette.capacity()
    }

    /// The palette buffer (48-byte [`Mat3x4Rows`] entries), for a vertex shader to read. It is
    /// replaced when the palette grows.
    pub fn palette_buffer(&self) -> &wgpu::Buffer {
        self.palette.buffer()
    }

    /// The AABB buffer: one [`Aabb`] per instance record of the last frame, in record order.
    pub fn bounds_buffer(&self) -> &wgpu::Buffer {
        self.bounds.buffer()
    }

    /// Counters of the last frame.
    pub fn last_frame(&self) -> FrameStats {
        self.last_frame
    }

    /// Compute dispatches the last frame recorded: 1, or the number of palette windows when the
    /// palette exceeds one storage binding.
    pub fn dispatches_last_frame(&self) -> u32 {
        self.last_frame.dispatches
    }

    /// Bytes the last frame's evaluation wrote to global memory per joint: the 48-byte palette
    /// entry plus each instance's 32-byte AABB spread over its joints.
    pub fn bytes_written_per_joint(&self) -> f64 {
        let f = self.last_frame;
        if f.joints == 0 {
            return 0.0;
        }
        (f.joints * PALETTE_ENTRY_BYTES + f.instances * AABB_BYTES) as f64 / f.joints as f64
    }

    /// Palette entries per window when the palette needs more than one binding, else `None`.
    fn window_stride(&self) -> Option<u32> {
        let capacity = u64::from(self.palette.capacity()) * PALETTE_ENTRY_BYTES;
        if capacity <= self.palette_binding {
            return None;
        }
        // Window starts must be binding-offset aligned; windows overlap by MAX_JOINTS entries so
        // every block starting inside a window ends inside its binding.
        let step = self.offset_alignment / gcd(PALETTE_ENTRY_BYTES, self.offset_alignment);
        let entries = self.palette_binding / PALETTE_ENTRY_BYTES - MAX_JOINTS as u64;
        Some(((entries / step) * step) as u32)
    }

    /// Checks every record and returns the number of joints they hold.
    fn validate(&self, instances: &[InstanceRecord]) -> Result<u64, GpuError> {
        let capacity = self.palette.capacity() as usize;
        let mut joints = 0u64;
        for rec in instances {
            let n = self.library.validate(rec)?;
            let end = rec.palette_offset as usize + n;
            if end > capacity {
                return Err(EvalError::OutputSize {
                    expected: end,
                    found: capacity,
                }
                .into());
            }
            joints += n as u64;
        }
        Ok(joints)
    }

    /// Splits the records into dispatches and places each in the instance buffer; returns the
    /// bytes the buffer must hold.
    fn plan(&mut self, instances: &[InstanceRecord]) -> u64 {
        let stride = self.window_stride();
        let max_records =
            ((self.max_binding - FRAME_HEADER_BYTES) / INSTANCE_RECORD_BYTES).max(1) as usize;
        self.plan.clear();
        for (i, rec) in instances.iter().enumerate() {
            let window = stride.map_or(0, |s| rec.palette_offset / s);
            match self.plan.last_mut() {
                Some(d) if d.window == window && d.count < max_records => d.count += 1,
                _ => self.plan.push(Dispatch {
                    first: i,
                    count: 1,
                    window,
                    offset: 0,
                }),
            }
        }
        let mut end = 0;
        for d in &mut self.plan {
            d.offset = align_up(end, self.offset_alignment);
            end = d.offset + FRAME_HEADER_BYTES + d.count as u64 * INSTANCE_RECORD_BYTES;
        }
        end
    }

    fn reserve_instances(&mut self, bytes: u64) -> Result<(), GpuError> {
        if self.instances.as_ref().is_some_and(|b| b.size() >= bytes) {
            return Ok(());
        }
        let size = bytes
            .max(FRAME_HEADER_BYTES + 64 * INSTANCE_RECORD_BYTES)
            .next_power_of_two();
        let available = self.device.limits().max_buffer_size;
        let size = if size > available { bytes } else { size };
        if size > available {
            return Err(GpuError::LimitExceeded {
                limit: "max_buffer_size",
                needed: size,
                available,
            });
        }
        let device = &self.device;
        self.instances = Some(capture(device, || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("sinew instance records"),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?);
        self.instances_generation += 1;
        Ok(())
    }

    /// The frame bind group of dispatch `d`, reused while the buffers it names stay.
    fn frame_group(&mut self, d: &Dispatch, windowed: Option<u32>) -> Result<usize, GpuError> {
        let key = FrameKey {
            window: d.window,
            offset: d.offset,
            instances: self.instances_generation,
            palette: self.palette.generation(),
            bounds: self.bounds.generation(),
        };
        if let Some(i) = self.frame_groups.iter().position(|(k, _)| *k == key) {
            return Ok(i);
        }
        let Some(instances) = self.instances.as_ref() else {
            return Err(GpuError::Validation("instance buffer missing".into()));
        };
        let instance_size = (instances.size() - d.offset).min(self.max_binding) / 16 * 16;
        let palette = self.palette.buffer();
        let (palette_offset, palette_size) = match windowed {
            None => (0, None),
            Some(stride) => {
                let start = u64::from(d.window) * u64::from(stride) * PALETTE_ENTRY_BYTES;
                let len = (palette.size() - start)
                    .min((u64::from(stride) + MAX_JOINTS as u64) * PALETTE_ENTRY_BYTES);
                (start, NonZeroU64::new(len))
            }
        };
        let device = &self.device;
        let group = capture(device, || {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("sinew frame bind group"),
                layout: &self.pipeline.frame_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: instances,
                            offset: d.offset,
                            size: NonZeroU64::new(instance_size),
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: palette,
                            offset: palette_offset,
                            size: palette_size,
                        }),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: self.bounds.buffer().as_entire_binding(),
                    },
                ],
            })
        })?;
        // Stale groups name replaced buffers or old offsets; keep the cache small.
        self.frame_groups.retain(|(k, _)| {
            k.instances == key.instances && k.palette == key.palette && k.bounds == key.bounds
        });
        if self.frame_groups.len() >= 64 {
            self.frame_groups.clear();
        }
        self.frame_groups.push((key, group));
        Ok(self.frame_groups.len() - 1)
    }

    /// Evaluates every instance: writes each one's palette block and its AABB (at its index in
    /// `instances`). All records go up in one `write_buffer`, and one compute pass runs one
    /// dispatch (one per palette window when the palette exceeds a storage binding). Palette
    /// blocks of different records should not overlap, or their contents are unspecified.
    pub fn evaluate(&mut self, instances: &[InstanceRecord]) -> Result<(), GpuError> {
        let joints = self.validate(instances)?;
        self.last_frame = FrameStats::default();
        if instances.is_empty() {
            return Ok(());
        }
        self.bounds.reserve(&self.device, instances.len() as u64)?;
        let bytes = self.plan(instances);
        self.reserve_instances(bytes)?;
        let stride = self.window_stride();
        let mut groups = Vec::with_capacity(self.plan.len());
        for d in self.plan.clone() {
            groups.push(self.frame_group(&d, stride)?);
        }
        let Some(buffer) = self.instances.as_ref() else {
            return Err(GpuError::Validation("instance buffer missing".into()));
        };
        let Some(size) = NonZeroU64::new(bytes) else {
            return Ok(());
        };
        let max_workgroups = u64::from(self.max_workgroups);
        let device = &self.device;
        let queue = &self.queue;
        let plan = &self.plan;
        let pipeline = &self.pipeline;
        let library = &self.library;
        let frame_groups = &self.frame_groups;
        let timer = self.timer.as_ref();
        let written = capture(device, || {
            let Some(mut view) = queue.write_buffer_with(buffer, 0, size) else {
                return false;
            };
            for d in plan {
                let count = d.count as u64;
                let header = FrameHeader {
                    instance_count: d.count as u32,
                    grid_width: count.min(max_workgroups) as u32,
                    palette_base: stride.map_or(0, |s| d.window * s),
                    first_instance: d.first as u32,
                };
                let start = d.offset as usize;
                let records = start + FRAME_HEADER_BYTES as usize;
                let end = records + d.count * INSTANCE_RECORD_BYTES as usize;
                view.slice(start..records)
                    .copy_from_slice(bytemuck::bytes_of(&header));
                view.slice(records..end)
                    .copy_from_slice(bytemuck::cast_slice(&instances[d.first..d.first + d.count]));
            }
            drop(view);
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("sinew evaluate"),
            });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("sinew evaluate pass"),
                    timestamp_writes: timer.map(|t| t.pass_writes()),
                });
                pass.set_pipeline(&pipeline.pipeline);
                pass.set_bind_group(0, library.bind_group(), &[]);
                for (d, &g) in plan.iter().zip(&groups) {
                    let count = d.count as u64;
                    let width = count.min(max_workgroups);
                    let height = count.div_ceil(width);
                    pass.set_bind_group(1, &frame_groups[g].1, &[]);
                    pass.dispatch_workgroups(width as u32, height as u32, 1);
                }
            }
            if let Some(t) = timer {
                t.resolve(&mut encoder);
            }
            queue.submit([encoder.finish()]);
            true
        })?;
        if !written {
            return Err(GpuError::Validation(
                "the instance buffer rejected the frame's records".into(),
            ));
        }
        self.last_frame = FrameStats {
            instances: instances.len() as u64,
            joints,
            dispatches: self.plan.len() as u32,
            upload_bytes: bytes,
        };
        Ok(())
    }

    /// Times the evaluate pass with GPU timestamp queries from now on. Returns `false` (and
    /// changes nothing) when the device lacks `TIMESTAMP_QUERY`.
    pub fn enable_timing(&mut self) -> bool {
        if self.timer.is_none() {
            self.timer = super::PassTimer::new(&self.device, &self.queue);
        }
        self.timer.is_some()
    }

    /// GPU milliseconds of the last frame's evaluate pass (waits for it), when timing is on.
    pub fn last_gpu_ms(&self) -> Result<Option<f64>, GpuError> {
        self.timer
            .as_ref()
            .map(|t| t.read_ms(&self.device, &self.queue))
            .transpose()
    }

    /// Blocks until the GPU has finished every submitted frame.
    pub fn wait(&self) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map(|_| ())
            .map_err(|e| GpuError::Readback(e.to_string()))
    }

    /// Reads palette entries `range` back.
    pub fn read_palette(&self, range: Range<u32>) -> Result<Vec<Mat3x4Rows>, GpuError> {
        let bytes = read_ranges(
            &self.device,
            &self.queue,
            &[self.palette_range(range.start, range.end.saturating_sub(range.start))?],
        )?;
        Ok(bytes
            .first()
            .map_or_else(Vec::new, |b| palette_from_bytes(b)))
    }

    /// Reads the AABBs of records `range` of the last frame back.
    pub fn read_bounds(&self, range: Range<usize>) -> Result<Vec<Aabb>, GpuError> {
        let bytes = read_ranges(
            &self.device,
            &self.queue,
            &[self.bounds_range(range.start, range.end.saturating_sub(range.start))?],
        )?;
        Ok(bytes
            .first()
            .map_or_else(Vec::new, |b| bounds_from_bytes(b)))
    }

    /// Reads back palette, model matrices and AABB of the records `chosen` (indices into
    /// `frame`, the records last passed to [`GpuBackend::evaluate`]) in one GPU round trip.
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
            let n = self.library.validate(rec)?;
            ranges.push(self.palette_range(rec.palette_offset, n as u32)?);
            ranges.push(self.bounds_range(i, 1)?);
        }
        let bytes = read_ranges(&self.device, &self.queue, &ranges)?;
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

    fn palette_range(&self, offset: u32, len: u32) -> Result<ReadRange<'_>, GpuError> {
        let end = u64::from(offset) + u64::from(len);
        if end > u64::from(self.palette.capacity()) {
            return Err(EvalError::OutputSize {
                expected: end as usize,
                found: self.palette.capacity() as usize,
            }
            .into());
        }
        Ok(ReadRange {
            buffer: self.palette.buffer(),
            offset: u64::from(offset) * PALETTE_ENTRY_BYTES,
            size: u64::from(len) * PALETTE_ENTRY_BYTES,
        })
    }

    fn bounds_range(&self, first: usize, count: usize) -> Result<ReadRange<'_>, GpuError> {
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

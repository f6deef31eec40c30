//! [`GpuBackend`]: every instance of every rig evaluated in one compute dispatch per frame
//! (more only when the palette or the records outgrow one storage binding), from records that
//! stay on the GPU and are uploaded only when they change.

mod buffers;
mod content;
mod lod;
mod options;
mod palette_blocks;
mod previous;
mod reads;
mod records;
mod traffic;
mod windows;

use std::num::NonZeroU64;
use std::ops::Range;
use std::sync::Arc;

use super::bounds_read::BoundsReadback;
use super::clip_format::ClipFormat;
use super::context::GpuContext;
use super::layout::{
    AABB_BYTES, FRAME_HEADER_BYTES, FrameHeader, INSTANCE_RECORD_BYTES, PALETTE_ENTRY_BYTES,
};
use super::library::GpuLibrary;
use super::lod_compact::{LodCompact, list_boxes};
use super::lost::DeviceLoss;
use super::palette::{BoundsBuffer, Palette};
use super::pipeline::EvaluatePipeline;
use super::readback::ReadRange;
use super::resident::{Dispatch, ResidentTable};
use super::scope::capture;
use super::worlds::WorldReadback;
use crate::baked::Rig;
use crate::error::{EvalError, GpuError};
use crate::instance::InstanceRecord;
use crate::mask::JointMask;
pub use lod::SlotList;
use lod::lod_header;
pub use options::GpuOptions;
use windows::{align_up, bounds_base, check_blocks, check_storage_buffers, palette_paging};

/// Counters of the last evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Instance slots of the table (empty slots included, and those the kernel skips for their
    /// update rate, freeze or culling: it decides on the GPU, so the CPU does not count them).
    pub instances: u64,
    /// Joints of the dispatched slots (joint palette entries written when none is skipped).
    pub joints: u64,
    /// Palette entries of morph weights written (after the joints of rigs with morph targets).
    pub morph_entries: u64,
    /// Evaluation dispatches recorded (the two of the slot-list compaction before an
    /// indirect one, in the same timed pass, not counted).
    pub dispatches: u32,
    /// Whether the frame was indirect: its one evaluation dispatch ran only the slots the
    /// compaction listed ([`crate::lod`]), its workgroup count coming from the GPU.
    pub indirect: bool,
    /// Instance records uploaded: the slots written since the previous evaluation.
    pub records_uploaded: u64,
    /// Bytes of instance state uploaded, in one `write_buffer`: those records (256 bytes each,
    /// 208 for a root-motion record uploaded around the world the GPU owns) and the dispatch
    /// headers.
    pub upload_bytes: u64,
    /// Bytes the kernel read from global memory, by [`crate::gpu::RigReads`] (see
    /// [`GpuBackend::bytes_read_per_joint`]); `None` unless
    /// [`GpuBackend::set_read_counting`] is on.
    pub bytes_read: Option<u64>,
}

/// What a frame bind group binds: dispatch `index` of the plan and the buffers; a group whose
/// key is unchanged is reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FrameKey {
    index: usize,
    dispatch: Dispatch,
    records: u64,
    headers: u64,
    palette: u64,
    bounds: u64,
    previous: u64,
}

/// The GPU evaluator: uploaded rigs and masks, the palette and AABB buffers, and the
/// GPU-resident instance records. Library code: it uses the device it is given and creates none.
///
/// Records live on the GPU in slots. [`GpuBackend::set_record`] writes one slot (a record equal
/// to the slot's is not uploaded again); [`GpuBackend::evaluate_resident`] uploads what changed
/// in one write and evaluates every slot at a frame time. The kernel derives each layer's clip
/// time and weight from its clock and fade, so a character whose motion did not change costs no
/// upload. [`GpuBackend::evaluate_at`] is the one-call form: a whole frame's records, slot `i` =
/// record `i`.
///
/// Root motion on the GPU: a record with [`InstanceRecord::GPU_ROOT_MOTION`] has its world
/// moved by every evaluation (from the previous evaluation's frame time to this one's, see
/// [`crate::cpu::advance_root_motion`]) and kept on the GPU. Its world goes up when its slot is
/// newly filled or by [`GpuBackend::set_record_world`]; [`GpuBackend::set_record`] with the flag
/// leaves the GPU's world alone. [`GpuBackend::read_worlds`] and
/// [`GpuBackend::read_worlds_async`] read the worlds back.
///
/// Animation LOD ([`crate::lod`]): a record's LOD bits, or the [`crate::LodPolicy`] of
/// [`GpuBackend::set_lod_policy`] for records without them, have the kernel evaluate it only on
/// its due frames ([`GpuBackend::frame_index`]), sample only its LOD level's joints, and skip it
/// while the renderer's last culling left it out of view. A skipped slot keeps its palette and
/// box; its root-motion world still moves every frame.
#[derive(Debug)]
pub struct GpuBackend {
    device: wgpu::Device,
    queue: wgpu::Queue,
    loss: DeviceLoss,
    pipeline: Arc<EvaluatePipeline>,
    /// The clips the library holds and the pipeline samples.
    clips: ClipFormat,
    library: GpuLibrary,
    palette: Palette,
    bounds: BoundsBuffer,
    table: ResidentTable,
    records: Option<wgpu::Buffer>,
    records_generation: u64,
    staging: Option<wgpu::Buffer>,
    headers: Option<wgpu::Buffer>,
    headers_generation: u64,
    /// The last evaluation's frame bind groups (and previous palette groups), one per
    /// dispatch, in plan order.
    frame_groups: Vec<(FrameKey, wgpu::BindGroup, Option<wgpu::BindGroup>)>,
    /// The previous palette of motion vectors, when [`GpuOptions::previous_palette`] asks.
    previous: Option<super::PreviousPalette>,
    max_binding: u64,
    /// Largest record binding (a multiple of the record size is used).
    record_binding: u64,
    offset_alignment: u64,
    header_stride: u64,
    max_workgroups: u32,
    last_stride: Option<Option<u32>>,
    /// Joints of the live slots, counted when the slots' rigs last changed.
    joints: u64,
    /// Palette entries of morph weights of the live slots, counted with `joints`.
    morph_entries: u64,
    last_frame: FrameStats,
    spans: Vec<Range<u64>>,
    /// Frame time of the last evaluation (root motion runs from it to the next).
    prev_time: Option<f32>,
    worlds: WorldReadback,
    bounds_reads: BoundsReadback,
    timer: Option<super::PassTimer>,
    /// Frame counter of the next evaluation (update rates are due on it).
    frame: u32,
    /// Whether the next evaluation runs every slot, whatever its LOD bits.
    evaluate_all: bool,
    /// Whether each evaluation counts the kernel's global reads (a CPU walk over every record).
    count_reads: bool,
    lod_policy: Option<crate::LodPolicy>,
    /// The slot-list compaction of indirect frames, compiled at the first one.
    lod_compact: Option<LodCompact>,
    /// Where the last evaluation's slot list starts (boxes), when it was indirect.
    listed_at: Option<u32>,
}

impl GpuBackend {
    /// Uploads `rigs` and `masks` (layer mask indices are positions in `masks`) to `context`'s
    /// device, compiling the evaluate pipeline if the context has not yet. Fails with
    /// [`crate::EvalError::InvalidRig`] (inside [`GpuError::Eval`]) when a rig's parts disagree.
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
        crate::cpu::check_rigs(rigs)?;
        let device = &context.device;
        let pipeline = if options.previous_palette {
            check_storage_buffers(device)?;
            context.previous_palette_pipeline(options.clips.is_compressed())?
        } else if options.clips.is_compressed() {
            context.compressed_pipeline()?
        } else {
            context.evaluate_pipeline()?
        };
        let library = GpuLibrary::new(device, &pipeline, rigs, masks, options.clips, &[])?;
        let limits = device.limits();
        let max_binding = limits.max_storage_buffer_binding_size;
        let palette_binding = options
            .max_palette_binding
            .map_or(max_binding, |b| b.min(max_binding));
        let record_binding = options
            .max_record_binding
            .map_or(max_binding, |b| b.min(max_binding))
            .max(INSTANCE_RECORD_BYTES);
        let offset_alignment = u64::from(limits.min_storage_buffer_offset_alignment).max(16);
        let paging = palette_paging(&limits, palette_binding)?;
        check_blocks(rigs, paging)?;
        let palette = Palette::new(
            device,
            &context.queue,
            options.initial_palette_entries,
            paging,
        )?;
        let previous = options
            .previous_palette
            .then(|| super::PreviousPalette::new(device, &context.queue, &palette))
            .transpose()?;
        Ok(Self {
            device: device.clone(),
            queue: context.queue.clone(),
            loss: context.device_loss().clone(),
            pipeline,
            clips: options.clips,
            library,
            palette,
            bounds: BoundsBuffer::new(device, 1024)?,
            table: ResidentTable::default(),
            records: None,
            records_generation: 0,
            staging: None,
            headers: None,
            headers_generation: 0,
            frame_groups: Vec::new(),
            previous,
            max_binding,
            record_binding,
            offset_alignment,
            header_stride: align_up(
                FRAME_HEADER_BYTES,
                u64::from(limits.min_uniform_buffer_offset_alignment),
            ),
            max_workgroups: limits.max_compute_workgroups_per_dimension.max(1),
            last_stride: None,
            joints: 0,
            morph_entries: 0,
            last_frame: FrameStats::default(),
            spans: Vec::new(),
            prev_time: None,
            worlds: WorldReadback::default(),
            bounds_reads: BoundsReadback::default(),
            timer: None,
            frame: 0,
            evaluate_all: true,
            count_reads: false,
            lod_policy: None,
            lod_compact: None,
            listed_at: None,
        })
    }

    /// Joint count of rig `rig`, if it exists.
    pub fn joint_count(&self, rig: u32) -> Option<usize> {
        self.library.rigs().get(rig as usize).map(|r| r.joint_count)
    }

    /// The clips the kernel samples ([`GpuOptions::clips`]).
    pub fn clip_format(&self) -> ClipFormat {
        self.clips
    }

    /// How the kernel groups instances ([`crate::GpuContext::evaluate_shape`] of the context it
    /// was made from).
    pub fn evaluate_shape(&self) -> crate::gpu::EvaluateShape {
        self.pipeline.shape
    }

    /// Number of uploaded rigs.
    pub fn rig_count(&self) -> usize {
        self.library.rigs().len()
    }

    /// Bytes of storage the uploaded rigs and masks occupy.
    pub fn library_bytes(&self) -> u64 {
        self.library.bytes()
    }

    /// The AABB buffer: one [`Aabb`](crate::Aabb) per instance record of the last frame, in record order.
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

    /// Evaluates `instances` at frame time 0 ([`GpuBackend::evaluate_at`]).
    pub fn evaluate(&mut self, instances: &[InstanceRecord]) -> Result<(), GpuError> {
        self.evaluate_at(0.0, instances)
    }

    /// Makes `instances` the resident records (slot `i` = record `i`; records equal to the
    /// slot's are not uploaded again, and root-motion worlds the GPU owns are kept, as
    /// [`GpuBackend::set_record`] says) and evaluates them at frame time `now`: each one's palette
    /// block and its AABB (at its index). Palette blocks of different records should not
    /// overlap, or their contents are unspecified.
    pub fn evaluate_at(&mut self, now: f32, instances: &[InstanceRecord]) -> Result<(), GpuError> {
        self.validate(instances)?;
        self.table.resize(instances.len() as u32);
        for (slot, rec) in instances.iter().enumerate() {
            self.table.set(slot as u32, rec);
        }
        self.evaluate_resident(now)
    }

    /// Uploads the resident records written since the last evaluation (one `write_buffer`, then
    /// a copy per range of consecutive bytes) and evaluates every slot at frame time `now`, in
    /// one compute pass: one dispatch, or one per palette window or record binding.
    ///
    /// Root-motion records ([`InstanceRecord::GPU_ROOT_MOTION`]) move their worlds from the
    /// frame time of the previous evaluation to `now`; the first evaluation moves nothing. Frame
    /// times that jump to a new epoch need [`GpuBackend::rebase_frame_time`] first.
    ///
    /// On a lost device nothing is submitted: [`GpuError::DeviceLost`].
    pub fn evaluate_resident(&mut self, now: f32) -> Result<(), GpuError> {
        self.last_frame = FrameStats::default();
        self.listed_at = None;
        self.loss.check()?;
        if !now.is_finite() {
            return Err(EvalError::BadLayer {
                reason: format!("frame time {now} is not finite"),
            }
            .into());
        }
        let slots = self.table.len();
        if slots == 0 {
            self.prev_time = Some(now);
            return Ok(());
        }
        let bounds_generation = self.bounds.generation();
        // The slot list of indirect frames follows the boxes.
        let list_base = u64::from(slots);
        self.bounds
            .reserve(&self.device, list_base + list_boxes(list_base))?;
        // A new box buffer holds no box for the slots a frame skips: run them all.
        self.evaluate_all |= self.bounds.generation() != bounds_generation;
        self.reserve_records(slots)?;
        let stride = self.palette.stride();
        let rebuild = self.last_stride != Some(stride);
        self.last_stride = Some(stride);
        let max_slots =
            (self.record_binding / INSTANCE_RECORD_BYTES).min(u64::from(u32::MAX)) as u32;
        if rebuild || self.table.layout_changed() {
            // Slots with a new rig or palette block have no pose yet.
            self.evaluate_all = true;
            let rigs = self.library.rigs();
            self.joints = self
                .table
                .records()
                .iter()
                .filter_map(|r| rigs.get(r.rig as usize))
                .map(|r| r.joint_count as u64)
                .sum();
            self.morph_entries = self
                .table
                .records()
                .iter()
                .filter_map(|r| rigs.get(r.rig as usize))
                // IK entries after the weights are read by the kernel, not written.
                .map(|r| (r.ik_entry_offset - r.joint_count) as u64)
                .sum();
        }
        let plan = self.table.plan(stride, max_slots, rebuild).to_vec();
        // One dispatch and not every slot due: the frame runs only the listed slots.
        let indirect = plan.len() == 1 && !self.evaluate_all;
        if indirect && self.lod_compact.is_none() {
            self.lod_compact = Some(LodCompact::new(&self.device, &self.pipeline)?);
        }
        self.reserve_headers(plan.len() as u64)?;
        self.follow_previous(slots)?;
        self.build_frame_groups(&plan, stride)?;

        // Staging: the dirty record bytes, range after range, then one header per dispatch.
        let mut ranges = std::mem::take(&mut self.spans);
        let dirty = self.table.take_dirty(&mut ranges);
        let record_bytes: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        let prev_time = self.prev_time.unwrap_or(now);
        let header_bytes = plan.len() as u64 * self.header_stride;
        let upload = record_bytes + header_bytes;
        self.reserve_staging(upload)?;
        let max_workgroups = u64::from(self.max_workgroups);
        let (Some(staging), Some(records), Some(headers)) =
            (&self.staging, &self.records, &self.headers)
        else {
            return Err(GpuError::Validation("instance buffers missing".into()));
        };
        let Some(size) = NonZeroU64::new(upload) else {
            return Ok(());
        };
        let device = &self.device;
        let queue = &self.queue;
        let mirror: &[u8] = bytemuck::cast_slice(self.table.records());
        let pipeline = &self.pipeline;
        let library = &self.library;
        let frame_groups = &self.frame_groups;
        let timer = self.timer.as_ref();
        let header_stride = self.header_stride;
        let mut lod = lod_header(self.frame, self.evaluate_all, self.lod_policy.as_ref());
        let compact = self.lod_compact.as_ref().filter(|_| indirect);
        if compact.is_some() {
            lod.lod_flags |= FrameHeader::INDIRECT;
            lod.list_base = slots;
        }
        let written = capture(device, || {
            let Some(mut view) = queue.write_buffer_with(staging, 0, size) else {
                return false;
            };
            let mut at = 0usize;
            for r in &ranges {
                let bytes = &mirror[r.start as usize..r.end as usize];
                view.slice(at..at + bytes.len()).copy_from_slice(bytes);
                at += bytes.len();
            }
            for d in &plan {
                let groups = u64::from(d.count.div_ceil(pipeline.shape.group_instances()));
                let bounds_base = bounds_base(d.first, self.offset_alignment);
                let header = FrameHeader {
                    instance_count: d.count,
                    grid_width: groups.min(max_workgroups) as u32,
                    palette_base: stride.map_or(0, |s| d.window * s),
                    first_instance: d.first - bounds_base,
                    time: now,
                    prev_time,
                    slot_base: d.first,
                    ..lod
                };
                view.slice(at..at + FRAME_HEADER_BYTES as usize)
                    .copy_from_slice(bytemuck::bytes_of(&header));
                at += header_stride as usize;
            }
            drop(view);
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("sinew evaluate"),
            });
            let mut at = 0u64;
            for r in &ranges {
                let bytes = r.end - r.start;
                encoder.copy_buffer_to_buffer(staging, at, records, r.start, bytes);
                at += bytes;
            }
            encoder.copy_buffer_to_buffer(staging, at, headers, 0, header_bytes);
            if let Some(c) = compact {
                c.reset(queue);
            }
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("sinew evaluate pass"),
                    timestamp_writes: timer.map(|t| t.pass_writes()),
                });
                if let (Some(c), Some((_, group, _))) = (compact, frame_groups.first()) {
                    c.encode(&mut pass, group, slots, max_workgroups as u32);
                }
                pass.set_pipeline(&pipeline.pipeline);
                pass.set_bind_group(0, library.bind_group(), &[]);
                for (d, (_, group, previous)) in plan.iter().zip(frame_groups) {
                    let groups = u64::from(d.count.div_ceil(pipeline.shape.group_instances()));
                    let width = groups.min(max_workgroups).max(1);
                    let height = groups.div_ceil(width);
                    pass.set_bind_group(1, group, &[]);
                    if let Some(previous) = previous {
                        pass.set_bind_group(2, previous, &[]);
                    }
                    match compact {
                        Some(c) => pass.dispatch_workgroups_indirect(c.args(), 0),
                        None => pass.dispatch_workgroups(width as u32, height as u32, 1),
                    }
                }
            }
            if let Some(t) = timer {
                t.resolve(&mut encoder);
            }
            queue.submit([encoder.finish()]);
            true
        })?;
        self.spans = ranges;
        self.table.uploaded();
        // The submission may be what found the device lost.
        self.loss.status()?;
        if !written {
            // The queue refused the write without a validation error: the device is lost. A
            // device destroyed while work was in flight reports why once that work is done.
            if self.loss.reason().is_none() {
                let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
            }
            return Err(self.loss.lost());
        }
        self.last_frame = FrameStats {
            instances: u64::from(slots),
            joints: self.joints,
            morph_entries: self.morph_entries,
            dispatches: plan.len() as u32,
            indirect: compact.is_some(),
            records_uploaded: dirty,
            upload_bytes: upload,
            bytes_read: self.count_reads.then(|| self.frame_reads(now, prev_time)),
        };
        self.listed_at = self.last_frame.indirect.then_some(slots);
        self.prev_time = Some(now);
        self.frame = self.frame.wrapping_add(1);
        self.evaluate_all = false;
        Ok(())
    }

    /// Frame times moved to a new epoch: `shift` seconds were subtracted from them (the records
    /// re-anchored accordingly). The remembered frame time of the last evaluation moves too, so
    /// root motion continues without a jump.
    pub fn rebase_frame_time(&mut self, shift: f32) {
        self.prev_time = self.prev_time.map(|t| t - shift);
    }

    /// Forgets the last evaluation's frame time: the next evaluation moves no root-motion world.
    pub fn reset_frame_time(&mut self) {
        self.prev_time = None;
    }

    /// Times the evaluate pass with GPU timestamp queries from now on. Returns `false` (and
    /// changes nothing) when the device lacks `TIMESTAMP_QUERY`; errors when wgpu refuses the
    /// queries or the device is lost.
    pub fn enable_timing(&mut self) -> Result<bool, GpuError> {
        self.loss.check()?;
        if self.timer.is_none() {
            self.timer = super::PassTimer::new(&self.device, &self.queue)?;
        }
        Ok(self.timer.is_some())
    }

    /// GPU milliseconds of the last frame's evaluate pass (waits for it), when timing is on.
    pub fn last_gpu_ms(&self) -> Result<Option<f64>, GpuError> {
        self.loss.check()?;
        self.timer
            .as_ref()
            .map(|t| t.read_ms(&self.device, &self.queue))
            .transpose()
            .map_err(|e| self.loss.explain(e))
    }

    /// GPU milliseconds of a recent frame's evaluate pass without waiting (usually a frame or
    /// two old; `None` while none has arrived), when timing is on.
    pub fn last_gpu_ms_async(&mut self) -> Result<Option<f64>, GpuError> {
        self.loss.check()?;
        let Some(timer) = self.timer.as_mut() else {
            return Ok(None);
        };
        let ms = timer
            .read_async(&self.device, &self.queue)
            .map_err(|e| self.loss.explain(e))?;
        Ok(ms.and_then(|ms| ms.first().copied()))
    }

    /// Blocks until the GPU has finished every submitted frame ([`GpuError::DeviceLost`] on a
    /// lost device).
    pub fn wait(&self) -> Result<(), GpuError> {
        self.loss.check()?;
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| self.loss.explain(GpuError::Readback(e.to_string())))?;
        self.loss.status()
    }

    /// The device's loss watch.
    pub fn device_loss(&self) -> &DeviceLoss {
        &self.loss
    }
}

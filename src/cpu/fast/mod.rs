//! The fast CPU evaluator: an explicit opt-in beside the exact one ([`crate::CpuBackend`], the
//! default, the test oracle and what `sinew pose` uses). [`FastCpuBackend`] takes the same
//! instance records and writes the same palette and bounds, trading exactness between keys for
//! speed in two ways:
//!
//! - clips are resampled once, at bake time, on a uniform grid ([`ResampledClips`]): key lookup
//!   is `⌊t · rate⌋`, interpolation one lerp per channel (normalized lerp for rotations), and
//!   channels constant over a clip are stored once;
//! - [`LANES`] (eight) instances of a rig are evaluated at once, one per SIMD lane
//!   ([`FastCpuBackend::evaluate`]): sample, blend, SQT to matrix, hierarchy, skin and bounds
//!   for one joint of the whole group in the same instructions, fused per joint, with no
//!   allocation per frame.
//!
//! IK (`ik.rs`), in the group kernel after the joint walk: the joints a rig's constraints can
//! turn are skinned and bounded after IK rather than in the walk; each lane whose IK entries
//! hold an active target is solved by the exact evaluator's solver
//! ([`crate::cpu::solve_constraints`]) on those joints' model matrices, taken out of the group
//! and written back; lanes without one keep the walk's results bit for bit. Joint LOD
//! ([`InstanceRecord::LOD_LEVEL`]) as in the exact evaluator: each lane samples the joints of
//! its level ([`crate::Skeleton::lod_sampled_joints`]) and holds the others at rest; joints no
//! lane of a group samples are not sampled at all.
//!
//! Inertialized transitions ([`crate::Inertialization`]): blocks are captured and copied out
//! before the groups run, as [`CpuBackend`] does (`cpu/inertial_copies.rs`), and an instance
//! whose offset is still decaying takes no lane: it is evaluated once, after the groups, by the
//! exact evaluator with that offset. Its pose is then the exact backend's, within the fast
//! mode's error of its lane's before and after the transition; while the offset decays it costs
//! an exact evaluation instead of a lane (not counted in
//! [`FastCpuBackend::bytes_read_per_joint`]). [`FastCpuBackend::evaluate_one`] does not
//! inertialize (it has no palette to hold the block).
//!
//! It is a backend of its own rather than a mode of [`CpuBackend`], so the exact evaluator
//! keeps a single code path; [`FastCpuBackend::from_exact`] builds the fast twin of an exact
//! backend, and [`FastCpuBackend::evaluate_one`] also returns one instance's model matrices.
//!
//! Accuracy, with ACL's metric (the displacement of virtual vertices 3 cm from each joint
//! along its three axes, model space, exact vs fast, every clip of every rig, dense times), at
//! the default 30 Hz: at most 0.061 mm on the rigs in `assets/` and 0.82 mm on the conformance
//! assets in `../shared/gltf`; `tests/cpu_fast.rs` asserts 0.1 mm and 1 mm. Clips keyed on a
//! uniform grid are exact at their key times (to float rounding). Layer blending uses the
//! exact evaluator's operators (override normalized lerp with weights clamped to 0..1,
//! additive deltas, per-joint masks) and root-motion flags are honoured the same way
//! ([`crate::cpu::hold_root_in_frame`], each joint's model-space frame baked with the rig); at
//! key times the two backends agree to the matrix tolerance.
//! A two-clip cross-fade (30 %) on the shipped rigs stays within 0.023 mm.
//!
//! Root motion: a record's held root (`HOLD_ROOT_*`) is removed from the pose the backend
//! samples, its resampled frames, so the pose agrees with its own clips. The backend does not
//! move worlds: [`InstanceRecord::GPU_ROOT_MOTION`] is applied by the GPU and by
//! [`CpuBackend::advance_root_motion`] (exact or compressed clips); a caller moving worlds by
//! root motion (the runtime's `RootMotion`) samples the exact key tracks, which the resampled
//! frames follow within the error bound above. A third, resampled definition of root motion
//! would give the world a second source of truth for the same clip.
//!
//! Kernels ([`FastKernel`], `dispatch.rs`): the group kernel is one generic body, compiled
//! twice, for the crate's target ([`FastKernel::Portable`]; SSE2 on baseline x86-64) and inside
//! a function built for AVX2 and FMA ([`FastKernel::Avx2Fma`]), which runs where the CPU reports
//! both at run time, so a default build uses them. [`FastCpuBackend::use_portable_kernel`]
//! forces the portable one. The two differ by the rounding of fused multiply-adds; results of
//! one instance do not depend on which instances share its group, to float rounding. Lane
//! arithmetic is written as loops over the eight lanes, which LLVM vectorizes for the copy it
//! is inlined into; the lane transposes (channels into lanes, skin matrices out to the
//! palettes) are AVX shuffles in the AVX2 copy (`lanes.rs`: `Isa`, the kernel's type
//! parameter, picks them).
//!
//! Speed, one core, instructions per joint in the AVX2 group kernel (callgrind, two-clip
//! cross-fade, 10,000 characters; `benches/cpu_fast.rs`, `docs/BENCHMARKS.md` for joints per
//! second against ozz-animation-rs): 141 on rig64 and 131 on the humanoid, then 116 and 106
//! after four changes, each found in the kernel's machine code:
//!
//! - an eight-lane value is one 256-bit vector type (`__m256` on x86, a type, not an
//!   instruction set) rather than an `[f32; 8]`, which LLVM split into eight scalars wherever
//!   two values met (a pose carried from layer to layer);
//! - a sample picks each channel's address (pre-interpolated record or constant) and loads
//!   once: a choice between two loaded values became 24 scalar pointer selects per channel;
//! - pre-interpolation runs lane by lane (the lane's two records and weights stay in
//!   registers) into a channel-major buffer, then each channel's eight values are transposed
//!   (per channel and group: 140 instructions before, about 60 after);
//! - the transposes are AVX shuffles, and each lane's skin matrix leaves an 8x8 transpose as
//!   one 32-byte and one 16-byte store (per joint and group: 167 instructions before, about
//!   110 after, bounds checks included). Shuffles written as array indexing, or rows cut from the transposed registers,
//!   came out as one element insert per value.
//!
//! Side by side with ozz-animation-rs 0.11 in a default build (2026-12-06, both cores,
//! `docs/BENCHMARKS.md`): 8.9× on rig64 and 9.6× on the humanoid, from 7.7× and 8.2× before
//! these changes in the same rounds. Outside the kernel a frame spends about 6 instructions per
//! joint: each lane resolves its record's layers in place (`evaluate::Lane`), root-motion holds
//! are a call out of the joint walk (inlined, with those lanes, their loads were hoisted into
//! every joint, 400 instructions per group joint), and records that are the bytes of the last
//! accepted frame are not checked again.
//!
//! Kept from earlier measurements: eight lanes (one AVX register per value); multiply-adds in
//! the matrix products, dot products, bounds and key lerps (fused on the AVX2 kernel); and, for
//! a layer slot whose lanes all play one clip, interpolating all its animated channels in one
//! pass over each lane's two frame records before the joint walk, which then reads one
//! pre-interpolated record per channel. Dropped: per-joint constants stored once and broadcast
//! at each use instead of pre-splatted across the lanes (21 % more instructions with AVX2,
//! where the pre-splatted values fold into the arithmetic as memory operands); the AVX2 kernel
//! built with AVX-512VL as well (32 vector registers) ran slower in one loaded run.

mod dispatch;
mod evaluate;
mod ik;
mod lanes;
mod reads;
mod resampled;
mod rig;
mod soa;

pub use dispatch::FastKernel;
pub use lanes::LANES;
pub use resampled::{
    CUBIC_RATE_FACTOR, DEFAULT_RATE, MAX_CLIP_FRAMES, MAX_FRAME_ANGLE, MAX_RATE, MIN_RATE,
    ResampledClip, ResampledClips, sanitize_rate,
};
pub use rig::FastRig;

use dispatch::evaluate_group;
use evaluate::{Group, Lane, Scratch};

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::Affine3A;

use crate::baked::Rig;
use crate::cpu::backend::ExactChunk;
use crate::cpu::inertial_copies::InertialCopies;
use crate::cpu::reads::ReadTally;
use crate::cpu::{ClipSource, CpuBackend};
use crate::error::EvalError;
use crate::instance::InstanceRecord;
use crate::mask::JointMask;
use crate::math::Aabb;
use crate::math::Mat3x4Rows;

/// A set of rigs and masks evaluated on the CPU from resampled clips, [`LANES`] instances per
/// SIMD lane group, in parallel across the cores. Same inputs and outputs as [`CpuBackend`]; see the
/// module doc for what differs.
#[derive(Clone, Debug)]
pub struct FastCpuBackend {
    rigs: Vec<Rig>,
    fast: Vec<FastRig>,
    masks: Vec<JointMask>,
    rate: f32,
    kernel: FastKernel,
    /// Bytes read and joints evaluated by the last evaluation.
    last_reads: ReadTally,
    /// Palette order and AABBs in that order, reused every frame.
    frame: super::FrameOrder,
    /// This frame's inertialization blocks, copied out of the palette after their capture.
    inertial: InertialCopies,
}

impl FastCpuBackend {
    /// A backend over `rigs` with layer masks `masks`, clips resampled at `rate` frames per
    /// second (see [`ResampledClips::build`]; [`DEFAULT_RATE`] is a good start).
    ///
    /// Fails with [`EvalError::InvalidRig`] when a rig's parts disagree (see [`CpuBackend::new`]).
    pub fn new(rigs: Vec<Rig>, masks: Vec<JointMask>, rate: f32) -> Result<Self, EvalError> {
        super::check_rigs(&rigs)?;
        Ok(Self::from_checked(rigs, masks, rate))
    }

    /// The fast twin of an exact backend: its rigs and masks, clips resampled at `rate`.
    pub fn from_exact(exact: &CpuBackend, rate: f32) -> Self {
        Self::from_checked(exact.rigs().to_vec(), exact.masks().to_vec(), rate)
    }

    fn from_checked(rigs: Vec<Rig>, masks: Vec<JointMask>, rate: f32) -> Self {
        let rate = sanitize_rate(rate);
        Self {
            fast: rigs.iter().map(|r| FastRig::new(r, rate)).collect(),
            rigs,
            masks,
            rate,
            kernel: FastKernel::detect(),
            last_reads: ReadTally::default(),
            frame: super::FrameOrder::new(LANES),
            inertial: InertialCopies::default(),
        }
    }

    /// The requested resampling rate (frames per second, after clamping).
    pub fn rate(&self) -> f32 {
        self.rate
    }

    /// The kernel groups are evaluated with: [`FastKernel::detect`]'s unless
    /// [`FastCpuBackend::use_portable_kernel`] was called.
    pub fn kernel(&self) -> FastKernel {
        self.kernel
    }

    /// Evaluates with the portable kernel from now on, even where the CPU runs a faster one
    /// (results differ by float rounding; for comparisons and tests).
    pub fn use_portable_kernel(&mut self) {
        self.kernel = FastKernel::Portable;
    }

    /// The rigs.
    pub fn rigs(&self) -> &[Rig] {
        &self.rigs
    }

    /// The baked fast data of each rig (resampled clips and per-joint constants).
    pub fn fast_rigs(&self) -> &[FastRig] {
        &self.fast
    }

    /// The masks.
    pub fn masks(&self) -> &[JointMask] {
        &self.masks
    }

    /// Adds a mask and returns its index.
    pub fn add_mask(&mut self, mask: JointMask) -> u32 {
        self.masks.push(mask);
        (self.masks.len() - 1) as u32
    }

    /// Evaluates one instance, also writing its model matrices (one per joint) to `models`:
    /// for attachments and tests. `palette` holds the instance's own block
    /// ([`Rig::palette_entries`]: one entry per joint, then its morph weights; the record's
    /// palette offset is ignored). Returns the animated AABB.
    pub fn evaluate_one(
        &self,
        record: &InstanceRecord,
        models: &mut [Affine3A],
        palette: &mut [Mat3x4Rows],
    ) -> Result<Aabb, EvalError> {
        let at_zero = InstanceRecord {
            palette_offset: 0,
            ..*record
        };
        let range = super::validate_record(&self.rigs, &self.masks, &[], &at_zero, palette.len())?;
        let joint_count = self.rigs[record.rig as usize].joint_count();
        if models.len() < joint_count {
            return Err(EvalError::OutputSize {
                expected: joint_count,
                found: models.len(),
            });
        }
        let rig = record.rig as usize;
        let lane = Lane::at(record, 0.0);
        let mut scratch = Scratch::default();
        let joints = range.start + joint_count;
        let (palette, morph) = palette[range.start..range.end].split_at_mut(joint_count);
        let mut palettes = [palette];
        let (aabbs, _) = evaluate_group(
            self.kernel,
            Group {
                fast: &self.fast[rig],
                masks: &self.masks,
                lanes: &[lane; LANES],
                palettes: &mut palettes,
                ik_inputs: &[ik_inputs(&self.rigs[rig], morph); LANES],
            },
            Some(&mut models[range.start..joints]),
            &mut scratch,
        );
        write_weights(&self.rigs[rig], &self.masks, &lane, morph);
        Ok(aabbs[0])
    }

    /// Evaluates every instance at frame time 0 ([`FastCpuBackend::evaluate_at`]).
    pub fn evaluate(
        &mut self,
        instances: &[InstanceRecord],
        palette: &mut [Mat3x4Rows],
        aabbs: &mut [Aabb],
    ) -> Result<(), EvalError> {
        self.evaluate_at(0.0, instances, palette, aabbs)
    }

    /// Evaluates every instance at frame time `now` into `palette` (at each record's offset, in
    /// any order; ranges must not overlap) and `aabbs` (one per record), in parallel across the
    /// cores.
    pub fn evaluate_at(
        &mut self,
        now: f32,
        instances: &[InstanceRecord],
        palette: &mut [Mat3x4Rows],
        aabbs: &mut [Aabb],
    ) -> Result<(), EvalError> {
        let (rigs, masks) = (&self.rigs, &self.masks);
        (self.inertial).capture(rigs, masks, &[], ClipSource::Exact, instances, palette, now)?;
        let mut frame = std::mem::take(&mut self.frame);
        let (bytes, joints) = (AtomicU64::new(0), AtomicU64::new(0));
        let result = frame.run(
            &self.rigs,
            &self.masks,
            &[],
            instances,
            palette,
            aabbs,
            |order, palette, base, sorted| {
                let (b, j) = self.evaluate_chunk(now, instances, order, palette, base, sorted);
                bytes.fetch_add(b, Ordering::Relaxed);
                joints.fetch_add(j, Ordering::Relaxed);
            },
        );
        self.frame = frame;
        result?;
        self.last_reads = ReadTally {
            bytes: bytes.into_inner(),
            joints: joints.into_inner(),
        };
        Ok(())
    }

    /// Bytes the last [`FastCpuBackend::evaluate_at`] read from this backend's layout (records,
    /// rig data, resampled frames) per joint evaluated, counted per lane group:
    ///
    /// `Σ groups (records + joints × shared + Σ visible layer slots slot) / Σ instances' joints`
    ///
    /// - records: `size_of::<InstanceRecord>()` per instance.
    /// - shared, per joint, once per group (its values are already in every lane): parent (2)
    ///   and inverse bind (384); bounds (192) for a joint with vertices; the rest pose (320)
    ///   unless the bottom visible slot replaces the pose; and per lane holding root motion the
    ///   root's rest and frame.
    /// - slot whose lanes all play one clip: per joint its channel table (8) and each constant
    ///   channel in every lane (96, 128 rotations); per lane the two frame records
    ///   (`2 × frame_stride × 16`).
    /// - slot of mixed clips, per lane: per joint its channel table (8), each constant channel's
    ///   value (16) and each animated channel's frame pair (32).
    /// - a masked slot adds each joint's eight lane mask weights (32), an additive one each
    ///   joint's rest pose and inverse rest scale (416).
    ///
    /// Per-lane loads count for all eight lanes, a partial group's spare lanes included; shared
    /// loads once per group, spread over its instances. A masked slot counts every joint as
    /// sampled, and so does joint LOD (joints past a lane's level). The IK stage adds, per lane
    /// it solves, its IK entries and the skeleton's parents. Morph weights (sampled from the exact key tracks) are not counted. 0
    /// before any evaluation.
    pub fn bytes_read_per_joint(&self) -> f64 {
        self.last_reads.per_joint()
    }

    /// Evaluates one chunk of instances (`order`, ascending by palette offset) on this core.
    /// `base` is the palette index of `palette[0]`. Returns the bytes read and joints evaluated.
    fn evaluate_chunk(
        &self,
        now: f32,
        instances: &[InstanceRecord],
        order: &[u32],
        palette: &mut [Mat3x4Rows],
        base: usize,
        aabbs: &mut [Aabb],
    ) -> (u64, u64) {
        SCRATCH.with_borrow_mut(|scratch| {
            let (mut bytes, mut evaluated) = (0, 0);
            let mut rest = &mut *palette;
            let mut rest_base = base;
            // An instance whose inertialization offset still decays is evaluated once, exactly
            // with its offset, after the groups: it takes no lane.
            let inertialized = !self.inertial.is_empty();
            let in_lanes = |p: usize| {
                let i = order[p] as usize;
                !inertialized || self.inertial.view(i, &instances[i], now).is_none()
            };
            let mut at = 0;
            while at < order.len() {
                if !in_lanes(at) {
                    at += 1;
                    continue;
                }
                let rig = instances[order[at] as usize].rig;
                // Positions in `order` of the group's lanes.
                let mut group = [at; LANES];
                let mut count = 1;
                let mut next = at + 1;
                while count < LANES && next < order.len() {
                    if in_lanes(next) {
                        if instances[order[next] as usize].rig != rig {
                            break;
                        }
                        group[count] = next;
                        count += 1;
                    }
                    next += 1;
                }
                let joints = self.rigs[rig as usize].joint_count();
                let entries = self.rigs[rig as usize].palette_entries();
                // Each lane's record with its layers' clocks and fades read at `now`; spare
                // lanes repeat the first.
                let lanes: [Lane<'_>; LANES] = std::array::from_fn(|lane| {
                    Lane::at(&instances[order[group[lane]] as usize], now)
                });
                let mut palettes: [&mut [Mat3x4Rows]; LANES] = Default::default();
                let mut weights: [&mut [Mat3x4Rows]; LANES] = Default::default();
                for (lane, (out, morph)) in palettes
                    .iter_mut()
                    .zip(&mut weights)
                    .enumerate()
                    .take(count)
                {
                    let rec = lanes[lane].record;
                    let start = rec.palette_offset as usize - rest_base;
                    let (_, tail) = std::mem::take(&mut rest).split_at_mut(start);
                    let (mine, tail) = tail.split_at_mut(entries);
                    (*out, *morph) = mine.split_at_mut(joints);
                    rest = tail;
                    rest_base = rec.palette_offset as usize + entries;
                }
                let rig_data = &self.rigs[rig as usize];
                let inputs: [&[Mat3x4Rows]; LANES] =
                    std::array::from_fn(|lane| ik_inputs(rig_data, weights[lane]));
                let (group_aabbs, group_bytes) = evaluate_group(
                    self.kernel,
                    Group {
                        fast: &self.fast[rig as usize],
                        masks: &self.masks,
                        lanes: &lanes,
                        palettes: &mut palettes[..count],
                        ik_inputs: &inputs,
                    },
                    None,
                    scratch,
                );
                for (&p, aabb) in group.iter().zip(&group_aabbs).take(count) {
                    aabbs[p] = *aabb;
                }
                bytes += group_bytes;

                evaluated += (count * joints) as u64;
                for (lane, morph) in lanes.iter().zip(&mut weights).take(count) {
                    write_weights(&self.rigs[rig as usize], &self.masks, lane, morph);
                }
                at = next;
            }
            if inertialized {
                // Instances in an inertialized transition, exactly with their offsets.
                let exact = ExactChunk {
                    rigs: &self.rigs,
                    masks: &self.masks,
                    retargets: &[],
                    source: ClipSource::Exact,
                    inertial: &self.inertial,
                };
                exact.evaluate(now, instances, order, palette, base, aabbs, true);
            }
            (bytes, evaluated)
        })
    }
}

/// The IK entries of an instance of `rig` in `entries`, its palette block after the joints.
fn ik_inputs<'a>(rig: &Rig, entries: &'a [Mat3x4Rows]) -> &'a [Mat3x4Rows] {
    entries
        .get(rig.ik_entry_offset() - rig.joint_count()..)
        .unwrap_or(&[])
}

/// The morph weights of `lane` (its layers at the frame time) into `entries`. The weights are
/// evaluated exactly, with the clip library's own keys (there are few of them).
fn write_weights(rig: &Rig, masks: &[JointMask], lane: &Lane<'_>, entries: &mut [Mat3x4Rows]) {
    if entries.is_empty() {
        return;
    }
    crate::cpu::write_morph_weights(rig, masks, lane.layers(), entries);
}

thread_local! {
    /// Working memory of the group being evaluated: one per worker thread, allocated on its
    /// first frame.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

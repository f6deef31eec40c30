//! [`CpuBackend`]: the exact stages run for every instance in parallel across the cores.

use glam::Affine3A;

use crate::baked::retarget_map::RetargetBinding;
use crate::baked::{MAX_JOINTS, Rig};
use crate::error::EvalError;
use crate::instance::{InstanceRecord, Layer, MAX_LAYERS};
use crate::layer_reads::LayerReads;
use crate::mask::JointMask;
use crate::math::{Aabb, Mat3x4Rows};

use super::inertial_copies::InertialCopies;
use super::{
    ClipSource, FrameOrder, PreviousPalette, evaluate_pose_with, reads, retarget, root_motion,
};

/// A set of rigs and masks evaluated on the CPU.
#[derive(Clone, Debug, Default)]
pub struct CpuBackend {
    pub(super) rigs: Vec<Rig>,
    masks: Vec<JointMask>,
    /// Where clip values come from.
    source: ClipSource,
    /// Palette order and AABBs in that order, reused every frame.
    pub(super) frame: FrameOrder,
    /// Per rig, what its evaluation reads ([`reads::RigReads`]).
    reads: Vec<reads::RigReads>,
    /// Per retarget map, what a layer played through it reads (kept with `reads`).
    map_reads: Vec<LayerReads>,
    /// Bytes read and joints evaluated by the last evaluation.
    last_reads: reads::ReadTally,
    /// The previous palette of motion vectors, when kept ([`CpuBackend::keep_previous_palette`]).
    previous: Option<PreviousPalette>,
    /// Evaluations so far: the frame counter the previous palette's stamps count.
    evaluations: u32,
    /// Retarget maps retargeted layers name ([`CpuBackend::set_retargets`]).
    pub(super) retargets: Vec<RetargetBinding>,
    /// This frame's inertialization blocks, copied out of the palette after their capture.
    inertial: InertialCopies,
}

impl CpuBackend {
    /// A backend over `rigs` with layer masks `masks` (mask indices are positions in `masks`).
    /// Fails with [`EvalError::InvalidRig`] when a rig's parts disagree (a rig assembled by hand
    /// whose clips, bounds or meshes do not fit its skeleton).
    pub fn new(rigs: Vec<Rig>, masks: Vec<JointMask>) -> Result<Self, EvalError> {
        check_rigs(&rigs)?;
        Ok(Self {
            reads: rigs
                .iter()
                .map(|r| reads::RigReads::new(r, ClipSource::Exact))
                .collect(),
            rigs,
            masks,
            source: ClipSource::Exact,
            frame: FrameOrder::new(1),
            map_reads: Vec::new(),
            last_reads: reads::ReadTally::default(),
            previous: None,
            evaluations: 0,
            retargets: Vec::new(),
            inertial: InertialCopies::default(),
        })
    }

    /// A backend like [`CpuBackend::new`] that samples the rigs' compressed clips
    /// ([`ClipSource::Compressed`]): rigs without them are compressed first, to
    /// [`crate::DEFAULT_ERROR_BUDGET`]. The CPU twin of the GPU's compressed path.
    pub fn with_compressed(mut rigs: Vec<Rig>, masks: Vec<JointMask>) -> Result<Self, EvalError> {
        check_rigs(&rigs)?;
        for (i, rig) in rigs.iter_mut().enumerate() {
            if rig.compressed.is_none() {
                rig.compress(crate::DEFAULT_ERROR_BUDGET)
                    .map_err(|e| with_rig_index(e, i))?;
            }
        }
        let mut backend = Self::new(rigs, masks)?;
        backend.source = ClipSource::Compressed;
        backend.reads = (backend.rigs.iter())
            .map(|r| reads::RigReads::new(r, ClipSource::Compressed))
            .collect();
        Ok(backend)
    }

    /// Where clip values come from.
    pub fn clip_source(&self) -> ClipSource {
        self.source
    }

    /// Moves `record`'s world by its root motion from frame time `prev` to `now`
    /// ([`crate::cpu::advance_root_motion_from`]), the root's tracks sampled from [`CpuBackend::clip_source`]:
    /// the twin of the GPU pipeline of the same source. Fails with [`EvalError::NoSuchRig`] when
    /// the record names a rig the backend does not have.
    pub fn advance_root_motion(
        &self,
        record: &mut InstanceRecord,
        prev: f32,
        now: f32,
    ) -> Result<(), EvalError> {
        let rig = self
            .rigs
            .get(record.rig as usize)
            .ok_or(EvalError::NoSuchRig {
                rig: record.rig,
                rig_count: self.rigs.len(),
            })?;
        let maps = (&self.rigs[..], &self.retargets[..]);
        root_motion::advance_root_motion_with(maps, rig, self.source, record, prev, now);
        Ok(())
    }

    /// The rigs.
    pub fn rigs(&self) -> &[Rig] {
        &self.rigs
    }

    /// The masks.
    pub fn masks(&self) -> &[JointMask] {
        &self.masks
    }

    /// Adds `rig` after the others (its parts checked first) and returns its index.
    pub fn add_rig(&mut self, rig: Rig) -> Result<u32, EvalError> {
        let index = self.rigs.len();
        check_rigs(std::slice::from_ref(&rig)).map_err(|e| with_rig_index(e, index))?;
        let mut rig = rig;
        if self.source == ClipSource::Compressed && rig.compressed.is_none() {
            rig.compress(crate::DEFAULT_ERROR_BUDGET)
                .map_err(|e| with_rig_index(e, index))?;
        }
        self.reads.push(reads::RigReads::new(&rig, self.source));
        self.refresh_map_reads();
        self.rigs.push(rig);
        self.frame.forget_checked();
        Ok((self.rigs.len() - 1) as u32)
    }

    /// Replaces rig `index` by `rig` (whose parts the caller has checked, and which evaluates
    /// every record of the old one); `false` when there is no rig `index`.
    pub(crate) fn set_rig(&mut self, index: u32, rig: Rig) -> bool {
        match self.rigs.get_mut(index as usize) {
            Some(old) => {
                if let Some(reads) = self.reads.get_mut(index as usize) {
                    *reads = reads::RigReads::new(&rig, self.source);
                }
                *old = rig;
                self.refresh_map_reads();
                self.frame.forget_checked();
                true
            }
            None => false,
        }
    }

    /// Adds a mask and returns its index.
    pub fn add_mask(&mut self, mask: JointMask) -> u32 {
        self.masks.push(mask);
        (self.masks.len() - 1) as u32
    }

    /// Evaluates every instance at frame time 0 ([`CpuBackend::evaluate_at`]).
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
        if let Some(previous) = self.previous.as_mut() {
            // Every record is evaluated: every block is kept.
            let slots: Vec<u32> = (0..instances.len() as u32).collect();
            previous.keep(&self.rigs, instances, &slots, self.evaluations, palette)?;
        }
        self.evaluations = self.evaluations.wrapping_add(1);
        let (rigs, masks, maps) = (&self.rigs, &self.masks, &self.retargets);
        (self.inertial).capture(rigs, masks, maps, self.source, instances, palette, now)?;
        let mut frame = std::mem::take(&mut self.frame);
        let result = frame.run(
            &self.rigs,
            &self.masks,
            &self.retargets,
            instances,
            palette,
            aabbs,
            |order, palette, base, sorted| {
                let chunk = ExactChunk {
                    rigs: &self.rigs,
                    masks: &self.masks,
                    retargets: &self.retargets,
                    source: self.source,
                    inertial: &self.inertial,
                };
                chunk.evaluate(now, instances, order, palette, base, sorted, false)
            },
        );
        self.frame = frame;
        result?;
        self.last_reads = self.frame_reads(now, instances);
        Ok(())
    }

    /// Keeps the previous palette for motion vectors from the next evaluation on (`false`:
    /// drops it): the twin of [`crate::gpu::GpuOptions::previous_palette`] on a backend that
    /// evaluates every record every frame, so every block is kept and stamped.
    pub fn keep_previous_palette(&mut self, keep: bool) {
        self.previous = keep.then(|| self.previous.take().unwrap_or_default());
    }

    /// The previous palette, when kept ([`CpuBackend::keep_previous_palette`]).
    pub fn previous_palette(&self) -> Option<&PreviousPalette> {
        self.previous.as_ref()
    }

    /// The stamp the last evaluation gave the slots it evaluated (its frame counter plus one,
    /// as [`crate::GpuBackend::evaluated_stamp`]); 0 before any evaluation.
    pub fn evaluated_stamp(&self) -> u32 {
        self.evaluations
    }

    /// Bytes the last evaluation read from the rigs' baked arrays and the records per joint
    /// evaluated:
    ///
    /// `Σ instances (instance + Σ layers Σ sampled joints and chunks channels) / joints`
    ///
    /// - instance: its record (`size_of::<InstanceRecord>()`), per joint its parent (2), rest
    ///   SQT (48), inverse bind (64) and joint bounds (32).
    /// - layer: an unmasked layer with weight above 0 samples every joint and weight chunk; a
    ///   masked one reads each joint's and chunk's mask weight (4) and samples those weighted
    ///   above 0. A layer played through a retarget map reads at each target joint the map's
    ///   entry (`size_of::<RetargetEntry>()`) and its source joint's channels in the source
    ///   rig's clip; its weight chunks are not sampled.
    /// - channel, exact: track descriptor (16), the first and last key times (8, the clamp
    ///   checks), the key pair the uniform-spacing guess hits (8: counted as a hit, never the
    ///   binary search), and the key values read (16 each: 1 STEP, 2 LINEAR, 4 CUBICSPLINE);
    ///   a one-key track its descriptor and one value.
    /// - channel, compressed ([`ClipSource::Compressed`]): clip record (32) and channel code
    ///   (8); REST nothing more; a constant its words (12, 16 for rotations and weight chunks);
    ///   animated, in each frame it decodes (two; one in a one-frame clip) each stored
    ///   component's frame words (4, 8 when it straddles two) and range (4, none raw).
    ///
    /// Joints past a record's LOD level are counted as sampled. 0 before any evaluation.
    pub fn bytes_read_per_joint(&self) -> f64 {
        self.last_reads.per_joint()
    }

    /// Recomputes what each retarget map's layers read, after the rigs' reads or the maps
    /// changed (a map whose rigs are gone reads nothing).
    pub(super) fn refresh_map_reads(&mut self) {
        let reads = &self.reads;
        self.map_reads = (self.retargets.iter())
            .map(
                |b| match (reads.get(b.source as usize), reads.get(b.target as usize)) {
                    (Some(source), Some(target)) => source.through_map(target, &b.map),
                    _ => LayerReads::default(),
                },
            )
            .collect();
    }

    /// Bytes read and joints evaluated evaluating the (validated) `instances` at `now`.
    fn frame_reads(&self, now: f32, instances: &[InstanceRecord]) -> reads::ReadTally {
        let mut layers = [Layer::clip(0, 0.0); MAX_LAYERS];
        let (mut bytes, mut joints) = (0, 0);
        for rec in instances.iter().filter(|r| !r.is_empty()) {
            let (Some(reads), Some(rig)) = (
                self.reads.get(rec.rig as usize),
                self.rigs.get(rec.rig as usize),
            ) else {
                continue;
            };
            let count = rec.used_layers().len();
            for (slot, layer) in layers.iter_mut().zip(rec.layers_at(now)) {
                *slot = layer;
            }
            bytes += reads.instance_bytes(&self.masks, &layers[..count], &self.map_reads);
            joints += rig.joint_count() as u64;
        }
        reads::ReadTally { bytes, joints }
    }
}

/// What the exact evaluation of a chunk of instances reads: both CPU backends' (the fast one's
/// for instances in an inertialized transition).
pub(crate) struct ExactChunk<'a> {
    pub rigs: &'a [Rig],
    pub masks: &'a [JointMask],
    pub retargets: &'a [RetargetBinding],
    pub source: ClipSource,
    pub inertial: &'a InertialCopies,
}

impl ExactChunk<'_> {
    /// Evaluates one chunk of instances (`order`, ascending by palette offset) on this core,
    /// or only those whose inertialization offset still decays when `only_inertialized`.
    /// `base` is the palette index of `palette[0]`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn evaluate(
        &self,
        now: f32,
        instances: &[InstanceRecord],
        order: &[u32],
        palette: &mut [Mat3x4Rows],
        base: usize,
        aabbs: &mut [Aabb],
        only_inertialized: bool,
    ) {
        let mut models = [Affine3A::IDENTITY; MAX_JOINTS];
        let mut layers = [Layer::clip(0, 0.0); MAX_LAYERS];
        let mut clips: retarget::RecordClips = Default::default();
        // Retargeted layers read their map's source rig (checked with the records).
        let retargeted = !self.retargets.is_empty();
        for (&i, aabb) in order.iter().zip(aabbs) {
            let rec = &instances[i as usize];
            let inertial = self.inertial.view(i as usize, rec, now);
            if only_inertialized && inertial.is_none() {
                continue;
            }
            let rig = &self.rigs[rec.rig as usize];
            if retargeted {
                let (rigs, maps) = (self.rigs, self.retargets);
                retarget::record_clips(rigs, maps, rec.rig, rec.used_layers(), &mut clips);
            }
            let count = rec.used_layers().len();
            for (slot, layer) in layers.iter_mut().zip(rec.layers_at(now)) {
                *slot = layer;
            }
            let start = rec.palette_offset as usize - base;
            *aabb = evaluate_pose_with(
                rig,
                self.source,
                self.masks,
                &layers[..count],
                if retargeted { &clips[..count] } else { &[] },
                rec.flags,
                inertial.as_ref(),
                &rec.world.to_affine(),
                &mut models[..rig.joint_count()],
                &mut palette[start..start + rig.palette_entries()],
            );
        }
    }
}

/// `e` with rig `index` named when it is an [`EvalError::InvalidRig`].
fn with_rig_index(e: EvalError, index: usize) -> EvalError {
    match e {
        EvalError::InvalidRig { name, reason, .. } => EvalError::InvalidRig {
            rig: index,
            name,
            reason,
        },
        other => other,
    }
}

/// Checks that every rig's parts fit its skeleton, so evaluation can index them without checks.
pub(crate) fn check_rigs(rigs: &[Rig]) -> Result<(), EvalError> {
    for (i, rig) in rigs.iter().enumerate() {
        rig.check_parts().map_err(|reason| EvalError::InvalidRig {
            rig: i,
            name: rig.name.clone(),
            reason,
        })?;
    }
    Ok(())
}

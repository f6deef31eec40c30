//! The CPU evaluator: the test oracle for the GPU pipeline and the backend where no adapter is
//! present. One module per stage, named like the WGSL stages; [`CpuBackend`] runs all instances
//! in parallel across the cores.

mod aabb;
mod blend;
mod propagate;
mod sample;
mod skin;

pub use aabb::animated_aabb;
pub use blend::{blend_joint, blend_layers, validate_layers};
pub use propagate::local_to_model;
pub use sample::{find_key, sample_clip, sample_joint, sample_track};
pub use skin::skin_palette;

use glam::Affine3A;

use crate::bake::{Aabb, MAX_JOINTS, Rig};
use crate::error::EvalError;
use crate::instance::{InstanceRecord, Layer, MAX_LAYERS};
use crate::mask::JointMask;
use crate::math::{Mat3x4Rows, Sqt};

/// Instances per parallel task.
const CHUNK: usize = 64;

/// Evaluates one instance: blend → propagate → skin → bounds. Writes `models` and `palette`
/// (one entry per joint) and returns the animated AABB. Layers must be valid.
pub fn evaluate_pose(
    rig: &Rig,
    masks: &[JointMask],
    layers: &[Layer],
    world: &Affine3A,
    models: &mut [Affine3A],
    palette: &mut [Mat3x4Rows],
) -> Aabb {
    let n = rig.joint_count();
    let mut locals = [Sqt::IDENTITY; MAX_JOINTS];
    blend_layers(rig, masks, layers, &mut locals[..n]);
    local_to_model(&rig.skeleton, world, &locals[..n], &mut models[..n]);
    skin_palette(&rig.skeleton, &models[..n], &mut palette[..n]);
    animated_aabb(&rig.joint_bounds, &models[..n])
}

/// A set of rigs and masks evaluated on the CPU.
#[derive(Clone, Debug, Default)]
pub struct CpuBackend {
    rigs: Vec<Rig>,
    masks: Vec<JointMask>,
}

impl CpuBackend {
    /// A backend over `rigs` with layer masks `masks` (mask indices are positions in `masks`).
    pub fn new(rigs: Vec<Rig>, masks: Vec<JointMask>) -> Self {
        Self { rigs, masks }
    }

    /// The rigs.
    pub fn rigs(&self) -> &[Rig] {
        &self.rigs
    }

    /// Adds a mask and returns its index.
    pub fn add_mask(&mut self, mask: JointMask) -> u32 {
        self.masks.push(mask);
        (self.masks.len() - 1) as u32
    }

    /// Checks every record: rig, clips, masks, finite numbers, palette ranges ascending and
    /// disjoint inside `palette_len`.
    pub fn validate(
        &self,
        instances: &[InstanceRecord],
        palette_len: usize,
    ) -> Result<(), EvalError> {
        let mut end = 0usize;
        for rec in instances {
            let rig = self
                .rigs
                .get(rec.rig as usize)
                .ok_or(EvalError::NoSuchRig {
                    rig: rec.rig,
                    rig_count: self.rigs.len(),
                })?;
            if rec.layer_count as usize > MAX_LAYERS {
                return Err(EvalError::BadLayer {
                    reason: format!("{} layers, at most {MAX_LAYERS}", rec.layer_count),
                });
            }
            for layer in rec.layers() {
                validate_layers(rig, &self.masks, &[layer])?;
            }
            let start = rec.palette_offset as usize;
            if start < end {
                return Err(EvalError::BadLayer {
                    reason: format!(
                        "palette offset {start} overlaps the previous instance (ends at {end}); offsets must ascend"
                    ),
                });
            }
            end = start + rig.joint_count();
            if end > palette_len {
                return Err(EvalError::OutputSize {
                    expected: end,
                    found: palette_len,
                });
            }
        }
        Ok(())
    }

    /// Evaluates every instance into `palette` (at each record's offset) and `aabbs` (one per
    /// record), in parallel across the cores.
    pub fn evaluate(
        &self,
        instances: &[InstanceRecord],
        palette: &mut [Mat3x4Rows],
        aabbs: &mut [Aabb],
    ) -> Result<(), EvalError> {
        if aabbs.len() != instances.len() {
            return Err(EvalError::OutputSize {
                expected: instances.len(),
                found: aabbs.len(),
            });
        }
        self.validate(instances, palette.len())?;
        let base = 0;
        self.evaluate_range(instances, palette, base, aabbs);
        Ok(())
    }

    /// Splits the instances in halves (their palette ranges are disjoint and ascending) until
    /// chunks are small, then evaluates each chunk on one core. `base` is the palette index of
    /// `palette[0]`.
    fn evaluate_range(
        &self,
        instances: &[InstanceRecord],
        palette: &mut [Mat3x4Rows],
        base: usize,
        aabbs: &mut [Aabb],
    ) {
        if instances.len() > CHUNK {
            let mid = instances.len() / 2;
            let split = instances[mid].palette_offset as usize - base;
            let (pal_lo, pal_hi) = palette.split_at_mut(split);
            let (inst_lo, inst_hi) = instances.split_at(mid);
            let (aabb_lo, aabb_hi) = aabbs.split_at_mut(mid);
            rayon::join(
                || self.evaluate_range(inst_lo, pal_lo, base, aabb_lo),
                || self.evaluate_range(inst_hi, pal_hi, base + split, aabb_hi),
            );
            return;
        }
        let mut models = [Affine3A::IDENTITY; MAX_JOINTS];
        let mut layers = [Layer::clip(0, 0.0); MAX_LAYERS];
        for (rec, aabb) in instances.iter().zip(aabbs) {
            let rig = &self.rigs[rec.rig as usize];
            let n = rig.joint_count();
            let count = rec.layer_count as usize;
            for (slot, layer) in layers.iter_mut().zip(rec.layers()) {
                *slot = layer;
            }
            let start = rec.palette_offset as usize - base;
            *aabb = evaluate_pose(
                rig,
                &self.masks,
                &layers[..count],
                &rec.world.to_affine(),
                &mut models[..n],
                &mut palette[start..start + n],
            );
        }
    }
}

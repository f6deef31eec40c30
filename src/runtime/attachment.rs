//! Bone attachments: an entity (a sword, a hat) following a joint of another, animated entity,
//! with a local offset.
//!
//! Its world transform is right in the same frame as the pose it follows, with no one-frame lag:
//! after the control pass has written the target's instance record, the animator evaluates
//! **only the chain from the skeleton root to that joint** on the CPU — [`crate::cpu::blend_joint`]
//! for each ancestor, then parent-to-child products — with exactly the record the GPU (or the
//! CPU backend) evaluates. Reading the joint back from the GPU instead would stall the frame on
//! a readback, or lag it by one; the chain costs O(depth) per attachment, independent of the
//! skeleton's size and of how many characters there are.

use glam::{Affine3A, Quat, Vec3};
use hecs::Entity;

use crate::baked::retarget_map::RetargetBinding;
use crate::baked::{MAX_JOINTS, NO_PARENT, Rig};
use crate::cpu::{ClipSource, LayerClips, blend_joint_with, hold_root, playing_clips};
use crate::instance::{InstanceRecord, Layer, MAX_LAYERS};
use crate::mask::JointMask;

/// Keeps its entity on joint `joint` of the animated entity `target`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attachment {
    /// The entity followed (it must have [`crate::runtime::Animated`]).
    pub target: Entity,
    /// The joint followed, by name.
    pub joint: String,
    /// Offset from the joint, in the joint's space.
    pub offset_translation: Vec3,
    /// Rotation from the joint, in the joint's space.
    pub offset_rotation: Quat,
    /// `(rig, joint index)` that `joint` was last resolved to.
    resolved: Option<(u32, u16)>,
    world: Affine3A,
}

impl Attachment {
    /// Follows `joint` of `target` with no offset.
    pub fn new(target: Entity, joint: &str) -> Self {
        Self {
            target,
            joint: joint.to_string(),
            offset_translation: Vec3::ZERO,
            offset_rotation: Quat::IDENTITY,
            resolved: None,
            world: Affine3A::IDENTITY,
        }
    }

    /// The same attachment with an offset from the joint.
    pub fn with_offset(mut self, translation: Vec3, rotation: Quat) -> Self {
        self.offset_translation = translation;
        self.offset_rotation = rotation;
        self
    }

    /// The same attachment with `world` as its last computed world matrix (a restored one).
    pub(crate) fn with_world(mut self, world: Affine3A) -> Self {
        self.world = world;
        self
    }

    /// The world matrix computed in the last update (exact, including any shear the joint's
    /// matrix has; the entity's [`crate::runtime::Transform`] holds its decomposition).
    pub fn world(&self) -> Affine3A {
        self.world
    }

    /// The joint index on `rig` (number `rig_index`), resolved by name once per rig.
    pub(crate) fn joint_index(&mut self, rig_index: u32, rig: &Rig) -> Option<usize> {
        match self.resolved {
            Some((r, j)) if r == rig_index => Some(j as usize),
            _ => {
                let j = rig.skeleton.find_joint(&self.joint)?;
                self.resolved = Some((rig_index, j as u16));
                Some(j)
            }
        }
    }

    /// Computes the world matrix from the target's record at frame time `now`.
    pub(crate) fn solve(
        &mut self,
        maps: (&[Rig], &[RetargetBinding]),
        rig: &Rig,
        masks: &[JointMask],
        record: &InstanceRecord,
        now: f32,
        joint: usize,
    ) -> Affine3A {
        let model = joint_model_with(maps, rig, masks, record, now, joint);
        self.world = model
            * Affine3A::from_rotation_translation(self.offset_rotation, self.offset_translation);
        self.world
    }
}

/// The model matrix (world × root-to-joint chain) of `joint` for `record` at frame time `now`,
/// evaluating only the joint's ancestors: the same numbers the CPU backend produces for it.
pub fn joint_model(
    rig: &Rig,
    masks: &[JointMask],
    record: &InstanceRecord,
    now: f32,
    joint: usize,
) -> Affine3A {
    joint_model_with((&[], &[]), rig, masks, record, now, joint)
}

/// [`joint_model`] with retargeted layers read through `maps` (the animator's rigs and retarget
/// maps); a layer whose clip or map does not exist is left out.
pub(crate) fn joint_model_with(
    maps: (&[Rig], &[RetargetBinding]),
    rig: &Rig,
    masks: &[JointMask],
    record: &InstanceRecord,
    now: f32,
    joint: usize,
) -> Affine3A {
    let mut layers = [Layer::clip(0, 0.0); MAX_LAYERS];
    let mut clips = [LayerClips::Own; MAX_LAYERS];
    let mut count = 0;
    for (held, layer) in record.used_layers().iter().zip(record.layers_at(now)) {
        if let Some(from) = playing_clips(maps.0, maps.1, rig, record.rig, held) {
            (layers[count], clips[count]) = (layer, from);
            count += 1;
        }
    }
    let (layers, clips) = (&layers[..count], &clips[..count]);
    let parents = rig.skeleton.parents();
    let mut chain = [0u16; MAX_JOINTS];
    let mut depth = 0;
    let mut at = joint;
    loop {
        chain[depth] = at as u16;
        depth += 1;
        match parents[at] {
            NO_PARENT => break,
            p if depth < MAX_JOINTS => at = p as usize,
            _ => break,
        }
    }
    let mut model = record.world.to_affine();
    for &j in chain[..depth].iter().rev() {
        let j = j as usize;
        let local = blend_joint_with(rig, ClipSource::Exact, masks, layers, clips, j);
        let local = hold_root(rig, record.flags, j, local);
        model *= local.to_affine();
    }
    model
}

//! Root motion: the root joint's movement in the clips moves the entity instead of the pose.
//!
//! Each update, every base contribution's root displacement over its [`Step`] is sampled on the
//! CPU (one joint, per instance, from the clips the animator's records are evaluated from: the
//! exact key tracks, or the compressed clips of [`crate::runtime::Animator::with_compressed`],
//! so the motion matches the pose it moves) and blended by the contributions' weights — so cross-fades and blend spaces blend velocities, and a base fading in from the
//! rest pose starts moving gradually. The displacement of a step is `F(to) - F(from)` for the
//! unwrapped root position `F(u) = root(time(u)) + wraps(u) × (root(end) - root(start))`: a
//! looping step that wraps takes the two segments either side of the seam plus one clip
//! displacement per extra loop, so no motion is lost or doubled at the seam.
//!
//! Root motion lives in **model space** (the rig's space, the glTF scene root, +Y up;
//! [`RootFrame`]): the blended displacement is taken from the root joint's parent space to
//! model space through the parent's rest model matrix, its model Y dropped unless all three
//! axes move the entity, and the yaw is the twist about model +Y of the root's model-space
//! rotation. So a rig exported Z-up (a rotated `Z_UP` or `Armature` node above the root) walks
//! along its ground plane; the ancestors above the root are taken at rest, as they are static in
//! practice. The model-space displacement, made world-oriented by the entity's transform, is
//! added to the entity's [`Transform`]; the optional yaw turns it about its own +Y. The pose
//! itself keeps the root's held parts at rest in model space through the instance record's
//! [`crate::InstanceRecord::flags`], which the evaluators apply after blending
//! ([`crate::cpu::hold_root`]).
//!
//! Only the base contributes root motion; extra layers do not.
//!
//! **On the GPU** ([`RootMotion::on_gpu`]) the evaluator does the same from the record's clocks
//! ([`crate::cpu::advance_root_motion`] is the definition, `wgsl/root_motion.wgsl` runs it) and
//! keeps the moved world in the GPU-resident record, so a walking character's record is not
//! uploaded every frame. The animator then leaves the entity's [`Transform`] alone, writes the
//! record's flags from [`RootMotion::record_flags`], and places the record's world only at spawn
//! and teleport ([`crate::GpuBackend::set_record_world`]); positions come back through
//! [`crate::GpuBackend::read_worlds`] or [`crate::GpuBackend::read_worlds_async`].

use glam::{Quat, Vec3};

use super::motion::Contribution;
use super::playback::Step;
use super::transform::Transform;
use crate::Channel;
use crate::baked::Rig;
use crate::baked::retarget_map::RetargetMap;
use crate::cpu::{ClipSource, LayerClips, RootFrame, layer_channel};
use crate::instance::InstanceRecord;

/// Which parts of the root joint's translation become entity motion.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum RootTranslation {
    /// The ground plane (X and Z); the pose keeps the root's height changes (bobbing).
    #[default]
    Xz,
    /// All three axes.
    Xyz,
}

/// Extracts root motion from an entity's base and applies it to its [`Transform`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RootMotion {
    /// The root joint (usually the skeleton's first joint).
    pub joint: u16,
    /// Which translation axes move the entity.
    pub translation: RootTranslation,
    /// Whether the root's yaw turns the entity too.
    pub yaw: bool,
    /// Whether the motion accumulates on the GPU (see the module documentation).
    gpu: bool,
    last_translation: Vec3,
    last_yaw: f32,
}

impl RootMotion {
    /// Root motion of `joint` along `translation`, with yaw extraction if `yaw`.
    pub const fn new(joint: u16, translation: RootTranslation, yaw: bool) -> Self {
        Self {
            joint,
            translation,
            yaw,
            gpu: false,
            last_translation: Vec3::ZERO,
            last_yaw: 0.0,
        }
    }

    /// The same root motion accumulated on the GPU, in the world of the entity's resident
    /// record, instead of moving its [`Transform`].
    pub const fn on_gpu(mut self) -> Self {
        self.gpu = true;
        self
    }

    /// Whether the motion accumulates on the GPU ([`RootMotion::on_gpu`]).
    pub const fn is_on_gpu(&self) -> bool {
        self.gpu
    }

    /// The [`InstanceRecord::flags`] of an entity whose record's bottom `base_layers` layers
    /// are its base (what [`crate::runtime::Contributions::write_layers`] wrote): the
    /// [`RootMotion::flags`], plus on the GPU [`InstanceRecord::GPU_ROOT_MOTION`] and the base
    /// layer count.
    pub fn record_flags(&self, base_layers: usize) -> u32 {
        let flags = self.flags();
        if self.gpu {
            flags | InstanceRecord::gpu_root_motion(base_layers)
        } else {
            flags
        }
    }

    /// The world-space translation applied in the last update (the model-space displacement
    /// through the entity's transform).
    pub fn last_translation(&self) -> Vec3 {
        self.last_translation
    }

    /// The yaw (radians about the entity's +Y; model +Y of the rig) applied in the last update.
    pub fn last_yaw(&self) -> f32 {
        self.last_yaw
    }

    /// The [`InstanceRecord::flags`] that hold the extracted motion out of the pose.
    pub fn flags(&self) -> u32 {
        let translation = match self.translation {
            RootTranslation::Xz => InstanceRecord::HOLD_ROOT_XZ,
            RootTranslation::Xyz => InstanceRecord::HOLD_ROOT_XYZ,
        };
        let yaw = if self.yaw {
            InstanceRecord::HOLD_ROOT_YAW
        } else {
            0
        };
        (u32::from(self.joint) & InstanceRecord::ROOT_JOINT) | translation | yaw
    }

    /// Blends the root displacement of `contributions`, the root's tracks sampled from
    /// `source`, and moves `transform` by it. `frames` are the rig's [`RootFrame::table`] (model
    /// space for each joint as the root). On the GPU ([`RootMotion::on_gpu`]) it moves nothing:
    /// the evaluator does.
    pub(crate) fn apply(
        &mut self,
        rig: &Rig,
        source: ClipSource,
        through: Option<(&RetargetMap, &Rig)>,
        frames: &[RootFrame],
        contributions: &[Contribution],
        transform: &mut Transform,
    ) {
        let joint = self.joint as usize;
        if self.gpu || joint >= rig.joint_count() {
            self.last_translation = Vec3::ZERO;
            self.last_yaw = 0.0;
            return;
        }
        let frame = frames.get(joint).copied().unwrap_or_default();
        let mut local = Vec3::ZERO;
        let mut yaw = 0.0;
        for c in contributions {
            if c.step.is_still() {
                continue;
            }
            // A retargeted entity's contributions are clips of its map's source rig, read
            // through the map's entry for the root (as the kernel's root motion reads them).
            let clips = match through {
                Some((map, from)) => LayerClips::Mapped {
                    map,
                    source: from,
                    clip: c.clip as usize,
                },
                None => LayerClips::Own,
            };
            let at = Root {
                rig,
                source,
                clips,
                clip: c.clip,
                joint,
            };
            local += c.weight * at.translation_delta(&c.step);
            if self.yaw {
                yaw += c.weight * at.yaw_delta(&frame, &c.step);
            }
        }
        let mut model = frame.vector_to_model(local);
        if self.translation == RootTranslation::Xz {
            model.y = 0.0;
        }
        let world = transform.to_affine().transform_vector3(model);
        transform.translation += world;
        if self.yaw && yaw != 0.0 {
            transform.rotation = (transform.rotation * Quat::from_rotation_y(yaw)).normalize();
        }
        self.last_translation = world;
        self.last_yaw = yaw;
    }
}

/// One clip's root joint, sampled from the animator's clip source.
struct Root<'a> {
    rig: &'a Rig,
    source: ClipSource,
    /// The rig's own clip, or a source rig's through a retarget map.
    clips: LayerClips<'a>,
    clip: u32,
    joint: usize,
}

impl Root<'_> {
    /// Root translation at `time`.
    #[inline]
    fn translation(&self, time: f32) -> Vec3 {
        let (clip, joint) = (self.clip as usize, self.joint);
        let t = Channel::Translation;
        layer_channel(self.rig, self.source, self.clips, clip, joint, t, time).truncate()
    }

    /// Root yaw (radians about model +Y) at `time`.
    #[inline]
    fn yaw(&self, frame: &RootFrame, time: f32) -> f32 {
        let (clip, joint) = (self.clip as usize, self.joint);
        let r = Channel::Rotation;
        let q = layer_channel(self.rig, self.source, self.clips, clip, joint, r, time);
        frame.model_yaw(Quat::from_vec4(q))
    }

    /// `F(to) - F(from)` for the unwrapped root translation (see the module documentation).
    fn translation_delta(&self, step: &Step) -> Vec3 {
        let at = |u: f32| self.translation(step.time_at(u));
        let mut delta = at(step.to) - at(step.from);
        let wraps = step.wraps();
        if wraps != 0 {
            let cycle = self.translation(step.period) - self.translation(0.0);
            delta += cycle * wraps as f32;
        }
        delta
    }

    /// The yaw counterpart of [`Root::translation_delta`], each angle difference taken the
    /// short way.
    fn yaw_delta(&self, frame: &RootFrame, step: &Step) -> f32 {
        let at = |u: f32| self.yaw(frame, step.time_at(u));
        let mut delta = short_angle(at(step.to) - at(step.from));
        let wraps = step.wraps();
        if wraps != 0 {
            let cycle = short_angle(self.yaw(frame, step.period) - self.yaw(frame, 0.0));
            delta += cycle * wraps as f32;
        }
        delta
    }
}

/// `a` wrapped into `(-π, π]`.
fn short_angle(a: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    let r = (a + PI).rem_euclid(TAU) - PI;
    if r <= -PI { r + TAU } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_mode_adds_the_gpu_flag_and_base_layer_count() {
        let cpu = RootMotion::new(3, RootTranslation::Xz, true);
        assert_eq!(cpu.record_flags(2), cpu.flags());
        let gpu = cpu.on_gpu();
        assert!(gpu.is_on_gpu());
        let flags = gpu.record_flags(2);
        assert_eq!(flags & !InstanceRecord::gpu_root_motion(2), cpu.flags());
        let record = InstanceRecord {
            rig: 0,
            flags,
            layer_count: 3,
            ..InstanceRecord::EMPTY
        };
        assert!(record.has_gpu_root_motion());
        assert_eq!(record.base_layers(), 2);
        assert_eq!(gpu.record_flags(9) & InstanceRecord::BASE_LAYERS, 4 << 12);
    }
}

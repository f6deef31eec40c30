//! The frame root motion is measured in: model space (the rig's space, the glTF scene root,
//! +Y up), reached from the root joint's local transform through its parent's rest model
//! matrix `P`.
//!
//! A root joint's local translation `t` and rotation `r` are in its parent's space; in model
//! space its position is `P · t` and its rotation `R_P · r` (`R_P`: the rotation of `P`). Root
//! motion holds and extracts the model-space X and Z and the twist about model +Y, so a rig
//! exported Z-up (a rotated non-joint node such as `Z_UP` or `Armature` above the root) moves
//! along its ground plane. The ancestors above the root are taken at rest: in practice they are
//! static (exporters' axis and armature nodes), and an animated one is not followed.
//!
//! Only `P`'s linear part matters (held translations differ from the rest translation in
//! directions only), so a frame is that 3x3 matrix, its inverse and its rotation. Twin of
//! `root_frame` in `wgsl/root_motion.wgsl`, which reads the frames [`RootFrame::table`] builds
//! (uploaded once per rig) instead of walking the skeleton.

use glam::{Affine3A, Mat3, Quat, Vec3};

use crate::baked::propagate::local_to_model;
use crate::baked::{MAX_JOINTS, NO_PARENT, Rig};
use crate::math::normalize_or_identity;

/// The rest model-space frame of a root joint's parent (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootFrame {
    /// The linear part of the parent's rest model matrix: a direction in the root's parent
    /// space to model space.
    pub to_model: Mat3,
    /// The inverse of [`RootFrame::to_model`].
    pub from_model: Mat3,
    /// The rotation of the parent's rest model matrix (its scale removed).
    pub rotation: Quat,
}

impl Default for RootFrame {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl RootFrame {
    /// The frame of a root without a parent: its parent space is model space.
    pub const IDENTITY: Self = Self {
        to_model: Mat3::IDENTITY,
        from_model: Mat3::IDENTITY,
        rotation: Quat::IDENTITY,
    };

    /// The frame of a root whose parent's rest model matrix is `parent`. A singular or
    /// non-finite matrix (a zero scale) gives [`RootFrame::IDENTITY`].
    pub fn from_parent_model(parent: &Affine3A) -> Self {
        let to_model = Mat3::from(parent.matrix3);
        let det = to_model.determinant();
        let from_model = to_model.inverse();
        if det == 0.0 || !det.is_finite() || !from_model.is_finite() {
            return Self::IDENTITY;
        }
        let (_, rotation, _) = parent.to_scale_rotation_translation();
        Self {
            to_model,
            from_model,
            rotation: normalize_or_identity(rotation),
        }
    }

    /// The frame root motion of `joint` of `rig` uses: from the rest pose of its ancestors
    /// (identity for a joint without a parent or that does not exist). The same numbers as
    /// [`RootFrame::table`]`[joint]`, computed by walking up from `joint`.
    pub fn of_root(rig: &Rig, joint: usize) -> Self {
        let parents = rig.skeleton.parents();
        let rest = rig.skeleton.rest_pose();
        let mut chain = [0u16; MAX_JOINTS];
        let mut depth = 0;
        let mut at = parents.get(joint).copied().unwrap_or(NO_PARENT);
        while at != NO_PARENT && (at as usize) < parents.len() && depth < MAX_JOINTS {
            chain[depth] = at;
            depth += 1;
            at = parents[at as usize];
        }
        if depth == 0 {
            return Self::IDENTITY;
        }
        // Top down, as `local_to_model` multiplies: the same products, the same rounding.
        let mut model = Affine3A::IDENTITY;
        for &j in chain[..depth].iter().rev() {
            model *= rest[j as usize].to_affine();
        }
        Self::from_parent_model(&model)
    }

    /// [`RootFrame::of_root`] of every joint of `rig`, from one pass over the rest pose.
    pub fn table(rig: &Rig) -> Vec<Self> {
        let skeleton = &rig.skeleton;
        let mut models = vec![Affine3A::IDENTITY; skeleton.joint_count()];
        local_to_model(
            skeleton,
            &Affine3A::IDENTITY,
            skeleton.rest_pose(),
            &mut models,
        );
        skeleton
            .parents()
            .iter()
            .map(|&p| match models.get(p as usize) {
                Some(parent) if p != NO_PARENT => Self::from_parent_model(parent),
                _ => Self::IDENTITY,
            })
            .collect()
    }

    /// `v`, a direction in the root's parent space, in model space.
    #[inline]
    pub fn vector_to_model(&self, v: Vec3) -> Vec3 {
        self.to_model * v
    }

    /// `v`, a direction in model space, in the root's parent space.
    #[inline]
    pub fn vector_from_model(&self, v: Vec3) -> Vec3 {
        self.from_model * v
    }

    /// `q`, a rotation of the root in its parent's space, in model space: `R_P · q`.
    #[inline]
    pub fn rotation_to_model(&self, q: Quat) -> Quat {
        self.rotation * q
    }

    /// `q`, a model-space rotation of the root, in its parent's space: `R_P⁻¹ · q`.
    #[inline]
    pub fn rotation_from_model(&self, q: Quat) -> Quat {
        self.rotation.conjugate() * q
    }

    /// The yaw (radians about model +Y) of the root's local rotation `q`: the angle of the
    /// twist about +Y of its model-space rotation.
    #[inline]
    pub fn model_yaw(&self, q: Quat) -> f32 {
        let m = self.rotation_to_model(q);
        2.0 * m.y.atan2(m.w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_z_up_parent_maps_parent_z_to_model_y() {
        let z_up = Affine3A::from_rotation_translation(
            Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
            Vec3::new(1.0, 2.0, 3.0),
        );
        let frame = RootFrame::from_parent_model(&z_up);
        assert!(frame.vector_to_model(Vec3::Z).abs_diff_eq(Vec3::Y, 1e-6));
        assert!(frame.vector_from_model(Vec3::Y).abs_diff_eq(Vec3::Z, 1e-6));
        // A turn about the parent's +Z is a turn about model +Y.
        let yaw = frame.model_yaw(Quat::from_rotation_z(0.5));
        assert!((yaw - 0.5).abs() < 1e-6, "{yaw}");
        let back = frame.rotation_from_model(frame.rotation_to_model(Quat::from_rotation_z(0.5)));
        assert!(back.abs_diff_eq(Quat::from_rotation_z(0.5), 1e-6));
    }

    #[test]
    fn a_singular_parent_falls_back_to_identity() {
        let flat = Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0));
        assert_eq!(RootFrame::from_parent_model(&flat), RootFrame::IDENTITY);
        let nan = Affine3A::from_scale(Vec3::splat(f32::NAN));
        assert_eq!(RootFrame::from_parent_model(&nan), RootFrame::IDENTITY);
    }
}

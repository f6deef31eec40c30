//! An entity's world transform: where its skeleton's root space sits in the world. Root motion
//! moves it; attachments set it; the instance record carries it to the evaluator.

use glam::{Affine3A, Quat, Vec3};

/// Translation, rotation and scale of an entity in the world.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transform {
    /// Position.
    pub translation: Vec3,
    /// Orientation, a unit quaternion.
    pub rotation: Quat,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// At the origin, unrotated, unscaled.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// At `translation`, unrotated, unscaled.
    pub const fn from_translation(translation: Vec3) -> Self {
        Self {
            translation,
            ..Self::IDENTITY
        }
    }

    /// The same transform rotated to `rotation`.
    pub const fn with_rotation(mut self, rotation: Quat) -> Self {
        self.rotation = rotation;
        self
    }

    /// `T × R × S` as a matrix.
    #[inline]
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes a matrix (shear is lost).
    pub fn from_affine(m: &Affine3A) -> Self {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Self {
            translation,
            rotation,
            scale,
        }
    }
}

//! Per-asset import settings: the unit, up and forward axes a file was authored in, and an
//! optional extra root transform, folded into one correction that takes the file's data to
//! sinew's conventions (metres, +Y up, +Z forward, right-handed).

use glam::{Affine3A, Mat3, Quat, Vec3};

pub use crate::error::SettingsError;
pub use crate::math::Axis;

/// How far a given extra rotation's length may be from one.
const UNIT_QUAT_SLACK: f32 = 1e-3;

/// How to read one file: its unit and axes, and an extra transform for its root nodes. The
/// default reads the file as it is (glTF: metres, +Y up, +Z forward; FBX: the unit and axes
/// the file declares, which ufbx converts) and imports exactly what plain import does.
///
/// For FBX these settings apply on top of ufbx's conversion of the declared unit and axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImportSettings {
    /// Metres per file unit (a file in centimetres: `0.01`). Finite and positive.
    pub unit_scale: f32,
    /// The file's up axis; it becomes +Y.
    pub up: Axis,
    /// The file's forward axis (where a character faces); it becomes +Z. Not along `up`.
    pub forward: Axis,
    /// An extra rotation applied after the unit and axis change (a unit quaternion).
    pub rotation: Quat,
    /// An extra translation in metres, applied last.
    pub translation: Vec3,
}

impl Default for ImportSettings {
    fn default() -> Self {
        Self {
            unit_scale: 1.0,
            up: Axis::Y,
            forward: Axis::Z,
            rotation: Quat::IDENTITY,
            translation: Vec3::ZERO,
        }
    }
}

/// A validated correction: `translation * rotation * uniform scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Correction {
    /// The uniform scale (metres per file unit).
    pub scale: f32,
    /// The axis change followed by the extra rotation.
    pub rotation: Quat,
    /// The extra translation.
    pub translation: Vec3,
}

impl Correction {
    /// The correction as an affine matrix.
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(
            Vec3::splat(self.scale),
            self.rotation,
            self.translation,
        )
    }

    /// A point of the file's space in sinew's.
    pub fn point(&self, p: Vec3) -> Vec3 {
        self.translation + self.vector(p)
    }

    /// A direction or offset of the file's space in sinew's (scaled and turned, not moved).
    pub fn vector(&self, v: Vec3) -> Vec3 {
        self.scale * (self.rotation * v)
    }
}

impl ImportSettings {
    /// Whether these settings change nothing (plain import is used as is).
    pub fn is_identity(&self) -> bool {
        *self == Self::default()
    }

    /// Checks the settings and returns the correction they describe: the file's space to
    /// sinew's, applied at the root of the node forest.
    pub fn correction(&self) -> Result<Correction, SettingsError> {
        if !(self.unit_scale.is_finite() && self.unit_scale > 0.0) {
            return Err(SettingsError::UnitScale(self.unit_scale));
        }
        let (up, forward) = (self.up.vector(), self.forward.vector());
        if up.dot(forward) != 0.0 {
            return Err(SettingsError::Axes {
                up: self.up,
                forward: self.forward,
            });
        }
        if !self.rotation.is_finite() || (self.rotation.length() - 1.0).abs() > UNIT_QUAT_SLACK {
            return Err(SettingsError::Rotation(self.rotation));
        }
        if !self.translation.is_finite() {
            return Err(SettingsError::Translation(self.translation));
        }
        // The axis change maps up → +Y, forward → +Z and up × forward → +X: its inverse has
        // those three as columns, so it has them as rows.
        let axes = Mat3::from_cols(up.cross(forward), up, forward).transpose();
        Ok(Correction {
            scale: self.unit_scale,
            rotation: (self.rotation.normalize() * Quat::from_mat3(&axes)).normalize(),
            translation: self.translation,
        })
    }
}

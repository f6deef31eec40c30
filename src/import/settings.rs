//! Per-asset import settings: the unit, up and forward axes a file was authored in, and an
//! optional extra root transform, folded into one correction that takes the file's data to
//! sinew's conventions (metres, +Y up, +Z forward, right-handed).

use std::fmt;
use std::str::FromStr;

use glam::{Affine3A, Mat3, Quat, Vec3};
use thiserror::Error;

/// How far a given extra rotation's length may be from one.
const UNIT_QUAT_SLACK: f32 = 1e-3;

/// A signed coordinate axis of the file being imported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// +X.
    X,
    /// +Y.
    Y,
    /// +Z.
    Z,
    /// -X.
    NegX,
    /// -Y.
    NegY,
    /// -Z.
    NegZ,
}

impl Axis {
    /// Every axis, in the order the names are listed.
    pub const ALL: [Axis; 6] = [
        Axis::X,
        Axis::Y,
        Axis::Z,
        Axis::NegX,
        Axis::NegY,
        Axis::NegZ,
    ];

    /// The axis as a unit vector.
    pub fn vector(self) -> Vec3 {
        match self {
            Axis::X => Vec3::X,
            Axis::Y => Vec3::Y,
            Axis::Z => Vec3::Z,
            Axis::NegX => Vec3::NEG_X,
            Axis::NegY => Vec3::NEG_Y,
            Axis::NegZ => Vec3::NEG_Z,
        }
    }

    /// The name the command line uses: `x`, `y`, `z`, `-x`, `-y`, `-z`.
    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
            Axis::NegX => "-x",
            Axis::NegY => "-y",
            Axis::NegZ => "-z",
        }
    }

    /// The forward axis that goes with `up` when none is given: the axis that a quarter or
    /// half turn about X (for ±Y, ±Z up) or Z (for ±X up) taking `up` to +Y brings to +Z: +Z
    /// for ±X and +Y up, -Y for +Z up (Blender's convention), +Y for -Z up, -Z for -Y up.
    pub fn default_forward(up: Axis) -> Axis {
        match up {
            Axis::X | Axis::NegX | Axis::Y => Axis::Z,
            Axis::NegY => Axis::NegZ,
            Axis::Z => Axis::NegY,
            Axis::NegZ => Axis::Y,
        }
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Axis {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let text = text.strip_prefix('+').unwrap_or(text);
        Axis::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| format!("{text:?} is not an axis (x, y, z, -x, -y or -z)"))
    }
}

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

/// Import settings that cannot describe a file.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SettingsError {
    /// The unit scale is zero, negative, infinite or NaN.
    #[error("unit scale {0} is not a finite positive number")]
    UnitScale(f32),
    /// The up and forward axes lie along the same line.
    #[error("up axis {up} and forward axis {forward} are not perpendicular")]
    Axes {
        /// The up axis given.
        up: Axis,
        /// The forward axis given.
        forward: Axis,
    },
    /// The extra rotation is not a finite unit quaternion.
    #[error("root rotation {0} is not a unit quaternion")]
    Rotation(Quat),
    /// The extra translation is not finite.
    #[error("root translation {0} is not finite")]
    Translation(Vec3),
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

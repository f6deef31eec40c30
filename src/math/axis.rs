//! The six signed coordinate axes a file's up and forward directions are named by.

use std::fmt;
use std::str::FromStr;

use glam::Vec3;

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

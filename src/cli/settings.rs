//! The import flags every subcommand that reads a model shares: the file's unit and axes.

use clap::Args;
use sinew::{Axis, ImportSettings};

/// How to read the model file (glTF or FBX; `.sinew` files are baked already and ignore it).
#[derive(Clone, Copy, Debug, Default, Args)]
pub struct ImportFlags {
    /// Metres per file unit, e.g. 0.01 for a file in centimetres (FBX: on top of the unit the
    /// file declares; `.sinew` files ignore the import flags) [default: 1].
    #[arg(long, value_name = "S", allow_hyphen_values = true)]
    pub unit_scale: Option<f32>,
    /// The file's up axis, which becomes +Y: x, y, z, -x, -y or -z [default: y].
    #[arg(long, value_name = "AXIS", allow_hyphen_values = true)]
    pub up: Option<Axis>,
    /// The file's forward axis, which becomes +Z [default: z for y up, -y for z up, y for -z
    /// up, -z for -y up, z for ±x up].
    #[arg(long, value_name = "AXIS", allow_hyphen_values = true)]
    pub forward: Option<Axis>,
}

impl ImportFlags {
    /// The settings the flags describe (checked by the importer).
    pub fn settings(&self) -> ImportSettings {
        let defaults = ImportSettings::default();
        let up = self.up.unwrap_or(defaults.up);
        ImportSettings {
            unit_scale: self.unit_scale.unwrap_or(defaults.unit_scale),
            up,
            forward: self.forward.unwrap_or_else(|| Axis::default_forward(up)),
            ..defaults
        }
    }
}

//! `sinew bake`: glTF → `.sinew`.

use std::path::PathBuf;

use clap::Args;

/// Arguments of `sinew bake`.
#[derive(Debug, Args)]
pub struct BakeArgs {
    /// The glTF (`.gltf`, `.glb`) or FBX file to bake.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Where to write the baked rigs.
    #[arg(short = 'o', long = "out", value_name = "OUT.sinew")]
    pub out: PathBuf,
    /// Also store every rig's clips compressed (uniform frames, per-channel bit rates).
    #[arg(long)]
    pub compress: bool,
    /// The largest error the compressed clips may make, in millimetres at virtual vertices
    /// 3 cm from each joint (with --compress).
    #[arg(long, value_name = "MM", default_value_t = 0.1, requires = "compress",
          value_parser = positive_millimetres)]
    pub error_budget: f32,
    /// How to read the file.
    #[command(flatten)]
    pub import: super::settings::ImportFlags,
}

/// Parses a positive, finite number of millimetres.
fn positive_millimetres(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("{text:?} is not a positive number of millimetres")),
    }
}

impl BakeArgs {
    /// Imports, bakes and writes the file, reporting what it wrote on stderr.
    pub fn run(&self) -> super::Result {
        let (file, out) = (self.file.display(), self.out.display());
        let progress = super::progress::steps("bake");
        progress.set_message(format!("importing {file}"));
        let asset = sinew::import_file_with(&self.file, &self.import.settings())?;
        progress.set_message(format!("baking {file}"));
        let mut rigs = sinew::bake_rigs(&asset)?;
        if self.compress {
            progress.set_message(format!("compressing the clips of {file}"));
            for rig in &mut rigs {
                rig.compress(self.error_budget * 1e-3)?;
            }
        }
        progress.set_message(format!("writing {out}"));
        sinew::bake::file::write_file(&self.out, &rigs)?;
        progress.finish_and_clear();
        eprintln!("baked {} rig(s) from {file} into {out}", rigs.len());
        for rig in rigs.iter().filter(|r| r.compressed.is_some()) {
            if let Some(c) = &rig.compressed {
                let acl = sinew::bake::compressed::AclFigures::of(rig, c);
                eprintln!(
                    "  rig {:?}: clips compressed to {} bytes, error {:.4} mm (budget {:.4} mm); \
                     ACL raw {} bytes, {:.2}:1, {:.2} bits per joint-frame, max error at every \
                     sample {:.4} mm",
                    rig.name,
                    c.byte_size(),
                    c.max_error() * 1e3,
                    c.budget() * 1e3,
                    acl.raw_bytes,
                    acl.ratio,
                    acl.bits_per_joint_frame,
                    acl.max_error * 1e3
                );
            }
        }
        Ok(())
    }
}

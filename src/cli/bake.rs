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
    /// How to read the file.
    #[command(flatten)]
    pub import: super::settings::ImportFlags,
}

impl BakeArgs {
    /// Imports, bakes and writes the file, reporting what it wrote on stderr.
    pub fn run(&self) -> super::Result {
        let (file, out) = (self.file.display(), self.out.display());
        let progress = super::progress::steps("bake");
        progress.set_message(format!("importing {file}"));
        let asset = sinew::import_file_with(&self.file, &self.import.settings())?;
        progress.set_message(format!("baking {file}"));
        let rigs = sinew::bake_rigs(&asset)?;
        progress.set_message(format!("writing {out}"));
        sinew::bake::file::write_file(&self.out, &rigs)?;
        progress.finish_and_clear();
        eprintln!("baked {} rig(s) from {file} into {out}", rigs.len());
        Ok(())
    }
}

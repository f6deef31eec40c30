//! `sinew bake`: glTF → `.sinew`.

use super::Args;

pub fn run(args: &[String]) -> Result<(), String> {
    let args = Args::parse(args, &["-o"], &[])?;
    let file = args.file()?;
    let out = args.value("-o").ok_or("missing -o OUT.sinew")?;
    let asset = sinew::import_file(file).map_err(|e| e.to_string())?;
    let rigs = sinew::bake_rigs(&asset).map_err(|e| e.to_string())?;
    sinew::bake::file::write_file(out, &rigs).map_err(|e| e.to_string())?;
    eprintln!("baked {} rig(s) from {file} into {out}", rigs.len());
    Ok(())
}

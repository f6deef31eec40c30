//! Helpers several import tests share: every asset, and running the `sinew` binary.

use super::common;

/// Every asset of `../shared/gltf` and `assets/`.
pub(crate) fn all_assets() -> Vec<std::path::PathBuf> {
    let mut files = common::shared_assets();
    files.extend(common::repo_assets());
    files
}

/// Runs `sinew` with `args`.
pub(crate) fn sinew(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(args)
        .output()
        .unwrap()
}

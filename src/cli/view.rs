//! `sinew view`: a window that plays a file (see [`sinew::view`]).

use std::path::PathBuf;

use clap::Args;

/// Arguments of `sinew view`.
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// The glTF, FBX or `.sinew` file to open (more can be dropped on the window).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Save what the window shows after `--exit-after` frames to this PNG.
    #[arg(long, value_name = "PNG", requires = "exit_after")]
    pub screenshot: Option<PathBuf>,
    /// Close the window after F frames (time then advances 1/60 s per frame).
    #[arg(long, value_name = "F", value_parser = clap::value_parser!(u32).range(1..))]
    pub exit_after: Option<u32>,
    /// Width and height of the window, in pixels.
    #[arg(long, value_name = "W,H", default_value = "1280,800", value_parser = window_size)]
    pub size: (u32, u32),
}

/// Parses `W,H`: two whole numbers of pixels from 64 to 8192.
fn window_size(text: &str) -> Result<(u32, u32), String> {
    let fail = || format!("{text:?} is not W,H (two whole numbers from 64 to 8192)");
    let (w, h) = text.split_once(',').ok_or_else(fail)?;
    let side = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (64..=8192).contains(v))
            .ok_or_else(fail)
    };
    Ok((side(w)?, side(h)?))
}

impl ViewArgs {
    /// Opens the window and runs until it closes.
    pub fn run(&self) -> super::Result {
        let size = self.size;
        sinew::view::run(sinew::view::ViewOptions {
            file: self.file.clone(),
            screenshot: self.screenshot.clone(),
            exit_after: self.exit_after,
            size,
        })?;
        if let Some(path) = &self.screenshot {
            super::print(&format!("wrote {}", path.display()))?;
        }
        Ok(())
    }
}

//! The command line's grammar: one argument struct per subcommand (in its own module, beside
//! the code that runs it), the choices they share, and the small helpers every subcommand uses.
//! Doc comments on the structs and fields are the `--help` text.

use clap::{Parser, Subcommand, ValueEnum};

pub mod bake;
pub mod crowd;
pub mod error;
pub mod inspect;
pub mod pose;
pub mod progress;
pub mod render;
pub mod retarget;
pub mod settings;
#[cfg(feature = "view")]
pub mod view;

pub use self::error::CliError;

/// What a subcommand returns: a library error (which names its file, object and reason) or a
/// [`CliError`], printed as `sinew: <error>` with exit code 1.
pub type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Skeletal animation for crowds: glTF in, WGSL compute passes out.
///
/// Imports glTF 2.0 and FBX rigs, bakes them into flat buffers and evaluates every character's pose on
/// the GPU (wgpu compute) or on a CPU evaluator with the same math.
#[derive(Debug, Parser)]
#[command(name = "sinew", version, propagate_version = true)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the skins, joint trees, meshes, clips and channels of a glTF, FBX or `.sinew` file.
    Inspect(inspect::InspectArgs),
    /// Print world and skin matrices of every skin joint at given times, as JSON.
    Pose(pose::PoseArgs),
    /// Bake a glTF or FBX file into a `.sinew` file, which loads without parsing either.
    Bake(bake::BakeArgs),
    /// The main job: animate a crowd for some frames, render the last, report where time went.
    Crowd(crowd::CrowdArgs),
    /// Render one character in one pose (or its rest pose, or an animation) to a PNG.
    Render(render::RenderArgs),
    /// Open a window that plays a file: clips, layers, camera, crowd (the `view` feature).
    #[cfg(feature = "view")]
    View(view::ViewArgs),
}

impl Command {
    /// Usage rules the argument attributes cannot state; a failure is a usage error (exit 2).
    pub fn check(&self) -> std::result::Result<(), clap::Error> {
        match self {
            Self::Crowd(args) => args.check(),
            Self::Render(args) => args.check(),
            _ => Ok(()),
        }
    }

    /// Runs the subcommand.
    pub fn run(&self) -> Result {
        match self {
            Self::Inspect(args) => args.run(),
            Self::Pose(args) => args.run(),
            Self::Bake(args) => args.run(),
            Self::Crowd(args) => args.run(),
            Self::Render(args) => args.run(),
            #[cfg(feature = "view")]
            Self::View(args) => args.run(),
        }
    }
}

/// Which evaluator computes the poses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The CPU evaluator (exact clips).
    Cpu,
    /// The WGSL compute passes, on a headless wgpu device.
    Gpu,
}

impl Backend {
    /// The name the command line and the reports use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Gpu => "gpu",
        }
    }
}

/// A usage error of subcommand `name` (exit code 2), formatted with that subcommand's usage.
pub fn usage_error(name: &str, kind: clap::error::ErrorKind, message: &str) -> clap::Error {
    use clap::CommandFactory;
    let mut cli = Cli::command();
    cli.build();
    match cli.find_subcommand_mut(name) {
        Some(sub) => sub.error(kind, message),
        None => cli.error(kind, message),
    }
}

/// Parses a finite number of seconds (surrounding spaces allowed: `--times "0, 0.5"`).
pub fn finite_seconds(text: &str) -> std::result::Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("{text:?} is not a finite number of seconds")),
    }
}

/// Writes `text` and a newline to stdout; a closed pipe (`sinew pose ... | head`) is not an error.
pub fn print(text: &str) -> Result {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Output(e).into()),
        _ => Ok(()),
    }
}

/// Loads every rig of a `.sinew` file, or imports (with `settings`) and bakes a glTF or FBX
/// file.
pub fn load_rigs(
    file: &std::path::Path,
    settings: &sinew::ImportSettings,
) -> Result<Vec<sinew::Rig>> {
    if file.extension().is_some_and(|e| e == "sinew") {
        return Ok(sinew::bake::file::read_file(file)?);
    }
    let asset = sinew::import_file_with(file, settings)?;
    Ok(sinew::bake_rigs(&asset)?)
}

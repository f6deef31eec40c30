//! The `sinew` command line: `inspect`, `pose`, `bake`, `crowd` and `render` (`sinew --help`).
//! Usage errors exit with code 2 and clap's message; run-time errors with code 1 and
//! `sinew: <reason>`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match args.command.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sinew: {e}");
            ExitCode::FAILURE
        }
    }
}

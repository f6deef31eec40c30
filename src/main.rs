//! The `sinew` command line: `inspect`, `pose`, `bake`.

mod cli;

use std::process::ExitCode;

const USAGE: &str = "\
usage:
  sinew inspect FILE [--json]
  sinew pose FILE (--anim N --times T1,T2,... | --rest) [--backend cpu|gpu] [--nodes none|animated|all]
  sinew crowd [--characters N] [--frames F] [--model FILE] [--backend gpu|cpu [--resampled]] [--out PNG] [--json]
  sinew bake FILE -o OUT.sinew
  sinew render FILE --anim N --time T --out PNG [--bones] [--size PX] [--skinning linear|dq] [--backend cpu|gpu]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("inspect") => cli::inspect::run(&args[1..]),
        Some("pose") => cli::pose::run(&args[1..]),
        Some("bake") => cli::bake::run(&args[1..]),
        Some("crowd") => cli::crowd::run(&args[1..]),
        Some("render") => cli::render::run(&args[1..]),
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => Err(format!("unknown or missing command\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sinew: {e}");
            ExitCode::FAILURE
        }
    }
}

//! The `hybridgen` command: parse the arguments, run, and map the outcome to an exit code.

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = hybridgen::cli::Cli::parse();
    match hybridgen::cli::run(cli) {
        hybridgen::cli::Outcome::Clean => ExitCode::SUCCESS,
        hybridgen::cli::Outcome::Errors => ExitCode::from(1),
        hybridgen::cli::Outcome::Unusable => ExitCode::from(2),
    }
}

//! The `hybridgen` command: parse the arguments, run, and map the outcome to an exit code.

#![forbid(unsafe_code)]

use clap::Parser;
use std::process::ExitCode;

// A large spec becomes hundreds of thousands of small values, allocated and freed in bulk, which
// mimalloc does faster than the system allocator (BENCHMARKS.md gives the figure).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = hybridgen::cli::Cli::parse();
    match hybridgen::cli::run(cli) {
        hybridgen::cli::Outcome::Clean => ExitCode::SUCCESS,
        hybridgen::cli::Outcome::Errors => ExitCode::from(1),
        hybridgen::cli::Outcome::Unusable => ExitCode::from(2),
    }
}

//! The `hybridgen` command: parse the arguments, run, and map the outcome to an exit code.

use clap::Parser;
use std::process::ExitCode;

// A spec becomes hundreds of thousands of small values; mimalloc allocates and frees them about
// twice as fast as the system allocator (BENCHMARKS.md, 65,536 nodes: 0.83 s -> 0.41 s).
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

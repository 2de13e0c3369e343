//! `hybridgen completions`: a shell's completion script.

use super::{Outcome, emit};

pub fn run(shell: clap_complete::Shell, mut command: clap::Command) -> Outcome {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "hybridgen", &mut script);
    emit(&String::from_utf8_lossy(&script), Outcome::Clean)
}

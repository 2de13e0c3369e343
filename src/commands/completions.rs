//! `hybridgen completions`: a shell's completion script.

use super::{Outcome, emit};
use crate::rules;
use clap_complete::Shell;

pub fn run(shell: Shell, mut command: clap::Command) -> Outcome {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "hybridgen", &mut script);
    let mut script = String::from_utf8_lossy(&script).into_owned();
    if shell == Shell::Fish {
        script.push_str(&fish_rule_codes());
    }
    emit(&script, Outcome::Clean)
}

/// clap's fish script completes options only; `explain`'s argument, a rule code, is added here
/// (bash and zsh get the codes from the argument's possible values).
fn fish_rule_codes() -> String {
    rules::all()
        .iter()
        .map(|rule| {
            format!(
                "complete -c hybridgen -n \"__fish_hybridgen_using_subcommand explain\" -f -a \"{}\" -d '{}'\n",
                rule.code, rule.name
            )
        })
        .collect()
}

//! `hybridgen explain`: what a rule checks, why it matters, how to fix it, and its sources.

use super::{Outcome, complain, emit};
use crate::rules;
use clap::Args;

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The rule code, e.g. HG201.
    #[arg(required_unless_present = "all")]
    code: Option<String>,
    /// Explain every rule, as one Markdown document.
    #[arg(long, conflicts_with = "code")]
    all: bool,
}

pub fn run(args: ExplainArgs) -> Outcome {
    if args.all {
        let mut text = String::from("# hybridgen rules\n\n");
        for rule in rules::all() {
            text.push_str(&rule.explain_markdown());
            text.push('\n');
        }
        return emit(&text, Outcome::Clean);
    }
    match args.code.as_deref().and_then(rules::find) {
        Some(rule) => emit(&rule.explain_markdown(), Outcome::Clean),
        None => {
            complain(&format!(
                "unknown rule `{}`; `hybridgen explain --all` lists the rules",
                args.code.unwrap_or_default()
            ));
            Outcome::Unusable
        }
    }
}

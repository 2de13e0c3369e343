//! `hybridgen explain`: what a rule checks, why it matters, how to fix it, and its sources.

use super::report_options::RuleCode;
use super::{Outcome, complain, emit};
use crate::rules;
use clap::Args;

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The rule, by code (HG201) or by name (vxlan-vni-windows).
    #[arg(
        required_unless_present_any = ["all", "list"],
        value_parser = RuleCode,
        hide_possible_values = true
    )]
    code: Option<String>,
    /// Explain every rule, as one Markdown document.
    #[arg(long, conflicts_with_all = ["code", "list"])]
    all: bool,
    /// List every rule: code, default severity and name, one per line.
    #[arg(long, conflicts_with = "code")]
    list: bool,
}

pub fn run(args: ExplainArgs) -> Outcome {
    if args.all {
        let rules: String = rules::all()
            .iter()
            .map(|rule| rule.explain_markdown() + "\n")
            .collect();
        return emit(&format!("# hybridgen rules\n\n{rules}"), Outcome::Clean);
    }
    if args.list {
        let list: String = rules::all()
            .iter()
            .map(|rule| {
                let severity = rule.severity.as_str();
                format!("{}  {severity:<7}  {}\n", rule.code, rule.name)
            })
            .collect();
        return emit(&list, Outcome::Clean);
    }
    match args.code.as_deref().and_then(rules::find) {
        Some(rule) => emit(&rule.explain_markdown(), Outcome::Clean),
        None => {
            complain(&format!(
                "unknown rule `{}`; `hybridgen explain --list` lists the rules",
                crate::escape::bounded(&args.code.unwrap_or_default(), 100)
            ));
            Outcome::Unusable
        }
    }
}

//! `hybridgen plan`: check each spec and print its resolved plan and findings.

use super::report_options::{Overrides, ReportArgs, formatted, human_style, outcome_of};
use super::{Outcome, complain, emit, read_input};
use crate::diagnostic::Diagnostic;
use crate::pipeline::{self, Checked};
use crate::report::FileReport;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Spec files to check; `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The file name to report for standard input.
    #[arg(long, value_name = "NAME")]
    stdin_filename: Option<String>,
    #[command(flatten)]
    report: ReportArgs,
    /// Print the findings only, not the plan.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(args: PlanArgs) -> Outcome {
    let Some(overrides) = Overrides::requested(&args.report.severities) else {
        return Outcome::Unusable;
    };
    let mut unreadable = false;
    let mut checked: Vec<(Checked, Vec<Diagnostic>)> = Vec::new();
    for path in &args.files {
        let name = if path == Path::new("-") {
            args.stdin_filename
                .clone()
                .unwrap_or_else(|| "<stdin>".into())
        } else {
            path.display().to_string()
        };
        match read_input(path) {
            Ok(bytes) => {
                let file = pipeline::check(&name, bytes);
                let diagnostics = overrides.apply(file.diagnostics.clone());
                checked.push((file, diagnostics));
            }
            Err(error) => {
                complain(&format!("cannot read `{name}`: {error}"));
                unreadable = true;
            }
        }
    }
    let reports: Vec<FileReport> = checked
        .iter()
        .map(|(file, diagnostics)| file.report(diagnostics))
        .collect();
    let text = formatted(
        &reports,
        args.report.format,
        human_style(args.report.color, args.quiet),
    );
    emit(&text, outcome_of(&reports, unreadable))
}

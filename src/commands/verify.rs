//! `hybridgen verify`: the spec's plan against what kubectl captured of the running cluster.

use super::live_source::LiveArgs;
use super::report_options::{Format, Overrides, ReportArgs, formatted, human_style, outcome_of};
use super::{Outcome, complain, emit, read_input};
use crate::diagnostic::Diagnostic;
use crate::pipeline::{self, Checked};
use crate::report::human;
use crate::verify;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["cluster", "kubectl", "print_capture"])))]
pub struct VerifyArgs {
    /// The spec whose plan the cluster is compared with.
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    spec: PathBuf,
    #[command(flatten)]
    live: LiveArgs,
    /// Print the kubectl commands that capture what verify compares, and exit.
    #[arg(long, conflicts_with_all = ["cluster", "kubectl"])]
    print_capture: bool,
    #[command(flatten)]
    report: ReportArgs,
    /// Print the findings only, not what was compared.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(args: VerifyArgs) -> Outcome {
    let Some(overrides) = Overrides::requested(&args.report.severities)
        .and_then(|overrides| overrides.for_spec(&args.spec))
    else {
        return Outcome::Unusable;
    };
    let name = args.spec.display().to_string();
    let style = human::Style {
        show_plan: false,
        ..human_style(args.report.color, args.quiet)
    };
    let (checked, spec_findings) =
        match planned_without_errors(&args.spec, &overrides, args.report.format, style) {
            Ok(planned) => planned,
            Err(outcome) => return outcome,
        };
    let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
        return Outcome::Errors;
    };
    if args.print_capture {
        return emit(&verify::kubectl::script(&name, plan), Outcome::Clean);
    }
    let Some(source) = args.live.source() else {
        complain("give `--cluster PATH`, `--kubectl` or `--print-capture`; nothing was verified");
        return Outcome::Unusable;
    };
    let observed =
        match verify::observe(source, plan, args.live.flannel_annotation_prefix.as_deref()) {
            Ok(observed) => observed,
            Err(message) => {
                complain(&format!("{message}; nothing was verified"));
                return Outcome::Unusable;
            }
        };
    let comparison = verify::compare(spec, plan, &observed);
    let captured = &observed.captured;
    // The spec's own findings first, as `plan` reports them, then the cluster's.
    let mut findings = spec_findings;
    findings.extend(overrides.apply(comparison.diagnostics.clone()));
    let capture_findings: Vec<Vec<Diagnostic>> = captured
        .files
        .iter()
        .map(|file| overrides.apply(file.diagnostics.clone()))
        .collect();
    // The spec, and each capture with findings of its own (the coverage names the others).
    let mut reports = vec![checked.report(&findings)];
    reports.extend(
        captured
            .files
            .iter()
            .zip(&capture_findings)
            .filter(|(_, diagnostics)| !diagnostics.is_empty())
            .map(|(capture, diagnostics)| {
                crate::report::FileReport::new(&capture.file, diagnostics)
            }),
    );
    let mut text = String::new();
    if args.report.format == Format::Human && !args.quiet {
        text.push_str(&comparison.coverage_text(&name, captured));
    }
    text.push_str(&formatted(&reports, args.report.format, style));
    emit(&text, outcome_of(&reports, false))
}

/// The spec checked and planned, with its findings, when it has no errors: a cluster is compared
/// only with a sound plan. Warnings never stop the comparison, `--deny-warnings` or `--deny`
/// included: they are reported with the cluster's findings (as errors when denied). Otherwise the
/// spec's findings are reported in the chosen format, as `plan` reports them, and stderr says
/// that nothing was verified.
fn planned_without_errors(
    path: &Path,
    overrides: &Overrides,
    format: Format,
    style: human::Style,
) -> Result<(Checked, Vec<Diagnostic>), Outcome> {
    let name = path.display().to_string();
    let bytes = read_input(path).map_err(|error| {
        complain(&format!("cannot read `{name}`: {error}"));
        Outcome::Unusable
    })?;
    let checked = pipeline::check(&name, bytes);
    let findings = overrides.apply(checked.diagnostics.clone());
    let planned = checked.spec.is_some() && checked.plan.is_some();
    if !planned || overrides.keeps_an_error(&checked.diagnostics) {
        let reports = [checked.report(&findings)];
        let outcome = emit(&formatted(&reports, format, style), Outcome::Errors);
        complain(&format!("`{name}` has errors; nothing was verified"));
        return Err(outcome);
    }
    Ok((checked, findings))
}

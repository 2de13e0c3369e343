//! `hybridgen verify`: the spec's plan against what kubectl captured of the running cluster.

use super::report_options::{Format, Overrides, ReportArgs, formatted, human_style, outcome_of};
use super::{Outcome, complain, emit, read_input};
use crate::diagnostic::{Diagnostic, Severity};
use crate::live;
use crate::pipeline::{self, Checked};
use crate::plan::Plan;
use crate::report::human;
use crate::verify::{self, capture};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["cluster", "kubectl", "print_capture"])))]
pub struct VerifyArgs {
    /// The spec whose plan the cluster is compared with.
    #[arg(value_name = "FILE")]
    spec: PathBuf,
    /// Files or directories captured with kubectl (JSON or YAML; `--print-capture` prints the
    /// commands).
    /// Repeat it for several paths; before or after the spec.
    #[arg(long, value_name = "PATH", action = clap::ArgAction::Append, conflicts_with_all = ["kubectl", "print_capture"])]
    cluster: Vec<PathBuf>,
    /// Capture with kubectl here, through its current context, then compare: the kubectl found on
    /// PATH, or `--kubectl=PATH`.
    #[arg(long, value_name = "KUBECTL", num_args = 0..=1, require_equals = true, default_missing_value = "kubectl", conflicts_with = "print_capture")]
    kubectl: Option<PathBuf>,
    /// With `--kubectl`: the seconds each kubectl command may run before it is stopped, with
    /// every process it started.
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    kubectl_timeout: u64,
    /// Print the kubectl commands that capture what verify compares, and exit.
    #[arg(long)]
    print_capture: bool,
    /// The prefix of flannel's node annotations when flanneld runs with
    /// `--kube-annotation-prefix` (default: found on the nodes).
    #[arg(long, value_name = "PREFIX")]
    flannel_annotation_prefix: Option<String>,
    #[command(flatten)]
    report: ReportArgs,
    /// Print the findings only, not what was compared.
    #[arg(short, long)]
    quiet: bool,
}

pub fn run(args: VerifyArgs) -> Outcome {
    let Some(overrides) = Overrides::requested(&args.report.severities) else {
        return Outcome::Unusable;
    };
    let name = args.spec.display().to_string();
    let style = human::Style {
        show_plan: false,
        ..human_style(args.report.color, args.quiet)
    };
    let checked = match planned_without_errors(&args.spec, &overrides, args.report.format, style) {
        Ok(checked) => checked,
        Err(outcome) => return outcome,
    };
    let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
        return Outcome::Errors;
    };
    if args.print_capture {
        return emit(&verify::kubectl::script(&name, plan), Outcome::Clean);
    }
    let inputs = match capture_inputs(&args, plan) {
        Ok(inputs) => inputs,
        Err(message) => {
            complain(&format!("{message}; nothing was verified"));
            return Outcome::Unusable;
        }
    };
    let mut captured = capture::read(inputs, &verify::kubectl::captures(plan));
    let cluster = live::cluster::read(
        &captured.objects,
        plan,
        args.flannel_annotation_prefix.as_deref(),
    );
    let comparison = verify::compare(spec, plan, &cluster);
    captured.add_findings(comparison.capture_findings.clone());
    let findings = overrides.apply(comparison.diagnostics.clone());
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
        text.push_str(&comparison.coverage_text(&name, &captured));
    }
    text.push_str(&formatted(&reports, args.report.format, style));
    emit(&text, outcome_of(&reports, false))
}

/// The spec checked and planned, when it has no errors: a cluster is compared only with a sound
/// plan. Otherwise its findings are reported in the chosen format, as `plan` reports them, and
/// stderr says that nothing was verified.
fn planned_without_errors(
    path: &Path,
    overrides: &Overrides,
    format: Format,
    style: human::Style,
) -> Result<Checked, Outcome> {
    let name = path.display().to_string();
    let bytes = read_input(path).map_err(|error| {
        complain(&format!("cannot read `{name}`: {error}"));
        Outcome::Unusable
    })?;
    let checked = pipeline::check(&name, bytes);
    let findings = overrides.apply(checked.diagnostics.clone());
    let planned = checked.spec.is_some() && checked.plan.is_some();
    if !planned || findings.iter().any(|d| d.severity == Severity::Error) {
        let reports = [checked.report(&findings)];
        let outcome = emit(&formatted(&reports, format, style), Outcome::Errors);
        complain(&format!("`{name}` has errors; nothing was verified"));
        return Err(outcome);
    }
    Ok(checked)
}

/// The captures to read: kubectl's output, each named by its command, or the files given.
fn capture_inputs(args: &VerifyArgs, plan: &Plan) -> Result<Vec<capture::Input>, String> {
    let Some(kubectl) = &args.kubectl else {
        return capture::gather(&args.cluster);
    };
    let limits = verify::kubectl::Limits::new(std::time::Duration::from_secs(args.kubectl_timeout));
    verify::kubectl::capture_all(kubectl, plan, limits)
}

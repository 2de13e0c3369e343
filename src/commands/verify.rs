//! `hybridgen verify`: the spec's plan against what kubectl captured of the running cluster.

use super::live_source::LiveArgs;
use super::report_options::{Format, Overrides, ReportArgs, formatted, human_style, outcome_of};
use super::{Outcome, complain, emit, read_input};
use crate::diagnostic::Diagnostic;
use crate::pipeline::{self, Checked};
use crate::render::live_record::LiveRecord;
use crate::render::write;
use crate::report::human;
use crate::rules::cidr::POD_CIDR_PREDICTED;
use crate::rules::live::RenderedRoutes;
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
    /// The directory `hybridgen render --out DIR` wrote, whose routes were applied: when that
    /// render read the pod subnets from the cluster (`--kubectl` or `--cluster`), HG503 compares
    /// the cluster's with those, not with the predictions. Example:
    /// `hybridgen verify cluster.yaml --kubectl --out deploy`.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath, conflicts_with = "print_capture")]
    out: Option<PathBuf>,
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
    let not_verified = |message: String| {
        complain(&format!("{message}; nothing was verified"));
        Outcome::Unusable
    };
    let rendered = match args.out.as_deref().map(rendered_routes).transpose() {
        Ok(rendered) => rendered,
        Err(message) => return not_verified(message),
    };
    let Some(source) = args.live.source() else {
        complain("give `--cluster PATH`, `--kubectl` or `--print-capture`; nothing was verified");
        return Outcome::Unusable;
    };
    let observed =
        match verify::observe(source, plan, args.live.flannel_annotation_prefix.as_deref()) {
            Ok(observed) => observed,
            Err(message) => return not_verified(message),
        };
    let comparison = verify::compare_with_rendered(spec, plan, &observed, rendered.as_ref());
    let captured = &observed.captured;
    // The spec's own findings first, as `plan` reports them, then the cluster's. Routes rendered
    // from the cluster for every node are no prediction: HG117 is not about them.
    let mut findings = spec_findings;
    if rendered
        .as_ref()
        .is_some_and(|routes| routes.covers_every_node(plan))
    {
        findings.retain(|finding| finding.rule.code != POD_CIDR_PREDICTED.code);
    }
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

/// `--out DIR`: the pod subnets the routes in DIR were rendered from, as its manifest remembers
/// them. The directory may come with a pull request: the manifest is read only through the
/// renderer's own reader, and its live lines are validated.
fn rendered_routes(out: &Path) -> Result<RenderedRoutes, String> {
    let shown = out.display().to_string();
    let manifest_name = format!("{shown}/{}", write::MANIFEST);
    let bytes = write::read_manifest_of(out)
        .map_err(|error| error.0)?
        .ok_or_else(|| {
            format!(
                "`{shown}` holds no `{}`: give `--out` the directory `hybridgen render SPEC --out DIR` wrote",
                write::MANIFEST
            )
        })?;
    let record = LiveRecord::parse(&String::from_utf8_lossy(&bytes), &manifest_name)?;
    Ok(RenderedRoutes {
        out: shown,
        source: record.as_ref().map(|record| record.source.describe()),
        subnets: record.map(|record| record.nodes).unwrap_or_default(),
    })
}

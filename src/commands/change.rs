//! `hybridgen plan SPEC --from OLD`: the change plan from the spec `OLD` (a file, or
//! `git:REV[:PATH]`) to `SPEC`, with the new spec's findings and the change rules' (HG7xx).

use super::report_options::{Format, Overrides, ReportArgs, formatted, human_style, outcome_of};
use super::{Outcome, complain, complain_findings, emit, git_source, read_input};
use crate::change::{Paths, Side};
use crate::pipeline::{self, Checked};
use crate::plan::Plan;
use crate::report;
use crate::verify::{self, Source, kubectl};
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

/// How long each kubectl command of `--from kubectl` may run (`verify`'s default).
const KUBECTL_SECONDS: u64 = 60;

/// Where the printed commands say `render` writes.
const OUT: &str = "out";

pub(crate) fn run(
    spec: &Path,
    from: &str,
    report_args: &ReportArgs,
    overrides: &Overrides,
) -> Outcome {
    let name = spec.display().to_string();
    let new_bytes = match read_input(spec) {
        Ok(bytes) => bytes,
        Err(error) => {
            complain(&format!("cannot read `{name}`: {error}"));
            return Outcome::Unusable;
        }
    };
    let Some(overrides) = overrides.for_spec(spec) else {
        return Outcome::Unusable;
    };
    let new = pipeline::check(&name, new_bytes);
    let paths = Paths {
        spec: name.clone(),
        out: OUT.into(),
    };
    let (old_name, change) = match live_source(from) {
        Some(source) => {
            let Some((spec, plan)) = new.spec.as_ref().zip(new.plan.as_ref()) else {
                return findings_only(&new, &overrides.apply(new.diagnostics.clone()), report_args);
            };
            let label = match &source {
                LiveSource::Kubectl(_) => "the cluster (kubectl, current context)".to_string(),
                LiveSource::Capture(path) => format!("the cluster captured in {}", path.display()),
            };
            match from_cluster(&source, spec, plan, &paths) {
                Ok(change) => (label, change),
                Err(message) => {
                    complain(&format!("{message}; no change was planned"));
                    return Outcome::Unusable;
                }
            }
        }
        None => {
            let (old_name, old_bytes) = match read_old(from, spec) {
                Ok(old) => old,
                Err(message) => {
                    complain(&message);
                    return Outcome::Unusable;
                }
            };
            let old = pipeline::check(&old_name, old_bytes);
            if old.plan.is_none() {
                complain(&format!(
                    "the old spec `{}` does not plan, so there is nothing to change from: fix what follows, or name another with `--from`",
                    crate::escape::inline(&old_name)
                ));
                complain_findings(&old, &old.diagnostics);
                return Outcome::Unusable;
            }
            let Some(change) = pipeline::change(&old, &new, &paths) else {
                return findings_only(&new, &overrides.apply(new.diagnostics.clone()), report_args);
            };
            (old_name, change)
        }
    };
    let mut diagnostics = new.diagnostics.clone();
    diagnostics.extend(change.findings.iter().cloned());
    let diagnostics = overrides.apply(diagnostics);
    let file_report = new.report(&diagnostics);
    let text = match report_args.format {
        Format::Human => {
            let mut style = human_style(report_args.color, true);
            style.show_plan = false;
            let findings = report::human::render(std::slice::from_ref(&file_report), style);
            format!(
                "{}\n{findings}",
                report::human::change_plan(&change, &old_name, &name)
            )
        }
        Format::Markdown => report::markdown::change_plan(&change, &file_report, &old_name, &name),
        Format::Json => report::json::change_plan(&change, &file_report, &old_name, &name),
        Format::Sarif | Format::Github => return findings_only(&new, &diagnostics, report_args),
    };
    emit(&text, outcome_of(std::slice::from_ref(&file_report), false))
}

/// A running cluster as the old side: `kubectl` (the one on `PATH`, through its current
/// context), `kubectl=PATH` (that kubectl binary, as `verify --kubectl=PATH` names it), or
/// `cluster:PATH` (files or a directory captured with kubectl, as `verify --cluster` reads them).
enum LiveSource {
    Kubectl(PathBuf),
    Capture(PathBuf),
}

fn live_source(from: &str) -> Option<LiveSource> {
    if from == "kubectl" {
        return Some(LiveSource::Kubectl(PathBuf::from("kubectl")));
    }
    if let Some(path) = from
        .strip_prefix("kubectl=")
        .filter(|path| !path.is_empty())
    {
        return Some(LiveSource::Kubectl(PathBuf::from(path)));
    }
    from.strip_prefix("cluster:")
        .map(|path| LiveSource::Capture(PathBuf::from(path)))
}

/// The change from what the cluster runs to the spec: the cluster read as `verify` reads it,
/// both sides with the pod subnets the cluster gave its nodes.
fn from_cluster(
    source: &LiveSource,
    spec: &crate::spec::Spec,
    plan: &Plan,
    paths: &Paths,
) -> Result<crate::change::ChangePlan, String> {
    let captures;
    let source = match source {
        LiveSource::Kubectl(kubectl) => Source::Kubectl(
            kubectl,
            kubectl::Limits::new(Duration::from_secs(KUBECTL_SECONDS)),
        ),
        LiveSource::Capture(path) => {
            captures = [path.clone()];
            Source::Files(&captures)
        }
    };
    let observed = verify::observe(source, plan, None)?;
    let (old_spec, notes) = crate::change::live::spec_from_cluster(spec, &observed.cluster);
    let old_plan = Plan::build(&old_spec);
    let old_subnets =
        crate::live::match_nodes(&old_plan, &observed.cluster).pod_subnets(&observed.cluster);
    let old_plan = old_plan.with_live_subnets(&old_subnets);
    let new_plan = plan.with_live_subnets(&observed.matching.pod_subnets(&observed.cluster));
    let mut change = crate::change::plan(
        Side {
            spec: &old_spec,
            plan: &old_plan,
        },
        Side {
            spec,
            plan: &new_plan,
        },
        paths,
    );
    change.notes = notes;
    Ok(change)
}

/// The findings alone, as `plan` prints them: a new spec that did not plan, or a format with no
/// change plan.
fn findings_only(
    new: &Checked,
    diagnostics: &[crate::diagnostic::Diagnostic],
    report_args: &ReportArgs,
) -> Outcome {
    let file_report = new.report(diagnostics);
    let reports = std::slice::from_ref(&file_report);
    let text = formatted(
        reports,
        report_args.format,
        human_style(report_args.color, true),
    );
    emit(&text, outcome_of(reports, false))
}

/// The old spec's name and bytes: `git:REV[:PATH]`, or a file.
fn read_old(from: &str, spec: &Path) -> Result<(String, Vec<u8>), String> {
    match git_source::parse(from) {
        Some(Ok(source)) => git_source::read(&source, spec),
        Some(Err(message)) => Err(message),
        None => read_input(Path::new(from))
            .map(|bytes| (from.to_string(), bytes))
            .map_err(|error| {
                format!(
                    "cannot read `{}` (`--from`): {error}",
                    crate::escape::inline(from)
                )
            }),
    }
}

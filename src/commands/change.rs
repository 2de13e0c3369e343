//! `hybridgen plan SPEC --from OLD`: the change plan from the spec `OLD` (a file, or
//! `git:REV[:PATH]`) to `SPEC`, with the new spec's findings and the change rules' (HG7xx).

use super::report_options::{Format, Overrides, ReportArgs, formatted, human_style, outcome_of};
use super::{Outcome, complain, complain_findings, emit, git_source, read_input};
use crate::change::Paths;
use crate::pipeline::{self, Checked};
use crate::report;
use std::path::Path;

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
    let Some(overrides) = overrides.for_spec(spec) else {
        return Outcome::Unusable;
    };
    let new = pipeline::check(&name, new_bytes);
    let paths = Paths {
        spec: name.clone(),
        out: OUT.into(),
    };
    let Some(change) = pipeline::change(&old, &new, &paths) else {
        return findings_only(&new, overrides.apply(new.diagnostics.clone()), report_args);
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
        Format::Sarif | Format::Github => formatted(
            std::slice::from_ref(&file_report),
            report_args.format,
            human_style(report_args.color, true),
        ),
    };
    emit(&text, outcome_of(std::slice::from_ref(&file_report), false))
}

/// A new spec that did not plan: its findings, as `plan` prints them.
fn findings_only(
    new: &Checked,
    diagnostics: Vec<crate::diagnostic::Diagnostic>,
    report_args: &ReportArgs,
) -> Outcome {
    let file_report = new.report(&diagnostics);
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

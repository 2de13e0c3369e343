//! `hybridgen plan`: check each spec and print its resolved plan and findings.

use super::git_source;
use super::report_options::{Format, Overrides, ReportArgs, formatted, human_style, outcome_of};
use super::settings;
use super::spec_files;
use super::{Outcome, complain, emit, emit_with, read_input};
use crate::diagnostic::Diagnostic;
use crate::pipeline::{self, Checked};
use crate::report::{FileReport, human};
use clap::Args;
use std::io::Write as _;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Spec files to check, or directories to search for specs; `-` reads standard input.
    #[arg(required = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    files: Vec<PathBuf>,
    /// The file name to report for standard input.
    #[arg(long, value_name = "NAME")]
    stdin_filename: Option<String>,
    #[command(flatten)]
    report: ReportArgs,
    /// Print the findings only, not the plan.
    #[arg(short, long)]
    quiet: bool,
    /// Check only specs and skip other YAML without a word: files that declare `apiVersion:
    /// hybridgen/...` or carry hybridgen's schema modeline (`# yaml-language-server:
    /// $schema=...hybridgen...`), whatever they are called. For hooks and globs that hand over
    /// every YAML file (a Flux Kustomization is not a spec); a file with the modeline that does
    /// not load is reported, not skipped.
    #[arg(long)]
    skip_non_specs: bool,
    /// Print which settings file (`.hybridgen.yaml`) applies to each file and what it sets, then
    /// exit without checking.
    #[arg(long)]
    show_settings: bool,
    /// Print the change plan from OLD to FILE (one FILE): OLD is a spec file, `git:REV[:PATH]`
    /// (PATH defaults to FILE's path in the repository), e.g. `--from git:HEAD~1`, or the running
    /// cluster: `kubectl` (its current context; `kubectl=PATH` runs that kubectl binary, e.g.
    /// `--from kubectl=/usr/local/bin/kubectl`) or `cluster:PATH` (files captured with kubectl).
    /// Every difference of the two resolved plans as ordered steps, each classified, with the
    /// nodes, rendered files, commands and the source of its rule; the change rules (HG7xx) say
    /// what cannot change in place.
    #[arg(long, value_name = "OLD")]
    from: Option<String>,
}

pub fn run(args: PlanArgs) -> Outcome {
    let Some(overrides) = Overrides::requested(&args.report.severities) else {
        return Outcome::Unusable;
    };
    if args.show_settings {
        return show_settings(&args.files);
    }
    if let Some(from) = &args.from {
        return change_plans(&args, from, &overrides);
    }
    let mut unreadable: Vec<String> = Vec::new();
    let mut checked: Vec<(Checked, Vec<Diagnostic>)> = Vec::new();
    for path in &spec_files::expand(&args.files, &mut unreadable) {
        let name = if path == Path::new("-") {
            args.stdin_filename
                .clone()
                .unwrap_or_else(|| "<stdin>".into())
        } else {
            path.display().to_string()
        };
        match read_input(path) {
            Ok(bytes) if args.skip_non_specs && !spec_files::is_a_spec(&bytes) => {}
            Ok(bytes) => {
                let Some(overrides) = overrides.for_spec(path) else {
                    unreadable.push(name);
                    continue;
                };
                let file = pipeline::check(&name, bytes);
                let diagnostics = overrides.apply(file.diagnostics.clone());
                checked.push((file, diagnostics));
            }
            Err(error) => {
                complain(&format!("cannot read `{name}`: {error}"));
                unreadable.push(name);
            }
        }
    }
    let reports: Vec<FileReport> = checked
        .iter()
        .map(|(file, diagnostics)| file.report(diagnostics))
        .collect();
    let outcome = outcome_of(&reports, !unreadable.is_empty());
    if args.report.format != Format::Human {
        let text = formatted(
            &reports,
            args.report.format,
            human_style(args.report.color, args.quiet),
        );
        return emit(&text, outcome);
    }
    // A run that read no file checked nothing: no summary says "no problems found" then.
    if reports.is_empty() {
        return emit("", outcome);
    }
    // Written as it is made: the whole report of a large spec is megabytes of text.
    let style = human_style(args.report.color, args.quiet);
    emit_with(outcome, |stdout| {
        human::write(&reports, style, &mut |piece| {
            stdout.write_all(piece.as_bytes())
        })?;
        if !unreadable.is_empty() {
            let names: Vec<String> = unreadable.iter().map(|name| format!("`{name}`")).collect();
            let line = format!(
                "not checked, since it cannot be read: {}\n",
                names.join(", ")
            );
            stdout.write_all(line.as_bytes())?;
        }
        Ok(())
    })
}

/// `--from OLD`: the change plan of one spec; with `git:REV` (no path), of each spec given, from
/// its own version at REV, as a pre-commit hook hands them over. A spec added since REV has no
/// old version and is said to be new; with `--skip-non-specs` other YAML is passed over.
fn change_plans(args: &PlanArgs, from: &str, overrides: &Overrides) -> Outcome {
    let each_from_git = match git_source::parse(from) {
        Some(Ok(source)) if source.path.is_none() => Some(source),
        _ => None,
    };
    if args.files.len() != 1 && each_from_git.is_none() {
        complain(
            "`--from` compares one spec with its old version: give one FILE, or `--from git:REV` to compare each FILE with its version at REV",
        );
        return Outcome::Unusable;
    }
    let mut outcome = Outcome::Clean;
    for spec in &args.files {
        if args.skip_non_specs
            && matches!(read_input(spec), Ok(bytes) if !spec_files::is_a_spec(&bytes))
        {
            continue;
        }
        if let Some(source) = &each_from_git {
            if git_source::added_since(source, spec) {
                let _ = writeln!(
                    std::io::stderr(),
                    "{}: new since {}, so no change plan",
                    crate::escape::inline(&spec.display().to_string()),
                    crate::escape::inline(&source.rev)
                );
                continue;
            }
        }
        // The worst outcome of them all.
        outcome = outcome.max(super::change::run(spec, from, &args.report, overrides));
    }
    outcome
}

/// `--show-settings`: for each file, the settings file that applies and each rule it sets, with
/// where; exit 2 when one does not read.
fn show_settings(files: &[std::path::PathBuf]) -> Outcome {
    let mut text = String::new();
    let mut outcome = Outcome::Clean;
    for path in files {
        let name = crate::escape::inline(&path.display().to_string());
        match settings::for_spec(path) {
            Ok(None) => text.push_str(&format!(
                "{name}: no `{}` found from its directory up to the repository's root\n",
                settings::FILE_NAME
            )),
            Ok(Some(found)) => {
                text.push_str(&format!(
                    "{name}: {}\n",
                    crate::escape::inline(&found.path.display().to_string())
                ));
                for (code, (level, place)) in &found.levels {
                    text.push_str(&format!("  {code} {} ({place})\n", level.as_str()));
                }
            }
            Err(message) => {
                complain(&message);
                outcome = Outcome::Unusable;
            }
        }
    }
    emit(&text, outcome)
}

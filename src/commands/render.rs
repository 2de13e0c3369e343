//! `hybridgen render`: write the artifacts of a spec that has no errors, or with `--check` say
//! which committed ones are stale.

use super::report_options::{Overrides, SeverityArgs};
use super::{Outcome, complain, complain_findings, emit, read_input};
use crate::diagnostic::Severity;
use crate::escape;
use crate::pipeline;
use crate::render::write::{self, Drift, Written};
use crate::render::{self, Artifact, secrets};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The spec to render.
    #[arg(value_name = "FILE")]
    spec: PathBuf,
    /// The directory to write into (created when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Write nothing; exit 1 listing the files that differ from the rendered ones, or are missing.
    #[arg(long)]
    check: bool,
    /// Render even when secret variables are unset, writing an obvious placeholder instead.
    #[arg(long)]
    allow_missing_secrets: bool,
    /// Overwrite files in the output directory that hybridgen did not write.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    severities: SeverityArgs,
}

pub fn run(args: RenderArgs) -> Outcome {
    let name = args.spec.display().to_string();
    let bytes = match read_input(&args.spec) {
        Ok(bytes) => bytes,
        Err(error) => {
            complain(&format!("cannot read `{name}`: {error}"));
            return Outcome::Unusable;
        }
    };
    let Some(overrides) = Overrides::requested(&args.severities) else {
        return Outcome::Unusable;
    };
    let checked = pipeline::check(&name, bytes);
    let diagnostics = overrides.apply(checked.diagnostics.clone());
    let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
        complain_findings(&checked, &diagnostics);
        complain(&format!("`{name}` has errors; nothing was rendered"));
        return Outcome::Errors;
    };
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        complain_findings(&checked, &diagnostics);
        complain(&format!("`{name}` has errors; nothing was rendered"));
        return Outcome::Errors;
    }
    let (secrets, unset) = secrets::from_environment(spec, plan);
    if !unset.is_empty() && !args.check {
        let findings = secrets::unset_findings(spec, &unset, args.allow_missing_secrets);
        complain_findings(&checked, &findings);
        if !args.allow_missing_secrets {
            complain(
                "nothing was rendered; set the variables, or pass --allow-missing-secrets for placeholders",
            );
            return Outcome::Errors;
        }
    }
    // Everything to report has been reported: the text and the span index (tens of megabytes at
    // 65,536 nodes) are let go before the artifacts take their place.
    let Some((spec, plan)) = checked.into_spec_and_plan() else {
        return Outcome::Errors;
    };
    let input = render::Input {
        spec: &spec,
        plan: &plan,
        secrets: &secrets,
    };
    let artifacts = match render::render_all(&input) {
        Ok(artifacts) => artifacts,
        Err(error) => {
            complain(&error.0);
            return Outcome::Errors;
        }
    };
    if args.check {
        check(&args.out, &artifacts, &name)
    } else {
        write_out(&args.out, &artifacts, args.force)
    }
}

/// `--check`: what differs between the rendered artifacts and the directory; nothing is written.
fn check(out: &Path, artifacts: &[Artifact], spec_name: &str) -> Outcome {
    let drift = match write::check(out, artifacts) {
        Ok(drift) => drift,
        Err(error) => {
            complain(&error.0);
            return Outcome::Unusable;
        }
    };
    if drift.is_empty() {
        let text = format!(
            "{} artifacts in {} are up to date\n",
            artifacts.len(),
            out.display()
        );
        return emit(&text, Outcome::Clean);
    }
    let mut text = format!(
        "{} stale in {} ({} artifacts rendered):\n",
        if drift.len() == 1 {
            "1 file is".to_string()
        } else {
            format!("{} files are", drift.len())
        },
        out.display(),
        artifacts.len()
    );
    for item in &drift {
        match item {
            Drift::Missing(path) => text.push_str(&format!("missing: {path}\n")),
            Drift::Differs { path, diff } => {
                text.push_str(&format!("differs: {path}\n{diff}"));
                if !diff.ends_with('\n') {
                    text.push('\n');
                }
            }
            Drift::Obsolete(path) => text.push_str(&format!("no longer rendered: {path}\n")),
        }
    }
    text.push_str(&format!(
        "run `hybridgen render {spec_name} --out {}` to update them\n",
        out.display()
    ));
    emit(&terminal_text(&text), Outcome::Errors)
}

/// Writes the artifacts and says what changed.
fn write_out(out: &Path, artifacts: &[Artifact], force: bool) -> Outcome {
    match write::write_all(out, artifacts, force) {
        Ok(written) => emit(
            &terminal_text(&written_text(out, artifacts.len(), &written)),
            Outcome::Clean,
        ),
        Err(error) => {
            complain(&error.0);
            Outcome::Unusable
        }
    }
}

/// What `render` prints, as a terminal or CI log gets it: a diff quotes files on disk, which may
/// hold anything, so their control characters are shown as `?` and no line starts a workflow
/// command.
fn terminal_text(text: &str) -> String {
    escape::no_workflow_commands(&escape::same_length(text))
}

fn written_text(out: &Path, rendered: usize, written: &Written) -> String {
    let mut text = String::new();
    for path in &written.changed {
        text.push_str(&format!("wrote {}\n", out.join(path).display()));
    }
    for path in &written.removed {
        text.push_str(&format!(
            "removed {} (no longer rendered)\n",
            out.join(path).display()
        ));
    }
    text.push_str(&format!(
        "{rendered} artifacts in {}: {} written, {} unchanged",
        out.display(),
        written.changed.len(),
        written.unchanged.len()
    ));
    if !written.removed.is_empty() {
        text.push_str(&format!(", {} removed", written.removed.len()));
    }
    text.push('\n');
    text
}

//! `hybridgen render`: write the artifacts of a spec that has no errors, or with `--check` say
//! which committed ones are stale or were edited by hand. With `--cluster` or `--kubectl` the
//! joined nodes' pod subnets come from the cluster, read as `verify` reads it, into the plan every
//! artifact is rendered from, and the manifest remembers them ([`crate::render::live_record`]);
//! without either flag, a directory rendered from the cluster is rendered from what it remembers,
//! never from predictions. Output goes through [`super::render_output`] (`-q`, `--format`).

use super::live_source::LiveArgs;
use super::render_output::{RenderFormat, Reporter};
use super::report_options::{ColorChoice, Overrides, SeverityArgs};
use super::{Outcome, read_input};
use crate::diagnostic::{Diagnostic, Severity};
use crate::escape;
use crate::pipeline::{self, Checked};
use crate::plan::{Plan, SubnetSource};
use crate::render::live_record::{LiveRecord, LiveSource};
use crate::render::write::{self, Drift, Refusal, Written};
use crate::render::{self, Artifact};
use crate::report::FileReport;
use crate::rules::{self, cidr::POD_CIDR_PREDICTED, live::LiveContext};
use crate::spec::Spec;
use crate::verify::{self, Source};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// The spec to render.
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    spec: PathBuf,
    /// The directory to write into (created when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Write nothing; exit 1 listing the files that differ from the rendered ones, are missing,
    /// or were edited by hand. Without `--kubectl` or `--cluster`, the pod subnets an earlier
    /// render read from the cluster (kept in the manifest) are used.
    #[arg(long)]
    check: bool,
    /// Removed: `render` reads no secret, so none can be missing (see `REMOVED_SECRETS_FLAG`).
    #[arg(long, hide = true)]
    allow_missing_secrets: bool,
    /// Overwrite files in the output directory that hybridgen did not write, and rendered files
    /// edited by hand since (which a render otherwise keeps, writing nothing).
    #[arg(long)]
    force: bool,
    /// Take the joined nodes' pod subnets from the cluster (`spec.podCIDR`) for every artifact
    /// that depends on them: routes, Terraform, host scripts, plan.json. Read as `verify` reads it.
    #[command(flatten)]
    live: LiveArgs,
    #[command(flatten)]
    severities: SeverityArgs,
    /// Output format: `human`, or `json` (one document on standard output, whatever the outcome).
    #[arg(long, value_enum, default_value_t = RenderFormat::Human)]
    format: RenderFormat,
    /// When to colour the findings.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Print errors only: no warnings, no notes, nothing when all went well.
    #[arg(short, long)]
    quiet: bool,
}

/// What an old command line with `--allow-missing-secrets` is told, rather than a silent no-op.
const REMOVED_SECRETS_FLAG: &str = "`--allow-missing-secrets` was removed: `render` reads no secret any more, so none can be missing. The node scripts (join.ps1, install.sh, install.ps1) read the join secrets from the environment when they run; drop the flag";

pub fn run(args: RenderArgs) -> Outcome {
    let mut reporter = Reporter::new(
        args.format,
        args.quiet,
        args.color,
        args.check,
        args.out.display().to_string(),
    );
    let outcome = render_reported(&args, &mut reporter);
    reporter.finish(outcome)
}

fn render_reported(args: &RenderArgs, reporter: &mut Reporter) -> Outcome {
    if args.allow_missing_secrets {
        reporter.error(REMOVED_SECRETS_FLAG);
        return Outcome::Unusable;
    }
    let name = args.spec.display().to_string();
    let bytes = match read_input(&args.spec) {
        Ok(bytes) => bytes,
        Err(error) => {
            reporter.error(&format!("cannot read `{name}`: {error}"));
            return Outcome::Unusable;
        }
    };
    let Some(overrides) =
        Overrides::requested(&args.severities).and_then(|overrides| overrides.for_spec(&args.spec))
    else {
        return Outcome::Unusable;
    };
    let checked = pipeline::check(&name, bytes);
    let diagnostics = overrides.apply(checked.diagnostics.clone());
    let (Some(spec), Some(plan), false) = (
        &checked.spec,
        &checked.plan,
        diagnostics.iter().any(Diagnostic::is_error),
    ) else {
        reporter.findings(&[checked.report(&reporter.shown(&diagnostics))]);
        reporter.error(&format!("`{name}` has errors; nothing was rendered"));
        return Outcome::Errors;
    };
    let live = match args.live.source() {
        Some(source) => from_cluster(
            source, &args.live, &checked, spec, plan, &overrides, reporter,
        )
        .map(Some),
        None => remembered(&args.out, plan, &name, args.check, reporter),
    };
    let (live_plan, note, record) = match live {
        Ok(Some((live_plan, note, record))) => (Some(live_plan), note, Some(record)),
        Ok(None) => (None, String::new(), None),
        Err(outcome) => return outcome,
    };
    // The plan with the cluster's subnets is checked again: a joined node's subnet may be the one
    // a node not yet joined pins (HG113). HG117 is render's to say: the routes it writes hold
    // the predictions.
    let findings = match &live_plan {
        Some(live_plan) => overrides.apply(rules::run(spec, live_plan)),
        None => diagnostics,
    };
    let shown: Vec<Diagnostic> = findings
        .into_iter()
        .filter(|finding| finding.is_error() || finding.rule.code == POD_CIDR_PREDICTED.code)
        .collect();
    reporter.findings(&[checked.report(&reporter.shown(&shown))]);
    if shown.iter().any(Diagnostic::is_error) {
        reporter.error(&format!(
            "`{name}` has errors with the cluster's pod subnets; nothing was rendered"
        ));
        return Outcome::Errors;
    }
    // Everything to report has been reported: the text and the span index (tens of megabytes at
    // 65,536 nodes) are let go before the artifacts take their place.
    let Some((spec, plan)) = checked.into_spec_and_plan() else {
        return Outcome::Errors;
    };
    let plan = live_plan.unwrap_or(plan);
    let input = render::Input {
        spec: &spec,
        plan: &plan,
    };
    let artifacts = match render::render_all(&input) {
        Ok(artifacts) => artifacts,
        Err(error) => {
            reporter.error(&error.0);
            return Outcome::Errors;
        }
    };
    reporter.note(&note);
    if args.check {
        check(&args.out, &artifacts, &name, record.as_ref(), reporter)
    } else {
        let remembered = record
            .as_ref()
            .map(LiveRecord::manifest_lines)
            .unwrap_or_default();
        let outcome = write_out(&args.out, &artifacts, args.force, &remembered, reporter);
        if outcome == Outcome::Clean {
            next_steps(&args.out, &input, &artifacts, reporter);
        }
        outcome
    }
}

/// What to do next, as cargo and terraform print their hints (standard error, after the list of
/// files, or the JSON document's notes; not with `-q`): the rendered `README.md` that says what
/// to run where, and its first steps.
fn next_steps(out: &Path, input: &render::Input, artifacts: &[Artifact], reporter: &mut Reporter) {
    let Ok(first) = render::steps::first_steps(input, artifacts, 3) else {
        return;
    };
    let mut text = format!(
        "next: {} says what to run where, in order; first:\n",
        out.join(render::steps::PATH).display()
    );
    for line in first {
        text.push_str(&format!("  {line}\n"));
    }
    reporter.hint(&terminal_text(&text));
}

/// With no cluster flag, over a directory an earlier render wrote from the cluster: the plan
/// with the subnets it read then, so that neither `render` nor `--check` puts the predictions
/// back (a node's `spec.podCIDR` never changes once set, see [`crate::render::live_record`]).
/// When they no longer cover the spec (a node added, `clusterCidr` changed), nothing is
/// rendered: the cluster must be read again, and the message says how.
fn remembered(
    out: &Path,
    plan: &Plan,
    spec_name: &str,
    checking: bool,
    reporter: &mut Reporter,
) -> Result<Option<(Plan, String, LiveRecord)>, Outcome> {
    let manifest_name = format!("{}/{}", out.display(), write::MANIFEST);
    let bytes = write::read_manifest_of(out).map_err(|error| {
        reporter.error(&error.0);
        Outcome::Unusable
    })?;
    let Some(bytes) = bytes else {
        return Ok(None);
    };
    let record =
        LiveRecord::parse(&String::from_utf8_lossy(&bytes), &manifest_name).map_err(|message| {
            reporter.error(&format!("{message}; nothing was rendered"));
            Outcome::Unusable
        })?;
    let Some(record) = record else {
        return Ok(None);
    };
    let subnets = match record.subnets_for(plan) {
        Ok(subnets) => subnets,
        Err(stale) => {
            let text = format!(
                "{} was rendered with the pod subnets {}, and they no longer cover the spec: {}\n{}\n",
                out.display(),
                record.source.describe(),
                stale.0,
                refresh_advice(spec_name, out)
            );
            if checking {
                reporter.say(&terminal_text(&text), true);
                reporter.json_error(text.lines().next().unwrap_or_default());
                return Err(Outcome::Errors);
            }
            reporter.error(&format!(
                "{}; nothing was rendered, as a render without the cluster would replace the subnets read from it with predictions",
                text.trim_end().replace('\n', "; ")
            ));
            return Err(Outcome::Errors);
        }
    };
    let live_plan = plan.with_live_subnets(&subnets);
    let read = subnets.iter().flatten().count();
    let note = format!(
        "the pod subnets of {read} of {} planned nodes are the ones an earlier render {} (kept in `{manifest_name}`); `--kubectl` or `--cluster FILE` reads them again\n",
        live_plan.nodes.len(),
        record.source.describe(),
    );
    Ok(Some((live_plan, note, record)))
}

/// The commands that read the cluster again: never a plain `render`, which has nothing newer
/// than the subnets it already remembers.
fn refresh_advice(spec_name: &str, out: &Path) -> String {
    format!(
        "read them again from the cluster: `hybridgen render {spec_name} --out {} --kubectl`, or `--cluster FILE` with a fresh capture (`hybridgen verify {spec_name} --print-capture` prints the commands)",
        out.display()
    )
}

/// The plan with the joined nodes' subnets read from the cluster, and a line saying how many; or,
/// when the captures cannot be read or a subnet contradicts the plan (HG509, HG503), the findings
/// on stderr and the outcome: nothing is rendered.
fn from_cluster(
    source: Source,
    live: &LiveArgs,
    checked: &Checked,
    spec: &Spec,
    plan: &Plan,
    overrides: &Overrides,
    reporter: &mut Reporter,
) -> Result<(Plan, String, LiveRecord), Outcome> {
    let observed = verify::observe(source, plan, live.flannel_annotation_prefix.as_deref())
        .map_err(|message| {
            reporter.error(&format!("{message}; nothing was rendered"));
            Outcome::Unusable
        })?;
    let subnet_findings = reporter.shown(&overrides.apply(rules::live::live_subnet_findings(
        &LiveContext {
            spec,
            plan,
            cluster: &observed.cluster,
            matching: &observed.matching,
            rendered: None,
        },
    )));
    let capture_findings: Vec<Vec<Diagnostic>> = observed
        .captured
        .files
        .iter()
        .map(|file| reporter.shown(&overrides.apply(file.diagnostics.clone())))
        .collect();
    let mut reports = Vec::new();
    if !subnet_findings.is_empty() {
        reports.push(FileReport::new(&checked.file, &subnet_findings));
    }
    for (capture, findings) in observed.captured.files.iter().zip(&capture_findings) {
        if !findings.is_empty() {
            reports.push(FileReport::new(&capture.file, findings));
        }
    }
    let errors = reports
        .iter()
        .any(|report| report.count(Severity::Error) > 0);
    reporter.findings(&reports);
    if errors {
        reporter.error(&format!(
            "the cluster's pod subnets cannot be used for `{}`; nothing was rendered",
            checked.file.source.name()
        ));
        return Err(Outcome::Errors);
    }
    let subnets = observed.matching.pod_subnets(&observed.cluster);
    let live_plan = plan.with_live_subnets(&subnets);
    let recorded = match source {
        Source::Kubectl(..) => LiveSource::Kubectl,
        // Its name only: the manifest is committed, and a path would differ between machines.
        Source::Files([one]) => LiveSource::Capture(
            one.file_name()
                .map(|name| name.to_string_lossy().into_owned()),
        ),
        Source::Files(_) => LiveSource::Capture(None),
    };
    let record = LiveRecord::of(recorded, plan, &subnets);
    let read = live_plan
        .nodes
        .iter()
        .filter(|node| node.subnet_source == SubnetSource::Live)
        .count();
    let note = format!(
        "the pod subnets of {read} of {} planned nodes were read from the cluster\n",
        live_plan.nodes.len()
    );
    Ok((live_plan, note, record))
}

/// `--check`: what differs between the rendered artifacts and the directory; nothing is written.
/// `record`: the subnets an earlier render read from the cluster, which this check rendered from.
fn check(
    out: &Path,
    artifacts: &[Artifact],
    spec_name: &str,
    record: Option<&LiveRecord>,
    reporter: &mut Reporter,
) -> Outcome {
    let drift = match write::check(out, artifacts) {
        Ok(drift) => drift,
        Err(error) => {
            reporter.error(&error.0);
            return Outcome::Unusable;
        }
    };
    if drift.is_empty() {
        reporter.say(
            &format!(
                "{} artifacts in {} are up to date\n",
                artifacts.len(),
                out.display()
            ),
            false,
        );
        return Outcome::Clean;
    }
    let edited = drift
        .iter()
        .filter(|item| matches!(item, Drift::HandEdited { .. }))
        .count();
    let stale = drift.len() - edited;
    let mut parts = Vec::new();
    if stale > 0 {
        parts.push(format!("{} stale", files(stale)));
    }
    if edited > 0 {
        parts.push(format!("{} edited by hand", files(edited)));
    }
    let mut text = format!(
        "{} in {} ({} artifacts rendered):\n",
        parts.join(", "),
        out.display(),
        artifacts.len()
    );
    for item in &drift {
        match item {
            Drift::Missing(path) => {
                text.push_str(&format!("missing: {path}\n"));
                reporter.file(path, "missing", None);
            }
            Drift::Differs { path, diff } => {
                push_diff(&mut text, "differs", path, diff);
                reporter.file(path, "differs", Some(&terminal_text(diff)));
            }
            Drift::HandEdited { path, diff } => {
                push_diff(&mut text, "edited by hand", path, diff);
                reporter.file(path, "handEdited", Some(&terminal_text(diff)));
            }
            Drift::Obsolete(path) => {
                text.push_str(&format!("no longer rendered: {path}\n"));
                reporter.file(path, "obsolete", None);
            }
            Drift::Kept(path) => {
                text.push_str(&format!(
                    "no longer rendered, but not as hybridgen wrote it (render leaves it; remove it yourself): {path}\n"
                ));
                reporter.file(path, "kept", None);
            }
        }
    }
    if edited > 0 {
        text.push_str(HAND_EDITED_ADVICE);
        text.push('\n');
    }
    if stale > 0 {
        text.push_str(&format!(
            "run `hybridgen render {spec_name} --out {}` to update them",
            out.display()
        ));
        if let Some(record) = record {
            text.push_str(&format!(
                "; it keeps the pod subnets {} by an earlier render, and `--kubectl` or `--cluster FILE` reads them again",
                record.source.describe()
            ));
        }
        text.push('\n');
    }
    reporter.say(&terminal_text(&text), true);
    Outcome::Errors
}

/// What a hand edit calls for: rendered files are rewritten from the spec on every render.
const HAND_EDITED_ADVICE: &str = "rendered files are rewritten from the spec: make the change in the spec (or in a file of your own beside them), restore the edited files (`git checkout -- FILE`), or render with `--force` to replace them";

/// `1 file is`, `2 files are`.
fn files(count: usize) -> String {
    if count == 1 {
        "1 file is".to_string()
    } else {
        format!("{count} files are")
    }
}

fn push_diff(text: &mut String, what: &str, path: &str, diff: &str) {
    text.push_str(&format!("{what}: {path}\n{diff}"));
    if !diff.ends_with('\n') {
        text.push('\n');
    }
}

/// Writes the artifacts and says what changed; or, when files were edited by hand, names them
/// with their diffs and writes nothing.
fn write_out(
    out: &Path,
    artifacts: &[Artifact],
    force: bool,
    remembered: &str,
    reporter: &mut Reporter,
) -> Outcome {
    match write::write_all(out, artifacts, force, remembered) {
        Ok(written) => {
            for (paths, status) in [
                (&written.changed, "written"),
                (&written.unchanged, "unchanged"),
                (&written.removed, "removed"),
                (&written.kept, "kept"),
            ] {
                for path in paths {
                    reporter.file(path, status, None);
                }
            }
            reporter.say(
                &terminal_text(&written_text(out, artifacts.len(), &written)),
                false,
            );
            Outcome::Clean
        }
        Err(Refusal::HandEdited(edited)) => {
            let (count, verb, pronoun) = match edited.len() {
                1 => ("1 file".to_string(), "was", "it"),
                count => (format!("{count} files"), "were", "them"),
            };
            let headline = format!(
                "{count} in {} {verb} edited by hand since hybridgen wrote {pronoun}; nothing was written",
                out.display(),
            );
            let mut text = String::new();
            for item in &edited {
                if let Drift::HandEdited { path, diff } = item {
                    push_diff(&mut text, "edited by hand", path, diff);
                    reporter.file(path, "handEdited", Some(&terminal_text(diff)));
                }
            }
            text.push_str(HAND_EDITED_ADVICE);
            text.push('\n');
            reporter.error(&headline);
            reporter.error_text(&terminal_text(&text));
            Outcome::Errors
        }
        Err(Refusal::Failed(error)) => {
            reporter.error(&error.0);
            Outcome::Unusable
        }
    }
}

/// What `render` prints, as a terminal or CI log gets it: a diff quotes files on disk, which may
/// hold anything, so their control characters are shown as `?` and no line starts a workflow
/// command.
fn terminal_text(text: &str) -> String {
    escape::no_workflow_commands(escape::same_length(text))
}

fn written_text(out: &Path, rendered: usize, written: &Written) -> String {
    let mut text = String::new();
    for (paths, done, why) in [
        (&written.changed, "wrote", ""),
        (&written.removed, "removed", " (no longer rendered)"),
        (
            &written.kept,
            "kept",
            " (no longer rendered, but not as hybridgen wrote it: remove it yourself)",
        ),
    ] {
        for path in paths {
            text.push_str(&format!("{done} {}{why}\n", out.join(path).display()));
        }
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

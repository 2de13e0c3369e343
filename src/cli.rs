//! The command line: clap definitions, reading inputs, and running one command end to end.

use crate::diagnostic::{Diagnostic, Severity};
use crate::load::MAX_SPEC_BYTES;
use crate::pipeline::{self, Checked};
use crate::report::{self, FileReport, Totals, human};
use crate::rules;
use crate::schema;
use crate::verify;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

/// Plan, lint and render hybrid Linux + Windows Kubernetes clusters on flannel.
#[derive(Debug, Parser)]
#[command(name = "hybridgen", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Lint cluster specs and print their resolved IP plan.
    #[command(
        after_help = "Examples:\n  hybridgen plan examples/kubeadm-vxlan-windows.yaml\n  hybridgen plan --format sarif clusters/*.yaml > hybridgen.sarif\n  cat spec.yaml | hybridgen plan - --stdin-filename clusters/spec.yaml"
    )]
    Plan(PlanArgs),
    /// Render the artifacts of a spec (flannel manifest, patches, Windows node configs, routes,
    /// kubeadm and RKE configuration, plan.json) into a directory.
    #[command(
        after_help = "Examples:\n  hybridgen render examples/kubeadm-vxlan-windows.yaml --out deploy/\n  hybridgen render spec.yaml --out deploy/ --check   # CI: fail when committed artifacts are stale"
    )]
    Render(RenderArgs),
    /// Compare the plan of a spec with what the cluster runs, as kubectl captured it: nodes, their
    /// pod subnets, addresses and Windows builds, flannel's, kubeadm's, kube-proxy's and the
    /// kubelet's configuration, and where the network DaemonSets schedule.
    #[command(
        after_help = "Examples:\n  hybridgen verify spec.yaml --print-capture > capture.sh   # the kubectl commands to run\n  hybridgen verify spec.yaml --cluster cluster-capture/      # files captured with kubectl\n  hybridgen verify spec.yaml --kubectl                       # run kubectl (current context) here"
    )]
    Verify(VerifyArgs),
    /// Explain a rule: what it checks, why, and how to fix it.
    #[command(
        after_help = "Examples:\n  hybridgen explain HG201\n  hybridgen explain --all > rules.md"
    )]
    Explain {
        /// The rule code, e.g. HG201.
        #[arg(required_unless_present = "all")]
        code: Option<String>,
        /// Explain every rule, as one Markdown document.
        #[arg(long, conflicts_with = "code")]
        all: bool,
    },
    /// Print the JSON Schema of the cluster spec.
    #[command(after_help = "Example:\n  hybridgen schema > hybridgen.schema.json")]
    Schema,
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  hybridgen completions bash > /etc/bash_completion.d/hybridgen\n  hybridgen completions zsh > \"${fpath[1]}/_hybridgen\"\n  hybridgen completions fish > ~/.config/fish/completions/hybridgen.fish\n  hybridgen completions powershell >> $PROFILE"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff).
    #[command(after_help = "Example:\n  hybridgen man > /usr/local/share/man/man1/hybridgen.1")]
    Man,
    /// Write a commented starter spec (and its JSON Schema beside it, for editors): Kubernetes
    /// 1.33 with a Windows worker on containerd and HostProcess flannel, or with `--kubecluster`
    /// the Kubernetes 1.16 layout whose Windows nodes are set up by KubeCluster.ps1.
    #[command(
        after_help = "Examples:\n  hybridgen init clusters/demo.yaml\n  hybridgen init --kubecluster clusters/legacy.yaml"
    )]
    Init {
        /// Where to write the spec; an existing file is never overwritten.
        #[arg(default_value = "hybridgen.yaml")]
        path: PathBuf,
        /// Write the Kubernetes 1.16 starter (dockerd, KubeCluster.ps1) instead.
        #[arg(long)]
        kubecluster: bool,
    },
}

#[derive(Debug, Args)]
struct PlanArgs {
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

/// How findings are reported, shared by `plan` and `verify`.
#[derive(Debug, Args)]
struct ReportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    #[command(flatten)]
    severities: SeverityArgs,
    /// When to colour the human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// Severity overrides, shared by `plan`, `render` and `verify`.
#[derive(Debug, Args)]
struct SeverityArgs {
    /// Treat findings of this rule as errors (repeatable).
    #[arg(long, value_name = "CODE")]
    deny: Vec<String>,
    /// Treat findings of this rule as warnings (repeatable).
    #[arg(long, value_name = "CODE")]
    warn: Vec<String>,
    /// Do not report this rule (repeatable).
    #[arg(long, value_name = "CODE")]
    allow: Vec<String>,
    /// Treat every warning as an error.
    #[arg(long)]
    deny_warnings: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["cluster", "kubectl", "print_capture"])))]
struct VerifyArgs {
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

#[derive(Debug, Args)]
struct RenderArgs {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// How a run ended: exit 0, 1 or 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// No error findings.
    Clean,
    /// At least one error finding.
    Errors,
    /// A usage error, or a file that could not be read.
    Unusable,
}

pub fn run(cli: Cli) -> Outcome {
    match cli.command {
        Command::Plan(args) => plan(args),
        Command::Render(args) => render(args),
        Command::Verify(args) => verify(args),
        Command::Explain { code, all } => explain(code.as_deref(), all),
        Command::Schema => emit(&schema::generate_text(), Outcome::Clean),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "hybridgen", &mut script);
            emit(&String::from_utf8_lossy(&script), Outcome::Clean)
        }
        Command::Man => {
            let mut page = Vec::new();
            match clap_mangen::Man::new(Cli::command()).render(&mut page) {
                Ok(()) => emit(&String::from_utf8_lossy(&page), Outcome::Clean),
                Err(error) => {
                    complain(&format!("cannot render the manual page: {error}"));
                    Outcome::Unusable
                }
            }
        }
        Command::Init { path, kubecluster } => init(
            &path,
            if kubecluster {
                KUBECLUSTER_STARTER_SPEC
            } else {
                STARTER_SPEC
            },
        ),
    }
}

/// Writes to standard output; a reader that went away (`| head`) is not an error.
fn emit(text: &str, outcome: Outcome) -> Outcome {
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            let _ = writeln!(io::stderr(), "error: cannot write output: {error}");
            Outcome::Unusable
        }
        _ => outcome,
    }
}

fn complain(message: &str) {
    let _ = writeln!(io::stderr(), "error: {message}");
}

/// Severity changes requested on the command line, applied in this order: allow, warn, deny,
/// deny-warnings.
struct Overrides {
    allow: Vec<&'static str>,
    warn: Vec<&'static str>,
    deny: Vec<&'static str>,
    deny_warnings: bool,
}

impl Overrides {
    /// The overrides asked for, or `None` once an unknown rule code has been reported.
    fn requested(args: &SeverityArgs) -> Option<Self> {
        Self::from_args(args)
            .map_err(|message| complain(&message))
            .ok()
    }

    fn from_args(args: &SeverityArgs) -> Result<Self, String> {
        let codes = |given: &[String]| -> Result<Vec<&'static str>, String> {
            given
                .iter()
                .map(|code| {
                    rules::find(code).map(|rule| rule.code).ok_or_else(|| {
                        format!("unknown rule `{code}`; `hybridgen explain --all` lists the rules")
                    })
                })
                .collect()
        };
        Ok(Self {
            allow: codes(&args.allow)?,
            warn: codes(&args.warn)?,
            deny: codes(&args.deny)?,
            deny_warnings: args.deny_warnings,
        })
    }

    fn apply(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diagnostics
            .into_iter()
            .filter(|diagnostic| !self.allow.contains(&diagnostic.code()))
            .map(|mut diagnostic| {
                if self.warn.contains(&diagnostic.code()) {
                    diagnostic.severity = Severity::Warning;
                }
                if self.deny.contains(&diagnostic.code())
                    || (self.deny_warnings && diagnostic.severity == Severity::Warning)
                {
                    diagnostic.severity = Severity::Error;
                }
                diagnostic
            })
            .collect()
    }
}

/// Reads one input, at most one byte past the size limit so that the loader can refuse it.
fn read_input(path: &Path) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let limit = MAX_SPEC_BYTES as u64 + 1;
    if path == Path::new("-") {
        io::stdin().lock().take(limit).read_to_end(&mut bytes)?;
    } else {
        let file = std::fs::File::open(path)?;
        // Sized up front: a growing buffer would hold up to twice the file.
        let size = file
            .metadata()
            .map_or(0, |metadata| metadata.len().min(limit));
        bytes.reserve_exact(usize::try_from(size).unwrap_or(0));
        file.take(limit).read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

fn plan(args: PlanArgs) -> Outcome {
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
        .map(|(file, diagnostics)| FileReport::new(file, diagnostics))
        .collect();
    let text = formatted(
        &reports,
        args.report.format,
        human_style(args.report.color, args.quiet),
    );
    emit(&text, outcome_of(&reports, unreadable))
}

/// The reports in the chosen format.
fn formatted(reports: &[FileReport], format: Format, style: human::Style) -> String {
    match format {
        Format::Human => human::render(reports, style),
        Format::Json => report::json::render(reports),
        Format::Sarif => report::sarif::render(reports),
        Format::Github => report::github::render(reports),
    }
}

/// Exit 2 when a file could not be read, else 1 with any error finding, else 0.
fn outcome_of(reports: &[FileReport], unreadable: bool) -> Outcome {
    if unreadable {
        Outcome::Unusable
    } else if Totals::of(reports).errors > 0 {
        Outcome::Errors
    } else {
        Outcome::Clean
    }
}

fn verify(args: VerifyArgs) -> Outcome {
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
    let captured = verify::capture::read(inputs, &verify::kubectl::captures(plan));
    let live = verify::cluster::read(
        &captured.objects,
        plan,
        args.flannel_annotation_prefix.as_deref(),
    );
    let comparison = verify::compare(spec, plan, &live);
    let findings = overrides.apply(comparison.diagnostics.clone());
    let capture_findings: Vec<Vec<Diagnostic>> = captured
        .files
        .iter()
        .map(|file| overrides.apply(file.diagnostics.clone()))
        .collect();
    // The spec, and each capture with findings of its own (the coverage names the others).
    let mut reports = vec![FileReport::new(&checked, &findings)];
    reports.extend(
        captured
            .files
            .iter()
            .zip(&capture_findings)
            .filter(|(_, diagnostics)| !diagnostics.is_empty())
            .map(|(file, diagnostics)| FileReport::new(file, diagnostics)),
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
        let reports = [FileReport::new(&checked, &findings)];
        let outcome = emit(&formatted(&reports, format, style), Outcome::Errors);
        complain(&format!("`{name}` has errors; nothing was verified"));
        return Err(outcome);
    }
    Ok(checked)
}

/// The captures to read: kubectl's output, each named by its command, or the files given.
fn capture_inputs(
    args: &VerifyArgs,
    plan: &crate::plan::Plan,
) -> Result<Vec<verify::capture::Input>, String> {
    let Some(kubectl) = &args.kubectl else {
        return verify::capture::gather(&args.cluster);
    };
    verify::kubectl::run(kubectl, plan)
        .map(|ran| {
            ran.output.map(|bytes| verify::capture::Input {
                name: ran.capture.command_line(),
                bytes,
            })
        })
        .collect()
}

fn human_style(choice: ColorChoice, quiet: bool) -> human::Style {
    let terminal = io::stdout().is_terminal();
    let env_says_no = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty())
        || std::env::var_os("TERM").is_some_and(|term| term == "dumb");
    let color = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !env_says_no,
    };
    let width = if terminal {
        terminal_size::terminal_size().map_or(100, |(width, _)| usize::from(width.0))
    } else {
        100
    };
    human::Style {
        color,
        width,
        show_plan: !quiet,
    }
}

fn explain(code: Option<&str>, all: bool) -> Outcome {
    if all {
        let mut text = String::from("# hybridgen rules\n\n");
        for rule in rules::all() {
            text.push_str(&rule.explain_markdown());
            text.push('\n');
        }
        return emit(&text, Outcome::Clean);
    }
    match code.and_then(rules::find) {
        Some(rule) => emit(&rule.explain_markdown(), Outcome::Clean),
        None => {
            complain(&format!(
                "unknown rule `{}`; `hybridgen explain --all` lists the rules",
                code.unwrap_or_default()
            ));
            Outcome::Unusable
        }
    }
}

/// The starter spec `init` writes: a Linux control plane and worker and a Windows worker on
/// current Kubernetes (the HostProcess path).
pub const STARTER_SPEC: &str = include_str!("../templates/starter.yaml");
/// The starter of `init --kubecluster`: the three-node topology of the Rancher guide on Kubernetes
/// 1.16, Windows set up by KubeCluster.ps1.
pub const KUBECLUSTER_STARTER_SPEC: &str = include_str!("../templates/starter-kubecluster.yaml");
const SCHEMA_FILE: &str = "hybridgen.schema.json";

fn init(path: &Path, starter: &str) -> Outcome {
    match write_new(path, starter) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            complain(&format!(
                "`{}` exists, and init never overwrites a file: name another path, e.g. `hybridgen init clusters/new.yaml`",
                path.display()
            ));
            return Outcome::Unusable;
        }
        Err(error) => {
            complain(&format!("cannot write `{}`: {error}", path.display()));
            return Outcome::Unusable;
        }
    }
    let schema_path = path.with_file_name(SCHEMA_FILE);
    let schema_note = match write_new(&schema_path, &schema::generate_text()) {
        Ok(()) => format!("wrote {}\n", schema_path.display()),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            format!("kept the existing {}\n", schema_path.display())
        }
        Err(error) => {
            complain(&format!(
                "cannot write `{}`: {error}",
                schema_path.display()
            ));
            return Outcome::Unusable;
        }
    };
    emit(
        &format!(
            "wrote {}\n{schema_note}next: edit it, then run `hybridgen plan {}`\n",
            path.display(),
            path.display()
        ),
        Outcome::Clean,
    )
}

/// Creates a file that must not exist yet, so that no user file is ever overwritten.
fn write_new(path: &Path, contents: &str) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

/// Prints findings for one file on standard error, in the human format without the plan.
fn complain_findings(checked: &Checked, diagnostics: &[Diagnostic]) {
    let report = FileReport::new(checked, diagnostics);
    let style = human::Style {
        color: io::stderr().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        width: 100,
        show_plan: false,
    };
    let _ = io::stderr().write_all(human::render(&[report], style).as_bytes());
}

fn render(args: RenderArgs) -> Outcome {
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
    let (secrets, unset) = crate::render::secrets::from_environment(spec, plan);
    let malformed = crate::render::secrets::format_findings(spec, &secrets);
    if !malformed.is_empty() {
        complain_findings(&checked, &malformed);
        complain("nothing was rendered; correct the variables");
        return Outcome::Errors;
    }
    if !unset.is_empty() && !args.check {
        let findings =
            crate::render::secrets::unset_findings(spec, &unset, args.allow_missing_secrets);
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
    let input = crate::render::Input {
        spec: &spec,
        plan: &plan,
        secrets: &secrets,
    };
    let artifacts = match crate::render::render_all(&input) {
        Ok(artifacts) => artifacts,
        Err(error) => {
            complain(&error.0);
            return Outcome::Errors;
        }
    };
    let out = &args.out;
    if args.check {
        let placeholders = crate::render::secrets::placeholders_on_disk(out, &artifacts);
        if !placeholders.is_empty() {
            let mut text = String::new();
            for (path, variable) in &placeholders {
                text.push_str(&format!(
                    "{path} in {} still holds the placeholder for `{variable}`\n",
                    out.display()
                ));
            }
            text.push_str(&format!(
                "set the variables and run `hybridgen render {name} --out {}` before deploying\n",
                out.display()
            ));
            return emit(&text, Outcome::Errors);
        }
        return match crate::render::write::check(out, &artifacts) {
            Ok(drift) if drift.is_empty() => emit(
                &format!(
                    "{} artifacts in {} are up to date\n",
                    artifacts.len(),
                    out.display()
                ),
                Outcome::Clean,
            ),
            Ok(drift) => {
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
                        crate::render::write::Drift::Missing(path) => {
                            text.push_str(&format!("missing: {path}\n"))
                        }
                        crate::render::write::Drift::Differs { path, diff } => {
                            text.push_str(&format!("differs: {path}\n{diff}"));
                            if !diff.ends_with('\n') {
                                text.push('\n');
                            }
                        }
                        crate::render::write::Drift::Obsolete(path) => {
                            text.push_str(&format!("no longer rendered: {path}\n"))
                        }
                    }
                }
                text.push_str(&format!(
                    "run `hybridgen render {name} --out {}` to update them\n",
                    out.display()
                ));
                emit(&text, Outcome::Errors)
            }
            Err(error) => {
                complain(&error.0);
                Outcome::Unusable
            }
        };
    }
    match crate::render::write::write_all(out, &artifacts, args.force) {
        Ok(written) => {
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
                "{} artifacts in {}: {} written, {} unchanged",
                artifacts.len(),
                out.display(),
                written.changed.len(),
                written.unchanged.len()
            ));
            if !written.removed.is_empty() {
                text.push_str(&format!(", {} removed", written.removed.len()));
            }
            text.push('\n');
            emit(&text, Outcome::Clean)
        }
        Err(error) => {
            complain(&format!("{}; nothing was changed", error.0));
            Outcome::Unusable
        }
    }
}

//! One file per command: each reads its inputs, runs the pipeline stages it needs, and prints.
//! What several share — reading an input, printing, the severity and format flags — is here and
//! in `report_options`.

pub mod change;
pub mod completions;
pub mod explain;
pub mod git_source;
pub mod init;
pub mod live_source;
pub mod man;
pub mod plan;
pub mod render;
pub mod render_output;
pub mod report_options;
pub mod settings;
pub mod spec_files;
pub mod verify;

use crate::diagnostic::Diagnostic;
use crate::load::MAX_SPEC_BYTES;
use crate::pipeline::Checked;
use crate::report::{ArtifactPaths, FileReport, Planned, human};
use report_options::ColorChoice;
use std::io::{self, IsTerminal, Write};
use std::path::Path;

/// How a run ended: exit 0, 1 or 2, ordered from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// No error findings.
    Clean,
    /// At least one error finding.
    Errors,
    /// A usage error, or a file that could not be read.
    Unusable,
}

/// Writes to standard output; a reader that went away (`| head`) is not an error.
pub(crate) fn emit(text: &str, outcome: Outcome) -> Outcome {
    emit_with(outcome, |stdout| stdout.write_all(text.as_bytes()))
}

/// As [`emit`], for output that `write` hands to standard output as it is made.
pub(crate) fn emit_with(
    outcome: Outcome,
    write: impl FnOnce(&mut io::StdoutLock<'static>) -> io::Result<()>,
) -> Outcome {
    let mut stdout = io::stdout().lock();
    match write(&mut stdout).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            let _ = writeln!(io::stderr(), "error: cannot write output: {error}");
            Outcome::Unusable
        }
        _ => outcome,
    }
}

/// An error on standard error, on one line: whatever a value in it holds is shown, not obeyed.
pub(crate) fn complain(message: &str) {
    let message = crate::escape::no_workflow_commands(crate::escape::inline(message));
    let _ = writeln!(io::stderr(), "error: {message}");
}

/// Reads one spec input within the loader's size limit (`-` is standard input).
pub(crate) fn read_input(path: &Path) -> io::Result<Vec<u8>> {
    crate::input_file::read(path, MAX_SPEC_BYTES)
}

/// The human format for standard error, without the plan: with `--color auto`, colour on a
/// terminal unless `NO_COLOR` is set.
pub(crate) fn stderr_style(choice: ColorChoice) -> human::Style {
    let color = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    human::Style {
        color,
        width: 100,
        show_plan: false,
    }
}

/// Prints one file's findings on standard error, in the human format without the plan.
pub(crate) fn complain_findings(checked: &Checked, diagnostics: &[Diagnostic]) {
    let style = stderr_style(ColorChoice::Auto);
    let report = checked.report(diagnostics);
    let _ = io::stderr().write_all(human::render(&[report], style).as_bytes());
}

/// A checked file meets its report here, so that the pipeline and the report import neither
/// each other nor the commands.
impl Checked {
    /// The report of these findings in this file, with the plan when there is one.
    pub fn report<'a>(&'a self, diagnostics: &'a [Diagnostic]) -> FileReport<'a> {
        let report = FileReport::new(&self.file, diagnostics);
        match (&self.spec, &self.plan) {
            (Some(spec), Some(plan)) => report.with_plan(Planned {
                spec,
                plan,
                artifacts: self,
            }),
            _ => report,
        }
    }
}

impl ArtifactPaths for Checked {
    fn artifact_paths(&self) -> &[String] {
        Checked::artifact_paths(self)
    }
}

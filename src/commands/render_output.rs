//! What `render` prints, in the form asked for: `--format human` (findings and notes on
//! standard error, what was written or what differs on standard output), or `--format json`
//! (one document on standard output, whatever the outcome); `-q` keeps only errors.

use super::report_options::ColorChoice;
use super::{Outcome, complain, emit, stderr_style};
use crate::diagnostic::{Diagnostic, Severity};
use crate::escape;
use crate::report::{self, FileReport, human};
use clap::ValueEnum;
use serde::Serialize;
use serde_json::Value;
use std::io::{self, Write};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum RenderFormat {
    #[default]
    Human,
    Json,
}

/// One file of `--out` in the JSON document: what was done with it, or how it differs.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEntry {
    pub path: String,
    /// `written`, `unchanged`, `removed`, `kept`; with `--check`: `missing`, `differs`,
    /// `handEdited`, `obsolete`, `kept`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Document<'a> {
    version: u32,
    check: bool,
    out: &'a str,
    /// `clean` (exit 0), `errors` (exit 1), `unusable` (exit 2).
    outcome: &'static str,
    /// Each `--format json` report of findings, as `plan --format json` prints it.
    findings: &'a [Value],
    notes: &'a [String],
    errors: &'a [String],
    files: &'a [FileEntry],
}

#[derive(Default)]
pub struct Reporter {
    format: RenderFormat,
    quiet: bool,
    color: ColorChoice,
    check: bool,
    out: String,
    findings: Vec<Value>,
    notes: Vec<String>,
    errors: Vec<String>,
    files: Vec<FileEntry>,
    /// What human output prints on standard output at the end.
    text: String,
    /// What human output prints on standard error after that: the next steps.
    hints: String,
}

impl Reporter {
    pub fn new(
        format: RenderFormat,
        quiet: bool,
        color: ColorChoice,
        check: bool,
        out: String,
    ) -> Self {
        Reporter {
            format,
            quiet,
            color,
            check,
            out,
            ..Default::default()
        }
    }

    /// The findings to show: with `-q`, errors only.
    pub fn shown(&self, diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
        diagnostics
            .iter()
            .filter(|finding| !self.quiet || finding.severity == Severity::Error)
            .cloned()
            .collect()
    }

    /// Reports of findings (already chosen with [`Reporter::shown`]); empty ones are skipped.
    pub fn findings(&mut self, reports: &[FileReport]) {
        if reports
            .iter()
            .all(|report| report.findings.is_empty() && report.omitted.is_empty())
        {
            return;
        }
        match self.format {
            RenderFormat::Human => {
                let style = stderr_style(self.color);
                let _ = io::stderr().write_all(human::render(reports, style).as_bytes());
            }
            RenderFormat::Json => {
                if let Ok(value) = serde_json::from_str(&report::json::render(reports)) {
                    self.findings.push(value);
                }
            }
        }
    }

    /// A line for standard error (human) or the document's notes; not with `-q`.
    pub fn note(&mut self, text: &str) {
        if self.quiet || text.is_empty() {
            return;
        }
        match self.format {
            RenderFormat::Human => {
                let _ = io::stderr().write_all(text.as_bytes());
            }
            RenderFormat::Json => self.notes.push(text.trim_end().to_string()),
        }
    }

    /// A note printed last, after the list of files (human), or the document's notes; not with
    /// `-q`.
    pub fn hint(&mut self, text: &str) {
        if self.quiet {
            return;
        }
        match self.format {
            RenderFormat::Human => self.hints.push_str(text),
            RenderFormat::Json => self.notes.push(text.trim_end().to_string()),
        }
    }

    /// An error on one line of standard error; in JSON also in the document.
    pub fn error(&mut self, message: &str) {
        complain(message);
        self.json_error(message);
    }

    /// An error for the JSON document only: human output says it on standard output.
    pub fn json_error(&mut self, message: &str) {
        if self.format == RenderFormat::Json {
            self.errors
                .push(escape::no_workflow_commands(escape::inline(message)));
        }
    }

    /// Lines of text for standard error even with `-q` (an error that quotes files); in JSON
    /// the files carry them instead.
    pub fn error_text(&mut self, text: &str) {
        if self.format == RenderFormat::Human {
            let _ = io::stderr().write_all(text.as_bytes());
        }
    }

    /// Text for standard output at the end (human), `quiet_too` when `-q` keeps it.
    pub fn say(&mut self, text: &str, quiet_too: bool) {
        if !self.quiet || quiet_too {
            self.text.push_str(text);
        }
    }

    pub fn file(&mut self, path: &str, status: &'static str, diff: Option<&str>) {
        self.files.push(FileEntry {
            path: path.to_string(),
            status,
            diff: diff.map(str::to_string),
        });
    }

    /// Prints what is left to print and returns the outcome.
    pub fn finish(self, outcome: Outcome) -> Outcome {
        match self.format {
            RenderFormat::Human => {
                let outcome = if self.text.is_empty() {
                    outcome
                } else {
                    emit(&self.text, outcome)
                };
                let _ = io::stderr().write_all(self.hints.as_bytes());
                outcome
            }
            RenderFormat::Json => {
                let document = Document {
                    version: 1,
                    check: self.check,
                    out: &self.out,
                    outcome: match outcome {
                        Outcome::Clean => "clean",
                        Outcome::Errors => "errors",
                        Outcome::Unusable => "unusable",
                    },
                    findings: &self.findings,
                    notes: &self.notes,
                    errors: &self.errors,
                    files: &self.files,
                };
                match crate::escape::json_pretty(&document) {
                    Ok(text) => emit(&format!("{text}\n"), outcome),
                    Err(error) => {
                        complain(&format!("cannot write the JSON report: {error}"));
                        Outcome::Unusable
                    }
                }
            }
        }
    }
}

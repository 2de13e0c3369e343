//! One file through the whole check: load → API version → schema → typed spec → plan → rules.

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::load::{self, Document, LoadedFile};
use crate::plan::Plan;
use crate::render;
use crate::report::FileReport;
use crate::rules::{self, input};
use crate::schema;
use crate::spec::Spec;
use serde::Deserialize;

/// What checking one file produced: its text, spans, plan (when it got that far) and findings.
/// The JSON value of the document is not kept: once typed it is only weight (tens of megabytes
/// for a 65,536-node spec).
pub struct Checked {
    /// The text, where each value stands when it loaded, and the secrets written inline.
    pub file: LoadedFile,
    pub spec: Option<Spec>,
    pub plan: Option<Plan>,
    pub diagnostics: Vec<Diagnostic>,
    /// What `render` would write, when the spec has no errors.
    pub artifacts: Vec<String>,
}

/// Checks the raw bytes of one spec file. Each stage runs only on what the previous one accepted.
pub fn check(name: &str, bytes: Vec<u8>) -> Checked {
    let (source, decoded) = load::decode(name, bytes);
    let mut checked = Checked {
        file: LoadedFile::new(source, None),
        spec: None,
        plan: None,
        diagnostics: Vec::new(),
        artifacts: Vec::new(),
    };
    let loaded = decoded.and_then(|()| load::load(&checked.file.source));
    let document = match loaded {
        Ok(document) => document,
        Err(error) => {
            let mut diagnostic = Diagnostic::new(
                &input::YAML_SYNTAX,
                Location::Bytes(error.span),
                error.message,
            )
            .label("here");
            diagnostic.help = error.help;
            checked
                .diagnostics
                .push(diagnostic.help_or("fix the YAML syntax at this place"));
            return checked;
        }
    };
    checked.file.inline_secrets = inline_secret_spans(&document);
    checked.diagnostics = input::check_api_version(&document.value);
    if checked.diagnostics.is_empty() {
        checked.diagnostics = schema::validate(&checked.file.source, &document);
    }
    let Document { value, spans } = document;
    checked.file.spans = Some(spans);
    if checked.diagnostics.is_empty() {
        // Typed from a borrow, then dropped whole before planning: a copy would cost tens of
        // megabytes at 65,536 nodes, and consuming it leaves the freed memory in fragments.
        let typed = Spec::deserialize(&value);
        drop(value);
        match typed {
            Ok(spec) => {
                let plan = Plan::build(&spec);
                checked.diagnostics = rules::run(&spec, &plan);
                checked.artifacts = artifact_paths(&spec, &plan, &checked.diagnostics);
                checked.spec = Some(spec);
                checked.plan = Some(plan);
            }
            Err(error) => checked.diagnostics.push(
                Diagnostic::new(
                    &input::SCHEMA_VIOLATION,
                    Location::Value(String::new()),
                    error.to_string(),
                )
                .help("see `hybridgen schema` for the spec format"),
            ),
        }
    }
    checked
}

/// The paths `render` would write; nothing is rendered.
fn artifact_paths(spec: &Spec, plan: &Plan, diagnostics: &[Diagnostic]) -> Vec<String> {
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        return Vec::new();
    }
    let secrets = render::Secrets::default();
    let input = render::Input {
        spec,
        plan,
        secrets: &secrets,
    };
    render::artifact_paths(&input).unwrap_or_default()
}

/// Where a spec may hold a secret written inline.
const SECRET_POINTERS: [&str; 3] = [
    "/windows/controlPlane/kubeadmToken",
    "/windows/controlPlane/kubeadmCaHash",
    "/rke2/token",
];

/// The spans of the secret fields whose value is written out rather than taken `fromEnv`.
fn inline_secret_spans(document: &Document) -> Vec<std::ops::Range<usize>> {
    SECRET_POINTERS
        .iter()
        .filter(|pointer| {
            document
                .value
                .pointer(pointer)
                .is_some_and(|value| !value.is_object())
        })
        .filter_map(|pointer| document.spans.value_span(pointer))
        .collect()
}

impl Checked {
    /// The typed spec and its plan, when checking got that far; the rest is dropped.
    pub fn into_spec_and_plan(self) -> Option<(Spec, Plan)> {
        self.spec.zip(self.plan)
    }

    /// The report of these findings in this file, with the plan when there is one.
    pub fn report<'a>(&'a self, diagnostics: &'a [Diagnostic]) -> FileReport<'a> {
        let report = FileReport::new(&self.file, diagnostics);
        match (&self.spec, &self.plan) {
            (Some(spec), Some(plan)) => report.with_plan(spec, plan, &self.artifacts),
            _ => report,
        }
    }
}

//! One file through the whole check: load → API version → schema → typed spec → plan → rules.

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::load::{self, Document};
use crate::plan::Plan;
use crate::render;
use crate::rules::{self, input};
use crate::schema;
use crate::source::SourceFile;
use crate::spec::Spec;

/// What checking one file produced: its text, spans, plan (when it got that far) and findings.
pub struct Checked {
    pub source: SourceFile,
    pub document: Option<Document>,
    pub spec: Option<Spec>,
    pub plan: Option<Plan>,
    pub diagnostics: Vec<Diagnostic>,
    /// What `render` would write, when the spec has no errors.
    pub artifacts: Vec<String>,
}

/// Checks the raw bytes of one spec file. Each stage runs only on what the previous one accepted.
pub fn check(name: &str, bytes: &[u8]) -> Checked {
    let (source, decoded) = load::decode(name, bytes);
    let mut checked = Checked {
        source,
        document: None,
        spec: None,
        plan: None,
        diagnostics: Vec::new(),
        artifacts: Vec::new(),
    };
    let loaded = decoded.and_then(|()| load::load(&checked.source));
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
    checked.diagnostics = input::check_api_version(&document.value);
    if checked.diagnostics.is_empty() {
        checked.diagnostics = schema::validate(&checked.source, &document);
    }
    if checked.diagnostics.is_empty() {
        match serde_json::from_value::<Spec>(document.value.clone()) {
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
    checked.document = Some(document);
    checked
}

/// The paths `render` would write (with placeholder secrets: only the paths are kept).
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
    render::render_all(&input)
        .map(|artifacts| {
            artifacts
                .into_iter()
                .map(|artifact| artifact.path)
                .collect()
        })
        .unwrap_or_default()
}

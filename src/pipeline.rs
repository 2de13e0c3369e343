//! One file through the whole check: load → API version → schema → typed spec → plan → rules.

use crate::diagnostic::{Diagnostic, Location};
use crate::load::{self, Document, LoadedFile};
use crate::plan::Plan;
use crate::render;
use crate::rules::{self, input};
use crate::schema;
use crate::source::SourceFile;
use crate::spec::Spec;
use crate::spec::secret_fields::{SECRET_FIELDS, is_variable_name};
use serde::Deserialize;
use std::sync::OnceLock;

/// What checking one file produced: its text, spans, plan (when it got that far) and findings.
/// The JSON value of the document is not kept: once typed it is only weight (tens of megabytes
/// for a 65,536-node spec).
pub struct Checked {
    /// The text, where each value stands when it loaded, and the secrets written inline.
    pub file: LoadedFile,
    pub spec: Option<Spec>,
    pub plan: Option<Plan>,
    pub diagnostics: Vec<Diagnostic>,
    /// What `render` would write, listed when a report first shows it.
    artifacts: OnceLock<Vec<String>>,
}

/// Checks the raw bytes of one spec file. Each stage runs only on what the previous one accepted.
///
/// The document is typed first, as strictly as the schema reads it (`schema::typed`): a valid
/// spec never compiles the schema. Only a document that does not type is validated against the
/// JSON Schema, whose findings say what is wrong and where.
pub fn check(name: &str, bytes: Vec<u8>) -> Checked {
    check_unsuppressed(name, bytes, Typing::TypedFirst).with_suppressions()
}

/// The same check with the JSON Schema always validated, never skipped: tests hold [`check`]
/// equal to it, which is what lets [`check`] skip the schema.
pub fn check_with_schema(name: &str, bytes: Vec<u8>) -> Checked {
    check_unsuppressed(name, bytes, Typing::SchemaFirst).with_suppressions()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Typing {
    TypedFirst,
    SchemaFirst,
}

/// The findings before the file's inline suppressions are applied.
fn check_unsuppressed(name: &str, bytes: Vec<u8>, typing: Typing) -> Checked {
    let (source, decoded) = load::decode(name, bytes);
    let mut checked = Checked::new(source);
    let (loaded, nodes) = match (decoded, typing) {
        (Err(error), _) => (Err(error), None),
        (Ok(()), Typing::TypedFirst) => schema::load_typing_nodes(&checked.file.source),
        (Ok(()), Typing::SchemaFirst) => (
            load::load_accepting(&checked.file.source, &schema::types_as_spec),
            None,
        ),
    };
    let document = match loaded {
        Ok(document) => document,
        Err(error) => return checked.syntax_error(error),
    };
    checked.file.inline_secrets = inline_secret_spans(&document);
    checked.diagnostics = input::check_api_version(&document.value);
    if !checked.diagnostics.is_empty() {
        checked.file.spans = Some(document.spans);
        return checked;
    }
    let document = match typing {
        Typing::TypedFirst => {
            let Document { value, spans } = document;
            checked.file.spans = Some(spans);
            if let Some(spec) = nodes.and_then(|nodes| schema::typed(value, nodes)) {
                checked.finish(spec);
                return checked;
            }
            // Typing consumed the value and the nodes, so that a large spec is never held twice; a document
            // that does not type is read again for the schema, which says what is wrong.
            match load::load(&checked.file.source) {
                Ok(document) => document,
                Err(error) => return checked.syntax_error(error),
            }
        }
        Typing::SchemaFirst => document,
    };
    check_against_schema(checked, document)
}

/// The schema's findings on the document, or, when it has none, the document typed as serde
/// reads it (whose error, if any, is the last word).
fn check_against_schema(mut checked: Checked, document: Document) -> Checked {
    checked.diagnostics = schema::validate(&checked.file.source, &document);
    let Document { value, spans } = document;
    checked.file.spans = Some(spans);
    if !checked.diagnostics.is_empty() {
        return checked;
    }
    let typed = Spec::deserialize(&value);
    drop(value);
    match typed {
        Ok(spec) => checked.finish(spec),
        Err(error) => checked.diagnostics.push(
            Diagnostic::new(
                &input::SCHEMA_VIOLATION,
                Location::Value(String::new()),
                error.to_string(),
            )
            .help("see `hybridgen schema` for the spec format"),
        ),
    }
    checked
}

/// The spans of the secret fields whose value is written out rather than taken `fromEnv`: the
/// `fromEnv` value when it is no variable name (it may be the secret pasted in the wrong place),
/// the whole value when it is no reference at all.
fn inline_secret_spans(document: &Document) -> Vec<std::ops::Range<usize>> {
    SECRET_FIELDS
        .iter()
        .filter_map(|field| {
            let value = document.value.pointer(field.pointer)?;
            if value.is_null() {
                // Nothing written, nothing to mask: a null's span is where its key stands.
                return None;
            }
            match value.as_object() {
                Some(members) if members.len() == 1 => match members.get("fromEnv") {
                    // A name written as a shell expands it (`$NAME`) is shown: HG011 says so.
                    Some(serde_json::Value::String(name))
                        if is_variable_name(
                            name.trim_start_matches("${")
                                .trim_start_matches('$')
                                .trim_end_matches('}'),
                        ) =>
                    {
                        None
                    }
                    Some(serde_json::Value::String(_)) => document
                        .spans
                        .value_span(&format!("{}/fromEnv", field.pointer)),
                    _ => document.spans.value_span(field.pointer),
                },
                _ => document.spans.value_span(field.pointer),
            }
        })
        .collect()
}

impl Checked {
    fn new(source: SourceFile) -> Self {
        Checked {
            file: LoadedFile::new(source, None),
            spec: None,
            plan: None,
            diagnostics: Vec::new(),
            artifacts: OnceLock::new(),
        }
    }

    /// The file is not YAML a spec can use: one HG001 finding.
    fn syntax_error(mut self, error: load::LoadError) -> Self {
        let help = error
            .help
            .unwrap_or_else(|| "fix the YAML syntax at this place".into());
        let mut diagnostic = Diagnostic::new(
            &input::YAML_SYNTAX,
            Location::Bytes(error.span),
            error.message,
        )
        .label("here")
        .help(help);
        if let Some((other, text)) = error.other {
            diagnostic = diagnostic.related(Location::Bytes(other), text);
        }
        self.diagnostics.push(diagnostic);
        self
    }

    /// The findings with the file's inline suppressions applied ([`crate::suppressions`]).
    fn with_suppressions(mut self) -> Self {
        let diagnostics = std::mem::take(&mut self.diagnostics);
        self.diagnostics = crate::suppressions::apply(&self.file, diagnostics);
        self
    }

    /// Plans a typed spec and runs the rules on it.
    fn finish(&mut self, spec: Spec) {
        let plan = Plan::build(&spec);
        self.diagnostics = rules::run(&spec, &plan);
        self.spec = Some(spec);
        self.plan = Some(plan);
    }

    /// The typed spec and its plan, when checking got that far; the rest is dropped.
    pub fn into_spec_and_plan(self) -> Option<(Spec, Plan)> {
        self.spec.zip(self.plan)
    }

    /// The paths `render` would write, sorted; none when the spec did not plan or has errors.
    /// Listed on the first call: a 65,536-node spec has about 200,000 of them.
    pub fn artifact_paths(&self) -> &[String] {
        self.artifacts
            .get_or_init(|| match (&self.spec, &self.plan) {
                (Some(spec), Some(plan)) if !self.diagnostics.iter().any(Diagnostic::is_error) => {
                    render::artifact_paths(&render::Input { spec, plan }).unwrap_or_default()
                }
                _ => Vec::new(),
            })
    }
}

/// The change plan from one checked spec to another, when both typed and planned
/// ([`crate::change`]).
pub fn change<'a>(
    old: &'a Checked,
    new: &'a Checked,
    paths: &crate::change::Paths,
) -> Option<crate::change::ChangePlan> {
    let side = |checked: &'a Checked| {
        Some(crate::change::Side {
            spec: checked.spec.as_ref()?,
            plan: checked.plan.as_ref()?,
        })
    };
    Some(crate::change::plan(side(old)?, side(new)?, paths))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked_by_type(text: &str) -> bool {
        let source = SourceFile::new("s.yaml", text);
        let (document, nodes) = schema::load_typing_nodes(&source);
        nodes.is_some_and(|nodes| schema::typed(document.unwrap().value, nodes).is_some())
    }

    /// Every valid fixture and example types without the schema.
    #[test]
    fn valid_specs_type_without_the_schema() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut checked = 0;
        for folder in ["examples", "tests/fixtures/valid", "tests/fixtures/render"] {
            for entry in std::fs::read_dir(root.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "yaml") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    assert!(checked_by_type(&text), "{}", path.display());
                    checked += 1;
                }
            }
        }
        assert!(checked > 160, "{checked} specs");
    }

    /// What only the schema reports does not type: the schema says what is wrong.
    #[test]
    fn what_only_the_schema_reports_does_not_type() {
        let example = include_str!("../examples/kubeadm-vxlan-windows.yaml");
        for (from, to) in [
            ("  vni: 4096", "  vni:"),
            ("roles: [worker]", "roles: []"),
            (
                "metadata:\n  name: kubeadm-vxlan-windows",
                "metadata: [kubeadm-vxlan-windows]",
            ),
        ] {
            assert!(example.contains(from), "{from}");
            assert!(!checked_by_type(&example.replacen(from, to, 1)), "{to}");
        }
        let wrong_version =
            example.replacen("apiVersion: hybridgen/v1", "apiVersion: hybridgen/v2", 1);
        let checked = check("s.yaml", wrong_version.into_bytes());
        assert!(checked.spec.is_none());
        assert!(!checked.diagnostics.is_empty());
    }
}

//! One file through the whole check: load → API version → schema → typed spec → plan → rules.

use crate::diagnostic::{Diagnostic, Location};
use crate::input_file::FileBytes;
use crate::load::{self, Document, LoadedFile, SpanIndex};
use crate::plan::Plan;
use crate::report::{ArtifactPaths, FileReport, Planned};
use crate::rules::{self, input};
use crate::schema;
use crate::source::SourceFile;
use crate::spec::secret_fields::{SECRET_FIELDS, is_variable_name};
use crate::spec::{Node, Secret, Spec};
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
    /// What `render` would write, listed when a report first shows it.
    artifacts: ArtifactPaths,
}

/// Checks the raw bytes of one spec file. Each stage runs only on what the previous one accepted.
///
/// A valid spec takes the short way: each node is typed as the parser closes it and its JSON value
/// dropped at once, and the document is typed as strictly as the schema reads it, so the schema
/// is never compiled. Anything the short way cannot settle (a node or field that does not type, a
/// value only the schema checks, a wrong `apiVersion`) sends the file the reference way, which
/// gives the same findings by construction; `tests/differential.rs` holds the two equal.
pub fn check(name: &str, bytes: impl Into<FileBytes>) -> Checked {
    let (source, decoded) = load::decode(name, bytes);
    let checked = if decoded.is_err() {
        check_thoroughly(source, decoded)
    } else {
        match check_briefly(source) {
            Ok(checked) => checked,
            Err(source) => check_thoroughly(source, Ok(())),
        }
    };
    checked.with_suppressions()
}

/// The short way, or the source back when the file needs the reference way.
fn check_briefly(source: SourceFile) -> Result<Checked, SourceFile> {
    let streamed = match load::load_streamed::<TypedNodes>(&source, "nodes") {
        Ok(Some(streamed)) => streamed,
        Ok(None) => return Err(source),
        Err(error) => return Ok(Checked::new(source).syntax_error(error)),
    };
    let Document { value, spans } = streamed.document;
    let accepted = input::check_api_version(&value)
        .is_empty()
        .then(|| schema::accepted_spec(value, streamed.items.0))
        .flatten();
    let Some(spec) = accepted else {
        return Err(source);
    };
    let mut checked = Checked::new(source);
    checked.file.inline_secrets = typed_inline_secret_spans(&spec, &spans);
    checked.file.spans = Some(spans);
    checked.finish(spec);
    Ok(checked)
}

/// The reference way: the whole document as a JSON value, checked against the JSON Schema, then
/// typed. What [`check`] falls back to; public so that tests can hold the two equal.
pub fn check_reference(name: &str, bytes: impl Into<FileBytes>) -> Checked {
    let (source, decoded) = load::decode(name, bytes);
    check_thoroughly(source, decoded).with_suppressions()
}

fn check_thoroughly(source: SourceFile, decoded: Result<(), load::LoadError>) -> Checked {
    let mut checked = Checked::new(source);
    let loaded = decoded.and_then(|()| load::load(&checked.file.source));
    let document = match loaded {
        Ok(document) => document,
        Err(error) => return checked.syntax_error(error),
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
    }
    checked
}

/// The spec's nodes, each typed as the parser closes it.
#[derive(Default)]
struct TypedNodes(Vec<Node>);

impl TypedNodes {
    fn push(&mut self, node: Option<Node>) -> bool {
        node.map(|node| self.0.push(node)).is_some()
    }
}

impl load::Items for TypedNodes {
    fn take(&mut self, item: serde_json::Value) -> bool {
        self.push(schema::accepted_node(item))
    }

    /// A node is typed from its members: no JSON object is made of it.
    fn take_members<'k>(
        &mut self,
        members: impl Iterator<Item = (&'k str, serde_json::Value)>,
    ) -> bool {
        self.push(schema::accepted_node_members(members))
    }

    fn append(&mut self, later: Self) {
        self.0.extend(later.0);
    }

    /// Room for as many nodes as the text could hold if each took [`SHORTEST_NODE`] bytes, up to
    /// a spec's limit: the list never grows by copying, and the part parsed first (half the text
    /// of a large file) has room for the other part's nodes when they are joined. Pages never
    /// written cost no memory; at 65,536 nodes this saves about 5,000 page faults.
    fn expect_text(&mut self, text_len: usize) {
        self.0
            .reserve((text_len / SHORTEST_NODE).min(load::SPEC.list_items));
    }
}

/// About the fewest bytes a node is written in (`- {name: w1, os: linux, roles: [worker],
/// address: 10.0.0.1}` is 57): a spec whose nodes are shorter only grows its list as it goes.
const SHORTEST_NODE: usize = 48;

/// The spans of the secret fields of a typed spec whose value is written out.
fn typed_inline_secret_spans(spec: &Spec, spans: &SpanIndex) -> Vec<std::ops::Range<usize>> {
    SECRET_FIELDS
        .iter()
        .filter_map(|field| match field.secret(spec)? {
            Secret::Inline(_) => spans.value_span(field.pointer),
            Secret::FromEnv(reference) if !is_variable_name(&reference.from_env) => {
                spans.value_span(&format!("{}/fromEnv", field.pointer))
            }
            Secret::FromEnv(_) => None,
        })
        .collect()
}

/// The spans of the secret fields whose value is written out rather than taken `fromEnv`, the
/// same as [`typed_inline_secret_spans`] finds where the document types: the `fromEnv` value when
/// it is no variable name, the whole value when it is no reference at all.
fn inline_secret_spans(document: &Document) -> Vec<std::ops::Range<usize>> {
    SECRET_FIELDS
        .iter()
        .filter_map(|field| {
            let value = document.value.pointer(field.pointer)?;
            match value.as_object() {
                Some(members) if members.len() == 1 => match members.get("fromEnv") {
                    Some(serde_json::Value::String(name)) if is_variable_name(name) => None,
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
            artifacts: ArtifactPaths::default(),
        }
    }

    /// The file is not YAML a spec can use: one HG001 finding.
    fn syntax_error(mut self, error: load::LoadError) -> Self {
        let mut diagnostic = Diagnostic::new(
            &input::YAML_SYNTAX,
            Location::Bytes(error.span),
            error.message,
        )
        .label("here");
        diagnostic.help = error.help;
        self.diagnostics
            .push(diagnostic.help_or("fix the YAML syntax at this place"));
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

    /// The report of these findings in this file, with the plan when there is one.
    pub fn report<'a>(&'a self, diagnostics: &'a [Diagnostic]) -> FileReport<'a> {
        let report = FileReport::new(&self.file, diagnostics);
        match self.planned() {
            Some(planned) => report.with_plan(planned),
            None => report,
        }
    }

    /// The paths `render` would write, sorted; none when the spec did not plan or has errors.
    pub fn artifact_paths(&self) -> &[String] {
        self.planned().map_or(&[], |planned| planned.artifacts())
    }

    fn planned(&self) -> Option<Planned<'_>> {
        let (spec, plan) = (self.spec.as_ref()?, self.plan.as_ref()?);
        let renders = !self.diagnostics.iter().any(Diagnostic::is_error);
        Some(Planned::new(spec, plan, &self.artifacts, renders))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every valid fixture and example takes the short way: no schema work, nodes typed as read.
    #[test]
    fn valid_specs_take_the_short_way() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut checked = 0;
        for folder in ["examples", "tests/fixtures/valid", "tests/fixtures/render"] {
            for entry in std::fs::read_dir(root.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "yaml") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let source = SourceFile::new(path.display().to_string(), text);
                    assert!(check_briefly(source).is_ok(), "{}", path.display());
                    checked += 1;
                }
            }
        }
        assert!(checked > 160, "{checked} specs");
    }

    /// What only the schema reports sends a spec the reference way, whose finding it is.
    #[test]
    fn what_only_the_schema_reports_takes_the_reference_way() {
        let example = include_str!("../examples/kubeadm-vxlan-windows.yaml");
        for (from, to) in [
            ("  vni: 4096", "  vni:"),
            ("roles: [worker]", "roles: []"),
            (
                "metadata:\n  name: kubeadm-vxlan-windows",
                "metadata: [kubeadm-vxlan-windows]",
            ),
            ("apiVersion: hybridgen/v1", "apiVersion: hybridgen/v2"),
        ] {
            assert!(example.contains(from), "{from}");
            let source = SourceFile::new("s.yaml", example.replacen(from, to, 1));
            assert!(check_briefly(source).is_err(), "{to}");
        }
    }
}

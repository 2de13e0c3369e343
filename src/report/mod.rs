//! Turning findings into output: spans resolved from JSON Pointers to lines and columns, findings
//! sorted, and one module per format. Nothing here decides what is wrong.

pub mod github;
pub mod human;
pub mod json;
pub mod markdown;
pub mod sarif;

use crate::diagnostic::Rule;
use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::escape;
use crate::load::LoadedFile;
use crate::plan::Plan;
use crate::source::{Position, SourceFile};
use crate::spec::Spec;
use std::collections::BTreeMap;
use std::ops::Range;

/// A finding with its place in the file worked out.
pub struct Located<'a> {
    pub diagnostic: &'a Diagnostic,
    pub primary: Place,
    pub secondary: Vec<(Place, &'a str)>,
}

/// A byte span with its 1-based start and (exclusive) end positions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub pointer: String,
    pub span: Range<usize>,
    pub start: Position,
    pub end: Position,
}

/// One checked file with its findings located and sorted by line, column and code.
pub struct FileReport<'a> {
    pub file: &'a LoadedFile,
    /// For a spec that planned: what the human report shows before the findings.
    pub planned: Option<Planned<'a>>,
    /// The findings shown: at most `SHOWN_PER_CODE` of each code.
    pub findings: Vec<Located<'a>>,
    /// For each code with more findings than are shown, how many more of each severity, so that
    /// every format still counts them.
    pub omitted: Vec<Omitted>,
}

/// Findings of one code in one file beyond those shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Omitted {
    pub code: &'static str,
    pub errors: usize,
    pub warnings: usize,
}

/// The most findings of one code a report shows for one file: a capture of a million broken
/// items must not print a million findings (each quoting its line).
pub const SHOWN_PER_CODE: usize = 100;

/// The most characters of a message or help any format shows; a value quoted in it (a node name,
/// an annotation) could otherwise be megabytes.
pub const MESSAGE_CHARS: usize = 2_000;

/// A message or help as reports show it: cut at `MESSAGE_CHARS`, saying how much was left out.
pub fn shown_text(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MESSAGE_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => std::borrow::Cow::Owned(format!(
            "{}… ({} more characters)",
            &text[..cut],
            text[cut..].chars().count()
        )),
    }
}

/// A spec's resolved plan, and the paths `render` would write.
#[derive(Clone, Copy)]
pub struct Planned<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
    pub artifacts: &'a dyn ArtifactPaths,
}

/// The paths `render` would write, sorted, none for a spec with errors; listed when a report first
/// shows them: `--quiet` and the machine formats never do, and a 65,536-node spec has about
/// 200,000 of them. The caller lists them, so that reports format and never render.
pub trait ArtifactPaths {
    fn artifact_paths(&self) -> &[String];
}

impl<'a> FileReport<'a> {
    pub fn new(file: &'a LoadedFile, diagnostics: &'a [Diagnostic]) -> Self {
        let mut findings: Vec<Located<'a>> = diagnostics
            .iter()
            .map(|diagnostic| Located {
                diagnostic,
                primary: place(file, &diagnostic.primary.location),
                secondary: diagnostic
                    .secondary
                    .iter()
                    .map(|label| (place(file, &label.location), label.text.as_str()))
                    .collect(),
            })
            .collect();
        findings.sort_by(|a, b| {
            (a.primary.start, a.diagnostic.code(), &a.diagnostic.message).cmp(&(
                b.primary.start,
                b.diagnostic.code(),
                &b.diagnostic.message,
            ))
        });
        let (findings, omitted) = cap_per_code(findings);
        Self {
            file,
            planned: None,
            findings,
            omitted,
        }
    }

    /// The report of a spec that planned, which the human format shows first.
    pub fn with_plan(self, planned: Planned<'a>) -> Self {
        Self {
            planned: Some(planned),
            ..self
        }
    }

    pub fn name(&self) -> &str {
        self.file.source.name()
    }

    /// The findings a comment suppresses, which the human and GitHub formats leave out.
    pub fn suppressed(&self) -> usize {
        self.findings
            .iter()
            .filter(|finding| finding.diagnostic.suppression.is_some())
            .count()
    }

    /// The findings to show a person: those no comment suppresses.
    pub fn unsuppressed(&self) -> impl Iterator<Item = &Located<'a>> {
        self.findings
            .iter()
            .filter(|finding| finding.diagnostic.suppression.is_none())
    }

    /// The file's text as reports show it, for `windows` (byte ranges of whole lines): inline
    /// secret values, and anything shaped like a bootstrap token or a CA hash, masked with `*`,
    /// and every control character a terminal would act on shown as `?`, byte for byte. Every
    /// other byte is blank, line breaks kept, so that positions stay put, nothing unmasked can be
    /// shown, and only the windows are scanned: a report does not mask a whole 8.5 MiB spec to
    /// show a few lines of it. The text ends where the last window ends; nothing after it is read.
    pub fn shown_text(&self, windows: &[Range<usize>]) -> String {
        let text = self.file.source.text();
        let mut secrets = self.file.inline_secrets.clone();
        if self.file.spans.is_none() {
            // A file that did not load has no spans to find the secret fields by: they are
            // found by their place in the text instead.
            secrets.extend(crate::redact::secret_values_by_place(text));
        }
        let end = windows.iter().map(|window| window.end).max().unwrap_or(0);
        let mut shown: Vec<u8> = text.as_bytes()[..end.min(text.len())]
            .iter()
            .map(|&byte| if byte == b'\n' { b'\n' } else { b' ' })
            .collect();
        for window in windows {
            let Some(part) = text.get(window.clone()) else {
                continue;
            };
            let inside: Vec<Range<usize>> = secrets
                .iter()
                .filter_map(|span| {
                    let (start, end) = (span.start.max(window.start), span.end.min(window.end));
                    (start < end).then(|| start - window.start..end - window.start)
                })
                .collect();
            let masked = escape::same_length(&crate::redact::masked(part, &inside));
            // Both keep the length byte for byte; a window that did not stays blank.
            if let Some(place) = shown
                .get_mut(window.clone())
                .filter(|place| place.len() == masked.len())
            {
                place.copy_from_slice(masked.as_bytes());
            }
        }
        String::from_utf8(shown).unwrap_or_default()
    }

    /// Every finding of this severity, shown or not, that no comment suppresses.
    pub fn count(&self, severity: Severity) -> usize {
        let shown = self
            .unsuppressed()
            .filter(|finding| finding.diagnostic.severity == severity)
            .count();
        let omitted: usize = self
            .omitted
            .iter()
            .map(|omitted| match severity {
                Severity::Error => omitted.errors,
                Severity::Warning => omitted.warnings,
            })
            .sum();
        shown + omitted
    }
}

/// The first `SHOWN_PER_CODE` findings of each code, in order, and counts of the rest.
fn cap_per_code(findings: Vec<Located<'_>>) -> (Vec<Located<'_>>, Vec<Omitted>) {
    let mut seen: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut omitted: BTreeMap<&'static str, Omitted> = BTreeMap::new();
    let mut shown = Vec::with_capacity(findings.len().min(SHOWN_PER_CODE * 4));
    for finding in findings {
        let code = finding.diagnostic.code();
        let count = seen.entry(code).or_default();
        *count += 1;
        if *count <= SHOWN_PER_CODE {
            shown.push(finding);
            continue;
        }
        let more = omitted.entry(code).or_insert(Omitted {
            code,
            errors: 0,
            warnings: 0,
        });
        match finding.diagnostic.severity {
            Severity::Error => more.errors += 1,
            Severity::Warning => more.warnings += 1,
        }
    }
    (shown, omitted.into_values().collect())
}

/// Resolves a location to the exact span when the path exists, else to its nearest ancestor.
fn place(file: &LoadedFile, location: &Location) -> Place {
    let source = &file.source;
    let span = visible(source, file.span_of(location));
    Place {
        pointer: location.pointer().to_string(),
        start: source.position(span.start),
        end: source.position(span.end),
        span,
    }
}

/// An empty span widened to the character it stands on, so that every report can underline it.
fn visible(source: &SourceFile, span: Range<usize>) -> Range<usize> {
    let text = source.text();
    let start = span.start.min(text.len());
    let end = span.end.clamp(start, text.len());
    if start < end {
        return start..end;
    }
    match text[start..].chars().next() {
        Some(c) if c != '\n' && c != '\r' => start..start + c.len_utf8(),
        _ => start..start,
    }
}

/// A planned spec's pod subnets for the machine formats (`podSubnets` in JSON, a property of the
/// SARIF run): each node's subnet and where it comes from, so that a prediction reads as one.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSubnets<'a> {
    pub file: &'a str,
    /// `controller` or `hybridgen`.
    pub pod_cidrs: &'static str,
    pub nodes: Vec<NodeSubnet<'a>>,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSubnet<'a> {
    pub name: &'a str,
    /// `None` when the cluster network has no subnet left for the node.
    pub pod_cidr: Option<String>,
    /// `predicted`, `assigned`, `pinned` or `live`.
    pub source: &'static str,
}

/// The pod subnets of every report that planned.
pub fn pod_subnets<'a>(reports: &'a [FileReport]) -> Vec<PodSubnets<'a>> {
    reports
        .iter()
        .filter_map(|report| {
            let planned = report.planned?;
            Some(PodSubnets {
                file: report.name(),
                pod_cidrs: planned.plan.pod_cidrs.as_str(),
                nodes: planned
                    .plan
                    .nodes
                    .iter()
                    .map(|node| NodeSubnet {
                        name: &node.name,
                        pod_cidr: node.pod_subnet.map(|subnet| subnet.to_string()),
                        source: node.subnet_source.as_str(),
                    })
                    .collect(),
            })
        })
        .collect()
}

/// Totals over every file of a run, as JSON's `summary` shows them.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Totals {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Findings a comment suppresses: counted for nothing, said in the summary.
    pub suppressed: usize,
}

impl Totals {
    pub fn of(reports: &[FileReport]) -> Self {
        Self {
            files: reports.len(),
            errors: reports.iter().map(|r| r.count(Severity::Error)).sum(),
            warnings: reports.iter().map(|r| r.count(Severity::Warning)).sum(),
            suppressed: reports.iter().map(FileReport::suppressed).sum(),
        }
    }

    pub fn summary(&self) -> String {
        let suppressed = if self.suppressed > 0 {
            format!(" ({} suppressed)", self.suppressed)
        } else {
            String::new()
        };
        format!(
            "{} checked: {}{suppressed}",
            counted(self.files, "file"),
            findings_summary(self.errors, self.warnings)
        )
    }
}

/// `3 errors, 1 warning`, or `no problems found`.
pub fn findings_summary(errors: usize, warnings: usize) -> String {
    if errors == 0 && warnings == 0 {
        "no problems found".into()
    } else {
        format!(
            "{}, {}",
            counted(errors, "error"),
            counted(warnings, "warning")
        )
    }
}

fn counted(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// A stable link to a rule's section of the rules reference (the heading's Markdown anchor).
pub fn rule_url(rule: &Rule) -> String {
    format!(
        "docs/rules.md#{}-{}",
        rule.code.to_ascii_lowercase(),
        rule.name
    )
}

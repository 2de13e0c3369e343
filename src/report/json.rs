//! `--format json`: one document with every finding; the shape is documented in the README and
//! kept stable (`version` changes if it ever must change).

use super::{FileReport, Place, PodSubnets, Totals, pod_subnets, rule_url, shown_text};
use serde::Serialize;
use std::borrow::Cow;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    version: u32,
    diagnostics: Vec<Entry<'a>>,
    /// Findings beyond the first `SHOWN_PER_CODE` of a code in a file: counted, not listed.
    omitted: Vec<OmittedEntry<'a>>,
    summary: Totals,
    /// Each planned spec's node subnets and where they come from (absent when none planned).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pod_subnets: Vec<PodSubnets<'a>>,
}

#[derive(Serialize)]
struct OmittedEntry<'a> {
    code: &'static str,
    file: &'a str,
    errors: usize,
    warnings: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    code: &'static str,
    name: &'static str,
    severity: &'static str,
    message: Cow<'a, str>,
    help: Option<Cow<'a, str>>,
    file: &'a str,
    path: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    url: String,
    related: Vec<Related<'a>>,
    /// Present when a comment in the file suppresses the finding: it then counts for nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    suppressed: Option<Suppressed<'a>>,
}

/// SARIF's suppression object in JSON's words.
#[derive(Serialize)]
struct Suppressed<'a> {
    kind: &'static str,
    justification: Cow<'a, str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Related<'a> {
    message: &'a str,
    path: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
}

pub fn render(reports: &[FileReport]) -> String {
    let diagnostics = reports
        .iter()
        .flat_map(|report| {
            report.findings.iter().map(move |finding| {
                let diagnostic = finding.diagnostic;
                let Place {
                    pointer,
                    start,
                    end,
                    ..
                } = &finding.primary;
                Entry {
                    code: diagnostic.rule.code,
                    name: diagnostic.rule.name,
                    severity: diagnostic.severity.as_str(),
                    message: shown_text(&diagnostic.message),
                    help: diagnostic.help.as_deref().map(shown_text),
                    file: report.name(),
                    path: pointer,
                    line: start.line,
                    column: start.column,
                    end_line: end.line,
                    end_column: end.column,
                    url: rule_url(diagnostic.rule),
                    related: finding
                        .secondary
                        .iter()
                        .map(|(place, message)| Related {
                            message,
                            path: &place.pointer,
                            line: place.start.line,
                            column: place.start.column,
                            end_line: place.end.line,
                            end_column: place.end.column,
                        })
                        .collect(),
                    suppressed: diagnostic
                        .suppression
                        .as_ref()
                        .map(|suppression| Suppressed {
                            kind: "inSource",
                            justification: shown_text(&suppression.justification),
                        }),
                }
            })
        })
        .collect();
    let omitted = reports
        .iter()
        .flat_map(|report| {
            report.omitted.iter().map(move |omitted| OmittedEntry {
                code: omitted.code,
                file: report.name(),
                errors: omitted.errors,
                warnings: omitted.warnings,
            })
        })
        .collect();
    let output = Output {
        version: 1,
        diagnostics,
        omitted,
        summary: Totals::of(reports),
        pod_subnets: pod_subnets(reports),
    };
    crate::escape::json_pretty(&output).unwrap_or_default() + "\n"
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangeOutput<'a> {
    version: u32,
    from: &'a str,
    to: &'a str,
    steps: Vec<StepEntry<'a>>,
    files: &'a crate::change::files::FileChanges,
    /// The new spec's findings, change rules included, as `render` gives them.
    findings: serde_json::Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StepEntry<'a> {
    title: &'a str,
    action: &'static str,
    nodes: &'a [String],
    files: &'a [String],
    commands: &'a [String],
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
    /// What each component runs once the step is done (version steps only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    versions_after: Vec<VersionEntry>,
}

#[derive(Serialize)]
struct VersionEntry {
    component: &'static str,
    nodes: &'static str,
    version: String,
}

/// A change plan as one JSON document (`plan SPEC --from OLD --format json`).
pub fn change_plan(
    plan: &crate::change::ChangePlan,
    report: &FileReport,
    from: &str,
    to: &str,
) -> String {
    use crate::change::Component;
    let steps = plan
        .steps
        .iter()
        .map(|step| StepEntry {
            title: &step.title,
            action: step.action.key(),
            nodes: &step.nodes,
            files: &step.files,
            commands: &step.commands,
            source: step.source,
            rule: step.rule,
            versions_after: step
                .versions
                .iter()
                .flat_map(|state| &state.running)
                .map(|running| VersionEntry {
                    component: match running.component {
                        Component::ApiServer => "kube-apiserver",
                        Component::Kubelet => "kubelet",
                        Component::KubeProxy => "kube-proxy",
                        Component::Containerd => "containerd",
                    },
                    nodes: running.group,
                    version: running.version.to_string(),
                })
                .collect(),
        })
        .collect();
    let findings = serde_json::from_str(&render(std::slice::from_ref(report)))
        .unwrap_or(serde_json::Value::Null);
    let output = ChangeOutput {
        version: 1,
        from,
        to,
        steps,
        files: &plan.files,
        findings,
    };
    crate::escape::json_pretty(&output).unwrap_or_default() + "\n"
}

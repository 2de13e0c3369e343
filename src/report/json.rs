//! `--format json`: one document with every finding; the shape is documented in the README and
//! kept stable (`version` changes if it ever must change).

use super::{FileReport, Place, PodSubnets, Totals, pod_subnets, rule_url};
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    version: u32,
    diagnostics: Vec<Entry<'a>>,
    summary: Summary,
    /// Each planned spec's node subnets and where they come from (absent when none planned).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pod_subnets: Vec<PodSubnets<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry<'a> {
    code: &'static str,
    name: &'static str,
    severity: &'static str,
    message: &'a str,
    help: Option<&'a str>,
    file: &'a str,
    path: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    url: String,
    related: Vec<Related<'a>>,
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

#[derive(Serialize)]
struct Summary {
    files: usize,
    errors: usize,
    warnings: usize,
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
                    message: &diagnostic.message,
                    help: diagnostic.help.as_deref(),
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
                }
            })
        })
        .collect();
    let totals = Totals::of(reports);
    let output = Output {
        version: 1,
        diagnostics,
        summary: Summary {
            files: totals.files,
            errors: totals.errors,
            warnings: totals.warnings,
        },
        pod_subnets: pod_subnets(reports),
    };
    let mut text = serde_json::to_string_pretty(&output).unwrap_or_default();
    text.push('\n');
    text
}

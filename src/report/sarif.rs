//! `--format sarif`: SARIF 2.1.0 for GitHub code scanning. Every rule is listed once, in code
//! order; results refer to them by id and index.

use super::{FileReport, NodeSubnet, Place, pod_subnets, rule_url, shown_text};
use crate::rules;
use serde::Serialize;
use serde_json::{Value, json};

pub fn render(reports: &[FileReport]) -> String {
    let rules: Vec<Value> = rules::all()
        .iter()
        .map(|rule| {
            json!({
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.name.replace('-', " ")},
                "fullDescription": {"text": first_paragraph(rule.explain)},
                "help": {"text": rule.explain_markdown(), "markdown": rule.explain_markdown()},
                "helpUri": rule_url(rule),
                "defaultConfiguration": {"level": rule.severity.as_str()},
            })
        })
        .collect();
    let results: Vec<Value> = reports
        .iter()
        .flat_map(|report| {
            report.findings.iter().map(move |finding| {
                let diagnostic = finding.diagnostic;
                let rule_index = rules::all()
                    .iter()
                    .position(|rule| rule.code == diagnostic.rule.code);
                let mut text = shown_text(&diagnostic.message).into_owned();
                if let Some(help) = &diagnostic.help {
                    text.push_str("\nhelp: ");
                    text.push_str(&shown_text(help));
                }
                let related: Vec<Value> = finding
                    .secondary
                    .iter()
                    .enumerate()
                    .map(|(id, (place, message))| {
                        let mut location = location(report.name(), place);
                        location["id"] = json!(id);
                        location["message"] = json!({"text": message});
                        location
                    })
                    .collect();
                let mut result = json!({
                    "ruleId": diagnostic.rule.code,
                    "ruleIndex": rule_index,
                    "level": diagnostic.severity.as_str(),
                    "message": {"text": text},
                    "locations": [location(report.name(), &finding.primary)],
                });
                if !related.is_empty() {
                    result["relatedLocations"] = json!(related);
                }
                if let Some(suppression) = &diagnostic.suppression {
                    result["suppressions"] = json!([{
                        "kind": "inSource",
                        "justification": shown_text(&suppression.justification),
                    }]);
                }
                result
            })
        })
        .collect();
    let subnets = pod_subnets(reports);
    // Findings beyond those listed are counted, so that a consumer sees the whole number.
    let omitted: Vec<Value> = reports
        .iter()
        .flat_map(|report| {
            report.omitted.iter().map(move |omitted| {
                json!({
                    "ruleId": omitted.code,
                    "uri": uri(report.name()),
                    "errors": omitted.errors,
                    "warnings": omitted.warnings,
                })
            })
        })
        .collect();
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        runs: [Run {
            column_kind: "unicodeCodePoints",
            properties: Properties {
                omitted_results: omitted,
                pod_subnets: subnets
                    .into_iter()
                    .map(|planned| SortedPodSubnets {
                        file: planned.file,
                        nodes: planned.nodes,
                        pod_cidrs: planned.pod_cidrs,
                    })
                    .collect(),
            },
            results,
            tool: json!({"driver": {
                "name": "hybridgen",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }}),
        }],
        version: "2.1.0",
    };
    crate::escape::json_pretty(&log).unwrap_or_default() + "\n"
}

/// The log, its keys in the alphabetical order a `serde_json::Value` gives the rest of it. The
/// pod subnets are written straight from the plan, not first copied into a value of their own,
/// one small map a node: the largest specs have tens of thousands of them.
#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    runs: [Run<'a>; 1],
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    column_kind: &'static str,
    properties: Properties<'a>,
    results: Vec<Value>,
    tool: Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Properties<'a> {
    omitted_results: Vec<Value>,
    /// A property bag (SARIF 2.1.0 §3.8): each planned spec's node subnets and their source.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pod_subnets: Vec<SortedPodSubnets<'a>>,
}

/// [`super::PodSubnets`] with its keys in the log's order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SortedPodSubnets<'a> {
    file: &'a str,
    nodes: Vec<NodeSubnet<'a>>,
    pod_cidrs: &'static str,
}

fn location(file: &str, place: &Place) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri(file)},
            "region": {
                "startLine": place.start.line,
                "startColumn": place.start.column,
                "endLine": place.end.line,
                "endColumn": place.end.column.max(place.start.column),
            },
        },
    })
}

/// A file name as a relative URI reference (RFC 3986): every byte outside the unreserved set and
/// `/` percent-encoded, so that a name holding spaces, `#`, `?`, `%` or control characters still
/// names the file and nothing else (SARIF 2.1.0 §3.10.2 `uri`).
fn uri(file: &str) -> String {
    let mut encoded = String::with_capacity(file.len());
    for byte in file.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    encoded
}

/// The "What it checks" paragraph of a rule's explain text, on one line.
fn first_paragraph(explain: &str) -> String {
    explain
        .lines()
        .map(str::trim)
        .skip_while(|line| line.starts_with('#') || line.is_empty())
        .take_while(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

//! `--format human`: the resolved IP plan of each file, then each finding drawn by miette with the
//! YAML around it, then a summary. The only user of miette.

use super::{FileReport, Located, Totals};
use crate::diagnostic::Severity;
use crate::plan::{Plan, address};
use crate::spec::{Os, Spec};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
use std::fmt;

/// How to draw: colour and width are decided once by the caller (terminal, `NO_COLOR`).
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
    pub width: usize,
    /// Show the plan as well as the findings.
    pub show_plan: bool,
}

pub fn render(reports: &[FileReport], style: Style) -> String {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false);
    let mut out = String::new();
    for report in reports {
        if style.show_plan {
            if let (Some(spec), Some(plan)) = (&report.checked.spec, &report.checked.plan) {
                out.push_str(&plan_text(report.name(), spec, plan));
                out.push_str(&artifacts_text(&report.checked.artifacts));
                out.push('\n');
            }
        }
        // The masked copy of the text is made only when a finding will show part of it.
        if !report.findings.is_empty() {
            let source = NamedSource::new(report.name(), report.checked.display_text());
            for finding in &report.findings {
                let drawn = Drawn {
                    finding,
                    source: &source,
                };
                let mut text = String::new();
                if handler.render_report(&mut text, &drawn).is_ok() {
                    out.push_str(&text);
                    out.push('\n');
                }
            }
        }
        if reports.len() > 1 {
            out.push_str(&format!("{}: {}\n", report.name(), file_summary(report)));
        }
    }
    out.push_str(&Totals::of(reports).summary());
    out.push('\n');
    out
}

fn file_summary(report: &FileReport) -> String {
    let (errors, warnings) = (
        report.count(Severity::Error),
        report.count(Severity::Warning),
    );
    if errors + warnings == 0 {
        "no problems found".into()
    } else {
        format!("{errors} error(s), {warnings} warning(s)")
    }
}

/// The resolved plan of one spec: settings with defaults applied, each node, and the routes.
pub fn plan_text(name: &str, spec: &Spec, plan: &Plan) -> String {
    let mut out = String::new();
    let shown = |value: &Result<_, _>| match value {
        Ok(value) => format!("{value}"),
        Err(_) => "(invalid)".to_string(),
    };
    let kubernetes = match &plan.kubernetes_version {
        Ok(version) => version.to_string(),
        Err(_) => spec.kubernetes.version.clone(),
    };
    let flannel = &plan.flannel;
    let flannel_version = match &flannel.version {
        Ok(version) => format!("v{version}"),
        Err(_) => "(invalid)".to_string(),
    };
    out.push_str(&format!(
        "{name}: cluster `{}`, Kubernetes {kubernetes}, DNS domain {}\n",
        spec.metadata.name, plan.dns_domain
    ));
    let dns = match &plan.dns_service_ip {
        Some(Ok(ip)) => ip.to_string(),
        _ => "(none)".to_string(),
    };
    out.push_str(&format!(
        "  pods {} (/{} per node, up to {} pods each), services {}, cluster DNS {dns}\n",
        shown(&plan.cluster_cidr),
        plan.node_mask,
        plan.max_pods,
        shown(&plan.service_cidr),
    ));
    let backend = match flannel.backend {
        crate::spec::Backend::Vxlan => format!("vxlan, VNI {}, UDP {}", flannel.vni, flannel.port),
        crate::spec::Backend::HostGw => "host-gw".to_string(),
    };
    out.push_str(&format!(
        "  flannel {flannel_version} ({backend}), Windows network `{}`, cloud {}\n\n",
        flannel.network_name,
        spec.provider().as_str()
    ));
    let rows: Vec<[String; 5]> = plan
        .nodes
        .iter()
        .map(|node| {
            [
                node.name.clone(),
                node.os.as_str().to_string(),
                node.address
                    .as_ref()
                    .map_or_else(|_| "(invalid)".into(), |ip| ip.to_string()),
                node.pod_subnet
                    .map_or_else(|| "(none)".into(), |subnet| subnet.to_string()),
                node.pod_subnet
                    .map_or_else(|| "-".into(), |_| node.usable_pod_addresses.to_string()),
            ]
        })
        .collect();
    let header = ["NODE", "OS", "ADDRESS", "POD SUBNET", "POD ADDRESSES"].map(String::from);
    let widths: Vec<usize> = (0..5)
        .map(|column| {
            rows.iter()
                .chain(std::iter::once(&header))
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out.push_str(&format!("  {}\n", cells.join("  ").trim_end()));
    }
    out.push_str(&format!("\n  routes ({}):\n", plan.routes.len()));
    for route in &plan.routes {
        let node = &plan.nodes[route.node];
        let how = match (flannel.backend, node.os) {
            (crate::spec::Backend::HostGw, _) => "host-gw",
            (_, Os::Windows) => "vxlan, Windows overlay",
            _ => "vxlan",
        };
        out.push_str(&format!(
            "    {} via {} ({}, {how}, {} addresses)\n",
            route.destination,
            route.next_hop,
            node.name,
            address::size(&route.destination)
        ));
    }
    out
}

fn artifacts_text(artifacts: &[String]) -> String {
    if artifacts.is_empty() {
        return "\n  render writes nothing while the spec has errors\n".into();
    }
    let mut out = format!("\n  render writes ({}):\n", artifacts.len());
    for path in artifacts {
        out.push_str(&format!("    {path}\n"));
    }
    out
}

/// A finding as miette draws it.
struct Drawn<'a> {
    finding: &'a Located<'a>,
    source: &'a NamedSource<String>,
}

impl fmt::Debug for Drawn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.finding.diagnostic.message)
    }
}

impl fmt::Display for Drawn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.finding.diagnostic.message)
    }
}

impl std::error::Error for Drawn<'_> {}

impl miette::Diagnostic for Drawn<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        let rule = self.finding.diagnostic.rule;
        Some(Box::new(format!("{} {}", rule.code, rule.name)))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.finding
            .diagnostic
            .help
            .as_ref()
            .map(|help| Box::new(help) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let primary = &self.finding.primary;
        let text = &self.finding.diagnostic.primary.text;
        let primary = LabeledSpan::new_primary_with_span(
            (!text.is_empty()).then(|| text.clone()),
            primary.span.clone(),
        );
        let secondary = self.finding.secondary.iter().map(|(place, text)| {
            LabeledSpan::new_with_span(Some(text.to_string()), place.span.clone())
        });
        Some(Box::new(std::iter::once(primary).chain(secondary)))
    }
}

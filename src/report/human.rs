//! `--format human`: the resolved IP plan of each file, then each finding drawn by miette with the
//! YAML around it, then a summary. The only user of miette.

use super::{FileReport, Located, Totals, findings_summary};
use crate::diagnostic::Severity;
use crate::plan::{Plan, address};
use crate::spec::{Os, Spec};
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};
use std::fmt;
use std::ops::Range;

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
        .with_links(false)
        .with_context_lines(CONTEXT_LINES);
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
            let source = LinedSource::new(report);
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
    findings_summary(
        report.count(Severity::Error),
        report.count(Severity::Warning),
    )
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

/// The text findings are drawn from, with its line starts found once: miette's `SourceCode` for a
/// string counts lines from the top of the file on every read, which made 8,192 findings in a
/// 65,536-node spec take minutes. Here each read hands miette only the lines around its span.
struct LinedSource {
    name: String,
    /// The lines the findings show, with secrets masked: where each run of lines starts in the
    /// file, and its text. Only these are ever read: a report does not copy a whole 8.5 MiB spec
    /// to show a few lines of it.
    windows: Vec<(usize, String)>,
    /// Where each line starts, a line ending at `\n`, `\r\n` or a lone `\r`, as miette counts.
    line_starts: Vec<usize>,
    text_len: usize,
}

/// Lines of context miette shows above and below a finding.
const CONTEXT_LINES: usize = 1;

impl LinedSource {
    /// The lines of the report's file that its findings show, secrets masked.
    fn new(report: &FileReport) -> Self {
        let mut source = Self::lines_of(report.name(), report.checked.source.text());
        for finding in &report.findings {
            // Every label of the finding, and what lies between them: miette draws labels that
            // are close in one snippet.
            let spans = std::iter::once(&finding.primary.span)
                .chain(finding.secondary.iter().map(|(place, _)| &place.span));
            let start = spans.clone().map(|span| span.start).min().unwrap_or(0);
            let end = spans.map(|span| span.end).max().unwrap_or(0);
            let window = source.window(start, end, CONTEXT_LINES, CONTEXT_LINES);
            let shown = report.checked.masked_text(window.clone());
            source.windows.push((window.start, shown));
        }
        source
    }

    /// A source with no window yet.
    fn lines_of(name: &str, text: &str) -> Self {
        let bytes = text.as_bytes();
        let breaks = memchr::memchr2_iter(b'\n', b'\r', bytes)
            .filter(|&at| bytes[at] == b'\n' || bytes.get(at + 1) != Some(&b'\n'));
        let line_starts = std::iter::once(0).chain(breaks.map(|at| at + 1)).collect();
        LinedSource {
            name: name.to_string(),
            windows: Vec::new(),
            line_starts,
            text_len: text.len(),
        }
    }

    fn line_of(&self, offset: usize) -> usize {
        self.line_starts
            .partition_point(|&start| start <= offset)
            .saturating_sub(1)
    }

    /// The bytes `read_span` hands miette for a span: from a line before the first context line
    /// to a line past the last one.
    fn window(&self, start: usize, end: usize, before: usize, after: usize) -> Range<usize> {
        let first = self.line_of(start).saturating_sub(before + 1);
        let last_byte = start.max(end.saturating_sub(1));
        let after = self.line_of(last_byte) + after + 2;
        let window_start = self.line_starts[first];
        let window_end = self
            .line_starts
            .get(after)
            .copied()
            .unwrap_or(self.text_len);
        window_start..window_end.max(window_start)
    }

    /// The text of `bytes`, from the masked window that holds them.
    fn shown(&self, bytes: Range<usize>) -> Option<&[u8]> {
        self.windows.iter().find_map(|(start, text)| {
            let local = bytes.start.checked_sub(*start)?..bytes.end.checked_sub(*start)?;
            text.as_bytes().get(local)
        })
    }
}

impl SourceCode for LinedSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        // From a line before the first context line to a line past the last one: miette reads the
        // window as it would the whole file, and its answer is shifted back by the lines above
        // the window. (The extra line keeps a span from starting the window, where miette's
        // reading of an empty span differs.)
        let end = span.offset() + span.len();
        let bytes = self.window(
            span.offset(),
            end,
            context_lines_before,
            context_lines_after,
        );
        let (start, first) = (bytes.start, self.line_of(bytes.start));
        let window = self.shown(bytes).ok_or(MietteError::OutOfBounds)?;
        let local = SourceSpan::new((span.offset().saturating_sub(start)).into(), span.len());
        let contents = window.read_span(&local, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            contents.data(),
            SourceSpan::new(
                (contents.span().offset() + start).into(),
                contents.span().len(),
            ),
            contents.line() + first,
            contents.column(),
            contents.line_count() + first,
        )))
    }
}

/// A finding as miette draws it.
struct Drawn<'a> {
    finding: &'a Located<'a>,
    source: &'a LinedSource,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every read gives what miette's own reader gives on the whole text: the same bytes, span,
    /// line, column and line count, for each line ending, span and amount of context.
    #[test]
    fn windowed_reads_match_reads_of_the_whole_text() {
        let texts = [
            "a: 1\nb: 2\nc:\n  - d\n  - e\nf: 3\n",
            "a: 1\r\nb: 2\r\nc: 3\r\nd: 4",
            "a: 1\rb: 2\rc: 3\r\rd: 4\r",
            "only: line",
            "\n\n\nx: 1\n\n",
        ];
        let mut compared = 0;
        for text in texts {
            let mut lined = LinedSource::lines_of("t.yaml", text);
            lined.windows.push((0, text.to_string()));
            for offset in 0..=text.len() {
                for len in [0, 1, 3, 7] {
                    for context in 0..3 {
                        let span = SourceSpan::new(offset.into(), len);
                        let ours = lined.read_span(&span, context, context);
                        let theirs = text.read_span(&span, context, context);
                        let (Ok(ours), Ok(theirs)) = (ours, theirs) else {
                            continue;
                        };
                        let what = format!("{text:?} at {offset}+{len}, context {context}");
                        assert_eq!(ours.data(), theirs.data(), "{what}");
                        assert_eq!(ours.span(), theirs.span(), "{what}");
                        assert_eq!(ours.line(), theirs.line(), "{what}");
                        assert_eq!(ours.column(), theirs.column(), "{what}");
                        assert_eq!(ours.line_count(), theirs.line_count(), "{what}");
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 500, "{compared}");
    }

    /// The guard against drawing cost growing with the file: a finding near the end of a long
    /// file reads a window of a few lines, not the text before it.
    #[test]
    fn a_read_touches_only_the_lines_around_the_span() {
        let text: String = (0..100_000).map(|i| format!("k{i}: {i}\n")).collect();
        let offset = text.len() - 20;
        let mut lined = LinedSource::lines_of("t.yaml", &text);
        lined.windows.push((0, text));
        let contents = lined
            .read_span(&SourceSpan::new(offset.into(), 3), 2, 2)
            .unwrap();
        assert!(contents.data().len() < 100, "{}", contents.data().len());
        // The span is on line 99,998 (from 0); two lines of context before it.
        assert_eq!(contents.line(), 99_996);
    }
}

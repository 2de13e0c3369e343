//! `--format human`: the resolved IP plan of each file, then each finding drawn by miette with the
//! YAML around it, then a summary. The only user of miette.

use super::{FileReport, Located, Totals, findings_summary};
use crate::diagnostic::Severity;
use crate::escape;
use crate::plan::releases::kubernetes;
use crate::plan::{Plan, SubnetSource, address};
use crate::spec::{Os, Spec};
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};
use std::borrow::Cow;
use std::fmt::{self, Write as _};
use std::io;

/// How to draw: colour and width are decided once by the caller (terminal, `NO_COLOR`).
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
    pub width: usize,
    /// Show the plan as well as the findings.
    pub show_plan: bool,
}

pub fn render(reports: &[FileReport], style: Style) -> String {
    let mut all = String::new();
    let _ = write(reports, style, &mut |piece: &str| {
        all.push_str(piece);
        Ok(())
    });
    all
}

/// The report as [`render`] gives it, handed to `sink` a piece at a time: at 65,536 nodes the
/// whole text is 12 MB, more than the rest of the report needs. Every piece ends a line, and
/// [`escape::no_workflow_commands`] works line by line, so the pieces join into the same bytes.
/// Stops at the first error of `sink` and returns it.
pub fn write(
    reports: &[FileReport],
    style: Style,
    sink: &mut dyn FnMut(&str) -> io::Result<()>,
) -> io::Result<()> {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        // Messages and helps come wrapped (`wrapped`): never inside a `code span`, which a
        // reader copies whole.
        .with_wrap_lines(false)
        .with_links(false)
        .with_context_lines(CONTEXT_LINES);
    let mut out = Pieces::new(sink);
    for report in reports {
        if style.show_plan {
            if let Some(planned) = report.planned {
                push_plan_text(&mut out, report.name(), planned.spec, planned.plan)?;
                push_artifacts(&mut out, planned.artifacts.artifact_paths())?;
                out.text.push('\n');
            }
        }
        // The masked copy of the text is made only when a finding will show part of it; what a
        // terminal would act on in it is shown as `?`, byte for byte.
        if report.unsuppressed().next().is_some() {
            let source = LinedSource::shown(report);
            for finding in report.unsuppressed() {
                let drawn = Drawn {
                    finding,
                    source: &source,
                    width: style.width,
                };
                let mut text = String::new();
                if handler.render_report(&mut text, &drawn).is_ok() {
                    out.text.push_str(&text);
                    // Where the rule is explained: its fix, why it matters and its sources.
                    let code = finding.diagnostic.rule.code;
                    let _ = writeln!(out.text, "  see: hybridgen explain {code}\n");
                    out.line_end()?;
                }
            }
        }
        for omitted in &report.omitted {
            out.text.push_str(&format!(
                "{}: and {} more {} findings not shown ({} a file at most)\n\n",
                escape::inline(report.name()),
                omitted.errors + omitted.warnings,
                omitted.code,
                super::SHOWN_PER_CODE
            ));
        }
        if reports.len() > 1 {
            let summary = findings_summary(
                report.count(Severity::Error),
                report.count(Severity::Warning),
            );
            let _ = writeln!(out.text, "{}: {summary}", escape::inline(report.name()));
        }
        out.line_end()?;
    }
    out.text.push_str(&Totals::of(reports).summary());
    out.text.push('\n');
    out.flush()
}

/// About how much text is handed on at once.
const PIECE: usize = 64 * 1024;

/// The report's text on its way out: written into `text`, handed to the sink once a line ends
/// past [`PIECE`] bytes, each piece escaped on its own.
struct Pieces<'s> {
    text: String,
    sink: &'s mut dyn FnMut(&str) -> io::Result<()>,
}

impl<'s> Pieces<'s> {
    fn new(sink: &'s mut dyn FnMut(&str) -> io::Result<()>) -> Self {
        Pieces {
            text: String::with_capacity(PIECE + PIECE / 4),
            sink,
        }
    }

    /// Called where a line has just ended: a piece only ever holds whole lines.
    fn line_end(&mut self) -> io::Result<()> {
        if self.text.len() >= PIECE {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        // The escaped text is the same string when nothing needed escaping: its room is kept.
        let shown = escape::no_workflow_commands(std::mem::take(&mut self.text));
        let written = (self.sink)(&shown);
        self.text = shown;
        self.text.clear();
        written
    }
}

/// The resolved plan of one spec: settings with defaults applied, each node, and the routes,
/// written at the end of `out`.
fn push_plan_text(out: &mut Pieces, name: &str, spec: &Spec, plan: &Plan) -> io::Result<()> {
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
    out.text.push_str(&format!(
        "{}: cluster `{}`, Kubernetes {}, DNS domain {}\n",
        escape::inline(name),
        escape::bounded(&spec.metadata.name, 200),
        escape::bounded(&kubernetes, 100),
        escape::bounded(&plan.dns_domain, 200)
    ));
    out.text.push_str(&distribution_text(plan));
    out.text.push_str(&kubernetes_end_of_life_text(plan));
    let dns = match &plan.dns_service_ip {
        Some(Ok(ip)) => ip.to_string(),
        _ => "(none)".to_string(),
    };
    out.text.push_str(&format!(
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
    out.text.push_str(&format!(
        "  flannel {flannel_version} ({backend}), Windows network `{}`, cloud {}\n\n",
        escape::bounded(&flannel.network_name, 200),
        spec.provider().as_str()
    ));
    push_node_table(out, plan)?;
    out.text.push_str(&subnet_legend(plan));
    out.text
        .push_str(&format!("\n  routes ({}):\n", plan.routes.len()));
    // Written in place: at 65,536 nodes this text is 5 MB, and a `format!` per route and cell
    // would make a string for each only to copy it.
    for route in &plan.routes {
        let node = &plan.nodes[route.node];
        let how = match (flannel.backend, node.os) {
            (crate::spec::Backend::HostGw, _) => "host-gw",
            (_, Os::Windows) => "vxlan, Windows overlay",
            _ => "vxlan",
        };
        let text = &mut out.text;
        text.push_str("    ");
        address::push_net(text, &route.destination);
        text.push_str(" via ");
        address::push_ip(text, route.next_hop);
        text.push_str(" (");
        escape::push_bounded(text, &node.name, 100);
        let _ = writeln!(
            text,
            ", {how}, {} addresses)",
            address::size(&route.destination)
        );
        out.line_end()?;
    }
    Ok(())
}

const NODE_COLUMNS: [&str; 6] = [
    "NODE",
    "OS",
    "ADDRESS",
    "POD SUBNET",
    "SUBNET",
    "POD ADDRESSES",
];

/// One row per node, each column as wide as its widest cell, written at the end of `out`. Every
/// cell is first written into one string and a row keeps where its cells end: the table costs two
/// allocations, not six a node.
fn push_node_table(out: &mut Pieces, plan: &Plan) -> io::Result<()> {
    let mut cells = String::with_capacity(plan.nodes.len() * 64);
    let mut rows: Vec<[usize; 6]> = Vec::with_capacity(plan.nodes.len() + 1);
    let mut ends = [0; 6];
    for (end, title) in ends.iter_mut().zip(NODE_COLUMNS) {
        cells.push_str(title);
        *end = cells.len();
    }
    rows.push(ends);
    for node in &plan.nodes {
        escape::push_bounded(&mut cells, &node.name, 100);
        ends[0] = cells.len();
        cells.push_str(node.os.as_str());
        ends[1] = cells.len();
        match node.address {
            Ok(ip) => address::push_ip(&mut cells, ip),
            Err(_) => cells.push_str("(invalid)"),
        }
        ends[2] = cells.len();
        match &node.pod_subnet {
            Some(subnet) => address::push_net(&mut cells, subnet),
            None => cells.push_str("(none)"),
        }
        ends[3] = cells.len();
        cells.push_str(match node.pod_subnet {
            Some(_) => node.subnet_source.as_str(),
            None => "-",
        });
        ends[4] = cells.len();
        let _ = match node.pod_subnet {
            Some(_) => write!(cells, "{}", node.usable_pod_addresses),
            None => cells.write_str("-"),
        };
        ends[5] = cells.len();
        rows.push(ends);
    }
    let row_cells = |row: usize| {
        let start = if row == 0 { 0 } else { rows[row - 1][5] };
        let mut from = start;
        rows[row].map(|end| {
            let cell = &cells[from..end];
            from = end;
            cell
        })
    };
    let mut widths = [0; 6];
    for row in 0..rows.len() {
        for (width, cell) in widths.iter_mut().zip(row_cells(row)) {
            *width = (*width).max(cell.chars().count());
        }
    }
    for row in 0..rows.len() {
        let [first @ .., last] = row_cells(row);
        let text = &mut out.text;
        text.push_str("  ");
        for (cell, width) in first.into_iter().zip(widths) {
            text.push_str(cell);
            let pad = width - cell.chars().count() + 2;
            text.extend(std::iter::repeat_n(' ', pad));
        }
        // The last cell is a count or `-`: what the row ends with is never padding.
        text.push_str(last);
        text.push('\n');
        out.line_end()?;
    }
    Ok(())
}

/// The distribution when it is not kubeadm: RKE2's release, what it bundles and how the nodes
/// join; RKE1's end of life.
fn distribution_text(plan: &Plan) -> String {
    let traits = plan.distribution;
    if let Some(end) = &traits.end_of_life {
        return format!(
            "  {}: end of life since {}; move to {}\n",
            traits.title, end.date, end.successor
        );
    }
    let Some(rke2) = &plan.rke2 else {
        return String::new();
    };
    let release = match &rke2.release {
        Ok(release) => {
            let bundled = release.flannel().map_or_else(
                || "no flannel".to_string(),
                |bundled| {
                    format!(
                        "rke2-flannel chart {}, Windows flanneld v{}",
                        bundled.chart_tag(),
                        bundled.windows_flanneld
                    )
                },
            );
            format!("{} ({bundled})", release.tag)
        }
        Err(_) => "(invalid release)".to_string(),
    };
    let joins = match (&rke2.rancher, &rke2.join_address) {
        (Some(rancher), _) => format!(
            ", nodes register with Rancher {}",
            escape::bounded(&rancher.url, 200)
        ),
        (None, Some(Ok(address))) => format!(
            ", nodes join https://{address}:{}",
            crate::plan::rke2::SUPERVISOR_PORT
        ),
        (None, _) => String::new(),
    };
    format!("  {} {release}{joins}\n", traits.title)
}

/// The Kubernetes minor's end of life, when the release table says it has ended: an
/// informational line like RKE1's, since hybridgen plans clusters of every era.
fn kubernetes_end_of_life_text(plan: &Plan) -> String {
    let Some(end) = plan
        .kubernetes_version
        .as_ref()
        .ok()
        .and_then(kubernetes::end_of_life)
    else {
        return String::new();
    };
    let maintained = end.oldest_maintained.map_or_else(String::new, |minor| {
        format!("; the oldest maintained minor is 1.{minor}")
    });
    format!(
        "  Kubernetes 1.{}: end of life since {} ({}){maintained}\n",
        end.minor,
        end.date,
        kubernetes::RELEASES_PAGE
    )
}

/// What the SUBNET column means, for the kinds the table shows.
fn subnet_legend(plan: &Plan) -> String {
    const MEANINGS: [(SubnetSource, &str); 4] = [
        (
            SubnetSource::Predicted,
            "kube-controller-manager assigns it as nodes register; this is the node's only if they register in spec order",
        ),
        (
            SubnetSource::Assigned,
            "the plan's, set on the node by pod-cidrs/assign.sh (`podCidrs: hybridgen`)",
        ),
        (SubnetSource::Pinned, "the node's `podCidr`"),
        (
            SubnetSource::Live,
            "the node's `spec.podCIDR` in the cluster",
        ),
    ];
    MEANINGS
        .into_iter()
        .filter(|(source, _)| plan.nodes.iter().any(|node| node.subnet_source == *source))
        .map(|(source, meaning)| format!("  {}: {meaning}\n", source.as_str()))
        .collect()
}

fn push_artifacts(out: &mut Pieces, artifacts: &[String]) -> io::Result<()> {
    if artifacts.is_empty() {
        out.text
            .push_str("\n  render writes nothing while the spec has errors\n");
        return Ok(());
    }
    let _ = writeln!(out.text, "\n  render writes ({}):", artifacts.len());
    for path in artifacts {
        out.text.push_str("    ");
        escape::push_inline(&mut out.text, path);
        out.text.push('\n');
        out.line_end()?;
    }
    Ok(())
}

/// The text findings are drawn from, with its line starts found once: miette's `SourceCode` for a
/// string counts lines from the top of the file on every read, which made 8,192 findings in a
/// 65,536-node spec take minutes. Here each read hands miette only the lines around its span.
struct LinedSource<'a> {
    name: String,
    text: String,
    /// Where each line starts, a line ending at `\n`, `\r\n` or a lone `\r`, as miette counts;
    /// the file's own index, borrowed (megabytes for a large spec).
    line_starts: Cow<'a, [usize]>,
}

/// Lines of context miette shows above and below a finding.
const CONTEXT_LINES: usize = 1;

impl<'a> LinedSource<'a> {
    /// The lines a report's findings show, as [`FileReport::shown_text`] gives them, under the
    /// report's name as a terminal may get it.
    fn shown(report: &'a FileReport) -> Self {
        let source = &report.file.source;
        // Every label of a finding, and what lies between them: miette draws labels that are
        // close in one snippet.
        let labelled: Vec<std::ops::Range<usize>> = report
            .unsuppressed()
            .map(|finding| {
                let spans = std::iter::once(&finding.primary.span)
                    .chain(finding.secondary.iter().map(|(place, _)| &place.span));
                let start = spans.clone().map(|span| span.start).min().unwrap_or(0);
                let end = spans.map(|span| span.end).max().unwrap_or(0);
                start..end
            })
            .collect();
        // The text shown ends with the last window: the line starts up to there are all it needs.
        // They are the file's own: a lone `\r` is shown as `?`, never a break.
        let last_line = labelled
            .iter()
            .map(|span| span.start.max(span.end.saturating_sub(1)))
            .max()
            .unwrap_or(0);
        let shown_end = source.end_of_line_below(last_line, CONTEXT_LINES + 1);
        let line_starts = source.line_starts_to(shown_end);
        let windows: Vec<std::ops::Range<usize>> = labelled
            .into_iter()
            .map(|span| {
                lines_around(
                    &line_starts,
                    shown_end,
                    span,
                    (CONTEXT_LINES, CONTEXT_LINES),
                )
            })
            .collect();
        LinedSource {
            name: escape::inline(report.name()),
            text: report.shown_text(&windows),
            line_starts,
        }
    }

    /// Any text, its lines broken as miette breaks them, `\r` alone included: what the tests
    /// compare with miette's own reading (a shown text holds no `\r` that breaks a line).
    #[cfg(test)]
    fn new(name: &str, text: String) -> Self {
        let bytes = text.as_bytes();
        let breaks = memchr::memchr2_iter(b'\n', b'\r', bytes)
            .filter(|&at| bytes[at] == b'\n' || bytes.get(at + 1) != Some(&b'\n'));
        let line_starts = Cow::Owned(std::iter::once(0).chain(breaks.map(|at| at + 1)).collect());
        LinedSource {
            name: name.to_string(),
            text,
            line_starts,
        }
    }

    /// A span on a line longer than `LONG_LINE`: only `SNIPPET_REACH` bytes each side of it, and
    /// no context lines, so that a finding in a one-line capture of megabytes quotes a few
    /// hundred bytes, not the line.
    fn read_long_line(
        &self,
        span: &SourceSpan,
    ) -> Result<Option<Box<dyn SpanContents<'_> + '_>>, MietteError> {
        const LONG_LINE: usize = 1024;
        let offset = span.offset().min(self.text.len());
        let line = line_of(&self.line_starts, offset);
        let line_start = self.line_starts[line];
        let line_end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |&next| next.min(self.text.len()));
        if line_end - line_start <= LONG_LINE {
            return Ok(None);
        }
        let reach = span.len().min(SNIPPET_REACH);
        let mut from = offset.saturating_sub(SNIPPET_REACH).max(line_start);
        while !self.text.is_char_boundary(from) {
            from -= 1;
        }
        let mut to = (offset + reach + SNIPPET_REACH).min(line_end);
        while !self.text.is_char_boundary(to) {
            to += 1;
        }
        let local = SourceSpan::new((offset - from).into(), reach.min(to - offset));
        self.read_window(from..to, line, &local, (0, 0)).map(Some)
    }

    /// miette's reading of `local` in the bytes `window` as if they were the whole file, shifted
    /// back to where the window stands: `first_line` lines and `window.start` bytes in.
    fn read_window(
        &self,
        window: std::ops::Range<usize>,
        first_line: usize,
        local: &SourceSpan,
        (before, after): (usize, usize),
    ) -> Result<Box<dyn SpanContents<'_> + '_>, MietteError> {
        let start = window.start;
        let bytes = &self.text.as_bytes()[window];
        let contents = bytes.read_span(local, before, after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            contents.data(),
            SourceSpan::new(
                (contents.span().offset() + start).into(),
                contents.span().len(),
            ),
            contents.line() + first_line,
            contents.column(),
            contents.line_count() + first_line,
        )))
    }
}

/// The bytes `read_span` hands miette for a span: from a line before the first context line to
/// a line past the last one.
fn lines_around(
    line_starts: &[usize],
    text_len: usize,
    span: std::ops::Range<usize>,
    (before, after): (usize, usize),
) -> std::ops::Range<usize> {
    let first = line_of(line_starts, span.start).saturating_sub(before + 1);
    let last = line_of(line_starts, span.start.max(span.end.saturating_sub(1))) + after + 2;
    // The shown text ends with the last window: line starts past it are clamped to its end.
    let start = line_starts
        .get(first)
        .map_or(0, |&start| start.min(text_len));
    let end = line_starts
        .get(last)
        .map_or(text_len, |&end| end.min(text_len));
    start..end.max(start)
}

/// The index of the line that holds byte `offset`.
fn line_of(line_starts: &[usize], offset: usize) -> usize {
    line_starts
        .partition_point(|&start| start <= offset)
        .saturating_sub(1)
}

impl SourceCode for LinedSource<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        if let Some(cut) = self.read_long_line(span)? {
            return Ok(cut);
        }
        // From a line before the first context line to a line past the last one: miette reads the
        // window as it would the whole file, and its answer is shifted back by the lines above
        // the window. (The extra line keeps a span from starting the window, where miette's
        // reading of an empty span differs.)
        let context = (context_lines_before, context_lines_after);
        let window = lines_around(
            &self.line_starts,
            self.text.len(),
            span.offset()..span.offset() + span.len(),
            context,
        );
        let first = line_of(&self.line_starts, window.start);
        let local = SourceSpan::new(
            (span.offset().saturating_sub(window.start)).into(),
            span.len(),
        );
        self.read_window(window, first, &local, context)
    }
}

/// The most bytes of a line a snippet shows on each side of a finding's span, and the most of
/// the span itself it underlines: a capture is often one line of megabytes.
const SNIPPET_REACH: usize = 160;

/// A span cut to what a snippet underlines.
fn shown_span(span: &std::ops::Range<usize>) -> SourceSpan {
    SourceSpan::new(span.start.into(), span.len().min(SNIPPET_REACH))
}

/// A finding as miette draws it.
struct Drawn<'a> {
    finding: &'a Located<'a>,
    source: &'a LinedSource<'a>,
    /// The terminal's width: miette keeps two columns free, and puts `  × ` before the message
    /// and `  help: ` before the help.
    width: usize,
}

/// Columns miette puts before each line of the message (`  × `, `  │ `) and of the help.
const MESSAGE_INDENT: usize = 4;
const HELP_INDENT: usize = 8;

/// The text broken into lines of at most `width` characters, at spaces outside backticks only:
/// a `code span` (a command, a value, a node name) is never cut, so that it can be copied whole.
/// A word longer than the line stands on a line of its own.
fn wrapped(text: &str, width: usize) -> String {
    let width = width.max(20);
    let mut out = String::with_capacity(text.len() + 8);
    for (index, paragraph) in text.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        // Words: runs between the spaces a line may break at.
        let mut words: Vec<&str> = Vec::new();
        let mut in_code = false;
        let mut start = 0;
        for (at, character) in paragraph.char_indices() {
            match character {
                '`' => in_code = !in_code,
                ' ' if !in_code => {
                    words.push(&paragraph[start..at]);
                    start = at + 1;
                }
                _ => {}
            }
        }
        words.push(&paragraph[start..]);
        let mut line = 0;
        for (position, word) in words.into_iter().enumerate() {
            let length = word.chars().count();
            if position > 0 {
                if line > 0 && line + 1 + length > width {
                    out.push('\n');
                    line = 0;
                } else {
                    out.push(' ');
                    line += 1;
                }
            }
            out.push_str(word);
            line += length;
        }
    }
    out
}

/// A message, help or label as the terminal gets it: cut short, every control character shown.
fn terminal_text(text: &str) -> String {
    escape::inline(&super::shown_text(text))
}

impl fmt::Debug for Drawn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&terminal_text(&self.finding.diagnostic.message))
    }
}

impl fmt::Display for Drawn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = terminal_text(&self.finding.diagnostic.message);
        let width = self.width.saturating_sub(2 + MESSAGE_INDENT);
        f.write_str(&wrapped(&message, width))
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
        self.finding.diagnostic.help.as_ref().map(|help| {
            let width = self.width.saturating_sub(2 + HELP_INDENT);
            Box::new(wrapped(&terminal_text(help), width)) as Box<dyn fmt::Display>
        })
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let primary = &self.finding.primary;
        let text = &self.finding.diagnostic.primary.text;
        let primary = LabeledSpan::new_primary_with_span(
            (!text.is_empty()).then(|| terminal_text(text)),
            shown_span(&primary.span),
        );
        let secondary = self.finding.secondary.iter().map(|(place, text)| {
            LabeledSpan::new_with_span(Some(terminal_text(text)), shown_span(&place.span))
        });
        Some(Box::new(std::iter::once(primary).chain(secondary)))
    }
}

/// A change plan as text: each step numbered, with its class, nodes, files, the versions after
/// it, its source and its commands; then what the render adds, changes and no longer writes.
pub fn change_plan(plan: &crate::change::ChangePlan, from: &str, to: &str) -> String {
    let mut out = format!(
        "change plan: {} -> {} ({})\n",
        escape::inline(from),
        escape::inline(to),
        super::counted(plan.steps.len(), "step")
    );
    for note in &plan.notes {
        out.push_str(&format!("note: {}\n", escape::inline(note)));
    }
    for (index, step) in plan.steps.iter().enumerate() {
        out.push_str(&format!(
            "\n{:>2}. {}\n    action:   {}\n",
            index + 1,
            escape::inline(&step.title),
            step.action.as_str()
        ));
        if !step.nodes.is_empty() {
            out.push_str(&format!("    nodes:    {}\n", inline_list(&step.nodes)));
        }
        if !step.files.is_empty() {
            out.push_str(&format!("    files:    {}\n", inline_list(&step.files)));
        }
        if let Some(versions) = &step.versions {
            out.push_str(&format!("    after:    {}\n", versions_text(versions)));
        }
        if let Some(rule) = step.rule {
            out.push_str(&format!("    rule:     {rule}\n"));
        }
        out.push_str(&format!("    source:   {}\n", step.source));
        for command in &step.commands {
            out.push_str(&format!("      - {}\n", escape::inline(command)));
        }
    }
    out.push_str(&files_text(&plan.files));
    escape::no_workflow_commands(out)
}

fn inline_list(items: &[String]) -> String {
    items
        .iter()
        .map(|item| escape::inline(item))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `kube-apiserver 1.34.9; kubelet: control plane 1.34.9, Windows 1.33.4; ...`.
pub fn versions_text(state: &crate::change::VersionState) -> String {
    use crate::change::Component;
    [
        (Component::ApiServer, "kube-apiserver"),
        (Component::Kubelet, "kubelet"),
        (Component::KubeProxy, "kube-proxy"),
        (Component::Containerd, "containerd"),
    ]
    .into_iter()
    .filter_map(|(component, name)| {
        let groups: Vec<String> = state
            .running
            .iter()
            .filter(|running| running.component == component)
            .map(|running| match component {
                Component::ApiServer => running.version.to_string(),
                _ => format!("{} {}", running.group, running.version),
            })
            .collect();
        (!groups.is_empty()).then(|| format!("{name} {}", groups.join(", ")))
    })
    .collect::<Vec<_>>()
    .join("; ")
}

fn files_text(files: &crate::change::files::FileChanges) -> String {
    if let Some(reason) = &files.unrendered {
        return format!(
            "\nrendered files: not compared, {}\n",
            escape::inline(reason)
        );
    }
    let mut out = format!(
        "\nrendered files: {} added, {} changed, {} no longer written\n",
        files.added.len(),
        files.changed.len(),
        files.removed.len()
    );
    for path in &files.removed {
        out.push_str(&format!(
            "  no longer written: {} (delete what it applied)\n",
            escape::inline(path)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Review §1e: lines break at spaces outside backticks only, so a command or a node name in
    /// a help is never cut (it was: `kubeadm token create --print-join-` / `command`).
    #[test]
    fn wrapping_never_cuts_a_code_span() {
        let help = "copy the join token (e.g. from `kubeadm token create --print-join-command`) into the variable `KUBEADM_TOKEN` on `ip-10-20-0-31-eu-west-1-compute-internal` before rendering";
        for width in 20..100 {
            let text = wrapped(help, width);
            for line in text.lines() {
                assert_eq!(line.matches('`').count() % 2, 0, "{width}: {text}");
                assert!(
                    line.chars().count() <= width || !line.contains(' ') || line.starts_with('`'),
                    "{width}: {line:?}"
                );
            }
            assert_eq!(text.replace('\n', " "), help, "{width}");
        }
    }

    /// Columns are as wide as their widest cell counted in characters, a name is escaped and cut
    /// as everywhere else, and no row ends in padding.
    #[test]
    fn the_node_table_pads_by_characters_and_escapes_names() {
        let long = "n".repeat(120);
        let yaml = format!(
            "apiVersion: hybridgen/v1
kind: Cluster
metadata: {{name: demo}}
kubernetes: {{version: \"1.30.2\"}}
network: {{clusterCidr: 10.244.0.0/16, serviceCidr: 10.96.0.0/12}}
flannel: {{backend: vxlan}}
nodes:
  - {{name: ctrl, os: linux, roles: [controlplane, etcd], address: 192.168.10.10}}
  - {{name: \"wörker\\e[2J\", os: linux, roles: [worker], address: 192.168.10.200}}
  - {{name: {long}, os: windows, roles: [worker], address: 192.168.10.7, podCidr: 10.244.9.0/24}}
"
        );
        let spec: Spec = serde_yaml::from_str(&yaml).unwrap();
        let plan = Plan::build(&spec);
        let mut table = String::new();
        let mut sink = |piece: &str| {
            table.push_str(piece);
            Ok(())
        };
        let mut out = Pieces::new(&mut sink);
        push_node_table(&mut out, &plan).unwrap();
        out.flush().unwrap();
        let cut = format!("{}… (20 more characters)", "n".repeat(100));
        let pad = |text: &str, width: usize| {
            format!("{text}{}", " ".repeat(width - text.chars().count()))
        };
        let width = cut.chars().count() + 2;
        let expected = [
            (
                "NODE",
                "OS       ",
                "ADDRESS         ",
                "POD SUBNET     ",
                "SUBNET     ",
                "POD ADDRESSES",
            ),
            (
                "ctrl",
                "linux    ",
                "192.168.10.10   ",
                "10.244.0.0/24  ",
                "predicted  ",
                "253",
            ),
            (
                "wörker\\e[2J",
                "linux    ",
                "192.168.10.200  ",
                "10.244.1.0/24  ",
                "predicted  ",
                "253",
            ),
            (
                cut.as_str(),
                "windows  ",
                "192.168.10.7    ",
                "10.244.9.0/24  ",
                "pinned     ",
                "252",
            ),
        ]
        .map(|(name, os, address, subnet, source, count)| {
            format!(
                "  {}{os}{address}{subnet}{source}{count}\n",
                pad(name, width)
            )
        })
        .concat();
        assert_eq!(table, expected);
    }

    /// A minor past its end of life gets a line with the date and where to move; a maintained
    /// one and a version that does not parse get none.
    #[test]
    fn the_plan_says_when_the_kubernetes_minor_has_ended() {
        let line = |version: &str| {
            let yaml = format!(
                "apiVersion: hybridgen/v1
kind: Cluster
metadata: {{name: demo}}
kubernetes: {{version: \"{version}\"}}
network: {{clusterCidr: 10.244.0.0/16, serviceCidr: 10.96.0.0/12}}
flannel: {{backend: vxlan}}
nodes:
  - {{name: ctrl, os: linux, roles: [controlplane, etcd], address: 192.168.10.10}}
"
            );
            let spec: Spec = serde_yaml::from_str(&yaml).unwrap();
            kubernetes_end_of_life_text(&Plan::build(&spec))
        };
        assert_eq!(
            line("1.33.13"),
            "  Kubernetes 1.33: end of life since 2026-06-28 (https://kubernetes.io/releases/); \
             the oldest maintained minor is 1.35\n"
        );
        assert_eq!(
            line("1.8.15"),
            "  Kubernetes 1.8: end of life since 2018-07-12 (https://kubernetes.io/releases/); \
             the oldest maintained minor is 1.35\n"
        );
        assert_eq!(line("1.35.4"), "");
        assert_eq!(line("1.36.4"), "");
        assert_eq!(line("1.x"), "");
    }

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
            let lined = LinedSource::new("t.yaml", text.to_string());
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
        let lined = LinedSource::new("t.yaml", text);
        let contents = lined
            .read_span(&SourceSpan::new(offset.into(), 3), 2, 2)
            .unwrap();
        assert!(contents.data().len() < 100, "{}", contents.data().len());
        // The span is on line 99,998 (from 0); two lines of context before it.
        assert_eq!(contents.line(), 99_996);
    }
}

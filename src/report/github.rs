//! `--format github`: GitHub Actions workflow commands, one line per finding, which GitHub shows
//! as annotations on the pull request.

use super::{FileReport, SHOWN_PER_CODE, shown_text};
use crate::escape;

pub fn render(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for report in reports {
        for finding in report.unsuppressed() {
            let diagnostic = finding.diagnostic;
            let command = diagnostic.severity.as_str();
            let place = &finding.primary;
            let title = format!("{} {}", diagnostic.rule.code, diagnostic.rule.name);
            // Each part on one line with its control characters shown; the line break between
            // them is the one `escape_data` encodes.
            let mut message = escape::inline(&shown_text(&diagnostic.message));
            if let Some(help) = &diagnostic.help {
                message.push_str("\nhelp: ");
                message.push_str(&escape::inline(&shown_text(help)));
            }
            out.push_str(&format!(
                "::{command} title={},file={},line={},col={},endLine={},endColumn={}::{}\n",
                escape_property(&title),
                escape_property(&escape::inline(report.name())),
                place.start.line,
                place.start.column,
                place.end.line,
                place.end.column,
                escape_data(&message)
            ));
        }
        for omitted in &report.omitted {
            out.push_str(&format!(
                "::notice title={},file={}::{}\n",
                escape_property(&format!("{} findings not shown", omitted.code)),
                escape_property(&escape::inline(report.name())),
                escape_data(&format!(
                    "and {} more {} findings in this file ({} a file at most)",
                    omitted.errors + omitted.warnings,
                    omitted.code,
                    SHOWN_PER_CODE
                ))
            ));
        }
    }
    out
}

/// Escapes a command's message (actions/toolkit `escapeData`).
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a command property (actions/toolkit `escapeProperty`).
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_command_text_is_escaped() {
        assert_eq!(escape_data("50%\nnext\r"), "50%25%0Anext%0D");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}

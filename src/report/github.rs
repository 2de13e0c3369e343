//! `--format github`: GitHub Actions workflow commands, one line per finding, which GitHub shows
//! as annotations on the pull request.

use super::FileReport;
use crate::diagnostic::Severity;

pub fn render(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for report in reports {
        for finding in &report.findings {
            let diagnostic = finding.diagnostic;
            let command = match diagnostic.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let place = &finding.primary;
            let title = format!("{} {}", diagnostic.rule.code, diagnostic.rule.name);
            let mut message = diagnostic.message.clone();
            if let Some(help) = &diagnostic.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            out.push_str(&format!(
                "::{command} title={},file={},line={},col={},endLine={},endColumn={}::{}\n",
                escape_property(&title),
                escape_property(report.name()),
                place.start.line,
                place.start.column,
                place.end.line,
                place.end.column,
                escape_data(&message)
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

//! `--format markdown`: for a pull-request comment. A change plan (`plan SPEC --from OLD`) as a
//! table of steps with each step's commands folded under it; findings as a table.

use super::{FileReport, Totals, shown_text};
use crate::change::ChangePlan;

/// The findings of every report as a Markdown table.
pub fn render(reports: &[FileReport]) -> String {
    let mut out = String::from("### hybridgen findings\n\n");
    push_findings(&mut out, reports);
    out.push_str(&format!("\n{}\n", Totals::of(reports).summary()));
    out
}

fn push_findings(out: &mut String, reports: &[FileReport]) {
    let rows: Vec<String> = reports
        .iter()
        .flat_map(|report| {
            report.unsuppressed().map(move |finding| {
                let diagnostic = finding.diagnostic;
                format!(
                    "| {} | {} | `{}:{}` | {} |\n",
                    diagnostic.severity.as_str(),
                    diagnostic.rule.code,
                    cell(report.name()),
                    finding.primary.start.line,
                    cell(&shown_text(&diagnostic.message))
                )
            })
        })
        .collect();
    if rows.is_empty() {
        out.push_str("No findings.\n");
        return;
    }
    out.push_str("| severity | rule | where | message |\n|---|---|---|---|\n");
    for row in rows {
        out.push_str(&row);
    }
}

/// A change plan and the new spec's findings, for a pull-request comment.
pub fn change_plan(plan: &ChangePlan, report: &FileReport, from: &str, to: &str) -> String {
    let mut out = format!(
        "### hybridgen change plan\n\n`{}` → `{}`: {}\n\n",
        code(from),
        code(to),
        super::counted(plan.steps.len(), "step")
    );
    for note in &plan.notes {
        out.push_str(&format!("> {}\n\n", cell(note)));
    }
    out.push_str("| # | step | action | nodes | source |\n|---|---|---|---|---|\n");
    for (index, step) in plan.steps.iter().enumerate() {
        let rule = step
            .rule
            .map_or_else(String::new, |rule| format!(" ({rule})"));
        out.push_str(&format!(
            "| {} | {}{rule} | {} | {} | <{}> |\n",
            index + 1,
            cell(&step.title),
            step.action.as_str(),
            code_list(&step.nodes),
            step.source
        ));
    }
    out.push('\n');
    for (index, step) in plan.steps.iter().enumerate() {
        if step.commands.is_empty() && step.files.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "<details><summary>{}. {}</summary>\n\n",
            index + 1,
            cell(&step.title)
        ));
        if let Some(versions) = &step.versions {
            out.push_str(&format!(
                "After this step: {}\n\n",
                cell(&super::human::versions_text(versions))
            ));
        }
        if !step.files.is_empty() {
            out.push_str(&format!("Files: {}\n\n", code_list(&step.files)));
        }
        if !step.commands.is_empty() {
            out.push_str("```text\n");
            for command in &step.commands {
                out.push_str(&fenced(command));
                out.push('\n');
            }
            out.push_str("```\n\n");
        }
        out.push_str("</details>\n\n");
    }
    let files = &plan.files;
    match &files.unrendered {
        Some(reason) => out.push_str(&format!(
            "Rendered files not compared: {}\n\n",
            cell(reason)
        )),
        None => out.push_str(&format!(
            "Rendered files: {} added, {} changed, {} no longer written.\n\n",
            files.added.len(),
            files.changed.len(),
            files.removed.len()
        )),
    }
    push_findings(&mut out, std::slice::from_ref(report));
    out
}

/// Text in a table cell: on one line, with what Markdown or HTML would read escaped. Balanced
/// backticks stay code spans, in which only `|` is escaped (GitHub's tables read `\|` there too).
fn cell(text: &str) -> String {
    let text = crate::escape::inline(text);
    let balanced = text.matches('`').count().is_multiple_of(2);
    let mut out = String::with_capacity(text.len());
    for (index, part) in text.split('`').enumerate() {
        if balanced && index % 2 == 1 {
            out.push('`');
            out.push_str(&part.replace('|', "\\|"));
            out.push('`');
        } else {
            if index > 0 && !balanced {
                out.push_str("\\`");
            }
            push_escaped(&mut out, part);
        }
    }
    out
}

fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '|' | '\\' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
}

/// Text inside backticks: a backtick in it cannot end the span.
fn code(text: &str) -> String {
    crate::escape::inline(text).replace('`', "'")
}

/// Each item in backticks, separated by commas.
fn code_list(items: &[String]) -> String {
    let items: Vec<String> = items
        .iter()
        .map(|item| format!("`{}`", code(item)))
        .collect();
    items.join(", ")
}

/// A line inside a fenced block: a line of three backticks cannot close it early.
fn fenced(text: &str) -> String {
    crate::escape::inline(text).replace("```", "'''")
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn cells_keep_code_spans_and_escape_the_rest() {
        assert_eq!(cell("node `a|b` <x>"), "node `a\\|b` \\<x\\>");
        assert_eq!(cell("odd ` tick_"), "odd \\` tick\\_");
        assert_eq!(cell("two\nlines"), "two\\\\nlines");
    }
}

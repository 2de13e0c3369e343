//! Inline suppressions, the way linters write them: a comment in the spec,
//!
//! ```yaml
//! # hybridgen: allow HG117 -- routes come from the cluster
//! podCidrs: controller
//! flannel: {backend: host-gw}   # hybridgen: allow HG315, HG207 -- a lab on one switch
//! # hybridgen: allow-file HG319 -- we test the next release here
//! ```
//!
//! On a line of its own a comment covers the next line that is not blank or a comment; after a
//! value it covers its own line; `allow-file` covers the whole file. A code or a rule name may be
//! given, several separated by commas, and the reason after `--` is required. A suppressed finding
//! is kept, marked, so that JSON and SARIF show it as suppressed (SARIF 2.1.0 §3.27.23
//! `suppressions`, kind `inSource`) while the human and GitHub formats leave it out and the exit
//! code ignores it. A suppression that names no rule, gives no reason or covers no finding is
//! itself a finding (HG012), as ruff reports an unused `noqa`.

use crate::diagnostic::{Diagnostic, Location, Suppression};
use crate::load::LoadedFile;
use crate::rules::{self, input::INEFFECTIVE_SUPPRESSION};
use std::ops::Range;

const MARKER: &str = "hybridgen:";

/// One suppression comment of a file.
#[derive(Debug)]
struct Comment {
    /// The comment's bytes, where HG012 points.
    span: Range<usize>,
    /// The 1-based line it covers; `None` for the whole file.
    covers: Option<usize>,
    /// The codes it names, each resolved (`None` for a name that is no rule).
    codes: Vec<(String, Option<&'static str>)>,
    reason: String,
}

/// Marks the findings the file's comments suppress, and adds HG012 for every comment that names
/// no rule, gives no reason or suppresses nothing.
pub fn apply(file: &LoadedFile, mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let comments = comments(file.source.text());
    if comments.is_empty() {
        return diagnostics;
    }
    let mut used = vec![false; comments.len()];
    for diagnostic in &mut diagnostics {
        let line = file
            .source
            .position(file.span_of(&diagnostic.primary.location).start)
            .line;
        let found = comments.iter().enumerate().find(|(_, comment)| {
            !comment.reason.is_empty()
                && comment.covers.is_none_or(|covered| covered == line)
                && comment
                    .codes
                    .iter()
                    .any(|(_, code)| *code == Some(diagnostic.code()))
        });
        if let Some((index, comment)) = found {
            used[index] = true;
            diagnostic.suppression = Some(Suppression {
                justification: comment.reason.clone(),
            });
        }
    }
    for (comment, used) in comments.iter().zip(used) {
        if let Some(problem) = problem(comment, used) {
            diagnostics.push(
                Diagnostic::new(
                    &INEFFECTIVE_SUPPRESSION,
                    Location::Bytes(comment.span.clone()),
                    problem.0,
                )
                .label("this suppression")
                .help(problem.1),
            );
        }
    }
    diagnostics
}

/// What is wrong with a comment, as a message and a help, if anything.
fn problem(comment: &Comment, used: bool) -> Option<(String, String)> {
    if let Some((written, _)) = comment.codes.iter().find(|(_, code)| code.is_none()) {
        return Some((
            format!(
                "the suppression names `{}`, which is no rule",
                crate::escape::bounded(written, 40)
            ),
            "name a rule by its code or its name, as `hybridgen explain --list` lists them".into(),
        ));
    }
    if comment.codes.is_empty() {
        return Some((
            "the suppression names no rule".into(),
            "write `# hybridgen: allow HG117 -- why it does not apply here`".into(),
        ));
    }
    if comment.reason.is_empty() {
        return Some((
            "the suppression gives no reason, so it suppresses nothing".into(),
            "add the reason after ` -- `, e.g. `-- routes come from the cluster`".into(),
        ));
    }
    (!used).then(|| {
        let codes: Vec<&str> = comment
            .codes
            .iter()
            .map(|(written, _)| written.as_str())
            .collect();
        (
            format!(
                "the suppression of {} suppresses no finding",
                codes.join(", ")
            ),
            "remove it: nothing it names is found here any more".into(),
        )
    })
}

/// Every suppression comment of the text, in order.
fn comments(text: &str) -> Vec<Comment> {
    // Most specs carry no suppression; finding the marker is far cheaper than reading each line.
    if !text.contains(MARKER) {
        return Vec::new();
    }
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, line))
        })
        .collect();
    let mut found = Vec::new();
    for (index, (start, line)) in lines.iter().enumerate() {
        let Some(hash) = comment_start(line) else {
            continue;
        };
        let body = line[hash + 1..].trim();
        let Some(rest) = body.strip_prefix(MARKER) else {
            continue;
        };
        let rest = rest.trim_start();
        let (whole_file, rest) = if let Some(rest) = rest.strip_prefix("allow-file") {
            (true, rest)
        } else if let Some(rest) = rest.strip_prefix("allow") {
            (false, rest)
        } else {
            continue;
        };
        let (names, reason) = match rest.split_once("--") {
            Some((names, reason)) => (names, reason.trim()),
            None => (rest, ""),
        };
        let own_line = line[..hash].trim().is_empty();
        // A comment with nothing after it covers no line (0): reported as unused.
        let covers = if whole_file {
            None
        } else if own_line {
            Some(next_content_line(&lines, index).unwrap_or(0))
        } else {
            Some(index + 1)
        };
        found.push(Comment {
            span: start + hash..start + line.trim_end().len(),
            covers,
            codes: names
                .split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(|name| (name.to_string(), rules::find(name).map(|rule| rule.code)))
                .collect(),
            reason: reason.to_string(),
        });
    }
    found
}

/// The 1-based number of the first line after `index` that holds more than a comment.
fn next_content_line(lines: &[(usize, &str)], index: usize) -> Option<usize> {
    let after = lines[index + 1..].iter().position(|(_, line)| {
        let trimmed = line.trim();
        !trimmed.is_empty() && !trimmed.starts_with('#')
    })?;
    Some(index + 2 + after)
}

/// Where a YAML comment starts on a line: a `#` at its start or after white space, outside
/// quotes.
fn comment_start(line: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (at, c) in line.char_indices() {
        match quote {
            Some(open) if c == open => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && previous.is_whitespace() => return Some(at),
            None => {}
        }
        previous = c;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(text: &str) -> Vec<String> {
        comments(text)
            .iter()
            .map(|c| {
                let codes: Vec<String> = c
                    .codes
                    .iter()
                    .map(|(written, code)| format!("{written}={}", code.unwrap_or("?")))
                    .collect();
                format!("{:?} {} [{}]", c.covers, codes.join(","), c.reason)
            })
            .collect()
    }

    #[test]
    fn comments_cover_their_line_the_next_content_line_or_the_file() {
        let text = "a: 1\n# hybridgen: allow HG117 -- from the cluster\n\n# other\nb: 2 # hybridgen: allow pod-cidr-predicted, HG315 -- lab\n# hybridgen: allow-file HG319 -- next release\nc: \"# hybridgen: allow HG001 -- in a string\"\n";
        assert_eq!(
            summary(text),
            [
                "Some(5) HG117=HG117 [from the cluster]",
                "Some(5) pod-cidr-predicted=HG117,HG315=HG315 [lab]",
                "None HG319=HG319 [next release]",
            ]
        );
    }

    #[test]
    fn a_comment_without_reason_or_rule_is_kept_to_be_reported() {
        let text = "# hybridgen: allow HG117\nx: 1 # hybridgen: allow HG999 -- typo\n# hybridgen: allow -- nothing\n";
        assert_eq!(
            summary(text),
            [
                "Some(2) HG117=HG117 []",
                "Some(2) HG999=? [typo]",
                "Some(0)  [nothing]"
            ]
        );
        let problems: Vec<String> = comments(text)
            .iter()
            .filter_map(|c| problem(c, false).map(|p| p.0))
            .collect();
        assert_eq!(
            problems,
            [
                "the suppression gives no reason, so it suppresses nothing",
                "the suppression names `HG999`, which is no rule",
                "the suppression names no rule",
            ]
        );
    }
}

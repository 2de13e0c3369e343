//! YAML syntax errors in the words of the mistake behind them. The parser says where it gave up,
//! in its own terms: "mapping values are not allowed in this context", on the line after a key
//! that is out of line. The commonest mistakes in a hand-written spec — a key indented less or
//! more than its neighbours, a tab, no space after a colon, an unclosed quote, a value holding
//! `: ` — are recognised from the lines around that place and reported where the mistake is, with
//! the fix; anything else keeps the parser's words. A line out of line is found by trying the
//! lines around the parser's place at the columns of the lines above them: the fix offered is a
//! move with which the text loads (and, where the caller can tell, types as a spec).

use super::LoadError;
use crate::spec::secret_fields::SecretField;
use granit_parser::ErrorKind;

/// The mistake behind a parser error at byte `at` of `text`, when it is one of those above.
/// `loads` says whether a text loads (`None` when not) and whether its document is accepted: a
/// line moved to another indentation is offered as the fix only when the text loads with it.
pub(super) fn diagnose(
    text: &str,
    at: usize,
    kind: &ErrorKind,
    loads: &dyn Fn(&str) -> Option<bool>,
) -> Option<LoadError> {
    let lines = Lines::of(text);
    let line = lines.index_of(at);
    match kind {
        ErrorKind::MappingValueNotAllowed => value_holding_colon(&lines, line, at)
            .or_else(|| out_of_line(text, &lines, line, loads))
            .or_else(|| key_out_of_line(&lines, line)),
        ErrorKind::ExpectedBlockMappingKey => out_of_line(text, &lines, line, loads)
            .or_else(|| key_out_of_line(&lines, line))
            .or_else(|| key_between_blocks(&lines, line)),
        ErrorKind::ExpectedBlockSequenceEntry
        | ErrorKind::CommentInterceptedScalar
        | ErrorKind::InvalidIndentation
        | ErrorKind::ExpectedNodeContent
        | ErrorKind::ExpectedDocumentStart
        | ErrorKind::UnexpectedEofBlockSequence
        | ErrorKind::UnexpectedEofBlockMapping => out_of_line(text, &lines, line, loads),
        ErrorKind::TabInBlockIndentation
        | ErrorKind::TabInIndentation
        | ErrorKind::TabNotAllowed => tab_indent(&lines, line),
        ErrorKind::SimpleKeyExpected | ErrorKind::InvalidSimpleKey => {
            no_space_after_colon(&lines, line)
        }
        ErrorKind::UnclosedQuotedScalar
        | ErrorKind::InvalidQuotedScalarIndent
        | ErrorKind::DocumentIndicatorInQuotedScalar => unclosed_quote(&lines, line),
        _ => None,
    }
}

/// One line of the text, without its line break.
#[derive(Clone, Copy)]
struct Line<'a> {
    start: usize,
    text: &'a str,
    /// 1-based, as reports count.
    number: usize,
}

impl<'a> Line<'a> {
    /// Neither blank nor only a comment: a line the structure is read from.
    fn significant(&self) -> bool {
        let body = self.text.trim_start();
        !body.is_empty() && !body.starts_with('#')
    }

    /// The line's `key:` (after any `- `): its name and the byte where it starts in the line.
    fn key(&self) -> Option<(&'a str, usize)> {
        let body = self.text.trim_start_matches(' ');
        let mut column = self.text.len() - body.len();
        let mut rest = body;
        if let Some(item) = rest.strip_prefix("- ") {
            let item_body = item.trim_start_matches(' ');
            column += rest.len() - item_body.len();
            rest = item_body;
        }
        let end = rest.find(':')?;
        let name = &rest[..end];
        let after = &rest[end + 1..];
        let plain = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-./".contains(&b));
        (plain && (after.is_empty() || after.starts_with([' ', '\t']))).then_some((name, column))
    }

    /// What follows the line's `key:`, without a trailing comment.
    fn value(&self) -> Option<&'a str> {
        let (name, column) = self.key()?;
        let after = &self.text[column + name.len() + 1..];
        after.split(" #").next().map(str::trim)
    }

    /// A key whose value is a block on the lines below it.
    fn opens_block(&self) -> bool {
        self.value().is_some_and(str::is_empty)
    }

    /// The spaces before the line's first character.
    fn indent(&self) -> usize {
        self.text.len() - self.text.trim_start_matches(' ').len()
    }

    /// A list item: `- ` and what follows, or `-` alone.
    fn is_item(&self) -> bool {
        let body = self.text.trim_start_matches(' ');
        body == "-" || body.starts_with("- ")
    }

    /// The column its contents line up at: the key's (after any `- `), else the first character's.
    fn content_column(&self) -> usize {
        self.key()
            .map_or_else(|| self.indent(), |(_, column)| column)
    }

    /// The column of the lines inside it, when it opens a block: its key's plus two, or past
    /// its `-` when it is a `-` alone.
    fn child_column(&self) -> Option<usize> {
        if self.text.trim() == "-" {
            return Some(self.indent() + 2);
        }
        self.opens_block().then(|| self.content_column() + 2)
    }

    /// How a help names the line: `` `key:` ``, `` `- key:` `` for the first key of a list item.
    fn named(&self) -> Option<String> {
        let (key, _) = self.key()?;
        Some(if self.is_item() {
            format!("`- {key}:`")
        } else {
            format!("`{key}:`")
        })
    }
}

struct Lines<'a> {
    lines: Vec<Line<'a>>,
}

impl<'a> Lines<'a> {
    fn of(text: &'a str) -> Self {
        let mut start = 0;
        let lines = text
            .split('\n')
            .enumerate()
            .map(|(index, text)| {
                let line = Line {
                    start,
                    text: text.strip_suffix('\r').unwrap_or(text),
                    number: index + 1,
                };
                start += text.len() + 1;
                line
            })
            .collect();
        Lines { lines }
    }

    /// The index of the line that holds byte `at`.
    fn index_of(&self, at: usize) -> usize {
        self.lines
            .partition_point(|line| line.start <= at)
            .saturating_sub(1)
    }

    /// The nearest significant line before line `index`.
    fn significant_before(&self, index: usize) -> Option<usize> {
        (0..index).rev().find(|&i| self.lines[i].significant())
    }

    /// The significant line at `index`, or the nearest one before it: the parser often stops at
    /// the blank or comment lines after a mistake.
    fn significant_at_or_before(&self, index: usize) -> Option<usize> {
        (0..=index.min(self.lines.len().saturating_sub(1)))
            .rev()
            .find(|&i| self.lines[i].significant())
    }

    fn get(&self, index: usize) -> Line<'a> {
        self.lines[index]
    }
}

/// `key: a: b`: a plain value holding `: `, which YAML reads as a second key.
fn value_holding_colon(lines: &Lines, line: usize, at: usize) -> Option<LoadError> {
    let here = lines.get(line);
    let (name, column) = here.key()?;
    let value = here.value()?;
    let value_start =
        here.start + here.text[column + name.len() + 1..].find(value)? + column + name.len() + 1;
    (at > value_start && !value.is_empty() && !value.starts_with(['"', '\''])).then(|| {
        LoadError::new(
            value_start..value_start + value.len(),
            format!(
                "the value of `{name}` holds `: `, which YAML reads as the start of another key"
            ),
        )
        .help(if SecretField::is_secret_key(name) {
            format!("quote the value of `{name}` (it is a secret: better, take it `fromEnv`)")
        } else {
            format!("quote the value: `{name}: \"{value}\"`")
        })
    })
}

/// Most lines before and after the parser's place where the line out of line is looked for, and
/// the lines above it whose columns it may belong at.
const LINES_BEFORE: usize = 6;
const LINES_AFTER: usize = 2;
const COLUMNS_FROM: usize = 16;

/// Longest text a fix is searched for: each candidate loads the whole text again, so a larger
/// one (a spec of thousands of nodes, or a hostile file) keeps the simpler diagnosis, which
/// costs nothing.
const LONGEST_SEARCHED: usize = 1 << 20;

/// A duplicate key that a line out of line made: a key moved to the column where the text loads
/// as a document the caller accepts (two `fromEnv:` when `kubeadmCaHash:` is indented into
/// `kubeadmToken:`). A key written twice on purpose has no such move, and keeps its message.
pub(super) fn duplicate_by_indent(
    text: &str,
    at: usize,
    loads: &dyn Fn(&str) -> Option<bool>,
) -> Option<LoadError> {
    let lines = Lines::of(text);
    let accepted_only = |candidate: &str| loads(candidate).filter(|accepted| *accepted);
    out_of_line(text, &lines, lines.index_of(at), &accepted_only)
}

/// A line moved to another column, which makes the text load.
struct Reindent {
    /// Index of the line.
    line: usize,
    spaces: usize,
    /// The line above it that it then lines up with, and whether it is the key whose block it
    /// then belongs inside (rather than a key beside it).
    reference: Option<(usize, bool)>,
}

/// A key (or any line) indented less or more than the block it belongs to, found by trying the
/// lines around the parser's place at the columns of the lines above them: the move that makes
/// the text load, preferring one that lines the line up with a key above it and fits the line
/// below it. The help is then a fix that, applied as written, loads.
fn out_of_line(
    text: &str,
    lines: &Lines,
    at_line: usize,
    loads: &dyn Fn(&str) -> Option<bool>,
) -> Option<LoadError> {
    let significant: Vec<usize> = (0..lines.lines.len())
        .filter(|&i| lines.get(i).significant() && !lines.get(i).text.starts_with('\t'))
        .collect();
    let here = lines.significant_at_or_before(at_line)?;
    let position = significant.partition_point(|&i| i < here);
    let first = position.saturating_sub(LINES_BEFORE);
    let end = (position + LINES_AFTER + 1).min(significant.len());
    let mut columns: Vec<usize> = significant[position.saturating_sub(COLUMNS_FROM)..end]
        .iter()
        .flat_map(|&i| {
            let line = lines.get(i);
            [
                Some(line.indent()),
                Some(line.content_column()),
                line.child_column(),
            ]
        })
        .flatten()
        .chain([0])
        .collect();
    columns.sort_unstable();
    columns.dedup();
    if text.len() > LONGEST_SEARCHED {
        return None;
    }
    // (accepted, score, lines to the line it lines up with, distance from the parser's place,
    // columns moved, the move)
    let mut found: Vec<(bool, u8, usize, usize, usize, Reindent)> = Vec::new();
    for (position, &index) in significant.iter().enumerate().take(end).skip(first) {
        let line = lines.get(index);
        let body = &line.text[line.indent()..];
        let line_end = line.start + line.text.len();
        for &spaces in &columns {
            if spaces == line.indent() {
                continue;
            }
            let moved = format!(
                "{}{}{}{}",
                &text[..line.start],
                " ".repeat(spaces),
                body,
                &text[line_end..]
            );
            let Some(accepted) = loads(&moved) else {
                continue;
            };
            let reference = lined_up_with(lines, &significant, position, spaces);
            let score = u8::from(reference.is_some()) * 2
                + fits_next(lines, &significant, position, spaces);
            found.push((
                accepted,
                score,
                reference.map_or(usize::MAX, |(above, _)| index - above),
                index.abs_diff(here),
                spaces.abs_diff(line.indent()),
                Reindent {
                    line: index,
                    spaces,
                    reference,
                },
            ));
        }
    }
    found.sort_by(|a, b| {
        (b.0, b.1, a.2, a.3, a.4, a.5.line, a.5.spaces)
            .cmp(&(a.0, a.1, b.2, b.3, b.4, b.5.line, b.5.spaces))
    });
    let (.., fix) = found.into_iter().next()?;
    Some(reindent_error(lines, &significant, &fix))
}

/// The line above `significant[position]` that it lines up with at `spaces`: the line just
/// above when it opens the block the line then belongs inside, else a key (or, for a list item,
/// an item) in that column with nothing less indented between them.
fn lined_up_with(
    lines: &Lines,
    significant: &[usize],
    position: usize,
    spaces: usize,
) -> Option<(usize, bool)> {
    let line = lines.get(significant[position]);
    let previous_index = significant[position.checked_sub(1)?];
    let previous = lines.get(previous_index);
    // A list may start in its key's column (`nodes:` then `- name:` below it).
    let list_under_key = line.is_item() && !previous.is_item() && previous.opens_block();
    if previous.child_column() == Some(spaces)
        || (list_under_key && previous.content_column() == spaces)
    {
        return Some((previous_index, true));
    }
    for &index in significant[..position].iter().rev() {
        let above = lines.get(index);
        let lines_up = if line.is_item() {
            above.is_item() && above.indent() == spaces
        } else {
            above.key().is_some() && above.content_column() == spaces
        };
        if lines_up {
            return Some((index, false));
        }
        if above.indent() < spaces {
            return None;
        }
    }
    None
}

/// How well the line after `significant[position]` fits it moved to `spaces`: 2 when it lines up
/// with it (or is inside it, when it opens a block), 1 when there is none or it is less indented,
/// 0 when it no longer fits.
fn fits_next(lines: &Lines, significant: &[usize], position: usize, spaces: usize) -> u8 {
    let line = lines.get(significant[position]);
    let Some(next) = significant.get(position + 1).map(|&i| lines.get(i)) else {
        return 1;
    };
    let contents = spaces + line.content_column() - line.indent();
    let lines_up = if line.child_column().is_some() {
        next.indent() > spaces
    } else if line.is_item() {
        next.content_column() == contents || (next.is_item() && next.indent() == spaces)
    } else {
        next.content_column() == contents && !next.is_item()
    };
    if lines_up {
        2
    } else {
        u8::from(next.indent() < spaces)
    }
}

/// The finding for a line out of line, and the move that fixes it.
fn reindent_error(lines: &Lines, significant: &[usize], fix: &Reindent) -> LoadError {
    let line = lines.get(fix.line);
    let (from, to) = (line.indent(), fix.spaces);
    let start = line.start + from;
    let (span, subject) = match line.key() {
        Some((key, column)) => (start..line.start + column + key.len(), format!("`{key}`")),
        None => (
            start..line.start + line.text.trim_end().len(),
            format!("line {}", line.number),
        ),
    };
    let counts = format!("{}, not {to}", spaces(from));
    let previous = significant
        .iter()
        .rev()
        .find(|&&i| i < fix.line)
        .map(|&i| lines.get(i));
    let reference = fix.reference.map(|(index, inside)| {
        let above = lines.get(index);
        let name = above
            .named()
            .unwrap_or_else(|| format!("the `-` on line {}", above.number));
        (format!("{name} on line {}", above.number), inside)
    });
    let message = match (&reference, to > from) {
        (Some((above, true)), true) => format!(
            "{subject} is indented less than the block of {above} it belongs to ({counts}), so that block ends before it"
        ),
        (Some((above, true)), false) => {
            format!("{subject} is indented more than the block of {above} it belongs to ({counts})")
        }
        (Some((above, false)), true) => format!(
            "{subject} is indented less than {above}, the key it belongs beside ({counts}), so it ends the block they belong to"
        ),
        (_, false)
            if previous.is_some_and(|p| {
                p.value().is_some_and(|v| !v.is_empty()) && from > p.content_column()
            }) =>
        {
            let previous = previous.unwrap_or(line);
            let (key, _) = previous.key().unwrap_or_default();
            let value = if SecretField::is_secret_key(key) {
                "a value".to_string()
            } else {
                format!("`{}`", previous.value().unwrap_or_default())
            };
            format!(
                "{subject} is indented more than `{key}` on line {}, whose value is {value}, not a block a key can belong to",
                previous.number
            )
        }
        (Some((above, false)), false) => {
            format!("{subject} is indented more than {above}, the key it belongs beside ({counts})")
        }
        (None, _) => format!(
            "{subject} is indented {}, which fits no block around it; it loads at {to}",
            spaces(from)
        ),
    };
    let help = match (line.named(), &reference) {
        (None, _) => format!("indent line {} with {}", line.number, spaces(to)),
        (Some(named), Some((above, true))) if to > 0 => {
            format!("indent {named} by {}, to put it inside {above}", spaces(to))
        }
        (Some(named), Some((above, _))) if to == 0 => {
            format!("start {named} at the beginning of its line, like {above}")
        }
        (Some(named), Some((above, _))) => {
            format!("indent {named} by {}, to line up with {above}", spaces(to))
        }
        (Some(named), None) if to == 0 => format!("start {named} at the beginning of its line"),
        (Some(named), None) => format!("indent {named} by {}", spaces(to)),
    };
    LoadError::new(span, message).help(help)
}

/// `1 space`, `4 spaces`.
fn spaces(count: usize) -> String {
    if count == 1 {
        "1 space".to_string()
    } else {
        format!("{count} spaces")
    }
}

/// A key indented less than the lines around it (which ends the block it belongs to), or more
/// than the line before it when that line holds a value, not a block.
fn key_out_of_line(lines: &Lines, line: usize) -> Option<LoadError> {
    let line = lines.significant_at_or_before(line)?;
    let here = lines.get(line);
    let (key, column) = here.key()?;
    let before = lines.significant_before(line)?;
    let previous = lines.get(before);
    let (previous_key, previous_column) = previous.key()?;
    if previous.opens_block() {
        return None;
    }
    // The line before the previous one lines up with this one: the previous one is out of line.
    if let Some(sibling) = lines.significant_before(before).map(|i| lines.get(i)) {
        if let Some((sibling_key, sibling_column)) = sibling.key() {
            if sibling_column == column && previous_column < column && !sibling.opens_block() {
                let start = previous.start + previous_column;
                return Some(
                    LoadError::new(
                        start..start + previous_key.len(),
                        format!(
                            "`{previous_key}` is indented less than the keys around it ({previous_column} spaces, not {column}), so it ends the block they belong to and line {} no longer fits",
                            here.number
                        ),
                    )
                    .help(line_up(previous_key, column, sibling_key, Some(sibling.number))),
                );
            }
        }
    }
    (column > previous_column).then(|| {
        let start = here.start + column;
        LoadError::new(
            start..start + key.len(),
            format!(
                "`{key}` is indented more than `{previous_key}` on line {}, whose value is `{}`, not a block a key can belong to",
                previous.number,
                previous.value().unwrap_or_default()
            ),
        )
        .help(line_up(key, previous_column, previous_key, None))
    })
}

/// The fix for a key out of line: the indent it needs, and the key it then lines up with.
pub(crate) fn line_up(key: &str, spaces: usize, like: &str, line: Option<usize>) -> String {
    let like = match line {
        Some(line) => format!("`{like}:` on line {line}"),
        None => format!("`{like}:`"),
    };
    if spaces == 0 {
        format!("start `{key}:` at the beginning of its line, like {like}")
    } else {
        format!("indent `{key}:` by {spaces} spaces, to line up with {like}")
    }
}

/// A key in a column that lines up with no block above it (` kubernetes:` between top-level
/// keys in column 1 and their children in column 3).
fn key_between_blocks(lines: &Lines, line: usize) -> Option<LoadError> {
    let line = lines.significant_at_or_before(line)?;
    let here = lines.get(line);
    let (key, column) = here.key()?;
    // The nearest key above in a column to the left of this one: the block it most likely
    // belongs beside.
    let sibling = (0..line)
        .rev()
        .map(|i| lines.get(i))
        .filter(Line::significant)
        .find_map(|line| {
            line.key()
                .filter(|(_, found)| *found < column)
                .map(|(name, found)| (name, found, line.number))
        })?;
    let (sibling_key, sibling_column, sibling_line) = sibling;
    let start = here.start + column;
    Some(
        LoadError::new(
            start..start + key.len(),
            format!(
                "`{key}` starts in column {}, which lines up with no block above it",
                column + 1
            ),
        )
        .help(line_up(
            key,
            sibling_column,
            sibling_key,
            Some(sibling_line),
        )),
    )
}

/// A line indented with a tab, which YAML does not allow.
fn tab_indent(lines: &Lines, line: usize) -> Option<LoadError> {
    let index = (0..=line.min(lines.lines.len().saturating_sub(1)))
        .rev()
        .find(|&i| {
            lines.get(i).text.trim_end().starts_with([' ', '\t'])
                && lines.get(i).text.contains('\t')
        })?;
    let here = lines.get(index);
    let tab = here.text.find('\t')?;
    let start = here.start + tab;
    // Where the key most likely belongs: beside the key above, or inside it when it opens a
    // block.
    let spaces = lines.significant_before(index).map(|before| {
        let previous = lines.get(before);
        let column = previous.key().map_or(0, |(_, column)| column);
        if previous.opens_block() {
            column + 2
        } else {
            column
        }
    });
    let help = match spaces {
        Some(spaces) => format!(
            "indent line {} with {spaces} spaces instead of the tab",
            here.number
        ),
        None => format!("indent line {} with spaces instead of the tab", here.number),
    };
    Some(
        LoadError::new(
            start..start + 1,
            format!(
                "line {} is indented with a tab; YAML indents with spaces only",
                here.number
            ),
        )
        .help(help),
    )
}

/// `key:value`: with no space after the colon, YAML reads one plain word, not a key and its
/// value.
fn no_space_after_colon(lines: &Lines, line: usize) -> Option<LoadError> {
    let first = line.saturating_sub(1);
    (first..=line.min(lines.lines.len().saturating_sub(1)))
        .rev()
        .find_map(|index| {
            let here = lines.get(index);
            let body = here.text.trim_start_matches([' ', '-']).trim_start();
            let column = here.text.len() - body.len();
            let word = body.split_whitespace().next()?;
            let (key, value) = word.split_once(':')?;
            let plain = !key.is_empty()
                && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !value.is_empty()
                && !value.starts_with('/');
            plain.then(|| {
                let start = here.start + column;
                if SecretField::is_secret_key(key) {
                    return LoadError::new(
                        start..start + key.len() + 1,
                        format!("`{key}:` has no space after the colon, so YAML reads it and its value as one word"),
                    )
                    .help(format!("put a space after `{key}:`"));
                }
                LoadError::new(
                    start..start + word.len(),
                    format!(
                        "`{word}` has no space after the colon, so YAML reads it as one word, not a key and its value"
                    ),
                )
                .help(format!("write `{key}: {value}`"))
            })
        })
}

/// A quote opened and never closed: YAML reads on past the end of the line.
fn unclosed_quote(lines: &Lines, line: usize) -> Option<LoadError> {
    (0..=line.min(lines.lines.len().saturating_sub(1)))
        .rev()
        .map(|index| lines.get(index))
        .filter(Line::significant)
        .find_map(|here| {
            let (name, column) = here.key()?;
            let value_at = column + name.len() + 1;
            let after = &here.text[value_at..];
            let value = after.trim_start();
            let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let rest = &value[1..];
            if rest.contains(quote) {
                return None;
            }
            let opened = here.start + value_at + (after.len() - value.len());
            let content = rest.trim_end();
            Some(
                LoadError::new(
                    opened..opened + 1,
                    format!(
                        "the quote that opens the value of `{name}` is never closed, so YAML reads the lines after it as part of the value"
                    ),
                )
                .help(if SecretField::is_secret_key(name) {
                    format!("close the quote at the end of the value of `{name}`")
                } else {
                    format!("close the quote: `{name}: {quote}{content}{quote}`")
                }),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The diagnosis of an error the parser reports at the start of line `at_line`.
    fn diagnosed(text: &str, at_line: usize, kind: ErrorKind) -> (String, String, String) {
        diagnosed_at(text, Lines::of(text).get(at_line - 1).start, kind)
    }

    fn diagnosed_at(text: &str, at: usize, kind: ErrorKind) -> (String, String, String) {
        let error = diagnose(text, at, &kind, &|candidate| {
            super::super::parse::loads(candidate, &super::super::SPEC).map(|_| true)
        })
        .expect("a diagnosis");
        (
            text[error.span.clone()].to_string(),
            error.message,
            error.help.unwrap_or_default(),
        )
    }

    #[test]
    fn a_dedented_key_is_named_where_it_stands() {
        let text = "flannel:\n  version: v0.28.9\nbackend: vxlan\n  vni: 4096\n";
        let (span, message, help) = diagnosed(text, 4, ErrorKind::MappingValueNotAllowed);
        assert_eq!(span, "backend");
        assert!(message.contains("indented less"), "{message}");
        assert_eq!(
            help,
            "indent `backend:` by 2 spaces, to line up with `version:` on line 2"
        );
    }

    #[test]
    fn an_over_indented_key_is_named_where_it_stands() {
        let text = "nodes:\n  - name: a\n    os: linux\n     roles: [worker]\n";
        let (span, message, help) = diagnosed(text, 4, ErrorKind::MappingValueNotAllowed);
        assert_eq!(span, "roles");
        assert!(
            message.contains("indented more than `os` on line 3"),
            "{message}"
        );
        assert_eq!(
            help,
            "indent `roles:` by 4 spaces, to line up with `os:` on line 3"
        );
    }

    #[test]
    fn a_value_holding_a_colon_is_to_be_quoted() {
        let text = "metadata:\n  name: a: b\n";
        let second_colon = text.rfind(':').unwrap();
        let (span, _, help) = diagnosed_at(text, second_colon, ErrorKind::MappingValueNotAllowed);
        assert_eq!(span, "a: b");
        assert_eq!(help, "quote the value: `name: \"a: b\"`");
    }

    #[test]
    fn a_key_between_columns_lines_up_with_the_block_beside_it() {
        let text = "metadata:\n  name: a\n kubernetes:\n  version: 1.33.4\n";
        let (span, _, help) = diagnosed(text, 3, ErrorKind::ExpectedBlockMappingKey);
        assert_eq!(span, "kubernetes");
        assert_eq!(
            help,
            "start `kubernetes:` at the beginning of its line, like `metadata:` on line 1"
        );
    }

    #[test]
    fn a_tab_is_pointed_at_with_the_spaces_to_use() {
        let text = "flannel:\n\tversion: v0.11.0\n  backend: vxlan\n";
        let (span, _, help) = diagnosed(text, 2, ErrorKind::TabInBlockIndentation);
        assert_eq!(span, "\t");
        assert_eq!(help, "indent line 2 with 2 spaces instead of the tab");
    }

    #[test]
    fn a_missing_space_after_a_colon_is_shown_written_out() {
        let text = "flannel:\n  backend:vxlan\n  vni: 4096\n";
        let (span, _, help) = diagnosed(text, 3, ErrorKind::SimpleKeyExpected);
        assert_eq!(span, "backend:vxlan");
        assert_eq!(help, "write `backend: vxlan`");
    }

    #[test]
    fn an_unclosed_quote_is_pointed_at_where_it_opens() {
        let text = "kubernetes:\n  version: \"1.33.4\n\nnetwork:\n";
        let (span, _, help) = diagnosed(text, 4, ErrorKind::InvalidQuotedScalarIndent);
        assert_eq!(span, "\"");
        assert_eq!(help, "close the quote: `version: \"1.33.4\"`");
    }

    #[test]
    fn a_secret_value_is_never_quoted() {
        let token = "abcdef.0123456789abcdef";
        for (text, kind) in [
            (
                format!("cp:\n  kubeadmToken: \"{token}\n\nnext: 1\n"),
                ErrorKind::InvalidQuotedScalarIndent,
            ),
            (
                format!("cp:\n  kubeadmToken:{token}\n  a: 1\n"),
                ErrorKind::SimpleKeyExpected,
            ),
        ] {
            let (span, message, help) = diagnosed(&text, 3, kind);
            for shown in [span, message, help] {
                assert!(!shown.contains(token), "{shown}");
            }
        }
        let text = format!("cp:\n  kubeadmToken: a: {token}\n");
        let (span, message, help) = diagnosed_at(
            &text,
            text.rfind(':').unwrap(),
            ErrorKind::MappingValueNotAllowed,
        );
        assert!(
            !message.contains(token) && !help.contains(token),
            "{message} {help}"
        );
        // The span itself is masked by the report, as every secret value is.
        assert!(span.contains(token));
    }

    #[test]
    fn anything_else_keeps_the_parsers_words() {
        assert!(
            diagnose(
                "a: [1, 2\n",
                8,
                &ErrorKind::ExpectedFlowSequenceSeparator,
                &|_| { Some(true) }
            )
            .is_none()
        );
    }
}

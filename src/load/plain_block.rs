//! The YAML most specs are written in, read without granit-parser: block mappings and lists, one
//! value per line, plain or simply quoted scalars, one-line flow lists and mappings, comments.
//! For such text the scanner hands the builder the events granit-parser would (the same values,
//! the same byte spans) at a fraction of the cost (BENCHMARKS.md, "The plain block reader").
//!
//! It never reports an error: whatever it is not certain of — tabs, carriage returns, bytes
//! outside printable ASCII, quotes that hold escapes or run on, multi-line scalars, block
//! scalars, anchors, tags, document markers, empty values, and anything YAML would reject — makes
//! it decline, and the caller reads the text with granit-parser from the start. Its callers also
//! take only a clean finish from it: any stop the builder raises is read again by granit-parser,
//! so every error and its place are granit-parser's.

use granit_parser::{Event, Marker, ScalarStyle, Span, StructureStyle};
use std::borrow::Cow;

/// Gives `emit` the events of `text` as granit-parser would, in order. `Ok(true)` when every
/// event was given, `Ok(false)` when the text is not one the scanner reads (some events may have
/// been given), or the first error `emit` returned.
pub(super) fn scan<'t, E>(
    text: &'t str,
    emit: impl FnMut(Event<'t>, Span) -> Result<(), E>,
) -> Result<bool, E> {
    if !plain_ascii(text.as_bytes()) {
        return Ok(false);
    }
    let mut scanner = Scanner {
        text,
        bytes: text.as_bytes(),
        emit,
        open: Vec::new(),
        awaiting_value: false,
        root_read: false,
    };
    scanner.document()
}

/// Printable ASCII and line feeds only: tabs, carriage returns and anything else go to granit.
/// Checked 64 bytes at a time without a branch per byte, which the compiler turns into vector
/// instructions (a byte at a time took six instructions per byte of the file).
fn plain_ascii(bytes: &[u8]) -> bool {
    let printable = |byte: u8| byte == b'\n' || (b' '..=b'~').contains(&byte);
    bytes.chunks(64).all(|chunk| {
        chunk
            .iter()
            .fold(true, |clean, &byte| clean & printable(byte))
    })
}

/// The `Ok(false)` of a scan: the text is left to granit-parser.
struct Declined;

/// What a step returns: on, declined, or the sink's error.
type Step<E> = Result<(), Stop<E>>;

enum Stop<E> {
    Declined,
    Sink(E),
}

impl<E> From<Declined> for Stop<E> {
    fn from(_: Declined) -> Self {
        Stop::Declined
    }
}

/// An open block collection and the column its keys or dashes stand at.
#[derive(Clone, Copy)]
struct Open {
    mapping: bool,
    column: usize,
}

struct Scanner<'t, F> {
    text: &'t str,
    bytes: &'t [u8],
    emit: F,
    open: Vec<Open>,
    /// A key was read with nothing after it on its line: its value opens on the next line.
    awaiting_value: bool,
    /// The root collection was opened (and may be closed again).
    root_read: bool,
}

impl<'t, F, E> Scanner<'t, F>
where
    F: FnMut(Event<'t>, Span) -> Result<(), E>,
{
    fn document(&mut self) -> Result<bool, E> {
        match self.lines() {
            Ok(()) => Ok(true),
            Err(Stop::Declined) => Ok(false),
            Err(Stop::Sink(error)) => Err(error),
        }
    }

    fn lines(&mut self) -> Step<E> {
        self.event(Event::StreamStart, 0..0)?;
        self.event(Event::DocumentStart(false, None), 0..0)?;
        let mut start = 0;
        while start < self.bytes.len() {
            let end = memchr::memchr(b'\n', &self.bytes[start..])
                .map_or(self.bytes.len(), |at| start + at);
            let content = start
                + self.bytes[start..end]
                    .iter()
                    .take_while(|&&b| b == b' ')
                    .count();
            if content < end && self.bytes[content] != b'#' {
                self.line(start, content, end)?;
            }
            start = end + 1;
        }
        if self.awaiting_value || !self.root_read {
            return Err(Declined.into());
        }
        let end = self.bytes.len();
        while let Some(open) = self.open.pop() {
            self.close(open, end)?;
        }
        self.event(Event::DocumentEnd, end..end)?;
        self.event(Event::StreamEnd, end..end)
    }

    /// One line with content from `content` to `end`; `start` is where the line begins.
    fn line(&mut self, start: usize, content: usize, end: usize) -> Step<E> {
        let column = content - start;
        let dash = self.is_dash(content, end);
        if std::mem::take(&mut self.awaiting_value) {
            // The value of the key above: a list (its `-` may stand at the key's column) or a
            // mapping, further in.
            let parent = self.open.last().map_or(0, |open| open.column);
            match dash {
                // granit-parser places a list at its key's column where its first item begins,
                // a list further in at its first `-`.
                true if column == parent => {
                    let item = self.skip_spaces(content + 1, end);
                    self.begin(false, column, item)?;
                }
                true if column > parent => self.begin(false, column, content)?,
                false if column > parent => self.begin(true, column, content)?,
                _ => return Err(Declined.into()),
            }
        } else if self.open.is_empty() {
            if self.root_read {
                return Err(Declined.into());
            }
            self.begin(!dash, column, content)?;
        } else {
            self.close_deeper_than(column, content)?;
            let top = *self.open.last().ok_or(Declined)?;
            if top.column != column {
                return Err(Declined.into());
            }
            if !top.mapping && !dash {
                // A list at its key's column ends where the next key begins.
                self.open.pop();
                self.close(top, content)?;
                let parent = self.open.last().ok_or(Declined)?;
                if !parent.mapping || parent.column != column {
                    return Err(Declined.into());
                }
            } else if top.mapping && dash {
                return Err(Declined.into());
            }
        }
        if dash {
            self.item(start, content, end)
        } else {
            self.member(content, end)
        }
    }

    fn is_dash(&self, at: usize, end: usize) -> bool {
        self.bytes[at] == b'-' && (at + 1 == end || self.bytes[at + 1] == b' ')
    }

    fn begin(&mut self, mapping: bool, column: usize, at: usize) -> Step<E> {
        self.root_read = true;
        self.open.push(Open { mapping, column });
        let start = if mapping {
            Event::MappingStart(StructureStyle::Block, 0, None)
        } else {
            Event::SequenceStart(StructureStyle::Block, 0, None)
        };
        self.event(start, at..at)
    }

    fn close_deeper_than(&mut self, column: usize, at: usize) -> Step<E> {
        while let Some(&open) = self.open.last() {
            if open.column <= column {
                break;
            }
            self.open.pop();
            self.close(open, at)?;
        }
        Ok(())
    }

    fn close(&mut self, open: Open, at: usize) -> Step<E> {
        let end = if open.mapping {
            Event::MappingEnd
        } else {
            Event::SequenceEnd
        };
        self.event(end, at..at)
    }

    /// `- value` or `- key: value`, the `-` at `dash`.
    fn item(&mut self, start: usize, dash: usize, end: usize) -> Step<E> {
        let at = self.skip_spaces(dash + 1, end);
        if at == end || self.bytes[at] == b'#' || self.is_dash(at, end) {
            return Err(Declined.into());
        }
        if self.key_end(at, end).is_some() {
            self.begin(true, at - start, at)?;
            self.member(at, end)
        } else {
            let after = self.value(at, end)?;
            self.rest_of_line(after, end)
        }
    }

    /// `key: value`, or `key:` with the value on the lines below.
    fn member(&mut self, at: usize, end: usize) -> Step<E> {
        let key_end = self.key_end(at, end).ok_or(Declined)?;
        self.scalar(at..key_end, ScalarStyle::Plain)?;
        let value = self.skip_spaces(key_end + 1, end);
        if value == end || self.bytes[value] == b'#' {
            self.awaiting_value = true;
            return Ok(());
        }
        let after = self.value(value, end)?;
        self.rest_of_line(after, end)
    }

    /// Where a plain key that starts at `at` ends, when a `:` and a space (or the line's end)
    /// follow it.
    fn key_end(&self, at: usize, end: usize) -> Option<usize> {
        let first = self.bytes[at];
        if !(first.is_ascii_alphanumeric() || first == b'_') {
            return None;
        }
        let key_end = at
            + self.bytes[at..end]
                .iter()
                .take_while(|&&b| key_byte(b))
                .count();
        // YAML limits an implicit key to 1,024 characters; long ones are left to granit-parser.
        if key_end - at > LONGEST_KEY {
            return None;
        }
        let colon_then_space = self.bytes.get(key_end) == Some(&b':')
            && (key_end + 1 == end || self.bytes[key_end + 1] == b' ');
        colon_then_space.then_some(key_end)
    }

    /// A value in block context; returns where it ends.
    fn value(&mut self, at: usize, end: usize) -> Result<usize, Stop<E>> {
        match self.bytes[at] {
            b'[' | b'{' => self.flow_collection(at, end),
            b'"' | b'\'' => self.quoted(at, end),
            _ => self.plain_in_block(at, end),
        }
    }

    /// A plain scalar running to the line's end or a comment, with nothing in it that could be
    /// read another way.
    fn plain_in_block(&mut self, at: usize, end: usize) -> Result<usize, Stop<E>> {
        if !plain_start(self.bytes[at]) {
            return Err(Declined.into());
        }
        let mut scalar_end = at;
        let mut index = at;
        while index < end {
            match self.bytes[index] {
                b' ' if self.bytes.get(index + 1) == Some(&b'#') => break,
                b' ' => {}
                b':' if index + 1 == end || self.bytes[index + 1] == b' ' => {
                    return Err(Declined.into());
                }
                byte if !block_plain_byte(byte) => return Err(Declined.into()),
                _ => scalar_end = index + 1,
            }
            index += 1;
        }
        self.scalar(at..scalar_end, ScalarStyle::Plain)?;
        Ok(scalar_end)
    }

    /// A plain scalar inside a flow collection: it ends at a space, `,`, `]` or `}`.
    fn plain_in_flow(&mut self, at: usize, end: usize) -> Result<usize, Stop<E>> {
        if !plain_start(self.bytes[at]) {
            return Err(Declined.into());
        }
        let mut index = at;
        while index < end {
            match self.bytes[index] {
                b' ' | b',' | b']' | b'}' => break,
                b':' if !self
                    .bytes
                    .get(index + 1)
                    .copied()
                    .is_some_and(flow_plain_byte) =>
                {
                    return Err(Declined.into());
                }
                byte if !flow_plain_byte(byte) && byte != b':' => return Err(Declined.into()),
                _ => {}
            }
            index += 1;
        }
        self.scalar(at..index, ScalarStyle::Plain)?;
        Ok(index)
    }

    /// `"…"` without escapes or `'…'` without doubled quotes, closed on its line.
    fn quoted(&mut self, at: usize, end: usize) -> Result<usize, Stop<E>> {
        let quote = self.bytes[at];
        let close = at + 1 + memchr::memchr(quote, &self.bytes[at + 1..end]).ok_or(Declined)?;
        let inner = &self.bytes[at + 1..close];
        let doubled = self.bytes.get(close + 1) == Some(&quote);
        if doubled || (quote == b'"' && inner.contains(&b'\\')) {
            return Err(Declined.into());
        }
        let style = if quote == b'"' {
            ScalarStyle::DoubleQuoted
        } else {
            ScalarStyle::SingleQuoted
        };
        let text = &self.text[at + 1..close];
        self.event(
            Event::Scalar(Cow::Borrowed(text), style, 0, None),
            at..close + 1,
        )?;
        Ok(close + 1)
    }

    fn flow_scalar(&mut self, at: usize, end: usize) -> Result<usize, Stop<E>> {
        match self.bytes.get(at) {
            Some(b'"' | b'\'') => self.quoted(at, end),
            Some(_) if at < end => self.plain_in_flow(at, end),
            _ => Err(Declined.into()),
        }
    }

    /// `[a, b]` or `{a: b, c: d}` on one line.
    fn flow_collection(&mut self, at: usize, end: usize) -> Result<usize, Stop<E>> {
        let mapping = self.bytes[at] == b'{';
        let (open, close, closing) = if mapping {
            let open = Event::MappingStart(StructureStyle::Flow, 0, None);
            (open, Event::MappingEnd, b'}')
        } else {
            let open = Event::SequenceStart(StructureStyle::Flow, 0, None);
            (open, Event::SequenceEnd, b']')
        };
        self.event(open, at..at + 1)?;
        let mut next = self.skip_spaces(at + 1, end);
        if self.bytes.get(next) != Some(&closing) {
            loop {
                if mapping {
                    next = self.flow_key(next, end)?;
                }
                next = self.flow_scalar(next, end)?;
                next = self.skip_spaces(next, end);
                match self.separator(next, end, closing)? {
                    Some(after) => next = after,
                    None => break,
                }
            }
        }
        self.event(close, next..next + 1)?;
        Ok(next + 1)
    }

    /// `key: ` inside a flow mapping; returns where its value starts.
    fn flow_key(&mut self, at: usize, end: usize) -> Result<usize, Stop<E>> {
        if at >= end {
            return Err(Declined.into());
        }
        let key_end = self.key_end(at, end).ok_or(Declined)?;
        self.scalar(at..key_end, ScalarStyle::Plain)?;
        Ok(self.skip_spaces(key_end + 1, end))
    }

    /// After an entry of a flow collection: `,` and the next entry (its start), or the closing
    /// bracket at `at` (`None`).
    fn separator(&self, at: usize, end: usize, closing: u8) -> Result<Option<usize>, Declined> {
        match self.bytes.get(at) {
            Some(&b',') if at < end => {
                let next = self.skip_spaces(at + 1, end);
                let another = next < end && !matches!(self.bytes[next], b']' | b'}' | b',');
                if another {
                    Ok(Some(next))
                } else {
                    Err(Declined)
                }
            }
            Some(&byte) if at < end && byte == closing => Ok(None),
            _ => Err(Declined),
        }
    }

    /// What may follow a complete value on its line: spaces and a comment.
    fn rest_of_line(&self, at: usize, end: usize) -> Step<E> {
        let next = self.skip_spaces(at, end);
        let comment = next < end && self.bytes[next] == b'#' && next > at;
        if next == end || comment {
            Ok(())
        } else {
            Err(Declined.into())
        }
    }

    fn skip_spaces(&self, mut at: usize, end: usize) -> usize {
        while at < end && self.bytes[at] == b' ' {
            at += 1;
        }
        at
    }

    fn scalar(&mut self, span: std::ops::Range<usize>, style: ScalarStyle) -> Step<E> {
        let text = &self.text[span.clone()];
        self.event(Event::Scalar(Cow::Borrowed(text), style, 0, None), span)
    }

    fn event(&mut self, event: Event<'t>, span: std::ops::Range<usize>) -> Step<E> {
        let mark = |at: usize| Marker::new(at, 0, 0).with_byte_offset(Some(at));
        (self.emit)(event, Span::new(mark(span.start), mark(span.end))).map_err(Stop::Sink)
    }
}

/// The longest key the scanner reads, well inside YAML's limit for an implicit key.
const LONGEST_KEY: usize = 512;

/// Bytes a plain key is made of here: what Kubernetes label keys and spec fields use.
fn key_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.' | b'/')
}

/// A plain scalar may not start with an indicator (`-`, `?`, `:` and the rest).
fn plain_start(byte: u8) -> bool {
    !matches!(
        byte,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// Bytes of a plain scalar in block context, leaving out those (flow indicators, quotes) whose
/// reading inside a scalar the scanner does not take on.
fn block_plain_byte(byte: u8) -> bool {
    !matches!(byte, b',' | b'[' | b']' | b'{' | b'}' | b'"' | b'\'')
}

/// Bytes of a plain scalar inside a flow collection (`:` is checked on its own).
fn flow_plain_byte(byte: u8) -> bool {
    byte.is_ascii_graphic()
        && !matches!(
            byte,
            b',' | b'[' | b']' | b'{' | b'}' | b'"' | b'\'' | b'#' | b':'
        )
}

#[cfg(test)]
mod tests {
    use super::super::corpus::{Kept, every_span, texts};
    use super::super::parse::{Parsed, Part, read_plain_block, read_with_granit};
    use crate::load::CAPTURE;

    /// What a read built, line by line: the value, the key and value span of every path, the
    /// number of span records, the shape and the items handed over.
    fn built(parsed: &Parsed<Kept>) -> Vec<String> {
        let mut lines = vec![format!("{:?}", parsed.value)];
        lines.extend(every_span(&parsed.value, &parsed.spans));
        lines.push(format!("{} records", parsed.spans.len()));
        lines.push(format!("{:?}", parsed.shape));
        lines.push(format!("{:?}", parsed.items));
        lines
    }

    /// A text is plain ASCII when each byte is a printable one or a line feed, wherever the
    /// one that is not stands (before, in and after the 64-byte steps).
    #[test]
    fn plain_ascii_refuses_any_other_byte_anywhere() {
        let clean: Vec<u8> = (0..200u8).map(|i| b' ' + i % 95).collect();
        assert!(
            super::plain_ascii(&clean) && super::plain_ascii(b"a: 1\n") && super::plain_ascii(b"")
        );
        for byte in 0..=255u8 {
            let allowed = byte == b'\n' || (b' '..=b'~').contains(&byte);
            for at in [0, 1, 63, 64, 65, 127, 128, 199] {
                let mut text = clean.clone();
                text[at] = byte;
                assert_eq!(super::plain_ascii(&text), allowed, "byte {byte} at {at}");
            }
        }
    }

    /// The first line where two reads differ.
    fn first_difference(ours: &[String], theirs: &[String]) -> Option<(String, String)> {
        let missing = || "(nothing)".to_string();
        (0..ours.len().max(theirs.len())).find_map(|line| {
            let (a, b) = (ours.get(line), theirs.get(line));
            (a != b).then(|| {
                let cut = |text: Option<&String>| {
                    text.map_or_else(missing, |t| t.chars().take(300).collect())
                };
                (cut(a), cut(b))
            })
        })
    }

    /// Numbers below the one asked for, the same on every run (xorshift from `seed`).
    fn numbers(mut state: u64) -> impl FnMut(usize) -> usize {
        move |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % below as u64).unwrap_or(0)
        }
    }

    /// Whenever the scanner reads a text, granit-parser reads it too, to the same value, spans,
    /// shape and items, byte for byte; `read` counts the texts the scanner took.
    fn same_as_granit(name: &str, text: &str, streamed: Option<&str>) -> bool {
        let Some(ours) = read_plain_block::<Kept>(text, 3, &CAPTURE, Part::Whole, streamed) else {
            return false;
        };
        match read_with_granit::<Kept>(text, 3, &CAPTURE, Part::Whole, streamed) {
            Ok(granit) => {
                if let Some((a, b)) = first_difference(&built(&ours), &built(&granit)) {
                    panic!(
                        "{name}: the scanner read\n{a}\nwhere granit-parser read\n{b}\nin\n{text}"
                    );
                }
            }
            Err(_) => panic!("{name}: the scanner read a text granit-parser rejects:\n{text}"),
        }
        true
    }

    #[test]
    fn every_repository_spec_reads_as_granit_reads_it() {
        let mut read = 0;
        let corpus = texts();
        for (name, text) in &corpus {
            for streamed in [None, Some("nodes")] {
                read += usize::from(same_as_granit(name, text, streamed));
            }
        }
        // Most specs are plain block YAML; the scanner must not be declining them all.
        assert!(
            read > corpus.len(),
            "{read} reads of {} texts",
            corpus.len()
        );
    }

    #[test]
    fn the_scanner_declines_what_it_does_not_read_exactly() {
        let long_key = format!("{}: 1\n", "k".repeat(1100));
        let long_flow_key = format!("a: {{{}: 1}}\n", "k".repeat(1100));
        for text in [
            "a: |\n  text\n",
            "a: \"x\\ty\"\n",
            "a: 'it''s'\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "---\na: 1\n",
            "a:\nb: 1\n",
            "a: b\n  c\n",
            "a: [1,\n  2]\n",
            "a:\tb\n",
            "a: b\r\n",
            "a: \u{e9}\n",
            "a: b: c\n",
            "a: -1\n",
            "- a\nb: 1\n",
            "? a\n: b\n",
            "a: {b: [c]}\n",
            "a: x, y\n",
            "",
            "# only a comment\n",
            long_key.as_str(),
            long_flow_key.as_str(),
        ] {
            let read = read_plain_block::<Kept>(text, 0, &CAPTURE, Part::Whole, None);
            assert!(read.is_none(), "the scanner read {text:?}");
        }
    }

    /// Small edits of every spec, where YAML is easiest to misread: indicators, quotes,
    /// indentation, comments, cut lines. Any edit the scanner reads, granit-parser reads the same.
    #[test]
    fn edited_specs_read_as_granit_reads_them_or_are_declined() {
        const PIECES: [&str; 32] = [
            "#", " #", ": ", ":", "- ", "-", "\"", "'", "\\", "[", "]", "{", "}", ",", " ", "\n",
            "  ", "\n  ", "&a ", "*a", "!t ", "? ", "|", ">", "---\n", "...", "~", "null", "%",
            "@", "`", "x:\n",
        ];
        let mut next = numbers(0x9e37_79b9_7f4a_7c15_u64);
        let (mut tried, mut read) = (0, 0);
        for (name, text) in texts().iter().filter(|(_, text)| text.len() < 20_000) {
            for _ in 0..30 {
                let mut edited = text.clone().into_bytes();
                let at = next(edited.len() + 1);
                match next(4) {
                    0 | 1 => {
                        let piece = PIECES[next(PIECES.len())].as_bytes();
                        edited.splice(at..at, piece.iter().copied());
                    }
                    2 => {
                        let end = (at + 1 + next(3)).min(edited.len());
                        edited.drain(at.min(end)..end);
                    }
                    _ => {
                        let start = edited[..at]
                            .iter()
                            .rposition(|&b| b == b'\n')
                            .map_or(0, |p| p + 1);
                        if next(2) == 0 {
                            edited.insert(start, b' ');
                        } else if edited.get(start) == Some(&b' ') {
                            edited.remove(start);
                        }
                    }
                }
                let Ok(edited) = String::from_utf8(edited) else {
                    continue;
                };
                tried += 1;
                for streamed in [None, Some("nodes")] {
                    read += usize::from(same_as_granit(name, &edited, streamed));
                }
            }
        }
        eprintln!("{read} reads of {tried} edited texts");
        assert!(read > tried / 4, "{read} reads of {tried} edited texts");
    }

    /// Documents written line by line from pieces where YAML is easy to misread: every one the
    /// scanner reads, granit-parser reads the same. `HYBRIDGEN_SCANNER_CASES` sets how many (for a
    /// long run in release mode); the default keeps the test suite quick.
    #[test]
    fn generated_documents_read_as_granit_reads_them() {
        const KEYS: [&str; 12] = [
            "a", "b", "nodes", "name", "a.b/c", "1", "-a", "\"k\"", "a b", "a#", "true", "x_y",
        ];
        const VALUES: [&str; 48] = [
            "x",
            "10.0.0.1",
            "10.244.0.0/16",
            "v0.28.9",
            "a:b",
            "a: b",
            "\"q\"",
            "'s'",
            "\"a\\\"b\"",
            "[a, b]",
            "{a: b}",
            "[a,b",
            "[]",
            "{}",
            "~",
            "null",
            "#x",
            "a #c",
            "a#b",
            "-1",
            "- x",
            "&a x",
            "*a",
            "!t x",
            "|",
            ">",
            "? x",
            ":x",
            "x:",
            "%x",
            "@x",
            "`x",
            "a,b",
            "[a: b]",
            "{a: [b]}",
            "'it''s'",
            "\"\"",
            "\" \"",
            "a  b",
            "[ a , b ]",
            "{a: b, c: d}",
            "{a: b,}",
            "[a,]",
            "1.5",
            "0x1F",
            "'a\"b'",
            "\"a'b\"",
            "x ",
        ];
        let cases: usize = std::env::var("HYBRIDGEN_SCANNER_CASES")
            .ok()
            .and_then(|cases| cases.parse().ok())
            .unwrap_or(4_000);
        let mut next = numbers(0x2545_f491_4f6c_dd1d_u64);
        let mut read = 0;
        for case in 0..cases {
            let mut text = String::new();
            // Mostly well-formed nesting: deeper after a line that opens a value, back out at
            // random, and now and then an odd column.
            let mut depth = 0usize;
            let mut opens = false;
            for _ in 0..1 + next(10) {
                depth = match next(6) {
                    0 if opens => depth + 1,
                    1 | 2 if opens => depth + 1,
                    3 => depth.saturating_sub(1),
                    4 => 0,
                    _ => depth,
                };
                let column = if next(12) == 0 {
                    2 * depth + 1
                } else {
                    2 * depth
                };
                let indent = " ".repeat(column);
                // Half the keys unique and half the values plain, so that many documents are
                // valid and reach the end.
                let unique = format!("k{}", next(1_000_000));
                let key = if next(2) == 0 {
                    &unique
                } else {
                    KEYS[next(KEYS.len())]
                };
                let pool = if next(2) == 0 { 5 } else { VALUES.len() };
                let value = VALUES[next(pool)];
                let line = match next(9) {
                    0 | 1 => format!("{key}: {value}"),
                    2 => format!("{key}:"),
                    3 => format!("- {value}"),
                    4 => format!("- {key}: {value}"),
                    5 => format!("- {key}:"),
                    6 => "# note".to_string(),
                    7 => String::new(),
                    _ => "-".to_string(),
                };
                opens = line.ends_with(':') || line == "-";
                text.push_str(&indent);
                text.push_str(&line);
                text.push('\n');
            }
            for streamed in [None, Some("nodes")] {
                read += usize::from(same_as_granit(&format!("case {case}"), &text, streamed));
            }
        }
        assert!(read > cases / 10, "{read} reads of {cases} documents");
    }
}

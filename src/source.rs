//! The text of one input file and the mapping from byte offsets to 1-based lines and columns.

use std::borrow::Cow;
use std::sync::OnceLock;

/// One input file: its display name and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    name: String,
    text: String,
    /// Where each line starts, found when a position is first asked for: a large capture that
    /// has nothing to report never needs them.
    line_starts: OnceLock<Vec<usize>>,
}

/// A 1-based line and column; columns count Unicode scalar values, as editors do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            text: text.into(),
            line_starts: OnceLock::new(),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where each line starts, a line ending at `\n` (found once, when first asked for).
    pub fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            // Counted first, so that the index is allocated once at its size.
            let breaks = || memchr::memchr_iter(b'\n', self.text.as_bytes());
            let mut starts = Vec::with_capacity(breaks().count() + 1);
            starts.push(0);
            starts.extend(breaks().map(|at| at + 1));
            starts
        })
    }

    /// The line starts of the text up to `end` (a line start itself, or the end of the text).
    pub fn line_starts_to(&self, end: usize) -> Cow<'_, [usize]> {
        let end = end.min(self.text.len());
        let starts = self.line_starts();
        Cow::Borrowed(&starts[..starts.partition_point(|&start| start <= end)])
    }

    /// The position of a byte offset; offsets past the end or inside a character are clamped.
    pub fn position(&self, offset: usize) -> Position {
        let offset = self.floor_char_boundary(offset.min(self.text.len()));
        let line_starts = self.line_starts();
        let line_index = line_starts.partition_point(|&start| start <= offset) - 1;
        let column = self.text[line_starts[line_index]..offset].chars().count() + 1;
        Position {
            line: line_index + 1,
            column,
        }
    }

    /// The end of the line `lines` lines below the one `offset` stands on (the start of the line
    /// after it), or the end of the text.
    pub fn end_of_line_below(&self, offset: usize, lines: usize) -> usize {
        let bytes = self.text.as_bytes();
        memchr::memchr_iter(b'\n', &bytes[offset.min(bytes.len())..])
            .nth(lines)
            .map_or(bytes.len(), |at| offset + at + 1)
    }

    fn floor_char_boundary(&self, mut offset: usize) -> usize {
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let source = SourceFile::new("s.yaml", "name: é\nx: ü1\n");
        let offset = source.text().find('1').unwrap();
        assert_eq!(source.position(offset), Position { line: 2, column: 5 });
    }

    #[test]
    fn crlf_line_endings_start_new_lines() {
        let source = SourceFile::new("s.yaml", "a: 1\r\nb: 2\r\n");
        let offset = source.text().find('b').unwrap();
        assert_eq!(source.position(offset), Position { line: 2, column: 1 });
    }

    /// The line starts of a part of the text are the first of the file's.
    #[test]
    fn partial_line_starts_are_the_first_of_the_files() {
        let text: String = (0..20_000)
            .map(|line| format!("{}: é{line}\r\n", "k".repeat(line % 7)))
            .collect();
        let counted = SourceFile::new("s.yaml", text.clone());
        let indexed = SourceFile::new("s.yaml", text.clone());
        let all = indexed.line_starts().to_vec();
        let offsets = (0..text.len()).step_by(997).chain([0, 1, text.len()]);
        for offset in offsets {
            let fresh = SourceFile::new("s.yaml", text.clone());
            assert_eq!(fresh.position(offset), indexed.position(offset), "{offset}");
            let end = counted.end_of_line_below(offset, 2);
            assert!(end == text.len() || all.contains(&end), "{offset}");
            let part = fresh.line_starts_to(end);
            assert_eq!(
                *part,
                all[..all.partition_point(|&start| start <= end)],
                "{offset}"
            );
        }
        assert_eq!(
            counted.end_of_line_below(0, 0),
            text.find('\n').unwrap() + 1
        );
        assert_eq!(counted.end_of_line_below(text.len(), 3), text.len());
    }

    #[test]
    fn offsets_past_the_end_are_clamped() {
        let source = SourceFile::new("s.yaml", "a: 1");
        assert_eq!(source.position(99), Position { line: 1, column: 5 });
    }
}

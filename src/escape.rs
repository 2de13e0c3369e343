//! Output is inert: a value from a spec, a capture, a file name or a child process that reaches a
//! terminal or a CI log is shown, never obeyed. Control characters (an `ESC[2J` that clears the
//! screen, an OSC sequence that sets the title or a link, a carriage return that overwrites the
//! line, a newline that starts a line of its own) are written as visible escapes, and no line can
//! start a GitHub workflow command (`::error ...`) that hybridgen did not write (GitHub Docs,
//! "Workflow commands for GitHub Actions"; actions/runner `ActionCommand.cs`).

/// A character a terminal acts on instead of showing: C0 and C1 controls, DEL, and what
/// [`breaks_or_reorders`] names.
fn acts_on(c: char) -> bool {
    c.is_control() || breaks_or_reorders(c)
}

/// A character that is no control but that another reader takes for a line break, or that
/// reorders what is shown: U+2028 LINE SEPARATOR and U+2029 PARAGRAPH SEPARATOR (line breaks
/// for YAML 1.1 readers such as libyaml and go-yaml, and for JavaScript before ES2019), and the
/// Unicode bidirectional marks, embeddings, overrides and isolates ("Trojan Source",
/// CVE-2021-42574; Unicode UAX #9): U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
/// U+2069. (U+0085 NEXT LINE, YAML 1.1's third extra line break, is a C1 control.)
pub fn breaks_or_reorders(c: char) -> bool {
    matches!(
        c,
        '\u{2028}'
            | '\u{2029}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// Whether a JSON or YAML writer must write `c` as a `\uXXXX` escape where serde_json would
/// write it raw: DEL and the C1 controls (U+0085 among them, which terminals and YAML 1.1 act
/// on), and what [`breaks_or_reorders`] names.
fn json_escapes(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}') || breaks_or_reorders(c)
}

/// JSON text as serde_json wrote it, with every character [`json_escapes`] names written as
/// `\uXXXX`. Outside strings serde_json writes ASCII only, so each such character is inside a
/// string, where the escape means the same character: the document reads back the same.
pub fn json_text(text: String) -> String {
    // Each character it escapes is DEL or beyond ASCII, so only the text from the first such
    // byte (a character boundary: every byte before it is ASCII) is decoded to look for one.
    let first = text.bytes().position(|byte| byte >= 0x7f);
    if !first.is_some_and(|first| text[first..].chars().any(json_escapes)) {
        return text;
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if json_escapes(c) {
            escaped.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// The one pretty JSON writer for reports and artifacts: serde_json's layout, then [`json_text`].
pub fn json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(value).map(json_text)
}

/// One value on one line: every control character, newlines included, written as an escape
/// (`\n`, `\t`, `\e`, `\x07`, `\u{9b}`).
pub fn inline(text: &str) -> String {
    if shown_as_is(text) {
        return text.to_string();
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            '\u{1b}' => shown.push_str("\\e"),
            c if acts_on(c) && c.is_ascii() => shown.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if acts_on(c) => shown.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => shown.push(c),
        }
    }
    shown
}

/// A value on one line, cut to at most `max` characters with `…` and how much was left out.
pub fn bounded(text: &str, max: usize) -> String {
    let shown = inline(text);
    let count = shown.chars().count();
    if count <= max {
        return shown;
    }
    let kept: String = shown.chars().take(max).collect();
    format!("{kept}… ({} more characters)", count - max)
}

/// [`bounded`], written at the end of `out`; a short value with nothing to escape is copied as it
/// is.
pub fn push_bounded(out: &mut String, text: &str, max: usize) {
    if text.len() <= max && shown_as_is(text) {
        out.push_str(text);
    } else {
        out.push_str(&bounded(text, max));
    }
}

/// [`inline`], written at the end of `out`.
pub fn push_inline(out: &mut String, text: &str) {
    if shown_as_is(text) {
        out.push_str(text);
    } else {
        out.push_str(&inline(text));
    }
}

/// Whether `text` holds nothing a terminal acts on; printable ASCII, what paths and names almost
/// always are, is told by its bytes alone.
fn shown_as_is(text: &str) -> bool {
    text.bytes().all(|byte| (b' '..=b'~').contains(&byte)) || !text.chars().any(acts_on)
}

/// Text shown as lines (a file's lines under a finding): line breaks and tabs kept, every other
/// character a terminal acts on replaced by `?` for each of its bytes, so that byte offsets into
/// the text still hold.
pub fn same_length(text: &str) -> String {
    // A carriage return is kept only as part of a CRLF line break: alone, it returns the cursor
    // to overwrite the line.
    let kept = |c: char, next: Option<char>| match c {
        '\n' | '\t' => true,
        '\r' => next == Some('\n'),
        c => !acts_on(c),
    };
    let mut shown = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if kept(c, chars.peek().copied()) {
            shown.push(c);
        } else {
            shown.push_str(&"?".repeat(c.len_utf8()));
        }
    }
    shown
}

/// Text for a terminal or a CI log in which every value was escaped: a line that still starts
/// with `::` (or holds `##[`, the older form) can only have come from quoted content — a diff of
/// a file, a snippet — and is defused, so that GitHub never reads it as a workflow command.
pub fn no_workflow_commands(text: String) -> String {
    let defuse = |line: &str| {
        let body = line.trim_start();
        let line = if body.starts_with("::") {
            let indent = &line[..line.len() - body.len()];
            format!("{indent}\\x3a{}", &body[1..])
        } else {
            line.to_string()
        };
        line.replace("##[", "#\\x23[")
    };
    let holds = |needle: &str| memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_some();
    if !holds("::") && !holds("##[") {
        return text;
    }
    text.split_inclusive('\n').map(defuse).collect()
}

/// A value inside a line of Markdown prose, shown as written: each character that could start
/// markup there is backslash-escaped — code, emphasis, links and images, HTML and entities, GFM
/// strikethrough and table cells — and control characters are written as [`inline`] writes
/// them (its backslash escaped in turn), so the value stays on its line (CommonMark 0.31 §2.4,
/// "Backslash escapes"; GFM §4.10 for `|` in tables). Not for the start of a line, where `#`,
/// `-` or `1.` would open a block: the callers put a value after fixed text.
pub fn markdown_text(text: &str) -> String {
    let mut shown = String::with_capacity(text.len() + 8);
    for c in inline(text).chars() {
        if "\\`*_[]<>|&~!".contains(c) {
            shown.push('\\');
        }
        shown.push(c);
    }
    shown
}

/// A value as a Markdown code span, shown verbatim: fenced by one backtick more than its longest
/// run of backticks, padded with a space when it starts or ends with one (CommonMark 0.31 §6.1),
/// control characters written as [`inline`] writes them, and `|` escaped so that a table cell
/// holding the span is not split (GFM §4.10).
pub fn markdown_code(text: &str) -> String {
    let shown = inline(text);
    let longest = shown.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if shown.starts_with('`') || shown.ends_with('`') || shown.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", shown.replace('|', "\\|"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_ascii_is_the_only_text_told_by_its_bytes() {
        // Every character below U+0800 (one and two UTF-8 bytes), alone and after a plain word.
        for c in (0..0x800).filter_map(char::from_u32) {
            for text in [c.to_string(), format!("node-{c}")] {
                assert_eq!(shown_as_is(&text), !text.chars().any(acts_on), "{text:?}");
                let mut pushed = String::from(">");
                push_inline(&mut pushed, &text);
                assert_eq!(pushed, format!(">{}", inline(&text)), "{text:?}");
            }
        }
        assert!(!shown_as_is("a\u{202e}b"));
    }

    #[test]
    fn controls_are_shown_not_sent() {
        assert_eq!(inline("a\u{1b}[2Jb"), "a\\e[2Jb");
        assert_eq!(inline("\u{1b}]0;title\u{7}"), "\\e]0;title\\x07");
        assert_eq!(inline("x\n::error::y\r"), "x\\n::error::y\\r");
        assert_eq!(inline("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(inline("abc\u{202e}def"), "abc\\u{202e}def");
        assert_eq!(inline("plain `text` ü"), "plain `text` ü");
    }

    #[test]
    fn line_separators_and_bidi_marks_are_shown_not_sent() {
        assert_eq!(
            inline("a\u{2028}b\u{2029}c\u{85}d\u{200f}e\u{61c}f\u{2066}"),
            "a\\u{2028}b\\u{2029}c\\u{85}d\\u{200f}e\\u{61c}f\\u{2066}"
        );
    }

    #[test]
    fn json_writes_line_separators_and_bidi_marks_as_escapes() {
        let value = serde_json::json!({"k\u{202e}": "a\u{2028}b\u{85}c\u{200e}\u{9b}ü"});
        let text = json_pretty(&value).unwrap();
        assert_eq!(
            text,
            "{\n  \"k\\u202e\": \"a\\u2028b\\u0085c\\u200e\\u009bü\"\n}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn json_text_escapes_what_it_names_and_nothing_else() {
        let named = [
            '\u{61c}', '\u{200e}', '\u{2028}', '\u{2029}', '\u{202e}', '\u{2066}',
        ];
        for c in (0..0x800).filter_map(char::from_u32).chain(named) {
            let text = format!("\"node-{c}\"");
            let expected = if json_escapes(c) {
                format!("\"node-\\u{:04x}\"", u32::from(c))
            } else {
                text.clone()
            };
            assert_eq!(json_text(text), expected, "{c:?}");
        }
        // A character it escapes after others beyond ASCII that it does not.
        assert_eq!(json_text("\"ü…\u{2028}\"".into()), "\"ü…\\u2028\"");
    }

    #[test]
    fn snippets_keep_their_length_and_lines() {
        let text = "a: \u{1b}[2J\nb: \u{9b}x\r\nc:\tz\rw\n";
        let shown = same_length(text);
        assert_eq!(shown.len(), text.len());
        assert_eq!(shown, "a: ?[2J\nb: ??x\r\nc:\tz?w\n");
    }

    #[test]
    fn markdown_shows_values_and_obeys_none() {
        assert_eq!(markdown_text("win-0 (10.0.0.1)"), "win-0 (10.0.0.1)");
        assert_eq!(
            markdown_text("[x](http://a) <b>|*_`&amp;~\n"),
            "\\[x\\](http://a) \\<b\\>\\|\\*\\_\\`\\&amp;\\~\\\\n"
        );
        assert_eq!(markdown_code("win-0"), "`win-0`");
        assert_eq!(markdown_code("a``b"), "```a``b```");
        assert_eq!(markdown_code("`a|b"), "`` `a\\|b ``");
        assert_eq!(markdown_code("a\nb"), "`a\\nb`");
    }

    #[test]
    fn bounded_values_say_what_was_cut() {
        assert_eq!(bounded("abcdef", 3), "abc… (3 more characters)");
        assert_eq!(bounded("ab", 3), "ab");
    }

    #[test]
    fn quoted_lines_cannot_start_workflow_commands() {
        let text = "wrote x\n::error file=a::b\n  ::warning::c\nd ##[error]e\nok: a::b\n";
        assert_eq!(
            no_workflow_commands(text.to_string()),
            "wrote x\n\\x3a:error file=a::b\n  \\x3a:warning::c\nd #\\x23[error]e\nok: a::b\n"
        );
    }
}

//! YAML text → a JSON value plus an index from JSON Pointer to source span. The only module that
//! knows YAML: one pass over granit-parser's events (`parse`) builds both, typing plain scalars by
//! the YAML 1.2 core schema (`scalar`).

mod parse;
mod scalar;
mod span_index;
mod syntax;

pub use span_index::{SpanIndex, escape as escape_pointer_token, every_pointer};
pub(crate) use syntax::line_up;

use crate::source::SourceFile;
use std::ops::Range;

/// Largest spec accepted: 32 MiB holds a 65,536-node spec with room to spare, and bounds the memory
/// and time a hostile file can cost.
pub const MAX_SPEC_BYTES: usize = 32 * 1024 * 1024;

/// What a document may hold, and what to tell its author when it holds more.
#[derive(Debug)]
pub struct Limits {
    pub bytes: usize,
    /// Most values (scalars, lists, mappings).
    pub values: usize,
    /// Longest list.
    pub list_items: usize,
    pub too_big_help: &'static str,
    pub one_document_help: &'static str,
}

/// A cluster spec: node subnets are at most 2^16 (HG106 caps the mask at 16 bits past the cluster
/// prefix), so no usable spec has more nodes, and a 65,536-node spec holds about 600,000 values.
pub const SPEC: Limits = Limits {
    bytes: MAX_SPEC_BYTES,
    values: 1_000_000,
    list_items: 65_536,
    too_big_help: "a cluster spec holds at most 65,536 nodes, about 600,000 values: split it, or check that this is a spec",
    one_document_help: "keep one cluster spec per file and remove the `---` separator",
};

/// A file captured with kubectl (`hybridgen verify`): a 5,000-node `-o yaml` node list is about
/// 30 MiB and 2 million values, so these leave room for the largest clusters Kubernetes supports.
pub const CAPTURE: Limits = Limits {
    bytes: 512 * 1024 * 1024,
    values: 64_000_000,
    list_items: 1_000_000,
    too_big_help: "capture with `-o json`, or one kind per file",
    one_document_help: "capture each `kubectl get ... -o yaml` into a file of its own, or use `-o json`",
};

/// A loaded spec: the data as JSON, and where each part of it stands in the file.
#[derive(Debug)]
pub struct Document {
    pub value: serde_json::Value,
    pub spans: SpanIndex,
}

/// One input file as reports show it: its text, where each value stands (when it loaded), and the
/// spans of secret values written inline, which reports mask.
#[derive(Debug)]
pub struct LoadedFile {
    pub source: SourceFile,
    pub spans: Option<SpanIndex>,
    pub inline_secrets: Vec<Range<usize>>,
}

impl LoadedFile {
    pub fn new(source: SourceFile, spans: Option<SpanIndex>) -> Self {
        Self {
            source,
            spans,
            inline_secrets: Vec::new(),
        }
    }

    /// The bytes a location stands for: the exact span when the pointer exists, else its nearest
    /// ancestor's; the start of the file when the file did not load.
    pub fn span_of(&self, location: &crate::diagnostic::Location) -> Range<usize> {
        use crate::diagnostic::Location;
        match (location, self.spans.as_ref()) {
            (Location::Bytes(span), _) => span.clone(),
            (Location::Key(pointer), Some(spans)) => spans
                .key_span(pointer)
                .unwrap_or_else(|| spans.nearest_span(pointer)),
            (Location::Value(pointer), Some(spans)) => spans.nearest_span(pointer),
            (_, None) => 0..0,
        }
    }
}

/// Why a file is not loadable YAML, at a byte span of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub span: Range<usize>,
    pub message: String,
    pub help: Option<String>,
    /// The other place of the mistake (the first of two duplicate keys), with what it is.
    pub other: Option<(Range<usize>, String)>,
}

impl LoadError {
    fn new(span: Range<usize>, message: impl Into<String>) -> Self {
        Self {
            span,
            message: message.into(),
            help: None,
            other: None,
        }
    }

    fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The same error in a text that starts `base` bytes into the file.
    fn shifted(mut self, base: usize) -> Self {
        self.span = self.span.start + base..self.span.end + base;
        if let Some((other, _)) = self.other.as_mut() {
            *other = other.start + base..other.end + base;
        }
        self
    }
}

/// Decodes the raw bytes of a spec. The text is always returned (lossily decoded when it is not
/// UTF-8) so that errors can be shown in context.
pub fn decode(name: &str, bytes: Vec<u8>) -> (SourceFile, Result<(), LoadError>) {
    decode_within(name, bytes, &SPEC)
}

/// Decodes the raw bytes of a file within `limits`. Valid UTF-8 (the usual case) becomes the
/// text without a copy; anything else is shown with replacement characters.
pub fn decode_within(
    name: &str,
    mut bytes: Vec<u8>,
    limits: &Limits,
) -> (SourceFile, Result<(), LoadError>) {
    if bytes.len() > limits.bytes {
        let error = LoadError::new(
            0..0,
            format!(
                "the file is larger than the {} MiB limit",
                limits.bytes >> 20
            ),
        )
        .help(limits.too_big_help);
        bytes.truncate(limits.bytes);
        let text = String::from_utf8(bytes)
            .unwrap_or_else(|invalid| String::from_utf8_lossy(invalid.as_bytes()).into_owned());
        return (SourceFile::new(name, text), Err(error));
    }
    match String::from_utf8(bytes) {
        Ok(text) => (SourceFile::new(name, text), Ok(())),
        Err(error) => {
            let at = error.utf8_error().valid_up_to();
            let failure = LoadError::new(at..at + 1, "the file is not valid UTF-8")
                .help("save the file as UTF-8 text");
            let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
            (SourceFile::new(name, text), Err(failure))
        }
    }
}

/// Parses the text of a decoded spec into a document.
pub fn load(source: &SourceFile) -> Result<Document, LoadError> {
    load_within(source, &SPEC)
}

/// An item of a spec's `nodes` list as [`load_taking_nodes`] hands it over.
pub enum NodeItem<'i, 'k> {
    /// A mapping, as its members in document order: no map is built for what is typed at once.
    Members(&'i mut dyn Iterator<Item = (&'k str, serde_json::Value)>),
    /// Any other value.
    Value(serde_json::Value),
}

/// Parses the text of a decoded spec into a document, handing each item of its top-level `nodes`
/// list to `take_node` as soon as the item is read; what `take_node` returns stands in the list
/// in its place. A spec's nodes are most of its values, so typing them one by one keeps the JSON
/// value of a large spec from being held whole (BENCHMARKS.md, memory). A syntax error whose fix
/// is a line moved to another column offers first a move that gives a document `accepts`.
pub fn load_taking_nodes(
    source: &SourceFile,
    take_node: &mut dyn FnMut(NodeItem<'_, '_>) -> serde_json::Value,
    accepts: &dyn Fn(serde_json::Value) -> bool,
) -> Result<Document, LoadError> {
    parse::parse(source, &SPEC, Some(take_node), accepts)
}

/// Parses the text of a decoded spec into a document; a syntax error whose fix is a line moved
/// to another column offers first a move that gives a document `accepts` (one that types).
pub fn load_accepting(
    source: &SourceFile,
    accepts: &dyn Fn(serde_json::Value) -> bool,
) -> Result<Document, LoadError> {
    parse::parse(source, &SPEC, None, accepts)
}

/// Parses the text of a decoded file into a document, within `limits`.
pub fn load_within(source: &SourceFile, limits: &'static Limits) -> Result<Document, LoadError> {
    parse::parse(source, limits, None, &|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<Document, LoadError> {
        load(&SourceFile::new("t.yaml", text))
    }

    fn span_text(text: &str, span: Range<usize>) -> &str {
        &text[span]
    }

    #[test]
    fn pointers_resolve_to_exact_value_and_key_spans() {
        let text = "# é comment with non-ASCII\r\nnodes:\r\n  - name: \"ä-0\"\r\n    podCidr: 10.244.1.0/24\r\n";
        let document = load_text(text).unwrap();
        let value = document.spans.value_span("/nodes/0/podCidr").unwrap();
        assert_eq!(span_text(text, value), "10.244.1.0/24");
        let key = document.spans.key_span("/nodes/0/podCidr").unwrap();
        assert_eq!(span_text(text, key), "podCidr");
        let quoted = document.spans.value_span("/nodes/0/name").unwrap();
        assert_eq!(span_text(text, quoted), "\"ä-0\"");
    }

    #[test]
    fn collection_spans_cover_their_children() {
        let text = "a:\n  b: [1, 2]\n  c:\n    d: x\nz: 1\n";
        let document = load_text(text).unwrap();
        assert_eq!(
            span_text(text, document.spans.value_span("/a/b").unwrap()),
            "[1, 2]"
        );
        assert_eq!(
            span_text(text, document.spans.value_span("/a/c").unwrap()),
            "d: x"
        );
        assert_eq!(
            span_text(text, document.spans.value_span("/a/b/1").unwrap()),
            "2"
        );
    }

    #[test]
    fn escaped_pointer_tokens_resolve() {
        let text = "\"we/ird~key\": 1\n";
        let document = load_text(text).unwrap();
        assert_eq!(
            span_text(text, document.spans.value_span("/we~1ird~0key").unwrap()),
            "1"
        );
    }

    #[test]
    fn missing_paths_fall_back_to_the_nearest_ancestor_only_on_request() {
        let text = "a:\n  b: 1\n";
        let document = load_text(text).unwrap();
        assert_eq!(document.spans.value_span("/a/x"), None);
        assert_eq!(span_text(text, document.spans.nearest_span("/a/x")), "b: 1");
    }

    #[test]
    fn a_byte_order_mark_keeps_spans_in_file_bytes() {
        let text = "\u{feff}a: 1\n";
        let document = load_text(text).unwrap();
        assert_eq!(
            span_text(text, document.spans.value_span("/a").unwrap()),
            "1"
        );
        assert_eq!(document.value["a"], 1);
    }

    #[test]
    fn duplicate_keys_point_at_the_second_key() {
        let text = "a: 1\nb: 2\na: 3\n";
        let error = load_text(text).unwrap_err();
        assert_eq!(error.message, "duplicate key `a`: the first is on line 1");
        assert_eq!(error.span, 10..11);
        assert_eq!(error.other.map(|(span, _)| span), Some(0..1));
    }

    #[test]
    fn anchors_aliases_tags_and_extra_documents_are_rejected() {
        for (text, expected) in [
            ("a: &x 1\nb: 2\n", "anchors"),
            ("a: 1\nb: *x\n", "alias"),
            ("a: !!str 1\n", "tags"),
            ("a: 1\n---\nb: 2\n", "more than one"),
        ] {
            let error = load_text(text).unwrap_err();
            assert!(
                error.message.contains(expected),
                "{text:?}: {}",
                error.message
            );
        }
    }

    #[test]
    fn a_million_list_items_stop_at_the_list_limit() {
        let text = format!("nodes:\n{}", "  - {}\n".repeat(1_000_000));
        let error = load_text(&text).unwrap_err();
        assert!(
            error.message.contains("more than 65536 items"),
            "{}",
            error.message
        );
    }

    #[test]
    fn many_short_lists_stop_at_the_value_budget() {
        let list = format!("[{}]", vec!["1"; 60_000].join(","));
        let text: String = (0..20).map(|i| format!("k{i}: {list}\n")).collect();
        let error = load_text(&text).unwrap_err();
        assert!(
            error.message.contains("more than 1000000 values"),
            "{}",
            error.message
        );
    }

    #[test]
    fn deep_nesting_stops_at_the_limit() {
        let text = "[".repeat(100_000);
        let error = load_text(&text).unwrap_err();
        assert!(error.message.contains("nests deeper"), "{}", error.message);
    }

    #[test]
    fn non_utf8_bytes_are_reported_where_they_start() {
        let (_, check) = decode("t.yaml", b"a: 1\nb: \xff\n".to_vec());
        assert_eq!(check.unwrap_err().span, 8..9);
    }

    /// Every spec and fixture of the repository, and the scalars where YAML readers are known to
    /// differ, load to the same value as serde_yaml gives (an independent reader).
    #[test]
    fn values_match_an_independent_yaml_reader() {
        let mut texts: Vec<String> = Vec::new();
        for folder in [
            "examples",
            "tests/fixtures/valid",
            "tests/fixtures/invalid",
            "tests/fixtures/render",
        ] {
            let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
            for entry in std::fs::read_dir(folder).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "yaml") {
                    texts.push(std::fs::read_to_string(path).unwrap());
                }
            }
        }
        assert!(texts.len() > 290, "{} files", texts.len());
        for scalar in [
            "~",
            "null",
            "Null",
            "",
            "true",
            "False",
            "yes",
            "no",
            "on",
            "0",
            "-0",
            "+7",
            "007",
            "0o17",
            "0x1f",
            "0b11",
            "1_000",
            "1.20",
            ".5",
            "5.",
            "-.5e3",
            "1e3",
            "1E+3",
            "1e",
            ".inf",
            "-.Inf",
            ".NaN",
            "1.15.0",
            "10.244.0.0/16",
            "v0.11.0",
            "12:30",
            "2001-12-14",
            "'quoted'",
            "\"4789\"",
            "|\n  block\n",
            ">-\n  folded\n  text\n",
            "18446744073709551615",
            "-9223372036854775808",
            "007.5",
            "-0x1f",
            "+0o7",
            "-007",
            "00",
            "0x_1",
            "1__0",
            "007e1",
            "0e0",
            "00.0",
            "+.5",
            "-.",
            "1.e5",
            "0.",
            "99999999999999999999",
            "0xFFFFFFFFFFFFFFFFFF",
        ] {
            texts.push(format!("a: {scalar}\nlist: [{scalar}]\n"));
        }
        let mut compared = 0;
        let mut differ = Vec::new();
        for text in &texts {
            let ours = load_text(text);
            let theirs: Result<serde_json::Value, _> = serde_yaml::from_str(text);
            if let (Ok(ours), Ok(theirs)) = (ours, theirs) {
                if ours.value != theirs {
                    differ.push(format!(
                        "{text}\n  ours: {}\n  theirs: {theirs}",
                        ours.value
                    ));
                }
                compared += 1;
            }
        }
        assert!(differ.is_empty(), "{}", differ.join("\n"));
        assert!(compared > 250, "only {compared} documents compared");
    }
}

//! The one pass over the YAML text: granit-parser's events build the JSON value and the span index
//! together, and what a spec never needs (anchors, aliases, tags, duplicate keys, several
//! documents, deep nesting, huge lists) is rejected on the way, before it costs anything.

use super::scalar::resolve_plain;
use super::span_index::{Kind, LIST_ITEM, SpanIndex};
use super::{Document, Limits, LoadError, NodeItem};
use crate::source::SourceFile;
use granit_parser::{Event, Parser, ScalarStyle, Span, StructureStyle};
use serde_json::{Map, Value};
use std::ops::Range;

/// Deepest nesting a document may use; the deepest real spec path
/// (`/windows/controlPlane/kubeadmToken/fromEnv`) is 4 levels and a Kubernetes object rarely goes
/// past 20, so 64 leaves room for both while stopping bracket bombs at once.
pub const MAX_DEPTH: usize = 64;

/// Parses the text of `source` within `limits`: any YAML, and every error in granit-parser's
/// words and place unless `syntax` recognises the mistake behind it.
///
/// `accepts` says whether a document is what the caller reads (a spec that types): a fix for a
/// syntax error whose document it accepts is offered before one that only loads.
pub(super) fn parse(
    source: &SourceFile,
    limits: &'static Limits,
    take_node: Option<&mut dyn FnMut(NodeItem<'_, '_>) -> Value>,
    accepts: &dyn Fn(Value) -> bool,
) -> Result<Document, LoadError> {
    // A byte-order mark is legal at the start of a YAML stream; the spans keep counting it.
    let text = source.text();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let base = source.text().len() - text.len();
    let mut builder = Builder::new(text.len(), base, limits);
    builder.take_node = take_node;
    let loads_accepted =
        |candidate: &str| loads(candidate, limits).map(|document| accepts(document.value));
    for event in Parser::new_from_str_with_options(text, options()) {
        let (event, span) = event.map_err(|error| {
            let local = error.marker().byte_offset().unwrap_or(0);
            let at = local + base;
            let message = error.kind().to_string();
            if message.contains("recursion limit") || message.contains("nesting limit") {
                nesting_error(at..at)
            } else if let Some(mistake) =
                super::syntax::diagnose(text, local, error.kind(), &loads_accepted)
            {
                mistake.shifted(base)
            } else {
                LoadError::new(at..at, message)
            }
        })?;
        builder.event(event, span).map_err(|error| {
            let error = placed(text, base, error);
            if !error.message.starts_with("duplicate key") {
                return error;
            }
            let at = error.span.start.saturating_sub(base);
            super::syntax::duplicate_by_indent(text, at, &loads_accepted)
                .map_or(error, |mistake| mistake.shifted(base))
        })?;
    }
    Ok(builder.finish())
}

/// A builder's error in the words of the text: a duplicate key names the line of the first one,
/// and an anchor or a tag is pointed at itself (`&name`, `!tag`), not at the value after it.
fn placed(text: &str, base: usize, mut error: LoadError) -> LoadError {
    let local = error.span.start.saturating_sub(base).min(text.len());
    if let Some((first, _)) = &error.other {
        let first = first.start.saturating_sub(base);
        let line = text
            .get(..first)
            .map_or(0, |before| before.matches('\n').count())
            + 1;
        error.message = format!("{}: the first is on line {line}", error.message);
        return error;
    }
    let marker = if error.message.starts_with("YAML anchors") {
        '&'
    } else if error.message.starts_with("YAML tags") {
        '!'
    } else {
        return error;
    };
    // The property stands before its value, on its line or the one above.
    let window = text
        .get(local.saturating_sub(256)..local)
        .unwrap_or_default();
    if let Some(at) = window.rfind(marker) {
        // `!!str`: the tag starts at its first `!`.
        let at = window[..at].trim_end_matches(marker).len();
        let start = local - window.len() + at;
        let length = text[start..]
            .find(char::is_whitespace)
            .unwrap_or(text.len() - start);
        error.span = base + start..base + start + length;
    }
    error
}

/// How every document is read.
fn options() -> granit_parser::Options {
    let mut options = granit_parser::options! {
        flow_nesting_limit: 2 * MAX_DEPTH,
        block_nesting_limit: 2 * MAX_DEPTH,
        disallow_directives: true,
        emit_unresolved_aliases: true,
    };
    // Comments carry no data and no span a finding points at.
    options.set_emit_comments(false);
    options
}

/// The document `text` loads as, without a diagnosis of why it does not: what a fix for a
/// syntax error is checked with before a report offers it.
pub(super) fn loads(text: &str, limits: &'static Limits) -> Option<Document> {
    let mut builder = Builder::new(text.len(), 0, limits);
    for event in Parser::new_from_str_with_options(text, options()) {
        let (event, span) = event.ok()?;
        builder.event(event, span).ok()?;
    }
    Some(builder.finish())
}

/// An open list or mapping.
struct Frame {
    node: u32,
    is_mapping: bool,
    /// Flow collections span their brackets; block ones span from their first to last child.
    is_flow: bool,
    /// The document's top-level `nodes` list, whose items go to the builder's `take_node`.
    is_node_list: bool,
    /// For a mapping: the key read and waiting for its value.
    pending_key: Option<(u32, Range<usize>)>,
    first_child_start: Option<usize>,
    last_child_end: usize,
    /// Where this collection's children begin in the builder's shared `edges` and `values`.
    edges_from: usize,
    values_from: usize,
}

struct Builder<'a> {
    spans: SpanIndex,
    stack: Vec<Frame>,
    /// The children of the open collections, innermost last: span-index edges and values, in
    /// document order (one shared stack each, so an open collection costs no allocation).
    edges: Vec<(u32, u32)>,
    values: Vec<Value>,
    root: Option<Value>,
    base: usize,
    documents: usize,
    limits: &'static Limits,
    take_node: Option<&'a mut dyn FnMut(NodeItem<'_, '_>) -> Value>,
}

impl Builder<'_> {
    fn new(text_len: usize, base: usize, limits: &'static Limits) -> Self {
        Builder {
            spans: SpanIndex::for_text(text_len, limits.values),
            stack: Vec::new(),
            edges: Vec::new(),
            values: Vec::new(),
            root: None,
            base,
            documents: 0,
            limits,
            take_node: None,
        }
    }

    fn finish(self) -> Document {
        Document {
            value: self.root.unwrap_or(Value::Null),
            spans: self.spans,
        }
    }

    fn bytes(&self, span: &Span) -> Range<usize> {
        let start = span.start.byte_offset().unwrap_or(0) + self.base;
        let end = span.end.byte_offset().unwrap_or(0) + self.base;
        start..end.max(start)
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), LoadError> {
        let bytes = self.bytes(&span);
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(LoadError::new(
                        bytes,
                        "the file holds more than one YAML document",
                    )
                    .help(self.limits.one_document_help));
                }
            }
            Event::Alias(_) | Event::UnresolvedAlias(_) => {
                return Err(LoadError::new(
                    bytes,
                    "YAML aliases (`*name`) are not allowed in a spec",
                )
                .help("write the value out in full where the alias stands"));
            }
            Event::Scalar(text, style, anchor, tag) => {
                reject_properties(&bytes, anchor, tag.is_some())?;
                if self.expects_key() {
                    let key = self.spans.intern(&text);
                    if let Some(frame) = self.stack.last_mut() {
                        frame.pending_key = Some((key, bytes));
                    }
                } else {
                    self.open_node(bytes, Kind::Scalar)?;
                    let value = match style {
                        ScalarStyle::Plain => resolve_plain(&text),
                        _ => Value::String(text.into_owned()),
                    };
                    self.finish_value(value);
                }
            }
            Event::MappingStart(style, anchor, ref tag)
            | Event::SequenceStart(style, anchor, ref tag) => {
                let is_mapping = matches!(event, Event::MappingStart(..));
                reject_properties(&bytes, anchor, tag.is_some())?;
                if self.expects_key() {
                    return Err(
                        LoadError::new(bytes, "a mapping key must be a plain scalar")
                            .help("use a plain string as the key"),
                    );
                }
                let kind = if is_mapping {
                    Kind::Mapping
                } else {
                    Kind::Sequence
                };
                let is_flow = style == StructureStyle::Flow;
                let is_node_list = !is_mapping
                    && self.stack.len() == 1
                    && self.stack[0]
                        .pending_key
                        .as_ref()
                        .is_some_and(|(key, _)| self.spans.key_text(*key) == "nodes");
                let node = self.open_node(bytes.clone(), kind)?;
                if self.stack.len() >= MAX_DEPTH {
                    return Err(nesting_error(bytes));
                }
                self.stack.push(Frame {
                    node,
                    is_mapping,
                    is_flow,
                    is_node_list,
                    pending_key: None,
                    first_child_start: None,
                    last_child_end: bytes.end,
                    edges_from: self.edges.len(),
                    values_from: self.values.len(),
                });
            }
            Event::MappingEnd | Event::SequenceEnd => self.close(bytes)?,
            _ => {}
        }
        Ok(())
    }

    fn expects_key(&self) -> bool {
        self.stack
            .last()
            .is_some_and(|frame| frame.is_mapping && frame.pending_key.is_none())
    }

    /// Records a new value (its span, and its place in the open parent), within the limits.
    fn open_node(&mut self, value: Range<usize>, kind: Kind) -> Result<u32, LoadError> {
        if self.spans.len() >= self.limits.values {
            return Err(LoadError::new(
                value,
                format!("the document holds more than {} values", self.limits.values),
            )
            .help(self.limits.too_big_help));
        }
        let id = u32::try_from(self.spans.len())
            .map_err(|_| LoadError::new(value.clone(), "the document has too many values"))?;
        let mut key_span = None;
        if let Some(frame) = self.stack.last_mut() {
            let list_items = self.limits.list_items;
            if !frame.is_mapping && self.edges.len() - frame.edges_from >= list_items {
                return Err(LoadError::new(
                    value,
                    format!("a list holds more than {list_items} items"),
                )
                .help(self.limits.too_big_help));
            }
            frame.last_child_end = frame.last_child_end.max(value.end);
            let child_start = frame
                .pending_key
                .as_ref()
                .map_or(value.start, |(_, key)| key.start);
            frame.first_child_start.get_or_insert(child_start);
            match frame.pending_key.take() {
                Some((key, span)) => {
                    self.edges.push((key, id));
                    key_span = Some(span);
                }
                None => self.edges.push((LIST_ITEM, id)),
            }
        }
        let value = match &key_span {
            // An empty value (`key:`) has an empty span right after the key; point at the key.
            Some(key) if value.is_empty() => key.clone(),
            _ => value,
        };
        self.spans.push(key_span, value, kind);
        Ok(id)
    }

    /// Hands a complete value to its parent collection, or makes it the document.
    fn finish_value(&mut self, value: Value) {
        match (self.stack.last(), self.take_node.as_mut()) {
            (None, _) => self.root = Some(value),
            (Some(frame), Some(take_node)) if frame.is_node_list => {
                self.values.push(take_node(NodeItem::Value(value)));
            }
            (Some(_), _) => self.values.push(value),
        }
    }

    fn close(&mut self, end: Range<usize>) -> Result<(), LoadError> {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        let span = if frame.is_flow {
            self.spans.value_span_of(frame.node).start..end.end
        } else {
            let start = self.spans.value_span_of(frame.node).start;
            frame.first_child_start.unwrap_or(start)..frame.last_child_end
        };
        if let Some(parent) = self.stack.last_mut() {
            parent.last_child_end = parent.last_child_end.max(span.end);
        }
        // Before the span index sorts the mapping's keys: values pair with them in document order.
        let (value, taken) = match self.take_mapping_item(&frame) {
            Some(placeholder) => (placeholder, true),
            None => (self.collect_value(&frame), false),
        };
        self.spans
            .close(frame.node, span, &mut self.edges[frame.edges_from..]);
        if let Some((name, key, first)) = self.spans.first_duplicate(frame.node) {
            // `placed` names the first one's line in the message (the builder has no text).
            let mut error = LoadError::new(key, format!("duplicate key `{name}`")).help(
                "remove one of the two entries, or merge them; a key may appear once in a mapping",
            );
            error.other = Some((first, format!("`{name}` first written here")));
            return Err(error);
        }
        self.edges.truncate(frame.edges_from);
        if taken {
            self.values.push(value);
        } else {
            self.finish_value(value);
        }
        Ok(())
    }

    /// A closing mapping that is an item of the `nodes` list goes to `take_node` as its members;
    /// what stands in its place, or `None` for any other collection.
    fn take_mapping_item(&mut self, frame: &Frame) -> Option<Value> {
        let in_node_list = self.stack.last().is_some_and(|parent| parent.is_node_list);
        let take_node = self
            .take_node
            .as_mut()
            .filter(|_| frame.is_mapping && in_node_list)?;
        let keys = self.edges[frame.edges_from..]
            .iter()
            .map(|(key, _)| self.spans.key_text(*key));
        let mut members = keys.zip(self.values.drain(frame.values_from..));
        Some(take_node(NodeItem::Members(&mut members)))
    }

    /// The value of a closing collection, made of its children's values (in document order).
    fn collect_value(&mut self, frame: &Frame) -> Value {
        let values = self.values.drain(frame.values_from..);
        if frame.is_mapping {
            let keys = self.edges[frame.edges_from..].iter();
            let members = keys
                .zip(values)
                .map(|((key, _), value)| (self.spans.key_text(*key).to_string(), value));
            Value::Object(members.collect::<Map<String, Value>>())
        } else {
            Value::Array(values.collect())
        }
    }
}

fn nesting_error(span: Range<usize>) -> LoadError {
    LoadError::new(
        span,
        format!("the document nests deeper than {MAX_DEPTH} levels"),
    )
    .help("a cluster spec is only a few levels deep; flatten the structure")
}

fn reject_properties(bytes: &Range<usize>, anchor: usize, tagged: bool) -> Result<(), LoadError> {
    if anchor != 0 {
        return Err(LoadError::new(
            bytes.clone(),
            "YAML anchors (`&name`) are not allowed in a spec",
        )
        .help("remove the anchor and write repeated values out in full"));
    }
    if tagged {
        return Err(LoadError::new(
            bytes.clone(),
            "YAML tags (`!!type`, `!name`) are not allowed in a spec",
        )
        .help("remove the tag; quote the value if it must be a string"));
    }
    Ok(())
}

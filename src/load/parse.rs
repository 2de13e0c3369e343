//! The one pass over the YAML text: the events of granit-parser (or, for plain block YAML, of
//! [`plain_block`], which gives the same events for less) build the JSON value and the span index
//! together, and what a spec never needs (anchors, aliases, tags, duplicate keys, several
//! documents, deep nesting, huge lists) is rejected on the way, before it costs anything. The items
//! of one top-level list can be handed, each as it closes, to an [`Items`] sink instead of being
//! kept in the value (the spec's nodes are typed and their values dropped at once).

use super::plain_block;
use super::scalar::resolve_plain;
use super::span_index::{Kind, LIST_ITEM, SpanIndex};
use super::{Items, Limits, LoadError};
use granit_parser::{Event, Parser, ScalarStyle, Span, StructureStyle};
use serde_json::{Map, Value};
use std::ops::Range;

/// Deepest nesting a document may use; the deepest real spec path
/// (`/windows/controlPlane/kubeadmToken/fromEnv`) is 4 levels and a Kubernetes object rarely goes
/// past 20, so 64 leaves room for both while stopping bracket bombs at once.
pub const MAX_DEPTH: usize = 64;

/// Which part of a file a parse reads: the whole of it, or one of the three parts of a file split
/// at a top-level block list (`split`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Whole,
    /// From the start to a line where the list goes on: it ends inside the list.
    Head,
    /// The rest of the list, from that line: a block list at the list's column, one level down.
    Body {
        streamed: bool,
    },
    /// What follows the list: more members of the top-level mapping, at column 0.
    Tail,
}

/// What one parse built, before the parts of a split file are put together.
pub(super) struct Parsed<I> {
    pub value: Value,
    pub spans: SpanIndex,
    pub items: I,
    pub shape: Shape,
}

/// What the parse saw that tells whether its part fits the parts beside it.
#[derive(Debug, Default, Clone)]
pub(super) struct Shape {
    /// Where the root collection starts, and whether it is a block mapping or a block list.
    pub root_start: Option<usize>,
    pub root_is_block_mapping: bool,
    pub root_is_block_list: bool,
    /// Whether the document began with `---`.
    pub explicit_start: bool,
    /// The last top-level member whose value is a block list, with where its first `-` stands,
    /// when that list was still open at the end of the text.
    pub open_list: Option<OpenList>,
    /// Whether the last value read was an empty scalar, whose place comes from what follows it.
    pub ends_on_empty_scalar: bool,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct OpenList {
    /// The list's node in the span index.
    pub node: u32,
    /// Its key, interned in the part's span index.
    pub key: u32,
    /// Where its first `-` stands.
    pub dash: usize,
}

/// Parses `text` (offset by `base` bytes in the file) as `part`, within `limits`; the items of the
/// top-level list named `streamed` go to `I` as they close. Plain block YAML, the way specs are
/// written, is read by [`plain_block`]; any other text, and any text with an error, by
/// granit-parser.
pub(super) fn parse<I: Items>(
    text: &str,
    base: usize,
    limits: &'static Limits,
    part: Part,
    streamed: Option<&str>,
) -> Result<Parsed<I>, Stop> {
    match read_plain_block(text, base, limits, part, streamed) {
        Some(parsed) => Ok(parsed),
        None => read_with_granit(text, base, limits, part, streamed),
    }
}

/// The text read by granit-parser: any YAML, and every error in its words and place.
pub(super) fn read_with_granit<I: Items>(
    text: &str,
    base: usize,
    limits: &'static Limits,
    part: Part,
    streamed: Option<&str>,
) -> Result<Parsed<I>, Stop> {
    let mut options = granit_parser::options! {
        flow_nesting_limit: 2 * MAX_DEPTH,
        block_nesting_limit: 2 * MAX_DEPTH,
        disallow_directives: true,
        emit_unresolved_aliases: true,
    };
    // Comments carry no data and no span a finding points at.
    options.set_emit_comments(false);
    let mut builder = Builder::new(text.len(), base, limits, part, streamed);
    for event in Parser::new_from_str_with_options(text, options) {
        let (event, span) = event.map_err(|error| {
            let local = error.marker().byte_offset().unwrap_or(0);
            let at = local + base;
            let message = error.kind().to_string();
            if message.contains("recursion limit") || message.contains("nesting limit") {
                Stop::Error(nesting_error(at..at))
            } else if let Some(mistake) = super::syntax::diagnose(text, local, error.kind()) {
                Stop::Error(mistake.shifted(base))
            } else {
                Stop::Error(LoadError::new(at..at, message))
            }
        })?;
        builder.event(event, span)?;
    }
    Ok(builder.finish())
}

/// The text read by [`plain_block`], when it is plain block YAML and the builder takes all of it;
/// `None` leaves every other text, and every stop, to granit-parser.
pub(super) fn read_plain_block<I: Items>(
    text: &str,
    base: usize,
    limits: &'static Limits,
    part: Part,
    streamed: Option<&str>,
) -> Option<Parsed<I>> {
    let mut builder = Builder::new(text.len(), base, limits, part, streamed);
    let read = plain_block::scan(text, |event, span| builder.event(event, span));
    matches!(read, Ok(true)).then(|| builder.finish())
}

/// Why a parse stopped before the end.
#[derive(Debug)]
pub(super) enum Stop {
    /// The text is not acceptable: the reason, at its place.
    Error(LoadError),
    /// The item sink could not take an item: the caller reads the file the thorough way.
    Declined,
}

impl From<LoadError> for Stop {
    fn from(error: LoadError) -> Self {
        Stop::Error(error)
    }
}

/// The most members a mapping item goes to the sink as members rather than as an object: a
/// spec's node has eight fields, and placing each value costs a pass over its siblings.
const MEMBERS_HANDED_OVER: usize = 16;

/// An open list or mapping.
struct Frame {
    node: u32,
    is_mapping: bool,
    /// Flow collections span their brackets; block ones span from their first to last child.
    is_flow: bool,
    /// Whether its items go to the sink instead of into its value.
    streams: bool,
    /// For a mapping: the key read and waiting for its value.
    pending_key: Option<(u32, Range<usize>)>,
    first_child_start: Option<usize>,
    last_child_end: usize,
    /// Where this collection's children begin in the builder's shared `edges` and `values`.
    edges_from: usize,
    values_from: usize,
}

struct Builder<I> {
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
    part: Part,
    /// The key of the top-level list whose items go to `items`, once interned.
    streamed_key: Option<u32>,
    items: I,
    shape: Shape,
}

impl<I: Items> Builder<I> {
    fn new(
        text_len: usize,
        base: usize,
        limits: &'static Limits,
        part: Part,
        streamed: Option<&str>,
    ) -> Self {
        let mut spans = SpanIndex::for_text(text_len, limits.values);
        let streamed_key = streamed.map(|key| spans.intern(key));
        Builder {
            spans,
            stack: Vec::new(),
            edges: Vec::new(),
            values: Vec::new(),
            root: None,
            base,
            documents: 0,
            limits,
            part,
            streamed_key,
            items: {
                let mut items = I::default();
                items.expect_text(text_len);
                items
            },
            shape: Shape::default(),
        }
    }

    fn finish(self) -> Parsed<I> {
        Parsed {
            value: self.root.unwrap_or(Value::Null),
            spans: self.spans,
            items: self.items,
            shape: self.shape,
        }
    }

    fn bytes(&self, span: &Span) -> Range<usize> {
        let start = span.start.byte_offset().unwrap_or(0) + self.base;
        let end = span.end.byte_offset().unwrap_or(0) + self.base;
        start..end.max(start)
    }

    /// The body of a split list sits one level below the top of the file.
    fn depth(&self) -> usize {
        self.stack.len() + usize::from(matches!(self.part, Part::Body { .. }))
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), Stop> {
        let bytes = self.bytes(&span);
        match event {
            Event::DocumentStart(explicit, _) => {
                self.documents += 1;
                self.shape.explicit_start |= explicit;
                if self.documents > 1 {
                    return Err(LoadError::new(
                        bytes,
                        "the file holds more than one YAML document",
                    )
                    .help(self.limits.one_document_help)
                    .into());
                }
            }
            Event::Alias(_) | Event::UnresolvedAlias(_) => {
                return Err(LoadError::new(
                    bytes,
                    "YAML aliases (`*name`) are not allowed in a spec",
                )
                .help("write the value out in full where the alias stands")
                .into());
            }
            Event::Scalar(text, style, anchor, tag) => {
                reject_properties(&bytes, anchor, tag.is_some())?;
                self.shape.ends_on_empty_scalar = bytes.is_empty();
                if self.stack.len() == 1 {
                    // A top-level member after the list: the list is no longer open at the end.
                    self.shape.open_list = None;
                }
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
                    self.finish_value(value)?;
                }
            }
            Event::MappingStart(style, anchor, ref tag)
            | Event::SequenceStart(style, anchor, ref tag) => {
                let is_mapping = matches!(event, Event::MappingStart(..));
                reject_properties(&bytes, anchor, tag.is_some())?;
                self.shape.ends_on_empty_scalar = false;
                if self.expects_key() {
                    return Err(
                        LoadError::new(bytes, "a mapping key must be a plain scalar")
                            .help("use a plain string as the key")
                            .into(),
                    );
                }
                let kind = if is_mapping {
                    Kind::Mapping
                } else {
                    Kind::Sequence
                };
                let is_flow = style == StructureStyle::Flow;
                let streams = !is_mapping && self.streams_items();
                if self.stack.is_empty() {
                    self.shape.root_start = Some(bytes.start);
                    self.shape.root_is_block_mapping = is_mapping && !is_flow;
                    self.shape.root_is_block_list = !is_mapping && !is_flow;
                }
                let key = self.pending_key_id();
                let node = self.open_node(bytes.clone(), kind)?;
                if self.depth() >= MAX_DEPTH {
                    return Err(nesting_error(bytes).into());
                }
                if self.stack.len() == 1 {
                    self.shape.open_list =
                        key.filter(|_| !is_mapping && !is_flow).map(|key| OpenList {
                            node,
                            key,
                            dash: bytes.start,
                        });
                }
                self.stack.push(Frame {
                    node,
                    is_mapping,
                    is_flow,
                    streams,
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

    fn pending_key_id(&self) -> Option<u32> {
        self.stack
            .last()
            .and_then(|frame| frame.pending_key.as_ref())
            .map(|(key, _)| *key)
    }

    /// Whether a list opening here is the one whose items go to the sink: the top-level member
    /// with the streamed key, or the root list of a split list's body that is that member.
    fn streams_items(&self) -> bool {
        match self.stack.as_slice() {
            [] => self.part == Part::Body { streamed: true },
            [root] => {
                root.is_mapping
                    && self.streamed_key.is_some()
                    && self.pending_key_id() == self.streamed_key
            }
            _ => false,
        }
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

    /// Hands a complete value to its parent collection (or to the sink, when the parent is the
    /// streamed list), or makes it the document.
    fn finish_value(&mut self, value: Value) -> Result<(), Stop> {
        match self.stack.last() {
            None => self.root = Some(value),
            Some(frame) if frame.streams => {
                if !self.items.take(value) {
                    return Err(Stop::Declined);
                }
            }
            Some(_) => self.values.push(value),
        }
        Ok(())
    }

    fn close(&mut self, end: Range<usize>) -> Result<(), Stop> {
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
        let children = self.edges.len() - frame.edges_from;
        let to_sink_as_members = frame.is_mapping
            && children <= MEMBERS_HANDED_OVER
            && self.stack.last().is_some_and(|parent| parent.streams);
        let value = (!to_sink_as_members).then(|| self.collect_value(&frame));
        self.spans
            .close(frame.node, span, &mut self.edges[frame.edges_from..]);
        if let Some((name, key)) = self.spans.first_duplicate(frame.node) {
            return Err(LoadError::new(key, format!("duplicate key `{name}`"))
                .help("remove one of the two entries; a key may appear once in a mapping")
                .into());
        }
        match value {
            Some(value) => {
                self.edges.truncate(frame.edges_from);
                self.finish_value(value)
            }
            None => self.hand_over_members(&frame),
        }
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

    /// Gives the sink a closed mapping item as its members, in key order: its edges, which the
    /// span index has just sorted by key, each with its value. The values are in document order,
    /// as the children's node ids are, so a value's place is the number of siblings read before
    /// it.
    fn hand_over_members(&mut self, frame: &Frame) -> Result<(), Stop> {
        let edges = &self.edges[frame.edges_from..];
        let values = &mut self.values[frame.values_from..];
        let spans = &self.spans;
        let members = edges.iter().map(|&(key, node)| {
            let read_before = edges.iter().filter(|sibling| sibling.1 < node).count();
            (
                spans.key_text(key),
                std::mem::take(&mut values[read_before]),
            )
        });
        let taken = self.items.take_members(members);
        self.edges.truncate(frame.edges_from);
        self.values.truncate(frame.values_from);
        if taken { Ok(()) } else { Err(Stop::Declined) }
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

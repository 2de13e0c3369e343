//! Where each value and key of a loaded document stands in its file, by JSON Pointer. An arena:
//! one small record per value, the children of every collection in one shared edge list, and each
//! distinct key text stored once (a spec repeats the same few keys in every node).

use std::collections::HashMap;
use std::ops::Range;

/// Byte spans of every value and key, addressed by JSON Pointer.
#[derive(Debug, Default)]
pub struct SpanIndex {
    nodes: Vec<SpanNode>,
    /// The children of each collection, contiguous: `(key, node)` for mapping members sorted by
    /// key text, `(LIST_ITEM, node)` for list items in order.
    edges: Vec<(u32, u32)>,
    keys: Vec<Box<str>>,
    key_ids: HashMap<Box<str>, u32>,
}

#[derive(Debug)]
struct SpanNode {
    /// The span of the member's key, when this value is a mapping member.
    key: Option<Span>,
    value: Span,
    kind: Kind,
    first_edge: u32,
    edge_count: u32,
}

/// A byte span; files are at most `MAX_SPEC_BYTES`, so 32 bits hold any offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Scalar,
    Sequence,
    Mapping,
}

impl Span {
    fn of(range: &Range<usize>) -> Self {
        let clamp = |offset: usize| u32::try_from(offset).unwrap_or(u32::MAX);
        Span {
            start: clamp(range.start),
            end: clamp(range.end),
        }
    }

    fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl SpanIndex {
    /// An empty index with room for every value `text_len` bytes of YAML can hold, so that it
    /// does not grow by copying. A value takes at least two bytes (`1,`); pages never written to
    /// cost no memory.
    pub(super) fn for_text(text_len: usize, max_values: usize) -> Self {
        let values = (text_len / 2).min(max_values);
        SpanIndex {
            nodes: Vec::with_capacity(values),
            edges: Vec::with_capacity(values),
            ..SpanIndex::default()
        }
    }

    /// The span of the value at `pointer`, if the document has that exact path.
    pub fn value_span(&self, pointer: &str) -> Option<Range<usize>> {
        self.find(pointer)
            .map(|node| self.nodes[node].value.range())
    }

    /// The span of the key of the member at `pointer`, if that exact path is a mapping member.
    pub fn key_span(&self, pointer: &str) -> Option<Range<usize>> {
        self.find(pointer)
            .and_then(|node| self.nodes[node].key)
            .map(Span::range)
    }

    /// The span of the deepest existing ancestor of `pointer` (the document itself at worst), for
    /// findings about something that is absent.
    pub fn nearest_span(&self, pointer: &str) -> Range<usize> {
        let mut pointer = pointer;
        loop {
            if let Some(span) = self.value_span(pointer) {
                return span;
            }
            match pointer.rfind('/') {
                Some(cut) => pointer = &pointer[..cut],
                None => return 0..0,
            }
        }
    }

    fn find(&self, pointer: &str) -> Option<usize> {
        if self.nodes.is_empty() {
            return None;
        }
        let mut node = 0usize;
        if pointer.is_empty() {
            return Some(node);
        }
        let rest = pointer.strip_prefix('/')?;
        for token in rest.split('/') {
            let token = unescape(token);
            let record = &self.nodes[node];
            let edges = self.edges_of(record);
            node = match record.kind {
                Kind::Scalar => return None,
                Kind::Sequence => edges.get(token.parse::<usize>().ok()?)?.1 as usize,
                Kind::Mapping => {
                    let at = edges
                        .binary_search_by(|(key, _)| self.key_text(*key).cmp(token.as_str()))
                        .ok()?;
                    edges[at].1 as usize
                }
            };
        }
        Some(node)
    }

    fn edges_of(&self, node: &SpanNode) -> &[(u32, u32)] {
        let start = node.first_edge as usize;
        &self.edges[start..start + node.edge_count as usize]
    }

    /// The text of an interned key.
    pub(super) fn key_text(&self, key: u32) -> &str {
        self.keys.get(key as usize).map_or("", |text| text)
    }

    /// Interns a key's text, so that each distinct key is stored once.
    pub(super) fn intern(&mut self, text: &str) -> u32 {
        if let Some(id) = self.key_ids.get(text) {
            return *id;
        }
        let id = u32::try_from(self.keys.len()).unwrap_or(LIST_ITEM);
        self.keys.push(text.into());
        self.key_ids.insert(text.into(), id);
        id
    }

    /// The current span of a value by its id.
    pub(super) fn value_span_of(&self, node: u32) -> Range<usize> {
        self.nodes[node as usize].value.range()
    }

    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Adds a value with the span of its key, if it is a mapping member.
    pub(super) fn push(&mut self, key: Option<Range<usize>>, value: Range<usize>, kind: Kind) {
        self.nodes.push(SpanNode {
            key: key.as_ref().map(Span::of),
            value: Span::of(&value),
            kind,
            first_edge: 0,
            edge_count: 0,
        });
    }

    /// Sets a collection's final span and its children: `(key id, node)` pairs, or
    /// `(LIST_ITEM, node)` for a list. Mapping members are sorted by key text (stably, so that
    /// duplicates stay in document order), so that lookups are binary searches.
    pub(super) fn close(&mut self, node: u32, value: Range<usize>, children: &mut [(u32, u32)]) {
        if self.nodes[node as usize].kind == Kind::Mapping {
            children.sort_by(|a, b| self.key_text(a.0).cmp(self.key_text(b.0)));
        }
        let first_edge = u32::try_from(self.edges.len()).unwrap_or(u32::MAX);
        self.edges.extend_from_slice(children);
        let record = &mut self.nodes[node as usize];
        record.value = Span::of(&value);
        record.first_edge = first_edge;
        record.edge_count = u32::try_from(children.len()).unwrap_or(u32::MAX);
    }

    /// The later (in document order) of the first two members of a closed mapping with equal keys.
    pub(super) fn first_duplicate(&self, node: u32) -> Option<(&str, Range<usize>, Range<usize>)> {
        let record = &self.nodes[node as usize];
        if record.kind != Kind::Mapping {
            return None;
        }
        let edges = self.edges_of(record);
        let at = edges.windows(2).position(|pair| pair[0].0 == pair[1].0)?;
        let (earlier, later) = (
            edges[at].1.min(edges[at + 1].1),
            edges[at].1.max(edges[at + 1].1),
        );
        let key = |node: u32| self.nodes[node as usize].key.map_or(0..0, Span::range);
        Some((self.key_text(edges[at].0), key(later), key(earlier)))
    }
}

/// The marker of a list item in the edge list; no key is interned with this id.
pub(super) const LIST_ITEM: u32 = u32::MAX;

/// Escapes one reference token of a JSON Pointer (RFC 6901).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The JSON Pointer of every value in `value`, the root (`""`) included, each after the values
/// inside it: what a span index of the same document must answer for.
pub fn every_pointer(value: &serde_json::Value) -> Vec<String> {
    fn walk(value: &serde_json::Value, pointer: String, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(members) => {
                for (name, member) in members {
                    walk(member, format!("{pointer}/{}", escape(name)), found);
                }
            }
            serde_json::Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    walk(item, format!("{pointer}/{index}"), found);
                }
            }
            _ => {}
        }
        found.push(pointer);
    }
    let mut found = Vec::new();
    walk(value, String::new(), &mut found);
    found
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

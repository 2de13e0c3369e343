//! Where each value and key of a loaded document stands in its file, by JSON Pointer. An arena:
//! one small record per value, the children of every collection in one shared edge list, and each
//! distinct key text stored once.

use std::collections::HashMap;
use std::ops::Range;

/// Byte spans of every value and key, addressed by JSON Pointer.
#[derive(Debug, Default)]
pub struct SpanIndex {
    nodes: Vec<SpanNode>,
    /// The children of each collection, contiguous: `(key, node)` for mapping members sorted by
    /// key text, `(NO_KEY, node)` for list items in order.
    edges: Vec<(u32, u32)>,
    keys: Vec<Box<str>>,
    key_ids: HashMap<Box<str>, u32>,
    /// The last key interned for each length and first byte: a spec repeats the same few keys
    /// in every node, and this finds them without hashing.
    recent: Vec<u32>,
    /// Each key's first eight bytes as a big-endian number, zero-padded: two keys whose numbers
    /// differ are in that order as text too, so sorting members mostly compares numbers.
    key_prefixes: Vec<u64>,
}

/// The number [`SpanIndex::key_prefixes`] holds for `text`.
fn key_prefix(text: &str) -> u64 {
    let mut bytes = [0; 8];
    let head = &text.as_bytes()[..text.len().min(8)];
    bytes[..head.len()].copy_from_slice(head);
    u64::from_be_bytes(bytes)
}

/// 24 bytes, not the 32 of an `Option` key and a separate kind: at 65,536 nodes a spec has about
/// 600,000 values, and the index lives as long as the findings need places.
#[derive(Debug)]
struct SpanNode {
    /// The span of the member's key; [`NO_SPAN`] when this is not a mapping member.
    key: Span,
    value: Span,
    first_edge: u32,
    /// The number of children below [`KIND_SHIFT`], the [`Kind`] above it.
    kind_and_edge_count: u32,
}

const _: () = assert!(std::mem::size_of::<SpanNode>() == 24);

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

const NO_KEY: u32 = u32::MAX;

/// The key span of a value that is not a mapping member: files are far smaller than 4 GiB, so
/// no key starts at `u32::MAX`.
const NO_SPAN: Span = Span {
    start: u32::MAX,
    end: u32::MAX,
};

/// Where a record's kind starts in `kind_and_edge_count`: a collection has fewer than 2^30
/// children, since a file holds at most 64,000,000 values (`Limits::values`).
const KIND_SHIFT: u32 = 30;
const EDGE_COUNT_MASK: u32 = (1 << KIND_SHIFT) - 1;

/// Slots of the recent-key cache; the keys of a spec or a Kubernetes object spread over them.
const RECENT_SLOTS: usize = 64;

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

impl Kind {
    fn bits(self) -> u32 {
        match self {
            Kind::Scalar => 0,
            Kind::Sequence => 1,
            Kind::Mapping => 2,
        }
    }

    fn from_bits(bits: u32) -> Self {
        match bits {
            1 => Kind::Sequence,
            2 => Kind::Mapping,
            _ => Kind::Scalar,
        }
    }
}

impl SpanNode {
    fn key(&self) -> Option<Span> {
        (self.key != NO_SPAN).then_some(self.key)
    }

    fn kind(&self) -> Kind {
        Kind::from_bits(self.kind_and_edge_count >> KIND_SHIFT)
    }

    fn edge_count(&self) -> u32 {
        self.kind_and_edge_count & EDGE_COUNT_MASK
    }

    fn set_edges(&mut self, first_edge: u32, count: usize) {
        let count =
            u32::try_from(count).map_or(EDGE_COUNT_MASK, |count| count.min(EDGE_COUNT_MASK));
        self.first_edge = first_edge;
        self.kind_and_edge_count = (self.kind().bits() << KIND_SHIFT) | count;
    }
}

impl SpanIndex {
    /// An empty index with room for every value `text_len` bytes of YAML can hold, and for the
    /// edge to each, so that neither list grows by copying (nor when a later part of a split file
    /// is adopted). A value takes at least two bytes (`1,`); pages never written to cost no
    /// memory.
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
            .and_then(|node| self.nodes[node].key())
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
            node = match record.kind() {
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
        &self.edges[start..start + node.edge_count() as usize]
    }

    /// The text of an interned key.
    pub(super) fn key_text(&self, key: u32) -> &str {
        self.keys.get(key as usize).map_or("", |text| text)
    }

    /// Interns a key's text: a spec repeats the same few keys in every node.
    pub(super) fn intern(&mut self, text: &str) -> u32 {
        if self.recent.is_empty() {
            self.recent = vec![NO_KEY; RECENT_SLOTS];
        }
        let slot = (text.len() * 31 + text.bytes().next().map_or(0, usize::from)) % RECENT_SLOTS;
        let recent = self.recent[slot];
        if self
            .keys
            .get(recent as usize)
            .is_some_and(|key| **key == *text)
        {
            return recent;
        }
        let id = match self.key_ids.get(text) {
            Some(id) => *id,
            None => {
                let id = u32::try_from(self.keys.len()).unwrap_or(NO_KEY);
                self.keys.push(text.into());
                self.key_prefixes.push(key_prefix(text));
                self.key_ids.insert(text.into(), id);
                id
            }
        };
        self.recent[slot] = id;
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
            key: key.as_ref().map_or(NO_SPAN, Span::of),
            value: Span::of(&value),
            first_edge: 0,
            kind_and_edge_count: kind.bits() << KIND_SHIFT,
        });
    }

    /// Sets a collection's final span and its children: `(key id, node)` pairs, or `(NO_KEY, node)`
    /// for a list. Mapping members are sorted by key text, so that lookups are binary searches.
    pub(super) fn close(&mut self, node: u32, value: Range<usize>, children: &mut [(u32, u32)]) {
        if self.nodes[node as usize].kind() == Kind::Mapping {
            self.sort_members(children);
        }
        let first_edge = u32::try_from(self.edges.len()).unwrap_or(u32::MAX);
        self.edges.extend_from_slice(children);
        let record = &mut self.nodes[node as usize];
        record.value = Span::of(&value);
        record.set_edges(first_edge, children.len());
    }

    /// Sorts a mapping's members by key text, stably, comparing the texts only where their first
    /// eight bytes agree. (Comparing strings in each node's sort was 5% of the instructions at
    /// 65,536 nodes.)
    fn sort_members(&self, children: &mut [(u32, u32)]) {
        let prefix = |key: u32| self.key_prefixes.get(key as usize).copied().unwrap_or(0);
        children.sort_by(|a, b| {
            prefix(a.0)
                .cmp(&prefix(b.0))
                .then_with(|| self.key_text(a.0).cmp(self.key_text(b.0)))
        });
    }

    /// Takes in the index of a later part of the same file (whose spans are already file
    /// offsets): its root is the continuation of `parent` here, so the root's children become
    /// more children of `parent`, and its other nodes come along. False when a mapping would then
    /// hold a key twice.
    pub(super) fn adopt(&mut self, parent: u32, later: SpanIndex) -> bool {
        let Some(later_root) = later.nodes.first() else {
            return true;
        };
        let node_offset = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        let edge_offset = u32::try_from(self.edges.len()).unwrap_or(u32::MAX);
        let keys: Vec<u32> = later.keys.iter().map(|key| self.intern(key)).collect();
        let moved = |(key, node): (u32, u32)| {
            let key = if key == NO_KEY {
                NO_KEY
            } else {
                keys.get(key as usize).copied().unwrap_or(NO_KEY)
            };
            (key, node + node_offset)
        };
        // The adopted edges and the parent's new list of children, in one step at most.
        let parent_children = self.nodes[parent as usize].edge_count() as usize;
        self.edges
            .reserve(later.edges.len() + parent_children + later_root.edge_count() as usize);
        self.edges.extend(later.edges.iter().copied().map(moved));
        let adopted = later_root.first_edge as usize
            ..(later_root.first_edge + later_root.edge_count()) as usize;
        let end = later_root.value.end;
        self.nodes.extend(later.nodes.into_iter().map(|mut node| {
            node.first_edge += edge_offset;
            node
        }));
        // The parent's children, then the adopted ones, moved together to the end of the list.
        let record = &self.nodes[parent as usize];
        let own = record.first_edge as usize..(record.first_edge + record.edge_count()) as usize;
        let mut children: Vec<(u32, u32)> = self.edges[own].to_vec();
        let adopted = adopted.start + edge_offset as usize..adopted.end + edge_offset as usize;
        children.extend_from_slice(&self.edges[adopted]);
        if record.kind() == Kind::Mapping {
            children.sort_by(|a, b| self.key_text(a.0).cmp(self.key_text(b.0)));
            if children.windows(2).any(|pair| pair[0].0 == pair[1].0) {
                return false;
            }
        }
        let first_edge = u32::try_from(self.edges.len()).unwrap_or(u32::MAX);
        self.edges.extend_from_slice(&children);
        let record = &mut self.nodes[parent as usize];
        record.set_edges(first_edge, children.len());
        record.value.end = record.value.end.max(end);
        true
    }

    /// Widens a node's span to end at least at `end` (a block collection continued by a later
    /// part of the file).
    pub(super) fn extend_to(&mut self, node: u32, end: usize) {
        let end = u32::try_from(end).unwrap_or(u32::MAX);
        if let Some(record) = self.nodes.get_mut(node as usize) {
            record.value.end = record.value.end.max(end);
        }
    }

    /// How many children a collection has.
    pub(super) fn child_count(&self, node: u32) -> usize {
        self.nodes
            .get(node as usize)
            .map_or(0, |record| record.edge_count() as usize)
    }

    /// The end of a node's span.
    pub(super) fn value_end(&self, node: u32) -> usize {
        self.nodes
            .get(node as usize)
            .map_or(0, |record| record.value.end as usize)
    }

    /// The later (in document order) of the first two members of a closed mapping with equal keys.
    pub(super) fn first_duplicate(&self, node: u32) -> Option<(&str, Range<usize>)> {
        let record = &self.nodes[node as usize];
        if record.kind() != Kind::Mapping {
            return None;
        }
        let edges = self.edges_of(record);
        let at = edges.windows(2).position(|pair| pair[0].0 == pair[1].0)?;
        let later = edges[at].1.max(edges[at + 1].1);
        let key = self.nodes[later as usize].key().map_or(0..0, Span::range);
        Some((self.key_text(edges[at].0), key))
    }
}

/// The marker of a list item in the edge list.
pub(super) const LIST_ITEM: u32 = NO_KEY;

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Members sorted by their keys' first eight bytes, then their texts, come out as a plain
    /// stable sort by key text puts them: keys that share eight bytes, that are prefixes of one
    /// another, that hold a NUL or bytes above 0x7f, and duplicates.
    #[test]
    fn members_sort_as_a_stable_sort_by_text_does() {
        let mut index = SpanIndex::default();
        let shapes: [&[&str]; 7] = [
            &["name", "address", "os"],
            &["podSubnetB", "podSubnetA", "podSubnet", "podSubne", "pod"],
            &["ab\u{0}x", "ab", "ab\u{1}", "a"],
            &["os", "os", "address"],
            &["zé", "zz", "z~", "z"],
            &["instanceIdentifier", "instanceId", "instanceIdentifie"],
            &[],
        ];
        let mut node = 0;
        for shape in shapes {
            let mut children: Vec<(u32, u32)> = shape
                .iter()
                .map(|key| {
                    node += 1;
                    (index.intern(key), node)
                })
                .collect();
            let mut expected = children.clone();
            expected.sort_by(|a, b| index.key_text(a.0).cmp(index.key_text(b.0)));
            index.sort_members(&mut children);
            assert_eq!(children, expected, "{shape:?}");
        }
    }
}

//! The first pass over the YAML text: an event parser that records the byte span of every key and
//! value under its JSON Pointer, and rejects what a spec never needs (anchors, aliases, tags,
//! duplicate keys, several documents, deep nesting) before the data deserializer sees the text.

use super::LoadError;
use granit_parser::{Event, Parser, Span, StructureStyle};
use std::ops::Range;

/// Deepest nesting a spec may use; the deepest real path (`/windows/controlPlane/kubeadmToken/fromEnv`)
/// is 4 levels, so 64 leaves room for any hand-written spec while stopping bracket bombs at once.
pub const MAX_DEPTH: usize = 64;

/// Longest list a spec may hold: node subnets are at most 2^16 (HG106 caps the mask at 16 bits past
/// the cluster prefix), so no usable spec has more nodes, and a million-item list stops here.
pub const MAX_LIST_ITEMS: usize = 65_536;

/// Most values (scalars, lists, mappings) a spec may hold: a 65,536-node spec has about 600,000.
pub const MAX_VALUES: usize = 1_000_000;

/// Byte spans of every value and key, addressed by JSON Pointer.
#[derive(Debug, Default)]
pub struct SpanIndex {
    nodes: Vec<SpanNode>,
}

#[derive(Debug)]
struct SpanNode {
    key: Option<Range<usize>>,
    value: Range<usize>,
    children: Children,
}

#[derive(Debug)]
enum Children {
    Leaf,
    Sequence(Vec<u32>),
    /// Sorted by key once the mapping ends, so lookups are binary searches.
    Mapping(Vec<(Box<str>, u32)>),
}

impl SpanIndex {
    /// The span of the value at `pointer`, if the document has that exact path.
    pub fn value_span(&self, pointer: &str) -> Option<Range<usize>> {
        self.find(pointer)
            .map(|node| self.nodes[node].value.clone())
    }

    /// The span of the key of the member at `pointer`, if that exact path is a mapping member.
    pub fn key_span(&self, pointer: &str) -> Option<Range<usize>> {
        self.find(pointer)
            .and_then(|node| self.nodes[node].key.clone())
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
            node = match &self.nodes[node].children {
                Children::Leaf => return None,
                Children::Sequence(items) => *items.get(token.parse::<usize>().ok()?)? as usize,
                Children::Mapping(members) => {
                    let at = members
                        .binary_search_by(|(key, _)| key.as_ref().cmp(token.as_str()))
                        .ok()?;
                    members[at].1 as usize
                }
            };
        }
        Some(node)
    }
}

/// Escapes one reference token of a JSON Pointer (RFC 6901).
pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

struct Frame {
    node: u32,
    /// For a mapping: the key read and waiting for its value.
    pending_key: Option<(Box<str>, Range<usize>)>,
    is_mapping: bool,
    /// Flow collections span their brackets; block ones span from their first to last child.
    is_flow: bool,
    first_child_start: Option<usize>,
    last_child_end: usize,
}

/// Parses `text` (offset by `base` bytes in the file, for a stripped byte-order mark) into a span
/// index, or the first reason the text is not an acceptable spec.
pub fn build(text: &str, base: usize) -> Result<SpanIndex, LoadError> {
    let options = granit_parser::options! {
        flow_nesting_limit: 2 * MAX_DEPTH,
        block_nesting_limit: 2 * MAX_DEPTH,
        disallow_directives: true,
        emit_unresolved_aliases: true,
    };
    let mut builder = Builder {
        index: SpanIndex::default(),
        stack: Vec::new(),
        base,
        documents: 0,
    };
    for event in Parser::new_from_str_with_options(text, options) {
        let (event, span) = event.map_err(|error| {
            let at = error.marker().byte_offset().unwrap_or(0) + base;
            let message = error.kind().to_string();
            if message.contains("recursion limit") || message.contains("nesting limit") {
                nesting_error(at..at)
            } else {
                LoadError::new(at..at, message)
            }
        })?;
        builder.event(event, span)?;
    }
    Ok(builder.index)
}

struct Builder {
    index: SpanIndex,
    stack: Vec<Frame>,
    base: usize,
    documents: usize,
}

impl Builder {
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
                    .help("keep one cluster spec per file and remove the `---` separator"));
                }
            }
            Event::Alias(_) | Event::UnresolvedAlias(_) => {
                return Err(LoadError::new(
                    bytes,
                    "YAML aliases (`*name`) are not allowed in a spec",
                )
                .help("write the value out in full where the alias stands"));
            }
            Event::Scalar(value, _, anchor, tag) => {
                reject_properties(&bytes, anchor, tag.is_some())?;
                if self.expects_key() {
                    if let Some(frame) = self.stack.last_mut() {
                        frame.pending_key = Some((value.into(), bytes));
                    }
                } else {
                    self.add_node(bytes, Children::Leaf)?;
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
                let children = if is_mapping {
                    Children::Mapping(Vec::new())
                } else {
                    Children::Sequence(Vec::new())
                };
                let node = self.add_node(bytes.clone(), children)?;
                if self.stack.len() >= MAX_DEPTH {
                    return Err(nesting_error(bytes));
                }
                self.stack.push(Frame {
                    node,
                    pending_key: None,
                    is_mapping,
                    is_flow: style == StructureStyle::Flow,
                    first_child_start: None,
                    last_child_end: bytes.end,
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

    fn add_node(&mut self, value: Range<usize>, children: Children) -> Result<u32, LoadError> {
        if self.index.nodes.len() >= MAX_VALUES {
            return Err(LoadError::new(
                value,
                format!("the document holds more than {MAX_VALUES} values"),
            )
            .help(
                "a cluster spec of 65,536 nodes holds about 600,000; check that this is a spec",
            ));
        }
        if let Some(frame) = self.stack.last() {
            if let Children::Sequence(items) = &self.index.nodes[frame.node as usize].children {
                if items.len() >= MAX_LIST_ITEMS {
                    return Err(LoadError::new(
                        value,
                        format!("a list holds more than {MAX_LIST_ITEMS} items"),
                    )
                    .help(
                        "a cluster has at most 65,536 nodes (one /24 each in a /8); split the spec",
                    ));
                }
            }
        }
        let id = u32::try_from(self.index.nodes.len())
            .map_err(|_| LoadError::new(value.clone(), "the document has too many values"))?;
        let mut key_span = None;
        if let Some(frame) = self.stack.last_mut() {
            frame.last_child_end = frame.last_child_end.max(value.end);
            let child_start = frame
                .pending_key
                .as_ref()
                .map_or(value.start, |(_, key)| key.start);
            frame.first_child_start.get_or_insert(child_start);
            let parent = frame.node as usize;
            match (
                &mut self.index.nodes[parent].children,
                frame.pending_key.take(),
            ) {
                (Children::Mapping(members), Some((key, span))) => {
                    members.push((key, id));
                    key_span = Some(span);
                }
                (Children::Sequence(items), _) => items.push(id),
                _ => {}
            }
        }
        let value = match &key_span {
            // An empty value (`key:`) has an empty span right after the key; point at the key.
            Some(key) if value.is_empty() => key.clone(),
            _ => value,
        };
        self.index.nodes.push(SpanNode {
            key: key_span,
            value,
            children,
        });
        Ok(id)
    }

    fn close(&mut self, end: Range<usize>) -> Result<(), LoadError> {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        let node = &mut self.index.nodes[frame.node as usize];
        if frame.is_flow {
            node.value.end = end.end;
        } else {
            node.value.start = frame.first_child_start.unwrap_or(node.value.start);
            node.value.end = frame.last_child_end;
        }
        let node_end = node.value.end;
        if let Some(parent) = self.stack.last_mut() {
            parent.last_child_end = parent.last_child_end.max(node_end);
        }
        let mut duplicate = None;
        if let Children::Mapping(members) = &mut self.index.nodes[frame.node as usize].children {
            members.sort_by(|(a, _), (b, _)| a.cmp(b));
            duplicate = first_duplicate(members).map(|second| members[second].clone());
        }
        if let Some((name, id)) = duplicate {
            let key = self.index.nodes[id as usize].key.clone().unwrap_or(0..0);
            return Err(LoadError::new(key, format!("duplicate key `{name}`"))
                .help("remove one of the two entries; a key may appear once in a mapping"));
        }
        Ok(())
    }
}

fn nesting_error(span: Range<usize>) -> LoadError {
    LoadError::new(
        span,
        format!("the document nests deeper than {MAX_DEPTH} levels"),
    )
    .help("a cluster spec is only a few levels deep; flatten the structure")
}

/// The later (in document order) of the first pair of equal keys in a key-sorted member list.
fn first_duplicate(members: &[(Box<str>, u32)]) -> Option<usize> {
    members
        .windows(2)
        .position(|pair| pair[0].0 == pair[1].0)
        .map(|at| {
            if members[at].1 > members[at + 1].1 {
                at
            } else {
                at + 1
            }
        })
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

//! Texts the loader's tests read in every way they can be read: every spec and fixture of the
//! repository, generated node lists, and shapes that step outside what the short ways take.

#[path = "../../tests/support/repository_yaml.rs"]
mod repository_yaml;

use super::{Items, SpanIndex};
use serde_json::Value;

/// Keeps every item it is handed.
#[derive(Default, Debug, PartialEq)]
pub struct Kept(pub Vec<Value>);

impl Items for Kept {
    fn take(&mut self, item: Value) -> bool {
        self.0.push(item);
        true
    }

    fn append(&mut self, later: Self) {
        self.0.extend(later.0);
    }
}

/// Every span of `value`'s paths, with the list `streamed` (when given) standing for `items`.
pub fn every_span(value: &Value, spans: &SpanIndex) -> Vec<String> {
    let mut found = super::every_pointer(value);
    found.sort();
    found
        .into_iter()
        .map(|pointer| {
            let value = spans.value_span(&pointer);
            let key = spans.key_span(&pointer);
            format!("{pointer} {value:?} {key:?}")
        })
        .collect()
}

pub fn texts() -> Vec<(String, String)> {
    let mut texts = repository_yaml::repository_yaml();
    let node = |i: usize| {
        format!(
            "  - name: node-{i}\n    os: {}\n    roles: [worker]\n    address: 10.0.{}.{}\n",
            if i % 4 == 2 { "windows" } else { "linux" },
            i / 200,
            i % 200
        )
    };
    let nodes: String = (0..40).map(node).collect();
    let head = "apiVersion: hybridgen/v1\nkind: Cluster\nmetadata:\n  name: x\n";
    for (name, text) in [
        ("generated", format!("{head}nodes:\n{nodes}")),
        (
            "tail",
            format!("{head}nodes:\n{nodes}cloud:\n  provider: aws\n"),
        ),
        (
            "indentless",
            "items:\n- a: 1\n  b: [1,\n    2]\n- |\n  text\n- x\nkind: List\n".into(),
        ),
        (
            "comments",
            "nodes:\n  # one\n  - a\n# out\n  - b # two\n\n  - c\nz: 1\n".into(),
        ),
        (
            "block-scalar",
            "a: |\n  - not an item\n  - nor this\nnodes:\n  - x\n  - y\n".into(),
        ),
        (
            "quoted",
            "nodes:\n  - \"a\n  - b\"\n  - 'c\n\n  - d'\n  - e\n".into(),
        ),
        (
            "flow",
            "nodes:\n  - [a,\n  - b]\n  - {c: 1,\n d: 2}\n  - e\n".into(),
        ),
        ("plain", "nodes:\n  - a\n    - b\n  - c\n   - d\n".into()),
        ("empty", "nodes:\n  -\n  - a:\n  -\n  - b\n".into()),
        ("documents", "nodes:\n  - a\n---\n  - b\n...\nc: 1\n".into()),
        ("duplicate", "a: 1\nnodes:\n  - a\n  - b\na: 2\n".into()),
        ("deeper", "a:\n  nodes:\n    - a\n    - b\n  c: 1\n".into()),
        ("misindented", "nodes:\n  - a\n - b\n  - c\n".into()),
        ("tabs", "nodes:\n  - a\n\t- b\n  - c\n".into()),
        (
            "nodes-inside",
            format!("{head}nodes:\n  - name: a\n    roles:\n      - worker\n      - etcd\n{nodes}"),
        ),
    ] {
        texts.push((name.to_string(), text));
    }
    texts
}

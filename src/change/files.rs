//! The two renders compared in memory: which files `render` would add, change or no longer write.

use super::Side;
use crate::render;
use std::collections::BTreeMap;

/// The rendered files that differ, each list sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct FileChanges {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
    /// Why a side could not be rendered, when one could not (a spec with errors renders nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unrendered: Option<String>,
}

impl FileChanges {
    /// The added and changed paths, sorted: what a step applies.
    pub fn changed_paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self
            .added
            .iter()
            .chain(&self.changed)
            .map(String::as_str)
            .collect();
        paths.sort_unstable();
        paths
    }
}

fn rendered(side: Side) -> Result<BTreeMap<String, String>, String> {
    let input = render::Input {
        spec: side.spec,
        plan: side.plan,
    };
    render::render_all(&input)
        .map(|artifacts| {
            artifacts
                .into_iter()
                .map(|artifact| (artifact.path, artifact.contents))
                .collect()
        })
        .map_err(|error| error.0)
}

/// Renders both sides and compares them path by path.
pub fn compare(old: Side, new: Side) -> FileChanges {
    let (before, after) = match (rendered(old), rendered(new)) {
        (Ok(before), Ok(after)) => (before, after),
        (Err(error), _) => return unrendered(format!("the old spec does not render: {error}")),
        (_, Err(error)) => return unrendered(format!("the new spec does not render: {error}")),
    };
    let mut changes = FileChanges::default();
    for (path, contents) in &after {
        match before.get(path) {
            None => changes.added.push(path.clone()),
            Some(old) if old != contents => changes.changed.push(path.clone()),
            Some(_) => {}
        }
    }
    changes.removed = before
        .keys()
        .filter(|path| !after.contains_key(*path))
        .cloned()
        .collect();
    changes
}

fn unrendered(reason: String) -> FileChanges {
    FileChanges {
        unrendered: Some(reason),
        ..FileChanges::default()
    }
}

//! The project's settings file, `.hybridgen.yaml`, kept the way linters keep theirs (ruff's
//! `ruff.toml`, yamllint's `.yamllint`): found from the spec's directory upward, the nearest one
//! wins, and the search stops at the repository's root (the first directory that holds `.git`).
//!
//! ```yaml
//! severity:                    # per rule, by code or name: allow, warn or deny
//!   HG117: allow
//!   HG315: warn
//! perFile:                     # paths relative to this file; later entries win
//!   - files: ["clusters/lab/*.yaml", "clusters/**/dev-*.yaml"]
//!     severity:
//!       HG319: allow
//! ```
//!
//! The levels act as `--allow`, `--warn` and `--deny` do, for every command that reports findings;
//! a rule named on the command line keeps the command line's level. `plan --show-settings` says
//! which file applies to each spec and what it sets.

use crate::diagnostic::Rule;
use crate::load;
use crate::rules;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = ".hybridgen.yaml";

/// A settings file as written.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Written {
    #[serde(default)]
    severity: BTreeMap<String, Level>,
    #[serde(default)]
    per_file: Vec<PerFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PerFile {
    files: Vec<String>,
    severity: BTreeMap<String, Level>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }
}

/// What a settings file sets for one spec: each rule's level, with where it was set.
pub struct Settings {
    pub path: PathBuf,
    pub levels: BTreeMap<&'static str, (Level, String)>,
}

/// The settings that apply to a spec (`-` for standard input: the working directory's), or
/// `None` when no settings file is found; an error names the file and what is wrong in it.
pub fn for_spec(spec: &Path) -> Result<Option<Settings>, String> {
    let spec = absolute(spec);
    let start = if spec == absolute(Path::new("-")) {
        absolute(Path::new("."))
    } else {
        spec.parent()
            .map_or_else(|| absolute(Path::new(".")), Path::to_path_buf)
    };
    let Some(path) = find(&start) else {
        return Ok(None);
    };
    let written = read(&path)?;
    let base = path.parent().unwrap_or(Path::new("/"));
    let relative = spec
        .strip_prefix(base)
        .map(|relative| relative.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default();
    let mut levels = BTreeMap::new();
    resolve(&path, &written.severity, "severity", &mut levels)?;
    for (index, entry) in written.per_file.iter().enumerate() {
        if entry
            .files
            .iter()
            .any(|pattern| glob_matches(pattern, &relative))
        {
            let place = format!("perFile[{index}] ({})", entry.files.join(", "));
            resolve(&path, &entry.severity, &place, &mut levels)?;
        }
    }
    Ok(Some(Settings { path, levels }))
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The nearest settings file from `start` upward, not above the repository's root.
fn find(start: &Path) -> Option<PathBuf> {
    for directory in start.ancestors() {
        let candidate = directory.join(FILE_NAME);
        // Anything by that name counts as found, a link too: `read` refuses what is no plain file.
        if std::fs::symlink_metadata(&candidate).is_ok() {
            return Some(candidate);
        }
        if directory.join(".git").exists() {
            return None;
        }
    }
    None
}

/// The most bytes a settings file may hold: a few dozen lines are written by hand.
const MAX_BYTES: u64 = 64 * 1024;

/// Reads the settings file. A pull request can commit it, so it must be a plain file, never a
/// link (to `/proc/self/environ`, a credentials file), and no message quotes more of it than a
/// bounded, escaped fragment.
fn read(path: &Path) -> Result<Written, String> {
    let name = path.display().to_string();
    let meta = std::fs::symlink_metadata(path)
        .map_err(|error| format!("cannot read `{name}`: {error}"))?;
    if !meta.file_type().is_file() {
        return Err(format!(
            "`{name}` is not a plain file (a link or something else); hybridgen reads its settings only from a regular file"
        ));
    }
    if meta.len() > MAX_BYTES {
        return Err(format!(
            "`{name}` holds {} bytes, more than a settings file's {MAX_BYTES}",
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|error| format!("cannot read `{name}`: {error}"))?;
    let (source, decoded) = load::decode(&name, bytes);
    let document = decoded
        .and_then(|()| load::load(&source))
        .map_err(|error| {
            let at = source.position(error.span.start);
            format!("`{name}`:{}:{}: {}", at.line, at.column, error.message)
        })?;
    if document.value.is_null() {
        return Ok(Written::default());
    }
    serde_json::from_value(document.value).map_err(|error| {
        format!(
            "`{name}`: {}; it takes `severity` (rule: allow|warn|deny) and `perFile` (a list of `files` and `severity`)",
            crate::escape::bounded(&error.to_string(), 120)
        )
    })
}

fn resolve(
    path: &Path,
    given: &BTreeMap<String, Level>,
    place: &str,
    levels: &mut BTreeMap<&'static str, (Level, String)>,
) -> Result<(), String> {
    for (name, level) in given {
        let rule: &'static Rule = rules::find(name).ok_or_else(|| {
            format!(
                "`{}`: `{place}` names `{}`, which is no rule; `hybridgen explain --list` lists them",
                path.display(),
                crate::escape::bounded(name, 40)
            )
        })?;
        levels.insert(rule.code, (*level, place.to_string()));
    }
    Ok(())
}

/// Whether a `/`-separated path matches a pattern: `*` and `?` within one name, `**` across names.
fn glob_matches(pattern: &str, path: &str) -> bool {
    fn matches(pattern: &[u8], path: &[u8]) -> bool {
        match pattern {
            [] => path.is_empty(),
            [b'*', b'*', rest @ ..] => {
                let rest = rest.strip_prefix(b"/").unwrap_or(rest);
                (0..=path.len()).any(|at| matches(rest, &path[at..]))
            }
            [b'*', rest @ ..] => (0..=path.len())
                .take_while(|&at| at == 0 || path[at - 1] != b'/')
                .any(|at| matches(rest, &path[at..])),
            [b'?', rest @ ..] => {
                path.first().is_some_and(|&c| c != b'/') && matches(rest, &path[1..])
            }
            [c, rest @ ..] => path.first() == Some(c) && matches(rest, &path[1..]),
        }
    }
    matches(pattern.as_bytes(), path.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_within_and_across_names() {
        for (pattern, path, expected) in [
            ("clusters/lab/*.yaml", "clusters/lab/a.yaml", true),
            ("clusters/lab/*.yaml", "clusters/lab/x/a.yaml", false),
            ("clusters/**/dev-*.yaml", "clusters/a/b/dev-1.yaml", true),
            ("clusters/**/dev-*.yaml", "clusters/dev-1.yaml", true),
            ("**/*.yaml", "a.yaml", true),
            ("cluster?.yaml", "cluster1.yaml", true),
            ("cluster?.yaml", "cluster/.yaml", false),
            ("cluster.yaml", "other.yaml", false),
        ] {
            assert_eq!(glob_matches(pattern, path), expected, "{pattern} {path}");
        }
    }
}

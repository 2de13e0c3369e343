//! `--from git:REV[:PATH]`: a spec as a commit holds it, read with `git show REV:PATH` run with a
//! fixed argument list (never a shell). What git prints is input like any spec file: it is
//! bounded and goes through the same loader.

use crate::load::MAX_SPEC_BYTES;
use std::path::Path;
use std::process::Command;

/// A `git:` source: the revision and the path inside the repository, when written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitSource {
    pub rev: String,
    pub path: Option<String>,
}

/// Reads `git:REV[:PATH]`, or `None` when `from` is no `git:` source.
pub(crate) fn parse(from: &str) -> Option<Result<GitSource, String>> {
    let rest = from.strip_prefix("git:")?;
    let (rev, path) = match rest.split_once(':') {
        Some((rev, path)) => (rev, Some(path)),
        None => (rest, None),
    };
    let fix = "write it as `git:REV` or `git:REV:PATH`, e.g. `git:HEAD~1` or `git:main:clusters/prod.yaml`";
    if rev.is_empty() || rev.starts_with('-') || rev.chars().any(|c| c.is_control() || c == ' ') {
        return Some(Err(format!(
            "`{}` names no revision: {fix}",
            crate::escape::inline(from)
        )));
    }
    if path.is_some_and(|path| path.is_empty() || path.chars().any(char::is_control)) {
        return Some(Err(format!(
            "`{}` names no path: {fix}",
            crate::escape::inline(from)
        )));
    }
    Some(Ok(GitSource {
        rev: rev.to_string(),
        path: path.map(str::to_string),
    }))
}

/// The directory git runs in and the object `REV:PATH` of `source` for `spec`: without a path,
/// the new spec's own path relative to the repository's root.
fn object(source: &GitSource, spec: &Path) -> Result<(std::path::PathBuf, String), String> {
    let directory = match spec.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let path = match &source.path {
        Some(path) => path.clone(),
        None => {
            let prefix = git(&directory, &["rev-parse", "--show-prefix"])?;
            let prefix = String::from_utf8_lossy(&prefix)
                .trim_end_matches('\n')
                .to_string();
            let file = spec
                .file_name()
                .ok_or_else(|| format!("`{}` names no file", spec.display()))?;
            format!("{prefix}{}", file.to_string_lossy())
        }
    };
    Ok((directory, format!("{}:{path}", source.rev)))
}

/// Whether the spec has no old version: the revision exists and lacks it, or the repository has
/// no commit yet (its first commit, as a pre-commit hook sees it). A revision that does not exist
/// in a repository with commits is no answer here (reading it says what to do).
pub(crate) fn added_since(source: &GitSource, spec: &Path) -> bool {
    let Ok((directory, object)) = self::object(source, spec) else {
        return false;
    };
    let commit = format!("{}^{{commit}}", source.rev);
    if git(&directory, &["rev-parse", "--verify", "--quiet", &commit]).is_err() {
        return git(&directory, &["rev-list", "-n", "1", "--all"])
            .is_ok_and(|commits| commits.is_empty());
    }
    git(&directory, &["cat-file", "-e", &object]).is_err()
}

/// The spec at `source`: `(name for reports, bytes)`. Without a path, the new spec's own path
/// relative to the repository's root.
pub(crate) fn read(source: &GitSource, spec: &Path) -> Result<(String, Vec<u8>), String> {
    let (directory, object) = self::object(source, spec)?;
    let name = format!("git:{object}");
    // `--no-textconv`: the blob as committed, whatever a filter in the repository's
    // attributes would make of it.
    let bytes = git(&directory, &["show", "--no-textconv", &object]).map_err(|error| {
        format!(
            "cannot read `{}`: {error}; check that the revision exists (a CI checkout needs `fetch-depth: 2` or more for `HEAD~1`) and held the spec at that path",
            crate::escape::inline(&name)
        )
    })?;
    if bytes.len() > MAX_SPEC_BYTES {
        return Err(format!(
            "`{}` is larger than a spec may be ({MAX_SPEC_BYTES} bytes)",
            crate::escape::inline(&name)
        ));
    }
    Ok((name, bytes))
}

/// Runs git with a fixed argument list in `directory` (paths given as `./` are read from there)
/// and returns its standard output, or the first line of what it said on failure.
fn git(directory: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(directory)
        .arg("--no-pager")
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|error| format!("cannot run git: {error}"))?;
    if output.status.success() {
        return Ok(output.stdout);
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let first = said.lines().next().unwrap_or("it failed");
    Err(format!("git says: {}", crate::escape::bounded(first, 300)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_sources_name_a_revision_and_maybe_a_path() {
        assert_eq!(
            parse("git:HEAD~1").unwrap().unwrap(),
            GitSource {
                rev: "HEAD~1".into(),
                path: None
            }
        );
        assert_eq!(
            parse("git:main:clusters/a.yaml")
                .unwrap()
                .unwrap()
                .path
                .as_deref(),
            Some("clusters/a.yaml")
        );
        assert!(parse("old.yaml").is_none());
        for bad in ["git:", "git:--output=x", "git:HEAD:", "git:a b"] {
            assert!(parse(bad).unwrap().is_err(), "{bad}");
        }
    }
}

//! Putting artifacts on disk, and comparing them with what is there (`--check`). Writes are staged:
//! every file first goes to a temporary file beside its target (`.<name>.hybridgen-<pid>.tmp`), and
//! only when all are staged are they renamed into place, so a failure part way leaves every
//! existing file as it was. Two renders of the same spec into one directory at once both succeed:
//! a directory the other created meanwhile is used, and each stages under its own process id. A
//! render that was killed while staging leaves temporary files behind; the next render removes
//! those whose process is gone, and `--check` never looks at them. Files are
//! not synced to disk one by one: that made 16,384 Windows node files take seconds of fsync, and
//! the artifacts can always be rendered again from the spec. Nothing
//! outside the output directory is touched: no symlink is followed, no path leaves it, and a file
//! hybridgen did not write is not overwritten without `force`.

use super::Artifact;
use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

/// The list of files hybridgen wrote into an output directory, so that it never overwrites one
/// it did not write.
pub const MANIFEST: &str = ".hybridgen-manifest";

#[derive(Debug)]
pub struct WriteError(pub String);

/// What a write did, file by file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub changed: Vec<String>,
    pub unchanged: Vec<String>,
    /// Files an earlier render wrote that this one no longer renders (a node renamed or removed,
    /// a backend changed), removed so that no stale file, secret or not, stays behind.
    pub removed: Vec<String>,
}

/// A rendered file that differs from the one on disk.
#[derive(Debug, PartialEq, Eq)]
pub enum Drift {
    Missing(String),
    Differs {
        path: String,
        diff: String,
    },
    /// A file an earlier render wrote that the spec no longer renders.
    Obsolete(String),
}

fn error(path: &Path, what: &str, cause: impl std::fmt::Display) -> WriteError {
    WriteError(format!("{what} `{}`: {cause}", path.display()))
}

/// The artifact's path under `out`, refusing anything that could leave it.
fn target(out: &Path, relative: &str) -> Result<PathBuf, WriteError> {
    let path = Path::new(relative);
    let safe = !relative.is_empty()
        && path.components().all(|part| matches!(part, Component::Normal(name) if !name.to_string_lossy().starts_with('.')));
    if !safe {
        return Err(WriteError(format!(
            "refusing the artifact path `{relative}`: it would leave the output directory"
        )));
    }
    Ok(out.join(path))
}

/// The directories one render has checked or created, so that it looks at each only once: a
/// 65,536-node spec writes 16,384 Windows node directories.
#[derive(Default)]
struct Directories {
    checked: BTreeSet<PathBuf>,
    /// Those this render created: they held nothing before it.
    created: BTreeSet<PathBuf>,
}

/// Creates `dir` and its parents below `out`, refusing any that exists as a symlink or a file.
fn ensure_directory(out: &Path, dir: &Path, seen: &mut Directories) -> Result<(), WriteError> {
    let mut current = out.to_path_buf();
    let relative = dir
        .strip_prefix(out)
        .map_err(|_| error(dir, "refusing", "outside the output directory"))?;
    for part in relative.components() {
        current.push(part);
        if seen.checked.contains(&current) {
            continue;
        }
        seen.checked.insert(current.clone());
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(error(
                    &current,
                    "refusing to follow the symlink",
                    "a link could lead outside the output directory",
                ));
            }
            Ok(meta) if !meta.is_dir() => {
                return Err(error(
                    &current,
                    "cannot create the directory",
                    "a file is in the way",
                ));
            }
            Ok(_) => {}
            Err(_) => match fs::create_dir(&current) {
                Ok(()) => {
                    seen.created.insert(current.clone());
                }
                // Another render created it meanwhile: a directory is fine, anything else is not.
                Err(cause) if cause.kind() == io::ErrorKind::AlreadyExists => {
                    match fs::symlink_metadata(&current) {
                        Ok(meta) if meta.is_dir() && !meta.file_type().is_symlink() => {}
                        _ => {
                            return Err(error(
                                &current,
                                "cannot create the directory",
                                "something other than a directory appeared in its place",
                            ));
                        }
                    }
                }
                Err(cause) => return Err(error(&current, "cannot create the directory", cause)),
            },
        }
    }
    Ok(())
}

fn read_manifest(out: &Path) -> BTreeSet<String> {
    fs::read_to_string(out.join(MANIFEST))
        .map(|text| text.lines().map(String::from).collect())
        .unwrap_or_default()
}

/// Writes every artifact under `out`; files whose contents are unchanged are left alone.
pub fn write_all(out: &Path, artifacts: &[Artifact], force: bool) -> Result<Written, WriteError> {
    match fs::symlink_metadata(out) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(error(
                out,
                "refusing to write through the symlink",
                "pass the real directory as --out",
            ));
        }
        Ok(meta) if !meta.is_dir() => {
            return Err(error(out, "cannot write into", "it is not a directory"));
        }
        Ok(_) => {}
        Err(_) => fs::create_dir_all(out).map_err(|cause| error(out, "cannot create", cause))?,
    }
    let manifest = read_manifest(out);
    let mut written = Written::default();
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let result = stage(out, artifacts, &manifest, force, &mut written, &mut staged);
    if let Err(failure) = result {
        for (temporary, _) in &staged {
            let _ = fs::remove_file(temporary);
        }
        return Err(failure);
    }
    for (temporary, destination) in &staged {
        fs::rename(temporary, destination)
            .map_err(|cause| error(destination, "cannot replace", cause))?;
    }
    let mut listed: BTreeSet<String> = artifacts.iter().map(|a| a.path.clone()).collect();
    for path in obsolete(out, &manifest, &listed) {
        if remove_obsolete(out, &path) {
            written.removed.push(path);
        } else {
            // Kept on the list, so that the next render tries again.
            listed.insert(path);
        }
    }
    let text: String = listed.iter().map(|path| format!("{path}\n")).collect();
    let manifest_path = out.join(MANIFEST);
    if fs::read_to_string(&manifest_path).ok().as_deref() != Some(text.as_str()) {
        // Staged too, so that a render running beside this one never reads half a list.
        let temporary = staging_path(&manifest_path);
        clear_leftover(&temporary);
        write_new_file(&temporary, &text, 0o644)
            .and_then(|()| fs::rename(&temporary, &manifest_path))
            .map_err(|cause| {
                let _ = fs::remove_file(&temporary);
                error(&manifest_path, "cannot write", cause)
            })?;
    }
    Ok(written)
}

fn stage(
    out: &Path,
    artifacts: &[Artifact],
    manifest: &BTreeSet<String>,
    force: bool,
    written: &mut Written,
    staged: &mut Vec<(PathBuf, PathBuf)>,
) -> Result<(), WriteError> {
    let mut visited = BTreeSet::new();
    let mut seen = Directories::default();
    for artifact in artifacts {
        let destination = target(out, &artifact.path)?;
        let parent = destination.parent().unwrap_or(out);
        ensure_directory(out, parent, &mut seen)?;
        // A directory this render created holds no leftovers and no earlier file.
        let fresh = seen.created.contains(parent);
        if visited.insert(parent.to_path_buf()) && !fresh {
            clear_leftovers(parent);
        }
        let existing = if fresh {
            None
        } else {
            fs::symlink_metadata(&destination).ok()
        };
        match existing {
            Some(meta) if meta.file_type().is_symlink() => {
                return Err(error(
                    &destination,
                    "refusing to replace the symlink",
                    "remove it first",
                ));
            }
            Some(_) => {
                let current = fs::read(&destination).unwrap_or_default();
                if current == artifact.contents.as_bytes() {
                    written.unchanged.push(artifact.path.clone());
                    continue;
                }
                if !force && !manifest.contains(&artifact.path) {
                    return Err(error(
                        &destination,
                        "refusing to overwrite",
                        "hybridgen did not write this file; move it away or pass --force",
                    ));
                }
            }
            None => {}
        }
        let temporary = staging_path(&destination);
        staged.push((temporary.clone(), destination));
        write_new_file(&temporary, &artifact.contents, mode(artifact))
            .map_err(|cause| error(&temporary, "cannot write", cause))?;
        written.changed.push(artifact.path.clone());
    }
    Ok(())
}

/// Where `destination` is staged: `.<name>.hybridgen-<pid>.tmp` beside it.
fn staging_path(destination: &Path) -> PathBuf {
    let name = destination
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    destination.with_file_name(format!(".{name}.hybridgen-{}.tmp", std::process::id()))
}

/// The process id in a staging file's name, when `name` is one.
fn staging_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (_, pid) = rest.rsplit_once(".hybridgen-")?;
    pid.parse().ok()
}

/// Whether the process that staged a file may still be writing it. Where the system cannot
/// tell (no `/proc`), a staging file is taken for abandoned only after a day.
fn staging_process_alive(pid: u32, staged: &Path) -> bool {
    let proc = Path::new("/proc");
    if proc.join("self").exists() {
        return proc.join(pid.to_string()).exists();
    }
    let age = fs::symlink_metadata(staged)
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|modified| modified.elapsed().ok());
    age.is_none_or(|age| age.as_secs() < 24 * 60 * 60)
}

/// Removes the staging files in `dir` that a killed render left: those of a process that is
/// gone, and those under this process's own id (which no other live process can have).
fn clear_leftovers(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = staging_pid(&name.to_string_lossy()) else {
            continue;
        };
        let path = entry.path();
        if pid == std::process::id() || !staging_process_alive(pid, &path) {
            clear_leftover(&path);
        }
    }
}

/// Removes one leftover staging file, if it is a plain file.
fn clear_leftover(path: &Path) {
    if fs::symlink_metadata(path).is_ok_and(|meta| meta.is_file()) {
        let _ = fs::remove_file(path);
    }
}

/// The permissions an artifact is created with: 0600 for secrets (never created readable and
/// narrowed afterwards), 0755 for scripts, 0644 otherwise (less the umask).
fn mode(artifact: &Artifact) -> u32 {
    if artifact.holds_secrets() {
        0o600
    } else if artifact.path.ends_with(".sh") {
        0o755
    } else {
        0o644
    }
}

fn write_new_file(path: &Path, contents: &str, mode: u32) -> io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    options.open(path)?.write_all(contents.as_bytes())
}

/// The files of the manifest that are not rendered any more and are still on disk as regular
/// files inside `out` (no entry that leaves it, or passes through a symlink, is ever touched).
fn obsolete(out: &Path, manifest: &BTreeSet<String>, rendered: &BTreeSet<String>) -> Vec<String> {
    manifest
        .iter()
        .filter(|path| !rendered.contains(*path))
        .filter(|path| {
            target(out, path).is_ok_and(|file| {
                inside_without_links(out, &file)
                    && fs::symlink_metadata(&file).is_ok_and(|meta| meta.is_file())
            })
        })
        .cloned()
        .collect()
}

/// Whether every directory between `out` and `file` is a real directory, not a symlink.
fn inside_without_links(out: &Path, file: &Path) -> bool {
    let Some(parent) = file.parent() else {
        return false;
    };
    let Ok(relative) = parent.strip_prefix(out) else {
        return false;
    };
    let mut current = out.to_path_buf();
    relative.components().all(|part| {
        current.push(part);
        fs::symlink_metadata(&current).is_ok_and(|meta| meta.is_dir())
    })
}

/// Removes an obsolete file and the directories it leaves empty, up to `out`.
fn remove_obsolete(out: &Path, path: &str) -> bool {
    let Ok(file) = target(out, path) else {
        return false;
    };
    if fs::remove_file(&file).is_err() {
        return false;
    }
    let mut dir = file.parent();
    while let Some(current) = dir.filter(|current| *current != out && current.starts_with(out)) {
        if fs::remove_dir(current).is_err() {
            break;
        }
        dir = current.parent();
    }
    true
}

/// Compares rendered artifacts with `out` without writing anything. Files holding secrets are
/// compared with the secret values masked on both sides.
pub fn check(out: &Path, artifacts: &[Artifact]) -> Result<Vec<Drift>, WriteError> {
    let mut drift = Vec::new();
    for artifact in artifacts {
        let path = target(out, &artifact.path)?;
        let Ok(on_disk) = fs::read_to_string(&path) else {
            drift.push(Drift::Missing(artifact.path.clone()));
            continue;
        };
        let (expected, actual) = if artifact.holds_secrets() {
            (
                mask(&artifact.contents, artifact.secret_keys),
                mask(&on_disk, artifact.secret_keys),
            )
        } else {
            (artifact.contents.clone(), on_disk)
        };
        if expected != actual {
            drift.push(Drift::Differs {
                path: artifact.path.clone(),
                diff: unified_diff(&artifact.path, &actual, &expected),
            });
        }
    }
    let rendered: BTreeSet<String> = artifacts.iter().map(|a| a.path.clone()).collect();
    drift.extend(
        obsolete(out, &read_manifest(out), &rendered)
            .into_iter()
            .map(Drift::Obsolete),
    );
    Ok(drift)
}

/// The text with its secrets replaced, so that comparisons and diffs never depend on, or show, a
/// secret: the values of the secret keys — by structure in JSON, on the key's own line in YAML —
/// and then anything shaped like a bootstrap token or a CA hash wherever it stands, so that a file
/// edited by hand (a value moved to another line) still shows none.
fn mask(text: &str, keys: &[&str]) -> String {
    fn walk(value: &mut serde_json::Value, keys: &[&str]) {
        match value {
            serde_json::Value::Object(members) => {
                for (name, member) in members.iter_mut() {
                    if keys.contains(&name.as_str()) && member.is_string() {
                        *member = serde_json::Value::from(SECRET_MASK);
                    } else {
                        walk(member, keys);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|item| walk(item, keys)),
            _ => {}
        }
    }
    let keyed = match serde_json::from_str::<serde_json::Value>(text) {
        Ok(mut value) => {
            walk(&mut value, keys);
            serde_json::to_string_pretty(&value).unwrap_or_default()
        }
        Err(_) => mask_yaml_lines(text, keys),
    };
    let mut masked = String::with_capacity(keyed.len());
    let mut from = 0;
    for shape in super::secrets::secret_shapes(&keyed) {
        masked.push_str(&keyed[from..shape.start]);
        masked.push_str(SECRET_MASK);
        from = shape.end;
    }
    masked.push_str(&keyed[from..]);
    masked
}

const SECRET_MASK: &str = "<secret>";

/// YAML: every line `key: value` (or `- key: value`) whose key is a secret key keeps its key and
/// loses its value.
fn mask_yaml_lines(text: &str, keys: &[&str]) -> String {
    let mut masked = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let (item, body) = match body.strip_prefix("- ") {
            Some(rest) => ("- ", rest),
            None => ("", body),
        };
        match body.split_once(':') {
            Some((key, _)) if keys.contains(&key.trim()) => {
                masked.push_str(&format!("{indent}{item}{key}: {SECRET_MASK}"));
                if line.ends_with('\n') {
                    masked.push('\n');
                }
            }
            _ => masked.push_str(line),
        }
    }
    masked
}

/// A short unified diff (at most 40 lines) from the file on disk to the rendered one.
fn unified_diff(path: &str, on_disk: &str, rendered: &str) -> String {
    let diff = similar::TextDiff::from_lines(on_disk, rendered);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header(&format!("{path} (on disk)"), &format!("{path} (rendered)"))
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 40 {
        text
    } else {
        format!(
            "{}\n... ({} more lines)\n",
            lines[..40].join("\n"),
            lines.len() - 40
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hybridgen-write-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn artifacts() -> Vec<Artifact> {
        vec![
            Artifact::new("a.yml", "a: 1\n"),
            Artifact::new("sub/b.json", "{}\n"),
            Artifact {
                path: "windows/n/Kubeclustervxlan.json".into(),
                contents: "{\n  \"KubeadmToken\": \"abcdef.0123456789abcdef\"\n}".into(),
                secret_keys: &["KubeadmToken"],
            },
            Artifact::new("sub/run.sh", "#!/bin/sh\n"),
        ]
    }

    #[test]
    fn writes_then_finds_nothing_to_change() {
        let out = scratch("twice");
        let first = write_all(&out, &artifacts(), false).unwrap();
        assert_eq!(first.changed.len(), 4);
        let second = write_all(&out, &artifacts(), false).unwrap();
        assert_eq!(second.unchanged.len(), 4);
        assert!(check(&out, &artifacts()).unwrap().is_empty());
        fs::remove_dir_all(&out).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn secret_files_are_private_and_others_readable() {
        use std::os::unix::fs::PermissionsExt;
        let out = scratch("modes");
        write_all(&out, &artifacts(), false).unwrap();
        let mode = |path: &str| fs::metadata(out.join(path)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode("windows/n/Kubeclustervxlan.json"), 0o600);
        assert_eq!(
            mode("a.yml") & 0o600,
            0o600,
            "public files stay readable by their owner"
        );
        assert_ne!(mode("a.yml"), 0o600, "public files are not created private");
        assert_eq!(mode("sub/run.sh") & 0o100, 0o100, "scripts are executable");
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn check_masks_secrets_and_reports_drift_with_a_diff() {
        let out = scratch("check");
        write_all(&out, &artifacts(), false).unwrap();
        let mut changed = artifacts();
        changed[0].contents = "a: 2\n".into();
        assert!(changed[2].holds_secrets(), "index 2 is the secret file");
        changed[2].contents = changed[2]
            .contents
            .replace("abcdef.0123456789abcdef", "<unset: KUBEADM_TOKEN>");
        changed.push(Artifact::new("new.txt", "x\n"));
        let drift = check(&out, &changed).unwrap();
        assert_eq!(drift.len(), 2, "{drift:?}");
        match &drift[0] {
            Drift::Differs { path, diff } => {
                assert_eq!(path, "a.yml");
                assert!(diff.contains("-a: 1") && diff.contains("+a: 2"), "{diff}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(drift[1], Drift::Missing("new.txt".into()));
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn yaml_secrets_are_masked_by_key_and_by_shape() {
        let token = "abcdef.0123456789abcdef";
        let hash = format!("sha256:{}", "0123456789abcdef".repeat(4));
        let keys = &["token", "caCertHashes"];
        let written = format!(
            "discovery:\n  bootstrapToken:\n    token: \"{token}\"\n    caCertHashes: [\"{hash}\"]\nname: win-0\n"
        );
        let masked = mask(&written, keys);
        assert!(
            !masked.contains(token) && !masked.contains(&hash),
            "{masked}"
        );
        assert!(masked.contains("    token: <secret>\n"), "{masked}");
        assert!(masked.contains("name: win-0"), "{masked}");
        // The same file with the other secrets masks the same: `--check` without the secrets.
        let placeholders = written
            .replace(token, "<unset: KUBEADM_TOKEN>")
            .replace(&hash, "<unset: KUBEADM_CA_HASH>");
        assert_eq!(mask(&placeholders, keys), masked);
        // A hash moved to a line of its own by hand is still never shown.
        let edited = written.replace(
            &format!("caCertHashes: [\"{hash}\"]"),
            &format!("caCertHashes:\n      - \"{hash}\""),
        );
        let masked = mask(&edited, keys);
        assert!(!masked.contains(&hash), "{masked}");
    }

    #[test]
    fn check_shows_no_yaml_secret_in_a_diff() {
        let out = scratch("check-yaml");
        let token = "abcdef.0123456789abcdef";
        let artifact = Artifact {
            path: "windows/n/kubeadm-join.yaml".into(),
            contents: format!("token: \"{token}\"\nname: a\n"),
            secret_keys: &["token"],
        };
        write_all(&out, std::slice::from_ref(&artifact), false).unwrap();
        let mut changed = artifact.clone();
        changed.contents = format!("token: \"{token}\"\nname: b\n");
        let drift = check(&out, &[changed]).unwrap();
        match &drift[..] {
            [Drift::Differs { diff, .. }] => {
                assert!(!diff.contains(token), "{diff}");
                assert!(
                    diff.contains("-name: a") && diff.contains("+name: b"),
                    "{diff}"
                );
            }
            other => panic!("{other:?}"),
        }
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn a_foreign_file_is_not_overwritten_without_force() {
        let out = scratch("foreign");
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join("a.yml"), "mine\n").unwrap();
        let refused = write_all(&out, &artifacts(), false).unwrap_err();
        assert!(refused.0.contains("did not write"), "{}", refused.0);
        assert_eq!(fs::read_to_string(out.join("a.yml")).unwrap(), "mine\n");
        assert!(
            !out.join("sub/b.json").exists(),
            "nothing is written when one file is refused"
        );
        write_all(&out, &artifacts(), true).unwrap();
        assert_eq!(fs::read_to_string(out.join("a.yml")).unwrap(), "a: 1\n");
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn a_failure_part_way_leaves_the_previous_files_intact() {
        let out = scratch("failure");
        write_all(&out, &artifacts(), false).unwrap();
        let mut next = artifacts();
        next[0].contents = "a: 2\n".into();
        // A directory where a file must go makes staging fail after `a.yml` was staged.
        next.push(Artifact::new("sub/b.json/x", "y\n"));
        assert!(write_all(&out, &next, false).is_err());
        assert_eq!(fs::read_to_string(out.join("a.yml")).unwrap(), "a: 1\n");
        let leftovers: Vec<_> = fs::read_dir(&out)
            .unwrap()
            .filter(|entry| {
                entry
                    .as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".tmp")
            })
            .collect();
        assert!(leftovers.is_empty());
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn paths_cannot_leave_the_output_directory() {
        let out = scratch("escape");
        for path in ["../x", "/etc/x", "a/../../x", ".hidden", ""] {
            let result = write_all(&out, &[Artifact::new(path, "x")], false);
            assert!(result.is_err(), "{path}");
        }
        let _ = fs::remove_dir_all(&out);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_not_followed() {
        let out = scratch("symlink");
        let elsewhere = scratch("symlink-target");
        fs::create_dir_all(&out).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("sub")).unwrap();
        assert!(write_all(&out, &artifacts(), false).is_err());
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
        fs::remove_dir_all(&out).unwrap();
        fs::remove_dir_all(&elsewhere).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn leftovers_of_a_killed_render_are_removed_and_never_compared() {
        let out = scratch("leftovers");
        write_all(&out, &artifacts(), false).unwrap();
        // A process that has exited: its staging files are abandoned.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        let abandoned = out.join(format!(".a.yml.hybridgen-{gone}.tmp"));
        let own = out.join(format!("sub/.b.json.hybridgen-{}.tmp", std::process::id()));
        // Process 1 is always running: its files may still be in use.
        let live = out.join(".a.yml.hybridgen-1.tmp");
        for leftover in [&abandoned, &own, &live] {
            fs::write(leftover, "half a file").unwrap();
        }
        assert!(check(&out, &artifacts()).unwrap().is_empty());
        let mut next = artifacts();
        next[0].contents = "a: 2\n".into();
        next[1].contents = "{\"b\": 2}\n".into();
        write_all(&out, &next, false).unwrap();
        assert!(
            !abandoned.exists() && !own.exists(),
            "abandoned staging files stay"
        );
        if Path::new("/proc/self").exists() {
            assert!(live.exists(), "a live process's staging file was removed");
        }
        assert_eq!(fs::read_to_string(out.join("a.yml")).unwrap(), "a: 2\n");
        let listed = fs::read_to_string(out.join(MANIFEST)).unwrap();
        assert!(!listed.contains(".tmp"), "{listed}");
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn staging_names_carry_the_process_id() {
        let path = staging_path(Path::new("out/windows/win-0/join.ps1"));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(staging_pid(&name), Some(std::process::id()));
        assert_eq!(path.parent(), Some(Path::new("out/windows/win-0")));
        for other in [
            "a.yml",
            ".a.yml.tmp",
            ".a.yml.hybridgen-x.tmp",
            "a.yml.hybridgen-12.tmp",
        ] {
            assert_eq!(staging_pid(other), None, "{other}");
        }
    }

    #[test]
    fn files_no_longer_rendered_are_removed_and_checked() {
        let out = scratch("obsolete");
        let mut before = artifacts();
        before.push(Artifact::new("gone/deep/old.yml", "old: 1\n"));
        write_all(&out, &before, false).unwrap();
        fs::write(out.join("gone/mine.txt"), "a user's file\n").unwrap();
        let drift = check(&out, &artifacts()).unwrap();
        assert_eq!(drift, [Drift::Obsolete("gone/deep/old.yml".into())]);
        let written = write_all(&out, &artifacts(), false).unwrap();
        assert_eq!(written.removed, ["gone/deep/old.yml"]);
        assert!(
            !out.join("gone/deep").exists(),
            "the emptied directory stays"
        );
        assert!(
            out.join("gone/mine.txt").exists(),
            "a file hybridgen did not write was removed"
        );
        let listed = fs::read_to_string(out.join(MANIFEST)).unwrap();
        assert!(!listed.contains("gone/"), "{listed}");
        assert!(check(&out, &artifacts()).unwrap().is_empty());
        fs::remove_dir_all(&out).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn an_obsolete_entry_never_reaches_outside_the_directory() {
        let out = scratch("obsolete-escape");
        let elsewhere = scratch("obsolete-elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("precious.txt"), "keep\n").unwrap();
        write_all(&out, &artifacts(), false).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("link")).unwrap();
        let manifest = fs::read_to_string(out.join(MANIFEST)).unwrap();
        let planted = format!(
            "{manifest}link/precious.txt\n../{}/precious.txt\n",
            elsewhere.file_name().unwrap().to_string_lossy()
        );
        fs::write(out.join(MANIFEST), planted).unwrap();
        assert!(check(&out, &artifacts()).unwrap().is_empty());
        let written = write_all(&out, &artifacts(), false).unwrap();
        assert!(written.removed.is_empty());
        assert_eq!(
            fs::read_to_string(elsewhere.join("precious.txt")).unwrap(),
            "keep\n"
        );
        fs::remove_dir_all(&out).unwrap();
        fs::remove_dir_all(&elsewhere).unwrap();
    }
}

//! Putting artifacts on disk, and comparing them with what is there (`--check`). A write changes
//! the output directory all at once or not at all: under an `flock` on the directory, every file
//! is staged beside its target, a journal is committed, and the renames follow; a render killed
//! at any instant is finished (or undone) by the next one before it reads anything (`write_all`
//! says how, step by step). Files are not synced to disk one by one: that made 16,384 Windows
//! node files take seconds of fsync, and the artifacts can always be rendered again from the
//! spec. Nothing outside the output directory is touched: no symlink is followed, no path leaves
//! it, and a file hybridgen did not write is not overwritten without `force`.

use super::Artifact;
use std::collections::{BTreeSet, HashMap, HashSet};
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
        && path.components().all(|part| matches!(part, Component::Normal(name) if !name.as_encoded_bytes().starts_with(b".")));
    if !safe {
        return Err(WriteError(format!(
            "refusing the artifact path `{relative}`: it would leave the output directory"
        )));
    }
    Ok(out.join(path))
}

/// The directories one render has checked or created, by their paths below the output
/// directory, so that it looks at each only once: a 65,536-node spec writes 16,384 Windows node
/// directories.
#[derive(Default)]
struct Directories {
    checked: HashSet<String>,
    /// Those this render created: they held nothing before it.
    created: HashSet<String>,
}

/// The directory of an artifact path (`windows/node-1` of `windows/node-1/join.ps1`), `""` for
/// the output directory itself.
fn parent_of(relative: &str) -> &str {
    relative.rsplit_once('/').map_or("", |(parent, _)| parent)
}

/// Creates the directory `relative` (an artifact's parent, checked by [`target`]) and its
/// parents below `out`, refusing any that exists as a symlink or a file.
fn ensure_directory(out: &Path, relative: &str, seen: &mut Directories) -> Result<(), WriteError> {
    let ends = relative
        .match_indices('/')
        .map(|(at, _)| at)
        .chain((!relative.is_empty()).then_some(relative.len()));
    for end in ends {
        let prefix = &relative[..end];
        if !seen.checked.insert(prefix.to_string()) {
            continue;
        }
        let current = out.join(prefix);
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
                    seen.created.insert(prefix.to_string());
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
    manifest_paths(manifest_text(out).as_deref())
}

/// The manifest as it stands, if there is one.
fn manifest_text(out: &Path) -> Option<String> {
    fs::read_to_string(out.join(MANIFEST)).ok()
}

fn manifest_paths(text: Option<&str>) -> BTreeSet<String> {
    text.map(|text| text.lines().map(String::from).collect())
        .unwrap_or_default()
}

/// Where a committed write is recorded until it is complete: the list of renames and removals
/// that make the new set, written before the first of them.
const JOURNAL: &str = ".hybridgen-journal";
/// A journal whose write failed part way, being undone.
const ROLLBACK: &str = ".hybridgen-rollback";

/// `--out link/` is `--out link`: the trailing separator would make every check see the
/// directory a symlink points to instead of the link.
fn normalized(out: &Path) -> PathBuf {
    let joined: PathBuf = out.components().collect();
    if joined.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        joined
    }
}

/// Writes every artifact under `out` as one change: afterwards the directory holds the new set
/// and a manifest listing it, or — when anything failed — exactly what it held before.
/// Files whose contents are unchanged are left alone.
///
/// How the set changes in one step, under kill -9 at any instruction and beside other renders:
/// 1. The directory is locked (`flock` on the directory itself, so no file is added to it): a
///    second render into it waits; a killed render's lock ends with its process.
/// 2. A journal a killed render left is finished first (`recover`): rolled forward when it was
///    committed, rolled back when it was being undone.
/// 3. Every changed file is staged beside its target (`.<name>.hybridgen-<pid>.tmp`), and every
///    file about to be replaced or removed gets a hard link (`.<name>.hybridgen-<pid>.old`),
///    which is what a roll-back restores. Nothing visible has changed yet; a failure here
///    (a full disk, an immutable file that cannot be linked) removes the staged files.
/// 4. The journal (`.hybridgen-journal`) is written and renamed into place: the commit point.
/// 5. The renames and removals are applied, the manifest last, and the journal is removed.
///    A failure part way renames the journal to `.hybridgen-rollback` and undoes every step.
///
/// Every step of 5 can be done again without harm, so `recover` finishes a journal whatever
/// instant the process died at. Every hybridgen command that reads the directory (`render`,
/// `render --check`) takes the lock and recovers first, so that it sees exactly the old set or
/// exactly the new one; a reader that does not take the lock can see the renames of step 5 in
/// between. Files are not synced to disk: the guarantee is against processes being killed, not
/// against the machine losing power (the artifacts can be rendered again from the spec).
pub fn write_all(out: &Path, artifacts: &[Artifact], force: bool) -> Result<Written, WriteError> {
    let out = &normalized(out);
    match fs::symlink_metadata(out) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(error(
                out,
                "refusing to write through the symlink",
                "pass the real directory as --out; nothing was changed",
            ));
        }
        Ok(meta) if !meta.is_dir() => {
            return Err(error(
                out,
                "cannot write into",
                "it is not a directory; nothing was changed",
            ));
        }
        Ok(_) => {}
        Err(_) => fs::create_dir_all(out).map_err(|cause| {
            error(
                out,
                "cannot create",
                format!("{cause}; nothing was changed"),
            )
        })?,
    }
    let _lock = DirectoryLock::exclusive(out)?;
    recover(out)?;
    // Read once: for the files it lists, and to compare with the new list.
    let manifest_text = manifest_text(out);
    let manifest = manifest_paths(manifest_text.as_deref());
    let mut written = Written::default();
    let mut change = Change::default();
    let prepared = stage(
        out,
        artifacts,
        &manifest,
        force,
        &mut written,
        &mut change.staged,
    )
    .and_then(|()| {
        let listed: BTreeSet<String> = artifacts.iter().map(|a| a.path.clone()).collect();
        change.removed = obsolete(out, &manifest, &listed);
        let text: String = listed.iter().map(|path| format!("{path}\n")).collect();
        let manifest_path = out.join(MANIFEST);
        if manifest_text.as_deref() != Some(text.as_str()) {
            let temporary = staging_path(&manifest_path);
            clear_leftover(&temporary);
            change.staged.push(Staged {
                temporary: temporary.clone(),
                destination: manifest_path.clone(),
                // Kept until the write is complete, whatever it holds, when it is there.
                replaces: true,
            });
            write_new_file(&temporary, &text, 0o644)
                .map_err(|cause| error(&temporary, "cannot write", cause))?;
        }
        change.link_backups(out)
    });
    if let Err(failure) = prepared {
        change.discard();
        return Err(WriteError(format!("{}; nothing was changed", failure.0)));
    }
    // Nothing differs: the directory already holds the new set.
    if !change.staged.is_empty() || !change.removed.is_empty() {
        change.commit(out)?;
    }
    written.removed = change.removed;
    Ok(written)
}

/// The files of one write: staged files and their targets, obsolete files to remove, and the
/// hard links that keep what they replace until the write is complete.
#[derive(Default)]
struct Change {
    staged: Vec<Staged>,
    removed: Vec<String>,
    /// Target → its link, for each target that existed.
    backups: HashMap<PathBuf, PathBuf>,
}

/// A file staged beside its destination.
struct Staged {
    temporary: PathBuf,
    destination: PathBuf,
    /// Whether the destination existed when it was staged: only then is there a file to keep.
    replaces: bool,
}

impl Change {
    fn link_backups(&mut self, out: &Path) -> Result<(), WriteError> {
        let removed: Vec<PathBuf> = self
            .removed
            .iter()
            .filter_map(|path| target(out, path).ok())
            .collect();
        // A killed render's links beside a file no longer rendered, in a directory `stage` did
        // not visit, go too.
        let mut cleared = BTreeSet::new();
        for parent in removed.iter().filter_map(|file| file.parent()) {
            if cleared.insert(parent.to_path_buf()) {
                clear_leftovers_but(parent, Some(own_pid()));
            }
        }
        let targets = self
            .staged
            .iter()
            .filter(|staged| staged.replaces)
            .map(|staged| staged.destination.clone())
            .chain(removed);
        for destination in targets {
            let backup = backup_path(&destination);
            let mut linked = fs::hard_link(&destination, &backup);
            if linked
                .as_ref()
                .is_err_and(|cause| cause.kind() == io::ErrorKind::AlreadyExists)
            {
                // Left by an earlier process that had this one's id.
                clear_leftover(&backup);
                linked = fs::hard_link(&destination, &backup);
            }
            match linked {
                Ok(()) => {
                    self.backups.insert(destination, backup);
                }
                // Gone since it was staged: there is nothing to keep.
                Err(cause) if cause.kind() == io::ErrorKind::NotFound => {}
                Err(cause) => return Err(error(&destination, "cannot keep a link to", cause)),
            }
        }
        Ok(())
    }

    /// Removes what a write that never committed made.
    fn discard(&self) {
        for staged in &self.staged {
            let _ = fs::remove_file(&staged.temporary);
        }
        for backup in self.backups.values() {
            let _ = fs::remove_file(backup);
        }
    }

    fn journal(&self, out: &Path) -> Journal {
        // Each path is `out` joined with an artifact's: the bytes after `out/`, without
        // comparing component by component.
        let relative = |path: &Path| {
            let after_out = path
                .as_os_str()
                .as_encoded_bytes()
                .strip_prefix(out.as_os_str().as_encoded_bytes())
                .and_then(|rest| rest.strip_prefix(b"/"));
            match after_out {
                Some(rest) => String::from_utf8_lossy(rest).into_owned(),
                None => path
                    .strip_prefix(out)
                    .unwrap_or(path)
                    .to_string_lossy()
                    .into_owned(),
            }
        };
        let backup_of =
            |destination: &Path| self.backups.get(destination).map(|backup| relative(backup));
        let mut steps: Vec<Step> = self
            .removed
            .iter()
            .filter_map(|path| target(out, path).ok())
            .filter_map(|file| {
                Some(Step::Remove {
                    path: relative(&file),
                    backup: backup_of(&file)?,
                })
            })
            .collect();
        // The manifest is staged last, so its rename is the last step.
        steps.splice(
            0..0,
            self.staged.iter().map(|staged| Step::Replace {
                staged: relative(&staged.temporary),
                target: relative(&staged.destination),
                backup: backup_of(&staged.destination),
            }),
        );
        if let Some(at) = steps
            .iter()
            .position(|step| matches!(step, Step::Replace { target, .. } if target == MANIFEST))
        {
            let manifest = steps.remove(at);
            steps.push(manifest);
        }
        Journal { steps }
    }

    /// Commits the journal and applies it; on a failure part way, undoes it.
    fn commit(&self, out: &Path) -> Result<(), WriteError> {
        let journal = self.journal(out);
        let temporary = staging_path(&out.join(JOURNAL));
        let committed = write_new_file(&temporary, &journal.text(), 0o600)
            .and_then(|()| fs::rename(&temporary, out.join(JOURNAL)));
        if let Err(cause) = committed {
            let _ = fs::remove_file(&temporary);
            self.discard();
            return Err(error(
                &out.join(JOURNAL),
                "cannot write",
                format!("{cause}; nothing was changed"),
            ));
        }
        finish(out, &journal)
    }
}

/// One step of a committed write.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// `staged` becomes `target`; `backup` links what `target` was, when it existed.
    Replace {
        staged: String,
        target: String,
        backup: Option<String>,
    },
    /// `path` is no longer rendered; `backup` links it until the write is complete.
    Remove { path: String, backup: String },
}

/// The steps of a committed write, one a line: `replace STAGED TARGET BACKUP|-` or `remove PATH
/// BACKUP`, fields separated by tabs (artifact paths never hold a tab or a line break).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Journal {
    steps: Vec<Step>,
}

impl Journal {
    fn text(&self) -> String {
        self.steps
            .iter()
            .map(|step| match step {
                Step::Replace {
                    staged,
                    target,
                    backup,
                } => format!(
                    "replace\t{staged}\t{target}\t{}\n",
                    backup.as_deref().unwrap_or("-")
                ),
                Step::Remove { path, backup } => format!("remove\t{path}\t{backup}\n"),
            })
            .collect()
    }

    fn parse(text: &str) -> Option<Journal> {
        let steps = text
            .lines()
            .map(|line| {
                let fields: Vec<&str> = line.split('\t').collect();
                match fields[..] {
                    ["replace", staged, target, backup] => Some(Step::Replace {
                        staged: staged.into(),
                        target: target.into(),
                        backup: (backup != "-").then(|| backup.into()),
                    }),
                    ["remove", path, backup] => Some(Step::Remove {
                        path: path.into(),
                        backup: backup.into(),
                    }),
                    _ => None,
                }
            })
            .collect::<Option<Vec<Step>>>()?;
        // Every path stays inside the directory, as when it was written.
        let inside = |path: &str| {
            !path.is_empty()
                && Path::new(path)
                    .components()
                    .all(|part| matches!(part, Component::Normal(_)))
        };
        steps
            .iter()
            .all(|step| match step {
                Step::Replace {
                    staged,
                    target,
                    backup,
                } => inside(staged) && inside(target) && backup.as_deref().is_none_or(inside),
                Step::Remove { path, backup } => inside(path) && inside(backup),
            })
            .then_some(Journal { steps })
    }
}

/// Applies a committed journal; on a failure, undoes it and says exactly what happened.
fn finish(out: &Path, journal: &Journal) -> Result<(), WriteError> {
    match roll_forward(out, journal) {
        Ok(()) => {
            // The links go before the journal: killed in between, the next render finishes
            // the clean-up, so no link to a removed file (a renamed node's secrets) stays.
            clean_up(out, journal);
            let _ = fs::remove_file(out.join(JOURNAL));
            Ok(())
        }
        Err(failure) => {
            let undone = fs::rename(out.join(JOURNAL), out.join(ROLLBACK))
                .map_err(|cause| cause.to_string())
                .and_then(|()| roll_back(out, journal));
            match undone {
                Ok(()) => {
                    clean_up(out, journal);
                    let _ = fs::remove_file(out.join(ROLLBACK));
                    Err(WriteError(format!(
                        "{}; every file already replaced was restored: nothing was changed",
                        failure.0
                    )))
                }
                Err(cause) => Err(WriteError(format!(
                    "{}; restoring the previous files failed too ({cause}): `{}` lists what is left to undo, and the next `hybridgen render` into `{}` finishes it",
                    failure.0,
                    out.join(ROLLBACK).display(),
                    out.display()
                ))),
            }
        }
    }
}

/// Every step done, each skipped when already done: a staged file that is gone was renamed (it
/// sits beside its target, so a rename finding nothing to move finds no staged file).
fn roll_forward(out: &Path, journal: &Journal) -> Result<(), WriteError> {
    for step in &journal.steps {
        match step {
            Step::Replace { staged, target, .. } => {
                let target = out.join(target);
                match fs::rename(out.join(staged), &target) {
                    Err(cause) if cause.kind() != io::ErrorKind::NotFound => {
                        return Err(error(&target, "cannot replace", cause));
                    }
                    _ => {}
                }
            }
            Step::Remove { path, .. } => {
                let file = out.join(path);
                match fs::remove_file(&file) {
                    Err(cause) if cause.kind() != io::ErrorKind::NotFound => {
                        return Err(error(&file, "cannot remove", cause));
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// Every step undone, last first, each skipped when already undone: a target is its backup
/// again, a file that did not exist before is gone, a removed file is back.
fn roll_back(out: &Path, journal: &Journal) -> Result<(), String> {
    for step in journal.steps.iter().rev() {
        let (target, backup, staged) = match step {
            Step::Replace {
                staged,
                target,
                backup,
            } => (target, backup.as_deref(), Some(staged)),
            Step::Remove { path, backup } => (path, Some(backup.as_str()), None),
        };
        let target = out.join(target);
        match backup {
            Some(backup) => {
                let backup = out.join(backup);
                if fs::symlink_metadata(&backup).is_ok() {
                    fs::rename(&backup, &target)
                        .map_err(|cause| format!("`{}`: {cause}", target.display()))?;
                }
            }
            None => {
                let renamed_in =
                    staged.is_some_and(|staged| fs::symlink_metadata(out.join(staged)).is_err());
                if renamed_in {
                    match fs::remove_file(&target) {
                        Err(cause) if cause.kind() != io::ErrorKind::NotFound => {
                            return Err(format!("`{}`: {cause}", target.display()));
                        }
                        _ => {}
                    }
                }
            }
        }
        if let Some(staged) = staged {
            let _ = fs::remove_file(out.join(staged));
        }
    }
    Ok(())
}

/// After a write is complete or undone: its links go, and so do the directories that removed
/// files left empty.
fn clean_up(out: &Path, journal: &Journal) {
    for step in &journal.steps {
        match step {
            // A staged file is gone: renamed into place, or removed by `roll_back`.
            Step::Replace { backup, .. } => {
                if let Some(backup) = backup {
                    let _ = fs::remove_file(out.join(backup));
                }
            }
            Step::Remove { path, backup } => {
                let _ = fs::remove_file(out.join(backup));
                if fs::symlink_metadata(out.join(path)).is_err() {
                    remove_empty_parents(out, &out.join(path));
                }
            }
        }
    }
}

/// Finishes what a killed render left: a journal is rolled forward (it was committed), a
/// roll-back is completed. Called with the directory locked, before anything reads it.
fn recover(out: &Path) -> Result<(), WriteError> {
    for (name, forward) in [(ROLLBACK, false), (JOURNAL, true)] {
        let path = out.join(name);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let Some(journal) = Journal::parse(&text) else {
            return Err(error(
                &path,
                "cannot read the journal",
                "it is not one hybridgen wrote; move it away to render into this directory",
            ));
        };
        if forward {
            return finish(out, &journal).map_err(|failure| {
                WriteError(format!(
                    "finishing the render that was stopped part way: {}",
                    failure.0
                ))
            });
        }
        roll_back(out, &journal)
            .map_err(|cause| error(&path, "cannot undo the render that failed part way", cause))?;
        clean_up(out, &journal);
        let _ = fs::remove_file(&path);
    }
    Ok(())
}

/// An exclusive `flock` on the output directory, held until dropped (or the process ends).
struct DirectoryLock {
    #[cfg(unix)]
    _directory: fs::File,
}

impl DirectoryLock {
    fn exclusive(out: &Path) -> Result<Self, WriteError> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let directory = fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(out)
                .map_err(|cause| error(out, "cannot open", cause))?;
            // `flock` on Unix; released when the descriptor is closed.
            loop {
                match directory.lock() {
                    Ok(()) => break,
                    Err(cause) if cause.kind() == io::ErrorKind::Interrupted => {}
                    Err(cause) => return Err(error(out, "cannot lock", cause)),
                }
            }
            Ok(DirectoryLock {
                _directory: directory,
            })
        }
        #[cfg(not(unix))]
        {
            let _ = out;
            Ok(DirectoryLock {})
        }
    }
}

fn stage(
    out: &Path,
    artifacts: &[Artifact],
    manifest: &BTreeSet<String>,
    force: bool,
    written: &mut Written,
    staged: &mut Vec<Staged>,
) -> Result<(), WriteError> {
    let mut visited = HashSet::new();
    let mut seen = Directories::default();
    for artifact in artifacts {
        let destination = target(out, &artifact.path)?;
        let parent = parent_of(&artifact.path);
        ensure_directory(out, parent, &mut seen)?;
        // A directory this render created holds no leftovers and no earlier file.
        let fresh = seen.created.contains(parent);
        if visited.insert(parent) && !fresh {
            clear_leftovers(destination.parent().unwrap_or(out));
        }
        let existing = if fresh {
            OnDisk::Absent
        } else {
            on_disk(&destination, artifact.contents.as_bytes())
        };
        match existing {
            OnDisk::Symlink => {
                return Err(error(
                    &destination,
                    "refusing to replace the symlink",
                    "remove it first",
                ));
            }
            OnDisk::Same => {
                written.unchanged.push(artifact.path.clone());
                continue;
            }
            OnDisk::Differs if !force && !manifest.contains(&artifact.path) => {
                return Err(error(
                    &destination,
                    "refusing to overwrite",
                    "hybridgen did not write this file; move it away or pass --force",
                ));
            }
            OnDisk::Differs | OnDisk::Absent => {}
        }
        let temporary = staging_path(&destination);
        staged.push(Staged {
            temporary: temporary.clone(),
            destination,
            replaces: existing != OnDisk::Absent,
        });
        write_new_file(&temporary, &artifact.contents, mode(artifact))
            .map_err(|cause| error(&temporary, "cannot write", cause))?;
        written.changed.push(artifact.path.clone());
    }
    Ok(())
}

/// What an artifact's destination holds.
#[derive(Debug, PartialEq, Eq)]
enum OnDisk {
    Absent,
    Symlink,
    /// A regular file with exactly the artifact's bytes.
    Same,
    /// Anything else: other bytes, a directory, a file that cannot be read.
    Differs,
}

/// Compares `destination` with `contents` through one descriptor, opened without following a
/// symlink: a file of another size is not read, one of the same size is read once. (It was a
/// `stat`, an open, another `stat` and two reads, for each of the files an unchanged render
/// compares.)
fn on_disk(destination: &Path, contents: &[u8]) -> OnDisk {
    use std::io::Read;
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: a FIFO in the way is not waited on; it only differs.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    #[cfg(not(unix))]
    if fs::symlink_metadata(destination).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return OnDisk::Symlink;
    }
    let mut file = match options.open(destination) {
        Ok(file) => file,
        Err(cause) if cause.kind() == io::ErrorKind::NotFound => return OnDisk::Absent,
        #[cfg(unix)]
        Err(cause) if cause.raw_os_error() == Some(libc::ELOOP) => return OnDisk::Symlink,
        Err(_) => return OnDisk::Differs,
    };
    let same_size = file
        .metadata()
        .is_ok_and(|meta| meta.is_file() && meta.len() == contents.len() as u64);
    if !same_size {
        return OnDisk::Differs;
    }
    let mut current = vec![0; contents.len()];
    match file.read_exact(&mut current) {
        Ok(()) if current == contents => OnDisk::Same,
        _ => OnDisk::Differs,
    }
}

/// Where `destination` is staged: `.<name>.hybridgen-<pid>.tmp` beside it.
fn staging_path(destination: &Path) -> PathBuf {
    beside(destination, "tmp")
}

/// Where the file `destination` replaces is linked until the write is complete.
fn backup_path(destination: &Path) -> PathBuf {
    beside(destination, "old")
}

fn beside(destination: &Path, suffix: &str) -> PathBuf {
    let name = destination
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default();
    destination.with_file_name(format!(".{name}.hybridgen-{}.{suffix}", own_pid()))
}

/// This process's id, asked of the kernel once: every staged file's name carries it.
fn own_pid() -> u32 {
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *PID.get_or_init(std::process::id)
}

/// The process id in a staging or backup file's name, when `name` is one.
fn staging_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let rest = rest
        .strip_suffix(".tmp")
        .or_else(|| rest.strip_suffix(".old"))?;
    let (_, pid) = rest.rsplit_once(".hybridgen-")?;
    pid.parse().ok()
}

/// Removes the staging and backup files in `dir` that a killed render left. Called with the
/// directory locked and any journal finished, so no other render is using them.
fn clear_leftovers(dir: &Path) {
    clear_leftovers_but(dir, None);
}

/// `clear_leftovers`, keeping those of process `own` (the files this render has staged).
fn clear_leftovers_but(dir: &Path, own: Option<u32>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let pid = staging_pid(&entry.file_name().to_string_lossy());
        if pid.is_some() && pid != own {
            clear_leftover(&entry.path());
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

/// Removes the directories a removed file left empty, up to `out`.
fn remove_empty_parents(out: &Path, file: &Path) {
    let mut dir = file.parent();
    while let Some(current) = dir.filter(|current| *current != out && current.starts_with(out)) {
        if fs::remove_dir(current).is_err() {
            break;
        }
        dir = current.parent();
    }
}

/// Compares rendered artifacts with `out` without writing anything. Files holding secrets are
/// compared with the secret values masked on both sides.
///
/// When the directory exists it is locked, and a render that was stopped part way is finished
/// first (the only write `--check` makes), so that what is compared is one whole set.
pub fn check(out: &Path, artifacts: &[Artifact]) -> Result<Vec<Drift>, WriteError> {
    let out = &normalized(out);
    let _lock = match fs::symlink_metadata(out) {
        Ok(meta) if meta.is_dir() => {
            let lock = DirectoryLock::exclusive(out)?;
            recover(out)?;
            Some(lock)
        }
        _ => None,
    };
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
    for shape in crate::redact::secret_shapes(&keyed) {
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

    /// Only a regular file with the same bytes is unchanged: a symlink to one is refused, and
    /// a FIFO in the way is not waited on.
    #[cfg(unix)]
    #[test]
    fn only_a_plain_file_with_the_same_bytes_is_unchanged() {
        let dir = scratch("on-disk");
        fs::create_dir_all(dir.join("directory")).unwrap();
        fs::write(dir.join("same"), "abc").unwrap();
        fs::write(dir.join("other-bytes"), "abd").unwrap();
        fs::write(dir.join("longer"), "abcd").unwrap();
        fs::write(dir.join("empty"), "").unwrap();
        std::os::unix::fs::symlink(dir.join("same"), dir.join("link")).unwrap();
        let mode = rustix::fs::Mode::from_raw_mode(0o600);
        rustix::fs::mkfifoat(rustix::fs::CWD, dir.join("fifo"), mode).unwrap();
        for (name, contents, expected) in [
            ("same", "abc", OnDisk::Same),
            ("empty", "", OnDisk::Same),
            ("other-bytes", "abc", OnDisk::Differs),
            ("longer", "abc", OnDisk::Differs),
            ("same", "ab", OnDisk::Differs),
            ("directory", "", OnDisk::Differs),
            ("fifo", "", OnDisk::Differs),
            ("link", "abc", OnDisk::Symlink),
            ("missing", "abc", OnDisk::Absent),
        ] {
            assert_eq!(
                on_disk(&dir.join(name), contents.as_bytes()),
                expected,
                "{name}"
            );
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn leftovers_of_a_killed_render_are_removed_and_never_compared() {
        let out = scratch("leftovers");
        write_all(&out, &artifacts(), false).unwrap();
        // Whoever staged them, a render holding the lock is the only one writing: every staging
        // and backup file it finds was left by a render that was killed.
        let leftovers = [
            out.join(".a.yml.hybridgen-1.tmp"),
            out.join(".a.yml.hybridgen-77.old"),
            out.join(format!("sub/.b.json.hybridgen-{}.tmp", std::process::id())),
        ];
        for leftover in &leftovers {
            fs::write(leftover, "half a file").unwrap();
        }
        assert!(check(&out, &artifacts()).unwrap().is_empty());
        let mut next = artifacts();
        next[0].contents = "a: 2\n".into();
        next[1].contents = "{\"b\": 2}\n".into();
        write_all(&out, &next, false).unwrap();
        for leftover in &leftovers {
            assert!(!leftover.exists(), "{} stays", leftover.display());
        }
        assert_eq!(fs::read_to_string(out.join("a.yml")).unwrap(), "a: 2\n");
        let listed = fs::read_to_string(out.join(MANIFEST)).unwrap();
        assert!(!listed.contains(".tmp"), "{listed}");
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn a_killed_renders_link_to_a_file_no_longer_rendered_goes_with_it() {
        let out = scratch("stale-link");
        let mut before = artifacts();
        before.push(Artifact::new("windows/old-node/join.yaml", "token: x\n"));
        write_all(&out, &before, false).unwrap();
        // A render killed after linking the file it was about to remove.
        let stale = out.join("windows/old-node/.join.yaml.hybridgen-99999.old");
        fs::hard_link(out.join("windows/old-node/join.yaml"), &stale).unwrap();
        let written = write_all(&out, &artifacts(), false).unwrap();
        assert_eq!(written.removed, ["windows/old-node/join.yaml"]);
        assert!(!stale.exists());
        assert!(!out.join("windows/old-node").exists());
        fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn a_committed_journal_is_rolled_forward_before_anything_reads() {
        let out = scratch("journal");
        write_all(&out, &artifacts(), false).unwrap();
        // What a render killed right after its commit leaves: a staged file and the journal.
        fs::write(out.join(".a.yml.hybridgen-99999.tmp"), "a: 3\n").unwrap();
        fs::hard_link(out.join("a.yml"), out.join(".a.yml.hybridgen-99999.old")).unwrap();
        let journal = Journal {
            steps: vec![Step::Replace {
                staged: ".a.yml.hybridgen-99999.tmp".into(),
                target: "a.yml".into(),
                backup: Some(".a.yml.hybridgen-99999.old".into()),
            }],
        };
        assert_eq!(Journal::parse(&journal.text()), Some(journal.clone()));
        fs::write(out.join(JOURNAL), journal.text()).unwrap();
        let mut expected = artifacts();
        expected[0].contents = "a: 3\n".into();
        assert!(check(&out, &expected).unwrap().is_empty());
        assert!(!out.join(JOURNAL).exists());
        assert!(!out.join(".a.yml.hybridgen-99999.old").exists());
        // A journal that leaves the directory is refused, not followed.
        fs::write(out.join(JOURNAL), "remove\t../x\t.y\n").unwrap();
        assert!(write_all(&out, &artifacts(), false).is_err());
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

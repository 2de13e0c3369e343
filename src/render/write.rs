//! Putting artifacts on disk, and comparing them with what is there (`--check`).
//!
//! The output directory is input a pull request can commit: symlinks, manifests, leftovers of
//! an older hybridgen, names that look like hybridgen's own. So nothing beneath it is reached by
//! a path: every file and directory is opened relative to its parent's descriptor, one name at
//! a time, with `O_NOFOLLOW`, and only regular files are read.
//!
//! A write replaces the directory as a whole, with no journal and no recovery step to attack.
//! The complete new set is built in a sibling directory (`.<name>.hybridgen-<pid>`, beside
//! `--out` so that both are on one filesystem): artifacts whose bytes and mode are unchanged are
//! hard links to the files already there, the others are written, and every entry hybridgen did
//! not write (a user's notes, their subdirectories, links) is carried over as a hard link, so its
//! inode, contents and mode stay exactly as they were. One `renameat2(RENAME_EXCHANGE)` then
//! swaps the two directories, and the old one is removed. A reader (`kubectl apply -f`, `git
//! add`, `cat`) sees exactly the old set or exactly the new one at every instant, even right after
//! a `kill -9`; what a killed render leaves is only its sibling directory, which the next render
//! removes. The alternative the issue offered — a journal replayed on the next run, with every
//! path resolved beneath the directory — keeps a step that trusts what it reads from disk, and
//! readers that do not take hybridgen's lock could still see a mix. The swap costs a link per
//! unchanged or carried file and a new directory per directory: a render that changes nothing,
//! or writes into an empty directory, costs what the journal's did, and one that changes a file
//! costs more, most of it the kernel removing the old directories (BENCHMARKS.md, "Rendering by
//! swapping the directory", measures the main example and 500 nodes).
//!
//! Trade-offs of swapping the whole directory: `--out` must be a directory that can be renamed
//! (not a mount point, nor `.`, which a shell sitting in it would keep seeing as the old one); its
//! permission bits are carried over, its owner is whoever renders (as for any new directory); a
//! user file that cannot be hard-linked (`fs.protected_hardlinks` and another owner) stops the
//! render with its name. Where the filesystem has no `RENAME_EXCHANGE` (some network and FUSE
//! filesystems answer `EINVAL`), two renames are made instead: in between, `--out` is missing
//! for an instant, never a mix.
//!
//! A stale sibling directory is removed only when it is hybridgen's: a real directory with that
//! name carrying the sticky bit, which hybridgen sets on a directory while it builds or removes
//! it, and which git never records, so a committed look-alike is left alone. Removal never
//! follows a link and never leaves the filesystem.
//!
//! A file the manifest lists whose SHA-256 is no longer the manifest's was edited by hand since
//! hybridgen wrote it: a write stops before building anything and returns each such file with
//! its diff ([`Refusal::HandEdited`]), unless `force`; `check` reports it as
//! [`Drift::HandEdited`]. The hash only tells files apart: a tampered manifest can make a render
//! refuse, never make it write, remove or read anything it otherwise would not.
//!
//! Files are not synced to disk: the guarantee is against processes being killed, not against
//! the machine losing power (the artifacts can be rendered again from the spec).

use super::Artifact;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};
use rustix::io::Errno;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::{CStr, OsStr};
use std::fmt::Display;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// The list of files hybridgen wrote into an output directory, one a line: the SHA-256 of the
/// contents, the mode render gives the file, and its path (`<hex> 0644 plan.json`). Only a file
/// still matching its line is ever removed.
pub const MANIFEST: &str = ".hybridgen-manifest";

#[derive(Debug)]
pub struct WriteError(pub String);

/// Why a write made no change.
#[derive(Debug)]
pub enum Refusal {
    Failed(WriteError),
    /// Files the manifest lists whose contents are no longer what hybridgen wrote: edited by
    /// hand. Without `--force` a render stops before building anything, so they are kept.
    HandEdited(Vec<Drift>),
}

impl From<WriteError> for Refusal {
    fn from(error: WriteError) -> Self {
        Refusal::Failed(error)
    }
}

/// What a write did, file by file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub changed: Vec<String>,
    pub unchanged: Vec<String>,
    /// Files an earlier render wrote that this one no longer renders (a node renamed or removed,
    /// a backend changed), removed because they were still exactly as hybridgen wrote them.
    pub removed: Vec<String>,
    /// Files the manifest lists that are no longer rendered but are not as hybridgen wrote them
    /// (edited, replaced, or listed by hand): left in place.
    pub kept: Vec<String>,
}

/// A rendered file that differs from the one on disk.
#[derive(Debug, PartialEq, Eq)]
pub enum Drift {
    Missing(String),
    /// `diff` is a unified diff, or a sentence when the file was not compared by its text (a
    /// symlink, not a regular file, another mode).
    Differs {
        path: String,
        diff: String,
    },
    /// A file the manifest lists whose contents are not the ones hybridgen wrote (their SHA-256
    /// differs): edited by hand. `diff` goes from the file on disk to the rendered one.
    HandEdited {
        path: String,
        diff: String,
    },
    /// A file an earlier render wrote, unchanged since, that the spec no longer renders.
    Obsolete(String),
    /// A file the manifest lists, no longer rendered, that is not as hybridgen wrote it: a
    /// render leaves it in place.
    Kept(String),
}

fn error(path: &Path, what: &str, cause: impl Display) -> WriteError {
    WriteError(format!("{what} `{}`: {cause}", path.display()))
}

/// Whether `relative` is a path render may write: `/`-separated names, none empty, none
/// starting with a dot (hybridgen's own files do), so nothing leaves the output directory.
fn is_artifact_path(relative: &str) -> bool {
    !relative.is_empty()
        && Path::new(relative).components().all(|part| {
            matches!(part, Component::Normal(name) if !name.as_encoded_bytes().starts_with(b"."))
        })
        && !relative.contains("//")
        && !relative.ends_with('/')
}

fn check_paths(artifacts: &[Artifact]) -> Result<(), WriteError> {
    match artifacts.iter().find(|a| !is_artifact_path(&a.path)) {
        Some(bad) => Err(WriteError(format!(
            "refusing the artifact path `{}`: it would leave the output directory",
            bad.path
        ))),
        None => Ok(()),
    }
}

/// The directory of an artifact path (`windows/node-1` of `windows/node-1/join.ps1`), `""` for
/// the output directory itself, and the file's name.
fn split_path(relative: &str) -> (&str, &str) {
    relative.rsplit_once('/').unwrap_or(("", relative))
}

fn join(directory: &str, name: &str) -> String {
    if directory.is_empty() {
        name.to_string()
    } else {
        format!("{directory}/{name}")
    }
}

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

/// The directory holding `--out`, and `--out`'s own name: the swap renames that name.
fn parent_and_name(out: &Path) -> Result<(PathBuf, &OsStr), WriteError> {
    let name = match out.components().next_back() {
        Some(Component::Normal(name)) => name,
        _ => {
            return Err(error(
                out,
                "cannot render into",
                "name the directory itself (for example `--out ../deploy`), so that it can be replaced as a whole",
            ));
        }
    };
    let parent = out
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok((parent.to_path_buf(), name))
}

// ---------------------------------------------------------------------------------------------
// Looking beneath a directory without following links.

/// Flags for a directory opened on the way down: never through a symlink.
fn directory_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// What stands at a path beneath the output directory.
enum Entry {
    Absent,
    /// A directory on the way (`at`, relative) is a symlink or no directory at all.
    Blocked {
        at: String,
        what: &'static str,
    },
    Symlink,
    /// A directory, FIFO, socket or device: never opened.
    NotRegular(&'static str),
    /// A regular file that could not be opened (permissions).
    Unreadable(String),
    Regular(RegularFile),
}

/// A regular file, open, with its size and permission bits.
struct RegularFile {
    file: File,
    len: u64,
    mode: u32,
}

impl RegularFile {
    /// Its contents, when they are exactly `len` bytes long (a file of another size is not read).
    fn bytes(mut self) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(self.len).unwrap_or(0));
        self.file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}

/// What kind of thing a mode's type bits say, for a message.
fn kind_of(raw_mode: u32) -> &'static str {
    match FileType::from_raw_mode(raw_mode) {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice | FileType::BlockDevice => "a device",
        FileType::Unknown => "not a regular file",
    }
}

/// The output directory, open, and the directories beneath it looked up so far. One directory
/// is kept open (artifacts come directory by directory), so that 16,384 node directories never
/// hold 16,384 descriptors.
struct Beneath {
    root: OwnedFd,
    last: Option<(String, OwnedFd)>,
}

impl Beneath {
    fn new(root: OwnedFd) -> Self {
        Beneath { root, last: None }
    }

    /// Opens `relative` (`""` is the root) one name at a time, refusing a symlink or a file on
    /// the way; afterwards `self.directory(relative)` is it. When it cannot be opened, what
    /// stands there instead: [`Entry::Absent`] or [`Entry::Blocked`].
    fn open_directory(&mut self, relative: &str) -> io::Result<Option<Entry>> {
        if relative.is_empty() || self.last.as_ref().is_some_and(|(path, _)| path == relative) {
            return Ok(None);
        }
        let mut current: Option<OwnedFd> = None;
        let mut walked = String::new();
        for name in relative.split('/') {
            walked = join(&walked, name);
            let parent = current.as_ref().map_or(self.root.as_fd(), |fd| fd.as_fd());
            match rustix::fs::openat(parent, name, directory_flags(), Mode::empty()) {
                Ok(fd) => current = Some(fd),
                Err(Errno::NOENT) => return Ok(Some(Entry::Absent)),
                Err(Errno::LOOP | Errno::NOTDIR) => {
                    let stat = rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)?;
                    return Ok(Some(Entry::Blocked {
                        at: walked,
                        what: kind_of(stat.st_mode),
                    }));
                }
                Err(cause) => return Err(cause.into()),
            }
        }
        self.last = current.map(|fd| (relative.to_string(), fd));
        Ok(None)
    }

    /// The directory `open_directory` last opened.
    fn directory(&self, relative: &str) -> &OwnedFd {
        match &self.last {
            Some((path, fd)) if !relative.is_empty() && path == relative => fd,
            _ => &self.root,
        }
    }

    /// What stands at `relative`, a file path; a regular file is opened, nothing else is.
    fn entry(&mut self, relative: &str) -> io::Result<Entry> {
        let (directory, name) = split_path(relative);
        if let Some(in_the_way) = self.open_directory(directory)? {
            return Ok(in_the_way);
        }
        file_entry(self.directory(directory), name)
    }
}

/// What `name` in `directory` is, opening it only when it is a regular file (and checking again
/// once open: a FIFO swapped in meanwhile is not waited on, `O_NONBLOCK`).
fn file_entry(directory: &OwnedFd, name: &str) -> io::Result<Entry> {
    let stat = match rustix::fs::statat(directory, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => stat,
        Err(Errno::NOENT) => return Ok(Entry::Absent),
        Err(cause) => return Err(cause.into()),
    };
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => {}
        FileType::Symlink => return Ok(Entry::Symlink),
        _ => return Ok(Entry::NotRegular(kind_of(stat.st_mode))),
    }
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = match rustix::fs::openat(directory, name, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(Entry::Absent),
        Err(Errno::LOOP) => return Ok(Entry::Symlink),
        Err(cause) => return Ok(Entry::Unreadable(cause.to_string())),
    };
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Ok(Entry::NotRegular(kind_of(stat.st_mode)));
    }
    Ok(Entry::Regular(RegularFile {
        file: File::from(fd),
        len: u64::try_from(stat.st_size).unwrap_or(0),
        mode: stat.st_mode & 0o7777,
    }))
}

/// Opens `--out` itself: a directory, never through a symlink. `None` when it does not exist.
fn open_out(parent: &OwnedFd, name: &OsStr, out: &Path) -> Result<Option<OwnedFd>, WriteError> {
    match rustix::fs::openat(parent, name, directory_flags(), Mode::empty()) {
        Ok(fd) => Ok(Some(fd)),
        Err(Errno::NOENT) => Ok(None),
        // With O_DIRECTORY, Linux answers a symlink with ENOTDIR rather than ELOOP.
        Err(Errno::LOOP | Errno::NOTDIR) => {
            let linked = rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink);
            Err(if linked {
                error(
                    out,
                    "refusing to use the symlink",
                    "pass the real directory as --out; nothing was changed",
                )
            } else {
                error(
                    out,
                    "cannot use",
                    "it is not a directory; nothing was changed",
                )
            })
        }
        Err(cause) => Err(error(out, "cannot open", cause)),
    }
}

fn open_parent(parent: &Path) -> Result<OwnedFd, WriteError> {
    rustix::fs::openat(
        rustix::fs::CWD,
        parent,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|cause| error(parent, "cannot open", cause))
}

// ---------------------------------------------------------------------------------------------
// The manifest.

/// What the manifest says hybridgen wrote at one path: the SHA-256 of the contents, absent in
/// a manifest of an older hybridgen (which listed paths only).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    sha256: Option<String>,
}

/// The manifest's entries by path; a line that is no artifact path is ignored.
fn parse_manifest(text: &str) -> BTreeMap<String, Listed> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, ' ');
            let entry = match (fields.next(), fields.next(), fields.next()) {
                (Some(hash), Some(mode), Some(path)) if is_sha256(hash) && is_mode(mode) => (
                    path.to_string(),
                    Listed {
                        sha256: Some(hash.to_string()),
                    },
                ),
                _ => (line.to_string(), Listed { sha256: None }),
            };
            is_artifact_path(&entry.0).then_some(entry)
        })
        .collect()
}

fn is_sha256(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn is_mode(text: &str) -> bool {
    text.len() == 4 && text.bytes().all(|b| (b'0'..=b'7').contains(&b))
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The manifest of `artifacts`, in path order, then `remembered`: lines starting with a dot,
/// which no artifact path does (what a render from the cluster read, [`super::live_record`]).
fn manifest_text(artifacts: &[Artifact], remembered: &str) -> String {
    let by_path: BTreeMap<&str, &Artifact> =
        artifacts.iter().map(|a| (a.path.as_str(), a)).collect();
    let mut text: String = by_path
        .values()
        .map(|artifact| {
            format!(
                "{} {:04o} {}\n",
                sha256_hex(artifact.contents.as_bytes()),
                mode(artifact),
                artifact.path
            )
        })
        .collect();
    debug_assert!(remembered.lines().all(|line| line.starts_with('.')));
    text.push_str(remembered);
    text
}

/// The largest manifest read: far above 65,536 nodes' (about 30 MB).
const MANIFEST_LIMIT: u64 = 256 * 1024 * 1024;

/// The manifest's bytes as they stand, when it is a regular file.
fn read_manifest(tree: &mut Beneath) -> Result<Option<Vec<u8>>, WriteError> {
    let failed = |cause: io::Error| WriteError(format!("cannot read `{MANIFEST}`: {cause}"));
    match tree.entry(MANIFEST).map_err(failed)? {
        Entry::Regular(file) if file.len <= MANIFEST_LIMIT => {
            file.bytes().map(Some).map_err(failed)
        }
        // Anything else is no manifest hybridgen wrote: nothing is taken from it.
        _ => Ok(None),
    }
}

// ---------------------------------------------------------------------------------------------
// Modes.

/// The permissions an artifact is created with: 0755 for scripts, 0644 otherwise (less the
/// umask). No artifact holds a secret ([`super::node_secret`]).
fn mode(artifact: &Artifact) -> u32 {
    if artifact.path.ends_with(".sh") {
        0o755
    } else {
        0o644
    }
}

/// Whether permission bits on disk are what render writes, as far as a checkout keeps them: the
/// owner's bits are the same (git records the executable bit), no special bit and no write for
/// others is added, and a private file stays private. Bits a umask took away, and group write
/// (umask 002), are not a difference: a checkout made under them is not stale.
fn mode_matches(on_disk: u32, rendered: u32) -> bool {
    let owner_same = on_disk & 0o700 == rendered & 0o700;
    let no_special = on_disk & 0o7000 == 0;
    let others_cannot_write = on_disk & 0o002 == 0 || rendered & 0o002 != 0;
    let private_stays_private = rendered & 0o077 != 0 || on_disk & 0o077 == 0;
    owner_same && no_special && others_cannot_write && private_stays_private
}

// ---------------------------------------------------------------------------------------------
// Comparing (`--check`, and the first half of a write).

/// What the directory holds at an artifact's path, compared with the artifact.
enum Compared {
    Absent,
    /// A regular file with the artifact's bytes and a matching mode.
    Same,
    /// A regular file with other bytes or another mode.
    Differs {
        bytes: Vec<u8>,
        mode: u32,
    },
    /// Something render never writes there (a link, a directory, a FIFO, a link on the way):
    /// what it is, for a message; it was not read. `replaceable` with `--force`: not a
    /// directory, which may hold a user's tree, and nothing on the way to the file.
    Foreign {
        what: String,
        replaceable: bool,
    },
}

fn compare(tree: &mut Beneath, artifact: &Artifact, read_all: bool) -> io::Result<Compared> {
    let expected = artifact.contents.as_bytes();
    Ok(match tree.entry(&artifact.path)? {
        Entry::Absent => Compared::Absent,
        Entry::Blocked { at, what } => Compared::Foreign {
            what: format!(
                "`{at}` is {what}, not a directory hybridgen made, so nothing beneath it was read"
            ),
            replaceable: false,
        },
        Entry::Symlink => Compared::Foreign {
            what: "it is a symbolic link; hybridgen writes regular files, so it was not read"
                .into(),
            replaceable: true,
        },
        Entry::NotRegular(what) => Compared::Foreign {
            what: format!("it is {what}, not a regular file; it was not read"),
            replaceable: what != "a directory",
        },
        Entry::Unreadable(cause) => Compared::Foreign {
            what: format!("it cannot be read: {cause}"),
            replaceable: true,
        },
        Entry::Regular(file) => {
            let mode = file.mode;
            // A write needs no bytes of a file of another size: it is replaced anyway.
            if !read_all && file.len != expected.len() as u64 {
                return Ok(Compared::Differs {
                    bytes: Vec::new(),
                    mode,
                });
            }
            let bytes = file.bytes()?;
            if bytes == expected && mode_matches(mode, self::mode(artifact)) {
                Compared::Same
            } else {
                Compared::Differs { bytes, mode }
            }
        }
    })
}

/// The manifest's entries no longer rendered, split into those still exactly as hybridgen wrote
/// them (removed by a render) and those that are not (kept). Entries whose file is gone, or
/// that lie beneath a link, are neither: nothing there is hybridgen's.
fn obsolete(
    tree: &mut Beneath,
    listed: &BTreeMap<String, Listed>,
    artifacts: &[Artifact],
) -> io::Result<(Vec<String>, Vec<String>)> {
    let rendered: HashSet<&str> = artifacts.iter().map(|a| a.path.as_str()).collect();
    let mut removable = Vec::new();
    let mut kept = Vec::new();
    for (path, entry) in listed {
        if rendered.contains(path.as_str()) {
            continue;
        }
        match tree.entry(path)? {
            Entry::Absent | Entry::Blocked { .. } => {}
            Entry::Regular(file) => {
                let same = entry
                    .sha256
                    .as_deref()
                    .is_some_and(|hash| file.bytes().is_ok_and(|bytes| sha256_hex(&bytes) == hash));
                if same {
                    removable.push(path.clone());
                } else {
                    kept.push(path.clone());
                }
            }
            Entry::Symlink | Entry::NotRegular(_) | Entry::Unreadable(_) => kept.push(path.clone()),
        }
    }
    Ok((removable, kept))
}

/// `--out` opened for reading, with the directory holding it under a shared lock (a render into
/// it, which holds it exclusively, finishes its swap first; the lock lasts as long as the first
/// descriptor). `None` when it does not exist. `.` and `..`, which a render refuses, are read
/// as they are, without the lock.
fn open_for_reading(out: &Path) -> Result<Option<(Option<OwnedFd>, OwnedFd)>, WriteError> {
    let Ok((parent_path, name)) = parent_and_name(out) else {
        return match rustix::fs::openat(rustix::fs::CWD, out, directory_flags(), Mode::empty()) {
            Ok(root) => Ok(Some((None, root))),
            Err(Errno::NOENT) => Ok(None),
            Err(cause) => Err(error(out, "cannot open", cause)),
        };
    };
    let Ok(parent) = open_parent(&parent_path) else {
        return Ok(None);
    };
    let parent = File::from(parent);
    parent
        .lock_shared()
        .map_err(|cause| error(&parent_path, "cannot lock", cause))?;
    let parent = OwnedFd::from(parent);
    let root = open_out(&parent, name, out)?;
    Ok(root.map(|root| (Some(parent), root)))
}

/// The manifest's bytes in `out` (under the shared lock), when it is a regular file within the
/// size limit; `None` when there is none.
pub fn read_manifest_of(out: &Path) -> Result<Option<Vec<u8>>, WriteError> {
    match open_for_reading(&normalized(out))? {
        Some((_lock, root)) => read_manifest(&mut Beneath::new(root)),
        None => Ok(None),
    }
}

/// Compares rendered artifacts with `out` and writes nothing, ever: no lock file, no staging, no
/// clean-up. Only regular files are read, each opened beneath `out` without following a link;
/// anything else at an artifact's path is reported as differing without being read. Files
/// holding secrets are compared with the secret values masked on both sides.
pub fn check(out: &Path, artifacts: &[Artifact]) -> Result<Vec<Drift>, WriteError> {
    check_paths(artifacts)?;
    let out = &normalized(out);
    let Some((_lock, root)) = open_for_reading(out)? else {
        return Ok(artifacts
            .iter()
            .map(|a| Drift::Missing(a.path.clone()))
            .collect());
    };
    let mut tree = Beneath::new(root);
    let failed = |cause: io::Error| error(out, "cannot read", cause);
    let listed = read_manifest(&mut tree)?
        .map(|bytes| parse_manifest(&String::from_utf8_lossy(&bytes)))
        .unwrap_or_default();
    let mut drift = Vec::new();
    for artifact in artifacts {
        let wrote = listed
            .get(&artifact.path)
            .and_then(|entry| entry.sha256.as_deref());
        if let Some(item) = drift_of(&mut tree, artifact, wrote).map_err(failed)? {
            drift.push(item);
        }
    }
    let (removable, kept) = obsolete(&mut tree, &listed, artifacts).map_err(failed)?;
    drift.extend(removable.into_iter().map(Drift::Obsolete));
    drift.extend(kept.into_iter().map(Drift::Kept));
    Ok(drift)
}

/// How the file at `artifact`'s path differs from it; `wrote`, the SHA-256 the manifest lists
/// for the path, tells a file edited by hand from one an older render wrote.
fn drift_of(
    tree: &mut Beneath,
    artifact: &Artifact,
    wrote: Option<&str>,
) -> io::Result<Option<Drift>> {
    let differs = |diff: String| {
        Some(Drift::Differs {
            path: artifact.path.clone(),
            diff,
        })
    };
    Ok(match compare(tree, artifact, true)? {
        Compared::Same => None,
        Compared::Absent => Some(Drift::Missing(artifact.path.clone())),
        Compared::Foreign { what, .. } => differs(format!("{what}\n")),
        Compared::Differs { bytes, mode } => {
            let on_disk = String::from_utf8_lossy(&bytes);
            if artifact.contents != on_disk {
                let diff = masked_diff(&artifact.path, &on_disk, &artifact.contents);
                if wrote.is_some_and(|hash| sha256_hex(&bytes) != hash) {
                    Some(Drift::HandEdited {
                        path: artifact.path.clone(),
                        diff,
                    })
                } else {
                    differs(diff)
                }
            } else if !mode_matches(mode, self::mode(artifact)) {
                differs(format!(
                    "mode {mode:04o} on disk, rendered {:04o}\n",
                    self::mode(artifact)
                ))
            } else {
                None
            }
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Writing.

/// What a write does with each artifact, decided before anything is made.
#[derive(Default)]
struct Decisions {
    /// Artifact paths whose file stays as it is (linked into the new set).
    same: HashSet<String>,
    written: Written,
    /// Whether the manifest's bytes change.
    manifest_changes: bool,
}

/// Writes every artifact under `out` as one change: afterwards the directory holds the new set
/// and a manifest listing it, or — when anything failed — exactly what it held before. Files
/// whose contents and mode are unchanged are left alone; when nothing changes, nothing is made.
///
/// 1. The directory holding `--out` is locked (`flock`): a second render waits, `--check` too;
///    a killed render's lock ends with its process. Sibling directories a killed render left
///    are removed.
/// 2. The directory as it stands is compared with the artifacts (as `check` does), and the
///    manifest's entries no longer rendered are sorted into removable and kept.
/// 3. The new set is built beside it and swapped in with one rename; the old set is removed.
///
/// A file the manifest lists whose contents are no longer the ones hybridgen wrote was edited
/// by hand: unless `force`, the write stops at step 2 with every such file and its diff, and
/// changes nothing. `remembered` is written into the manifest after the files' lines.
pub fn write_all(
    out: &Path,
    artifacts: &[Artifact],
    force: bool,
    remembered: &str,
) -> Result<Written, Refusal> {
    check_paths(artifacts)?;
    let out = &normalized(out);
    let (parent_path, name) = parent_and_name(out)?;
    if fs::symlink_metadata(&parent_path).is_err() {
        fs::create_dir_all(&parent_path).map_err(|cause| {
            error(
                &parent_path,
                "cannot create",
                format!("{cause}; nothing was changed"),
            )
        })?;
    }
    let parent = File::from(open_parent(&parent_path)?);
    parent
        .lock()
        .map_err(|cause| error(&parent_path, "cannot lock", cause))?;
    let parent = OwnedFd::from(parent);
    let name_text = name.to_string_lossy().into_owned();
    remove_stale_staging(&parent, &name_text);
    let old_root = open_out(&parent, name, out)?;
    if let Some(root) = &old_root {
        clear_mark(root);
    }
    let mut tree = old_root.map(Beneath::new);
    let new_manifest = manifest_text(artifacts, remembered);
    let decisions = match tree.as_mut() {
        Some(tree) => decide(tree, artifacts, &new_manifest, force, out)?,
        None => Decisions {
            written: Written {
                changed: artifacts.iter().map(|a| a.path.clone()).collect(),
                ..Written::default()
            },
            manifest_changes: true,
            ..Decisions::default()
        },
    };
    // An older hybridgen's journal is dropped even when nothing else changes: that version
    // would replay it.
    let old_journal = tree
        .as_ref()
        .is_some_and(|tree| holds_old_journal(&tree.root));
    let nothing_changes = decisions.written.changed.is_empty()
        && decisions.written.removed.is_empty()
        && !decisions.manifest_changes
        && !old_journal;
    if nothing_changes {
        return Ok(decisions.written);
    }
    let staging = staging_name(&name_text);
    let built = create_staging(&parent, &staging, out).and_then(|(staging_fd, new_mode)| {
        let build = Build {
            artifacts,
            same: &decisions.same,
            removed: decisions
                .written
                .removed
                .iter()
                .map(String::as_str)
                .collect(),
            layout: Layout::of(artifacts),
            out,
        };
        let old = tree.as_ref().map(|tree| &tree.root);
        build.fill("", old, &staging_fd)?;
        write_file(&staging_fd, MANIFEST, new_manifest.as_bytes(), 0o644)
            .map_err(|cause| error(&out.join(MANIFEST), "cannot write", cause))?;
        Ok((staging_fd, new_mode))
    });
    let (staging_fd, new_mode) = match built {
        Ok(made) => made,
        Err(failure) => {
            remove_tree(&parent, &staging);
            return Err(WriteError(format!("{}; nothing was changed", failure.0)).into());
        }
    };
    let old_root = tree.as_ref().map(|tree| &tree.root);
    swap(
        &parent,
        &staging,
        name,
        (&staging_fd, new_mode),
        old_root,
        out,
    )?;
    Ok(decisions.written)
}

/// Step 2: what changes, refusing what hybridgen must not replace.
fn decide(
    tree: &mut Beneath,
    artifacts: &[Artifact],
    new_manifest: &str,
    force: bool,
    out: &Path,
) -> Result<Decisions, Refusal> {
    let failed =
        |cause: io::Error| error(out, "cannot read", format!("{cause}; nothing was changed"));
    let old_bytes = read_manifest(tree)?;
    let listed = old_bytes
        .as_deref()
        .map(|bytes| parse_manifest(&String::from_utf8_lossy(bytes)))
        .unwrap_or_default();
    let mut decisions = Decisions {
        manifest_changes: old_bytes.as_deref() != Some(new_manifest.as_bytes()),
        ..Decisions::default()
    };
    let mut hand_edited = Vec::new();
    for artifact in artifacts {
        let destination = out.join(&artifact.path);
        let wrote = listed
            .get(&artifact.path)
            .and_then(|entry| entry.sha256.as_deref())
            .filter(|_| !force);
        match compare(tree, artifact, wrote.is_some()).map_err(failed)? {
            Compared::Differs { bytes, .. }
                if wrote.is_some_and(|hash| sha256_hex(&bytes) != hash) =>
            {
                let on_disk = String::from_utf8_lossy(&bytes);
                hand_edited.push(Drift::HandEdited {
                    path: artifact.path.clone(),
                    diff: masked_diff(&artifact.path, &on_disk, &artifact.contents),
                });
            }
            Compared::Same => {
                decisions.same.insert(artifact.path.clone());
                decisions.written.unchanged.push(artifact.path.clone());
                continue;
            }
            Compared::Absent => {}
            Compared::Differs { .. } if force || listed.contains_key(&artifact.path) => {}
            Compared::Differs { .. } => {
                return Err(error(
                    &destination,
                    "refusing to overwrite",
                    "hybridgen did not write this file; move it away or pass --force; nothing was changed",
                )
                .into());
            }
            Compared::Foreign {
                replaceable: true, ..
            } if force => {}
            Compared::Foreign { what, replaceable } => {
                let or_force = if replaceable { " or pass --force" } else { "" };
                return Err(error(
                    &destination,
                    "refusing to replace",
                    format!("{what}; move it away{or_force}; nothing was changed"),
                )
                .into());
            }
        }
        decisions.written.changed.push(artifact.path.clone());
    }
    if !hand_edited.is_empty() {
        return Err(Refusal::HandEdited(hand_edited));
    }
    let (removable, kept) = obsolete(tree, &listed, artifacts).map_err(failed)?;
    decisions.written.removed = removable;
    decisions.written.kept = kept;
    Ok(decisions)
}

/// The sibling directory a render builds in: `.<name>.hybridgen-<pid>`.
fn staging_name(out_name: &str) -> String {
    format!(".{out_name}.hybridgen-{}", std::process::id())
}

/// Whether `entry` is the name of a staging directory for `out_name`.
fn is_staging_name(entry: &str, out_name: &str) -> bool {
    entry
        .strip_prefix('.')
        .and_then(|rest| rest.strip_prefix(out_name))
        .and_then(|rest| rest.strip_prefix(".hybridgen-"))
        .map(|rest| rest.strip_suffix("-old").unwrap_or(rest))
        .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

/// The sticky bit: set on a directory while hybridgen builds or removes it. git never records
/// it, so a committed directory with a staging name never has it.
const MARK: u32 = 0o1000;

/// The permission bits carried from the old `--out` to the new one (the sticky bit is
/// hybridgen's mark, not carried).
const CARRIED_MODE: u32 = 0o6777;

/// Takes the mark off `--out`, which a render killed right after its swap leaves there.
fn clear_mark(root: &OwnedFd) {
    if let Ok(stat) = rustix::fs::fstat(root)
        && stat.st_mode & MARK != 0
    {
        let _ = rustix::fs::fchmod(root, Mode::from_bits_truncate(stat.st_mode & CARRIED_MODE));
    }
}

/// Removes the staging directories a killed render left beside `--out`: only real directories
/// with the mark. Called under the lock, so no other render is using them.
fn remove_stale_staging(parent: &OwnedFd, out_name: &str) {
    let Ok(entries) = rustix::fs::Dir::read_from(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().to_str() else {
            continue;
        };
        if name == "." || name == ".." || !is_staging_name(name, out_name) {
            continue;
        }
        let marked =
            rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|stat| {
                FileType::from_raw_mode(stat.st_mode) == FileType::Directory
                    && stat.st_mode & MARK != 0
            });
        if marked {
            remove_tree(parent, name);
        }
    }
}

/// Creates the staging directory, marked, and returns it with the mode a new directory gets
/// here (0777 less the umask), which a new `--out` takes. Refuses when something that is not
/// hybridgen's holds its name.
fn create_staging(parent: &OwnedFd, name: &str, out: &Path) -> Result<(OwnedFd, u32), WriteError> {
    let shown = || out.with_file_name(name);
    // Marked as it is made (mkdir keeps the sticky bit), so that no instant leaves it unmarked.
    match rustix::fs::mkdirat(parent, name, Mode::from_bits_truncate(0o777 | MARK)) {
        Ok(()) => {}
        Err(Errno::EXIST) => {
            return Err(error(
                &shown(),
                "cannot build the new set in",
                "something that is not hybridgen's has this name; move it away",
            ));
        }
        Err(cause) => return Err(error(&shown(), "cannot create", cause)),
    }
    let fd = rustix::fs::openat(parent, name, directory_flags(), Mode::empty())
        .map_err(|cause| error(&shown(), "cannot open", cause))?;
    let natural = rustix::fs::fstat(&fd)
        .map_err(|cause| error(&shown(), "cannot read", cause))?
        .st_mode
        & 0o777;
    Ok((fd, natural))
}

/// Which directories the artifacts need, and which files go in each.
struct Layout<'a> {
    /// Directory → the artifacts in it (by index), `""` for the top.
    files: HashMap<&'a str, Vec<usize>>,
    /// Directory → the directories in it that artifacts need.
    children: HashMap<&'a str, BTreeSet<&'a str>>,
    needed: HashSet<&'a str>,
    paths: HashSet<&'a str>,
}

impl<'a> Layout<'a> {
    fn of(artifacts: &'a [Artifact]) -> Self {
        let mut layout = Layout {
            files: HashMap::new(),
            children: HashMap::new(),
            needed: HashSet::new(),
            paths: HashSet::new(),
        };
        for (index, artifact) in artifacts.iter().enumerate() {
            layout.paths.insert(&artifact.path);
            let (mut directory, _) = split_path(&artifact.path);
            layout.files.entry(directory).or_default().push(index);
            while !directory.is_empty() && layout.needed.insert(directory) {
                let (up, name) = split_path(directory);
                layout.children.entry(up).or_default().insert(name);
                directory = up;
            }
        }
        layout
    }
}

/// Step 3's build: the new set, filled directory by directory.
struct Build<'a> {
    artifacts: &'a [Artifact],
    same: &'a HashSet<String>,
    removed: HashSet<&'a str>,
    layout: Layout<'a>,
    out: &'a Path,
}

/// An older hybridgen's journal and roll-back list, which it replayed from inside `--out`.
const OLD_JOURNALS: [&str; 2] = [".hybridgen-journal", ".hybridgen-rollback"];

/// Whether `--out` holds an older hybridgen's journal or roll-back list (not a directory).
fn holds_old_journal(root: &OwnedFd) -> bool {
    OLD_JOURNALS.iter().any(|name| {
        rustix::fs::statat(root, *name, AtFlags::SYMLINK_NOFOLLOW)
            .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) != FileType::Directory)
    })
}

/// Names an older hybridgen left inside `--out`: its journal, its roll-back list, and its staged
/// and backup files (`.<name>.hybridgen-<pid>.tmp` / `.old`). Not carried into the new set.
fn is_old_leftover(name: &str) -> bool {
    if OLD_JOURNALS.contains(&name) {
        return true;
    }
    let Some(rest) = name.strip_prefix('.').and_then(|rest| {
        rest.strip_suffix(".tmp")
            .or_else(|| rest.strip_suffix(".old"))
    }) else {
        return false;
    };
    rest.rsplit_once(".hybridgen-")
        .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
}

impl Build<'_> {
    /// Fills the new directory `new` (at `relative`) from the old one (when there is one) and the
    /// artifacts. Returns whether it holds anything.
    fn fill(
        &self,
        relative: &str,
        old: Option<&OwnedFd>,
        new: &OwnedFd,
    ) -> Result<bool, WriteError> {
        let mut made: HashSet<String> = HashSet::new();
        let mut holds_anything = false;
        if let Some(old) = old {
            let entries = rustix::fs::Dir::read_from(old)
                .map_err(|cause| self.failed(relative, "cannot read the directory", cause))?;
            for entry in entries {
                let entry = entry
                    .map_err(|cause| self.failed(relative, "cannot read the directory", cause))?;
                let raw = entry.file_name();
                if raw.to_bytes() == b"." || raw.to_bytes() == b".." {
                    continue;
                }
                if self.carry(relative, old, new, raw, entry.file_type(), &mut made)? {
                    holds_anything = true;
                }
            }
        }
        for &index in self.layout.files.get(relative).into_iter().flatten() {
            let artifact = &self.artifacts[index];
            let (_, name) = split_path(&artifact.path);
            let placed = match (old, self.same.contains(&artifact.path)) {
                (Some(old), true) => link(old, name, new, name),
                _ => write_file(new, name, artifact.contents.as_bytes(), mode(artifact)),
            };
            placed.map_err(|cause| error(&self.out.join(&artifact.path), "cannot write", cause))?;
            holds_anything = true;
        }
        for &child in self.layout.children.get(relative).into_iter().flatten() {
            if made.contains(child) {
                continue;
            }
            let child_path = join(relative, child);
            let child_fd = self.make_directory(new, child, &child_path, 0o777)?;
            self.fill(&child_path, None, &child_fd)?;
            holds_anything = true;
        }
        Ok(holds_anything)
    }

    /// Carries one entry of the old directory into the new one, unless it is the manifest, an
    /// artifact's path, an old hybridgen's leftover, or a file removed as no longer rendered.
    /// Returns whether it was carried.
    fn carry(
        &self,
        relative: &str,
        old: &OwnedFd,
        new: &OwnedFd,
        raw: &CStr,
        listed_type: FileType,
        made: &mut HashSet<String>,
    ) -> Result<bool, WriteError> {
        let name = raw.to_str().ok();
        let path = name.map(|name| join(relative, name));
        let file_type = match listed_type {
            FileType::Unknown => rustix::fs::statat(old, raw, AtFlags::SYMLINK_NOFOLLOW)
                .map(|stat| FileType::from_raw_mode(stat.st_mode))
                .map_err(|cause| self.failed(relative, "cannot read the directory", cause))?,
            known => known,
        };
        let is_directory = file_type == FileType::Directory;
        if let (Some(name), Some(path)) = (name, path.as_deref()) {
            let skipped = (relative.is_empty() && name == MANIFEST)
                || (!is_directory && is_old_leftover(name))
                || self.layout.paths.contains(path)
                || self.removed.contains(path);
            if skipped {
                return Ok(false);
            }
        }
        if !is_directory {
            return link(old, raw, new, raw)
                .map(|()| true)
                .map_err(|cause| self.failed_at(relative, raw, "cannot carry over", cause));
        }
        let old_child = rustix::fs::openat(old, raw, directory_flags(), Mode::empty())
            .map_err(|cause| self.failed_at(relative, raw, "cannot open", cause))?;
        let old_mode = rustix::fs::fstat(&old_child)
            .map_err(|cause| self.failed_at(relative, raw, "cannot read", cause))?
            .st_mode;
        let child_path = match path {
            Some(path) => path,
            // A name that is not UTF-8 is never an artifact's: carried as it is.
            None => join(relative, &String::from_utf8_lossy(raw.to_bytes())),
        };
        let new_child = self.make_directory(new, raw, &child_path, 0o700)?;
        let had_anything = directory_has_entries(&old_child);
        let holds_anything = self.fill(&child_path, Some(&old_child), &new_child)?;
        // A directory emptied by files no longer rendered goes with them; a user's empty one stays.
        if had_anything && !holds_anything && !self.layout.needed.contains(child_path.as_str()) {
            let _ = rustix::fs::unlinkat(new, raw, AtFlags::REMOVEDIR);
            return Ok(false);
        }
        rustix::fs::fchmod(
            &new_child,
            Mode::from_bits_truncate(old_mode & CARRIED_MODE),
        )
        .map_err(|cause| self.failed_at(relative, raw, "cannot set the mode of", cause))?;
        if let Some(name) = name {
            made.insert(name.to_string());
        }
        Ok(true)
    }

    fn make_directory<P: rustix::path::Arg>(
        &self,
        parent: &OwnedFd,
        name: P,
        shown: &str,
        mode: u32,
    ) -> Result<OwnedFd, WriteError> {
        let target = self.out.join(shown);
        name.into_with_c_str(|name| {
            rustix::fs::mkdirat(parent, name, Mode::from_bits_truncate(mode))?;
            rustix::fs::openat(parent, name, directory_flags(), Mode::empty())
        })
        .map_err(|cause| error(&target, "cannot create the directory", cause))
    }

    fn failed(&self, relative: &str, what: &str, cause: impl Display) -> WriteError {
        error(&self.out.join(relative), what, cause)
    }

    fn failed_at(&self, relative: &str, raw: &CStr, what: &str, cause: impl Display) -> WriteError {
        let path = self
            .out
            .join(relative)
            .join(OsStr::from_bytes(raw.to_bytes()));
        error(&path, what, cause)
    }
}

fn directory_has_entries(directory: &OwnedFd) -> bool {
    rustix::fs::Dir::read_from(directory).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            let name = entry.file_name().to_bytes();
            name != b"." && name != b".."
        })
    })
}

/// A hard link of `name` in `from` at `to_name` in `to`, never following a symlink (a link is
/// linked as the link it is).
fn link<P: rustix::path::Arg, Q: rustix::path::Arg>(
    from: &OwnedFd,
    name: P,
    to: &OwnedFd,
    to_name: Q,
) -> io::Result<()> {
    rustix::fs::linkat(from, name, to, to_name, AtFlags::empty()).map_err(io::Error::from)
}

/// Creates `name` in `directory` (it must not exist) with `contents` and `mode` (less the umask).
fn write_file(directory: &OwnedFd, name: &str, contents: &[u8], mode: u32) -> io::Result<()> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(directory, name, flags, Mode::from_bits_truncate(mode))?;
    File::from(fd).write_all(contents)
}

/// Swaps the built set in and removes the old one. Where the filesystem has no
/// `RENAME_EXCHANGE`, the old directory is renamed aside and the new one into place.
fn swap(
    parent: &OwnedFd,
    staging: &str,
    name: &OsStr,
    (staging_fd, new_mode): (&OwnedFd, u32),
    old_root: Option<&OwnedFd>,
    out: &Path,
) -> Result<(), WriteError> {
    let failed = |cause: Errno| {
        remove_tree(parent, staging);
        error(
            out,
            "cannot replace",
            format!("{cause}; nothing was changed"),
        )
    };
    let Some(old_root) = old_root else {
        rustix::fs::renameat_with(parent, staging, parent, name, RenameFlags::NOREPLACE)
            .map_err(failed)?;
        let _ = rustix::fs::fchmod(staging_fd, Mode::from_bits_truncate(new_mode));
        return Ok(());
    };
    let old_mode = rustix::fs::fstat(old_root).map_err(failed)?.st_mode & CARRIED_MODE;
    let restore_old = || {
        let _ = rustix::fs::fchmod(old_root, Mode::from_bits_truncate(old_mode));
    };
    // The old directory is marked before the swap, so that whenever the process dies, what is
    // left at a staging name is marked as hybridgen's; the new one is unmarked after it.
    rustix::fs::fchmod(old_root, Mode::from_bits_truncate(old_mode | MARK)).map_err(failed)?;
    let aside = format!("{staging}-old");
    match rustix::fs::renameat_with(parent, staging, parent, name, RenameFlags::EXCHANGE) {
        Ok(()) => {}
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {
            if let Err(cause) = rustix::fs::renameat_with(
                parent,
                name,
                parent,
                aside.as_str(),
                RenameFlags::NOREPLACE,
            ) {
                restore_old();
                return Err(failed(cause));
            }
            if let Err(cause) =
                rustix::fs::renameat_with(parent, staging, parent, name, RenameFlags::NOREPLACE)
            {
                let _ = rustix::fs::renameat_with(
                    parent,
                    aside.as_str(),
                    parent,
                    name,
                    RenameFlags::NOREPLACE,
                );
                restore_old();
                return Err(failed(cause));
            }
        }
        Err(cause) => {
            restore_old();
            return Err(failed(cause));
        }
    }
    // A process killed before this leaves the sticky bit on `--out`; the next render's new set
    // does not carry it.
    let _ = rustix::fs::fchmod(staging_fd, Mode::from_bits_truncate(old_mode));
    remove_tree(parent, staging);
    remove_tree(parent, &aside);
    Ok(())
}

/// Removes the directory `name` in `parent` and everything beneath it, never following a link
/// and never leaving its filesystem. What cannot be removed is left (a later render retries:
/// the new set is in place already).
fn remove_tree(parent: &OwnedFd, name: &str) {
    let Ok(directory) = rustix::fs::openat(parent, name, directory_flags(), Mode::empty()) else {
        return;
    };
    let Ok(device) = rustix::fs::fstat(&directory).map(|stat| stat.st_dev) else {
        return;
    };
    empty_directory(&directory, device);
    let _ = rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR);
}

fn empty_directory(directory: &OwnedFd, device: u64) {
    // A carried directory may have lost its owner's write permission; it is going anyway.
    let _ = rustix::fs::fchmod(directory, Mode::from_bits_truncate(0o700 | MARK));
    let Ok(entries) = rustix::fs::Dir::read_from(directory) else {
        return;
    };
    let names: Vec<(std::ffi::CString, FileType)> = entries
        .flatten()
        .filter(|entry| !matches!(entry.file_name().to_bytes(), b"." | b".."))
        .map(|entry| (entry.file_name().to_owned(), entry.file_type()))
        .collect();
    for (name, listed_type) in names {
        let is_directory = match listed_type {
            FileType::Unknown => rustix::fs::statat(directory, &name, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Directory),
            known => known == FileType::Directory,
        };
        if !is_directory {
            let _ = rustix::fs::unlinkat(directory, &name, AtFlags::empty());
            continue;
        }
        let Ok(child) = rustix::fs::openat(directory, &name, directory_flags(), Mode::empty())
        else {
            continue;
        };
        // Another filesystem mounted here is not hybridgen's to empty.
        if rustix::fs::fstat(&child).is_ok_and(|stat| stat.st_dev == device) {
            empty_directory(&child, device);
            let _ = rustix::fs::unlinkat(directory, &name, AtFlags::REMOVEDIR);
        }
    }
}

/// The diff from the file on disk to the rendered one. No rendered file holds a secret, but one
/// rendered by an older hybridgen (or edited by hand) may: the diff masks anything shaped like a
/// bootstrap token or a CA hash.
fn masked_diff(path: &str, on_disk: &str, rendered: &str) -> String {
    let [expected, actual] = [rendered, on_disk].map(|text| crate::redact::masked(text, &[]));
    unified_diff(path, &actual, &expected)
}

/// The longest line of a diff shown, in characters: a file on disk may hold one line of
/// megabytes.
const DIFF_LINE_LIMIT: usize = 200;

/// A short unified diff (at most 40 lines of at most 200 characters) from the file on disk to
/// the rendered one.
fn unified_diff(path: &str, on_disk: &str, rendered: &str) -> String {
    let diff = similar::TextDiff::from_lines(on_disk, rendered);
    let text = diff
        .unified_diff()
        .context_radius(2)
        .header(&format!("{path} (on disk)"), &format!("{path} (rendered)"))
        .to_string();
    let lines: Vec<String> = text
        .lines()
        .map(|line| match line.char_indices().nth(DIFF_LINE_LIMIT) {
            Some((cut, _)) => format!(
                "{}... ({} more characters)",
                &line[..cut],
                line[cut..].chars().count()
            ),
            None => line.to_string(),
        })
        .collect();
    if lines.len() <= 40 {
        let mut shown = lines.join("\n");
        if text.ends_with('\n') {
            shown.push('\n');
        }
        shown
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
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    /// A write without remembered lines, whose refusals are errors (no test here edits a file).
    fn write_plain(out: &Path, artifacts: &[Artifact], force: bool) -> Result<Written, WriteError> {
        match write_all(out, artifacts, force, "") {
            Ok(written) => Ok(written),
            Err(Refusal::Failed(error)) => Err(error),
            Err(Refusal::HandEdited(edited)) => panic!("hand edits: {edited:?}"),
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join(format!("hybridgen-write-{}", std::process::id()))
            .join(name);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.parent().unwrap()).unwrap();
        dir
    }

    fn artifacts() -> Vec<Artifact> {
        vec![
            Artifact::new("a.yml", "a: 1\n"),
            Artifact::new("sub/b.json", "{}\n"),
            Artifact::new(
                "windows/n/Kubeclustervxlan.json",
                "{\n  \"KubeadmToken\": \"\"\n}",
            ),
            Artifact::new("sub/run.sh", "#!/bin/sh\n"),
        ]
    }

    fn mode_of(path: &Path) -> u32 {
        fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    /// The names beside `out` that hybridgen made: staging directories left behind.
    fn beside(out: &Path) -> Vec<String> {
        fs::read_dir(out.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(".hybridgen-"))
            .collect()
    }

    #[test]
    fn writes_then_finds_nothing_to_change() {
        let out = scratch("twice");
        let first = write_plain(&out, &artifacts(), false).unwrap();
        assert_eq!(first.changed.len(), 4);
        let inode = fs::metadata(&out).unwrap().ino();
        let second = write_plain(&out, &artifacts(), false).unwrap();
        assert_eq!(second.unchanged.len(), 4);
        assert_eq!(
            fs::metadata(&out).unwrap().ino(),
            inode,
            "nothing changed, so nothing was swapped"
        );
        assert!(check(&out, &artifacts()).unwrap().is_empty());
        assert!(beside(&out).is_empty(), "{:?}", beside(&out));
    }

    #[test]
    fn scripts_are_executable_and_others_readable() {
        let out = scratch("modes");
        write_plain(&out, &artifacts(), false).unwrap();
        let mode = |path: &str| mode_of(&out.join(path)) & 0o777;
        assert_ne!(mode("windows/n/Kubeclustervxlan.json"), 0o600);
        assert_eq!(mode("a.yml") & 0o600, 0o600);
        assert_ne!(mode("a.yml"), 0o600, "public files are not created private");
        assert_eq!(mode("sub/run.sh") & 0o100, 0o100, "scripts are executable");
        assert_eq!(mode_of(&out) & MARK, 0, "the new directory keeps no mark");
    }

    #[test]
    fn check_reports_drift_with_a_diff() {
        let out = scratch("check");
        write_plain(&out, &artifacts(), false).unwrap();
        let mut changed = artifacts();
        changed[0].contents = "a: 2\n".into();
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
    }

    #[test]
    fn a_diff_never_shows_a_token_an_older_file_on_disk_holds() {
        let out = scratch("check-token");
        let token = "abcdef.0123456789abcdef";
        let old = Artifact::new("k.yaml", format!("token: \"{token}\"\nname: a\n"));
        write_plain(&out, std::slice::from_ref(&old), false).unwrap();
        let drift = check(&out, &[Artifact::new("k.yaml", "name: b\n")]).unwrap();
        match &drift[..] {
            [Drift::Differs { diff, .. }] => {
                assert!(!diff.contains(token), "{diff}");
                assert!(diff.contains("+name: b"), "{diff}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_foreign_file_is_not_overwritten_without_force() {
        let out = scratch("foreign");
        fs::create_dir_all(&out).unwrap();
        fs::write(out.join("a.yml"), "mine\n").unwrap();
        let refused = write_plain(&out, &artifacts(), false).unwrap_err();
        assert!(refused.0.contains("did not write"), "{}", refused.0);
        assert_eq!(fs::read_to_string(out.join("a.yml")).unwrap(), "mine\n");
        assert!(
            !out.join("sub/b.json").exists(),
            "nothing is written when one file is refused"
        );
        write_plain(&out, &artifacts(), true).unwrap();
        assert_eq!(fs::read_to_string(out.join("a.yml")).unwrap(), "a: 1\n");
    }

    #[test]
    fn a_failure_part_way_leaves_the_previous_files_intact() {
        let out = scratch("failure");
        write_plain(&out, &artifacts(), false).unwrap();
        let mut next = artifacts();
        next[0].contents = "a: 2\n".into();
        // A file where a directory must go: refused before anything is built.
        next.push(Artifact::new("sub/b.json/x", "y\n"));
        assert!(write_plain(&out, &next, false).is_err());
        assert_eq!(fs::read_to_string(out.join("a.yml")).unwrap(), "a: 1\n");
        assert!(beside(&out).is_empty(), "{:?}", beside(&out));
    }

    #[test]
    fn paths_cannot_leave_the_output_directory() {
        let out = scratch("escape");
        for path in ["../x", "/etc/x", "a/../../x", ".hidden", "", "a//b", "a/"] {
            let result = write_plain(&out, &[Artifact::new(path, "x")], false);
            assert!(result.is_err(), "{path}");
        }
    }

    #[test]
    fn symlinks_are_not_followed() {
        let out = scratch("symlink");
        let elsewhere = scratch("symlink-target");
        fs::create_dir_all(&out).unwrap();
        fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("sub")).unwrap();
        assert!(write_plain(&out, &artifacts(), false).is_err());
        assert!(
            write_plain(&out, &artifacts(), true).is_err(),
            "not even with --force"
        );
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
        let drift = check(&out, &artifacts()).unwrap();
        assert!(
            drift.iter().any(|d| matches!(d, Drift::Differs { path, diff } if path == "sub/b.json" && diff.contains("`sub` is a symbolic link"))),
            "{drift:?}"
        );
    }

    /// Only a plain file with the same bytes and mode is unchanged: a symlink to one is not
    /// read, and a FIFO in the way is not waited on.
    #[test]
    fn only_a_plain_file_with_the_same_bytes_is_unchanged() {
        let dir = scratch("on-disk");
        fs::create_dir_all(dir.join("directory")).unwrap();
        for (name, text) in [
            ("same", "abc"),
            ("other-bytes", "abd"),
            ("longer", "abcd"),
            ("empty", ""),
        ] {
            fs::write(dir.join(name), text).unwrap();
            fs::set_permissions(dir.join(name), fs::Permissions::from_mode(0o644)).unwrap();
        }
        fs::write(dir.join("script"), "abc").unwrap();
        fs::set_permissions(dir.join("script"), fs::Permissions::from_mode(0o644)).unwrap();
        std::os::unix::fs::symlink(dir.join("same"), dir.join("link")).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.join("fifo"),
            FileType::Fifo,
            Mode::from_bits_truncate(0o600),
            0,
        )
        .unwrap();
        let root = rustix::fs::open(&dir, directory_flags(), Mode::empty()).unwrap();
        let mut tree = Beneath::new(root);
        for (name, contents, expected) in [
            ("same", "abc", "same"),
            ("empty", "", "same"),
            ("other-bytes", "abc", "differs"),
            ("longer", "abc", "differs"),
            ("same", "ab", "differs"),
            ("script.sh", "abc", "absent"),
            ("directory", "", "foreign"),
            ("fifo", "", "foreign"),
            ("link", "abc", "foreign"),
            ("missing", "abc", "absent"),
        ] {
            let found = match compare(&mut tree, &Artifact::new(name, contents), true).unwrap() {
                Compared::Absent => "absent",
                Compared::Same => "same",
                Compared::Differs { .. } => "differs",
                Compared::Foreign { .. } => "foreign",
            };
            assert_eq!(found, expected, "{name}");
        }
    }

    #[test]
    fn a_file_whose_mode_differs_is_stale_and_rewritten() {
        let out = scratch("mode");
        write_plain(&out, &artifacts(), false).unwrap();
        fs::set_permissions(out.join("sub/run.sh"), fs::Permissions::from_mode(0o644)).unwrap();
        fs::set_permissions(out.join("a.yml"), fs::Permissions::from_mode(0o666)).unwrap();
        let drift = check(&out, &artifacts()).unwrap();
        let stale: Vec<&str> = drift
            .iter()
            .filter_map(|d| match d {
                Drift::Differs { path, diff } if diff.starts_with("mode 0644 on disk") => {
                    Some(path.as_str())
                }
                _ => None,
            })
            .collect();
        assert_eq!(stale, ["sub/run.sh"], "{drift:?}");
        assert!(
            drift.iter().any(|d| matches!(d, Drift::Differs { path, diff } if path == "a.yml" && diff.starts_with("mode 0666 on disk"))),
            "a file others may write is stale: {drift:?}"
        );
        let written = write_plain(&out, &artifacts(), false).unwrap();
        assert_eq!(written.changed, ["a.yml", "sub/run.sh"]);
        assert_eq!(mode_of(&out.join("sub/run.sh")) & 0o100, 0o100);
        assert_eq!(mode_of(&out.join("a.yml")) & 0o002, 0);
        assert!(check(&out, &artifacts()).unwrap().is_empty());
    }

    #[test]
    fn modes_a_checkout_keeps_are_not_a_difference() {
        for (on_disk, rendered, same) in [
            (0o644, 0o644, true),
            (0o664, 0o644, true),
            (0o600, 0o644, true),
            (0o775, 0o755, true),
            (0o700, 0o755, true),
            (0o644, 0o755, false),
            (0o755, 0o644, false),
            (0o646, 0o644, false),
            (0o4755, 0o755, false),
            (0o640, 0o600, false),
            (0o600, 0o600, true),
        ] {
            assert_eq!(
                mode_matches(on_disk, rendered),
                same,
                "{on_disk:o} {rendered:o}"
            );
        }
    }

    #[test]
    fn user_files_and_directories_are_carried_over_as_they_were() {
        let out = scratch("carry");
        write_plain(&out, &artifacts(), false).unwrap();
        fs::write(out.join("NOTES.md"), "mine\n").unwrap();
        fs::create_dir_all(out.join("docs/deep")).unwrap();
        fs::write(out.join("docs/deep/x.txt"), "x\n").unwrap();
        fs::set_permissions(out.join("docs"), fs::Permissions::from_mode(0o750)).unwrap();
        fs::create_dir(out.join("empty")).unwrap();
        fs::write(out.join("sub/mine.txt"), "beside an artifact\n").unwrap();
        std::os::unix::fs::symlink("/nonexistent", out.join("link")).unwrap();
        fs::set_permissions(&out, fs::Permissions::from_mode(0o750)).unwrap();
        let inode = fs::metadata(out.join("NOTES.md")).unwrap().ino();
        let mut next = artifacts();
        next[0].contents = "a: 2\n".into();
        let written = write_plain(&out, &next, false).unwrap();
        assert_eq!(written.changed, ["a.yml"]);
        assert_eq!(fs::metadata(out.join("NOTES.md")).unwrap().ino(), inode);
        assert_eq!(
            fs::read_to_string(out.join("docs/deep/x.txt")).unwrap(),
            "x\n"
        );
        assert_eq!(mode_of(&out.join("docs")), 0o750);
        assert_eq!(mode_of(&out), 0o750, "the directory's own mode is kept");
        assert!(out.join("empty").is_dir());
        assert_eq!(
            fs::read_to_string(out.join("sub/mine.txt")).unwrap(),
            "beside an artifact\n"
        );
        assert_eq!(
            fs::read_link(out.join("link")).unwrap(),
            Path::new("/nonexistent")
        );
        assert!(beside(&out).is_empty(), "{:?}", beside(&out));
    }

    #[test]
    fn files_no_longer_rendered_are_removed_and_checked() {
        let out = scratch("obsolete");
        let mut before = artifacts();
        before.push(Artifact::new("gone/deep/old.yml", "old: 1\n"));
        write_plain(&out, &before, false).unwrap();
        fs::write(out.join("gone/mine.txt"), "a user's file\n").unwrap();
        let drift = check(&out, &artifacts()).unwrap();
        assert_eq!(drift, [Drift::Obsolete("gone/deep/old.yml".into())]);
        let written = write_plain(&out, &artifacts(), false).unwrap();
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
    }

    #[test]
    fn a_manifest_entry_never_deletes_a_file_hybridgen_cannot_prove_it_wrote() {
        let out = scratch("tampered");
        let mut before = artifacts();
        before.push(Artifact::new("old/edited.yml", "old: 1\n"));
        write_plain(&out, &before, false).unwrap();
        fs::write(out.join("old/edited.yml"), "old: 1\nedited: by hand\n").unwrap();
        fs::write(out.join("NOTES.md"), "mine\n").unwrap();
        fs::create_dir(out.join("keep")).unwrap();
        fs::write(out.join("keep/data.txt"), "mine\n").unwrap();
        let manifest = fs::read_to_string(out.join(MANIFEST)).unwrap();
        // Appended by a pull request: as an older hybridgen wrote them, and with a made-up hash.
        let planted = format!(
            "{manifest}NOTES.md\n{} 0644 keep/data.txt\n",
            "0".repeat(64)
        );
        fs::write(out.join(MANIFEST), planted).unwrap();
        let drift = check(&out, &artifacts()).unwrap();
        assert_eq!(
            drift,
            [
                Drift::Kept("NOTES.md".into()),
                Drift::Kept("keep/data.txt".into()),
                Drift::Kept("old/edited.yml".into())
            ]
        );
        let written = write_plain(&out, &artifacts(), false).unwrap();
        assert!(written.removed.is_empty(), "{written:?}");
        assert_eq!(written.kept.len(), 3);
        for file in ["NOTES.md", "keep/data.txt", "old/edited.yml"] {
            assert!(out.join(file).is_file(), "{file}");
        }
    }

    #[test]
    fn an_obsolete_entry_never_reaches_outside_the_directory() {
        let out = scratch("obsolete-escape");
        let elsewhere = scratch("obsolete-elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("precious.txt"), "keep\n").unwrap();
        write_plain(&out, &artifacts(), false).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("link")).unwrap();
        let manifest = fs::read_to_string(out.join(MANIFEST)).unwrap();
        let hash = sha256_hex(b"keep\n");
        let planted = format!(
            "{manifest}{hash} 0644 link/precious.txt\n{hash} 0644 ../{}/precious.txt\n",
            elsewhere.file_name().unwrap().to_string_lossy()
        );
        fs::write(out.join(MANIFEST), planted).unwrap();
        assert!(check(&out, &artifacts()).unwrap().is_empty());
        let written = write_plain(&out, &artifacts(), false).unwrap();
        assert!(written.removed.is_empty());
        assert_eq!(
            fs::read_to_string(elsewhere.join("precious.txt")).unwrap(),
            "keep\n"
        );
    }

    #[test]
    fn an_older_hybridgens_journal_and_staged_files_are_dropped_unread() {
        let out = scratch("old-journal");
        let elsewhere = scratch("old-journal-elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("victim.txt"), "keep\n").unwrap();
        write_plain(&out, &artifacts(), false).unwrap();
        std::os::unix::fs::symlink(&elsewhere, out.join("lnk")).unwrap();
        fs::write(out.join("payload.sh"), "echo pwned\n").unwrap();
        fs::write(
            out.join(".hybridgen-journal"),
            "replace\tpayload.sh\tlnk/planted.sh\t-\nremove\tlnk/victim.txt\tlnk/v.bak\n",
        )
        .unwrap();
        fs::write(
            out.join(".hybridgen-rollback"),
            "remove\tlnk/victim.txt\tlnk/v.bak\n",
        )
        .unwrap();
        fs::write(out.join(".a.yml.hybridgen-77.tmp"), "a: 3\n").unwrap();
        assert!(check(&out, &artifacts()).unwrap().is_empty());
        let mut next = artifacts();
        next[0].contents = "a: 2\n".into();
        write_plain(&out, &next, false).unwrap();
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 1);
        assert_eq!(
            fs::read_to_string(elsewhere.join("victim.txt")).unwrap(),
            "keep\n"
        );
        for dropped in [
            ".hybridgen-journal",
            ".hybridgen-rollback",
            ".a.yml.hybridgen-77.tmp",
        ] {
            assert!(!out.join(dropped).exists(), "{dropped}");
        }
        assert!(out.join("payload.sh").exists(), "a user's file stays");
    }

    #[test]
    fn only_marked_staging_directories_beside_out_are_removed() {
        let out = scratch("stale");
        write_plain(&out, &artifacts(), false).unwrap();
        let parent = out.parent().unwrap();
        let marked = parent.join(".stale.hybridgen-99999");
        fs::create_dir_all(marked.join("deep")).unwrap();
        fs::write(marked.join("deep/x"), "half a set\n").unwrap();
        fs::set_permissions(&marked, fs::Permissions::from_mode(0o1700)).unwrap();
        let committed = parent.join(".stale.hybridgen-88888");
        fs::create_dir_all(&committed).unwrap();
        fs::write(committed.join("y"), "a pull request's\n").unwrap();
        let linked = parent.join(".stale.hybridgen-77777");
        let elsewhere = scratch("stale-elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::write(elsewhere.join("z"), "keep\n").unwrap();
        fs::set_permissions(&elsewhere, fs::Permissions::from_mode(0o1777)).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &linked).unwrap();
        let mut next = artifacts();
        next[0].contents = "a: 2\n".into();
        write_plain(&out, &next, false).unwrap();
        assert!(!marked.exists());
        assert_eq!(
            fs::read_to_string(committed.join("y")).unwrap(),
            "a pull request's\n"
        );
        assert!(
            fs::symlink_metadata(&linked)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(elsewhere.join("z")).unwrap(), "keep\n");
        fs::remove_dir_all(&committed).unwrap();
        fs::remove_file(&linked).unwrap();
    }

    #[test]
    fn manifest_lines_of_either_format_are_read() {
        let hash = "a".repeat(64);
        let listed = parse_manifest(&format!(
            "{hash} 0644 a.yml\nold/b.json\n../x\n{hash} 0755 .hidden\n"
        ));
        assert_eq!(
            listed.into_iter().collect::<Vec<_>>(),
            [
                ("a.yml".to_string(), Listed { sha256: Some(hash) }),
                ("old/b.json".to_string(), Listed { sha256: None }),
            ]
        );
        assert!(is_staging_name(".deploy.hybridgen-12", "deploy"));
        assert!(is_staging_name(".deploy.hybridgen-12-old", "deploy"));
        assert!(!is_staging_name(".deploy.hybridgen-", "deploy"));
        assert!(!is_staging_name(".deploy2.hybridgen-12", "deploy"));
    }
}

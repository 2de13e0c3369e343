//! Reading what kubectl captured: files or directories of them, JSON or YAML, each a `List`, a
//! typed list (`NodeList`, `ConfigMapList`, ...) or a single object. Everything else a file can
//! hold — `kubectl describe` text, a `-o wide` table, a truncated file, something that is no
//! Kubernetes object — is an HG509 finding in that file, with the command that captures it
//! properly; nothing is skipped in silence. A file left empty by `--ignore-not-found` is an object
//! the cluster does not have.

use super::Capture;
use super::prune;
use crate::diagnostic::{Diagnostic, Location};
use crate::live::Object;
use crate::load::{self, CAPTURE, LoadedFile};
use crate::rules::live::CAPTURE_UNREADABLE;
use crate::source::SourceFile;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One file's bytes and the name reports give it (its path, or the kubectl command it came from).
pub struct Input {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Everything the captures held.
#[derive(Default)]
pub struct Captured {
    pub objects: Vec<Object>,
    /// Every capture read, with its findings (HG509), for the reports.
    pub files: Vec<CaptureFile>,
    /// Captures that were empty: objects the cluster does not have.
    pub empty: Vec<String>,
}

/// One capture as read, with its own findings (HG509).
pub struct CaptureFile {
    pub file: LoadedFile,
    pub diagnostics: Vec<Diagnostic>,
}

/// The kinds `verify` reads, each with the resource its capture command names.
const KINDS: [(&str, &str); 6] = [
    ("Node", "nodes"),
    ("ConfigMap", "configmap"),
    ("DaemonSet", "daemonsets"),
    ("Pod", "pods"),
    ("HelmChart", "helmcharts"),
    ("HelmChartConfig", "helmchartconfigs"),
];

/// What one capture file, and all of them together, may hold. Checked with `stat` before a byte
/// is read, so that a sparse or endless file costs nothing: a 5,000-node cluster (Kubernetes'
/// largest supported size) captures 87 MiB in its largest file (BENCHMARKS.md), well inside both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub file_bytes: u64,
    pub total_bytes: u64,
}

/// The budget `verify` reads captures within, from files or from kubectl.
pub const BUDGET: Budget = Budget {
    file_bytes: 256 * 1024 * 1024,
    total_bytes: 512 * 1024 * 1024,
};

/// A byte count as people read it: `600 MiB`, `12 KiB`, `80 bytes`.
pub fn bytes_text(bytes: u64) -> String {
    const KIB: u64 = 1024;
    match bytes {
        n if n >= KIB * KIB && n % (KIB * KIB) == 0 => format!("{} MiB", n / (KIB * KIB)),
        n if n >= KIB * KIB => format!("{:.1} MiB", n as f64 / (KIB * KIB) as f64),
        n if n >= KIB => format!("{} KiB", n / KIB),
        n => format!("{n} bytes"),
    }
}

/// The files to read: each path given, and every visible regular file under each directory
/// given, in name order, each once. A path that does not exist, a FIFO, device or socket, a
/// symlink inside a directory, or files beyond the budget are usage errors: each is refused with
/// the reason before anything is read.
pub fn gather(paths: &[PathBuf]) -> Result<Vec<Input>, String> {
    let mut files = Vec::new();
    for path in paths {
        collect(path, true, &mut files)?;
    }
    // A file given both on its own and in its directory is read once.
    let mut seen = std::collections::HashSet::new();
    files.retain(|found| {
        seen.insert(std::fs::canonicalize(&found.path).unwrap_or_else(|_| found.path.clone()))
    });
    let mut total: u64 = 0;
    for Found { path, size, .. } in &files {
        if *size > BUDGET.file_bytes {
            return Err(format!(
                "`{}` holds {}, more than the {} a capture file may hold",
                crate::escape::inline(&path.display().to_string()),
                bytes_text(*size),
                bytes_text(BUDGET.file_bytes)
            ));
        }
        total = total.saturating_add(*size);
    }
    if total > BUDGET.total_bytes {
        return Err(format!(
            "the {} capture files hold {}, more than the {} `verify` reads in one run",
            files.len(),
            bytes_text(total),
            bytes_text(BUDGET.total_bytes)
        ));
    }
    files
        .into_iter()
        .map(|found| {
            let name = found.path.display().to_string();
            read_regular(&found.path, found.given, BUDGET.file_bytes)
                .map(|bytes| Input {
                    name: name.clone(),
                    bytes,
                })
                .map_err(|error| format!("cannot read `{}`: {error}", crate::escape::inline(&name)))
        })
        .collect()
}

/// A file to read, with its size; `given` on the command line (a link given is followed).
struct Found {
    path: PathBuf,
    size: u64,
    given: bool,
}

/// A regular file, at most `limit` bytes of it. Opened without blocking (a FIFO swapped in after
/// `stat` would otherwise wait for a writer), and, for a file found in a directory, without
/// following a link swapped in after `stat`; checked again once open.
fn read_regular(path: &Path, given: bool, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let no_follow = if given { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | no_follow);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if let Some(kind) = not_regular(&meta) {
        return Err(std::io::Error::other(format!(
            "it is {kind}, not a regular file"
        )));
    }
    if meta.len() > limit {
        return Err(std::io::Error::other(format!(
            "it holds {}, more than the {} a capture file may hold",
            bytes_text(meta.len()),
            bytes_text(limit)
        )));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // A file that grows while it is read stops at the limit, and the loader refuses the rest.
    file.take(limit + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// What a file that is not a regular file or a directory is, for the refusal.
fn not_regular(meta: &std::fs::Metadata) -> Option<&'static str> {
    let kind = meta.file_type();
    if kind.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Some("a device");
        }
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    Some("not a regular file")
}

/// Adds `path` (a file given, or an entry of a directory given) with its size, or every visible
/// entry under it. A symlink given on the command line is followed; inside a directory, no link
/// is followed, to a file or to a directory: a capture directory can be committed, and a link in
/// it could point at any file (`~/.aws/credentials`, `/proc/self/environ`) or leave the tree.
fn collect(path: &Path, given: bool, files: &mut Vec<Found>) -> Result<(), String> {
    let shown = || crate::escape::inline(&path.display().to_string());
    let own = std::fs::symlink_metadata(path)
        .map_err(|error| format!("cannot read `{}`: {error}", shown()))?;
    if own.file_type().is_symlink() && !given {
        let target = match std::fs::metadata(path) {
            Ok(meta) => not_regular(&meta).unwrap_or("a file"),
            Err(_) => "nothing that exists",
        };
        return Err(format!(
            "refusing `{}`: it is a symbolic link to {target} inside a capture directory, and links there are not followed (pass what it points to as its own `--cluster`)",
            shown()
        ));
    }
    let meta =
        std::fs::metadata(path).map_err(|error| format!("cannot read `{}`: {error}", shown()))?;
    if meta.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(|error| format!("cannot read the directory `{}`: {error}", shown()))?
            .filter_map(Result::ok)
            .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
            .map(|entry| entry.path())
            .collect();
        entries.sort();
        for entry in entries {
            collect(&entry, false, files)?;
        }
        return Ok(());
    }
    if let Some(kind) = not_regular(&meta) {
        return Err(format!(
            "refusing `{}`: it is {kind}, not a regular file; captures are files kubectl wrote",
            shown()
        ));
    }
    files.push(Found {
        path: path.to_path_buf(),
        size: meta.len(),
        given,
    });
    Ok(())
}

/// Reads every input. `captures` are the commands that capture each kind properly, for the help.
pub fn read(inputs: Vec<Input>, captures: &[Capture]) -> Captured {
    let mut captured = Captured::default();
    for input in inputs {
        read_file(input, captures, &mut captured);
    }
    captured
}

/// Adds one capture, its objects, and its name when it is empty (an object the cluster does not
/// have).
fn read_file(input: Input, captures: &[Capture], captured: &mut Captured) {
    let (source, decoded) = load::decode_within(&input.name, input.bytes, &CAPTURE);
    let mut findings = Vec::new();
    let mut spans = None;
    if let Err(error) = decoded {
        findings.push(unreadable(
            Location::Bytes(error.span),
            error.message,
            "",
            captures,
        ));
    } else if source.text().trim().is_empty() {
        match required_capture(&input.name, captures) {
            Some(capture) => findings.push(
                Diagnostic::new(
                    &CAPTURE_UNREADABLE,
                    Location::Bytes(0..0),
                    "the capture is empty, but a cluster always has these objects: kubectl failed while capturing it",
                )
                .label("empty")
                .help(format!("capture it again with `{}`", capture.saved_to("."))),
            ),
            None => captured.empty.push(input.name),
        }
    } else {
        match parse(&source) {
            Ok((value, index)) => {
                spans = index;
                objects(
                    &input.name,
                    value,
                    captures,
                    &mut captured.objects,
                    &mut findings,
                );
            }
            Err((location, message, hint)) => {
                findings.push(unreadable(location, message, hint, captures));
            }
        }
    }
    // Only a capture's own findings (HG509) show its text: without any, it is let go at once,
    // which at thousands of nodes is tens of megabytes.
    let source = if findings.is_empty() {
        SourceFile::new(source.name(), String::new())
    } else {
        source
    };
    // A file that is neither a capture nor kubectl's text output (an env file, credentials) is
    // named in its finding but never quoted: whatever it holds is not the cluster's.
    let secret = holds_secret(source.text())
        || (!findings.is_empty() && !looks_like_kubectl_output(source.text()));
    let mut file = LoadedFile::new(source, spans);
    if secret {
        file.inline_secrets = std::iter::once(0..file.source.text().len()).collect();
    }
    captured.files.push(CaptureFile {
        file,
        diagnostics: findings,
    });
}

/// The capture an input is known to hold, when a cluster always has its objects (nodes,
/// DaemonSets, pods), so that an empty one means kubectl failed: kubectl's output is named by
/// its command, a file by its path (`daemonsets.json` from `--print-capture`'s script). Any other
/// empty file holds nothing that can be known; what the run needs is then checked by kind, once
/// every capture is read (`verify::compare`).
fn required_capture<'a>(name: &str, captures: &'a [Capture]) -> Option<&'a Capture> {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    captures.iter().find(|capture| {
        !capture.optional && (capture.command_line() == name || capture.file == file)
    })
}

/// Whether a text is something kubectl prints: it names a `kind`, or it is a `kubectl get`
/// table or `kubectl describe` text.
fn looks_like_kubectl_output(text: &str) -> bool {
    let head: String = text.chars().take(4096).collect();
    first_kind(&head).is_some() || human_output(head.trim_start()).is_some()
}

/// Whether a capture's text holds an object of kind `Secret` (`"kind": "Secret"`, `kind:
/// Secret`): such a file is never quoted, since its `data` and `stringData` are the secrets.
fn holds_secret(text: &str) -> bool {
    text.match_indices("Secret").any(|(at, _)| {
        let before = text[..at].trim_end_matches(['"', '\'', ' ', '\t']);
        let Some(before) = before.strip_suffix(':') else {
            return false;
        };
        let after = &text[at + "Secret".len()..];
        let ends = after
            .chars()
            .next()
            .is_none_or(|c| !c.is_ascii_alphanumeric());
        ends && before
            .trim_end_matches(['"', '\'', ' ', '\t'])
            .ends_with("kind")
    })
}

/// Why a file is not a capture: where, what, and the resource it seems to hold.
type NotACapture = (Location, String, &'static str);

/// The file's value, and its span index when it was YAML; or why it is not a capture.
fn parse(source: &SourceFile) -> Result<(Value, Option<load::SpanIndex>), NotACapture> {
    let text = source.text().trim_start_matches('\u{feff}');
    let start = source.text().len() - text.len();
    let trimmed = text.trim_start();
    let offset = start + (text.len() - trimmed.len());
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return prune::parse(text)
            .map(|value| (value, None))
            .map_err(|error| {
                // The report gives the place; serde's own "at line L column C" would repeat it.
                let position = format!(" at line {} column {}", error.line(), error.column());
                let said = error.to_string();
                let said = said.strip_suffix(&position).unwrap_or(&said).to_string();
                let (at, message) = if error.is_eof() {
                    // The end of the text, not the empty line after its final newline.
                    (
                        text.trim_end().len() + start,
                        format!("the JSON ends too early ({said}): the capture is truncated"),
                    )
                } else {
                    (
                        byte_offset(text, error.line(), error.column()) + start,
                        format!("the file is not JSON: {said}"),
                    )
                };
                (Location::Bytes(at..at), message, guess_resource(text))
            });
    }
    if let Some((what, hint)) = human_output(trimmed) {
        let span = offset..offset + trimmed.lines().next().map_or(0, str::len);
        let message = format!("this is {what}, which is for people, not a machine format");
        return Err((Location::Bytes(span), message, hint));
    }
    load::load_within(source, &CAPTURE)
        .map(|document| (document.value, Some(document.spans)))
        .map_err(|error| {
            let message = format!("the file is not YAML kubectl wrote: {}", error.message);
            (Location::Bytes(error.span), message, guess_resource(text))
        })
}

/// The byte offset of a 1-based line and column.
fn byte_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (line_start + column.saturating_sub(1)).min(text.len())
}

/// `kubectl describe` text or a `kubectl get` table (`-o wide` or none), with the resource it
/// seems to show.
fn human_output(text: &str) -> Option<(&'static str, &'static str)> {
    let first = text.lines().next().unwrap_or_default();
    let columns: Vec<&str> = first.split_whitespace().collect();
    let table = matches!(columns.first(), Some(&"NAME") | Some(&"NAMESPACE"))
        && columns.len() > 1
        && columns.iter().all(|column| {
            column
                .chars()
                .all(|c| c.is_ascii_uppercase() || "-()".contains(c))
        });
    if table {
        return Some(("a `kubectl get` table", guess_resource(text)));
    }
    let described = first.starts_with("Name:")
        && text
            .lines()
            .take(40)
            .any(|line| line.starts_with("Labels:") || line.starts_with("Namespace:"));
    described.then(|| ("`kubectl describe` output", guess_resource(text)))
}

/// Which resource a text seems to hold, to name the command that captures it properly: the
/// first `kind` it names (a list's items come before its own `kind` in kubectl's JSON), else the
/// words kubectl's tables and `describe` use.
fn guess_resource(text: &str) -> &'static str {
    let head: String = text.chars().take(4096).collect();
    if let Some(kind) = first_kind(&head) {
        if let Some((known, _)) = KINDS
            .iter()
            .find(|(known, _)| kind.trim_end_matches("List") == *known)
        {
            return known;
        }
    }
    if head.contains("DESIRED") || head.contains("Desired Number") {
        "DaemonSet"
    } else if head.contains("Data\n====") || head.contains("DATA") {
        "ConfigMap"
    } else if head.contains("Roles:") || head.contains("ROLES") || head.contains("nodeInfo") {
        "Node"
    } else if head.contains("READY") || head.contains("IP:") {
        "Pod"
    } else {
        ""
    }
}

/// The value of the first `kind` key, in JSON (`"kind": "NodeList"`) or YAML (`kind: Node`).
fn first_kind(text: &str) -> Option<&str> {
    let json = text.find("\"kind\"").map(|at| &text[at + 6..]);
    let yaml = text
        .lines()
        .find_map(|line| line.trim_start().strip_prefix("kind:"));
    let rest = json
        .and_then(|rest| rest.trim_start().strip_prefix(':'))
        .or(yaml)?;
    let value = rest.trim_start().trim_start_matches('"');
    let end = value
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(value.len());
    Some(&value[..end]).filter(|kind| !kind.is_empty())
}

/// HG509 at `location`, with the commands that capture `resource` (or all of them) properly.
fn unreadable(
    location: Location,
    message: String,
    resource: &str,
    captures: &[Capture],
) -> Diagnostic {
    let matching: Vec<String> = captures
        .iter()
        .filter(|capture| resource.is_empty() || capture_reads(capture, resource))
        .map(|capture| format!("`{}`", capture.saved_to(".")))
        .collect();
    let help = if matching.is_empty() || resource.is_empty() {
        "capture with `kubectl get ... -o json`; `hybridgen verify SPEC --print-capture` prints every command".to_string()
    } else {
        format!("capture it with {}", matching.join(" or "))
    };
    Diagnostic::new(&CAPTURE_UNREADABLE, location, message)
        .label("not a kubectl capture")
        .help(help)
}

/// Whether a capture command reads objects of `kind`.
fn capture_reads(capture: &Capture, kind: &str) -> bool {
    KINDS
        .iter()
        .any(|(known, resource)| *known == kind && capture.args.iter().any(|arg| arg == resource))
}

/// The objects of a parsed capture: a `List`, a typed list (whose items may lack `kind`, as the
/// API server returns them), or one object.
fn objects(
    file: &str,
    value: Value,
    captures: &[Capture],
    found: &mut Vec<Object>,
    findings: &mut Vec<Diagnostic>,
) {
    let kind = value
        .get("kind")
        .and_then(Value::as_str)
        .map(str::to_string);
    let Some(kind) = kind.filter(|_| value.get("apiVersion").is_some()) else {
        findings.push(unreadable(
            Location::Value(String::new()),
            "the file holds no Kubernetes object (no `apiVersion` and `kind`)".into(),
            guess_resource(&value.to_string()),
            captures,
        ));
        return;
    };
    let Some(item_kind) = kind.strip_suffix("List") else {
        if let Some(unread) = object(file, value, String::new(), None, captures, found, findings) {
            findings.push(unread_kind(&unread.0, &unread.1, 1));
        }
        return;
    };
    let Value::Object(mut list) = value else {
        return;
    };
    let Some(Value::Array(items)) = list.remove("items") else {
        findings.push(unreadable(
            Location::Value(String::new()),
            format!("the `{kind}` has no `items` list"),
            item_kind,
            captures,
        ));
        return;
    };
    let default_kind = (!item_kind.is_empty()).then(|| item_kind.to_string());
    // Objects of kinds verify does not read: one warning a kind, at its first object.
    let mut unread: Vec<(String, String, usize)> = Vec::new();
    // Items that are no object: the first few are findings, the rest counted, so that a list of a
    // million `{}` costs a million counts, not a million findings.
    let mut nameless = 0usize;
    for (index, item) in items.into_iter().enumerate() {
        let has_kind = item.get("kind").is_some_and(Value::is_string) || default_kind.is_some();
        let has_name = item
            .get("metadata")
            .and_then(|metadata| metadata.get("name"))
            .is_some_and(Value::is_string);
        if !(has_kind && has_name) {
            nameless += 1;
            if nameless > NAMELESS_SHOWN {
                continue;
            }
        }
        let pointer = format!("/items/{index}");
        let skipped = object(
            file,
            item,
            pointer,
            default_kind.as_deref(),
            captures,
            found,
            findings,
        );
        if let Some((kind, pointer)) = skipped {
            match unread.iter_mut().find(|(seen, _, _)| *seen == kind) {
                Some((_, _, count)) => *count += 1,
                None => unread.push((kind, pointer, 1)),
            }
        }
    }
    for (kind, pointer, count) in unread {
        findings.push(unread_kind(&kind, &pointer, count));
    }
    if nameless > NAMELESS_SHOWN {
        findings.push(unreadable(
            Location::Value("/items".into()),
            format!(
                "{} more items have no `kind` or no `metadata.name` ({nameless} in all; the first {NAMELESS_SHOWN} are shown)",
                nameless - NAMELESS_SHOWN
            ),
            item_kind,
            captures,
        ));
    }
}

/// How many items without a kind or name in one list are findings of their own.
const NAMELESS_SHOWN: usize = 20;

/// The warning for objects of a kind `verify` does not compare, left out.
fn unread_kind(kind: &str, pointer: &str, count: usize) -> Diagnostic {
    let objects = if count == 1 {
        format!("this `{kind}` is")
    } else {
        format!("the file's {count} `{kind}` objects are")
    };
    Diagnostic::new(
        &CAPTURE_UNREADABLE,
        Location::Value(pointer.to_string()),
        format!("`verify` does not compare `{kind}` objects with the plan: {objects} left out"),
    )
    .label(format!("a {kind}"))
    .help("`verify` reads Nodes, ConfigMaps, DaemonSets and Pods; `hybridgen verify SPEC --print-capture` prints the commands that capture them")
    .warning()
}

/// One object, kept when `verify` reads its kind. An object of another kind is a warning: it is
/// valid, but nothing compares it.
fn object(
    file: &str,
    value: Value,
    pointer: String,
    default_kind: Option<&str>,
    captures: &[Capture],
    found: &mut Vec<Object>,
    findings: &mut Vec<Diagnostic>,
) -> Option<(String, String)> {
    let kind = value
        .get("kind")
        .and_then(Value::as_str)
        .or(default_kind)
        .map(str::to_string);
    let metadata = value.get("metadata");
    let name = metadata
        .and_then(|metadata| metadata.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let (Some(kind), Some(name)) = (kind, name) else {
        findings.push(unreadable(
            Location::Value(pointer.clone()),
            "an item with no `kind` or no `metadata.name`, which every Kubernetes object has"
                .into(),
            default_kind.unwrap_or_default(),
            captures,
        ));
        return None;
    };
    if !KINDS.iter().any(|(known, _)| *known == kind) {
        // Its `kind:` line, not the whole object: a Deployment is a hundred lines or more.
        let at = if value.get("kind").is_some() {
            format!("{pointer}/kind")
        } else {
            pointer
        };
        return Some((kind, at));
    }
    let namespace = metadata
        .and_then(|metadata| metadata.get("namespace"))
        .and_then(Value::as_str)
        .map(str::to_string);
    found.push(Object {
        kind,
        namespace,
        name,
        value,
        file: file.to_string(),
        listed: !pointer.is_empty(),
        pointer,
    });
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::spec::Spec;

    fn captures() -> Vec<Capture> {
        let spec: Spec = serde_yaml::from_str(include_str!(
            "../../examples/kubeadm-1.36-vxlan-windows.yaml"
        ))
        .unwrap();
        super::super::kubectl::captures(&Plan::build(&spec))
    }

    fn read_one(name: &str, text: &str) -> Captured {
        read(
            vec![Input {
                name: name.into(),
                bytes: text.as_bytes().to_vec(),
            }],
            &captures(),
        )
    }

    fn codes(captured: &Captured) -> Vec<(&'static str, &'static str)> {
        captured
            .files
            .iter()
            .flat_map(|file| &file.diagnostics)
            .map(|d| (d.code(), d.severity.as_str()))
            .collect()
    }

    #[test]
    fn lists_typed_lists_and_single_objects_are_read_in_json_and_yaml() {
        let list = r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}]}"#;
        let typed = r#"{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"b"}}]}"#;
        let single = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: kube-system\ndata:\n  x: \"1\"\n";
        for (text, label) in [
            (list, "Node a"),
            (typed, "Node b"),
            (single, "ConfigMap kube-system/c"),
        ] {
            let captured = read_one("f", text);
            assert_eq!(codes(&captured), [], "{text}");
            assert_eq!(captured.objects.len(), 1);
            assert_eq!(captured.objects[0].label(), label);
        }
    }

    #[test]
    fn describe_and_tables_and_truncated_files_are_hg509_with_the_command() {
        let describe = "Name:               win-0\nRoles:              <none>\nLabels:             kubernetes.io/os=windows\n";
        let wide = "NAME     STATUS   ROLES           AGE   VERSION   INTERNAL-IP\nwin-0    Ready    <none>          3d    v1.33.4   192.168.10.30\n";
        let truncated = r#"{"apiVersion":"v1","kind":"NodeList","items":[{"metadata":{"name":"#;
        for text in [describe, wide, truncated] {
            let captured = read_one("nodes.txt", text);
            assert_eq!(codes(&captured), [("HG509", "error")], "{text}");
            let help = captured.files[0].diagnostics[0].help.clone().unwrap();
            assert!(help.contains("kubectl get nodes -o json"), "{help}");
            assert!(captured.objects.is_empty());
        }
    }

    #[test]
    fn a_file_that_is_no_kubectl_output_is_never_quoted() {
        for (name, text) in [
            (
                "env.json",
                "PATH=/usr/bin\u{0}RKE2_TOKEN=K10abc::server:secret\u{0}",
            ),
            (
                "credentials",
                "[default]\naws_access_key_id = AKIAEXAMPLE\n",
            ),
            ("notes.yaml", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI\n"),
        ] {
            let captured = read_one(name, text);
            assert_eq!(codes(&captured), [("HG509", "error")], "{name}");
            let file = &captured.files[0].file;
            let whole = 0..file.source.text().len();
            assert_eq!(file.inline_secrets, vec![whole], "{name} would be quoted");
        }
        // kubectl's own output, even broken, is quoted: the finding shows where it breaks.
        let truncated = r#"{"apiVersion":"v1","kind":"NodeList","items":[{"#;
        assert!(
            read_one("nodes.json", truncated).files[0]
                .file
                .inline_secrets
                .is_empty()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_inside_a_capture_directory_is_refused_by_name() {
        let dir =
            std::env::temp_dir().join(format!("hybridgen-capture-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("cap")).unwrap();
        std::fs::write(dir.join("credentials"), "aws_secret_access_key = x\n").unwrap();
        std::fs::write(dir.join("cap/nodes.json"), "{}").unwrap();
        std::os::unix::fs::symlink("../credentials", dir.join("cap/extra.yaml")).unwrap();
        let refused = gather(&[dir.join("cap")]).err().unwrap();
        assert!(
            refused.contains("extra.yaml") && refused.contains("symbolic link to a file"),
            "{refused}"
        );
        // Given on the command line, a link is the user's choice and is followed.
        assert_eq!(gather(&[dir.join("cap/extra.yaml")]).unwrap().len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_kinds_are_a_warning_and_empty_files_are_absent_objects() {
        let service = r#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"kube-dns"}}"#;
        assert_eq!(
            codes(&read_one("svc.json", service)),
            [("HG509", "warning")]
        );
        // `kubectl get all`: one warning a kind, not one an object.
        let service = |name: &str| {
            format!(r#"{{"apiVersion":"v1","kind":"Service","metadata":{{"name":"{name}"}}}}"#)
        };
        let all = format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[{},{},{},{{"apiVersion":"v1","kind":"Node","metadata":{{"name":"n"}}}}]}}"#,
            service("a"),
            service("b"),
            service("c")
        );
        let captured = read_one("all.json", &all);
        assert_eq!(codes(&captured), [("HG509", "warning")]);
        assert!(
            captured.files[0].diagnostics[0]
                .message
                .contains("3 `Service` objects")
        );
        assert_eq!(captured.objects.len(), 1);
        let empty = read_one("kubeadm-config.json", "\n");
        assert_eq!(codes(&empty), []);
        assert_eq!(empty.empty, ["kubeadm-config.json"]);
        let not_object = read_one("x.yaml", "just: text\n");
        assert_eq!(codes(&not_object), [("HG509", "error")]);
    }
}

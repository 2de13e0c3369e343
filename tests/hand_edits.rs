//! Rendered files are not meant to be edited: a file whose bytes are not the ones the manifest
//! says hybridgen wrote is reported with its diff, and `render` keeps it (writing nothing at
//! all) unless `--force`. `--check` tells such a file apart from one that is merely out of date.
//! Files the manifest does not list stay the user's, as before.

use std::path::{Path, PathBuf};
use std::process::Command;

const SPEC: &str = "examples/kubeadm-vxlan-windows.yaml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("hand-edits")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("deploy")
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn render(spec: &Path, out: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .current_dir(root())
        .arg("render")
        .arg(spec)
        .arg("--out")
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(path) = pending.pop() {
        for entry in std::fs::read_dir(&path).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                pending.push(entry.path());
            } else {
                files.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// The example rendered into a fresh `deploy`, and the spec's path.
fn rendered(name: &str) -> (PathBuf, PathBuf) {
    let out = scratch(name);
    let spec = root().join(SPEC);
    let run = render(&spec, &out, &[]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    (spec, out)
}

fn edit(out: &Path, relative: &str, from: &str, to: &str) {
    let path = out.join(relative);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{relative} has no `{from}`");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_file_edited_by_hand_is_named_with_its_diff_and_kept() {
    let (spec, out) = rendered("kept");
    edit(
        &out,
        "kubeadm/kubeadm-config.yaml",
        "10.96.0.10",
        "10.96.0.11",
    );
    // A file the manifest does not list is the user's, with or without `--force`.
    std::fs::write(out.join("NOTES.md"), "mine\n").unwrap();
    let before = tree(&out);

    let run = render(&spec, &out, &[]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "1 file is in deploy edited by hand since hybridgen wrote it; nothing was written"
        ) || run
            .stderr
            .contains("edited by hand since hybridgen wrote it"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "edited by hand: kubeadm/kubeadm-config.yaml\n--- kubeadm/kubeadm-config.yaml (on disk)"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("-  - \"10.96.0.11\""), "{}", run.stderr);
    assert!(run.stderr.contains("+  - \"10.96.0.10\""), "{}", run.stderr);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(tree(&out), before, "render wrote over a hand edit");

    let forced = render(&spec, &out, &["--force"]);
    assert_eq!(forced.code, Some(0), "{}{}", forced.stdout, forced.stderr);
    assert!(
        forced.stdout.contains("wrote ") && forced.stdout.contains("kubeadm-config.yaml"),
        "{}",
        forced.stdout
    );
    assert_eq!(render(&spec, &out, &["--check"]).code, Some(0));
    assert_eq!(
        std::fs::read_to_string(out.join("NOTES.md")).unwrap(),
        "mine\n"
    );
}

#[test]
fn check_tells_a_hand_edit_from_a_stale_file() {
    let (spec, out) = rendered("check");
    edit(
        &out,
        "kubeadm/kubeadm-config.yaml",
        "10.96.0.10",
        "10.96.0.11",
    );
    // An older render's bytes, listed as such in the manifest: stale, not edited.
    let plan = out.join("plan.json");
    let old = std::fs::read_to_string(&plan)
        .unwrap()
        .replacen("\"name\"", "\"name \"", 1);
    std::fs::write(&plan, &old).unwrap();
    let manifest_path = out.join(".hybridgen-manifest");
    let manifest = std::fs::read_to_string(&manifest_path).unwrap();
    let hash = sha256(old.as_bytes());
    let manifest: String = manifest
        .lines()
        .map(|line| {
            if line.ends_with(" plan.json") {
                format!("{hash} 0644 plan.json\n")
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    std::fs::write(&manifest_path, manifest).unwrap();

    let run = render(&spec, &out, &["--check"]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .starts_with("1 file is stale, 1 file is edited by hand in "),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("differs: plan.json"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("edited by hand: kubeadm/kubeadm-config.yaml"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("--force"), "{}", run.stdout);

    // Once the edit is undone, the stale file hybridgen wrote is replaced without `--force`.
    edit(
        &out,
        "kubeadm/kubeadm-config.yaml",
        "10.96.0.11",
        "10.96.0.10",
    );
    let run = render(&spec, &out, &[]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("plan.json"), "{}", run.stdout);
}

#[test]
fn a_hand_edit_of_megabytes_is_quoted_in_a_bounded_and_escaped_diff() {
    let (spec, out) = rendered("bounded");
    let path = out.join("kube-flannel.yml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.insert_str(
        0,
        &format!("# \u{1b}[2J\u{1b}]0;owned\u{7}{}\n", "x".repeat(4 << 20)),
    );
    for line in 0..500 {
        text.push_str(&format!("# added {line}\n"));
    }
    std::fs::write(&path, text).unwrap();
    for args in [&["--check"][..], &[]] {
        let run = render(&spec, &out, args);
        assert_eq!(run.code, Some(1));
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(all.contains("edited by hand: kube-flannel.yml"), "{all}");
        assert!(all.len() < 20_000, "{} bytes", all.len());
        assert!(!all.contains('\u{1b}') && !all.contains('\u{7}'), "{all}");
        assert!(all.contains("more characters"), "{all}");
        assert!(all.contains("more lines"), "{all}");
    }
}

/// SHA-256 through the system's `sha256sum`, so that the test shares no code with the writer.
fn sha256(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let output = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&output.stdout)[..64].to_string()
}

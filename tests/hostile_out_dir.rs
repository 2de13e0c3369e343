//! The output directory and capture directories as a pull request can commit them (security
//! review 2026-11, findings 1, 2, 8, 10 and 11, and variants): journals of an older hybridgen,
//! symlinks to files and directories outside at several depths, `/proc/self/environ`, FIFOs, a
//! tampered manifest, look-alike staging directories, changed modes. Through the real binary,
//! each case checks that everything outside `--out` stays byte for byte as it was, that
//! `render --check` changes nothing at all, and that no secret from the environment is printed.

#![cfg(target_os = "linux")]

#[path = "support/watched.rs"]
mod watched;

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const EXAMPLE: &str = "examples/kubeadm-1.36-vxlan-windows.yaml";
const HEALTHY: &str = "tests/fixtures/verify/healthy";

/// Values in the environment of every run; none may ever be printed.
const SECRETS: [(&str, &str); 4] = [
    ("KUBEADM_TOKEN", "abcdef.0123456789abcdef"),
    (
        "KUBEADM_CA_HASH",
        "sha256:1111111111111111111111111111111111111111111111111111111111111111",
    ),
    ("RKE2_TOKEN", "rke2-canary-token-4f1d"),
    ("CI_SECRET", "ghp_canary_SECRET_5e7a"),
];

/// What an administrator's files outside the repository hold.
const CREDENTIALS: &str =
    "[default]\naws_access_key_id = AKIACANARYKEY\naws_secret_access_key = CANARY/secret/key\n";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh workspace: `outside/` (an administrator's files: credentials, a git directory, an
/// `etc`) beside where each case puts `deploy/`.
fn workspace(name: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::SeqCst);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile-out-dir")
        .join(format!("{name}-{call}"));
    let _ = std::fs::remove_dir_all(&dir);
    let outside = dir.join("outside");
    for sub in [".git/hooks", "etc", "win/win-worker-0"] {
        std::fs::create_dir_all(outside.join(sub)).unwrap();
    }
    std::fs::write(outside.join("credentials"), CREDENTIALS).unwrap();
    std::fs::write(outside.join("victim.txt"), "keep me\n").unwrap();
    std::fs::write(outside.join("etc/passwd"), "root:x:0:0::/root:/bin/sh\n").unwrap();
    std::fs::write(outside.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(outside.join("win/win-worker-0/join.ps1"), CREDENTIALS).unwrap();
    dir
}

type Run = watched::Watched;

fn hybridgen(args: &[&str]) -> Run {
    // `HYBRIDGEN_TEST_BIN` runs these against another build (an older release, to see which of
    // them it fails).
    let binary = std::env::var_os("HYBRIDGEN_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_hybridgen")));
    let mut command = Command::new(binary);
    command.current_dir(root()).args(args).env_remove("CI");
    for (name, value) in SECRETS {
        command.env(name, value);
    }
    let run = watched::run(command, Duration::from_secs(60));
    let printed = format!("{}{}", run.stdout, run.stderr);
    for (name, value) in SECRETS {
        assert!(
            !printed.contains(value),
            "{args:?} printed {name}:\n{printed}"
        );
    }
    for canary in ["AKIACANARYKEY", "CANARY/secret/key"] {
        assert!(
            !printed.contains(canary),
            "{args:?} printed {canary}:\n{printed}"
        );
    }
    run
}

fn render(out: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["render", EXAMPLE, "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    hybridgen(&args)
}

/// Every entry under `dir`, never following a link: its kind, mode and contents (a link's
/// target), dot-files included.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(base: &Path, dir: &Path, found: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(base).unwrap().display().to_string();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = meta.mode() & 0o7777;
            let what = if meta.file_type().is_symlink() {
                format!("link -> {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                walk(base, &path, found);
                format!("dir {mode:o}")
            } else if meta.is_file() {
                let bytes = std::fs::read(&path).unwrap();
                format!("file {mode:o} {}", String::from_utf8_lossy(&bytes))
            } else {
                format!("special {mode:o}")
            };
            found.insert(relative, what);
        }
    }
    let mut found = BTreeMap::new();
    walk(dir, dir, &mut found);
    found
}

/// The workspace without `deploy/`: what no render into `deploy` may change.
fn outside_deploy(workspace: &Path) -> BTreeMap<String, String> {
    tree(workspace)
        .into_iter()
        .filter(|(path, _)| path != "deploy" && !path.starts_with("deploy/"))
        .collect()
}

/// Runs `render --check` and then `render` (with `extra`) into `deploy`: the check changes
/// nothing anywhere, and neither changes anything outside `deploy`.
fn check_then_render(workspace: &Path, extra: &[&str]) -> (Run, Run) {
    let out = workspace.join("deploy");
    let everything = tree(workspace);
    let checked = render(&out, &["--check"]);
    assert_eq!(tree(workspace), everything, "--check changed something");
    let outside = outside_deploy(workspace);
    let rendered = render(&out, extra);
    assert_eq!(
        outside_deploy(workspace),
        outside,
        "render changed something outside --out"
    );
    (checked, rendered)
}

fn rendered(workspace: &Path) -> PathBuf {
    let out = workspace.join("deploy");
    let run = render(&out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    out
}

// Finding 1: a committed journal and directory links.

#[test]
fn a_committed_journal_through_a_directory_link_moves_and_removes_nothing_outside() {
    for target in [
        "../outside",
        "ABSOLUTE/outside/etc",
        "../outside/.git",
        "/proc/self",
    ] {
        let ws = workspace("journal");
        let out = rendered(&ws);
        let target = target.replace("ABSOLUTE", &ws.display().to_string());
        symlink(&target, out.join("lnk")).unwrap();
        std::fs::write(out.join("payload.sh"), "#!/bin/sh\nid > /tmp/pwned\n").unwrap();
        std::fs::set_permissions(out.join("payload.sh"), PermissionsExt::from_mode(0o755)).unwrap();
        let journal = "replace\tpayload.sh\tlnk/hooks/post-commit\t-\nreplace\tpayload.sh\tlnk/planted.sh\t-\nreplace\tlnk/credentials\tstolen\t-\nremove\tlnk/victim.txt\tlnk/victim.txt.bak\nremove\tlnk/passwd\tlnk/passwd.bak\n";
        std::fs::write(out.join(".hybridgen-journal"), journal).unwrap();
        std::fs::write(out.join(".hybridgen-rollback"), journal).unwrap();
        std::fs::write(out.join(".plan.json.hybridgen-1.tmp"), "{}").unwrap();
        let (checked, written) = check_then_render(&ws, &[]);
        assert_eq!(checked.code, Some(0), "{target}: {}", checked.stdout);
        assert_eq!(written.code, Some(0), "{target}: {}", written.stderr);
        assert!(!out.join("stolen").exists(), "{target}");
        assert!(!ws.join("outside/.git/hooks/post-commit").exists());
        // An older hybridgen's journal is dropped unread; the user's payload and link stay.
        assert!(!out.join(".hybridgen-journal").exists());
        assert!(!out.join(".hybridgen-rollback").exists());
        assert!(out.join("payload.sh").exists() && out.join("lnk").is_symlink());
    }
}

#[test]
fn a_journal_left_by_an_older_version_is_ignored_by_check_and_dropped_by_render() {
    let ws = workspace("old-journal");
    let out = rendered(&ws);
    std::fs::write(
        out.join(".plan.json.hybridgen-4242.tmp"),
        "{\"stale\": true}\n",
    )
    .unwrap();
    std::fs::write(
        out.join(".hybridgen-journal"),
        "replace\t.plan.json.hybridgen-4242.tmp\tplan.json\t-\n",
    )
    .unwrap();
    let plan = std::fs::read(out.join("plan.json")).unwrap();
    let (checked, written) = check_then_render(&ws, &[]);
    assert_eq!(checked.code, Some(0), "{}", checked.stdout);
    assert_eq!(written.code, Some(0), "{}", written.stderr);
    assert_eq!(
        std::fs::read(out.join("plan.json")).unwrap(),
        plan,
        "the journal was replayed"
    );
    // Dropped, so that an older hybridgen run later does not replay it either.
    assert!(!out.join(".hybridgen-journal").exists());
    assert!(!out.join(".plan.json.hybridgen-4242.tmp").exists());
}

// Finding 2: `--check` reading through links.

#[test]
fn check_never_reads_an_artifact_through_a_link_and_says_what_it_is() {
    let ws = workspace("check-links");
    let out = rendered(&ws);
    let outside = ws.join("outside");
    std::fs::remove_file(out.join("plan.json")).unwrap();
    symlink("/proc/self/environ", out.join("plan.json")).unwrap();
    std::fs::remove_file(out.join("kube-flannel.yml")).unwrap();
    symlink(outside.join("credentials"), out.join("kube-flannel.yml")).unwrap();
    // Directory links at two depths: `routes/` and `windows/win-worker-0/`.
    std::fs::remove_dir_all(out.join("routes")).unwrap();
    symlink("../outside", out.join("routes")).unwrap();
    std::fs::write(outside.join("routes.json"), CREDENTIALS).unwrap();
    std::fs::remove_dir_all(out.join("windows/win-worker-0")).unwrap();
    symlink(
        outside.join("win/win-worker-0"),
        out.join("windows/win-worker-0"),
    )
    .unwrap();
    // A FIFO is not waited on, in a plain file's place or a secret file's.
    for fifo in [
        "kubeadm/kubeadm-config.yaml",
        "windows/win-worker-1/kubeadm-join.yaml",
    ] {
        std::fs::remove_file(out.join(fifo)).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            out.join(fifo),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_bits_truncate(0o644),
            0,
        )
        .unwrap();
    }
    let (checked, written) = check_then_render(&ws, &[]);
    assert_eq!(checked.code, Some(1), "{}", checked.stdout);
    // Nothing was waited on or read in bulk.
    assert!(
        checked.elapsed < Duration::from_secs(20),
        "{:?}",
        checked.elapsed
    );
    assert!(checked.peak_kb < 200 * 1024, "peak {} KiB", checked.peak_kb);
    for expected in [
        "differs: plan.json\nit is a symbolic link",
        "differs: kube-flannel.yml\nit is a symbolic link",
        "differs: routes/routes.json\n`routes` is a symbolic link",
        "differs: windows/win-worker-0/join.ps1\n`windows/win-worker-0` is a symbolic link",
        "differs: kubeadm/kubeadm-config.yaml\nit is a FIFO, not a regular file",
        "differs: windows/win-worker-1/kubeadm-join.yaml\nit is a FIFO, not a regular file",
    ] {
        assert!(
            checked.stdout.contains(expected),
            "{expected}:\n{}",
            checked.stdout
        );
    }
    // A render refuses to replace a directory link; nothing changed.
    assert_eq!(written.code, Some(2), "{}", written.stderr);
    assert!(
        written.stderr.contains("symbolic link"),
        "{}",
        written.stderr
    );
    assert!(
        written.stderr.contains("nothing was changed"),
        "{}",
        written.stderr
    );
}

#[test]
fn a_render_with_force_replaces_a_file_link_without_writing_through_it() {
    let ws = workspace("force-link");
    let out = rendered(&ws);
    std::fs::remove_file(out.join("plan.json")).unwrap();
    symlink("../outside/victim.txt", out.join("plan.json")).unwrap();
    let refused = render(&out, &[]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(
        refused.stderr.contains("symbolic link"),
        "{}",
        refused.stderr
    );
    let (_, forced) = check_then_render(&ws, &["--force"]);
    assert_eq!(forced.code, Some(0), "{}", forced.stderr);
    assert!(
        std::fs::symlink_metadata(out.join("plan.json"))
            .unwrap()
            .is_file()
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("outside/victim.txt")).unwrap(),
        "keep me\n"
    );
}

#[test]
fn a_link_as_the_output_directory_or_on_its_way_is_refused() {
    let ws = workspace("out-link");
    let out = rendered(&ws);
    symlink("deploy", ws.join("alias")).unwrap();
    let before = outside_deploy(&ws);
    for flag in [&[][..], &["--check"][..]] {
        let run = render(&ws.join("alias"), flag);
        assert_eq!(run.code, Some(2), "{flag:?}: {}", run.stderr);
        assert!(run.stderr.contains("symlink"), "{}", run.stderr);
    }
    assert_eq!(outside_deploy(&ws), before);
    assert!(out.join("plan.json").is_file());
}

// Finding 8: captures.

#[test]
fn a_link_in_a_capture_directory_is_refused_and_no_file_outside_is_quoted() {
    let ws = workspace("captures");
    for (link, target) in [
        ("extra.yaml", ws.join("outside/credentials")),
        ("env.json", PathBuf::from("/proc/self/environ")),
        ("nodes-more.json", PathBuf::from("../outside/credentials")),
    ] {
        let capture = ws.join(format!("capture-{link}"));
        std::fs::create_dir_all(&capture).unwrap();
        for entry in std::fs::read_dir(root().join(HEALTHY)).unwrap().flatten() {
            std::fs::copy(entry.path(), capture.join(entry.file_name())).unwrap();
        }
        symlink(&target, capture.join(link)).unwrap();
        for command in ["verify", "render"] {
            let out = ws.join("deploy");
            let mut args = vec![command, EXAMPLE, "--cluster", capture.to_str().unwrap()];
            if command == "render" {
                args.extend(["--out", out.to_str().unwrap()]);
            }
            let run = hybridgen(&args);
            assert_eq!(run.code, Some(2), "{command} {link}: {}", run.stderr);
            assert!(
                run.stderr.contains(link) && run.stderr.contains("symbolic link"),
                "{command} {link}: {}",
                run.stderr
            );
        }
    }
}

#[test]
fn a_capture_file_that_is_no_kubectl_output_is_never_quoted() {
    let ws = workspace("capture-quote");
    let capture = ws.join("capture");
    std::fs::create_dir_all(&capture).unwrap();
    for entry in std::fs::read_dir(root().join(HEALTHY)).unwrap().flatten() {
        std::fs::copy(entry.path(), capture.join(entry.file_name())).unwrap();
    }
    // Copied in, not linked: a regular file that holds credentials, and an environment dump.
    std::fs::write(capture.join("credentials.yaml"), CREDENTIALS).unwrap();
    let environ: String = SECRETS
        .iter()
        .map(|(name, value)| format!("{name}={value}\0"))
        .collect();
    std::fs::write(capture.join("environ.json"), environ).unwrap();
    for format in ["human", "github", "json", "sarif"] {
        let run = hybridgen(&[
            "verify",
            EXAMPLE,
            "--cluster",
            capture.to_str().unwrap(),
            "--format",
            format,
        ]);
        assert_eq!(run.code, Some(1), "{format}: {}", run.stderr);
        assert!(
            run.stdout.contains("credentials.yaml"),
            "{format}: {}",
            run.stdout
        );
        assert!(
            !run.stdout.contains("aws_access_key_id"),
            "{format}: {}",
            run.stdout
        );
    }
}

// Finding 10: modes.

#[test]
fn a_file_whose_mode_changed_is_stale_and_rewritten() {
    let ws = workspace("modes");
    let out = rendered(&ws);
    let manifest = std::fs::read_to_string(out.join(".hybridgen-manifest")).unwrap();
    let with_mode = |mode: &str| {
        manifest
            .lines()
            .find_map(|line| {
                line.split_once(&format!(" {mode} "))
                    .map(|(_, path)| path.to_string())
            })
            .unwrap()
    };
    // No rendered file is private: none holds a secret.
    assert!(!manifest.contains(" 0600 "), "{manifest}");
    let (script, plain) = (with_mode("0755"), with_mode("0644"));
    for (path, mode) in [(&script, 0o644), (&plain, 0o755)] {
        std::fs::set_permissions(out.join(path), PermissionsExt::from_mode(mode)).unwrap();
    }
    let (checked, written) = check_then_render(&ws, &[]);
    assert_eq!(checked.code, Some(1), "{}", checked.stdout);
    for (path, said) in [
        (&script, "mode 0644 on disk, rendered 0755"),
        (&plain, "mode 0755 on disk, rendered 0644"),
    ] {
        assert!(
            checked.stdout.contains(&format!("differs: {path}\n{said}")),
            "{path}:\n{}",
            checked.stdout
        );
        assert!(
            written
                .stdout
                .contains(&format!("wrote {}", out.join(path).display()))
        );
    }
    let mode = |path: &str| std::fs::metadata(out.join(path)).unwrap().mode() & 0o777;
    assert_eq!(mode(&script) & 0o100, 0o100);
    assert_eq!(mode(&plain) & 0o111, 0);
    assert_eq!(render(&out, &["--check"]).code, Some(0));
}

// Finding 11: the manifest.

#[test]
fn a_tampered_manifest_never_deletes_a_users_file() {
    let ws = workspace("manifest");
    let out = rendered(&ws);
    std::fs::write(out.join("NOTES.md"), "a user's notes\n").unwrap();
    std::fs::create_dir_all(out.join("keep")).unwrap();
    std::fs::write(out.join("keep/data.txt"), "a user's data\n").unwrap();
    std::fs::write(out.join("mine.txt"), "mine\n").unwrap();
    let manifest = std::fs::read_to_string(out.join(".hybridgen-manifest")).unwrap();
    // As an older hybridgen listed paths, with a made-up hash, with the hash of other bytes.
    let planted = format!(
        "{manifest}NOTES.md\n{} 0644 keep/data.txt\n{} 0644 mine.txt\n",
        "0".repeat(64),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    std::fs::write(out.join(".hybridgen-manifest"), planted).unwrap();
    let (checked, written) = check_then_render(&ws, &[]);
    assert_eq!(checked.code, Some(1), "{}", checked.stdout);
    assert_eq!(written.code, Some(0), "{}", written.stderr);
    for path in ["NOTES.md", "keep/data.txt", "mine.txt"] {
        assert!(out.join(path).is_file(), "{path} was removed");
        assert!(
            checked.stdout.contains(&format!(
                "not as hybridgen wrote it (render leaves it; remove it yourself): {path}"
            )),
            "{}",
            checked.stdout
        );
        assert!(
            written
                .stdout
                .contains(&format!("kept {}", out.join(path).display())),
            "{}",
            written.stdout
        );
        assert!(!written.stdout.contains("removed"), "{}", written.stdout);
    }
}

// Staging directories beside `--out`.

#[test]
fn a_committed_look_alike_staging_directory_is_left_alone() {
    let ws = workspace("staging");
    let out = rendered(&ws);
    let fake = ws.join(".deploy.hybridgen-4242");
    std::fs::create_dir_all(fake.join("sub")).unwrap();
    std::fs::write(fake.join("sub/file"), "a pull request's\n").unwrap();
    symlink("outside", ws.join(".deploy.hybridgen-4343")).unwrap();
    std::fs::write(ws.join(".deploy.hybridgen-4444"), "a file\n").unwrap();
    std::fs::remove_file(out.join("plan.json")).unwrap();
    let (_, written) = check_then_render(&ws, &[]);
    assert_eq!(written.code, Some(0), "{}", written.stderr);
    assert!(out.join("plan.json").is_file());
}

#[test]
fn the_output_directorys_own_mode_and_the_users_files_are_kept() {
    let ws = workspace("carry");
    let out = rendered(&ws);
    std::fs::set_permissions(&out, PermissionsExt::from_mode(0o750)).unwrap();
    std::fs::create_dir_all(out.join(".git/objects")).unwrap();
    std::fs::write(out.join(".git/objects/x"), "object\n").unwrap();
    std::fs::write(out.join("windows/README.md"), "notes\n").unwrap();
    std::fs::remove_file(out.join("plan.json")).unwrap();
    let user_files = |tree: BTreeMap<String, String>| -> BTreeMap<String, String> {
        tree.into_iter()
            .filter(|(path, _)| path.starts_with(".git") || path == "windows/README.md")
            .collect()
    };
    let before = user_files(tree(&out));
    let (_, written) = check_then_render(&ws, &[]);
    assert_eq!(written.code, Some(0), "{}", written.stderr);
    assert_eq!(user_files(tree(&out)), before);
    assert_eq!(std::fs::metadata(&out).unwrap().mode() & 0o7777, 0o750);
}

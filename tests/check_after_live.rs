//! `render --check` after a render from the cluster: the manifest remembers the subnets read
//! from it, so a check without cluster access (CI, the pre-commit hook) renders from them and
//! passes; a plain `render` keeps them; a spec that needs the cluster read again (a node added)
//! is told to use `--kubectl` or `--cluster`, never a plain render; and the remembered lines,
//! which a pull request can commit, are validated.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "support/host_gw_aws.rs"]
mod host_gw_aws;
use host_gw_aws::{LIVE, NODES, spec_text};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("check-after-live")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn nodes_capture() -> String {
    let items: Vec<Value> = LIVE
        .iter()
        .map(|(name, subnet)| {
            let (_, os, address) = NODES.iter().find(|(n, _, _)| n == name).unwrap();
            json!({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/os": os}},
                "spec": {"podCIDR": subnet, "podCIDRs": [subnet]},
                "status": {"addresses": [{"type": "InternalIP", "address": address}]},
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
        .unwrap()
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

/// `hybridgen render SPEC --out OUT ARGS…`, run in `dir` with no variable but `PATH`.
fn render(dir: &Path, args: &[&str]) -> Run {
    let output: Output = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .args(["render", "spec.yaml", "--out", "deploy"])
        .args(args)
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A directory with the spec and a capture, rendered from the capture.
fn rendered_from_cluster(name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("spec.yaml"), spec_text(&NODES)).unwrap();
    std::fs::create_dir_all(dir.join("capture")).unwrap();
    std::fs::write(dir.join("capture/nodes.json"), nodes_capture()).unwrap();
    let run = render(&dir, &["--cluster", "capture"]);
    assert_eq!(run.code, Some(0), "{}", run.all());
    assert!(
        run.stderr.contains("3 of 3 planned nodes were read"),
        "{}",
        run.all()
    );
    dir
}

/// Each file under `dir`, with its bytes.
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

fn live_route_of_linux_worker(dir: &Path) -> bool {
    let script = std::fs::read_to_string(dir.join("deploy/routes/aws.sh")).unwrap();
    script.contains("linux-worker-0: routing 10.244.2.0/24")
}

#[test]
fn a_render_from_the_cluster_remembers_what_it_read() {
    let dir = rendered_from_cluster("remembers");
    let manifest = std::fs::read_to_string(dir.join("deploy/.hybridgen-manifest")).unwrap();
    let live: Vec<&str> = manifest
        .lines()
        .filter(|line| line.starts_with(".live"))
        .collect();
    assert_eq!(
        live,
        [
            ".live-source capture capture",
            ".live-node control-0 10.244.0.0/24",
            ".live-node linux-worker-0 10.244.2.0/24",
            ".live-node win-0 10.244.1.0/24",
        ]
    );
}

#[test]
fn check_without_the_cluster_passes_after_a_render_from_it() {
    let dir = rendered_from_cluster("check-passes");
    let before = tree(&dir.join("deploy"));
    let run = render(&dir, &["--check"]);
    assert_eq!(run.code, Some(0), "{}", run.all());
    assert!(run.stdout.contains("are up to date"), "{}", run.all());
    assert!(
        run.stderr
            .contains("are the ones an earlier render read from the capture `capture`"),
        "{}",
        run.all()
    );
    assert_eq!(tree(&dir.join("deploy")), before, "--check wrote something");
}

#[test]
fn a_plain_render_keeps_the_subnets_read_from_the_cluster() {
    let dir = rendered_from_cluster("plain-keeps");
    let run = render(&dir, &[]);
    assert_eq!(run.code, Some(0), "{}", run.all());
    assert!(run.stdout.contains("0 written"), "{}", run.all());
    assert!(live_route_of_linux_worker(&dir));
    // Twice: the record is written again with the files.
    let run = render(&dir, &["--check"]);
    assert_eq!(run.code, Some(0), "{}", run.all());
}

#[test]
fn a_node_added_since_asks_for_the_cluster_never_a_plain_render() {
    let dir = rendered_from_cluster("node-added");
    let mut nodes = NODES.to_vec();
    nodes.push(("win-1", "windows", "192.168.10.31"));
    std::fs::write(dir.join("spec.yaml"), spec_text(&nodes)).unwrap();
    let before = tree(&dir.join("deploy"));

    let check = render(&dir, &["--check"]);
    assert_eq!(check.code, Some(1), "{}", check.all());
    assert!(
        check
            .stdout
            .contains("node `win-1` was not in the spec then"),
        "{}",
        check.all()
    );
    assert!(
        check
            .stdout
            .contains("`hybridgen render spec.yaml --out deploy --kubectl`, or `--cluster FILE`"),
        "{}",
        check.all()
    );
    assert!(
        !check.all().contains("to update them"),
        "a plain render is advised: {}",
        check.all()
    );

    let plain = render(&dir, &[]);
    assert_eq!(plain.code, Some(1), "{}", plain.all());
    assert!(plain.stderr.contains("--kubectl"), "{}", plain.all());
    assert!(
        plain.stderr.contains("nothing was rendered"),
        "{}",
        plain.all()
    );
    assert_eq!(
        tree(&dir.join("deploy")),
        before,
        "the live routes were replaced"
    );

    // Reading the cluster again (win-1 has not joined) takes the new node in.
    let fresh = render(&dir, &["--cluster", "capture"]);
    assert_eq!(fresh.code, Some(0), "{}", fresh.all());
    assert!(live_route_of_linux_worker(&dir));
    let manifest = std::fs::read_to_string(dir.join("deploy/.hybridgen-manifest")).unwrap();
    assert!(manifest.contains(".live-node win-1 -\n"), "{manifest}");
    assert_eq!(render(&dir, &["--check"]).code, Some(0));
}

#[test]
fn a_stale_check_after_a_render_from_the_cluster_says_the_render_keeps_them() {
    let dir = rendered_from_cluster("stale");
    std::fs::remove_file(dir.join("deploy/routes/aws.sh")).unwrap();
    let check = render(&dir, &["--check"]);
    assert_eq!(check.code, Some(1), "{}", check.all());
    assert!(
        check.stdout.contains("missing: routes/aws.sh"),
        "{}",
        check.all()
    );
    assert!(
        check.stdout.contains(
            "it keeps the pod subnets read from the capture `capture` by an earlier render"
        ),
        "{}",
        check.all()
    );
    assert_eq!(render(&dir, &[]).code, Some(0));
    assert!(live_route_of_linux_worker(&dir));
}

#[test]
fn remembered_lines_a_pull_request_could_commit_are_validated() {
    for (line, what) in [
        (".live-node win-0 10.244.1.0/33", "not an IPv4 network"),
        (".live-node win-0 10.244.1.7/24", "not an IPv4 network"),
        (
            ".live-node $(reboot) 10.244.1.0/24",
            "not a Kubernetes node name",
        ),
        (
            ".live-node \u{1b}]0;owned\u{7} 10.244.1.0/24",
            "not a Kubernetes node name",
        ),
        (".live-node win-0 10.244.1.0/24", "listed twice"),
        (
            ".live-node win-9 10.244.2.0/24",
            "another node has this subnet",
        ),
    ] {
        let dir = rendered_from_cluster("hostile");
        let path = dir.join("deploy/.hybridgen-manifest");
        let mut manifest = std::fs::read_to_string(&path).unwrap();
        manifest.push_str(line);
        manifest.push('\n');
        std::fs::write(&path, manifest).unwrap();
        for args in [&["--check"][..], &[]] {
            let run = render(&dir, args);
            assert_eq!(run.code, Some(2), "{line}: {}", run.all());
            assert!(run.stderr.contains(what), "{line}: {}", run.all());
            assert!(
                run.stderr.contains(".hybridgen-manifest` line"),
                "{}",
                run.all()
            );
            assert!(run.stderr.contains("--kubectl"), "{}", run.all());
            assert!(!run.all().contains('\u{1b}'), "{}", run.all());
            assert!(!run.all().contains('\u{7}'), "{}", run.all());
        }
        assert!(live_route_of_linux_worker(&dir));
    }
}

#[test]
fn remembered_subnets_that_no_longer_fit_the_spec_ask_for_the_cluster() {
    let dir = rendered_from_cluster("refit");
    let spec = std::fs::read_to_string(dir.join("spec.yaml")).unwrap();
    std::fs::write(
        dir.join("spec.yaml"),
        spec.replace("clusterCidr: 10.244.0.0/16", "clusterCidr: 10.245.0.0/16"),
    )
    .unwrap();
    let check = render(&dir, &["--check"]);
    assert_eq!(check.code, Some(1), "{}", check.all());
    assert!(
        check.stdout.contains("no longer cover the spec"),
        "{}",
        check.all()
    );
    assert!(check.stdout.contains("--kubectl"), "{}", check.all());
}

/// `render --kubectl` through the test kubectl of `tests/fixtures/hardening` (a script that prints
/// the capture files of `FAKE_KUBECTL_DIR`), run in `dir` with no other variable but `PATH`.
fn render_with_kubectl(dir: &Path, mode: &str) -> Run {
    let kubectl =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hardening/fake-kubectl");
    let output = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("FAKE_KUBECTL_DIR", dir.join("kubectl-capture"))
        .env("FAKE_KUBECTL_MODE", mode)
        .args(["render", "spec.yaml", "--out", "deploy"])
        .arg(format!("--kubectl={}", kubectl.display()))
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn a_render_with_kubectl_is_remembered_as_read_with_kubectl() {
    let dir = scratch("kubectl");
    std::fs::write(dir.join("spec.yaml"), spec_text(&NODES)).unwrap();
    let capture = dir.join("kubectl-capture");
    std::fs::create_dir_all(&capture).unwrap();
    std::fs::write(capture.join("nodes.json"), nodes_capture()).unwrap();
    for listed in ["daemonsets.json", "pods.json"] {
        std::fs::write(
            capture.join(listed),
            r#"{"apiVersion": "v1", "kind": "List", "items": []}"#,
        )
        .unwrap();
    }
    let run = render_with_kubectl(&dir, "");
    assert_eq!(run.code, Some(0), "{}", run.all());
    let manifest = std::fs::read_to_string(dir.join("deploy/.hybridgen-manifest")).unwrap();
    assert!(manifest.contains(".live-source kubectl\n"), "{manifest}");
    assert!(live_route_of_linux_worker(&dir));
    let check = render(&dir, &["--check"]);
    assert_eq!(check.code, Some(0), "{}", check.all());
    assert!(
        check.stderr.contains("read with kubectl"),
        "{}",
        check.all()
    );

    // A kubectl that fails after 50 MB of noise: its last line is quoted, and nothing changes.
    let before = tree(&dir.join("deploy"));
    let failed = render_with_kubectl(&dir, "stderr");
    assert_eq!(failed.code, Some(2), "{}", failed.all());
    assert!(
        failed
            .stderr
            .contains("::error file=x::injected (after 2 earlier lines)"),
        "{}",
        failed.all()
    );
    assert_eq!(tree(&dir.join("deploy")), before);
}

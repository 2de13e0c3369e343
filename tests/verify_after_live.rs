//! `verify --out DIR` after `render --out DIR --cluster` (or `--kubectl`): the manifest remembers
//! the pod subnets the routes in DIR were rendered from, so HG503 compares the cluster's with those
//! instead of the predictions, and warns only when the cluster changed since, naming the render
//! that reads it again. Without `--out` HG503's help says how to name that directory. The
//! manifest, which a pull request can commit, is read only through the renderer's reader.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/host_gw_aws.rs"]
mod host_gw_aws;
use host_gw_aws::{LIVE, NODES};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("verify-after-live")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The shared host-gw spec on AWS with `NODES`.
fn spec_text() -> String {
    host_gw_aws::spec_text(&NODES)
}

/// A capture in `dir/NAME`: the nodes of `live`, a pod, and the healthy fixture's DaemonSets.
fn capture(dir: &Path, name: &str, live: &[(&str, &str)]) {
    let capture = dir.join(name);
    std::fs::create_dir_all(&capture).unwrap();
    let items: Vec<Value> = live
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
    let list = |items: Vec<Value>| {
        serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
            .unwrap()
    };
    std::fs::write(capture.join("nodes.json"), list(items)).unwrap();
    let pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "coredns-0", "namespace": "kube-system"},
        "spec": {"nodeName": "control-0"},
        "status": {"podIP": "10.244.0.5"},
    });
    std::fs::write(capture.join("pods.json"), list(vec![pod])).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/verify/healthy/daemonsets.json"),
        capture.join("daemonsets.json"),
    )
    .unwrap();
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

    /// The HG503 findings of a `--format json` run.
    fn hg503(&self) -> Vec<Value> {
        self.findings("HG503")
    }

    fn findings(&self, code: &str) -> Vec<Value> {
        let report: Value =
            serde_json::from_str(&self.stdout).unwrap_or_else(|_| panic!("{}", self.all()));
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == code)
            .cloned()
            .collect()
    }
}

/// `hybridgen ARGS…` in `dir`, with no variable but `PATH`.
fn hybridgen(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .args(args)
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A directory with the spec and a capture of `LIVE`, rendered into `deploy` from the capture.
fn rendered_from_cluster(name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("spec.yaml"), spec_text()).unwrap();
    capture(&dir, "capture", &LIVE);
    let run = hybridgen(
        &dir,
        &[
            "render",
            "spec.yaml",
            "--out",
            "deploy",
            "--cluster",
            "capture",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.all());
    dir
}

#[test]
fn without_out_the_help_says_how_to_name_the_rendered_directory() {
    let dir = rendered_from_cluster("without-out");
    let run = hybridgen(
        &dir,
        &[
            "verify",
            "spec.yaml",
            "--cluster",
            "capture",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.findings("HG117").len(), 1, "{}", run.all());
    let warnings = run.hg503();
    assert_eq!(warnings.len(), 2, "{}", run.all());
    for warning in warnings {
        assert_eq!(warning["severity"], "warning");
        let help = warning["help"].as_str().unwrap();
        assert!(help.contains("--kubectl"), "{help}");
        assert!(help.contains("`--out DIR`"), "{help}");
    }
}

#[test]
fn the_subnets_the_routes_were_rendered_from_are_not_reported_again() {
    let dir = rendered_from_cluster("agree");
    let run = hybridgen(
        &dir,
        &[
            "verify",
            "spec.yaml",
            "--cluster",
            "capture",
            "--out",
            "deploy",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.hg503(), Vec::<Value>::new(), "{}", run.all());
    // Nor is the spec's warning that routes come from predictions: these came from the cluster.
    assert_eq!(run.findings("HG117"), Vec::<Value>::new(), "{}", run.all());
    assert_eq!(run.code, Some(0), "{}", run.all());

    // The human report says what was compared instead.
    let run = hybridgen(
        &dir,
        &[
            "verify",
            "spec.yaml",
            "--out",
            "deploy",
            "--cluster",
            "capture",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.all());
    assert!(
        run.stdout.contains(
            "the routes in `deploy` were rendered from pod subnets read from the capture `capture`: 3 of 3 joined nodes have them"
        ),
        "{}",
        run.all()
    );
}

#[test]
fn a_cluster_changed_since_the_render_asks_for_it_again() {
    let dir = rendered_from_cluster("changed");
    // win-0 was deleted and joined again: the controller gave it another subnet.
    capture(
        &dir,
        "later",
        &[
            ("control-0", "10.244.0.0/24"),
            ("win-0", "10.244.3.0/24"),
            ("linux-worker-0", "10.244.2.0/24"),
        ],
    );
    let run = hybridgen(
        &dir,
        &[
            "verify",
            "spec.yaml",
            "--cluster",
            "later",
            "--out",
            "deploy",
            "--format",
            "json",
        ],
    );
    let warnings = run.hg503();
    assert_eq!(warnings.len(), 1, "{}", run.all());
    let warning = &warnings[0];
    assert_eq!(warning["severity"], "warning");
    let message = warning["message"].as_str().unwrap();
    assert!(
        message.contains("node `win-0` has pod subnet `10.244.3.0/24`"),
        "{message}"
    );
    assert!(
        message.contains("its pod subnet was 10.244.1.0/24"),
        "{message}"
    );
    assert!(message.contains("the cluster changed since"), "{message}");
    assert_eq!(
        warning["help"],
        "render the routes from the cluster again with `hybridgen render SPEC --out deploy --kubectl` (or `--cluster` with a fresh capture), and apply them"
    );
}

#[test]
fn routes_rendered_without_the_cluster_are_compared_with_the_predictions() {
    let dir = scratch("predicted");
    std::fs::write(dir.join("spec.yaml"), spec_text()).unwrap();
    capture(&dir, "capture", &LIVE);
    let run = hybridgen(&dir, &["render", "spec.yaml", "--out", "deploy"]);
    assert_eq!(run.code, Some(0), "{}", run.all());
    let run = hybridgen(
        &dir,
        &[
            "verify",
            "spec.yaml",
            "--cluster",
            "capture",
            "--out",
            "deploy",
            "--format",
            "json",
        ],
    );
    let warnings = run.hg503();
    assert_eq!(warnings.len(), 2, "{}", run.all());
    for warning in warnings {
        let message = warning["message"].as_str().unwrap();
        assert!(
            message.contains("the routes in `deploy` were rendered without the cluster"),
            "{message}"
        );
        assert!(
            warning["help"]
                .as_str()
                .unwrap()
                .contains("`hybridgen render SPEC --out deploy --kubectl`"),
            "{warning}"
        );
    }
}

#[test]
fn a_hostile_or_missing_manifest_verifies_nothing_and_says_why() {
    let dir = rendered_from_cluster("hostile");
    let manifest = dir.join("deploy/.hybridgen-manifest");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace(
        ".live-node win-0 10.244.1.0/24",
        ".live-node win-0 10.244.1.7/24",
    );
    std::fs::write(&manifest, text).unwrap();
    let verify = |out: &str| {
        hybridgen(
            &dir,
            &["verify", "spec.yaml", "--cluster", "capture", "--out", out],
        )
    };
    let run = verify("deploy");
    assert_eq!(run.code, Some(2), "{}", run.all());
    assert!(
        run.stderr.contains("`deploy/.hybridgen-manifest` line"),
        "{}",
        run.all()
    );
    assert!(run.stderr.contains("--kubectl"), "{}", run.all());
    assert!(run.stderr.contains("nothing was verified"), "{}", run.all());
    assert!(!run.stdout.contains("HG503"), "{}", run.all());

    // A link in place of the manifest is not followed.
    std::fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink(dir.join("spec.yaml"), &manifest).unwrap();
    let run = verify("deploy");
    assert_eq!(run.code, Some(2), "{}", run.all());
    assert!(run.stderr.contains("nothing was verified"), "{}", run.all());

    let run = verify("capture");
    assert_eq!(run.code, Some(2), "{}", run.all());
    assert!(
        run.stderr
            .contains("`capture` holds no `.hybridgen-manifest`"),
        "{}",
        run.all()
    );
}

//! `verify` on real kubectl output that people pasted in public (CI keeps it beside the clone, in
//! the shared data folder): every Kubernetes object in it is read without a false HG509, and what
//! is not one gets its HG509; the coverage header says exactly what was compared; warnings of the
//! spec are reported and never stop the comparison; HG506 and HG510 give the Linux fixes.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DEARXUANY: &str = "tests/fixtures/public-captures/dearxuany.yaml";
const HWCHIU: &str = "tests/fixtures/public-captures/hwchiu.yaml";
const HEALTHY: &str = "tests/fixtures/verify/healthy";
const MAIN_EXAMPLE: &str = "examples/kubeadm-1.36-vxlan-windows.yaml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The public captures: beside the clone, as CI lays it out. The tests that read them are listed
/// as ignored, so that `cargo test` passes on a clone without them; `.ci/run` runs them with
/// `-- --ignored`, and without the captures they fail.
fn captures() -> PathBuf {
    let dir = root()
        .join("..")
        .join("shared")
        .join("data")
        .join("captures");
    assert!(
        dir.is_dir(),
        "{} is missing: the public captures sit beside the clone",
        dir.display()
    );
    dir
}

fn capture(name: &str) -> String {
    let path = captures().join(name);
    let path = if path.join("cluster").is_dir() {
        path.join("cluster")
    } else {
        path
    };
    path.to_string_lossy().into_owned()
}

/// A fresh directory of its own for a test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn hybridgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `verify SPEC --cluster PATH --format json`: the exit code and the findings.
fn verify_json(spec: &str, path: &str, extra: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let mut args = vec!["verify", spec, "--cluster", path, "--format", "json"];
    args.extend(extra);
    let output = hybridgen(&args);
    let json: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}\n{}", text(&output.stdout), text(&output.stderr)));
    let diagnostics = json["diagnostics"].as_array().unwrap().clone();
    (output.status.code(), diagnostics, text(&output.stderr))
}

/// The human report's coverage header (everything before the first blank line).
fn coverage(spec: &str, paths: &[&str]) -> String {
    let mut args = vec!["verify", spec, "--color", "never"];
    for path in paths {
        args.extend(["--cluster", path]);
    }
    let report = text(&hybridgen(&args).stdout);
    report.split("\n\n").next().unwrap().to_string()
}

/// Every file under a path, in order.
fn files(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(path)
        .unwrap()
        .flat_map(|entry| files(&entry.unwrap().path()))
        .collect();
    found.sort();
    found
}

/// Whether a file holds a Kubernetes object: `apiVersion` and `kind` at its top.
fn holds_an_object(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap();
    serde_yaml::from_str::<serde_yaml::Value>(&text)
        .is_ok_and(|value| value.get("apiVersion").is_some() && value.get("kind").is_some())
}

#[test]
#[ignore = "needs the public captures beside the clone (shared/data/captures); .ci/run runs it"]
fn every_public_capture_is_read_without_a_false_hg509() {
    let entries: Vec<PathBuf> = std::fs::read_dir(captures())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert!(entries.len() >= 5, "{entries:?}");
    let mut read = 0;
    for entry in entries {
        let path = entry.to_string_lossy().into_owned();
        let (_, diagnostics, stderr) = verify_json(DEARXUANY, &path, &[]);
        assert!(!stderr.contains("nothing was verified"), "{path}: {stderr}");
        for file in files(&entry) {
            let name = file.to_string_lossy().into_owned();
            let hg509: Vec<&str> = diagnostics
                .iter()
                .filter(|d| d["file"] == name.as_str() && d["code"] == "HG509")
                .map(|d| d["severity"].as_str().unwrap())
                .collect();
            if holds_an_object(&file) {
                // A kind verify does not compare is a warning, never an error.
                assert!(!hg509.contains(&"error"), "{name}: {diagnostics:#?}");
                read += 1;
            } else {
                // A table or a jq fragment is not a capture: one error says so.
                assert_eq!(hg509, ["error"], "{name}: {diagnostics:#?}");
            }
        }
    }
    assert!(read >= 5, "only {read} captures hold objects");
}

#[test]
#[ignore = "needs the public captures beside the clone (shared/data/captures); .ci/run runs it"]
fn the_coverage_header_says_exactly_what_was_compared() {
    // Single Node objects, no ConfigMap, no DaemonSet, no pod.
    let alone = coverage(HWCHIU, &[&capture("hwchiu-vagrant-nat-public-ip")]);
    assert!(
        alone.contains("compared: 1 of 3 planned nodes found among 1 captured Node object\n"),
        "{alone}"
    );
    assert!(
        alone.contains("not compared: no Pod was captured: pod addresses are not compared"),
        "{alone}"
    );
    // A `kubectl get nodes` table: no Node at all, so no node count beside it.
    let table = coverage(DEARXUANY, &[&capture("dearxuany-get-node-table")]);
    assert!(table.contains("  compared: nothing\n"), "{table}");
    assert!(
        table.contains("not compared: no Node was captured"),
        "{table}"
    );
    assert!(!table.contains("found among"), "{table}");
    // flannel's ConfigMap captured without `net-conf.json`: not compared, and said why.
    let dir = scratch("public-captures-net-conf");
    for file in files(&root().join(HEALTHY)) {
        std::fs::copy(&file, dir.join(file.file_name().unwrap())).unwrap();
    }
    let config_map: Value =
        serde_json::from_slice(&std::fs::read(dir.join("kube-flannel-cfg.json")).unwrap()).unwrap();
    let mut without = config_map.clone();
    without["data"]
        .as_object_mut()
        .unwrap()
        .remove("net-conf.json");
    std::fs::write(dir.join("kube-flannel-cfg.json"), without.to_string()).unwrap();
    let header = coverage(MAIN_EXAMPLE, &[dir.to_str().unwrap()]);
    let compared = header
        .lines()
        .find(|line| line.starts_with("  compared:"))
        .unwrap();
    assert!(!compared.contains("net-conf.json"), "{header}");
    assert!(
        header.contains(
            "not compared: flannel's net-conf.json: the ConfigMap has no `net-conf.json`"
        ),
        "{header}"
    );
}

#[test]
#[ignore = "needs the public captures beside the clone (shared/data/captures); .ci/run runs it"]
fn one_planned_node_without_a_node_capture_is_said_in_the_singular() {
    let spec = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("public-captures-one-node.yaml");
    let whole = std::fs::read_to_string(root().join(DEARXUANY)).unwrap();
    let one = &whole[..whole.find("  - name: vm-centos7-64-k8s-worker-01").unwrap()];
    std::fs::write(
        &spec,
        one.replace("[controlplane, etcd]", "[controlplane, etcd, worker]"),
    )
    .unwrap();
    let (_, diagnostics, _) = verify_json(
        spec.to_str().unwrap(),
        &capture("dearxuany-get-node-table"),
        &[],
    );
    let messages: Vec<&str> = diagnostics
        .iter()
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert!(
        messages.contains(&"no capture holds a Node, so the planned node cannot be compared"),
        "{messages:#?}"
    );
}

#[test]
#[ignore = "needs the public captures beside the clone (shared/data/captures); .ci/run runs it"]
fn an_object_of_a_kind_verify_does_not_read_is_marked_at_its_kind() {
    let path = capture("dearxuany-kubeadm-flannel-vm-plan");
    let (_, diagnostics, _) = verify_json(DEARXUANY, &path, &[]);
    let deployment = diagnostics
        .iter()
        .find(|d| {
            d["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("deployment-coredns.yaml"))
        })
        .unwrap();
    assert_eq!(deployment["severity"], "warning");
    assert_eq!(
        (&deployment["line"], &deployment["endLine"]),
        (&2.into(), &2.into())
    );
}

#[test]
fn a_truncated_json_capture_is_located_on_its_last_line() {
    let nodes = std::fs::read_to_string(root().join(HEALTHY).join("nodes.json")).unwrap();
    let pretty =
        serde_json::to_string_pretty(&serde_json::from_str::<Value>(&nodes).unwrap()).unwrap();
    let kept: Vec<&str> = pretty.lines().take(23).collect();
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("public-captures-truncated.json");
    std::fs::write(&path, format!("{}\n", kept.join("\n"))).unwrap();
    let (_, diagnostics, _) = verify_json(MAIN_EXAMPLE, path.to_str().unwrap(), &[]);
    let truncated = diagnostics
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .is_some_and(|m| m.contains("ends too early"))
        })
        .unwrap();
    assert_eq!(truncated["line"], 23, "{truncated:#}");
    assert!(
        !truncated["message"].as_str().unwrap().contains("line 24"),
        "{truncated:#}"
    );
}

#[test]
#[ignore = "needs the public captures beside the clone (shared/data/captures); .ci/run runs it"]
fn spec_warnings_are_reported_and_never_stop_the_comparison() {
    let path = capture("hwchiu-vagrant-nat-public-ip");
    let codes = |diagnostics: &[Value]| -> Vec<(String, String)> {
        diagnostics
            .iter()
            .map(|d| {
                (
                    d["code"].as_str().unwrap().to_string(),
                    d["severity"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let pair = |code: &str, severity: &str| (code.to_string(), severity.to_string());
    // The spec's host network overlaps Docker's bridge: a warning (HG114), as `plan` reports it.
    let (status, diagnostics, _) = verify_json(HWCHIU, &path, &[]);
    assert_eq!(status, Some(1));
    let found = codes(&diagnostics);
    assert!(found.contains(&pair("HG114", "warning")), "{found:?}");
    assert!(found.contains(&pair("HG510", "error")), "{found:?}");
    // `--deny-warnings` makes it an error, and the cluster is still compared.
    let (status, diagnostics, stderr) = verify_json(HWCHIU, &path, &["--deny-warnings"]);
    assert_eq!(status, Some(1));
    assert!(!stderr.contains("nothing was verified"), "{stderr}");
    let found = codes(&diagnostics);
    assert!(found.contains(&pair("HG114", "error")), "{found:?}");
    assert!(found.contains(&pair("HG510", "error")), "{found:?}");
    assert!(found.contains(&pair("HG506", "error")), "{found:?}");
}

#[test]
#[ignore = "needs the public captures beside the clone (shared/data/captures); .ci/run runs it"]
fn a_node_of_flannel_before_the_vni_was_recorded_is_compared_through_net_conf() {
    let path = capture("hwchiu-vagrant-nat-public-ip");
    let (_, diagnostics, _) = verify_json(HWCHIU, &path, &[]);
    let no_vni = diagnostics.iter().find(|d| d["code"] == "HG506").unwrap();
    assert_eq!(no_vni["severity"], "warning");
    let message = no_vni["message"].as_str().unwrap();
    assert!(
        message.contains("flanneld before v0.14.0 records none"),
        "{message}"
    );
    let help = no_vni["help"].as_str().unwrap();
    assert!(
        help.contains("kubectl -n kube-system get configmap kube-flannel-cfg -o json"),
        "{help}"
    );
    assert!(!help.contains("upgrade"), "{help}");
    // With flannel's ConfigMap beside it, its VNI (1, as planned) is what the node runs.
    let dir = scratch("public-captures-old-flannel");
    std::fs::copy(
        Path::new(&path).join("node-k8s-dev.yaml"),
        dir.join("node-k8s-dev.yaml"),
    )
    .unwrap();
    let net_conf = r#"{"Network": "10.244.0.0/16", "Backend": {"Type": "vxlan"}}"#;
    let config_map = serde_json::json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kube-flannel-cfg", "namespace": "kube-system"},
        "data": {"net-conf.json": net_conf},
    });
    std::fs::write(dir.join("kube-flannel-cfg.json"), config_map.to_string()).unwrap();
    let (_, diagnostics, _) = verify_json(HWCHIU, dir.to_str().unwrap(), &[]);
    let codes: Vec<&str> = diagnostics
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(!codes.contains(&"HG506"), "{diagnostics:#?}");
    assert!(!codes.contains(&"HG505"), "{diagnostics:#?}");
}

#[test]
#[ignore = "needs the public captures beside the clone (shared/data/captures); .ci/run runs it"]
fn a_linux_node_on_the_wrong_interface_gets_the_linux_fix() {
    let path = capture("hwchiu-vagrant-nat-public-ip");
    let help_for = |spec: &str| -> String {
        let (_, diagnostics, _) = verify_json(spec, &path, &[]);
        let address = diagnostics.iter().find(|d| d["code"] == "HG510").unwrap();
        address["help"].as_str().unwrap().to_string()
    };
    // flannel v0.11.0 has no `--iface-can-reach`: a pattern on the planned addresses.
    let old = help_for(HWCHIU);
    assert!(old.contains(r"`--iface-regex=^172\.17\.8\.`"), "{old}");
    assert!(!old.contains("Windows"), "{old}");
    // From v0.18.0: reach another planned node.
    let spec = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("public-captures-new-flannel.yaml");
    let text = std::fs::read_to_string(root().join(HWCHIU)).unwrap();
    std::fs::write(&spec, text.replace("version: v0.11.0", "version: v0.19.0")).unwrap();
    let new = help_for(spec.to_str().unwrap());
    assert!(new.contains("`--iface-can-reach=172.17.8.102`"), "{new}");
    assert!(!new.contains("Windows"), "{new}");
}

#[test]
fn a_kubectl_that_fails_silently_is_named_with_its_exit_status() {
    let output = hybridgen(&["verify", MAIN_EXAMPLE, "--kubectl=/bin/false"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(
            "`kubectl get nodes -o json` failed (exit status 1) and printed nothing on standard error; nothing was verified"
        ),
        "{stderr}"
    );
}

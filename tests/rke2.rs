//! The RKE2 files read the way RKE2 and Rancher read them. RKE2 keeps a `config.yaml` key only
//! when it is a flag of the command reading the file and skips any other with a log line
//! (k3s-io/k3s `pkg/configfilearg/parser.go`), and Rancher keeps a `machineGlobalConfig` key only
//! when its version data lists it (rancher/rancher `pkg/capr/planner/filter.go`): here every key
//! of every rendered file must be one the reader keeps. The key lists are this test's own,
//! written from RKE2's and Rancher's sources, independent of the tables hybridgen checks specs
//! with.

use hybridgen::pipeline;
use hybridgen::render::{Artifact, Input, render_all};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Flags of both `rke2 server` and `rke2 agent` that the rendered files and the specs of this
/// repository use (rancher/rke2 `pkg/cli/cmds/server.go` and `agent.go`, `copyFlag` entries;
/// docs.rke2.io "Server Configuration Reference", "Agent Configuration Reference").
const AGENT_FLAGS: &[&str] = &[
    "kube-proxy-arg",
    "kubelet-arg",
    "node-external-ip",
    "node-ip",
    "node-label",
    "node-name",
    "node-taint",
    "protect-kernel-defaults",
    "server",
    "token",
    "token-file",
    "with-node-id",
];

/// Flags of `rke2 server` only, which an agent skips (rancher/rke2 `pkg/cli/cmds/server.go`:
/// `serverFlag` for `cni`, `copyFlag` entries of the server's k3s flag set for the rest).
const SERVER_ONLY_FLAGS: &[&str] = &[
    "advertise-address",
    "agent-token",
    "cluster-cidr",
    "cluster-dns",
    "cluster-domain",
    "cni",
    "disable-apiserver",
    "disable-controller-manager",
    "disable-etcd",
    "disable-kube-proxy",
    "disable-scheduler",
    "egress-selector-mode",
    "etcd-snapshot-retention",
    "kube-apiserver-arg",
    "kube-controller-manager-arg",
    "service-cidr",
    "service-node-port-range",
    "tls-san",
];

/// k3s flags RKE2 drops from both commands (`dropFlag` in rancher/rke2 `pkg/cli/cmds/server.go`
/// and `agent.go`): RKE2 configures flannel through its chart only (rancher/rke2#635).
const DROPPED_FLAGS: &[&str] = &[
    "flannel-backend",
    "flannel-conf",
    "flannel-iface",
    "https-listen-port",
    "supervisor-port",
];

/// The RKE2 arguments Rancher's version data lists (rancher/kontainer-driver-metadata
/// `channels-rke2.yaml`, `serverArgs` and `agentArgs`): the keys Rancher passes on from
/// `machineGlobalConfig` and `machineSelectorConfig`.
const RANCHER_KEPT: &[&str] = &[
    "cluster-cidr",
    "cluster-dns",
    "cluster-domain",
    "cni",
    "disable-kube-proxy",
    "etcd-expose-metrics",
    "kube-apiserver-arg",
    "kube-controller-manager-arg",
    "kube-proxy-arg",
    "kubelet-arg",
    "pause-image",
    "protect-kernel-defaults",
    "service-cidr",
    "service-node-port-range",
    "tls-san",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every spec of the repository that plans RKE2 without errors.
fn rke2_specs() -> Vec<PathBuf> {
    let mut specs: Vec<PathBuf> = ["examples", "tests/fixtures/render", "tests/fixtures/valid"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root().join(dir)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .filter(|path| {
            std::fs::read_to_string(path)
                .unwrap()
                .contains("distribution: rke2")
        })
        .collect();
    specs.sort();
    specs
}

fn rendered(spec: &Path) -> Vec<Artifact> {
    let checked = pipeline::check("spec.yaml", std::fs::read(spec).unwrap());
    let (spec_model, plan) = (
        checked.spec.as_ref().unwrap(),
        checked.plan.as_ref().unwrap(),
    );
    render_all(&Input {
        spec: spec_model,
        plan,
    })
    .unwrap()
}

fn yaml(text: &str) -> serde_yaml::Value {
    serde_yaml::Value::deserialize(serde_yaml::Deserializer::from_str(text)).unwrap()
}

fn keys(value: &serde_yaml::Value) -> Vec<String> {
    value
        .as_mapping()
        .map(|map| {
            map.keys()
                .map(|key| key.as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The keys of a `config.yaml` RKE2 would skip, and why.
fn skipped(text: &str) -> Vec<String> {
    let server = text.contains("# RKE2 server configuration");
    keys(&yaml(text))
        .into_iter()
        .filter_map(|key| {
            let known = AGENT_FLAGS.contains(&key.as_str())
                || (server && SERVER_ONLY_FLAGS.contains(&key.as_str()));
            if DROPPED_FLAGS.contains(&key.as_str()) {
                Some(format!("{key} (dropped by RKE2)"))
            } else if known {
                None
            } else if SERVER_ONLY_FLAGS.contains(&key.as_str()) {
                Some(format!("{key} (a server flag in an agent's file)"))
            } else {
                Some(format!("{key} (no RKE2 flag this test knows)"))
            }
        })
        .collect()
}

#[test]
fn the_key_check_rejects_what_rke2_would_skip() {
    let agent = "# RKE2 agent configuration of node a\ncni: flannel\nnode-ip: 10.0.0.1\n";
    assert_eq!(skipped(agent), ["cni (a server flag in an agent's file)"]);
    let server = "# RKE2 server configuration of node a\nflannel-iface: eth1\nnode-adress: x\n";
    assert_eq!(
        skipped(server),
        [
            "flannel-iface (dropped by RKE2)",
            "node-adress (no RKE2 flag this test knows)"
        ]
    );
}

#[test]
fn every_rendered_config_key_is_one_rke2_reads() {
    let specs = rke2_specs();
    assert!(specs.len() >= 10, "only {} RKE2 specs", specs.len());
    let mut files = 0;
    for spec in &specs {
        for artifact in rendered(spec) {
            if artifact.path.starts_with("rke2/") && artifact.path.ends_with("/config.yaml") {
                files += 1;
                assert_eq!(
                    skipped(&artifact.contents),
                    Vec::<String>::new(),
                    "{}: {}",
                    spec.display(),
                    artifact.path
                );
            }
        }
    }
    assert!(files >= 20, "only {files} config.yaml files");
}

#[test]
fn every_rancher_config_key_is_one_rancher_keeps() {
    let mut clusters = 0;
    for spec in rke2_specs() {
        for artifact in rendered(&spec) {
            if artifact.path != "rancher/cluster.yaml" {
                continue;
            }
            clusters += 1;
            let cluster = yaml(&artifact.contents);
            let rke = &cluster["spec"]["rkeConfig"];
            let mut configs = vec![rke["machineGlobalConfig"].clone()];
            if let Some(selectors) = rke["machineSelectorConfig"].as_sequence() {
                configs.extend(selectors.iter().map(|entry| entry["config"].clone()));
            }
            for config in configs {
                for key in keys(&config) {
                    assert!(
                        RANCHER_KEPT.contains(&key.as_str()),
                        "{}: Rancher drops `{key}`",
                        spec.display()
                    );
                }
            }
            assert_eq!(
                rke["machineGlobalConfig"]["cni"],
                "flannel",
                "{}",
                spec.display()
            );
        }
    }
    assert!(clusters >= 3, "only {clusters} Rancher clusters");
}

#[test]
fn both_sides_of_every_rendered_cluster_use_vni_4096_and_port_4789() {
    for spec in rke2_specs() {
        let text = std::fs::read_to_string(&spec).unwrap();
        if !text.contains("os: windows") {
            continue;
        }
        for artifact in rendered(&spec) {
            let values = match artifact.path.as_str() {
                "rke2/manifests/rke2-flannel-config.yaml" => yaml(
                    yaml(&artifact.contents)["spec"]["valuesContent"]
                        .as_str()
                        .unwrap(),
                ),
                "rancher/cluster.yaml" => {
                    yaml(&artifact.contents)["spec"]["rkeConfig"]["chartValues"]["rke2-flannel"]
                        .clone()
                }
                _ => continue,
            };
            let flannel = &values["flannel"];
            assert_eq!(flannel["vni"], 4096, "{}", spec.display());
            let port = flannel
                .get("backendPort")
                .or_else(|| flannel.get("vxlanBackendPort"));
            assert_eq!(
                port,
                Some(&serde_yaml::Value::from(4789)),
                "{}",
                spec.display()
            );
        }
    }
}

/// `plan.json` on RKE2 (standalone and Rancher) names no value RKE2 never uses: no flannel
/// `macPrefix` (its Windows net-conf has none), and no Windows `interfaceName` or `pauseImage`
/// (it binds flanneld by node address and runs its own pause image).
#[test]
fn plan_json_on_rke2_names_no_value_rke2_ignores() {
    let mut windows_nodes = 0;
    for spec in rke2_specs() {
        let plan = rendered(&spec)
            .into_iter()
            .find(|artifact| artifact.path == "plan.json")
            .unwrap();
        let plan: serde_json::Value = serde_json::from_str(&plan.contents).unwrap();
        assert_eq!(plan["flannel"].get("macPrefix"), None, "{}", spec.display());
        for node in plan["nodes"].as_array().unwrap() {
            let Some(windows) = node.get("windows") else {
                continue;
            };
            windows_nodes += 1;
            assert_eq!(
                keys_of(windows),
                ["build", "nanoserverImage", "servercoreImage"]
            );
        }
    }
    assert!(windows_nodes > 0, "no RKE2 spec with Windows nodes");
}

fn keys_of(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}

/// A kube-proxy advisory on RKE2 names the fix as an RKE2 release: RKE2 carries the kube-proxy of
/// its Kubernetes release, and its users pin RKE2 releases.
#[test]
fn a_kube_proxy_advisory_on_rke2_names_an_rke2_release() {
    let text = std::fs::read_to_string(root().join("examples/rke2-1.35-flannel-windows.yaml"))
        .unwrap()
        .replace("v1.35.7+rke2r1", "v1.31.5+rke2r1");
    let checked = pipeline::check("rke2.yaml", text.into_bytes());
    let helps: Vec<String> = checked
        .diagnostics
        .iter()
        .filter(|d| d.code() == "HG320")
        .filter_map(|d| d.help.clone())
        .collect();
    assert_eq!(
        helps,
        ["use an RKE2 release of Kubernetes 1.31.9 or later, whose Windows kube-proxy has the fix"]
    );
}

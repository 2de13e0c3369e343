//! The flannel artifacts: `kube-flannel.yml` as the spec's flannel release ships it, and the
//! node-selector patches (plus the script that applies them) that keep the Linux DaemonSets off the
//! Windows nodes.
//!
//! The manifest is the release's own `Documentation/kube-flannel.yml`, driven by its row of the
//! release table (`plan::flannel_release`), with only these differences (docs/internals.md lists them):
//! - `net-conf.json` carries the planned Network and Backend, and `cni-conf.json` the planned name;
//! - the flanneld image is the release's own where the tag's manifest lagged a release;
//! - what the target Kubernetes no longer serves is left out or written as it serves it: no
//!   PodSecurityPolicy from 1.25 (policy/v1beta1 removed), RBAC v1 from 1.22 (v1beta1 removed);
//! - the PodSecurityPolicy allows every host path the pod mounts (upstream's omits `/opt/cni/bin`
//!   and `/run/xtables.lock`, which a cluster enforcing PodSecurityPolicy then refuses).
//!
//! Every version decision is made here from the table; the templates only format the values.

use super::yaml::indented;
use super::{Artifact, Input, RenderError};
use crate::plan::WindowsSetup;
use crate::plan::flannel_release::{Feature, FlannelRelease, Layout, PER_ARCH, Rbac, Resolved};
use crate::plan::version::Release;
use crate::spec::Backend;
use minijinja::context;
use serde::Serialize;
use serde_json::json;

const MANIFEST_TEMPLATE: &str = "flannel/kube-flannel.yml.j2";
const NODE_SELECTOR_TEMPLATE: &str = "flannel/node-selector.yml.j2";
const APPLY_TEMPLATE: &str = "flannel/apply.sh.j2";

pub const MANIFEST_PATH: &str = "kube-flannel.yml";
pub const FLANNEL_PATCH_PATH: &str = "patches/kube-flannel-ds.node-selector.yml";
pub const KUBE_PROXY_PATCH_PATH: &str = "patches/kube-proxy.node-selector.yml";
pub const APPLY_PATH: &str = "patches/apply.sh";

/// The files `render` writes here.
pub const PATHS: [&str; 4] = [
    MANIFEST_PATH,
    FLANNEL_PATCH_PATH,
    KUBE_PROXY_PATCH_PATH,
    APPLY_PATH,
];

const FLANNEL_PATCH_FILE: &str = "kube-flannel-ds.node-selector.yml";
const KUBE_PROXY_PATCH_FILE: &str = "kube-proxy.node-selector.yml";

/// The Kubernetes release that removed `policy/v1beta1` PodSecurityPolicy.
const PSP_REMOVED: (u32, u32) = (1, 25);
/// The Kubernetes release that removed `rbac.authorization.k8s.io/v1beta1`.
const RBAC_V1BETA1_REMOVED: (u32, u32) = (1, 22);
/// The Kubernetes release whose kubelet labels nodes `kubernetes.io/os`.
const OS_LABEL_GA: (u32, u32) = (1, 14);

fn describe(layout: Layout) -> &'static str {
    match layout {
        Layout::PerArch => {
            "v0.11-era flavour (before v0.13.0): per-architecture DaemonSets in kube-system"
        }
        Layout::KubeSystem => "v0.13-v0.18 flavour: one DaemonSet kube-flannel-ds in kube-system",
        Layout::KubeFlannel => {
            "current flavour (v0.19.0 and later): one DaemonSet kube-flannel-ds in namespace kube-flannel"
        }
    }
}

/// The release a plan renders, or why it cannot.
pub(crate) fn planned_release<'a>(input: &'a Input) -> Result<&'a Resolved, RenderError> {
    input
        .plan
        .flannel
        .release
        .as_ref()
        .ok_or_else(|| RenderError("flannel: `flannel.version` is not a release".into()))
}

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    let release = planned_release(input)?;
    let row = release.row;
    let kubernetes = plan
        .kubernetes_version
        .clone()
        .map_err(|_| RenderError("flannel: `kubernetes.version` is not a release".into()))?;
    let cluster_cidr = plan
        .cluster_cidr
        .as_ref()
        .map_err(|_| RenderError("flannel: `network.clusterCidr` is not a CIDR".into()))?;
    let layout = row.layout;
    let vxlan = plan.flannel.backend == Backend::Vxlan;
    let net_conf = NetConf {
        network: cluster_cidr.to_string(),
        enable_nftables: row.has(Feature::EnableNfTables).then_some(false),
        backend: BackendConf {
            kind: plan.flannel.backend.as_str(),
            vni: vxlan.then_some(plan.flannel.vni),
            port: vxlan.then_some(plan.flannel.port),
            direct_routing: (vxlan && plan.flannel.direct_routing).then_some(true),
            name: plan.flannel.windows_backend.name.clone(),
            mac_prefix: plan
                .flannel
                .windows_backend
                .mac_prefix
                .clone()
                .filter(|_| vxlan),
        },
    };
    // The Linux CNI config keeps the manifest's own name, `cbr0`, except on the KubeCluster.ps1
    // setup, which follows the Windows guide of its time in naming it `vxlan0`, the network
    // KubeCluster.ps1 creates. The HostProcess path never reads it, and host-local keeps its IPAM store per network name, so renaming it on a running cluster would
    // give every Linux node an empty store (duplicate pod addresses until drained).
    let windows_reads_it = plan.windows_setup == Some(WindowsSetup::KubeCluster);
    let cni_name = if vxlan && windows_reads_it {
        "vxlan0"
    } else {
        "cbr0"
    };
    let cni_conf = CniConf {
        name: cni_name,
        cni_version: row.cni_version,
        plugins: (
            FlannelPlugin {
                kind: "flannel",
                delegate: json!({ "hairpinMode": true, "isDefaultGateway": true }),
            },
            PortmapPlugin {
                kind: "portmap",
                capabilities: json!({ "portMappings": true }),
            },
        ),
    };

    let manifest = manifest(
        release,
        &kubernetes,
        json_block(&cni_conf)?,
        json_block(&net_conf)?,
    );
    let manifest_text = super::template(MANIFEST_TEMPLATE)?.render(context! { m => manifest })?;
    let mut artifacts = vec![Artifact::new(MANIFEST_PATH, manifest_text)];
    artifacts.extend(patches(layout, &kubernetes)?);
    Ok(artifacts)
}

/// What the template formats, decided from the release's row and the target Kubernetes.
fn manifest(
    release: &Resolved,
    kubernetes: &Release,
    cni_conf: String,
    net_conf: String,
) -> minijinja::Value {
    let row = release.row;
    let has = |feature| row.has(feature);
    let psp_served = !kubernetes.at_least(PSP_REMOVED.0, PSP_REMOVED.1);
    let psp = has(Feature::PodSecurityPolicy) && psp_served;
    let rbac_v1beta1 = row.rbac == Rbac::V1beta1
        && !kubernetes.at_least(RBAC_V1BETA1_REMOVED.0, RBAC_V1BETA1_REMOVED.1);
    let mut psp_host_paths = vec!["/etc/cni/net.d", "/etc/kube-flannel", "/run/flannel"];
    if row.cni_plugin_image.is_some() {
        psp_host_paths.push("/opt/cni/bin");
    }
    if has(Feature::XtablesLock) {
        psp_host_paths.push("/run/xtables.lock");
    }
    let image = release.image();
    let daemonsets: Vec<minijinja::Value> = match row.layout {
        Layout::PerArch => PER_ARCH
            .iter()
            .map(|arch| {
                context! {
                    name => format!("kube-flannel-ds-{arch}"),
                    arch => *arch,
                    image => format!("{image}-{arch}"),
                }
            })
            .collect(),
        Layout::KubeSystem | Layout::KubeFlannel => {
            vec![context! { name => "kube-flannel-ds", arch => None::<&str>, image }]
        }
    };
    context! {
        flavour_line => format!("flannel {}, {}.", release.tag, describe(row.layout)),
        notes => notes(release, kubernetes, psp_served, rbac_v1beta1),
        namespace => row.layout.namespace(),
        namespace_object => row.layout == Layout::KubeFlannel,
        k8s_app_labels => has(Feature::K8sAppLabels),
        psp,
        psp_host_paths,
        rbac_api_version => if rbac_v1beta1 {
            "rbac.authorization.k8s.io/v1beta1"
        } else {
            "rbac.authorization.k8s.io/v1"
        },
        nodes_get => has(Feature::NodesGet),
        cluster_cidrs => has(Feature::ClusterCidrs),
        cni_conf,
        net_conf,
        daemonsets,
        os_label => if row.layout == Layout::PerArch {
            "beta.kubernetes.io/os"
        } else {
            "kubernetes.io/os"
        },
        arch_label => "beta.kubernetes.io/arch",
        priority_class => has(Feature::PriorityClass),
        cni_plugin_image => row.cni_plugin_image,
        install_conf => has(Feature::InstallConf),
        limits => has(Feature::Limits),
        capabilities => if has(Feature::NetRaw) {
            vec!["NET_ADMIN", "NET_RAW"]
        } else {
            vec!["NET_ADMIN"]
        },
        event_queue_depth => has(Feature::EventQueueDepth),
        cont_when_cache_not_ready => has(Feature::ContWhenCacheNotReady),
        healthz => has(Feature::Healthz),
        xtables_lock => has(Feature::XtablesLock),
    }
}

/// The header lines that say where this file departs from the release's own manifest.
fn notes(
    release: &Resolved,
    kubernetes: &Release,
    psp_served: bool,
    rbac_v1beta1: bool,
) -> Vec<String> {
    let row: &FlannelRelease = release.row;
    let mut notes = Vec::new();
    if !release.known {
        notes.push(format!(
            "flannel {} is not in hybridgen's release table: this is the manifest of {}, the nearest known release, with the image {}.",
            release.tag,
            row.tag(),
            release.image()
        ));
    }
    if row.has(Feature::PodSecurityPolicy) && !psp_served {
        notes.push(format!(
            "No PodSecurityPolicy: Kubernetes {kubernetes} no longer serves policy/v1beta1 (removed in {}.{}).",
            PSP_REMOVED.0, PSP_REMOVED.1
        ));
    }
    if row.rbac == Rbac::V1beta1 && !rbac_v1beta1 {
        notes.push(format!(
            "RBAC objects in rbac.authorization.k8s.io/v1: Kubernetes {kubernetes} no longer serves v1beta1 (removed in {}.{}).",
            RBAC_V1BETA1_REMOVED.0, RBAC_V1BETA1_REMOVED.1
        ));
    }
    notes
}

/// The node-selector patches for the layout's DaemonSets and kube-proxy, and the script that
/// applies them.
fn patches(layout: Layout, kubernetes: &Release) -> Result<Vec<Artifact>, RenderError> {
    // Per-architecture manifests schedule on the `beta.` labels; clusters before 1.14 have no others.
    let mut labels = Vec::new();
    if layout == Layout::PerArch || !kubernetes.at_least(OS_LABEL_GA.0, OS_LABEL_GA.1) {
        labels.push("beta.kubernetes.io/os");
    }
    if kubernetes.at_least(OS_LABEL_GA.0, OS_LABEL_GA.1) {
        labels.push("kubernetes.io/os");
    }
    let flannel_target = match layout {
        Layout::PerArch => "the flannel DaemonSets kube-flannel-ds-<arch>",
        Layout::KubeSystem | Layout::KubeFlannel => "the flannel DaemonSet kube-flannel-ds",
    };
    let node_selector = super::template(NODE_SELECTOR_TEMPLATE)?;
    let flannel_patch = node_selector.render(context! {
        target => flannel_target,
        labels => labels.clone(),
    })?;
    let kube_proxy_patch = node_selector.render(context! {
        target => "the kube-proxy DaemonSet",
        labels => labels,
    })?;

    let patch = |name: &str, namespace: &str, file: &str| {
        context! {
            message => format!("Pinning ds/{name} (namespace {namespace}) to Linux nodes"),
            name,
            namespace,
            file,
        }
    };
    let mut commands: Vec<minijinja::Value> = layout
        .daemonset_names()
        .iter()
        .map(|name| patch(name, layout.namespace(), FLANNEL_PATCH_FILE))
        .collect();
    commands.push(patch("kube-proxy", "kube-system", KUBE_PROXY_PATCH_FILE));
    let apply = super::template(APPLY_TEMPLATE)?.render(context! { patches => commands })?;
    Ok(vec![
        Artifact::new(FLANNEL_PATCH_PATH, flannel_patch),
        Artifact::new(KUBE_PROXY_PATCH_PATH, kube_proxy_patch),
        Artifact::new(APPLY_PATH, apply),
    ])
}

/// Pretty JSON, indented four spaces for a YAML block scalar under `data:`.
fn json_block<T: Serialize>(value: &T) -> Result<String, RenderError> {
    let json = crate::escape::json_pretty(value)
        .map_err(|error| RenderError(format!("flannel: cannot write JSON: {error}")))?;
    Ok(indented(&json))
}

/// `net-conf.json`, keys in the order flannel's manifest writes them.
#[derive(Serialize)]
struct NetConf {
    #[serde(rename = "Network")]
    network: String,
    #[serde(rename = "EnableNFTables", skip_serializing_if = "Option::is_none")]
    enable_nftables: Option<bool>,
    #[serde(rename = "Backend")]
    backend: BackendConf,
}

#[derive(Serialize)]
struct BackendConf {
    #[serde(rename = "Type")]
    kind: &'static str,
    #[serde(rename = "VNI", skip_serializing_if = "Option::is_none")]
    vni: Option<u32>,
    #[serde(rename = "Port", skip_serializing_if = "Option::is_none")]
    port: Option<u16>,
    #[serde(rename = "DirectRouting", skip_serializing_if = "Option::is_none")]
    direct_routing: Option<bool>,
    /// Windows only: the HNS network name (HostProcess path, when `networkName` is written).
    #[serde(rename = "Name", skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// Windows only: the VTEP MAC prefix (HostProcess path, when `macPrefix` is written).
    #[serde(rename = "MacPrefix", skip_serializing_if = "Option::is_none")]
    mac_prefix: Option<String>,
}

/// `cni-conf.json`: the flannel plugin chained with portmap.
#[derive(Serialize)]
struct CniConf {
    name: &'static str,
    #[serde(rename = "cniVersion")]
    cni_version: &'static str,
    plugins: (FlannelPlugin, PortmapPlugin),
}

/// The plugins' keys in the manifest's order; `json!` writes an object's keys sorted, which is
/// their order inside `delegate` and `capabilities`.
#[derive(Serialize)]
struct FlannelPlugin {
    #[serde(rename = "type")]
    kind: &'static str,
    delegate: serde_json::Value,
}

#[derive(Serialize)]
struct PortmapPlugin {
    #[serde(rename = "type")]
    kind: &'static str,
    capabilities: serde_json::Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::plan::flannel_release::{RELEASES, resolve};
    use crate::spec::Spec;
    use serde::Deserialize;
    use serde_yaml::Value;

    const WINDOWS_NODE: &str = "
  - name: win-worker-0
    os: windows
    roles: [worker]
    address: 192.168.10.30";

    /// A spec: Kubernetes `kubernetes`, flannel `flannel` (the block under `flannel:`), a Linux
    /// control plane and, when `windows`, a Windows worker.
    fn spec_yaml(kubernetes: &str, flannel: &str, windows: bool) -> String {
        format!(
            "apiVersion: hybridgen/v1
kind: Cluster
metadata:
  name: hybrid-demo
kubernetes:
  version: \"{kubernetes}\"
network:
  clusterCidr: 10.244.0.0/16
  serviceCidr: 10.96.0.0/12
flannel:
{flannel}
windows:
  build: \"10.0.17763.379\"
nodes:
  - name: control-0
    os: linux
    roles: [controlplane, etcd, worker]
    address: 192.168.10.10{}
",
            if windows { WINDOWS_NODE } else { "" }
        )
    }

    fn vxlan(version: Option<&str>) -> String {
        let version = version.map_or(String::new(), |v| format!("  version: {v}\n"));
        format!("{version}  backend: vxlan\n  vni: 4096\n  port: 4789")
    }

    fn render_yaml(yaml: &str) -> Vec<Artifact> {
        let spec: Spec = serde_yaml::from_str(yaml).unwrap();
        let plan = Plan::build(&spec);
        let input = Input {
            spec: &spec,
            plan: &plan,
        };
        let first = render(&input).unwrap();
        let second = render(&input).unwrap();
        assert_eq!(first, second, "rendering is not deterministic");
        for artifact in &first {
            let text = &artifact.contents;
            assert!(text.is_ascii(), "{} is not ASCII", artifact.path);
            assert!(!text.contains('\r'), "{} has CR", artifact.path);
            assert!(
                text.ends_with('\n'),
                "{} lacks a final newline",
                artifact.path
            );
            assert!(
                !text.ends_with("\n\n"),
                "{} ends with a blank line",
                artifact.path
            );
        }
        first
    }

    fn artifact<'a>(artifacts: &'a [Artifact], path: &str) -> &'a str {
        &artifacts
            .iter()
            .find(|artifact| artifact.path == path)
            .unwrap_or_else(|| panic!("no artifact {path}"))
            .contents
    }

    /// Every YAML document of a stream, failing on the first that does not parse.
    fn documents(text: &str) -> Vec<Value> {
        let mut documents = Vec::new();
        for document in serde_yaml::Deserializer::from_str(text) {
            match Value::deserialize(document) {
                Ok(value) => documents.push(value),
                Err(error) => panic!("YAML document {} does not parse: {error}", documents.len()),
            }
        }
        documents
    }

    fn of_kind<'a>(documents: &'a [Value], kind: &str) -> Vec<&'a Value> {
        documents
            .iter()
            .filter(|document| document["kind"].as_str() == Some(kind))
            .collect()
    }

    fn str_of<'a>(value: &'a Value, path: &[&str]) -> &'a str {
        let mut value = value;
        for key in path {
            value = &value[*key];
        }
        value
            .as_str()
            .unwrap_or_else(|| panic!("{path:?} is not a string"))
    }

    fn config_json(documents: &[Value], key: &str) -> serde_json::Value {
        let config = of_kind(documents, "ConfigMap");
        assert_eq!(config.len(), 1);
        serde_json::from_str(str_of(config[0], &["data", key])).unwrap()
    }

    fn daemonsets(documents: &[Value]) -> Vec<(String, String)> {
        of_kind(documents, "DaemonSet")
            .into_iter()
            .map(|ds| {
                (
                    str_of(ds, &["metadata", "name"]).to_string(),
                    str_of(ds, &["metadata", "namespace"]).to_string(),
                )
            })
            .collect()
    }

    /// The `matchExpressions` of a DaemonSet's required node affinity, as `(key, values)`.
    fn affinity(ds: &Value) -> Vec<(String, Vec<String>)> {
        let terms = &ds["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            ["nodeSelectorTerms"];
        let terms = terms.as_sequence().unwrap();
        assert_eq!(terms.len(), 1);
        terms[0]["matchExpressions"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|expression| {
                assert_eq!(expression["operator"].as_str(), Some("In"));
                let values = expression["values"]
                    .as_sequence()
                    .unwrap()
                    .iter()
                    .map(|value| value.as_str().unwrap().to_string())
                    .collect();
                (expression["key"].as_str().unwrap().to_string(), values)
            })
            .collect()
    }

    fn containers<'a>(ds: &'a Value, key: &str) -> Vec<&'a Value> {
        ds["spec"]["template"]["spec"][key]
            .as_sequence()
            .map_or_else(Vec::new, |list| list.iter().collect())
    }

    fn node_selector(patch: &str) -> Vec<(String, String)> {
        let documents = documents(patch);
        assert_eq!(documents.len(), 1);
        documents[0]["spec"]["template"]["spec"]["nodeSelector"]
            .as_mapping()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.as_str().unwrap().into(), v.as_str().unwrap().into()))
            .collect()
    }

    /// The `kubectl patch` commands of apply.sh, as `(daemonset, namespace, patch file)`.
    fn patch_commands(script: &str) -> Vec<(String, String, String)> {
        script
            .lines()
            .filter(|line| line.starts_with("kubectl patch"))
            .map(|line| {
                let words: Vec<&str> = line.splitn(9, ' ').collect();
                assert_eq!(words[3], "-n");
                assert_eq!(&words[5..8], ["--type", "strategic", "--patch-file"]);
                let file = words[8]
                    .strip_prefix("\"$(dirname \"$0\")/")
                    .and_then(|rest| rest.strip_suffix('"'))
                    .unwrap();
                (words[2].into(), words[4].into(), file.into())
            })
            .collect()
    }

    #[test]
    fn legacy_flavour_has_per_arch_daemonsets_on_beta_labels() {
        let artifacts = render_yaml(&spec_yaml("1.16.2", &vxlan(Some("v0.11.0")), true));
        let paths: Vec<&str> = artifacts.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                MANIFEST_PATH,
                FLANNEL_PATCH_PATH,
                KUBE_PROXY_PATCH_PATH,
                APPLY_PATH
            ]
        );
        let manifest = artifact(&artifacts, MANIFEST_PATH);
        assert!(manifest.starts_with(
            "# Code generated by hybridgen; DO NOT EDIT.\n# flannel v0.11.0, v0.11-era"
        ));
        let docs = documents(manifest);
        assert!(of_kind(&docs, "Namespace").is_empty());
        assert_eq!(of_kind(&docs, "PodSecurityPolicy").len(), 1);
        let role = of_kind(&docs, "ClusterRole")[0];
        assert!(
            serde_yaml::to_string(role)
                .unwrap()
                .contains("podsecuritypolicies")
        );
        // As the manifest the Kubernetes Windows guide deploys: Kubernetes 1.16 still serves v1beta1.
        assert_eq!(
            str_of(role, &["apiVersion"]),
            "rbac.authorization.k8s.io/v1beta1"
        );
        let expected: Vec<(String, String)> = PER_ARCH
            .iter()
            .map(|arch| (format!("kube-flannel-ds-{arch}"), "kube-system".into()))
            .collect();
        assert_eq!(daemonsets(&docs), expected);
        for (ds, arch) in of_kind(&docs, "DaemonSet").into_iter().zip(PER_ARCH) {
            assert_eq!(str_of(ds, &["apiVersion"]), "apps/v1");
            assert_eq!(
                affinity(ds),
                [
                    ("beta.kubernetes.io/os".into(), vec!["linux".to_string()]),
                    ("beta.kubernetes.io/arch".into(), vec![arch.to_string()]),
                ]
            );
            let image = format!("quay.io/coreos/flannel:v0.11.0-{arch}");
            let init = containers(ds, "initContainers");
            assert_eq!(init.len(), 1);
            assert_eq!(str_of(init[0], &["image"]), image);
            assert_eq!(str_of(containers(ds, "containers")[0], &["image"]), image);
            assert!(ds["spec"]["template"]["spec"]["priorityClassName"].is_null());
        }
        let cni = config_json(&docs, "cni-conf.json");
        assert_eq!(cni["name"], "vxlan0");
        assert_eq!(cni["cniVersion"], "0.2.0");
        let net = config_json(&docs, "net-conf.json");
        assert_eq!(
            net,
            serde_json::json!({
                "Network": "10.244.0.0/16",
                "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}
            })
        );

        let both = vec![
            ("beta.kubernetes.io/os".to_string(), "linux".to_string()),
            ("kubernetes.io/os".to_string(), "linux".to_string()),
        ];
        assert_eq!(
            node_selector(artifact(&artifacts, FLANNEL_PATCH_PATH)),
            both
        );
        assert_eq!(
            node_selector(artifact(&artifacts, KUBE_PROXY_PATCH_PATH)),
            both
        );
        let script = artifact(&artifacts, APPLY_PATH);
        assert!(script.starts_with("#!/usr/bin/env bash\n"));
        assert!(script.contains("\nset -euo pipefail\n"));
        let mut expected: Vec<(String, String, String)> = PER_ARCH
            .iter()
            .map(|arch| {
                (
                    format!("ds/kube-flannel-ds-{arch}"),
                    "kube-system".into(),
                    FLANNEL_PATCH_FILE.into(),
                )
            })
            .collect();
        expected.push((
            "ds/kube-proxy".into(),
            "kube-system".into(),
            KUBE_PROXY_PATCH_FILE.into(),
        ));
        assert_eq!(patch_commands(script), expected);
        assert_eq!(script.matches("\necho '").count(), expected.len());
    }

    #[test]
    fn between_flavour_keeps_psp_until_kubernetes_1_25() {
        let artifacts = render_yaml(&spec_yaml("1.16.2", &vxlan(Some("v0.14.0")), true));
        let manifest = artifact(&artifacts, MANIFEST_PATH);
        let docs = documents(manifest);
        assert_eq!(of_kind(&docs, "PodSecurityPolicy").len(), 1);
        assert_eq!(
            daemonsets(&docs),
            [("kube-flannel-ds".to_string(), "kube-system".to_string())]
        );
        let ds = of_kind(&docs, "DaemonSet")[0];
        assert_eq!(
            affinity(ds),
            [("kubernetes.io/os".into(), vec!["linux".to_string()])]
        );
        assert_eq!(
            str_of(ds, &["spec", "template", "spec", "priorityClassName"]),
            "system-node-critical"
        );
        let container = containers(ds, "containers")[0];
        assert_eq!(
            str_of(container, &["image"]),
            "quay.io/coreos/flannel:v0.14.0"
        );
        let caps = &container["securityContext"]["capabilities"]["add"];
        assert_eq!(
            caps,
            &serde_yaml::from_str::<Value>("[NET_ADMIN, NET_RAW]").unwrap()
        );
        // install-cni-plugin arrives with v0.15.0.
        assert_eq!(containers(ds, "initContainers").len(), 1);
        let net = config_json(&docs, "net-conf.json");
        assert_eq!(net["Network"], "10.244.0.0/16");
        assert_eq!(net["Backend"]["VNI"], 4096);
        assert_eq!(net["Backend"]["Port"], 4789);
        assert!(net.get("EnableNFTables").is_none());
        assert_eq!(config_json(&docs, "cni-conf.json")["cniVersion"], "0.3.1");
        let linux = vec![("kubernetes.io/os".to_string(), "linux".to_string())];
        assert_eq!(
            node_selector(artifact(&artifacts, FLANNEL_PATCH_PATH)),
            linux
        );
        assert_eq!(
            node_selector(artifact(&artifacts, KUBE_PROXY_PATCH_PATH)),
            linux
        );
        assert_eq!(
            patch_commands(artifact(&artifacts, APPLY_PATH)),
            [
                (
                    "ds/kube-flannel-ds".to_string(),
                    "kube-system".to_string(),
                    FLANNEL_PATCH_FILE.to_string()
                ),
                (
                    "ds/kube-proxy".to_string(),
                    "kube-system".to_string(),
                    KUBE_PROXY_PATCH_FILE.to_string()
                ),
            ]
        );

        let artifacts = render_yaml(&spec_yaml("1.25.0", &vxlan(Some("v0.14.0")), true));
        let manifest = artifact(&artifacts, MANIFEST_PATH);
        let docs = documents(manifest);
        assert!(of_kind(&docs, "PodSecurityPolicy").is_empty());
        assert!(!manifest.contains("podsecuritypolicies"));
        assert!(!manifest.contains("policy/v1beta1\nkind"));
        assert_eq!(daemonsets(&docs).len(), 1);
    }

    #[test]
    fn current_flavour_is_the_default() {
        let artifacts = render_yaml(&spec_yaml("1.30.2", &vxlan(None), true));
        let manifest = artifact(&artifacts, MANIFEST_PATH);
        assert!(manifest.starts_with(
            "# Code generated by hybridgen; DO NOT EDIT.\n# flannel v0.28.9, current"
        ));
        let docs = documents(manifest);
        let namespace = of_kind(&docs, "Namespace");
        assert_eq!(namespace.len(), 1);
        assert_eq!(str_of(namespace[0], &["metadata", "name"]), "kube-flannel");
        assert_eq!(
            str_of(
                namespace[0],
                &["metadata", "labels", "pod-security.kubernetes.io/enforce"]
            ),
            "privileged"
        );
        assert!(of_kind(&docs, "PodSecurityPolicy").is_empty());
        assert!(!manifest.contains("podsecuritypolicies"));
        assert_eq!(
            daemonsets(&docs),
            [("kube-flannel-ds".to_string(), "kube-flannel".to_string())]
        );
        let ds = of_kind(&docs, "DaemonSet")[0];
        assert_eq!(
            affinity(ds),
            [("kubernetes.io/os".into(), vec!["linux".to_string()])]
        );
        let init = containers(ds, "initContainers");
        assert_eq!(
            str_of(init[0], &["image"]),
            "ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel3"
        );
        assert_eq!(
            str_of(init[1], &["image"]),
            "ghcr.io/flannel-io/flannel:v0.28.9"
        );
        assert_eq!(str_of(&init[1]["command"][0], &[]), "/opt/bin/install-conf");
        let container = containers(ds, "containers")[0];
        assert_eq!(
            str_of(container, &["image"]),
            "ghcr.io/flannel-io/flannel:v0.28.9"
        );
        assert!(container["resources"]["limits"].is_null());
        assert_eq!(
            str_of(container, &["readinessProbe", "httpGet", "path"]),
            "/readyz"
        );
        for (ns_ref, path) in [
            (
                of_kind(&docs, "ServiceAccount")[0],
                &["metadata", "namespace"][..],
            ),
            (
                of_kind(&docs, "ConfigMap")[0],
                &["metadata", "namespace"][..],
            ),
        ] {
            assert_eq!(str_of(ns_ref, path), "kube-flannel");
        }
        let binding = of_kind(&docs, "ClusterRoleBinding")[0];
        assert_eq!(
            str_of(&binding["subjects"][0], &["namespace"]),
            "kube-flannel"
        );
        let net = config_json(&docs, "net-conf.json");
        assert_eq!(
            net,
            serde_json::json!({
                "Network": "10.244.0.0/16",
                "EnableNFTables": false,
                "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}
            })
        );
        // The block scalar is the pretty JSON, keys in flannel's order.
        assert!(manifest.contains(
            "  net-conf.json: |\n    {\n      \"Network\": \"10.244.0.0/16\",\n      \"EnableNFTables\": false,\n      \"Backend\": {\n        \"Type\": \"vxlan\",\n"
        ));
        // Windows nodes on the HostProcess path never read it: the manifest's own name stays.
        assert_eq!(config_json(&docs, "cni-conf.json")["name"], "cbr0");
        let linux = vec![("kubernetes.io/os".to_string(), "linux".to_string())];
        assert_eq!(
            node_selector(artifact(&artifacts, FLANNEL_PATCH_PATH)),
            linux
        );
        assert_eq!(
            node_selector(artifact(&artifacts, KUBE_PROXY_PATCH_PATH)),
            linux
        );
        let commands = patch_commands(artifact(&artifacts, APPLY_PATH));
        assert_eq!(
            commands[0],
            (
                "ds/kube-flannel-ds".to_string(),
                "kube-flannel".to_string(),
                FLANNEL_PATCH_FILE.to_string()
            )
        );
        assert_eq!(commands.len(), 2);
        assert_eq!(commands[1].0, "ds/kube-proxy");
        assert_eq!(commands[1].1, "kube-system");
    }

    /// The Kubernetes release a flannel release was made for: PodSecurityPolicy and RBAC v1beta1
    /// are still served, so the manifest is the tag's own.
    fn contemporary_kubernetes(row: &FlannelRelease) -> &'static str {
        if row.version < Release::new(0, 19, 0) {
            "1.21.3"
        } else {
            "1.30.2"
        }
    }

    fn env_names(container: &Value) -> Vec<&str> {
        container["env"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|entry| entry["name"].as_str().unwrap())
            .collect()
    }

    fn volume_names(pod: &Value) -> Vec<&str> {
        pod["volumes"]
            .as_sequence()
            .unwrap()
            .iter()
            .map(|volume| volume["name"].as_str().unwrap())
            .collect()
    }

    /// The verbs of the ClusterRole rule on `resource`, if it has one.
    fn verbs<'a>(role: &'a Value, resource: &str) -> Option<Vec<&'a str>> {
        role["rules"]
            .as_sequence()
            .unwrap()
            .iter()
            .find_map(|rule| {
                let resources = rule["resources"].as_sequence().unwrap();
                resources
                    .iter()
                    .any(|r| r.as_str() == Some(resource))
                    .then(|| {
                        rule["verbs"]
                            .as_sequence()
                            .unwrap()
                            .iter()
                            .map(|verb| verb.as_str().unwrap())
                            .collect()
                    })
            })
    }

    /// Every release of the table, rendered for the Kubernetes it was made for, has what its row
    /// says: namespace and DaemonSets, images, volumes, args, env, RBAC rules, labels.
    #[test]
    fn every_release_renders_what_its_row_says() {
        for row in RELEASES {
            let tag = row.tag();
            let yaml = spec_yaml(contemporary_kubernetes(row), &vxlan(Some(&tag)), true);
            let artifacts = render_yaml(&yaml);
            let docs = documents(artifact(&artifacts, MANIFEST_PATH));
            let has = |feature| row.has(feature);
            let namespace = row.layout.namespace();
            let names: Vec<(String, String)> = row
                .layout
                .daemonset_names()
                .into_iter()
                .map(|name| (name, namespace.to_string()))
                .collect();
            assert_eq!(daemonsets(&docs), names, "{tag}");
            assert_eq!(
                of_kind(&docs, "Namespace").len(),
                usize::from(row.layout == Layout::KubeFlannel),
                "{tag}"
            );
            assert_eq!(
                of_kind(&docs, "PodSecurityPolicy").len(),
                usize::from(has(Feature::PodSecurityPolicy)),
                "{tag}"
            );
            let role = of_kind(&docs, "ClusterRole")[0];
            let rbac = match row.rbac {
                Rbac::V1beta1 => "rbac.authorization.k8s.io/v1beta1",
                Rbac::V1 => "rbac.authorization.k8s.io/v1",
            };
            assert_eq!(str_of(role, &["apiVersion"]), rbac, "{tag}");
            let node_verbs = if has(Feature::NodesGet) {
                vec!["get", "list", "watch"]
            } else {
                vec!["list", "watch"]
            };
            assert_eq!(verbs(role, "nodes"), Some(node_verbs), "{tag}");
            assert_eq!(
                verbs(role, "clustercidrs"),
                has(Feature::ClusterCidrs).then(|| vec!["list", "watch"]),
                "{tag}"
            );
            assert_eq!(
                verbs(role, "podsecuritypolicies"),
                has(Feature::PodSecurityPolicy).then(|| vec!["use"]),
                "{tag}"
            );
            for kind in [
                "ClusterRole",
                "ClusterRoleBinding",
                "ServiceAccount",
                "ConfigMap",
                "DaemonSet",
            ] {
                for object in of_kind(&docs, kind) {
                    assert_eq!(
                        object["metadata"]["labels"]["k8s-app"].as_str(),
                        has(Feature::K8sAppLabels).then_some("flannel"),
                        "{tag} {kind}"
                    );
                }
            }
            let cni = config_json(&docs, "cni-conf.json");
            assert_eq!(cni["cniVersion"], row.cni_version, "{tag}");
            let net = config_json(&docs, "net-conf.json");
            assert_eq!(
                net.get("EnableNFTables").is_some(),
                has(Feature::EnableNfTables),
                "{tag}"
            );

            for (ds, arch) in of_kind(&docs, "DaemonSet").into_iter().zip(
                PER_ARCH
                    .iter()
                    .map(|arch| (row.layout == Layout::PerArch).then_some(*arch)),
            ) {
                let image = match arch {
                    Some(arch) => format!("{}-{arch}", row.image),
                    None => row.image.to_string(),
                };
                let pod = &ds["spec"]["template"]["spec"];
                let init = containers(ds, "initContainers");
                let plugin: Vec<&str> = init
                    .iter()
                    .filter(|c| c["name"] == "install-cni-plugin")
                    .map(|c| str_of(c, &["image"]))
                    .collect();
                assert_eq!(
                    plugin,
                    row.cni_plugin_image.into_iter().collect::<Vec<_>>(),
                    "{tag}"
                );
                let install = init.iter().find(|c| c["name"] == "install-cni").unwrap();
                assert_eq!(str_of(install, &["image"]), image, "{tag}");
                let command = if has(Feature::InstallConf) {
                    "/opt/bin/install-conf"
                } else {
                    "cp"
                };
                assert_eq!(str_of(&install["command"][0], &[]), command, "{tag}");
                let container = containers(ds, "containers")[0];
                assert_eq!(str_of(container, &["image"]), image, "{tag}");
                let args: Vec<&str> = container["args"]
                    .as_sequence()
                    .unwrap()
                    .iter()
                    .map(|arg| arg.as_str().unwrap())
                    .collect();
                let mut expected_args = vec!["--ip-masq", "--kube-subnet-mgr"];
                if has(Feature::Healthz) {
                    expected_args.push("--healthz-port=8081");
                }
                assert_eq!(args, expected_args, "{tag}");
                assert_eq!(
                    container["livenessProbe"].is_mapping(),
                    has(Feature::Healthz),
                    "{tag}"
                );
                let mut env = vec!["POD_NAME", "POD_NAMESPACE"];
                if has(Feature::EventQueueDepth) {
                    env.push("EVENT_QUEUE_DEPTH");
                }
                if has(Feature::ContWhenCacheNotReady) {
                    env.push("CONT_WHEN_CACHE_NOT_READY");
                }
                assert_eq!(env_names(container), env, "{tag}");
                let mut volumes = vec!["run"];
                if row.cni_plugin_image.is_some() {
                    volumes.push("cni-plugin");
                }
                volumes.extend(["cni", "flannel-cfg"]);
                if has(Feature::XtablesLock) {
                    volumes.push("xtables-lock");
                }
                assert_eq!(volume_names(pod), volumes, "{tag}");
                let capabilities = &container["securityContext"]["capabilities"]["add"];
                let expected = if has(Feature::NetRaw) {
                    "[NET_ADMIN, NET_RAW]"
                } else {
                    "[NET_ADMIN]"
                };
                assert_eq!(
                    capabilities,
                    &serde_yaml::from_str::<Value>(expected).unwrap(),
                    "{tag}"
                );
                assert_eq!(
                    container["resources"]["limits"].is_mapping(),
                    has(Feature::Limits),
                    "{tag}"
                );
                assert_eq!(
                    pod["priorityClassName"].as_str(),
                    has(Feature::PriorityClass).then_some("system-node-critical"),
                    "{tag}"
                );
            }
        }
    }

    /// The rows the review of upstream's manifests found wrong under the old version cut-offs.
    #[test]
    fn release_rows_hold_what_each_tag_ships() {
        let row = |tag: &str| {
            let resolved = resolve(tag).unwrap();
            assert!(resolved.known, "{tag} is a row");
            resolved.row
        };
        // /run/xtables.lock arrived at v0.16.2 (flannel-io/flannel 5f27126b).
        assert!(!row("v0.16.1").has(Feature::XtablesLock));
        assert!(row("v0.16.2").has(Feature::XtablesLock));
        // v0.20.0/1 were pushed to flannelcni/flannel and deployed from the rancher mirror.
        for tag in ["v0.20.0", "v0.20.1"] {
            assert_eq!(
                row(tag).image,
                format!("docker.io/rancher/mirrored-flannelcni-flannel:{tag}")
            );
        }
        for (tag, plugin) in [
            (
                "v0.15.0",
                "rancher/mirrored-flannelcni-flannel-cni-plugin:v1.2",
            ),
            (
                "v0.15.1",
                "rancher/mirrored-flannelcni-flannel-cni-plugin:v1.0.0",
            ),
            (
                "v0.17.0",
                "rancher/mirrored-flannelcni-flannel-cni-plugin:v1.0.1",
            ),
            (
                "v0.19.0",
                "rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0",
            ),
            (
                "v0.20.2",
                "docker.io/rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0",
            ),
            (
                "v0.24.2",
                "docker.io/flannel/flannel-cni-plugin:v1.4.0-flannel1",
            ),
        ] {
            assert_eq!(row(tag).cni_plugin_image, Some(plugin), "{tag}");
        }
        assert!(
            row("v0.26.3")
                .image
                .starts_with("docker.io/flannel/flannel:")
        );
        assert!(
            row("v0.26.4")
                .image
                .starts_with("ghcr.io/flannel-io/flannel:")
        );
        assert!(!row("v0.28.5").has(Feature::InstallConf));
        assert!(row("v0.28.6").has(Feature::InstallConf));
        assert!(!row("v0.27.0").has(Feature::ContWhenCacheNotReady));
        assert!(row("v0.27.1").has(Feature::ContWhenCacheNotReady));
        assert!(!row("v0.21.4").has(Feature::K8sAppLabels));
        assert!(row("v0.21.5").has(Feature::K8sAppLabels));
        assert!(!row("v0.20.1").has(Feature::NodesGet));
        assert!(row("v0.20.2").has(Feature::NodesGet));
        for (tag, clustercidrs) in [
            ("v0.20.2", false),
            ("v0.21.0", true),
            ("v0.24.4", true),
            ("v0.25.0", false),
        ] {
            assert_eq!(row(tag).has(Feature::ClusterCidrs), clustercidrs, "{tag}");
        }
    }

    /// The table is ordered, without duplicates, and each image names its own release, but for
    /// v0.14.1, whose image no one published.
    #[test]
    fn the_release_table_is_ordered_and_each_image_is_its_release() {
        assert_eq!(RELEASES.len(), 67);
        for pair in RELEASES.windows(2) {
            assert!(pair[0].version < pair[1].version, "{}", pair[1].tag());
        }
        for row in RELEASES {
            let expected = if row.tag() == "v0.14.1" {
                "v0.14.0".to_string()
            } else {
                row.tag()
            };
            assert_eq!(
                row.image.rsplit_once(':').unwrap().1,
                expected,
                "{}",
                row.tag()
            );
        }
    }

    #[test]
    fn an_unknown_release_renders_as_the_nearest_known_one_and_says_so() {
        let cases = [
            ("v0.29.0", "v0.28.9", "ghcr.io/flannel-io/flannel:v0.29.0"),
            ("0.28.10", "v0.28.9", "ghcr.io/flannel-io/flannel:v0.28.10"),
            (
                "v0.28.0-rc1",
                "v0.27.4",
                "ghcr.io/flannel-io/flannel:v0.28.0-rc1",
            ),
            ("v0.13.1", "v0.13.0", "quay.io/coreos/flannel:v0.13.1"),
        ];
        for (written, nearest, image) in cases {
            let resolved = resolve(written).unwrap();
            assert!(!resolved.known, "{written}");
            assert_eq!(resolved.row.tag(), nearest, "{written}");
            assert_eq!(resolved.image(), image, "{written}");
            let artifacts = render_yaml(&spec_yaml("1.30.2", &vxlan(Some(written)), true));
            let manifest = artifact(&artifacts, MANIFEST_PATH);
            assert!(
                manifest.contains(&format!(
                    "the manifest of {nearest}, the nearest known release, with the image {image}"
                )),
                "{manifest}"
            );
            let docs = documents(manifest);
            let ds = of_kind(&docs, "DaemonSet")[0];
            assert_eq!(str_of(containers(ds, "containers")[0], &["image"]), image);
        }
        assert_eq!(resolve("v0.10.0").unwrap().row.tag(), "v0.11.0");
        assert!(resolve("latest").is_none());
        let known = resolve("v0.28.9").unwrap();
        assert!(known.known);
        assert_eq!(known.image(), "ghcr.io/flannel-io/flannel:v0.28.9");
    }

    /// On a Kubernetes that no longer serves them, PodSecurityPolicy is left out and RBAC is v1.
    #[test]
    fn apis_the_cluster_no_longer_serves_are_replaced_and_noted() {
        let artifacts = render_yaml(&spec_yaml("1.22.0", &vxlan(Some("v0.13.0")), true));
        let manifest = artifact(&artifacts, MANIFEST_PATH);
        let docs = documents(manifest);
        assert_eq!(
            str_of(of_kind(&docs, "ClusterRole")[0], &["apiVersion"]),
            "rbac.authorization.k8s.io/v1"
        );
        assert!(manifest.contains("no longer serves v1beta1 (removed in 1.22)"));
        assert_eq!(of_kind(&docs, "PodSecurityPolicy").len(), 1);
        let artifacts = render_yaml(&spec_yaml("1.21.9", &vxlan(Some("v0.13.0")), true));
        let manifest = artifact(&artifacts, MANIFEST_PATH);
        assert!(!manifest.contains("no longer serves"));
    }

    #[test]
    fn host_gw_backend_has_only_its_type() {
        let flannel = "  version: v0.14.0\n  backend: host-gw";
        let artifacts = render_yaml(&spec_yaml("1.16.2", flannel, true));
        let docs = documents(artifact(&artifacts, MANIFEST_PATH));
        let net = config_json(&docs, "net-conf.json");
        assert_eq!(net["Backend"], serde_json::json!({"Type": "host-gw"}));
        assert_eq!(config_json(&docs, "cni-conf.json")["name"], "cbr0");
    }

    #[test]
    fn linux_only_vxlan_uses_cbr0_and_direct_routing_when_planned() {
        let flannel = "  version: v0.11.0\n  backend: vxlan\n  directRouting: true";
        let artifacts = render_yaml(&spec_yaml("1.16.2", flannel, false));
        let docs = documents(artifact(&artifacts, MANIFEST_PATH));
        let net = config_json(&docs, "net-conf.json");
        assert_eq!(
            net["Backend"],
            serde_json::json!({"Type": "vxlan", "VNI": 1, "Port": 8472, "DirectRouting": true})
        );
        assert_eq!(config_json(&docs, "cni-conf.json")["name"], "cbr0");
    }

    #[test]
    fn bad_plan_values_are_errors_not_panics() {
        let yaml = spec_yaml("latest", &vxlan(Some("v0.14.0")), true);
        let spec: Spec = serde_yaml::from_str(&yaml).unwrap();
        let plan = Plan::build(&spec);
        let input = Input {
            spec: &spec,
            plan: &plan,
        };
        assert!(render(&input).is_err());
    }
}

//! The flannel artifacts: `kube-flannel.yml` in the flavour of the spec's flannel release, and the
//! node-selector patches (plus the script that applies them) that keep the Linux DaemonSets off the
//! Windows nodes.
//!
//! Three manifest flavours follow flannel's own `Documentation/kube-flannel.yml`:
//! - before v0.13.0: per-architecture DaemonSets in `kube-system`, scheduled on the `beta.` labels;
//! - v0.13.0 to v0.18.x: one DaemonSet `kube-flannel-ds` in `kube-system`;
//! - v0.19.0 on: one DaemonSet `kube-flannel-ds` in its own `kube-flannel` namespace, no
//!   PodSecurityPolicy.
//!
//! Every version decision is made here; the templates only format the values computed below.

use super::{Artifact, Input, RenderError};
use crate::plan::DEFAULT_FLANNEL_VERSION;
use crate::plan::version::Release;
use crate::spec::Backend;
use minijinja::context;
use minijinja::value::Serde;
use serde::Serialize;

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

/// The architectures of the per-architecture DaemonSets before v0.13.0, in manifest order.
const LEGACY_ARCHES: [&str; 5] = ["amd64", "arm64", "arm", "ppc64le", "s390x"];

/// The first release with one multi-arch DaemonSet scheduled on `kubernetes.io/os`.
const SINGLE_DAEMONSET: Release = Release::new(0, 13, 0);
/// The first release in the `kube-flannel` namespace, without PodSecurityPolicy.
const OWN_NAMESPACE: Release = Release::new(0, 19, 0);

/// The Kubernetes release that removed `policy/v1beta1` PodSecurityPolicy.
const PSP_REMOVED: (u32, u32) = (1, 25);
/// The Kubernetes release whose kubelet labels nodes `kubernetes.io/os`.
const OS_LABEL_GA: (u32, u32) = (1, 14);
/// The Kubernetes release that serves `rbac.authorization.k8s.io/v1`.
const RBAC_V1: (u32, u32) = (1, 8);

/// The flannel-cni-plugin image each listed manifest ships (facts-flannel §1b), by the first
/// flannel release that uses it; a release uses the row of the newest release at or before it.
const CNI_PLUGIN_IMAGES: [(Release, &str); 6] = [
    (
        Release::new(0, 15, 0),
        "rancher/mirrored-flannelcni-flannel-cni-plugin:v1.2",
    ),
    (
        Release::new(0, 21, 0),
        "docker.io/flannel/flannel-cni-plugin:v1.1.2",
    ),
    (
        Release::new(0, 25, 0),
        "docker.io/flannel/flannel-cni-plugin:v1.4.0-flannel1",
    ),
    (
        Release::new(0, 26, 0),
        "docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2",
    ),
    (
        Release::new(0, 27, 0),
        "ghcr.io/flannel-io/flannel-cni-plugin:v1.7.1-flannel1",
    ),
    (
        Release::new(0, 28, 9),
        "ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel3",
    ),
];

/// The shape of `kube-flannel.yml`, chosen by the flannel release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// Before v0.13.0: `kube-flannel-ds-<arch>` DaemonSets in `kube-system`.
    Legacy,
    /// v0.13.0 to v0.18.x: `kube-flannel-ds` in `kube-system`.
    Between,
    /// v0.19.0 on: `kube-flannel-ds` in `kube-flannel`.
    Current,
}

impl Flavour {
    pub fn of(release: Release) -> Self {
        if release < SINGLE_DAEMONSET {
            Flavour::Legacy
        } else if release < OWN_NAMESPACE {
            Flavour::Between
        } else {
            Flavour::Current
        }
    }

    pub fn namespace(self) -> &'static str {
        match self {
            Flavour::Legacy | Flavour::Between => "kube-system",
            Flavour::Current => "kube-flannel",
        }
    }

    /// The flannel DaemonSets of the manifest, in manifest order.
    pub fn daemonset_names(self) -> Vec<String> {
        match self {
            Flavour::Legacy => LEGACY_ARCHES
                .iter()
                .map(|arch| format!("kube-flannel-ds-{arch}"))
                .collect(),
            Flavour::Between | Flavour::Current => vec!["kube-flannel-ds".to_string()],
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Flavour::Legacy => {
                "v0.11-era flavour (before v0.13.0): per-architecture DaemonSets in kube-system"
            }
            Flavour::Between => "v0.13-v0.18 flavour: one DaemonSet kube-flannel-ds in kube-system",
            Flavour::Current => {
                "current flavour (v0.19.0 and later): one DaemonSet kube-flannel-ds in namespace kube-flannel"
            }
        }
    }
}

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    let release = plan
        .flannel
        .version
        .clone()
        .map_err(|_| RenderError("flannel: `flannel.version` is not a release".into()))?;
    let kubernetes = plan
        .kubernetes_version
        .clone()
        .map_err(|_| RenderError("flannel: `kubernetes.version` is not a release".into()))?;
    let cluster_cidr = plan
        .cluster_cidr
        .as_ref()
        .map_err(|_| RenderError("flannel: `network.clusterCidr` is not a CIDR".into()))?;
    let flavour = Flavour::of(release);
    let tag = image_tag(input.spec.flannel.version.as_deref(), release);

    let net_conf = NetConf {
        network: cluster_cidr.to_string(),
        enable_nftables: release.at_least(0, 25).then_some(false),
        backend: match plan.flannel.backend {
            Backend::Vxlan => BackendConf {
                kind: "vxlan",
                vni: Some(plan.flannel.vni),
                port: Some(plan.flannel.port),
                direct_routing: plan.flannel.direct_routing.then_some(true),
                name: plan.flannel.windows_backend.name.clone(),
                mac_prefix: plan.flannel.windows_backend.mac_prefix.clone(),
            },
            Backend::HostGw => BackendConf {
                kind: "host-gw",
                vni: None,
                port: None,
                direct_routing: None,
                name: plan.flannel.windows_backend.name.clone(),
                mac_prefix: None,
            },
        },
    };
    let cni_name = if plan.flannel.backend == Backend::Vxlan && plan.has_windows() {
        "vxlan0"
    } else {
        "cbr0"
    };
    let cni_conf = CniConf {
        name: cni_name,
        cni_version: if flavour == Flavour::Legacy {
            "0.2.0"
        } else {
            "0.3.1"
        },
        plugins: (
            FlannelPlugin {
                kind: "flannel",
                delegate: Delegate {
                    hairpin_mode: true,
                    is_default_gateway: true,
                },
            },
            PortmapPlugin {
                kind: "portmap",
                capabilities: PortmapCapabilities {
                    port_mappings: true,
                },
            },
        ),
    };

    let psp = flavour != Flavour::Current && !kubernetes.at_least(PSP_REMOVED.0, PSP_REMOVED.1);
    let cni_plugin_image = cni_plugin_image(release);
    let xtables_lock = release.at_least(0, 18);
    let mut psp_host_paths = vec!["/etc/cni/net.d", "/etc/kube-flannel", "/run/flannel"];
    if cni_plugin_image.is_some() {
        psp_host_paths.push("/opt/cni/bin");
    }
    if xtables_lock {
        psp_host_paths.push("/run/xtables.lock");
    }
    let mut notes = Vec::new();
    if flavour != Flavour::Current && !psp {
        notes.push(format!(
            "No PodSecurityPolicy: Kubernetes {kubernetes} no longer serves policy/v1beta1 (removed in {}.{}).",
            PSP_REMOVED.0, PSP_REMOVED.1
        ));
    }
    let daemonsets = match flavour {
        Flavour::Legacy => LEGACY_ARCHES
            .iter()
            .map(|arch| DaemonSet {
                name: format!("kube-flannel-ds-{arch}"),
                arch: Some(*arch),
                image: format!("quay.io/coreos/flannel:{tag}-{arch}"),
            })
            .collect(),
        Flavour::Between | Flavour::Current => vec![DaemonSet {
            name: "kube-flannel-ds".into(),
            arch: None,
            image: flannel_image(release, &tag),
        }],
    };
    let manifest = Manifest {
        flavour_line: format!("flannel {tag}, {}.", flavour.describe()),
        notes,
        namespace: flavour.namespace(),
        namespace_object: flavour == Flavour::Current,
        k8s_app_labels: release.at_least(0, 22),
        psp,
        psp_host_paths,
        rbac_api_version: if kubernetes.at_least(RBAC_V1.0, RBAC_V1.1) {
            "rbac.authorization.k8s.io/v1"
        } else {
            "rbac.authorization.k8s.io/v1beta1"
        },
        node_verbs: if flavour == Flavour::Current {
            vec!["get", "list", "watch"]
        } else {
            vec!["list", "watch"]
        },
        cni_conf: json_block(&cni_conf)?,
        net_conf: json_block(&net_conf)?,
        daemonsets,
        os_label: if flavour == Flavour::Legacy {
            "beta.kubernetes.io/os"
        } else {
            "kubernetes.io/os"
        },
        arch_label: "beta.kubernetes.io/arch",
        priority_class: flavour != Flavour::Legacy,
        cni_plugin_image,
        install_conf: release >= Release::new(0, 28, 9),
        limits: !release.at_least(0, 21),
        capabilities: if flavour == Flavour::Legacy {
            vec!["NET_ADMIN"]
        } else {
            vec!["NET_ADMIN", "NET_RAW"]
        },
        event_queue_depth: release.at_least(0, 18),
        cont_when_cache_not_ready: release.at_least(0, 27),
        healthz: release >= Release::new(0, 28, 9),
        xtables_lock,
    };
    let manifest_text =
        super::template(MANIFEST_TEMPLATE)?.render(context! { m => Serde(&manifest) })?;

    // Legacy manifests schedule on the `beta.` labels; clusters before 1.14 have no others.
    let mut labels = Vec::new();
    if flavour == Flavour::Legacy || !kubernetes.at_least(OS_LABEL_GA.0, OS_LABEL_GA.1) {
        labels.push("beta.kubernetes.io/os");
    }
    if kubernetes.at_least(OS_LABEL_GA.0, OS_LABEL_GA.1) {
        labels.push("kubernetes.io/os");
    }
    let flannel_target = match flavour {
        Flavour::Legacy => "the flannel DaemonSets kube-flannel-ds-<arch>",
        Flavour::Between | Flavour::Current => "the flannel DaemonSet kube-flannel-ds",
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

    let mut patches: Vec<PatchCommand> = flavour
        .daemonset_names()
        .into_iter()
        .map(|name| PatchCommand {
            message: format!(
                "Pinning ds/{name} (namespace {}) to Linux nodes",
                flavour.namespace()
            ),
            name,
            namespace: flavour.namespace(),
            file: FLANNEL_PATCH_FILE,
        })
        .collect();
    patches.push(PatchCommand {
        message: "Pinning ds/kube-proxy (namespace kube-system) to Linux nodes".into(),
        name: "kube-proxy".into(),
        namespace: "kube-system",
        file: KUBE_PROXY_PATCH_FILE,
    });
    let apply = super::template(APPLY_TEMPLATE)?.render(context! { patches => Serde(&patches) })?;

    Ok(vec![
        Artifact::new(MANIFEST_PATH, manifest_text),
        Artifact::new(FLANNEL_PATCH_PATH, flannel_patch),
        Artifact::new(KUBE_PROXY_PATCH_PATH, kube_proxy_patch),
        Artifact::new(APPLY_PATH, apply),
    ])
}

/// The image tag of a release: the spec's own spelling (keeping a pre-release suffix such as
/// `-rc1`) when it is a valid tag, else `v<release>`.
fn image_tag(written: Option<&str>, release: Release) -> String {
    let text = written.unwrap_or(DEFAULT_FLANNEL_VERSION);
    let bare = text.strip_prefix('v').unwrap_or(text);
    let valid = !bare.is_empty()
        && bare.len() < 128
        && bare
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if valid && Release::parse(bare) == Some(release) {
        format!("v{bare}")
    } else {
        format!("v{release}")
    }
}

/// The multi-arch flannel image of a release from v0.13.0 on (facts-flannel §1b).
fn flannel_image(release: Release, tag: &str) -> String {
    let repository = if !release.at_least(0, 16) {
        "quay.io/coreos/flannel"
    } else if !release.at_least(0, 20) {
        "rancher/mirrored-flannelcni-flannel"
    } else if !release.at_least(0, 27) {
        "docker.io/flannel/flannel"
    } else {
        "ghcr.io/flannel-io/flannel"
    };
    format!("{repository}:{tag}")
}

/// The flannel-cni-plugin image, from v0.15.0 on: that of the newest listed release at or before
/// `release`.
fn cni_plugin_image(release: Release) -> Option<&'static str> {
    CNI_PLUGIN_IMAGES
        .iter()
        .rev()
        .find(|(first, _)| *first <= release)
        .map(|(_, image)| *image)
}

/// Pretty JSON, indented four spaces for a YAML block scalar under `data:`.
fn json_block<T: Serialize>(value: &T) -> Result<String, RenderError> {
    let json = serde_json::to_string_pretty(value)
        .map_err(|error| RenderError(format!("flannel: cannot write JSON: {error}")))?;
    Ok(json
        .lines()
        .map(|line| format!("    {line}"))
        .collect::<Vec<_>>()
        .join("\n"))
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

#[derive(Serialize)]
struct FlannelPlugin {
    #[serde(rename = "type")]
    kind: &'static str,
    delegate: Delegate,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Delegate {
    hairpin_mode: bool,
    is_default_gateway: bool,
}

#[derive(Serialize)]
struct PortmapPlugin {
    #[serde(rename = "type")]
    kind: &'static str,
    capabilities: PortmapCapabilities,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PortmapCapabilities {
    port_mappings: bool,
}

/// What `kube-flannel.yml.j2` formats.
#[derive(Serialize)]
struct Manifest {
    flavour_line: String,
    notes: Vec<String>,
    namespace: &'static str,
    namespace_object: bool,
    k8s_app_labels: bool,
    psp: bool,
    psp_host_paths: Vec<&'static str>,
    rbac_api_version: &'static str,
    node_verbs: Vec<&'static str>,
    cni_conf: String,
    net_conf: String,
    daemonsets: Vec<DaemonSet>,
    os_label: &'static str,
    arch_label: &'static str,
    priority_class: bool,
    cni_plugin_image: Option<&'static str>,
    install_conf: bool,
    limits: bool,
    capabilities: Vec<&'static str>,
    event_queue_depth: bool,
    cont_when_cache_not_ready: bool,
    healthz: bool,
    xtables_lock: bool,
}

#[derive(Serialize)]
struct DaemonSet {
    name: String,
    arch: Option<&'static str>,
    image: String,
}

#[derive(Serialize)]
struct PatchCommand {
    message: String,
    name: String,
    namespace: &'static str,
    file: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::render::Secrets;
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
        let secrets = Secrets::default();
        let input = Input {
            spec: &spec,
            plan: &plan,
            secrets: &secrets,
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
        assert_eq!(
            str_of(role, &["apiVersion"]),
            "rbac.authorization.k8s.io/v1"
        );
        let expected: Vec<(String, String)> = LEGACY_ARCHES
            .iter()
            .map(|arch| (format!("kube-flannel-ds-{arch}"), "kube-system".into()))
            .collect();
        assert_eq!(daemonsets(&docs), expected);
        for (ds, arch) in of_kind(&docs, "DaemonSet").into_iter().zip(LEGACY_ARCHES) {
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
        let mut expected: Vec<(String, String, String)> = LEGACY_ARCHES
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
    fn between_flavour_images_follow_the_registry_moves() {
        let cases = [
            ("v0.15.1", "quay.io/coreos/flannel:v0.15.1"),
            ("v0.16.3", "rancher/mirrored-flannelcni-flannel:v0.16.3"),
            ("v0.18.1", "rancher/mirrored-flannelcni-flannel:v0.18.1"),
        ];
        for (version, image) in cases {
            let artifacts = render_yaml(&spec_yaml("1.20.0", &vxlan(Some(version)), true));
            let docs = documents(artifact(&artifacts, MANIFEST_PATH));
            let ds = of_kind(&docs, "DaemonSet")[0];
            assert_eq!(str_of(containers(ds, "containers")[0], &["image"]), image);
            let init = containers(ds, "initContainers");
            assert_eq!(init.len(), 2);
            assert_eq!(str_of(init[0], &["name"]), "install-cni-plugin");
            assert_eq!(
                str_of(init[0], &["image"]),
                "rancher/mirrored-flannelcni-flannel-cni-plugin:v1.2"
            );
        }
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
        assert_eq!(config_json(&docs, "cni-conf.json")["name"], "vxlan0");
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

    #[test]
    fn current_flavour_images_follow_the_registry_moves() {
        let cases = [
            (
                "v0.19.2",
                "rancher/mirrored-flannelcni-flannel:v0.19.2",
                "rancher/mirrored-flannelcni-flannel-cni-plugin:v1.2",
            ),
            (
                "v0.22.0",
                "docker.io/flannel/flannel:v0.22.0",
                "docker.io/flannel/flannel-cni-plugin:v1.1.2",
            ),
            (
                "v0.26.1",
                "docker.io/flannel/flannel:v0.26.1",
                "docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2",
            ),
            (
                "v0.27.0",
                "ghcr.io/flannel-io/flannel:v0.27.0",
                "ghcr.io/flannel-io/flannel-cni-plugin:v1.7.1-flannel1",
            ),
            (
                "v0.28.0-rc1",
                "ghcr.io/flannel-io/flannel:v0.28.0-rc1",
                "ghcr.io/flannel-io/flannel-cni-plugin:v1.7.1-flannel1",
            ),
        ];
        for (version, image, plugin) in cases {
            let artifacts = render_yaml(&spec_yaml("1.30.2", &vxlan(Some(version)), true));
            let docs = documents(artifact(&artifacts, MANIFEST_PATH));
            assert_eq!(daemonsets(&docs)[0].1, "kube-flannel");
            let ds = of_kind(&docs, "DaemonSet")[0];
            let init = containers(ds, "initContainers");
            assert_eq!(str_of(init[0], &["image"]), plugin, "{version}");
            assert_eq!(str_of(init[1], &["image"]), image, "{version}");
            assert_eq!(str_of(&init[1]["command"][0], &[]), "cp", "{version}");
            assert_eq!(str_of(containers(ds, "containers")[0], &["image"]), image);
        }
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
        let secrets = Secrets::default();
        let input = Input {
            spec: &spec,
            plan: &plan,
            secrets: &secrets,
        };
        assert!(render(&input).is_err());
    }
}

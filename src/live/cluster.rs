//! The captured objects read into what the checks compare: nodes (their OS, pod subnet, address,
//! Windows build and flannel annotations), the flannel, kubeadm, kube-proxy and kubelet
//! configuration, the DaemonSets' OS constraints, and pods. Each value keeps where it was read.
//! ConfigMap values are text: `net-conf.json` is JSON, kubeadm's, kube-proxy's and the kubelet's
//! configuration YAML, so each is parsed a second time.

use super::Object;
use crate::load::{self, CAPTURE};
use crate::plan::Plan;
use crate::plan::distribution::LiveConfiguration;
use crate::plan::version::WindowsBuild;
use crate::source::SourceFile;
use ipnet::Ipv4Net;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// flannel's annotation prefix unless flanneld runs with `--kube-annotation-prefix`
/// (flannel-io/flannel `pkg/subnet/kube/annotations.go`).
pub const DEFAULT_ANNOTATION_PREFIX: &str = "flannel.alpha.coreos.com";

/// A value read from the cluster, with where it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Live<T> {
    pub value: T,
    /// `nodes.json, Node win-0, \`status.podCIDR\``.
    pub source: String,
}

#[derive(Debug, Clone)]
pub struct LiveNode {
    pub name: String,
    pub source: String,
    pub os: Option<Live<String>>,
    pub pod_cidr: Live<Option<String>>,
    pub internal_ip: Option<Live<String>>,
    pub kernel_version: Option<Live<String>>,
    pub kubelet_version: Option<Live<String>>,
    /// `status.nodeInfo.containerRuntimeVersion`: `containerd://1.7.20`.
    pub runtime_version: Option<Live<String>>,
    /// The flannel annotations (`backend-type`, `backend-data`, `public-ip`, ...), by their name
    /// without the prefix.
    pub flannel: BTreeMap<String, Live<String>>,
    /// k3s and RKE2 record each node's flags (`server --cluster-cidr ...`, `agent ...`), those of
    /// its config file included, in an annotation (k3s-io/k3s `pkg/nodeconfig/nodeconfig.go`).
    pub node_args: Option<Live<Vec<String>>>,
    /// Whether they are RKE2's (`rke2.io/node-args`) rather than k3s's.
    pub node_args_rke2: bool,
    /// The taints that keep pods off for good: transient ones (not ready, unreachable, ...) are
    /// left out, since they come and go and DaemonSets tolerate them.
    pub taints: Vec<Taint>,
}

/// A node taint that repels pods (`NoSchedule` or `NoExecute`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taint {
    pub key: String,
    pub value: String,
    pub effect: String,
}

/// Taints the node lifecycle and cloud controllers set and lift on their own; DaemonSet pods
/// tolerate the node-condition ones (Kubernetes "Taints and Tolerations", "Taint based
/// evictions"; `node.cloudprovider.kubernetes.io/uninitialized` until the cloud controller runs).
const TRANSIENT_TAINTS: [&str; 10] = [
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/pid-pressure",
    "node.kubernetes.io/out-of-service",
    "node.cloudprovider.kubernetes.io/uninitialized",
    "node.cloudprovider.kubernetes.io/shutdown",
];

/// A pod toleration, as the scheduler matches it against a taint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toleration {
    /// Empty with `Exists`: every taint.
    pub key: String,
    /// `Equal` (the default) or `Exists`.
    pub operator: String,
    pub value: String,
    /// Empty: every effect.
    pub effect: String,
}

impl Toleration {
    fn tolerates(&self, taint: &Taint) -> bool {
        let effect = self.effect.is_empty() || self.effect == taint.effect;
        let key = self.key.is_empty() && self.operator == "Exists" || self.key == taint.key;
        let value = self.operator == "Exists" || self.value == taint.value;
        effect && key && value
    }
}

/// flannel's `net-conf.json`, as flanneld reads it.
#[derive(Debug, Clone)]
pub struct NetConf {
    pub network: Option<Live<String>>,
    pub backend_type: Option<Live<String>>,
    pub vni: Option<Live<u64>>,
    pub port: Option<Live<u64>>,
    /// Where `net-conf.json` was read, for the settings it leaves unset.
    pub source: String,
}

/// A document inside a ConfigMap value, parsed.
#[derive(Debug, Clone)]
pub struct Embedded {
    pub value: Value,
    /// Where the ConfigMap value was read: file and object.
    pub file: String,
    pub object: String,
    /// The field that holds it: `data[config.conf]`, `spec.valuesContent`.
    pub key: String,
}

impl Embedded {
    /// A field of the embedded document, with its source.
    pub fn field(&self, pointer: &str) -> Option<Live<&Value>> {
        let value = self.value.at(pointer)?;
        Some(Live {
            value,
            source: format!(
                "{}, {}, `{}` → `{}`",
                self.file,
                self.object,
                self.key,
                field_path(pointer)
            ),
        })
    }
}

/// Which operating systems a DaemonSet can schedule onto.
#[derive(Debug, Clone)]
pub struct LiveDaemonSet {
    pub namespace: String,
    pub name: String,
    pub source: String,
    /// `linux` and/or `windows`; both when nothing constrains the OS.
    pub schedulable_on: BTreeSet<String>,
    pub tolerations: Vec<Toleration>,
    pub misscheduled: u64,
    /// The pod template's container images, in order (init containers left out): only the image
    /// of each, since the rest of a container (its environment) may hold secrets.
    pub images: Vec<Live<String>>,
}

impl LiveDaemonSet {
    /// Whether the node's taints let this DaemonSet's pods run there.
    pub fn tolerates(&self, node: &LiveNode) -> bool {
        node.taints.iter().all(|taint| self.tolerates_taint(taint))
    }

    /// Whether one of this DaemonSet's tolerations matches the taint.
    pub fn tolerates_taint(&self, taint: &Taint) -> bool {
        self.tolerations.iter().any(|t| t.tolerates(taint))
    }
}

#[derive(Debug, Clone)]
pub struct LivePod {
    pub label: String,
    pub node: String,
    pub ip: String,
    pub source: String,
}

/// What the captures say about the cluster.
#[derive(Debug, Default)]
pub struct LiveCluster {
    pub nodes: Vec<LiveNode>,
    pub net_conf: Option<Result<NetConf, Live<String>>>,
    pub cluster_configuration: Option<Result<Embedded, Live<String>>>,
    pub kube_proxy: Option<Result<Embedded, Live<String>>>,
    pub kubelet: Option<Result<Embedded, Live<String>>>,
    pub daemonsets: Vec<LiveDaemonSet>,
    pub pods: Vec<LivePod>,
    /// The flags of a k3s or RKE2 server (its nodes' `node-args` annotation starting `server`):
    /// its ranges, which it keeps in no ConfigMap.
    pub server_args: Option<Live<Vec<String>>>,
    /// Whether `server_args` are an RKE2 server's.
    pub server_args_rke2: bool,
    /// The HelmCharts captured (RKE2 deploys its CNI as one: `rke2-flannel`, `rke2-canal`, ...).
    pub helm_charts: Vec<Live<String>>,
    /// The values of the `rke2-flannel` HelmChartConfig, or why they cannot be read.
    pub rke2_flannel_values: Option<Result<Embedded, Live<String>>>,
    /// Whether the nodes came from a node list, so that a planned node not among them is not in
    /// the cluster; single captured nodes say nothing of the others.
    pub all_nodes: bool,
    /// What was compared and what was absent, for the report.
    pub notes: Vec<String>,
    /// Values of a type or shape nothing can compare (a number where a range belongs, garbage for
    /// a Windows build): each is a finding in its capture, never a comparison skipped in silence.
    pub unreadable: Vec<Unreadable>,
    /// Whether any Pod was captured, host-network ones included (`pods` keeps the others).
    pub captured_pods: bool,
}

/// A captured value that cannot be compared: which file, object and field, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub file: String,
    /// The JSON Pointer of the field in its capture file.
    pub pointer: String,
    pub message: String,
}

/// The JSON type of a value, as a message names it.
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Records a field whose value is present but of the wrong type or shape.
fn unreadable(
    problems: &mut Vec<Unreadable>,
    object: &Object,
    pointer: &str,
    found: &Value,
    expected: &str,
) {
    let shown = match found {
        Value::String(text) => format!("`{}`", crate::escape::bounded(text, 80)),
        other => type_name(other).to_string(),
    };
    problems.push(Unreadable {
        file: object.file.clone(),
        pointer: format!("{}{pointer}", object.pointer),
        message: format!(
            "{} holds {shown} in `{}`, where {expected} belongs: it is not compared",
            object.label(),
            field_path(pointer)
        ),
    });
}

/// A field that must be text when present: the text, or `None` with the problem recorded.
fn checked_text<'a>(
    object: &'a Object,
    pointer: &str,
    problems: &mut Vec<Unreadable>,
) -> Option<&'a str> {
    // The API server leaves an empty field out; a `null` is no value kubectl prints either.
    let value = object.value.at(pointer)?;
    let text = value.as_str();
    if text.is_none() {
        unreadable(problems, object, pointer, value, "text");
    }
    text
}

fn checked_live_text(
    object: &Object,
    pointer: &str,
    problems: &mut Vec<Unreadable>,
) -> Option<Live<String>> {
    let value = checked_text(object, pointer, problems)?;
    Some(Live {
        value: value.to_string(),
        source: object.source(&field_path(pointer)),
    })
}

/// `Value::pointer` without its allocations: it unescapes every token into a new string, which
/// at thousands of nodes was most of `verify`'s time. Tokens are unescaped only when they hold `~`.
trait At {
    fn at(&self, pointer: &str) -> Option<&Value>;
}

impl At for Value {
    fn at(&self, pointer: &str) -> Option<&Value> {
        let mut value = self;
        for token in pointer.split('/').skip(1) {
            let token = unescape(token);
            value = match value {
                Value::Object(map) => map.get(token.as_ref())?,
                Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(value)
    }
}

/// A JSON Pointer token's key: `~1` is `/`, `~0` is `~`.
fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

fn text<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value.at(pointer).and_then(Value::as_str)
}

/// A JSON Pointer as the field path people read: `/metadata/labels/kubernetes.io~1os` is
/// `metadata.labels[kubernetes.io/os]`, a key holding `.` or `/` in brackets.
fn field_path(pointer: &str) -> String {
    let mut path = String::new();
    for segment in pointer.split('/').skip(1) {
        let key = unescape(segment);
        if key.contains(['.', '/']) {
            path.push_str(&format!("[{key}]"));
        } else {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(&key);
        }
    }
    path
}

/// The ConfigMaps, DaemonSets and pods `verify` reads, found by kind, namespace and name.
pub fn read(objects: &[Object], plan: &Plan, annotation_prefix: Option<&str>) -> LiveCluster {
    let mut cluster = LiveCluster::default();
    let nodes: Vec<&Object> = objects.iter().filter(|o| o.kind == "Node").collect();
    let prefix = annotation_prefix
        .map(|prefix| prefix.trim_end_matches('/').to_string())
        .unwrap_or_else(|| detect_prefix(&nodes));
    cluster.nodes = nodes
        .iter()
        .map(|node| read_node(node, &prefix, &mut cluster.unreadable))
        .collect();
    cluster.all_nodes = nodes.iter().any(|node| node.listed);
    if !nodes.is_empty() && !cluster.all_nodes {
        cluster.notes.push("the captures hold single Node objects, not the node list (`kubectl get nodes`): planned nodes they lack are not reported".into());
    }
    if !nodes.is_empty() && cluster.nodes.iter().all(|node| node.flannel.is_empty()) {
        cluster.notes.push(format!(
            "no node has flannel annotations under `{prefix}/`: the nodes' flannel backends, VNIs and addresses are not compared"
        ));
    }
    cluster.server_args = server_args(&cluster.nodes, &mut cluster.notes);
    cluster.server_args_rke2 = cluster.nodes.iter().any(|node| {
        node.node_args_rke2
            && node
                .node_args
                .as_ref()
                .is_some_and(|args| args.value.first().is_some_and(|first| first == "server"))
    });
    cluster.helm_charts = objects
        .iter()
        .filter(|o| o.kind == "HelmChart")
        .map(|o| Live {
            value: o.name.clone(),
            source: format!("{}, {}", o.file, o.label()),
        })
        .collect();
    cluster.rke2_flannel_values = objects
        .iter()
        .find(|o| {
            o.kind == "HelmChartConfig"
                && o.name == "rke2-flannel"
                && o.namespace.as_deref() == Some("kube-system")
        })
        .map(|object| embedded_at(object, "/spec/valuesContent", "spec.valuesContent"));
    let flannel_namespace = plan.flannel.namespace();
    let config_map = |name: &str, namespaces: &[&str]| {
        namespaces.iter().find_map(|namespace| {
            objects.iter().find(|o| {
                o.kind == "ConfigMap"
                    && o.name == name
                    && o.namespace.as_deref() == Some(*namespace)
            })
        })
    };
    // flannel's ConfigMap lives in kube-flannel from v0.19, in kube-system before; a cluster
    // upgraded across that may hold either.
    let flannel = config_map(
        "kube-flannel-cfg",
        &[flannel_namespace, "kube-flannel", "kube-system"],
    );
    cluster.net_conf = flannel.map(|object| net_conf(object, &mut cluster.unreadable));
    note(
        &mut cluster.notes,
        flannel,
        "flannel's ConfigMap kube-flannel-cfg",
        "net-conf.json is not compared",
    );
    // What is missing is said only where the distribution keeps it.
    let configuration = plan.distribution.live_configuration;
    let mut kubeadm_note = |found: Option<&Object>, what: &str, consequence: &str| {
        if configuration == LiveConfiguration::KubeadmConfigMaps {
            note(&mut cluster.notes, found, what, consequence);
        }
    };
    let kubeadm = config_map("kubeadm-config", &["kube-system"]);
    cluster.cluster_configuration = kubeadm.map(|object| embedded(object, "ClusterConfiguration"));
    kubeadm_note(
        kubeadm,
        "kubeadm's ConfigMap kubeadm-config",
        "the kubeadm settings are not compared (k3s, RKE2 and managed clusters have none)",
    );
    let proxy = config_map("kube-proxy", &["kube-system"]);
    cluster.kube_proxy = proxy.map(|object| embedded(object, "config.conf"));
    kubeadm_note(
        proxy,
        "kube-proxy's ConfigMap",
        "kube-proxy's clusterCIDR is not compared",
    );
    let kubelet = objects.iter().find(|o| {
        o.kind == "ConfigMap"
            && o.namespace.as_deref() == Some("kube-system")
            && (o.name == "kubelet-config" || o.name.starts_with("kubelet-config-1."))
    });
    cluster.kubelet = kubelet.map(|object| embedded(object, "kubelet"));
    kubeadm_note(
        kubelet,
        "the kubelet's ConfigMap",
        "the kubelet's clusterDNS is not compared",
    );
    if configuration == LiveConfiguration::HelmCharts {
        if cluster.helm_charts.is_empty() {
            cluster.notes.push(
                "no HelmChart was captured: RKE2's CNI is read from the server's `node-args`"
                    .into(),
            );
        } else if cluster.rke2_flannel_values.is_none() {
            cluster.notes.push("no HelmChartConfig rke2-flannel was captured: the rke2-flannel chart runs with the defaults of the cluster's release".into());
        }
    }
    cluster.daemonsets = objects
        .iter()
        .filter(|o| o.kind == "DaemonSet")
        .map(read_daemonset)
        .collect();
    cluster.captured_pods = objects.iter().any(|o| o.kind == "Pod");
    cluster.pods = objects
        .iter()
        .filter(|o| o.kind == "Pod")
        .filter_map(read_pod)
        .collect();
    if cluster.nodes.is_empty() {
        cluster
            .notes
            .push("no Node was captured: nodes are not compared".into());
    }
    if cluster.daemonsets.is_empty() {
        cluster
            .notes
            .push("no DaemonSet was captured: their placement is not compared".into());
    }
    if !cluster.captured_pods {
        cluster.notes.push(
            "no Pod was captured: pod addresses are not compared with their nodes' subnets".into(),
        );
    } else if cluster.pods.is_empty() {
        cluster.notes.push(
            "no captured pod has an address on the pod network: pod addresses are not compared"
                .into(),
        );
    }
    cluster
}

/// The flags of the first k3s or RKE2 server node; agents' flags hold no cluster ranges.
fn server_args(nodes: &[LiveNode], notes: &mut Vec<String>) -> Option<Live<Vec<String>>> {
    let recorded: Vec<&Live<Vec<String>>> = nodes
        .iter()
        .filter_map(|node| node.node_args.as_ref())
        .collect();
    let server = recorded
        .iter()
        .find(|args| args.value.first().is_some_and(|first| first == "server"));
    if server.is_none() && !recorded.is_empty() {
        notes.push("the nodes' `node-args` annotations are all agents': the server's ranges are not compared".into());
    }
    server.map(|args| (*args).clone())
}

fn note(notes: &mut Vec<String>, found: Option<&Object>, what: &str, consequence: &str) {
    if found.is_none() {
        notes.push(format!("{what} was not captured: {consequence}"));
    }
}

/// The annotation prefix the nodes' flannel annotations use: the default when any node has it,
/// else the one found before `/backend-data` (a flanneld run with `--kube-annotation-prefix`).
fn detect_prefix(nodes: &[&Object]) -> String {
    let prefixes: BTreeSet<String> = nodes
        .iter()
        .filter_map(|node| node.value.at("/metadata/annotations")?.as_object())
        .flat_map(|annotations| annotations.keys())
        .filter_map(|key| key.strip_suffix("/backend-data"))
        .map(str::to_string)
        .collect();
    if prefixes.is_empty() || prefixes.contains(DEFAULT_ANNOTATION_PREFIX) {
        DEFAULT_ANNOTATION_PREFIX.to_string()
    } else {
        prefixes.into_iter().next().unwrap_or_default()
    }
}

fn read_node(node: &Object, prefix: &str, problems: &mut Vec<Unreadable>) -> LiveNode {
    let os = checked_live_text(node, "/metadata/labels/kubernetes.io~1os", problems)
        .or_else(|| checked_live_text(node, "/metadata/labels/beta.kubernetes.io~1os", problems))
        .or_else(|| checked_live_text(node, "/status/nodeInfo/operatingSystem", problems));
    let internal_ip = internal_ip(node, problems);
    let annotations = match node.value.at("/metadata/annotations") {
        Some(Value::Object(annotations)) => Some(annotations),
        None => None,
        Some(other) => {
            unreadable(problems, node, "/metadata/annotations", other, "a mapping");
            None
        }
    };
    let mut flannel = BTreeMap::new();
    let mut node_args = None;
    let mut node_args_rke2 = false;
    for (key, value) in annotations.into_iter().flatten() {
        let flannel_name = key
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('/'));
        let node_args_key = key == "k3s.io/node-args" || key == "rke2.io/node-args";
        if flannel_name.is_none() && !node_args_key {
            continue;
        }
        let pointer = format!("/metadata/annotations/{}", load::escape_pointer_token(key));
        let Some(text) = value.as_str() else {
            unreadable(
                problems,
                node,
                &pointer,
                value,
                "text (annotations are strings)",
            );
            continue;
        };
        let source = node.source(&format!("metadata.annotations[{key}]"));
        if let Some(name) = flannel_name {
            let value = text.to_string();
            let source = source.clone();
            flannel.insert(name.to_string(), Live { value, source });
        }
        if node_args_key {
            match serde_json::from_str::<Vec<String>>(text) {
                Ok(value) => {
                    node_args = Some(Live { value, source });
                    node_args_rke2 = key.starts_with("rke2");
                }
                Err(_) => unreadable(problems, node, &pointer, value, "a JSON list of flags"),
            }
        }
    }
    let windows = os
        .as_ref()
        .is_some_and(|os| os.value.eq_ignore_ascii_case("windows"));
    let kernel_version = checked_live_text(node, "/status/nodeInfo/kernelVersion", problems);
    if let Some(kernel) = kernel_version.as_ref().filter(|_| windows) {
        let build = kernel
            .value
            .strip_prefix("10.0.")
            .and_then(WindowsBuild::parse);
        if build.is_none() {
            let found = Value::String(kernel.value.clone());
            let pointer = "/status/nodeInfo/kernelVersion";
            unreadable(
                problems,
                node,
                pointer,
                &found,
                "a Windows build `10.0.BUILD.REVISION`",
            );
        }
    }
    let pod_cidr = checked_text(node, "/spec/podCIDR", problems).filter(|cidr| !cidr.is_empty());
    if let Some(cidr) = pod_cidr.filter(|cidr| cidr.parse::<Ipv4Net>().is_err()) {
        let found = Value::String(cidr.to_string());
        unreadable(problems, node, "/spec/podCIDR", &found, "an IPv4 range");
    }
    LiveNode {
        name: node.name.clone(),
        source: format!("{}, {}", node.file, node.label()),
        os,
        pod_cidr: Live {
            value: pod_cidr
                .filter(|cidr| cidr.parse::<Ipv4Net>().is_ok())
                .map(str::to_string),
            source: node.source("spec.podCIDR"),
        },
        internal_ip,
        kernel_version,
        kubelet_version: checked_live_text(node, "/status/nodeInfo/kubeletVersion", problems),
        runtime_version: checked_live_text(
            node,
            "/status/nodeInfo/containerRuntimeVersion",
            problems,
        ),
        flannel,
        node_args,
        node_args_rke2,
        taints: read_taints(&node.value),
    }
}

/// The node's `InternalIP` from `status.addresses`, a list of `{type, address}`.
fn internal_ip(node: &Object, problems: &mut Vec<Unreadable>) -> Option<Live<String>> {
    let addresses = match node.value.at("/status/addresses")? {
        Value::Array(addresses) => addresses,
        other => {
            unreadable(
                problems,
                node,
                "/status/addresses",
                other,
                "a list of addresses",
            );
            return None;
        }
    };
    let index = addresses
        .iter()
        .position(|address| address.get("type").and_then(Value::as_str) == Some("InternalIP"))?;
    let address = checked_text(
        node,
        &format!("/status/addresses/{index}/address"),
        problems,
    )?;
    Some(Live {
        value: address.to_string(),
        source: node.source("status.addresses[type=InternalIP].address"),
    })
}

/// A text field, empty when absent or not text.
fn field(value: &Value, pointer: &str) -> String {
    text(value, pointer).unwrap_or_default().to_string()
}

fn read_taints(node: &Value) -> Vec<Taint> {
    node.at("/spec/taints")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|taint| Taint {
            key: field(taint, "/key"),
            value: field(taint, "/value"),
            effect: field(taint, "/effect"),
        })
        .filter(|taint| matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute"))
        .filter(|taint| !TRANSIENT_TAINTS.contains(&taint.key.as_str()))
        .collect()
}

fn read_tolerations(pod: &Value) -> Vec<Toleration> {
    pod.get("tolerations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|toleration| Toleration {
            key: field(toleration, "/key"),
            operator: Some(field(toleration, "/operator"))
                .filter(|operator| !operator.is_empty())
                .unwrap_or_else(|| "Equal".into()),
            value: field(toleration, "/value"),
            effect: field(toleration, "/effect"),
        })
        .collect()
}

/// `net-conf.json` of flannel's ConfigMap, or why it cannot be read.
fn net_conf(object: &Object, problems: &mut Vec<Unreadable>) -> Result<NetConf, Live<String>> {
    let source = |field: &str| object.source(&format!("data[net-conf.json] → {field}"));
    let Some(text) = text(&object.value, "/data/net-conf.json") else {
        return Err(Live {
            value: "the ConfigMap has no `net-conf.json`".into(),
            source: object.source("data"),
        });
    };
    let value: Value = serde_json::from_str(text).map_err(|error| Live {
        value: format!("`net-conf.json` is not JSON: {error}"),
        source: object.source("data[net-conf.json]"),
    })?;
    // A field of the wrong type is a finding of its own, never a setting taken as unset.
    let mut wrong = |pointer: &str, found: &Value, expected: &str| {
        let message = format!(
            "{} holds {} in `data[net-conf.json]` → `{}`, where {expected} belongs: it is not compared",
            object.label(),
            match found {
                Value::String(text) => format!("`{}`", crate::escape::bounded(text, 80)),
                other => type_name(other).to_string(),
            },
            field_path(pointer).trim_start_matches('.'),
        );
        problems.push(Unreadable {
            file: object.file.clone(),
            pointer: format!("{}/data/net-conf.json", object.pointer),
            message,
        });
    };
    let mut text_field = |pointer: &str, name: &str| match value.at(pointer) {
        None => None,
        Some(Value::String(found)) => Some(Live {
            value: found.to_string(),
            source: source(name),
        }),
        Some(other) => {
            wrong(pointer, other, "text");
            None
        }
    };
    let network = text_field("/Network", "Network");
    let backend_type = text_field("/Backend/Type", "Backend.Type");
    let mut number = |pointer: &str, name: &str| match value.at(pointer) {
        None => None,
        Some(found) => match found.as_u64() {
            Some(number) => Some(Live {
                value: number,
                source: source(name),
            }),
            None => {
                wrong(pointer, found, "a whole number");
                None
            }
        },
    };
    let vni = number("/Backend/VNI", "Backend.VNI");
    let port = number("/Backend/Port", "Backend.Port");
    Ok(NetConf {
        network,
        backend_type,
        vni,
        port,
        source: object.source("data[net-conf.json]"),
    })
}

/// A YAML (or JSON) document held in a ConfigMap value, parsed.
fn embedded(object: &Object, key: &str) -> Result<Embedded, Live<String>> {
    let pointer = format!("/data/{}", load::escape_pointer_token(key));
    embedded_at(object, &pointer, &format!("data[{key}]"))
}

/// A YAML (or JSON) document held in a string field of an object (`field` as people read it),
/// parsed.
fn embedded_at(object: &Object, pointer: &str, field: &str) -> Result<Embedded, Live<String>> {
    let Some(text) = text(&object.value, pointer) else {
        return Err(Live {
            value: format!("the {} has no `{field}`", object.kind),
            source: object.source(field),
        });
    };
    let source = SourceFile::new(format!("{}#{field}", object.file), text);
    let document = load::load_within(&source, &CAPTURE).map_err(|error| Live {
        value: format!("`{field}` is not YAML: {}", error.message),
        source: object.source(field),
    })?;
    Ok(Embedded {
        value: document.value,
        file: object.file.clone(),
        object: object.label(),
        key: field.to_string(),
    })
}

/// The image of each container of a pod template that names one, with where it was read.
fn read_images(object: &Object, pod: &Value) -> Vec<Live<String>> {
    let containers = pod.get("containers").and_then(Value::as_array);
    containers
        .into_iter()
        .flatten()
        .filter_map(|container| {
            let image = container.get("image")?.as_str()?;
            let name = container.get("name").and_then(Value::as_str).unwrap_or("");
            Some(Live {
                value: image.to_string(),
                source: object.source(&format!("spec.template.spec.containers[{name}].image")),
            })
        })
        .collect()
}

/// The operating systems a pod template's node selector and required node affinity allow.
fn read_daemonset(object: &Object) -> LiveDaemonSet {
    let pod = object
        .value
        .at("/spec/template/spec")
        .cloned()
        .unwrap_or(Value::Null);
    let all: BTreeSet<String> = ["linux", "windows"].map(String::from).into();
    let mut allowed = all.clone();
    for label in ["kubernetes.io/os", "beta.kubernetes.io/os"] {
        if let Some(os) = pod
            .get("nodeSelector")
            .and_then(|selector| selector.get(label))
            .and_then(Value::as_str)
        {
            allowed.retain(|allowed| allowed == &os.to_ascii_lowercase());
        }
    }
    let terms = pod
        .at("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms")
        .and_then(Value::as_array);
    if let Some(terms) = terms.filter(|terms| !terms.is_empty()) {
        // Terms are alternatives; the expressions of one term all apply.
        let by_terms: BTreeSet<String> = terms
            .iter()
            .flat_map(|term| term_allows(term, &all))
            .collect();
        allowed.retain(|os| by_terms.contains(os));
    }
    LiveDaemonSet {
        namespace: object.namespace.clone().unwrap_or_default(),
        name: object.name.clone(),
        source: format!("{}, {}", object.file, object.label()),
        schedulable_on: allowed,
        tolerations: read_tolerations(&pod),
        misscheduled: object
            .value
            .at("/status/numberMisscheduled")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        images: read_images(object, &pod),
    }
}

fn term_allows(term: &Value, all: &BTreeSet<String>) -> BTreeSet<String> {
    let mut allowed = all.clone();
    for expression in term
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = expression.get("key").and_then(Value::as_str);
        if !matches!(
            key,
            Some("kubernetes.io/os") | Some("beta.kubernetes.io/os")
        ) {
            continue;
        }
        let values: BTreeSet<String> = expression
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_ascii_lowercase)
            .collect();
        match expression.get("operator").and_then(Value::as_str) {
            Some("In") => allowed.retain(|os| values.contains(os)),
            Some("NotIn") => allowed.retain(|os| !values.contains(os)),
            Some("DoesNotExist") => allowed.clear(),
            _ => {}
        }
    }
    allowed
}

/// A pod with its own address on the pod network (not `hostNetwork`), running on a node.
fn read_pod(object: &Object) -> Option<LivePod> {
    let host_network = object
        .value
        .at("/spec/hostNetwork")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let node = text(&object.value, "/spec/nodeName")?;
    let ip = text(&object.value, "/status/podIP").filter(|ip| !ip.is_empty())?;
    (!host_network).then(|| LivePod {
        label: object.label(),
        node: node.to_string(),
        ip: ip.to_string(),
        source: object.source("status.podIP"),
    })
}

#[cfg(test)]
mod tests {
    use super::{At, field_path};

    #[test]
    fn at_finds_what_value_pointer_finds() {
        let value = serde_json::json!({"a/b": {"c~d": [1, {"e": "f"}]}, "": 2});
        for pointer in [
            "",
            "/a~1b",
            "/a~1b/c~0d/1/e",
            "/a~1b/c~0d/0",
            "/a~1b/c~0d/9",
            "/x",
            "/",
            "/a~1b/c~0d/-",
        ] {
            assert_eq!(value.at(pointer), value.pointer(pointer), "{pointer}");
        }
    }

    #[test]
    fn field_paths_read_as_people_write_them() {
        assert_eq!(field_path("/status/podCIDR"), "status.podCIDR");
        assert_eq!(
            field_path("/metadata/labels/kubernetes.io~1os"),
            "metadata.labels[kubernetes.io/os]"
        );
        assert_eq!(field_path("/data/net-conf.json"), "data[net-conf.json]");
        assert_eq!(field_path("/a~0b/c"), "a~0b.c".replace("~0", "~"));
    }
}

//! The cluster spec, v1: the typed model users write (see `schemas/hybridgen.schema.json`).
//! Field names are the public contract. Addresses and versions stay strings here, exactly as
//! written, so that the plan can parse them once and the rules can say what is wrong with them.

pub mod names;
pub mod secret_fields;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A hybrid Linux + Windows Kubernetes cluster on flannel: its IP plan, network, Windows settings,
/// cloud and nodes.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "hybridgen cluster spec")]
pub struct Spec {
    /// The spec format version. `hybridgen/v1` is the only one so far.
    #[schemars(example = &"hybridgen/v1")]
    pub api_version: String,
    /// The kind of document: always `Cluster`.
    #[schemars(example = &"Cluster")]
    pub kind: String,
    pub metadata: Metadata,
    pub kubernetes: Kubernetes,
    pub network: Network,
    pub flannel: Flannel,
    /// Settings shared by every Windows node. Required when any node runs Windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<Windows>,
    /// The cloud the nodes live on, and what its route tables need.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud: Option<Cloud>,
    /// RKE2 settings (`kubernetes.distribution: rke2`): the join token and the address agents join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rke2: Option<Rke2>,
    /// A Rancher v2 custom cluster (with `kubernetes.distribution: rke2`): render the Rancher
    /// `Cluster` object, its Terraform, and each node's registration command instead of the
    /// standalone RKE2 files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rancher: Option<Rancher>,
    /// Every node of the cluster, in the order their pod subnets are assigned.
    #[schemars(length(min = 1))]
    pub nodes: Vec<Node>,
}

/// Identifies the cluster.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Metadata {
    /// The cluster name: a DNS-1123 label (lower-case letters, digits and `-`, at most 63).
    #[schemars(example = &"hybrid-demo")]
    pub name: String,
}

/// The Kubernetes release and cluster DNS domain.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Kubernetes {
    /// The Kubernetes release, `MAJOR.MINOR.PATCH` with an optional leading `v`. Quote it when it
    /// could read as a number. Drives version-aware rules and output flavours.
    #[schemars(example = &"1.16.2")]
    pub version: String,
    /// The cluster DNS domain (a DNS-1123 subdomain).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "cluster.local"), example = &"cluster.local")]
    pub dns_domain: Option<String>,
    /// Who installs Kubernetes, which decides the files `render` writes: `kubeadm` (default),
    /// `rke2` (RKE2, standalone or through Rancher), or `rke` (RKE1, Rancher before 2.12; end of
    /// life since 31 July 2025).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "kubeadm"), example = &"rke2")]
    pub distribution: Option<Distribution>,
}

/// Who installs Kubernetes on the nodes.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    /// kubeadm, with the flannel manifest and the Windows node setup hybridgen renders.
    #[default]
    Kubeadm,
    /// RKE2: its own flannel chart (`cni: flannel`), Windows agents run by the RKE2 service.
    Rke2,
    /// RKE1, the Rancher Kubernetes Engine before RKE2: end of life since 31 July 2025.
    Rke,
}

impl Distribution {
    pub fn as_str(self) -> &'static str {
        match self {
            Distribution::Kubeadm => "kubeadm",
            Distribution::Rke2 => "rke2",
            Distribution::Rke => "rke",
        }
    }
}

/// RKE2 settings.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rke2 {
    /// The join token servers and agents share: a reference `{fromEnv: NAME}`, never the value.
    /// Default: the variable `RKE2_TOKEN`, which `install.sh` / `install.ps1` read on the node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &serde_json::json!({"fromEnv": "RKE2_TOKEN"}))]
    pub token: Option<Secret>,
    /// The address agents and joining servers reach the first server at
    /// (`https://<server>:9345`): a server's address, or a load balancer's. Default: the first
    /// Linux `controlplane` node's address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"192.168.10.10")]
    pub server: Option<String>,
    /// More `config.yaml` keys for every node, servers and agents (e.g.
    /// `{kubelet-arg: ["image-gc-high-threshold=85"]}`): keys the RKE2 agent reads. With
    /// `rancher:`, Rancher passes on only the keys its version data lists (HG607).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &serde_json::json!({"kubelet-arg": ["image-gc-high-threshold=85"]}))]
    pub config: Option<ConfigKeys>,
    /// More `config.yaml` keys for the servers only (e.g. `{write-kubeconfig-mode: "0640"}`). With
    /// `rancher:`, Rancher passes on only the keys its version data lists (HG607): it sets
    /// `etcd-snapshot-retention` from its own `spec.rkeConfig.etcd.snapshotRetention`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &serde_json::json!({"write-kubeconfig-mode": "0640"}))]
    pub server_config: Option<ConfigKeys>,
}

/// Keys passed on to a distribution's config file as written.
pub type ConfigKeys = std::collections::BTreeMap<String, ConfigValue>;

/// A value passed on to a config file as written: a string, number or boolean, or a list of them
/// (RKE2's `config.yaml` holds its command-line flags, and a flag takes nothing else).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ConfigValue(pub serde_json::Value);

/// The newtype name [`ConfigValue`] asks a deserializer for: the strict typing of the short path
/// (`schema::strict`) hands the value over whole under this name, lists included.
pub const CONFIG_VALUE: &str = "hybridgen::ConfigValue";

impl ConfigValue {
    fn is_scalar(value: &serde_json::Value) -> bool {
        value.is_string() || value.is_number() || value.is_boolean()
    }

    fn fits(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Array(items) => items.iter().all(Self::is_scalar),
            value => Self::is_scalar(value),
        }
    }
}

impl<'de> Deserialize<'de> for ConfigValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Whole;
        impl<'de> serde::de::Visitor<'de> for Whole {
            type Value = ConfigValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string, number or boolean, or a list of them")
            }
            fn visit_newtype_struct<D: serde::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<ConfigValue, D::Error> {
                let value = serde_json::Value::deserialize(deserializer)?;
                if ConfigValue::fits(&value) {
                    Ok(ConfigValue(value))
                } else {
                    Err(serde::de::Error::custom(
                        "a string, number or boolean, or a list of them",
                    ))
                }
            }
        }
        deserializer.deserialize_newtype_struct(CONFIG_VALUE, Whole)
    }
}

impl JsonSchema for ConfigValue {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ConfigValue".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let scalar = serde_json::json!({"type": ["string", "number", "boolean"]});
        schemars::json_schema!({
            "description": "A value passed on to a config file as written: a string, number or boolean, or a list of them.",
            "anyOf": [scalar.clone(), {"type": "array", "items": scalar}],
        })
    }
}

/// A Rancher v2 custom cluster (`provisioning.cattle.io/v1`).
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rancher {
    /// The Rancher server URL nodes register with (`https://`).
    #[schemars(example = &"https://rancher.example.com")]
    pub url: String,
    /// The Rancher release, `MAJOR.MINOR.PATCH`: checks what it supports and pins the Terraform
    /// provider line (`rancher/rancher2` 14.x for Rancher 2.14). Default: 2.14.4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"2.14.4")]
    pub version: Option<String>,
}

/// The IP plan: pod network, service network, cluster DNS, per-node pod subnets and the underlay.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Network {
    /// The pod network (IPv4 CIDR): flannel's `Network` and kubeadm's `podSubnet`.
    #[schemars(example = &"10.244.0.0/16")]
    pub cluster_cidr: String,
    /// The Service network (IPv4 CIDR), between /12 and /28.
    #[schemars(example = &"10.96.0.0/12")]
    pub service_cidr: String,
    /// The cluster DNS Service address. Default: the 10th address of `serviceCidr`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"10.96.0.10")]
    pub dns_service_ip: Option<String>,
    /// The prefix length of each node's pod subnet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 24))]
    #[schemars(example = 24)]
    pub node_cidr_mask_size: Option<u8>,
    /// The most pods a node runs (kubelet `maxPods`), at least 1: with 0 not even flannel's and
    /// kube-proxy's DaemonSet pods start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 110))]
    #[schemars(example = 110)]
    pub max_pods_per_node: Option<std::num::NonZeroU32>,
    /// The underlay networks the nodes live in (VPC subnets, VLANs), as IPv4 CIDRs. Used for overlap
    /// checks and host-gw adjacency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = vec!["192.168.10.0/24"])]
    pub host_subnets: Option<Vec<String>>,
    /// Who gives each node its pod subnet. `controller` (default): kube-controller-manager, in the
    /// order nodes register, so a subnet the spec does not pin is a prediction; routes written from
    /// predictions send a subnet to the wrong node when nodes join in another order (render them
    /// from the cluster with `hybridgen render --kubectl`). `hybridgen`: every node's subnet is the
    /// plan's, and `render` writes what makes the cluster use it (docs/routes.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "controller"), example = &"hybridgen")]
    pub pod_cidrs: Option<PodCidrs>,
}

/// Who gives each node its pod subnet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PodCidrs {
    /// kube-controller-manager (`--allocate-node-cidrs`), in the order nodes register.
    #[default]
    Controller,
    /// The plan: the controller's allocation is turned off and each node's subnet is set from the
    /// plan as it registers.
    Hybridgen,
}

impl PodCidrs {
    pub fn as_str(self) -> &'static str {
        match self {
            PodCidrs::Controller => "controller",
            PodCidrs::Hybridgen => "hybridgen",
        }
    }
}

/// The flannel release and backend.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Flannel {
    /// The flannel release (image tag), e.g. `v0.11.0`. Selects the manifest flavour.
    /// Default: the newest release hybridgen knows, v0.28.9 (on RKE2: the release's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"v0.11.0")]
    pub version: Option<String>,
    /// The flannel backend: `vxlan` (overlay) or `host-gw` (l2bridge on Windows).
    #[schemars(example = &"vxlan")]
    pub backend: Backend,
    /// vxlan: the VXLAN network identifier. Default 4096 when any node runs Windows, else 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 4096)]
    pub vni: Option<u32>,
    /// vxlan: the UDP port. Default 4789 when any node runs Windows, else 8472.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = 4789)]
    pub port: Option<u16>,
    /// vxlan: route directly between nodes on the same subnet. Default false; unsupported on Windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false))]
    #[schemars(example = false)]
    pub direct_routing: Option<bool>,
    /// vxlan on Windows: the MAC prefix, two hex bytes joined by `-`. Default `0E-2A`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"0E-2A")]
    pub mac_prefix: Option<String>,
    /// The Windows HNS network name. Default with KubeCluster.ps1 (Kubernetes before 1.24):
    /// `vxlan0` (vxlan) or `cbr0` (host-gw); with the wins DaemonSets and on the HostProcess path:
    /// the name flannel gives it, `flannel.<vni>` (vxlan) or `cbr0` (host-gw), the only name the
    /// wins DaemonSets take. Set on the HostProcess path, it is written to
    /// `net-conf.json` as `Backend.Name` so that flanneld, the CNI config and kube-proxy agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"vxlan0")]
    pub network_name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum Backend {
    #[serde(rename = "vxlan")]
    Vxlan,
    #[serde(rename = "host-gw")]
    HostGw,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Vxlan => "vxlan",
            Backend::HostGw => "host-gw",
        }
    }
}

/// Settings shared by every Windows node.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Windows {
    /// The default Windows build of the nodes: `10.0.BUILD.REVISION` or `BUILD.REVISION`. Quote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"10.0.17763.379")]
    pub build: Option<String>,
    /// The container runtime on the Windows nodes. Default: `dockerd` with Kubernetes before 1.24
    /// (the KubeCluster.ps1 and wins setups), `containerd` on the HostProcess path (Kubernetes 1.24 and later,
    /// where dockershim is gone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"containerd")]
    pub runtime: Option<Runtime>,
    /// containerd on the Windows nodes (the HostProcess path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containerd: Option<Containerd>,
    /// The Windows node setup before Kubernetes 1.24, while the kubelet has dockershim:
    /// `kubecluster` (default: sig-windows-tools' KubeCluster.ps1, HNS network `vxlan0`/`cbr0`) or
    /// `wins-daemonsets` (Kubernetes 1.18 to 1.23: flanneld and kube-proxy as DaemonSets through
    /// rancher/wins on dockerd, sig-windows-tools `kubeadm/`, HNS network `flannel.<vni>`/`cbr0`).
    /// From 1.24 the only setup is HostProcess (`windows.hostProcess`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"wins-daemonsets")]
    pub setup: Option<Setup>,
    /// How flanneld and kube-proxy run on the Windows nodes from Kubernetes 1.24: as HostProcess
    /// containers, from images built with the recipe `render` writes. Setting it with Kubernetes
    /// 1.23 also selects this path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_process: Option<HostProcess>,
    /// The default network adapter for the container network (a node may override it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"Ethernet")]
    pub interface_name: Option<String>,
    /// Where Kubernetes is installed on the Windows nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = r"C:\ProgramData\Kubernetes")]
    pub install_dir: Option<String>,
    /// Container images. Default: the images that match the nodes' build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Images>,
    /// How Windows nodes join the control plane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_plane: Option<ControlPlane>,
}

/// A Windows node setup the spec can declare (`windows.setup`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Setup {
    Kubecluster,
    WinsDaemonsets,
}

impl Setup {
    pub fn as_str(self) -> &'static str {
        match self {
            Setup::Kubecluster => "kubecluster",
            Setup::WinsDaemonsets => "wins-daemonsets",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    Dockerd,
    Containerd,
}

/// containerd on the Windows nodes.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Containerd {
    /// The containerd release the join script installs, `MAJOR.MINOR.PATCH`; HostProcess
    /// containers need 1.6. Default: the Kubernetes minor's, 1.7.34 through 1.29, 2.0.11 on 1.30
    /// to 1.34 and 2.3.4 from 1.35 (the kubelet no longer supports containerd 1.x from 1.36).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"1.7.34")]
    pub version: Option<String>,
}

/// Where the Windows flanneld and kube-proxy HostProcess images come from. No maintained public
/// images exist, so they are built with the recipe `render` writes and pushed to a registry of
/// yours.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HostProcess {
    /// The registry and path the images are pushed to; the image names and tags are added
    /// (`<registry>/flannel-windows:<flannel>-hostprocess`,
    /// `<registry>/kube-proxy-windows:v<kubernetes>-flannel-hostprocess`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"registry.example.com/k8s")]
    pub registry: Option<String>,
    /// Full image references, overriding the names built from `registry`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<HostProcessImages>,
    /// kube-proxy Direct Server Return. Default: on from Kubernetes 1.33, where the `WinDSR` gate
    /// is beta (on upstream by default), and off before, where it is alpha. `true` turns it on
    /// before 1.33 too, through the alpha gate; `false` keeps it off. It is on only when every
    /// Windows node's build has DSR (Windows Server 2019 from 10.0.17763.1554).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &false)]
    pub dsr: Option<bool>,
}

/// Full HostProcess image references.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HostProcessImages {
    /// The Windows flanneld image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"registry.example.com/k8s/flannel-windows:v0.28.9-hostprocess")]
    pub flannel: Option<String>,
    /// The Windows kube-proxy image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"registry.example.com/k8s/kube-proxy-windows:v1.33.4-flannel-hostprocess")]
    pub kube_proxy: Option<String>,
}

/// Windows container images; each must match the Windows build of the nodes it runs on.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Images {
    /// The pause (infrastructure) image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"mcr.microsoft.com/k8s/core/pause:1.2.0")]
    pub pause: Option<String>,
    /// The Nano Server base image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"mcr.microsoft.com/windows/nanoserver:1809")]
    pub nanoserver: Option<String>,
    /// The Server Core base image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"mcr.microsoft.com/windows/servercore:ltsc2019")]
    pub servercore: Option<String>,
}

/// The control-plane node Windows nodes join, and the join secrets.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ControlPlane {
    /// The control-plane address: where Windows nodes join, and the API endpoint Windows flanneld
    /// and kube-proxy use before the pod network exists. Default: the first controlplane node's
    /// address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"192.168.10.10")]
    pub address: Option<String>,
    /// The API server port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 6443))]
    #[schemars(example = 6443)]
    pub port: Option<u16>,
    /// The SSH user on the control-plane node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"localadmin")]
    pub username: Option<String>,
    /// The kubeadm bootstrap token: a reference `{fromEnv: NAME}`, never the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &serde_json::json!({"fromEnv": "KUBEADM_TOKEN"}))]
    pub kubeadm_token: Option<Secret>,
    /// The kubeadm discovery CA certificate hash: a reference `{fromEnv: NAME}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &serde_json::json!({"fromEnv": "KUBEADM_CA_HASH"}))]
    pub kubeadm_ca_hash: Option<Secret>,
}

/// A secret: a reference to the environment variable the node-side script reads when it runs
/// (its name starts with `HYBRIDGEN_`, `KUBEADM_` or `RKE2_`). A literal string is accepted but
/// warned about (HG005) and never rendered: a committed spec should not hold a secret.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Secret {
    FromEnv(EnvReference),
    Inline(String),
}

/// Names the environment variable that holds a secret.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnvReference {
    /// The environment variable's name.
    #[schemars(example = &"KUBEADM_TOKEN")]
    pub from_env: String,
}

/// The cloud the nodes live on.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Cloud {
    /// `none` (bare metal, VMs, one L2 network), `aws`, `gce` or `azure`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "none"))]
    #[schemars(example = &"aws")]
    pub provider: Option<Provider>,
    /// AWS: the route table that carries pod routes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aws: Option<Aws>,
    /// GCE: the project and network that carry pod routes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gce: Option<Gce>,
    /// Azure: the route table that carries pod routes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub azure: Option<Azure>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    None,
    Aws,
    Gce,
    Azure,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::None => "none",
            Provider::Aws => "aws",
            Provider::Gce => "gce",
            Provider::Azure => "azure",
        }
    }
}

/// AWS settings.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Aws {
    /// The AWS region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"us-east-1")]
    pub region: Option<String>,
    /// The VPC route table that receives one route per node pod subnet: `rtb-` and 8 or 17
    /// lower-case hex digits (HG406).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"rtb-0a1b2c3d")]
    pub route_table_id: Option<String>,
}

/// GCE settings.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Gce {
    /// The GCP project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"my-project")]
    pub project: Option<String>,
    /// The VPC network that receives one route per node pod subnet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"default")]
    pub network: Option<String>,
}

/// Azure settings.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Azure {
    /// The resource group holding the route table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"hybrid-rg")]
    pub resource_group: Option<String>,
    /// The route table that receives one route per node pod subnet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"hybrid-pods")]
    pub route_table_name: Option<String>,
    /// The Azure region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"eastus2")]
    pub location: Option<String>,
}

/// One node of the cluster.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Node {
    /// The node name: a DNS-1123 subdomain (labels joined by dots, as clouds register nodes) of
    /// at most 63 characters, unique in the cluster.
    #[schemars(example = &"win-0")]
    pub name: String,
    /// The node's operating system.
    #[schemars(example = &"windows")]
    pub os: Os,
    /// What the node runs. Windows nodes are workers only.
    #[schemars(length(min = 1))]
    #[schemars(example = &["worker"])]
    pub roles: Vec<Role>,
    /// The node's routable (internal) IPv4 address, unique in the cluster.
    #[schemars(example = &"192.168.10.30")]
    pub address: String,
    /// Pins the node's pod subnet. Default: the next free subnet of `clusterCidr`, in node order.
    /// Enforced only with `network.podCidrs: hybridgen`; kube-controller-manager ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"10.244.7.0/24")]
    pub pod_cidr: Option<String>,
    /// Windows: this node's build, overriding `windows.build`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"10.0.17763.379")]
    pub windows_build: Option<String>,
    /// Windows: this node's container network adapter, overriding `windows.interfaceName`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"Ethernet 2")]
    pub interface_name: Option<String>,
    /// What the cloud's route tables need to name this node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cloud: Option<NodeCloud>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    Linux,
    Windows,
}

impl Os {
    pub fn as_str(self) -> &'static str {
        match self {
            Os::Linux => "linux",
            Os::Windows => "windows",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Controlplane,
    Etcd,
    Worker,
}

/// The node's identity in its cloud.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeCloud {
    /// AWS: the instance a route targets, and whose source/destination check is turned off:
    /// `i-` and 8 or 17 lower-case hex digits (HG406).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"i-0a1b2c3d4e5f60718")]
    pub instance_id: Option<String>,
    /// GCE: the instance's zone (`--next-hop-instance-zone`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"us-central1-a")]
    pub zone: Option<String>,
    /// Azure: the NIC on which IP forwarding is enabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"win-0-nic")]
    pub nic: Option<String>,
}

impl Spec {
    /// Whether `windows.containerd.version` is written (else the Kubernetes row's default
    /// applies, and findings about it point at `kubernetes.version`).
    pub fn windows_containerd_written(&self) -> bool {
        self.windows
            .as_ref()
            .and_then(|windows| windows.containerd.as_ref())
            .is_some_and(|containerd| containerd.version.is_some())
    }

    pub fn has_windows_nodes(&self) -> bool {
        self.nodes.iter().any(|node| node.os == Os::Windows)
    }

    /// `kubernetes.distribution`, or its default.
    pub fn distribution(&self) -> Distribution {
        self.kubernetes.distribution.unwrap_or_default()
    }

    pub fn provider(&self) -> Provider {
        self.cloud
            .as_ref()
            .and_then(|cloud| cloud.provider)
            .unwrap_or(Provider::None)
    }
}

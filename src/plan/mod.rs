//! The resolved plan: every default applied, every address and version parsed once, each node's
//! pod subnet assigned, and the routes between nodes. Pure computation; the rules and the
//! renderer both read these numbers, so what is checked is what is deployed.

pub mod address;
pub mod cloud;
pub mod distribution;
pub mod downloads;
pub mod flannel_release;
pub mod pins;
pub mod releases;
pub mod rke2;
pub mod rke2_keys;
pub mod subnets;
pub mod version;
pub mod windows_image;

pub use address::{InputError, Problem};

pub use crate::spec::PodCidrs;
use crate::spec::{Backend, Os, Provider, Role, Runtime, Setup, Spec};
use ipnet::Ipv4Net;
use std::net::Ipv4Addr;
pub use version::release_tag;
use version::{Release, WindowsBuild};

/// A value parsed from the spec, or why it could not be.
pub type Parsed<T> = Result<T, InputError>;

/// The VXLAN network identifier of flannel on Windows: flanneld's default there and the lowest it
/// accepts (flannel-io/flannel `pkg/backend/vxlan/vxlan_windows.go`, `defaultVNI`; Kubernetes
/// documentation, "Networking in Windows": "VNI must be set to 4096").
pub const WINDOWS_VXLAN_VNI: u32 = 4096;
/// The UDP port of VXLAN on Windows, the only one its networking stack speaks (`vxlan_windows.go`,
/// `vxlanPort`; the IANA-assigned VXLAN port, RFC 7348 section 5).
pub const WINDOWS_VXLAN_PORT: u16 = 4789;
/// flanneld's VXLAN defaults on Linux: VNI 1 and the kernel's historical port 8472
/// (flannel-io/flannel `pkg/backend/vxlan/vxlan.go`).
const LINUX_VXLAN_DEFAULTS: (u32, u16) = (1, 8472);

/// The flannel release used when the spec names none: the newest of the release table.
pub fn default_flannel_version() -> String {
    flannel_release::newest().tag()
}
pub const DEFAULT_DNS_DOMAIN: &str = "cluster.local";
pub const DEFAULT_NODE_MASK: u8 = 24;
pub const DEFAULT_MAX_PODS: u32 = 110;
/// kubeadm creates the cluster DNS Service at the 10th address of the Service network.
pub const DNS_SERVICE_INDEX: u64 = 10;

#[derive(Debug, Clone)]
pub struct Plan {
    /// What the distribution (`kubernetes.distribution`) does itself.
    pub distribution: &'static distribution::Traits,
    pub kubernetes_version: Parsed<Release>,
    /// The Kubernetes minor's row in the release table (`None` when the version does not parse).
    pub kubernetes_release: Option<releases::kubernetes::Resolved>,
    pub dns_domain: String,
    pub cluster_cidr: Parsed<Ipv4Net>,
    pub service_cidr: Parsed<Ipv4Net>,
    /// The cluster DNS address: as written, else the 10th address of the Service network.
    pub dns_service_ip: Option<Parsed<Ipv4Addr>>,
    pub node_mask: u8,
    pub max_pods: u32,
    pub host_subnets: Vec<Parsed<Ipv4Net>>,
    /// Who gives each node its pod subnet (`network.podCidrs`).
    pub pod_cidrs: PodCidrs,
    pub flannel: FlannelPlan,
    pub windows: Option<WindowsPlan>,
    /// How the Windows nodes are set up; `None` without Windows nodes or a Kubernetes version.
    pub windows_setup: Option<WindowsSetup>,
    pub nodes: Vec<NodePlan>,
    pub routes: Vec<Route>,
    /// The RKE2 release, servers and join address (`distribution: rke2` only).
    pub rke2: Option<rke2::Rke2Plan>,
}

/// How the Windows nodes are set up with kubeadm: decided once here, read by the rules and the
/// renderers. Other distributions join Windows nodes their own way ([`distribution::WindowsJoin`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowsSetup {
    /// sig-windows-tools' KubeCluster.ps1 with dockerd (`Kubecluster*.json`): Kubernetes before
    /// 1.24.
    KubeCluster,
    /// flanneld and kube-proxy as DaemonSets on dockerd, run on the host through rancher/wins,
    /// `kubeadm join` per node (sig-windows-tools `kubeadm/flannel/flannel-overlay.yml`,
    /// `kubeadm/kube-proxy/kube-proxy.yml`, `kubeadm/scripts/PrepareNode.ps1`, 2020-02 to
    /// 2023-04): Kubernetes 1.18 to 1.23 when `windows.setup: wins-daemonsets` is written.
    WinsDaemonSets,
    /// containerd, flanneld and kube-proxy as HostProcess DaemonSets, `kubeadm join` per node:
    /// Kubernetes 1.24 and later (dockershim is gone), or earlier when `windows.hostProcess` is
    /// written.
    HostProcess,
}

#[derive(Debug, Clone)]
pub struct FlannelPlan {
    pub version: Parsed<Release>,
    /// The release's row in the release table (`None` when the version does not parse).
    pub release: Option<flannel_release::Resolved>,
    pub backend: Backend,
    pub vni: u32,
    pub port: u16,
    pub direct_routing: bool,
    pub mac_prefix: String,
    pub network_name: String,
    /// What `net-conf.json` carries as `Backend.Name` and `Backend.MacPrefix`: on the HostProcess
    /// path the Windows flanneld reads the shared net-conf, so the Windows settings the spec
    /// writes must be in it.
    pub windows_backend: WindowsBackendConf,
    /// Where a distribution that ships flannel deploys it; `None`: where the release's manifest does.
    pub distribution_namespace: Option<&'static str>,
}

impl FlannelPlan {
    /// The namespace flannel runs in: the distribution's, else the release manifest's
    /// (`kube-system` before v0.19).
    pub fn namespace(&self) -> &'static str {
        self.distribution_namespace.unwrap_or_else(|| {
            self.release
                .as_ref()
                .map_or("kube-flannel", |release| release.row.layout.namespace())
        })
    }
}

/// Windows-only keys of the shared `net-conf.json` Backend.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowsBackendConf {
    pub name: Option<String>,
    pub mac_prefix: Option<String>,
}

#[derive(Debug, Clone)]
pub struct WindowsPlan {
    /// The shared default build (`windows.build`), when written.
    pub build: Option<Parsed<WindowsBuild>>,
    pub runtime: Runtime,
    pub interface_name: String,
    pub install_dir: String,
    pub control_plane_address: Option<Parsed<Ipv4Addr>>,
    /// The API server port (`windows.controlPlane.port`).
    pub api_server_port: u16,
    /// containerd on the nodes (HostProcess path): as written, else the Kubernetes minor's default
    /// (a column of [`releases::kubernetes`]).
    pub containerd_version: Parsed<Release>,
    /// The line of `containerd_version` in the release table (`None` when it does not parse).
    pub containerd_line: Option<releases::containerd::Resolved>,
    /// The HostProcess images: written in full, else built from `windows.hostProcess.registry`;
    /// `None` when neither says (HG312).
    pub flannel_image: Option<String>,
    pub kube_proxy_image: Option<String>,
    /// kube-proxy Direct Server Return on the HostProcess path: on only when every Windows node's
    /// build is known to have it (a column of [`releases::windows`]: Windows Server 2019 from
    /// 10.0.17763.1554, KB4580390, or later), and when `windows.hostProcess.dsr` asks for it or,
    /// unset, when the minor's `WinDSR` gate is on by default (beta from 1.33): an alpha gate is
    /// never switched on unasked (kubernetes/website `feature-gates/WinDSR.md`; DSR broke
    /// pod-to-pod traffic on some Windows Server 2022 l2bridge builds, kubernetes/website#31759).
    pub dsr: bool,
}

#[derive(Debug, Clone)]
pub struct NodePlan {
    pub name: String,
    pub os: Os,
    pub roles: Vec<Role>,
    pub address: Parsed<Ipv4Addr>,
    /// The pinned `podCidr`, when the spec gives one.
    pub pinned: Option<Parsed<Ipv4Net>>,
    /// The node's pod subnet: pinned, or assigned; `None` when the cluster network is exhausted.
    pub pod_subnet: Option<Ipv4Net>,
    /// Where `pod_subnet` comes from, which says how far routes written from it hold.
    pub subnet_source: SubnetSource,
    /// Pod addresses the node can hand out: the subnet less network, broadcast and gateway, and on
    /// Windows also the host endpoint (l2bridge) or source VIP (overlay).
    pub usable_pod_addresses: u64,
    /// Boxed: three nodes in four are Linux, and an unboxed slot would be 160 bytes on each of
    /// them (10 MB at 65,536 nodes).
    pub windows: Option<Box<NodeWindows>>,
}

#[derive(Debug, Clone)]
pub struct NodeWindows {
    pub build: Option<Parsed<WindowsBuild>>,
    /// The JSON Pointer of the build's declaration: the node's own override or `/windows/build`.
    pub build_pointer: String,
    pub interface_name: String,
    pub images: Images,
}

/// The container images of one Windows node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Images {
    pub pause: String,
    pub nanoserver: String,
    pub servercore: String,
}

/// Where a node's pod subnet comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubnetSource {
    /// `podCidrs: controller` without a pin: kube-controller-manager hands out subnets in the order
    /// nodes register (kubernetes/kubernetes `pkg/controller/nodeipam/ipam/range_allocator.go`), so
    /// this is the subnet the node gets only if the nodes register in spec order.
    Predicted,
    /// `podCidrs: hybridgen` without a pin: the plan assigns it, and `render` writes what sets it.
    Assigned,
    /// The spec pins it (`podCidr`).
    Pinned,
    /// Read from the cluster: the node's `spec.podCIDR`.
    Live,
}

impl SubnetSource {
    pub fn as_str(self) -> &'static str {
        match self {
            SubnetSource::Predicted => "predicted",
            SubnetSource::Assigned => "assigned",
            SubnetSource::Pinned => "pinned",
            SubnetSource::Live => "live",
        }
    }
}

/// The route artifacts host-gw needs besides flannel: decided here, so that the rules (HG117) and
/// the renderer agree on when they are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExternalRoutes {
    /// The cloud's route table (`routes/<cloud>.sh`, `routes/<cloud>.tf.json`).
    Cloud(Provider),
    /// Static routes on each host, the nodes being on more than one network
    /// (`routes/hosts/<node>.sh` / `.ps1`).
    Hosts,
}

/// One pod route: traffic for `destination` goes to the node at `next_hop`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    pub destination: Ipv4Net,
    pub next_hop: Ipv4Addr,
    pub node: usize,
}

impl Plan {
    pub fn build(spec: &Spec) -> Plan {
        let network = &spec.network;
        let has_windows = spec.has_windows_nodes();
        let cluster_cidr = address::parse_cidr(&network.cluster_cidr);
        let service_cidr = address::parse_cidr(&network.service_cidr);
        let node_mask = network.node_cidr_mask_size.unwrap_or(DEFAULT_NODE_MASK);
        let dns_service_ip = match &network.dns_service_ip {
            Some(text) => Some(address::parse_ip(text)),
            None => service_cidr
                .as_ref()
                .ok()
                .and_then(|service| address::nth(service, DNS_SERVICE_INDEX))
                .map(Ok),
        };
        let kubernetes_version =
            parse_release(&spec.kubernetes.version, "Kubernetes version", "1.16.2");
        let kubernetes_release = kubernetes_version
            .as_ref()
            .ok()
            .map(releases::kubernetes::resolve);
        let distribution = distribution::traits(spec.distribution());
        let windows_setup = (distribution.windows_join == distribution::WindowsJoin::Kubeadm)
            .then(|| windows_setup(spec, kubernetes_release.as_ref(), has_windows))
            .flatten();
        let rke2 = (distribution.distribution == distribution::Distribution::Rke2)
            .then(|| rke2::plan(spec, kubernetes_version.as_ref().ok()));
        let pod_cidrs = network.pod_cidrs.unwrap_or_default();
        let nodes = plan_nodes(
            spec,
            cluster_cidr.as_ref().ok(),
            node_mask,
            pod_cidrs,
            windows_setup,
        );
        let routes = routes_of(&nodes);
        let flannel = plan_flannel(
            spec,
            distribution,
            rke2.as_ref(),
            has_windows,
            windows_setup,
        );
        let windows = plan_windows(
            spec,
            distribution,
            windows_setup,
            kubernetes_release.as_ref(),
            &nodes,
        );
        Plan {
            distribution,
            kubernetes_version,
            kubernetes_release,
            dns_domain: spec
                .kubernetes
                .dns_domain
                .clone()
                .unwrap_or_else(|| DEFAULT_DNS_DOMAIN.into()),
            cluster_cidr,
            service_cidr,
            dns_service_ip,
            node_mask,
            max_pods: network
                .max_pods_per_node
                .map_or(DEFAULT_MAX_PODS, std::num::NonZeroU32::get),
            host_subnets: network
                .host_subnets
                .iter()
                .flatten()
                .map(|text| address::parse_cidr(text))
                .collect(),
            pod_cidrs,
            flannel,
            windows,
            windows_setup,
            nodes,
            routes,
            rke2,
        }
    }

    /// The plan with the subnets the cluster gave its joined nodes (`live`, one per node in spec
    /// order, `None` for a node not in the cluster or without a subnet). Nodes not joined keep
    /// their pin, or take the next subnet no joined node holds; the routes follow.
    pub fn with_live_subnets(&self, live: &[Option<Ipv4Net>]) -> Plan {
        let live_of = |index: usize| live.get(index).copied().flatten();
        let fixed: Vec<Option<Ipv4Net>> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(index, node)| live_of(index).or_else(|| pinned_subnet(&node.pinned)))
            .collect();
        let assigned = match &self.cluster_cidr {
            Ok(cluster) => subnets::assign(cluster, self.node_mask, &fixed),
            Err(_) => fixed,
        };
        let mut plan = self.clone();
        for (index, (node, subnet)) in plan.nodes.iter_mut().zip(assigned).enumerate() {
            if live_of(index).is_some() {
                node.subnet_source = SubnetSource::Live;
            }
            if !matches!(node.pinned, Some(Err(_))) {
                node.pod_subnet = subnet;
            }
            node.usable_pod_addresses = usable_pod_addresses(node.os, node.pod_subnet);
        }
        plan.routes = routes_of(&plan.nodes);
        plan
    }

    /// The route artifacts host-gw needs besides flannel on this `provider`, if any: vxlan, and
    /// host-gw with every node on one layer-2 network, leave pod routing to flannel.
    pub fn external_routes(&self, provider: Provider) -> Option<ExternalRoutes> {
        if self.flannel.backend != Backend::HostGw {
            return None;
        }
        match cloud::traits(provider) {
            Some(row) => Some(ExternalRoutes::Cloud(row.provider)),
            None => self
                .nodes_off_segment()
                .is_some_and(|(_, outside)| !outside.is_empty())
                .then_some(ExternalRoutes::Hosts),
        }
    }

    /// The nodes whose subnet is a prediction, by index.
    pub fn predicted_nodes(&self) -> Vec<usize> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| node.subnet_source == SubnetSource::Predicted)
            .map(|(index, _)| index)
            .collect()
    }

    pub fn has_windows(&self) -> bool {
        self.nodes.iter().any(|node| node.os == Os::Windows)
    }

    /// host-gw adjacency: the layer-2 network that holds the first node (the widest host subnet
    /// holding it, or its /24 when no host subnets are declared), and the nodes outside it.
    pub fn nodes_off_segment(&self) -> Option<(Ipv4Net, Vec<usize>)> {
        let addresses: Vec<(usize, Ipv4Addr)> = self
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(index, node)| Some((index, *node.address.as_ref().ok()?)))
            .collect();
        let (_, first) = addresses.first()?;
        let segment = if self.host_subnets.is_empty() {
            Ipv4Net::new(*first, 24).ok()?.trunc()
        } else {
            // The widest declared network holding the first node: the most generous reading.
            self.host_subnets
                .iter()
                .flatten()
                .filter(|subnet| subnet.contains(first))
                .min_by_key(|subnet| subnet.prefix_len())
                .copied()?
        };
        let outside = addresses
            .iter()
            .filter(|(_, address)| !segment.contains(address))
            .map(|(index, _)| *index)
            .collect();
        Some((segment, outside))
    }
}

fn parse_release(text: &str, what: &str, example: &str) -> Parsed<Release> {
    Release::parse(text).ok_or_else(|| {
        // `1.30` lacks only the patch: the minor's first release is one that exists.
        let first = format!("{text}.0");
        let (problem, example) = match Release::parse(&first) {
            Some(_) => (
                format!("`{text}` names a minor only: a {what} names its patch too"),
                first.as_str(),
            ),
            None => (format!("`{text}` is not a {what}"), example),
        };
        InputError::new(
            problem,
            format!("write it as `MAJOR.MINOR.PATCH` in quotes, e.g. `\"{example}\"`"),
        )
    })
}

/// KubeCluster.ps1 while the kubelet has dockershim (before 1.24), or the wins DaemonSets when
/// `windows.setup` declares them; HostProcess without dockershim, or earlier when the spec asks
/// for it with `windows.hostProcess` (HG311 says where that cannot work, HG330 where a declared
/// setup does not exist).
fn windows_setup(
    spec: &Spec,
    kubernetes: Option<&releases::kubernetes::Resolved>,
    has_windows: bool,
) -> Option<WindowsSetup> {
    let kubernetes = kubernetes.filter(|_| has_windows)?;
    let windows = spec.windows.as_ref();
    let asked = windows.is_some_and(|windows| windows.host_process.is_some());
    let declared = windows.and_then(|windows| windows.setup);
    Some(if !kubernetes.row.dockershim || asked {
        WindowsSetup::HostProcess
    } else if declared == Some(Setup::WinsDaemonsets) {
        WindowsSetup::WinsDaemonSets
    } else {
        WindowsSetup::KubeCluster
    })
}

/// The first Kubernetes minor of the wins DaemonSets: sig-windows-tools added them on 2020-02-07
/// (commit ea35456, "Adds flannel (overlay + l2bridge) and kube-proxy yml"), and the Kubernetes
/// docs' "Adding Windows nodes" guide of release 1.18 is the first to use them.
pub const WINS_DAEMONSETS_FIRST_MINOR: u32 = 18;

fn plan_flannel(
    spec: &Spec,
    distribution: &distribution::Traits,
    rke2: Option<&rke2::Rke2Plan>,
    has_windows: bool,
    setup: Option<WindowsSetup>,
) -> FlannelPlan {
    let flannel = &spec.flannel;
    let backend = flannel.backend;
    // A distribution that ships flannel may default otherwise.
    let (default_vni, default_port) = distribution.vxlan_defaults.unwrap_or(if has_windows {
        (WINDOWS_VXLAN_VNI, WINDOWS_VXLAN_PORT)
    } else {
        LINUX_VXLAN_DEFAULTS
    });
    let vni = flannel.vni.unwrap_or(default_vni);
    let host_process = setup == Some(WindowsSetup::HostProcess);
    // Both DaemonSet setups leave the HNS network to flanneld, which names it itself.
    let flannel_names_it = host_process || setup == Some(WindowsSetup::WinsDaemonSets);
    // On RKE2 the release decides flannel: the flanneld its Windows agents run, whose release
    // the Linux chart wraps too.
    let bundled = rke2
        .and_then(|rke2| rke2.release.as_ref().ok())
        .and_then(|release| release.flannel())
        .map(|bundled| format!("v{}", bundled.windows_flanneld));
    let default_version = default_flannel_version();
    let written = bundled
        .as_deref()
        .or(flannel.version.as_deref())
        .unwrap_or(&default_version);
    FlannelPlan {
        version: parse_release(written, "flannel version", "v0.11.0"),
        release: flannel_release::resolve(written),
        backend,
        vni,
        port: flannel.port.unwrap_or(default_port),
        direct_routing: flannel.direct_routing.unwrap_or(false),
        mac_prefix: flannel.mac_prefix.clone().unwrap_or_else(|| "0E-2A".into()),
        network_name: flannel.network_name.clone().unwrap_or_else(|| {
            if let Some(fixed) = distribution.windows_network {
                fixed.into()
            } else if flannel_names_it {
                flannel_network_name(backend, vni)
            } else {
                expected_network_name(backend).into()
            }
        }),
        windows_backend: WindowsBackendConf {
            name: flannel.network_name.clone().filter(|_| host_process),
            mac_prefix: flannel
                .mac_prefix
                .clone()
                .filter(|_| host_process && backend == Backend::Vxlan),
        },
        distribution_namespace: distribution.flannel_namespace,
    }
}

/// The flannel releases sig-windows-tools published `sigwindowstools/flannel:v<release>-nanoserver`
/// images of for the wins DaemonSets (`kubeadm/flannel/buildconfig.json`, last at commit
/// 98813c8, before the DaemonSets were removed in ee59f5d, kubernetes-sigs/sig-windows-tools#271).
pub const WINS_FLANNEL_RELEASES: [&str; 4] = ["v0.12.0", "v0.13.0", "v0.14.0", "v0.15.1"];

/// The Windows flanneld image of the wins DaemonSets for a flannel release tag, when
/// sig-windows-tools published one (the manifest list `build.ps1` pushes).
pub fn wins_flannel_image(tag: &str) -> Option<String> {
    WINS_FLANNEL_RELEASES
        .contains(&tag)
        .then(|| format!("sigwindowstools/flannel:{tag}-nanoserver"))
}

/// The Windows kube-proxy image of the wins DaemonSets: sig-windows-tools `kubeadm/kube-proxy/
/// build.ps1` pushes `sigwindowstools/kube-proxy:<tag>-nanoserver` for each kube-proxy tag of
/// registry.k8s.io, and `kube-proxy.yml` names it with the placeholder `VERSION`.
pub fn wins_kube_proxy_image(kubernetes: &version::Release) -> String {
    format!("sigwindowstools/kube-proxy:v{kubernetes}-nanoserver")
}

/// Why the wins flannel DaemonSet cannot hand the Windows nodes' adapter to flannel's `setup.exe`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinsAdapterProblem<'a> {
    /// The node at `node` (its index in `nodes`) names its own adapter: the DaemonSet is shared by
    /// every Windows node and passes one name, `windows.interfaceName` (`shared`).
    OwnAdapter {
        node: usize,
        name: &'a str,
        shared: &'a str,
    },
    /// `windows.interfaceName` is not one word of ASCII letters, digits, `-`, `_` and `.`: wins
    /// splits `--args` at every space (rancher/wins `cmd/cmds/flags/list_value.go`,
    /// `valueSeparator`), and the name sits in a double-quoted PowerShell string of `run.ps1`.
    NotOneWord(&'a str),
}

impl std::fmt::Display for WinsAdapterProblem<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::OwnAdapter { name, shared, .. } => write!(
                formatter,
                "this node's adapter `{name}` is not `{shared}` (`windows.interfaceName`), the one adapter the wins flannel DaemonSet passes to every Windows node"
            ),
            Self::NotOneWord(name) => write!(
                formatter,
                "adapter name `{name}` has characters other than ASCII letters, digits, `-`, `_` and `.`: wins passes it to flannel's setup.exe in `--args`, which it splits at spaces"
            ),
        }
    }
}

/// The adapter of a Windows node when neither the node nor `windows.interfaceName` names one:
/// the first wired adapter's name on Windows Server, and KubeCluster.ps1's own default
/// (sig-windows-tools `kubeadm/v1.16.0/Kubeclustervxlan.json`, `InterfaceName`).
pub const DEFAULT_INTERFACE_NAME: &str = "Ethernet";

/// Whether an adapter name may hold `c` when wins passes it on: an ASCII letter or digit, `-`,
/// `_` or `.` (no space, which splits `--args`, and nothing PowerShell quotes or expands).
pub fn wins_adapter_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_.".contains(c)
}

/// Every reason the wins flannel DaemonSet (`windows.setup: wins-daemonsets`) cannot take the
/// Windows nodes' adapter: sig-windows-tools' `kubeadm/flannel/flannel-overlay.yml` (commit
/// 1ab39f18) runs `wins cli process run --path /k/flannel/setup.exe --args "--mode=overlay
/// --interface=Ethernet"` on every node, one adapter name for all. HG332 reports them and the
/// renderer refuses them, so both read this one list.
pub fn wins_adapter_problems<'a>(
    windows: &'a WindowsPlan,
    nodes: &'a [NodePlan],
) -> Vec<WinsAdapterProblem<'a>> {
    let shared = windows.interface_name.as_str();
    let mut problems: Vec<_> = nodes
        .iter()
        .enumerate()
        .filter_map(|(node, plan)| {
            let name = plan.windows.as_ref()?.interface_name.as_str();
            (name != shared).then_some(WinsAdapterProblem::OwnAdapter { node, name, shared })
        })
        .collect();
    if shared.is_empty() || !shared.chars().all(wins_adapter_char) {
        problems.push(WinsAdapterProblem::NotOneWord(shared));
    }
    problems
}

/// The HNS network the Windows node setup (KubeCluster.ps1) creates and waits for.
pub fn expected_network_name(backend: Backend) -> &'static str {
    match backend {
        Backend::Vxlan => "vxlan0",
        Backend::HostGw => "cbr0",
    }
}

/// The HNS network flanneld on Windows creates when `Backend.Name` is unset: `flannel.<VNI>`
/// for vxlan, `cbr0` for host-gw (flannel `pkg/backend/vxlan/vxlan_windows.go`,
/// `pkg/backend/hostgw/hostgw_windows.go`).
pub fn flannel_network_name(backend: Backend, vni: u32) -> String {
    match backend {
        Backend::Vxlan => format!("flannel.{vni}"),
        Backend::HostGw => "cbr0".into(),
    }
}

fn plan_windows(
    spec: &Spec,
    distribution: &distribution::Traits,
    setup: Option<WindowsSetup>,
    kubernetes: Option<&releases::kubernetes::Resolved>,
    nodes: &[NodePlan],
) -> Option<WindowsPlan> {
    let windows = spec.windows.as_ref()?;
    let control_plane = windows.control_plane.as_ref();
    let control_plane_address = match control_plane.and_then(|cp| cp.address.as_deref()) {
        Some(text) => Some(address::parse_ip(text)),
        None => spec
            .nodes
            .iter()
            .find(|node| node.roles.contains(&Role::Controlplane))
            .map(|node| address::parse_ip(&node.address)),
    };
    // The RKE2 agent embeds containerd: `windows.runtime` does not choose anything there.
    let runtime = match windows.runtime {
        _ if distribution.windows_join == distribution::WindowsJoin::Rke2Agent => {
            Runtime::Containerd
        }
        Some(runtime) => runtime,
        None if setup == Some(WindowsSetup::HostProcess) => Runtime::Containerd,
        None => Runtime::Dockerd,
    };
    let written = windows.host_process.as_ref();
    let images = written.and_then(|hp| hp.images.as_ref());
    let registry = written
        .and_then(|hp| hp.registry.as_deref())
        .map(|registry| registry.trim_end_matches('/'));
    let flannel_image = images
        .and_then(|images| images.flannel.clone())
        .or_else(|| {
            let version = spec.flannel.version.clone();
            let tag = release_tag(&version.unwrap_or_else(default_flannel_version))?;
            Some(format!("{}/flannel-windows:{tag}-hostprocess", registry?))
        });
    let kube_proxy_image = images
        .and_then(|images| images.kube_proxy.clone())
        .or_else(|| {
            let tag = release_tag(&spec.kubernetes.version)?;
            Some(format!(
                "{}/kube-proxy-windows:{tag}-flannel-hostprocess",
                registry?
            ))
        });
    let default_containerd = kubernetes
        .map_or(releases::kubernetes::newest(), |resolved| resolved.row)
        .default_containerd
        .to_string();
    let containerd_version = parse_release(
        windows
            .containerd
            .as_ref()
            .and_then(|containerd| containerd.version.as_deref())
            .unwrap_or(&default_containerd),
        "containerd version",
        &default_containerd,
    );
    Some(WindowsPlan {
        build: windows.build.as_deref().map(parse_windows_build),
        runtime,
        interface_name: windows
            .interface_name
            .clone()
            .unwrap_or_else(|| DEFAULT_INTERFACE_NAME.into()),
        install_dir: windows
            .install_dir
            .clone()
            .unwrap_or_else(|| r"C:\ProgramData\Kubernetes".into()),
        control_plane_address,
        api_server_port: control_plane
            .and_then(|cp| cp.port)
            .unwrap_or(pins::API_SERVER_PORT),
        containerd_line: containerd_version
            .as_ref()
            .ok()
            .map(releases::containerd::resolve),
        containerd_version,
        flannel_image,
        kube_proxy_image,
        dsr: dsr_wanted(windows, kubernetes)
            && nodes
                .iter()
                .filter_map(|node| node.windows.as_ref())
                .all(|windows| {
                    matches!(&windows.build, Some(Ok(build))
                    if releases::windows::has(build, |row| row.dsr) == releases::windows::Has::Yes)
                }),
    })
}

/// Whether kube-proxy DSR is asked for: as `windows.hostProcess.dsr` says, else when the minor
/// has the `WinDSR` gate on by default (an unknown minor counts as the newest).
fn dsr_wanted(
    windows: &crate::spec::Windows,
    kubernetes: Option<&releases::kubernetes::Resolved>,
) -> bool {
    let asked = windows
        .host_process
        .as_ref()
        .and_then(|host_process| host_process.dsr);
    asked.unwrap_or_else(|| {
        let row = kubernetes.map_or(releases::kubernetes::newest(), |resolved| resolved.row);
        row.win_dsr != releases::kubernetes::Gate::Alpha
    })
}

fn parse_windows_build(text: &str) -> Parsed<WindowsBuild> {
    WindowsBuild::parse(text).ok_or_else(|| match releases::windows::named(text) {
        // `2022` or `ltsc2022`: the name of a release, whose build number is another.
        Some(row) => InputError::new(
            format!(
                "`{text}` names {}, not its build: {} is build {}, written `10.0.{}.REVISION`",
                row.name, row.name, row.build, row.build
            ),
            format!(
                "write the build with the revision your nodes run (`cmd /c ver` shows it), e.g. `\"{}\"`",
                releases::windows::with_needed_updates(row)
            ),
        ),
        None => InputError::new(
            format!("`{text}` is not a Windows build"),
            "write it as `10.0.BUILD.REVISION` in quotes, e.g. `\"10.0.17763.379\"`",
        ),
    })
}

/// A node's pinned subnet, when the pin parses.
fn pinned_subnet(pin: &Option<Parsed<Ipv4Net>>) -> Option<Ipv4Net> {
    pin.as_ref()?.as_ref().ok().copied()
}

/// Pod addresses a node can hand out: the subnet less network, broadcast and gateway, and on
/// Windows also the host endpoint (l2bridge) or source VIP (overlay).
fn usable_pod_addresses(os: Os, subnet: Option<Ipv4Net>) -> u64 {
    subnet.map_or(0, |subnet| {
        let reserved = if os == Os::Windows { 4 } else { 3 };
        address::size(&subnet).saturating_sub(reserved)
    })
}

/// One route per node with a subnet and an address, in node order.
fn routes_of(nodes: &[NodePlan]) -> Vec<Route> {
    nodes
        .iter()
        .enumerate()
        .filter_map(|(index, node)| {
            Some(Route {
                destination: node.pod_subnet?,
                next_hop: *node.address.as_ref().ok()?,
                node: index,
            })
        })
        .collect()
}

fn plan_nodes(
    spec: &Spec,
    cluster: Option<&Ipv4Net>,
    mask: u8,
    pod_cidrs: PodCidrs,
    setup: Option<WindowsSetup>,
) -> Vec<NodePlan> {
    let pinned: Vec<Option<Parsed<Ipv4Net>>> = spec
        .nodes
        .iter()
        .map(|node| node.pod_cidr.as_deref().map(address::parse_cidr))
        .collect();
    // An unparseable pin keeps its node out of the assignment: the node gets no subnet.
    let pins: Vec<Option<Ipv4Net>> = pinned.iter().map(pinned_subnet).collect();
    let assigned = match cluster {
        Some(cluster) => subnets::assign(cluster, mask, &pins),
        None => pins.clone(),
    };
    let plan_node = |index: usize| {
        let node = &spec.nodes[index];
        let pinned = pinned[index].clone();
        let pod_subnet = match &pinned {
            Some(Err(_)) => None,
            _ => assigned[index],
        };
        let subnet_source = match (&pinned, pod_cidrs) {
            (Some(_), _) => SubnetSource::Pinned,
            (None, PodCidrs::Controller) => SubnetSource::Predicted,
            (None, PodCidrs::Hybridgen) => SubnetSource::Assigned,
        };
        NodePlan {
            name: node.name.clone(),
            os: node.os,
            roles: node.roles.clone(),
            address: address::parse_ip(&node.address),
            pinned,
            pod_subnet,
            subnet_source,
            usable_pod_addresses: usable_pod_addresses(node.os, pod_subnet),
            windows: (node.os == Os::Windows).then(|| Box::new(node_windows(spec, index, setup))),
        }
    };
    (0..spec.nodes.len()).map(plan_node).collect()
}

fn node_windows(spec: &Spec, index: usize, setup: Option<WindowsSetup>) -> NodeWindows {
    let node = &spec.nodes[index];
    let shared = spec.windows.as_ref();
    let (text, build_pointer) = match (&node.windows_build, shared.and_then(|w| w.build.as_ref())) {
        (Some(own), _) => (Some(own), format!("/nodes/{index}/windowsBuild")),
        (None, shared_build) => (shared_build, "/windows/build".to_string()),
    };
    let build = text.map(|text| parse_windows_build(text));
    let defaults = default_images(
        build
            .as_ref()
            .and_then(|build| build.as_ref().ok())
            .map_or(17763, |build| build.build),
        setup,
    );
    let written = shared.and_then(|windows| windows.images.as_ref());
    let image = |read: fn(&crate::spec::Images) -> &Option<String>, default: String| {
        written
            .and_then(|images| read(images).clone())
            .unwrap_or(default)
    };
    let images = Images {
        pause: image(|images| &images.pause, defaults.pause),
        nanoserver: image(|images| &images.nanoserver, defaults.nanoserver),
        servercore: image(|images| &images.servercore, defaults.servercore),
    };
    NodeWindows {
        build,
        build_pointer,
        interface_name: node
            .interface_name
            .clone()
            .or_else(|| shared.and_then(|windows| windows.interface_name.clone()))
            .unwrap_or_else(|| DEFAULT_INTERFACE_NAME.into()),
        images,
    }
}

/// The images that match a build: Microsoft's tags for the base images (a column of
/// [`releases::windows`]; Windows Server 2022's for a build without its own), and a pause image
/// with a variant for it ([`windows_image::default_pause`]: the Windows Server 2019 one that
/// KubeCluster.ps1 pulls there, else the newest multi-arch pause known to run on the build).
pub fn default_images(build: u32, setup: Option<WindowsSetup>) -> Images {
    let base = releases::windows::row(build)
        .and_then(|row| row.images)
        .unwrap_or(releases::windows::BaseImages {
            nanoserver: "ltsc2022",
            servercore: "ltsc2022",
        });
    let pause = match setup {
        Some(WindowsSetup::WinsDaemonSets) => windows_image::WINS_PAUSE,
        _ => windows_image::default_pause(build, setup == Some(WindowsSetup::KubeCluster)),
    }
    .to_string();
    Images {
        pause,
        nanoserver: format!("mcr.microsoft.com/windows/nanoserver:{}", base.nanoserver),
        servercore: format!("mcr.microsoft.com/windows/servercore:{}", base.servercore),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(extra_network: &str, pin: &str) -> Plan {
        let yaml = format!(
            "apiVersion: hybridgen/v1
kind: Cluster
metadata: {{name: demo}}
kubernetes: {{version: \"1.30.2\"}}
network:
  clusterCidr: 10.244.0.0/16
  serviceCidr: 10.96.0.0/12
{extra_network}flannel: {{backend: host-gw}}
cloud: {{provider: gce}}
nodes:
  - {{name: a, os: linux, roles: [controlplane, etcd, worker], address: 192.168.10.10}}
  - {{name: b, os: linux, roles: [worker], address: 192.168.10.20{pin}}}
  - {{name: c, os: linux, roles: [worker], address: 192.168.10.30}}
"
        );
        Plan::build(&serde_yaml::from_str(&yaml).unwrap())
    }

    fn shown(plan: &Plan) -> Vec<String> {
        plan.nodes
            .iter()
            .map(|node| {
                format!(
                    "{} {} {}",
                    node.name,
                    node.pod_subnet.map_or("-".into(), |s| s.to_string()),
                    node.subnet_source.as_str()
                )
            })
            .collect()
    }

    fn net(text: &str) -> Option<Ipv4Net> {
        Some(text.parse().unwrap())
    }

    #[test]
    fn subnets_are_predicted_pinned_or_assigned_by_mode() {
        assert_eq!(
            shown(&plan("", ", podCidr: 10.244.7.0/24")),
            [
                "a 10.244.0.0/24 predicted",
                "b 10.244.7.0/24 pinned",
                "c 10.244.1.0/24 predicted"
            ]
        );
        let from_plan = plan("  podCidrs: hybridgen\n", "");
        assert_eq!(from_plan.pod_cidrs, PodCidrs::Hybridgen);
        assert!(from_plan.predicted_nodes().is_empty());
        assert_eq!(from_plan.nodes[2].subnet_source, SubnetSource::Assigned);
    }

    #[test]
    fn live_subnets_replace_predictions_and_the_rest_take_what_no_joined_node_holds() {
        let predicted = plan("", "");
        // c registered before b and took the subnet spec order predicts for b; b has not joined.
        let live = predicted.with_live_subnets(&[net("10.244.0.0/24"), None, net("10.244.1.0/24")]);
        assert_eq!(
            shown(&live),
            [
                "a 10.244.0.0/24 live",
                "b 10.244.2.0/24 predicted",
                "c 10.244.1.0/24 live"
            ]
        );
        assert_eq!(live.predicted_nodes(), [1]);
        let routes: Vec<String> = live
            .routes
            .iter()
            .map(|route| format!("{} {}", route.destination, route.next_hop))
            .collect();
        assert_eq!(
            routes,
            [
                "10.244.0.0/24 192.168.10.10",
                "10.244.2.0/24 192.168.10.20",
                "10.244.1.0/24 192.168.10.30"
            ]
        );
        assert_eq!(live.nodes[2].usable_pod_addresses, 253);
    }

    #[test]
    fn external_routes_only_for_host_gw_off_flannels_own_network() {
        let on_gce = plan("", "");
        assert_eq!(
            on_gce.external_routes(Provider::Gce),
            Some(ExternalRoutes::Cloud(Provider::Gce))
        );
        // One /24 for every node: flannel's host-gw routes them itself.
        assert_eq!(on_gce.external_routes(Provider::None), None);
        let mut vxlan = on_gce.clone();
        vxlan.flannel.backend = Backend::Vxlan;
        assert_eq!(vxlan.external_routes(Provider::Gce), None);
    }
}

//! The resolved plan: every default applied, every address and version parsed once, each node's
//! pod subnet assigned, and the routes between nodes. Pure computation; the rules and the
//! renderer both read these numbers, so what is checked is what is deployed.

pub mod address;
pub mod flannel_release;
pub mod subnets;
pub mod version;

pub use address::InputError;

use crate::spec::{Backend, Os, Role, Runtime, Spec};
use ipnet::Ipv4Net;
use std::net::Ipv4Addr;
use version::{Release, WindowsBuild};

/// A value parsed from the spec, or why it could not be.
pub type Parsed<T> = Result<T, InputError>;

/// The flannel release used when the spec names none (flannel-io/flannel's current release).
pub const DEFAULT_FLANNEL_VERSION: &str = "v0.28.9";
pub const DEFAULT_DNS_DOMAIN: &str = "cluster.local";
pub const DEFAULT_NODE_MASK: u8 = 24;
pub const DEFAULT_MAX_PODS: u32 = 110;
/// kubeadm creates the cluster DNS Service at the 10th address of the Service network.
pub const DNS_SERVICE_INDEX: u64 = 10;

#[derive(Debug, Clone)]
pub struct Plan {
    pub kubernetes_version: Parsed<Release>,
    pub dns_domain: String,
    pub cluster_cidr: Parsed<Ipv4Net>,
    pub service_cidr: Parsed<Ipv4Net>,
    /// The cluster DNS address: as written, else the 10th address of the Service network.
    pub dns_service_ip: Option<Parsed<Ipv4Addr>>,
    pub node_mask: u8,
    pub max_pods: u32,
    pub host_subnets: Vec<Parsed<Ipv4Net>>,
    pub flannel: FlannelPlan,
    pub windows: Option<WindowsPlan>,
    pub nodes: Vec<NodePlan>,
    pub routes: Vec<Route>,
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
}

#[derive(Debug, Clone)]
pub struct WindowsPlan {
    /// The shared default build (`windows.build`), when written.
    pub build: Option<Parsed<WindowsBuild>>,
    pub runtime: Runtime,
    pub interface_name: String,
    pub install_dir: String,
    pub control_plane_address: Option<Parsed<Ipv4Addr>>,
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
    /// Pod addresses the node can hand out: the subnet less network, broadcast and gateway, and on
    /// Windows also the host endpoint (l2bridge) or source VIP (overlay).
    pub usable_pod_addresses: u64,
    pub windows: Option<NodeWindows>,
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
        let nodes = plan_nodes(spec, cluster_cidr.as_ref().ok(), node_mask);
        let routes = nodes
            .iter()
            .enumerate()
            .filter_map(|(index, node)| {
                Some(Route {
                    destination: node.pod_subnet?,
                    next_hop: *node.address.as_ref().ok()?,
                    node: index,
                })
            })
            .collect();
        Plan {
            kubernetes_version: parse_release(
                &spec.kubernetes.version,
                "Kubernetes version",
                "1.16.2",
            ),
            dns_domain: spec
                .kubernetes
                .dns_domain
                .clone()
                .unwrap_or_else(|| DEFAULT_DNS_DOMAIN.into()),
            cluster_cidr,
            service_cidr,
            dns_service_ip,
            node_mask,
            max_pods: network.max_pods_per_node.unwrap_or(DEFAULT_MAX_PODS),
            host_subnets: network
                .host_subnets
                .iter()
                .flatten()
                .map(|text| address::parse_cidr(text))
                .collect(),
            flannel: plan_flannel(spec, has_windows),
            windows: plan_windows(spec),
            nodes,
            routes,
        }
    }

    pub fn has_windows(&self) -> bool {
        self.nodes.iter().any(|node| node.os == Os::Windows)
    }

    /// host-gw adjacency: the layer-2 network that holds the first node (the widest host subnet
    /// holding it, or its /24 when no host subnets are declared), and the nodes outside it.
    pub fn nodes_off_segment(&self) -> Option<(Ipv4Net, Vec<usize>)> {
        let plan = self;
        let addresses: Vec<(usize, Ipv4Addr)> = plan
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(index, node)| Some((index, *node.address.as_ref().ok()?)))
            .collect();
        let (_, first) = addresses.first()?;
        let segment = if plan.host_subnets.is_empty() {
            Ipv4Net::new(*first, 24).ok()?.trunc()
        } else {
            // The widest declared network holding the first node: the most generous reading.
            plan.host_subnets
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
    Release::parse(text).ok_or_else(|| InputError {
        problem: format!("`{text}` is not a {what}"),
        help: format!("write it as `MAJOR.MINOR.PATCH` in quotes, e.g. `\"{example}\"`"),
    })
}

fn plan_flannel(spec: &Spec, has_windows: bool) -> FlannelPlan {
    let flannel = &spec.flannel;
    let backend = flannel.backend;
    let written = flannel
        .version
        .as_deref()
        .unwrap_or(DEFAULT_FLANNEL_VERSION);
    FlannelPlan {
        version: parse_release(written, "flannel version", "v0.11.0"),
        release: flannel_release::resolve(written),
        backend,
        // flannel's Windows backend requires VNI >= 4096 and UDP 4789; Linux defaults to 1 and 8472.
        vni: flannel.vni.unwrap_or(if has_windows { 4096 } else { 1 }),
        port: flannel
            .port
            .unwrap_or(if has_windows { 4789 } else { 8472 }),
        direct_routing: flannel.direct_routing.unwrap_or(false),
        mac_prefix: flannel.mac_prefix.clone().unwrap_or_else(|| "0E-2A".into()),
        network_name: flannel
            .network_name
            .clone()
            .unwrap_or_else(|| expected_network_name(backend).into()),
    }
}

/// The HNS network the Windows node setup (KubeCluster.ps1) creates and waits for.
pub fn expected_network_name(backend: Backend) -> &'static str {
    match backend {
        Backend::Vxlan => "vxlan0",
        Backend::HostGw => "cbr0",
    }
}

fn plan_windows(spec: &Spec) -> Option<WindowsPlan> {
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
    Some(WindowsPlan {
        build: windows.build.as_deref().map(parse_windows_build),
        runtime: windows.runtime.unwrap_or(Runtime::Dockerd),
        interface_name: windows
            .interface_name
            .clone()
            .unwrap_or_else(|| "Ethernet".into()),
        install_dir: windows
            .install_dir
            .clone()
            .unwrap_or_else(|| r"C:\ProgramData\Kubernetes".into()),
        control_plane_address,
    })
}

fn parse_windows_build(text: &str) -> Parsed<WindowsBuild> {
    WindowsBuild::parse(text).ok_or_else(|| InputError {
        problem: format!("`{text}` is not a Windows build"),
        help: "write it as `10.0.BUILD.REVISION` in quotes, e.g. `\"10.0.17763.379\"`".into(),
    })
}

fn plan_nodes(spec: &Spec, cluster: Option<&Ipv4Net>, mask: u8) -> Vec<NodePlan> {
    let pinned: Vec<Option<Parsed<Ipv4Net>>> = spec
        .nodes
        .iter()
        .map(|node| node.pod_cidr.as_deref().map(address::parse_cidr))
        .collect();
    // An unparseable pin keeps its node out of the assignment: the node gets no subnet.
    let pins: Vec<Option<Ipv4Net>> = pinned
        .iter()
        .map(|pin| match pin {
            Some(Ok(subnet)) => Some(*subnet),
            _ => None,
        })
        .collect();
    let assigned = match cluster {
        Some(cluster) => subnets::assign(cluster, mask, &pins),
        None => pins.clone(),
    };
    spec.nodes
        .iter()
        .zip(pinned)
        .zip(assigned)
        .enumerate()
        .map(|(index, ((node, pinned), assigned))| {
            let pod_subnet = match &pinned {
                Some(Err(_)) => None,
                _ => assigned,
            };
            let usable_pod_addresses = pod_subnet.map_or(0, |subnet| {
                let reserved = if node.os == Os::Windows { 4 } else { 3 };
                address::size(&subnet).saturating_sub(reserved)
            });
            NodePlan {
                name: node.name.clone(),
                os: node.os,
                roles: node.roles.clone(),
                address: address::parse_ip(&node.address),
                pinned,
                pod_subnet,
                usable_pod_addresses,
                windows: (node.os == Os::Windows).then(|| node_windows(spec, index)),
            }
        })
        .collect()
}

fn node_windows(spec: &Spec, index: usize) -> NodeWindows {
    let node = &spec.nodes[index];
    let shared = spec.windows.as_ref();
    let (text, build_pointer) = match (&node.windows_build, shared.and_then(|w| w.build.as_ref())) {
        (Some(own), _) => (Some(own), format!("/nodes/{index}/windowsBuild")),
        (None, shared_build) => (shared_build, "/windows/build".to_string()),
    };
    let build = text.map(|text| parse_windows_build(text));
    let defaults = build
        .as_ref()
        .and_then(|build| build.as_ref().ok())
        .map_or_else(
            || default_images(17763),
            |build| default_images(build.build),
        );
    let written = shared.and_then(|windows| windows.images.as_ref());
    let images = Images {
        pause: written
            .and_then(|images| images.pause.clone())
            .unwrap_or(defaults.pause),
        nanoserver: written
            .and_then(|images| images.nanoserver.clone())
            .unwrap_or(defaults.nanoserver),
        servercore: written
            .and_then(|images| images.servercore.clone())
            .unwrap_or(defaults.servercore),
    };
    NodeWindows {
        build,
        build_pointer,
        interface_name: node
            .interface_name
            .clone()
            .or_else(|| shared.and_then(|windows| windows.interface_name.clone()))
            .unwrap_or_else(|| "Ethernet".into()),
        images,
    }
}

/// The images that match a build: Microsoft's tags for the base images, and a pause image built
/// for it (the Windows Server 2019 one that KubeCluster.ps1 uses, else the multi-arch pause).
pub fn default_images(build: u32) -> Images {
    let (nano_tag, core_tag) = match build {
        17763 => ("1809", "ltsc2019"),
        18362 => ("1903", "1903"),
        18363 => ("1909", "1909"),
        19041 => ("2004", "2004"),
        19042 => ("20H2", "20H2"),
        20348 => ("ltsc2022", "ltsc2022"),
        26100 => ("ltsc2025", "ltsc2025"),
        _ => ("ltsc2022", "ltsc2022"),
    };
    let pause = if build == 17763 {
        "mcr.microsoft.com/k8s/core/pause:1.2.0".to_string()
    } else {
        "registry.k8s.io/pause:3.10.2".to_string()
    };
    Images {
        pause,
        nanoserver: format!("mcr.microsoft.com/windows/nanoserver:{nano_tag}"),
        servercore: format!("mcr.microsoft.com/windows/servercore:{core_tag}"),
    }
}

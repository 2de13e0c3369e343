//! `plan.json`: the resolved spec and plan, machine-readable (documented in the README). Secret
//! values never appear in it; secret references are named by their variables.

use super::{Artifact, Input, RenderError};
use crate::plan::{WindowsSetup, address};
use crate::spec::{Role, Runtime};
use ipnet::Ipv4Net;
use serde::Serialize;
use std::net::Ipv4Addr;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlanFile<'a> {
    version: u32,
    cluster: String,
    /// `kubeadm`, `rke2` or `rke`.
    distribution: &'static str,
    kubernetes: Kubernetes,
    network: Network,
    flannel: Flannel,
    #[serde(skip_serializing_if = "Option::is_none")]
    windows: Option<Windows<'a>>,
    cloud: &'static str,
    nodes: Vec<Node<'a>>,
    routes: Vec<Route<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rke2: Option<Rke2<'a>>,
}

/// The RKE2 release and how the nodes join (`distribution: rke2`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rke2<'a> {
    /// `v1.31.4+rke2r1`.
    release: &'a str,
    /// Whether the release is a row of hybridgen's table (else the range before it was assumed).
    known_release: bool,
    /// The `rke2-flannel` chart and the Windows flanneld the release bundles.
    flannel_chart: String,
    windows_flanneld: String,
    servers: Vec<&'a str>,
    /// Standalone only (Rancher chooses and joins the nodes itself): the server that starts the
    /// cluster, and where the others join, `https://<address>:9345`.
    #[serde(skip_serializing_if = "Option::is_none")]
    first_server: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    join_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rancher: Option<Rancher<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rancher<'a> {
    url: &'a str,
    version: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Kubernetes {
    version: String,
    dns_domain: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Network {
    cluster_cidr: String,
    service_cidr: String,
    dns_service_ip: String,
    node_cidr_mask_size: u8,
    max_pods_per_node: u32,
    host_subnets: Vec<String>,
    node_subnets: u64,
    /// Who gives each node its subnet: `controller` or `hybridgen`.
    pod_cidrs: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Flannel {
    version: String,
    /// The flanneld image of `kube-flannel.yml`; absent where the distribution ships flannel.
    #[serde(skip_serializing_if = "Option::is_none")]
    image: Option<String>,
    /// Whether `version` is a release of hybridgen's table (else the nearest one was rendered).
    known_release: bool,
    backend: &'static str,
    vni: u32,
    port: u16,
    direct_routing: bool,
    /// Absent on RKE2, whose flannel net-conf has no `MacPrefix` (rancher/rke2
    /// `pkg/windows/flannel.go`).
    #[serde(skip_serializing_if = "Option::is_none")]
    mac_prefix: Option<String>,
    network_name: String,
}

/// How the Windows nodes are set up, when there are any.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Windows<'a> {
    /// `kubecluster` (KubeCluster.ps1, before Kubernetes 1.24) or `hostprocess`.
    setup: &'static str,
    runtime: &'static str,
    /// The HostProcess path only: containerd installed by `join.ps1`, the two images, the API
    /// endpoint flanneld and kube-proxy use, and whether kube-proxy runs with DSR.
    #[serde(skip_serializing_if = "Option::is_none")]
    containerd_version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    flannel_image: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kube_proxy_image: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    api_server: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dsr: Option<bool>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Node<'a> {
    name: &'a str,
    os: &'static str,
    roles: Vec<&'static str>,
    address: Ipv4Addr,
    pod_cidr: Ipv4Net,
    pinned: bool,
    /// `predicted` (kube-controller-manager's, if nodes register in spec order), `assigned` (set
    /// from the plan), `pinned` or `live` (read from the cluster).
    pod_cidr_source: &'static str,
    usable_pod_addresses: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    windows: Option<NodeWindows<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeWindows<'a> {
    build: String,
    /// Absent on RKE2, which binds flanneld by the node address (`--iface=<node-ip>`) and runs
    /// its own pause image (`rancher/mirrored-pause`, rancher/rke2 `pkg/images/images.go`, flag
    /// `pause-image`): hybridgen writes neither to the node.
    #[serde(skip_serializing_if = "Option::is_none")]
    interface_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pause_image: Option<&'a str>,
    nanoserver_image: &'a str,
    servercore_image: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Route<'a> {
    destination: Ipv4Net,
    next_hop: Ipv4Addr,
    node: &'a str,
}

fn windows<'a>(input: &'a Input) -> Option<Windows<'a>> {
    let plan = input.plan;
    let setup = plan.windows_setup?;
    let windows = plan.windows.as_ref()?;
    let host_process = setup == WindowsSetup::HostProcess;
    let api_server = match &windows.control_plane_address {
        Some(Ok(address)) => Some(format!("{address}:{}", windows.api_server_port)),
        _ => None,
    };
    Some(Windows {
        setup: match setup {
            WindowsSetup::HostProcess => "hostprocess",
            WindowsSetup::WinsDaemonSets => "wins-daemonsets",
            WindowsSetup::KubeCluster => "kubecluster",
        },
        runtime: match windows.runtime {
            Runtime::Dockerd => "dockerd",
            Runtime::Containerd => "containerd",
        },
        containerd_version: windows
            .containerd_version
            .as_ref()
            .ok()
            .filter(|_| host_process)
            .map(ToString::to_string),
        flannel_image: windows.flannel_image.as_deref().filter(|_| host_process),
        kube_proxy_image: windows.kube_proxy_image.as_deref().filter(|_| host_process),
        api_server: api_server.filter(|_| host_process),
        dsr: host_process.then_some(windows.dsr),
    })
}

fn rke2<'a>(input: &'a Input) -> Result<Option<Rke2<'a>>, RenderError> {
    let plan = input.plan;
    let Some(rke2) = &plan.rke2 else {
        return Ok(None);
    };
    let release = rke2.release.as_ref().map_err(|_| invalid("RKE2 release"))?;
    let bundled = release
        .flannel()
        .ok_or_else(|| invalid("RKE2 release with flannel"))?;
    let name = |index: usize| plan.nodes[index].name.as_str();
    Ok(Some(Rke2 {
        release: &release.tag,
        known_release: release.known,
        flannel_chart: bundled.chart_tag(),
        windows_flanneld: format!("v{}", bundled.windows_flanneld),
        servers: rke2.servers.iter().map(|index| name(*index)).collect(),
        first_server: match &rke2.rancher {
            Some(_) => None,
            None => Some(
                rke2.first_server
                    .map(name)
                    .ok_or_else(|| invalid("RKE2 server"))?,
            ),
        },
        join_url: match &rke2.rancher {
            Some(_) => None,
            None => Some(super::rke2::join_url(rke2)?),
        },
        rancher: rke2.rancher.as_ref().map(|rancher| Rancher {
            url: &rancher.url,
            version: rancher
                .version
                .as_ref()
                .map_or_else(|_| String::new(), ToString::to_string),
        }),
    }))
}

fn invalid(what: &str) -> RenderError {
    RenderError(format!("the plan has no valid {what}"))
}

/// The file `render` writes here.
pub const PATH: &str = "plan.json";

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    let network = input.network()?;
    let release = super::flannel::planned_release(input)?;
    let cluster = &network.cluster_cidr;
    let not_rke2 = plan.rke2.is_none();
    let nodes = plan
        .nodes
        .iter()
        .map(|node| {
            Ok(Node {
                name: &node.name,
                os: node.os.as_str(),
                roles: node
                    .roles
                    .iter()
                    .map(|role| match role {
                        Role::Controlplane => "controlplane",
                        Role::Etcd => "etcd",
                        Role::Worker => "worker",
                    })
                    .collect(),
                address: *node.address.as_ref().map_err(|_| invalid("node address"))?,
                pod_cidr: node.pod_subnet.ok_or_else(|| invalid("pod subnet"))?,
                pinned: node.pinned.is_some(),
                pod_cidr_source: node.subnet_source.as_str(),
                usable_pod_addresses: node.usable_pod_addresses,
                windows: node.windows.as_ref().map(|windows| NodeWindows {
                    build: match &windows.build {
                        Some(Ok(build)) => build.to_string(),
                        _ => String::new(),
                    },
                    interface_name: not_rke2.then_some(windows.interface_name.as_str()),
                    pause_image: not_rke2.then_some(windows.images.pause.as_str()),
                    nanoserver_image: &windows.images.nanoserver,
                    servercore_image: &windows.images.servercore,
                }),
            })
        })
        .collect::<Result<Vec<_>, RenderError>>()?;
    let file = PlanFile {
        version: 1,
        cluster: input.spec.metadata.name.clone(),
        distribution: plan.distribution.distribution.as_str(),
        kubernetes: Kubernetes {
            version: network.kubernetes.to_string(),
            dns_domain: plan.dns_domain.clone(),
        },
        network: Network {
            cluster_cidr: cluster.to_string(),
            service_cidr: network.service_cidr.to_string(),
            dns_service_ip: network.dns_service_ip.to_string(),
            node_cidr_mask_size: plan.node_mask,
            max_pods_per_node: plan.max_pods,
            host_subnets: plan
                .host_subnets
                .iter()
                .flatten()
                .map(ToString::to_string)
                .collect(),
            node_subnets: address::size(cluster) >> (32 - u32::from(plan.node_mask)),
            pod_cidrs: plan.pod_cidrs.as_str(),
        },
        flannel: Flannel {
            version: release.tag.clone(),
            image: (!plan.distribution.ships_flannel).then(|| release.image()),
            known_release: release.known,
            backend: plan.flannel.backend.as_str(),
            vni: plan.flannel.vni,
            port: plan.flannel.port,
            direct_routing: plan.flannel.direct_routing,
            mac_prefix: not_rke2.then(|| plan.flannel.mac_prefix.clone()),
            network_name: plan.flannel.network_name.clone(),
        },
        windows: windows(input),
        cloud: input.spec.provider().as_str(),
        nodes,
        routes: plan
            .routes
            .iter()
            .map(|route| Route {
                destination: route.destination,
                next_hop: route.next_hop,
                node: &plan.nodes[route.node].name,
            })
            .collect(),
        rke2: rke2(input)?,
    };
    let mut text =
        crate::escape::json_pretty(&file).map_err(|error| RenderError(error.to_string()))?;
    text.push('\n');
    // Serializing doubles the buffer as it goes; the file is kept until written, so return the
    // slack (tens of megabytes at 65,536 nodes).
    text.shrink_to_fit();
    Ok(vec![Artifact::new(PATH, text)])
}

//! The running cluster as the old side of a change (`plan SPEC --from kubectl`, `--from
//! cluster:PATH`): the new spec with what the cluster shows in place of what the spec says — its
//! nodes (names, OS, addresses, Windows builds), its Kubernetes version, and flannel's
//! `net-conf.json` and kubeadm's networking. What the capture does not hold (containerd on the
//! nodes, the HNS network's name) is taken from the new spec and said in the notes.

use crate::live::{LiveCluster, LiveNode};
use crate::plan::version::{Release, WindowsBuild};
use crate::spec::{Backend, Node, Os, Role, Spec};

/// The old spec the cluster describes, and what it could not read.
pub fn spec_from_cluster(new: &Spec, cluster: &LiveCluster) -> (Spec, Vec<String>) {
    let mut old = new.clone();
    let mut notes = vec![
        "containerd on the nodes and the Windows HNS network's name are not read from the cluster: the plan takes the new spec's".to_string(),
    ];
    match kubernetes_version(cluster) {
        Some(version) => old.kubernetes.version = version,
        None => notes.push(
            "the cluster's Kubernetes version was not captured: the plan takes the new spec's"
                .into(),
        ),
    }
    if cluster.nodes.is_empty() {
        notes.push("no node was captured: the plan takes the new spec's nodes".into());
    } else {
        old.nodes = cluster
            .nodes
            .iter()
            .map(|live| old_node(new, live))
            .collect();
    }
    match &cluster.net_conf {
        Some(Ok(net_conf)) => {
            if let Some(network) = &net_conf.network {
                old.network.cluster_cidr = network.value.clone();
            }
            match net_conf
                .backend_type
                .as_ref()
                .map(|backend| backend.value.as_str())
            {
                Some("vxlan") => old.flannel.backend = Backend::Vxlan,
                Some("host-gw") => old.flannel.backend = Backend::HostGw,
                _ => {}
            }
            if let Some(vni) = &net_conf.vni {
                old.flannel.vni = u32::try_from(vni.value).ok();
            }
            if let Some(port) = &net_conf.port {
                old.flannel.port = u16::try_from(port.value).ok();
            }
        }
        _ => notes.push(
            "flannel's `net-conf.json` was not captured: the plan takes the new spec's flannel"
                .into(),
        ),
    }
    if let Some(Ok(configuration)) = &cluster.cluster_configuration
        && let Some(service) = configuration.field("/networking/serviceSubnet")
        && let Some(service) = service.value.as_str()
    {
        old.network.service_cidr = service.to_string();
    }
    (old, notes)
}

/// The apiserver's version: kubeadm's `kubernetesVersion`, else the newest kubelet (a kubelet is
/// never newer than its apiserver: https://kubernetes.io/releases/version-skew-policy/).
fn kubernetes_version(cluster: &LiveCluster) -> Option<String> {
    if let Some(Ok(configuration)) = &cluster.cluster_configuration
        && let Some(version) = configuration.field("/kubernetesVersion")
        && let Some(version) = version.value.as_str()
        && Release::parse(version).is_some()
    {
        return Some(version.trim_start_matches('v').to_string());
    }
    cluster
        .nodes
        .iter()
        .filter_map(|node| node.kubelet_version.as_ref())
        .map(|version| version.value.as_str())
        .filter_map(|text| Some((Release::parse(text)?, text)))
        .max()
        .map(|(_, text)| text.trim_start_matches('v').to_string())
}

/// A live node as a spec node: the new spec's node of that name lends what the cluster does not
/// say (roles, interface), a node only the cluster has is a worker unless it carries the
/// control-plane taint.
fn old_node(new: &Spec, live: &LiveNode) -> Node {
    let declared = new.nodes.iter().find(|node| node.name == live.name);
    let os = match live.os.as_ref().map(|os| os.value.as_str()) {
        Some("windows") => Os::Windows,
        Some(_) => Os::Linux,
        None => declared.map_or(Os::Linux, |node| node.os),
    };
    let control_plane = live
        .taints
        .iter()
        .any(|taint| taint.key == "node-role.kubernetes.io/control-plane");
    let roles = match declared {
        Some(node) => node.roles.clone(),
        None if control_plane => vec![Role::Controlplane, Role::Etcd],
        None => vec![Role::Worker],
    };
    let windows_build = live
        .kernel_version
        .as_ref()
        .filter(|_| os == Os::Windows)
        .and_then(|kernel| WindowsBuild::parse(&kernel.value))
        .map(|build| build.to_string())
        .or_else(|| declared.and_then(|node| node.windows_build.clone()));
    Node {
        name: live.name.clone(),
        os,
        roles,
        address: live
            .internal_ip
            .as_ref()
            .map(|ip| ip.value.clone())
            .or_else(|| declared.map(|node| node.address.clone()))
            .unwrap_or_default(),
        pod_cidr: declared.and_then(|node| node.pod_cidr.clone()),
        windows_build,
        interface_name: declared.and_then(|node| node.interface_name.clone()),
        cloud: declared.and_then(|node| node.cloud.clone()),
    }
}

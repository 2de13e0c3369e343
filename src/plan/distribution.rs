//! What each distribution does itself and what it leaves to hybridgen: one row per distribution,
//! read by the plan, the rules and the renderers, so that no rule or template asks which
//! distribution it is on.

pub use crate::spec::Distribution;

/// One distribution's behaviour.
#[derive(Debug, PartialEq, Eq)]
pub struct Traits {
    pub distribution: Distribution,
    /// How `plan` and the docs name it.
    pub title: &'static str,
    /// It deploys flannel itself (RKE1's network plugin; RKE2's `rke2-flannel` chart), so
    /// hybridgen writes no `kube-flannel.yml` and no node-selector patches for it.
    pub ships_flannel: bool,
    /// The namespace its flannel ConfigMap and DaemonSet live in when it ships flannel: RKE1's
    /// `kube-flannel` add-on and RKE2's chart both deploy into `kube-system` (rancher/rke
    /// `templates/flannel.go`; rancher/rke2-charts `rke2-flannel` installed in `kube-system`).
    pub flannel_namespace: Option<&'static str>,
    /// The VXLAN VNI and port it uses unless told otherwise, whatever the nodes' OS: RKE2's chart
    /// defaults to 4096 and 4789 from June 2024 (rancher/rke2-charts PR #462), which is what its
    /// Windows agents hard-code (rancher/rke2 `pkg/windows/flannel.go`). `None`: flannel's own
    /// (1 and 8472), or Windows' when a node runs Windows.
    pub vxlan_defaults: Option<(u32, u16)>,
    /// Its Windows agents hard-code the flannel backend, VNI and port and read none of the
    /// cluster's flannel values (rancher/rke2 `pkg/windows/flannel.go`).
    pub windows_flannel_fixed: bool,
    /// The HNS network its Windows agents create, when it names it itself: RKE2's is always
    /// `flannel.4096` (rancher/rke2 `pkg/windows/flannel.go`, `OverlayNetName`).
    pub windows_network: Option<&'static str>,
    pub windows_join: WindowsJoin,
    /// Where a running cluster keeps the configuration `verify` compares.
    pub live_configuration: LiveConfiguration,
    /// The cluster needs a Linux node with the `worker` role: the packaged ingress controller and
    /// metrics server (and with Rancher its cluster agent) run on untainted Linux nodes only.
    /// kubeadm does not: its CoreDNS tolerates the control-plane taint (kubernetes/kubernetes
    /// `cmd/kubeadm/app/phases/addons/dns/manifests.go`) and it deploys no ingress.
    pub needs_linux_worker: bool,
    /// Its end of life, when it has reached it.
    pub end_of_life: Option<EndOfLife>,
}

/// How Windows nodes become part of the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowsJoin {
    /// `kubeadm join`: KubeCluster.ps1 before Kubernetes 1.24, the HostProcess path from 1.24;
    /// hybridgen renders the node files and reads the kubeadm token and CA hash.
    Kubeadm,
    /// Rancher's node agent, from the command Rancher shows; hybridgen renders nothing for it.
    RancherAgent,
    /// The RKE2 agent service, which runs flanneld and kube-proxy itself.
    Rke2Agent,
}

/// Where a running cluster of the distribution keeps its configuration, besides its nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveConfiguration {
    /// kubeadm's ConfigMaps: `kubeadm-config`, `kube-proxy`, the kubelet's.
    KubeadmConfigMaps,
    /// RKE2's HelmCharts and HelmChartConfigs (`rke2-flannel`), besides its nodes' `node-args`.
    HelmCharts,
    /// Nothing beyond the nodes and flannel's ConfigMap (RKE1 keeps the rest in its cluster.yml).
    None,
}

/// A distribution's end of life.
#[derive(Debug, PartialEq, Eq)]
pub struct EndOfLife {
    pub date: &'static str,
    /// What to move to.
    pub successor: &'static str,
}

pub static DISTRIBUTIONS: [Traits; 3] = [
    Traits {
        distribution: Distribution::Kubeadm,
        title: "kubeadm",
        ships_flannel: false,
        flannel_namespace: None,
        vxlan_defaults: None,
        windows_flannel_fixed: false,
        windows_network: None,
        windows_join: WindowsJoin::Kubeadm,
        live_configuration: LiveConfiguration::KubeadmConfigMaps,
        needs_linux_worker: false,
        end_of_life: None,
    },
    Traits {
        distribution: Distribution::Rke2,
        title: "RKE2",
        ships_flannel: true,
        flannel_namespace: Some("kube-system"),
        vxlan_defaults: Some((super::WINDOWS_VXLAN_VNI, super::WINDOWS_VXLAN_PORT)),
        windows_flannel_fixed: true,
        windows_network: Some("flannel.4096"),
        windows_join: WindowsJoin::Rke2Agent,
        live_configuration: LiveConfiguration::HelmCharts,
        // A server without the `worker` role is tainted, and then "the NGINX Ingress and Metrics
        // Server addons will not be deployed" until an untainted agent joins (docs.rke2.io "High
        // Availability", docs/install/ha.md).
        needs_linux_worker: true,
        end_of_life: None,
    },
    // RKE1: deprecated with RKE v1.6.0 / Rancher 2.9.0, end of life 31 July 2025
    // (rancher/rancher#46376); Rancher 2.12.0 and later cannot provision it.
    Traits {
        distribution: Distribution::Rke,
        title: "RKE1",
        ships_flannel: true,
        flannel_namespace: Some("kube-system"),
        vxlan_defaults: None,
        windows_flannel_fixed: false,
        windows_network: None,
        windows_join: WindowsJoin::RancherAgent,
        live_configuration: LiveConfiguration::None,
        // "a Linux worker node is required" for the Rancher cluster agent, DNS, metrics server and
        // ingress (Rancher 2.3 "Configuring Custom Clusters for Windows", Requirements).
        needs_linux_worker: true,
        end_of_life: Some(EndOfLife {
            date: "31 July 2025",
            successor: "RKE2 (`distribution: rke2`)",
        }),
    },
];

/// The row of a distribution.
pub fn traits(distribution: Distribution) -> &'static Traits {
    match distribution {
        Distribution::Kubeadm => &DISTRIBUTIONS[0],
        Distribution::Rke2 => &DISTRIBUTIONS[1],
        Distribution::Rke => &DISTRIBUTIONS[2],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_distribution_has_its_own_row() {
        for distribution in [Distribution::Kubeadm, Distribution::Rke2, Distribution::Rke] {
            assert_eq!(traits(distribution).distribution, distribution);
        }
    }

    #[test]
    fn kubeadm_alone_runs_without_a_linux_worker() {
        let needs = |distribution| traits(distribution).needs_linux_worker;
        assert!(!needs(Distribution::Kubeadm));
        assert!(needs(Distribution::Rke2));
        assert!(needs(Distribution::Rke));
    }
}

//! How far the components of a cluster may be apart, and how far one upgrade may jump: the
//! Kubernetes version skew policy and the deployment tools' own limits, as data the change plan
//! ([`crate::change`]) reads and its property test holds every step to.

/// kubeadm upgrades one minor at a time: "Skipping MINOR versions when upgrading is unsupported"
/// (https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/).
pub const KUBEADM_UPGRADE: &str =
    "https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/";

/// RKE2 follows Kubernetes: servers first, then agents, one minor at a time
/// (https://docs.rke2.io/upgrades/manual_upgrade).
pub const RKE2_UPGRADE: &str = "https://docs.rke2.io/upgrades/manual_upgrade";

/// RKE1 upgrades with `rke up` after `kubernetes_version` changes in `cluster.yml`
/// (https://rke.docs.rancher.com/upgrades).
pub const RKE1_UPGRADE: &str = "https://rke.docs.rancher.com/upgrades";

/// How many minors a kubelet (or kube-proxy) of `minor` may be older than kube-apiserver, which it
/// must never be newer than: three from kubelet 1.25, two before (the Kubernetes version skew
/// policy, https://kubernetes.io/releases/version-skew-policy/).
pub fn max_node_skew(minor: u32) -> u32 {
    if minor >= 25 { 3 } else { 2 }
}

/// Whether a kubelet or kube-proxy of `node_minor` may talk to an apiserver of `apiserver_minor`.
pub fn node_within_skew(node_minor: u32, apiserver_minor: u32) -> bool {
    node_minor <= apiserver_minor && apiserver_minor - node_minor <= max_node_skew(node_minor)
}

/// The most minors one control-plane upgrade may move, for every distribution hybridgen plans.
pub const MINORS_PER_UPGRADE: u32 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubelets_may_lag_three_minors_from_1_25_and_never_lead() {
        assert!(node_within_skew(30, 33));
        assert!(!node_within_skew(29, 33));
        assert!(node_within_skew(22, 24));
        assert!(!node_within_skew(21, 24));
        assert!(!node_within_skew(34, 33));
    }
}

//! The keys RKE2's `config.yaml` takes, by command: each is a flag of `rke2 server` or
//! `rke2 agent` (rancher/rke2 `pkg/cli/cmds/server.go`, `agent.go` and `root.go` at v1.36.4, the
//! k3s flags each copies plus RKE2's own). A key that is no flag of the command reading the file
//! is dropped with only a log line, `Unknown flag --<key> found in config.yaml, skipping`
//! (k3s-io/k3s `pkg/configfilearg/parser.go`), so a misspelt key, a server key in an agent's file
//! or a k3s key RKE2 removed is lost without an error. The Windows agent takes the agent flags.

/// Flags of both `rke2 server` and `rke2 agent`.
pub static EVERY_NODE: &[&str] = &[
    "airgap-extra-registry",
    "alsologtostderr",
    "audit-policy-file",
    "bind-address",
    "cloud-controller-manager-extra-env",
    "cloud-controller-manager-extra-mount",
    "cloud-controller-manager-image",
    "cloud-provider-config",
    "cloud-provider-name",
    "container-runtime-endpoint",
    "control-plane-probe-configuration",
    "control-plane-resource-limits",
    "control-plane-resource-requests",
    "data-dir",
    "debug",
    "default-runtime",
    "disable-default-registry-endpoint",
    "enable-pprof",
    "etcd-extra-env",
    "etcd-extra-mount",
    "etcd-image",
    "image-credential-provider-bin-dir",
    "image-credential-provider-config",
    "kube-apiserver-extra-env",
    "kube-apiserver-extra-mount",
    "kube-apiserver-image",
    "kube-controller-manager-extra-env",
    "kube-controller-manager-extra-mount",
    "kube-controller-manager-image",
    "kube-proxy-arg",
    "kube-proxy-extra-env",
    "kube-proxy-extra-mount",
    "kube-proxy-image",
    "kube-scheduler-extra-env",
    "kube-scheduler-extra-mount",
    "kube-scheduler-image",
    "kubelet-arg",
    "kubelet-path",
    "lb-server-port",
    "log",
    "node-external-dns",
    "node-external-ip",
    "node-internal-dns",
    "node-ip",
    "node-label",
    "node-name",
    "node-name-from-cloud-provider-metadata",
    "node-taint",
    "nonroot-devices",
    "pause-image",
    "pod-security-admission-config-file",
    "private-registry",
    "profile",
    "protect-kernel-defaults",
    "resolv-conf",
    "runtime-image",
    "selinux",
    "server",
    "snapshotter",
    "token",
    "token-file",
    "v",
    "vmodule",
    "with-node-id",
];

/// Flags of `rke2 server` only: an agent skips them.
pub static SERVER_ONLY: &[&str] = &[
    "advertise-address",
    "agent-token",
    "agent-token-file",
    "cluster-cidr",
    "cluster-dns",
    "cluster-domain",
    "cluster-reset",
    "cluster-reset-restore-path",
    "cni",
    "datastore-cafile",
    "datastore-certfile",
    "datastore-endpoint",
    "datastore-keyfile",
    "disable",
    "disable-agent",
    "disable-apiserver",
    "disable-cloud-controller",
    "disable-controller-manager",
    "disable-etcd",
    "disable-kube-proxy",
    "disable-scheduler",
    "egress-selector-mode",
    "embedded-registry",
    "enable-servicelb",
    "etcd-arg",
    "etcd-disable-snapshots",
    "etcd-expose-metrics",
    "etcd-s3",
    "etcd-s3-access-key",
    "etcd-s3-bucket",
    "etcd-s3-bucket-lookup-type",
    "etcd-s3-config-secret",
    "etcd-s3-endpoint",
    "etcd-s3-endpoint-ca",
    "etcd-s3-folder",
    "etcd-s3-insecure",
    "etcd-s3-proxy",
    "etcd-s3-region",
    "etcd-s3-retention",
    "etcd-s3-secret-key",
    "etcd-s3-session-token",
    "etcd-s3-skip-ssl-verify",
    "etcd-s3-timeout",
    "etcd-snapshot-compress",
    "etcd-snapshot-dir",
    "etcd-snapshot-name",
    "etcd-snapshot-reconcile-interval",
    "etcd-snapshot-retention",
    "etcd-snapshot-schedule-cron",
    "helm-controller-arg",
    "helm-job-image",
    "ingress-controller",
    "kube-apiserver-arg",
    "kube-cloud-controller-manager-arg",
    "kube-controller-manager-arg",
    "kube-scheduler-arg",
    "secrets-encryption",
    "secrets-encryption-provider",
    "service-cidr",
    "service-node-port-range",
    "servicelb-namespace",
    "supervisor-metrics",
    "system-default-registry",
    "tls-san",
    "tls-san-security",
    "write-kubeconfig",
    "write-kubeconfig-group",
    "write-kubeconfig-mode",
    "write-kubeconfig-name",
];

/// k3s flags RKE2 removes from both commands (`dropFlag`): flannel is configured through the
/// `rke2-flannel` chart only, and the ports are fixed.
pub static DROPPED: &[&str] = &[
    "advertise-port",
    "apiserver-bind-address",
    "apiserver-port",
    "cluster-init",
    "default-local-storage-path",
    "disable-apiserver-lb",
    "disable-helm-controller",
    "disable-network-policy",
    "docker",
    "flannel-backend",
    "flannel-cni-conf",
    "flannel-conf",
    "flannel-external-ip",
    "flannel-iface",
    "flannel-ipv6-masq",
    "https-listen-port",
    "image-service-endpoint",
    "kine-tls",
    "kube-cloud-controller-arg",
    "kube-controller-arg",
    "prefer-bundled-bin",
    "rootless",
    "supervisor-port",
    "vpn-auth",
    "vpn-auth-file",
];

/// Who reads a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    EveryNode,
    ServerOnly,
    /// A k3s flag RKE2 removed.
    Dropped,
    Unknown,
}

pub fn scope(key: &str) -> Scope {
    if EVERY_NODE.contains(&key) {
        Scope::EveryNode
    } else if SERVER_ONLY.contains(&key) {
        Scope::ServerOnly
    } else if DROPPED.contains(&key) {
        Scope::Dropped
    } else {
        Scope::Unknown
    }
}

/// Every key RKE2 reads, for suggestions.
pub fn known() -> impl Iterator<Item = &'static str> {
    EVERY_NODE.iter().chain(SERVER_ONLY).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_has_one_scope() {
        for list in [EVERY_NODE, SERVER_ONLY, DROPPED] {
            let mut sorted = list.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted, list, "lists are sorted, without duplicates");
        }
        for key in EVERY_NODE {
            assert!(
                !SERVER_ONLY.contains(key) && !DROPPED.contains(key),
                "{key}"
            );
        }
        for key in SERVER_ONLY {
            assert!(!DROPPED.contains(key), "{key}");
        }
    }

    #[test]
    fn keys_are_scoped_by_the_commands_that_read_them() {
        assert_eq!(scope("cni"), Scope::ServerOnly);
        assert_eq!(scope("node-ip"), Scope::EveryNode);
        assert_eq!(scope("flannel-iface"), Scope::Dropped);
        assert_eq!(scope("node-adress"), Scope::Unknown);
        assert_eq!(known().count(), EVERY_NODE.len() + SERVER_ONLY.len());
    }
}

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

/// The RKE2 arguments Rancher passes on from `machineGlobalConfig` and `machineSelectorConfig`:
/// rancher/rancher `pkg/capr/planner/filter.go` (`filterConfigData`) keeps a key only when its
/// version data (rancher/kontainer-driver-metadata `channels-rke2.yaml`,
/// https://github.com/rancher/kontainer-driver-metadata) lists it in `agentArgs`, for every
/// machine, or in `serverArgs`, for etcd and control-plane machines only; every other key is
/// deleted without a message. These are the lists of the newest releases there (v1.31.13,
/// v1.32.9 and v1.33.5 onwards), the widest so far: older Rancher versions keep fewer.
pub static RANCHER_AGENT_ARGS: &[&str] = &[
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
    "debug",
    "default-runtime",
    "disable-default-registry-endpoint",
    "enable-pprof",
    "etcd-extra-env",
    "etcd-extra-mount",
    "kube-apiserver-extra-env",
    "kube-apiserver-extra-mount",
    "kube-controller-manager-extra-env",
    "kube-controller-manager-extra-mount",
    "kube-proxy-arg",
    "kube-proxy-extra-env",
    "kube-proxy-extra-mount",
    "kube-proxy-image",
    "kube-scheduler-extra-env",
    "kube-scheduler-extra-mount",
    "kubelet-arg",
    "kubelet-path",
    "lb-server-port",
    "nonroot-devices",
    "pod-security-admission-config-file",
    "profile",
    "protect-kernel-defaults",
    "resolv-conf",
    "selinux",
    "system-default-registry",
];

/// The `serverArgs` of the same version data: Rancher passes them to etcd and control-plane
/// machines only, never to a worker-only machine (every Windows node is one).
pub static RANCHER_SERVER_ARGS: &[&str] = &[
    "audit-policy-file",
    "cluster-cidr",
    "cluster-dns",
    "cluster-domain",
    "cni",
    "container-runtime-endpoint",
    "datastore-cafile",
    "datastore-certfile",
    "datastore-endpoint",
    "datastore-keyfile",
    "disable",
    "disable-cloud-controller",
    "disable-kube-proxy",
    "disable-scheduler",
    "egress-selector-mode",
    "embedded-registry",
    "enable-servicelb",
    "etcd-arg",
    "etcd-expose-metrics",
    "etcd-image",
    "helm-job-image",
    "ingress-controller",
    "kube-apiserver-arg",
    "kube-apiserver-image",
    "kube-cloud-controller-manager-arg",
    "kube-controller-manager-arg",
    "kube-controller-manager-image",
    "kube-proxy-arg",
    "kube-scheduler-arg",
    "kube-scheduler-image",
    "kubelet-path",
    "node-name-from-cloud-provider-metadata",
    "pause-image",
    "runtime-image",
    "service-cidr",
    "service-node-port-range",
    "servicelb-namespace",
    "snapshotter",
    "supervisor-metrics",
    "tls-san",
    "tls-san-security",
    "write-kubeconfig",
    "write-kubeconfig-group",
    "write-kubeconfig-mode",
];

/// What to do instead of a key Rancher drops, where Rancher has a field of its own for it: the
/// registration command's flag or the `provisioning.cattle.io/v1` `Cluster` field (rancher/rancher
/// `pkg/crds/yaml/generated/provisioning.cattle.io_clusters.yaml`, v2.14.4,
/// https://github.com/rancher/rancher/blob/v2.14.4/pkg/crds/yaml/generated/provisioning.cattle.io_clusters.yaml).
pub static RANCHER_SETS: &[(&str, &str)] = &[
    (
        "data-dir",
        "set `spec.rkeConfig.dataDirectories.k8sDistro` of the Rancher cluster",
    ),
    (
        "etcd-disable-snapshots",
        "set `spec.rkeConfig.etcd.disableSnapshots` of the Rancher cluster",
    ),
    (
        "etcd-s3",
        "set `spec.rkeConfig.etcd.s3` of the Rancher cluster",
    ),
    (
        "etcd-s3-access-key",
        "set `spec.rkeConfig.etcd.s3` of the Rancher cluster (its `cloudCredentialName`)",
    ),
    (
        "etcd-s3-bucket",
        "set `spec.rkeConfig.etcd.s3.bucket` of the Rancher cluster",
    ),
    (
        "etcd-s3-endpoint",
        "set `spec.rkeConfig.etcd.s3.endpoint` of the Rancher cluster",
    ),
    (
        "etcd-s3-endpoint-ca",
        "set `spec.rkeConfig.etcd.s3.endpointCA` of the Rancher cluster",
    ),
    (
        "etcd-s3-folder",
        "set `spec.rkeConfig.etcd.s3.folder` of the Rancher cluster",
    ),
    (
        "etcd-s3-region",
        "set `spec.rkeConfig.etcd.s3.region` of the Rancher cluster",
    ),
    (
        "etcd-s3-retention",
        "set `spec.rkeConfig.etcd.s3.retention` of the Rancher cluster",
    ),
    (
        "etcd-s3-secret-key",
        "set `spec.rkeConfig.etcd.s3` of the Rancher cluster (its `cloudCredentialName`)",
    ),
    (
        "etcd-s3-skip-ssl-verify",
        "set `spec.rkeConfig.etcd.s3.skipSSLVerify` of the Rancher cluster",
    ),
    (
        "etcd-snapshot-retention",
        "set `spec.rkeConfig.etcd.snapshotRetention` of the Rancher cluster",
    ),
    (
        "etcd-snapshot-schedule-cron",
        "set `spec.rkeConfig.etcd.snapshotScheduleCron` of the Rancher cluster",
    ),
    (
        "node-external-ip",
        "pass `--address` to the node's registration command",
    ),
    (
        "node-ip",
        "pass `--internal-address` to the node's registration command",
    ),
    (
        "node-label",
        "pass `--label` to the node's registration command",
    ),
    (
        "node-name",
        "pass `--node-name` to the node's registration command",
    ),
    (
        "node-taint",
        "pass `--taint` to the node's registration command",
    ),
    (
        "private-registry",
        "set `spec.rkeConfig.registries` of the Rancher cluster",
    ),
];

/// Which machines Rancher passes a key to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RancherPasses {
    EveryMachine,
    /// etcd and control-plane machines only.
    ServersOnly,
    None,
}

pub fn rancher_passes(key: &str) -> RancherPasses {
    if RANCHER_AGENT_ARGS.contains(&key) {
        RancherPasses::EveryMachine
    } else if RANCHER_SERVER_ARGS.contains(&key) {
        RancherPasses::ServersOnly
    } else {
        RancherPasses::None
    }
}

/// What sets a key Rancher drops instead, when Rancher has a field for it.
pub fn rancher_field(key: &str) -> Option<&'static str> {
    RANCHER_SETS
        .iter()
        .find(|(name, _)| *name == key)
        .map(|(_, field)| *field)
}

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
    fn rancher_lists_are_sorted_and_name_rke2_flags() {
        for list in [RANCHER_AGENT_ARGS, RANCHER_SERVER_ARGS] {
            let mut sorted = list.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted, list);
            for key in list {
                assert_ne!(scope(key), Scope::Unknown, "{key}");
            }
        }
        for (key, _) in RANCHER_SETS {
            assert_eq!(rancher_passes(key), RancherPasses::None, "{key}");
            assert_ne!(scope(key), Scope::Unknown, "{key}");
        }
        assert_eq!(rancher_passes("kubelet-arg"), RancherPasses::EveryMachine);
        assert_eq!(rancher_passes("pause-image"), RancherPasses::ServersOnly);
        assert_eq!(
            rancher_passes("etcd-snapshot-retention"),
            RancherPasses::None
        );
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

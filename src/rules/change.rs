//! HG701–HG717: what a change from one spec to another cannot do in place. The checks compare
//! the two resolved plans ([`ChangeContext`]); the findings point into the new spec. HG712–HG715
//! and HG717 are found while the change plan names its version steps ([`crate::change`]), so they
//! have no check here.

use super::{Context, declare_rules, node_pointer, windows_written};
use crate::diagnostic::{Diagnostic, Location, key, value};
use crate::plan::version::WindowsBuild;
use crate::plan::{NodePlan, SubnetSource, WindowsSetup};
use crate::spec::Runtime;

/// What a change rule reads: the spec and plan before the change, and after it.
pub struct ChangeContext<'a> {
    pub old: Context<'a>,
    pub new: Context<'a>,
}

pub type ChangeCheck = fn(&ChangeContext, &mut Vec<Diagnostic>);

declare_rules! {
    checks: ChangeCheck;
    /// ### What it checks
    /// That `network.clusterCidr` is the same before and after the change.
    ///
    /// ### Why it matters
    /// Every Node's `spec.podCIDR` is immutable once set (https://github.com/kubernetes/kubernetes/issues/71794),
    /// and kube-controller-manager fails when nodes hold subnets outside a changed `--cluster-cidr`
    /// (https://github.com/kubernetes/kubernetes/issues/50305, https://github.com/kubernetes/kubernetes/issues/75461).
    /// flannel's `net-conf.json` Network changes with it on every node at once. RKE2 does not support
    /// changing it after the cluster started (https://github.com/rancher/rke2/issues/11170). The change
    /// plan makes this a new cluster.
    ///
    /// ### Fix
    /// Keep the old `clusterCidr`, or build a new cluster with the new one and move the workloads;
    /// to add pod addresses on Linux nodes only, kubernetes-sigs/node-ipam-controller's multi-CIDR
    /// ranges are the upstream way (https://github.com/kubernetes-sigs/node-ipam-controller).
    ///
    /// ### References
    /// https://github.com/kubernetes/kubernetes/issues/71794; https://github.com/kubernetes/kubernetes/issues/50305;
    /// https://github.com/rancher/rke2/issues/11170.
    CLUSTER_CIDR_CHANGED = ("HG701", "cluster-cidr-changed", Error, Some(check_cluster_cidr));

    /// ### What it checks
    /// That `network.serviceCidr` is the same before and after the change.
    ///
    /// ### Why it matters
    /// The apiserver's `--service-cluster-ip-range`, the cluster DNS address every kubelet
    /// hands its pods, and every Service's ClusterIP come from it; kubeadm and RKE2 set it when the
    /// cluster is created (https://github.com/rancher/rke2/issues/11170). The change plan makes this a
    /// new cluster.
    ///
    /// ### Fix
    /// Keep the old `serviceCidr`; from Kubernetes 1.33 a range can be added with a ServiceCIDR
    /// object instead (https://kubernetes.io/docs/tasks/network/extend-service-ip-ranges/), which
    /// hybridgen does not plan.
    ///
    /// ### References
    /// https://kubernetes.io/docs/tasks/network/extend-service-ip-ranges/; https://github.com/rancher/rke2/issues/11170.
    SERVICE_CIDR_CHANGED = ("HG702", "service-cidr-changed", Error, Some(check_service_cidr));

    /// ### What it checks
    /// That the size of each node's pod subnet (`network.nodeCidrMaskSize`) is unchanged.
    ///
    /// ### Why it matters
    /// Every node holds a subnet of the old size in its immutable `spec.podCIDR`
    /// (https://github.com/kubernetes/kubernetes/issues/71794): no node can take the new size
    /// without leaving the cluster, and kube-controller-manager cannot hand out subnets of two
    /// sizes from one range. The change plan makes this a new cluster.
    ///
    /// ### Fix
    /// Keep the old `nodeCidrMaskSize`, or build a new cluster.
    ///
    /// ### References
    /// https://github.com/kubernetes/kubernetes/issues/71794; https://github.com/rancher/rke2/issues/11170.
    NODE_MASK_CHANGED = ("HG703", "node-cidr-mask-changed", Error, Some(check_node_mask));

    /// ### What it checks
    /// That `flannel.backend` is unchanged.
    ///
    /// ### Why it matters
    /// Linux and Windows flanneld must run the same backend: between the restart of the first
    /// flanneld and the last no pod reaches a pod on a node of the other backend, so this is an
    /// outage window for every node at once, and on Windows the HNS network changes type
    /// (overlay for vxlan, l2bridge for host-gw) and is created again
    /// (https://github.com/flannel-io/flannel/blob/master/Documentation/backends.md).
    ///
    /// ### Fix
    /// Plan the outage: apply the new flannel configuration to every node in one window, as the
    /// change plan's step says, or keep the backend.
    ///
    /// ### References
    /// https://github.com/flannel-io/flannel/blob/master/Documentation/backends.md;
    /// https://github.com/rancher/rke2/issues/11170.
    BACKEND_CHANGED = ("HG704", "flannel-backend-changed", Warning, Some(check_backend));

    /// ### What it checks
    /// That flannel's VXLAN network identifier (`flannel.vni`) and UDP port (`flannel.port`) are
    /// unchanged.
    ///
    /// ### Why it matters
    /// A node only decapsulates VXLAN packets of its own VNI on its own port: while some nodes
    /// run the old values and some the new, they cannot reach each other's pods. It is an
    /// outage window for every node at once; on Windows the VNI is also in the HNS network's name
    /// (`flannel.4096`) and the network is created again
    /// (https://github.com/flannel-io/flannel/blob/master/Documentation/backends.md#vxlan).
    ///
    /// ### Fix
    /// Keep VNI 4096 and port 4789 (what Windows needs), or plan the outage window the change plan
    /// names.
    ///
    /// ### References
    /// https://github.com/flannel-io/flannel/blob/master/Documentation/backends.md#vxlan;
    /// https://kubernetes.io/docs/concepts/services-networking/windows-networking/.
    VXLAN_IDENTITY_CHANGED = ("HG705", "vxlan-vni-or-port-changed", Warning, Some(check_vxlan_identity));

    /// ### What it checks
    /// That the HNS network flannel uses on Windows (`flannel.networkName`) keeps its name.
    ///
    /// ### Why it matters
    /// flanneld on Windows waits for the HNS network of that name; the CNI configuration and
    /// kube-proxy's `--network-name` name it too. A renamed network is a new network: every
    /// Windows node is drained and joins again (https://github.com/kubernetes-sigs/sig-windows-tools/issues/198).
    ///
    /// ### Fix
    /// Keep the old name, or drain and rejoin every Windows node as the change plan says.
    ///
    /// ### References
    /// https://github.com/kubernetes-sigs/sig-windows-tools/issues/198;
    /// https://github.com/flannel-io/flannel/blob/master/Documentation/backends.md#vxlan.
    WINDOWS_NETWORK_RENAMED = ("HG706", "windows-network-renamed", Warning, Some(check_network_name));

    /// ### What it checks
    /// That a node staying in the cluster keeps its pod subnet where the spec decides it (a
    /// pinned `podCidr`, or `podCidrs: hybridgen`).
    ///
    /// ### Why it matters
    /// A Node's `spec.podCIDR` cannot change once set: the Node object has to be deleted and the
    /// node joined again (https://github.com/kubernetes/kubernetes/issues/71794). With `podCidrs:
    /// hybridgen`, adding or removing a node before another one moves that one's subnet too.
    ///
    /// ### Fix
    /// Pin the subnet the node holds today (`podCidr`), or drain and rejoin the node as the change
    /// plan says.
    ///
    /// ### References
    /// https://github.com/kubernetes/kubernetes/issues/71794.
    POD_CIDR_MOVED = ("HG707", "pod-cidr-moved", Warning, Some(check_pod_cidr_moved));

    /// ### What it checks
    /// That `kubernetes.distribution` is unchanged.
    ///
    /// ### Why it matters
    /// No distribution converts a running cluster into another: RKE1 to RKE2 is a new cluster
    /// and a migration of the workloads ("Users should build new RKE2 clusters and migrate
    /// individual workloads", https://github.com/rancher/rke2/issues/562), and Windows workloads move
    /// from RKE1's `cattle.io/os` tolerations to node selectors
    /// (https://ranchermanager.docs.rancher.com/v2.10/how-to-guides/new-user-guides/kubernetes-clusters-in-rancher-setup/use-windows-clusters/workload-migration-guidance).
    ///
    /// ### Fix
    /// Build the new cluster from the new spec beside the old one and move the workloads.
    ///
    /// ### References
    /// https://github.com/rancher/rke2/issues/562;
    /// https://ranchermanager.docs.rancher.com/v2.10/how-to-guides/new-user-guides/kubernetes-clusters-in-rancher-setup/use-windows-clusters/workload-migration-guidance.
    DISTRIBUTION_CHANGED = ("HG708", "distribution-changed", Error, Some(check_distribution));

    /// ### What it checks
    /// That a Windows node keeps its Windows Server build (2019 is 17763, 2022 is 20348, 2025 is
    /// 26100); a newer revision of the same build is an update in place.
    ///
    /// ### Why it matters
    /// Process-isolated containers need the host's build: a Windows Server 2019 node cannot run
    /// 2022 images (https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility).
    /// Providers move Windows nodes to a new build by new nodes, not by upgrading the host
    /// (https://github.com/openshift/openshift-docs/pull/111691).
    ///
    /// ### Fix
    /// Replace the node: drain and delete it, install the new Windows Server, and join it again
    /// with the files `render` writes, as the change plan says.
    ///
    /// ### References
    /// https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility;
    /// https://github.com/openshift/openshift-docs/pull/111691.
    WINDOWS_BUILD_CHANGED = ("HG709", "windows-host-build-changed", Warning, Some(check_windows_build));

    /// ### What it checks
    /// That the Windows runtime (`windows.runtime`) does not move from dockerd to containerd.
    ///
    /// ### Why it matters
    /// The kubelet lost dockershim in 1.24 (https://kubernetes.io/blog/2022/02/17/dockershim-faq/);
    /// switching a node's runtime in place left nodes on Docker where the switch was meant to
    /// happen (https://github.com/MicrosoftDocs/azure-docs/issues/87523). Images, networks and the
    /// kubelet's configuration all change: the node is replaced.
    ///
    /// ### Fix
    /// Replace each Windows node: drain and delete it, then join a clean host with containerd.
    ///
    /// ### References
    /// https://kubernetes.io/blog/2022/02/17/dockershim-faq/; https://github.com/MicrosoftDocs/azure-docs/issues/87523.
    DOCKERSHIM_TO_CONTAINERD = ("HG710", "dockershim-to-containerd", Warning, Some(check_runtime));

    /// ### What it checks
    /// That the way Windows nodes are set up does not move from sig-windows-tools' KubeCluster.ps1
    /// (Kubernetes before 1.24) to HostProcess DaemonSets.
    ///
    /// ### Why it matters
    /// KubeCluster.ps1 runs flanneld and kube-proxy as Windows services on dockerd, with its own
    /// HNS network; the HostProcess path runs them as DaemonSets on containerd. Nothing converts
    /// one into the other: OpenShift's Windows operator de-configures and reinstalls
    /// (https://github.com/openshift/enhancements/pull/962). The Windows nodes are replaced.
    ///
    /// ### Fix
    /// Replace each Windows node with one joined by the rendered `join.ps1`, after the control
    /// plane reached 1.24 or later.
    ///
    /// ### References
    /// https://github.com/openshift/enhancements/pull/962;
    /// https://github.com/kubernetes-sigs/sig-windows-tools/tree/master/hostprocess.
    KUBECLUSTER_TO_HOSTPROCESS = ("HG711", "kubecluster-to-hostprocess", Warning, Some(check_setup));

    /// ### What it checks
    /// That `kubernetes.version` does not go back.
    ///
    /// ### Why it matters
    /// kubeadm and RKE2 upgrade; neither downgrades a control plane, whose etcd data the newer
    /// apiserver may already have written in a newer form
    /// (https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/).
    ///
    /// ### Fix
    /// Restore the control plane from the etcd backup taken before the upgrade, or keep the newer
    /// version.
    ///
    /// ### References
    /// https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/; https://docs.rke2.io/upgrades/roll-back.
    KUBERNETES_DOWNGRADE = ("HG712", "kubernetes-downgrade", Error, None);

    /// ### What it checks
    /// That both Kubernetes versions of the change are minors the release table knows, so that
    /// every step between them can be named.
    ///
    /// ### Why it matters
    /// The change plan moves one minor at a time through releases the table lists; a minor past
    /// the table has no row to check a step against (https://kubernetes.io/releases/).
    ///
    /// ### Fix
    /// Write a version of the table (`hybridgen explain HG319` lists the range).
    ///
    /// ### References
    /// https://kubernetes.io/releases/; https://kubernetes.io/releases/version-skew-policy/.
    KUBERNETES_OUTSIDE_TABLE = ("HG713", "kubernetes-release-outside-table", Error, None);

    /// ### What it checks
    /// That the Windows nodes' containerd does not go back to an older release.
    ///
    /// ### Why it matters
    /// An older containerd may not read the newer one's configuration format or state, and its
    /// maintainers support upgrades only (https://github.com/containerd/containerd/issues/12727).
    ///
    /// ### Fix
    /// Keep the newer `windows.containerd.version`, or replace the node.
    ///
    /// ### References
    /// https://github.com/containerd/containerd/blob/main/RELEASES.md;
    /// https://github.com/containerd/containerd/issues/12727.
    CONTAINERD_DOWNGRADE = ("HG714", "containerd-downgrade", Error, None);

    /// ### What it checks
    /// That each containerd line the upgrade passes through is in hybridgen's containerd table.
    ///
    /// ### Why it matters
    /// containerd upgrades one line at a time, through the newest patch of each
    /// (https://github.com/containerd/containerd/issues/12727); for a line the table lacks no
    /// step can be named.
    ///
    /// ### Fix
    /// Pin a containerd release of a line the table lists (1.6 to 2.3).
    ///
    /// ### References
    /// https://github.com/containerd/containerd/issues/12727; https://github.com/containerd/containerd/blob/main/RELEASES.md.
    CONTAINERD_LINE_UNKNOWN = ("HG715", "containerd-line-unknown", Error, None);

    /// ### What it checks
    /// That a node keeps its name: a node removed and one added at the same address is a rename.
    ///
    /// ### Why it matters
    /// The Node object is named after the host and its name cannot change; a renamed node is a
    /// new Node, which gets a new pod subnet (https://github.com/kubernetes/kubernetes/issues/71794),
    /// so the old one is drained and deleted and the host joins again.
    ///
    /// ### Fix
    /// Keep the old name, or drain, delete and rejoin the node as the change plan says.
    ///
    /// ### References
    /// https://kubernetes.io/docs/concepts/architecture/nodes/#node-name-uniqueness.
    NODE_RENAMED = ("HG716", "node-renamed", Warning, Some(check_renamed));

    /// ### What it checks
    /// That each minor an upgrade passes through has a release in hybridgen's tables that no
    /// advisory flags (for RKE2, the releases of `rancher/rke2`; for their bundled flannel, the
    /// advisories of HG320).
    ///
    /// ### Why it matters
    /// Skipping a minor is unsupported (https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/kubeadm-upgrade/,
    /// https://docs.rke2.io/upgrades/manual_upgrade): without a release to stop at, the change cannot
    /// be made in legal steps.
    ///
    /// ### Fix
    /// Move to the newest minor the tables hold a release of first, or pick a release of the
    /// missing minor from https://github.com/rancher/rke2/releases and write it as a step of its own.
    ///
    /// ### References
    /// https://docs.rke2.io/upgrades/manual_upgrade; https://github.com/rancher/rke2/releases.
    UPGRADE_RELEASE_UNAVAILABLE = ("HG717", "upgrade-release-unavailable", Error, None);
}

/// Runs every change rule's check; findings come back in rule order.
pub fn run(context: &ChangeContext) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for check in RULES.iter().filter_map(|registered| registered.check) {
        check(context, &mut found);
    }
    found
}

/// The value's place when the new spec writes it, else the key of the block that holds it.
fn written_or_block(written: bool, pointer: &str) -> Location {
    if written {
        value(pointer)
    } else {
        let block = pointer.rsplit_once('/').map_or("", |(block, _)| block);
        key(block)
    }
}

/// The nodes present before and after, by name: (old index, new index).
pub(crate) fn staying_nodes(context: &ChangeContext) -> Vec<(usize, usize)> {
    let old = &context.old.plan.nodes;
    context
        .new
        .plan
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(new_index, node)| {
            let old_index = old.iter().position(|other| other.name == node.name)?;
            Some((old_index, new_index))
        })
        .collect()
}

fn check_cluster_cidr(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    if let (Ok(old), Ok(new)) = (
        &context.old.plan.cluster_cidr,
        &context.new.plan.cluster_cidr,
    ) && old != new
    {
        found.push(
            Diagnostic::new(
                &CLUSTER_CIDR_CHANGED,
                value("/network/clusterCidr"),
                format!("`clusterCidr` changes from `{old}` to `{new}`: every node's pod subnet is fixed when it joins, so this is a new cluster"),
            )
            .label(format!("was `{old}`"))
            .help(format!("keep `clusterCidr: {old}`, or build a new cluster from this spec and move the workloads")),
        );
    }
}

fn check_service_cidr(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    if let (Ok(old), Ok(new)) = (
        &context.old.plan.service_cidr,
        &context.new.plan.service_cidr,
    ) && old != new
    {
        found.push(
            Diagnostic::new(
                &SERVICE_CIDR_CHANGED,
                value("/network/serviceCidr"),
                format!("`serviceCidr` changes from `{old}` to `{new}`: the Service network is fixed when the cluster is created, so this is a new cluster"),
            )
            .label(format!("was `{old}`"))
            .help(format!("keep `serviceCidr: {old}`, or build a new cluster from this spec")),
        );
    }
}

fn check_node_mask(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    let (old, new) = (context.old.plan.node_mask, context.new.plan.node_mask);
    if old != new {
        let written = context.new.spec.network.node_cidr_mask_size.is_some();
        found.push(
            Diagnostic::new(
                &NODE_MASK_CHANGED,
                written_or_block(written, "/network/nodeCidrMaskSize"),
                format!("each node's pod subnet changes from a /{old} to a /{new}: every node holds its /{old} for good, so this is a new cluster"),
            )
            .label(format!("was /{old}"))
            .help(format!("keep `nodeCidrMaskSize: {old}`, or build a new cluster from this spec")),
        );
    }
}

fn check_backend(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    let (old, new) = (
        context.old.plan.flannel.backend,
        context.new.plan.flannel.backend,
    );
    if old != new {
        found.push(
            Diagnostic::new(
                &BACKEND_CHANGED,
                value("/flannel/backend"),
                format!("flannel's backend changes from `{}` to `{}`: an outage window for every node at once, Linux and Windows together", old.as_str(), new.as_str()),
            )
            .label(format!("was `{}`", old.as_str()))
            .help("plan one outage window and apply the new flannel configuration to every node in it"),
        );
    }
}

fn check_vxlan_identity(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    let (old, new) = (&context.old.plan.flannel, &context.new.plan.flannel);
    let spec = &context.new.spec.flannel;
    if old.vni != new.vni {
        found.push(
            Diagnostic::new(
                &VXLAN_IDENTITY_CHANGED,
                written_or_block(spec.vni.is_some(), "/flannel/vni"),
                format!("flannel's VNI changes from {} to {}: an outage window for every node at once, Linux and Windows together", old.vni, new.vni),
            )
            .label(format!("was {}", old.vni))
            .help(format!("keep `vni: {}`, or plan one outage window for every node", old.vni)),
        );
    }
    if old.port != new.port {
        found.push(
            Diagnostic::new(
                &VXLAN_IDENTITY_CHANGED,
                written_or_block(spec.port.is_some(), "/flannel/port"),
                format!("flannel's VXLAN port changes from {} to {}: an outage window for every node at once, Linux and Windows together", old.port, new.port),
            )
            .label(format!("was {}", old.port))
            .help(format!("keep `port: {}`, or plan one outage window for every node", old.port)),
        );
    }
}

fn check_network_name(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    let (old, new) = (&context.old.plan, &context.new.plan);
    if !(old.has_windows() && new.has_windows()) {
        return;
    }
    let (before, after) = (&old.flannel.network_name, &new.flannel.network_name);
    if before != after {
        let written = context.new.spec.flannel.network_name.is_some();
        found.push(
            Diagnostic::new(
                &WINDOWS_NETWORK_RENAMED,
                written_or_block(written, "/flannel/networkName"),
                format!("the Windows HNS network is renamed from `{before}` to `{after}`: every Windows node is drained and joins again"),
            )
            .label(format!("was `{before}`"))
            .help(format!("keep `networkName: {before}`, or drain and rejoin every Windows node")),
        );
    }
}

/// Whether the spec decides the node's subnet (rather than kube-controller-manager).
fn spec_decides(node: &NodePlan) -> bool {
    matches!(
        node.subnet_source,
        SubnetSource::Pinned | SubnetSource::Assigned
    )
}

/// The subnet a staying node moves from and to, when the spec decides it and it moves.
pub(crate) fn pod_cidr_move(
    context: &ChangeContext,
    old_index: usize,
    new_index: usize,
) -> Option<(ipnet::Ipv4Net, ipnet::Ipv4Net)> {
    let old = &context.old.plan.nodes[old_index];
    let new = &context.new.plan.nodes[new_index];
    let (before, after) = (old.pod_subnet?, new.pod_subnet?);
    (before != after && (spec_decides(old) || spec_decides(new))).then_some((before, after))
}

fn check_pod_cidr_moved(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    for (old_index, new_index) in staying_nodes(context) {
        let Some((before, after)) = pod_cidr_move(context, old_index, new_index) else {
            continue;
        };
        let new = &context.new.plan.nodes[new_index];
        let written = context.new.spec.nodes[new_index].pod_cidr.is_some();
        let location = value(node_pointer(
            new_index,
            if written { "podCidr" } else { "name" },
        ));
        found.push(
            Diagnostic::new(
                &POD_CIDR_MOVED,
                location,
                format!("node `{}` moves from pod subnet `{before}` to `{after}`: a Node's `podCIDR` cannot change, so it is drained, deleted and joins again", new.name),
            )
            .label(format!("holds `{before}` today"))
            .help(format!("pin `podCidr: {before}` on the node, or drain and rejoin it")),
        );
    }
}

fn check_distribution(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    let (old, new) = (context.old.plan.distribution, context.new.plan.distribution);
    if old.distribution != new.distribution {
        let written = context.new.spec.kubernetes.distribution.is_some();
        found.push(
            Diagnostic::new(
                &DISTRIBUTION_CHANGED,
                written_or_block(written, "/kubernetes/distribution"),
                format!("the distribution changes from {} to {}: no distribution converts a running cluster, so this is a new cluster", old.title, new.title),
            )
            .label(format!("was {}", old.title))
            .help("build the new cluster from this spec beside the old one and move the workloads"),
        );
    }
}

/// The Windows builds a staying node moves between, when the build number changes.
pub(crate) fn windows_build_change(
    context: &ChangeContext,
    old_index: usize,
    new_index: usize,
) -> Option<(u32, u32)> {
    let old = windows_build_of(&context.old.plan.nodes[old_index])?;
    let new = windows_build_of(&context.new.plan.nodes[new_index])?;
    (old.build != new.build).then_some((old.build, new.build))
}

fn check_windows_build(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    for (old_index, new_index) in staying_nodes(context) {
        let Some((before, after)) = windows_build_change(context, old_index, new_index) else {
            continue;
        };
        let node = &context.new.plan.nodes[new_index];
        let Some(windows) = node.windows.as_deref() else {
            continue;
        };
        let name = &node.name;
        let (before_name, after_name) = (
            crate::plan::releases::windows::name(before),
            crate::plan::releases::windows::name(after),
        );
        found.push(
            Diagnostic::new(
                &WINDOWS_BUILD_CHANGED,
                value(windows.build_pointer.clone()),
                format!("Windows node `{name}` moves from {before_name} (build {before}) to {after_name} (build {after}): a host's build is replaced, not upgraded"),
            )
            .label(format!("was build {before}"))
            .help(format!("replace `{name}`: drain and delete it, install {after_name}, and join it with the rendered files")),
        );
    }
}

pub(crate) fn windows_build_of(node: &NodePlan) -> Option<WindowsBuild> {
    match &node.windows.as_deref()?.build {
        Some(Ok(build)) => Some(*build),
        _ => None,
    }
}

fn check_runtime(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    let (Some(old), Some(new)) = (&context.old.plan.windows, &context.new.plan.windows) else {
        return;
    };
    if !(context.old.plan.has_windows() && context.new.plan.has_windows()) {
        return;
    }
    if old.runtime == Runtime::Dockerd && new.runtime == Runtime::Containerd {
        let written = windows_written(context.new.spec, |windows| windows.runtime.is_some());
        found.push(
            Diagnostic::new(
                &DOCKERSHIM_TO_CONTAINERD,
                written_or_block(written, "/windows/runtime"),
                "the Windows nodes move from dockerd (dockershim) to containerd: each Windows node is replaced".to_string(),
            )
            .label("was `dockerd`")
            .help("replace each Windows node: drain and delete it, then join a clean host with the rendered `join.ps1`"),
        );
    }
}

fn check_setup(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    let (old, new) = (
        context.old.plan.windows_setup,
        context.new.plan.windows_setup,
    );
    if old == Some(WindowsSetup::KubeCluster) && new == Some(WindowsSetup::HostProcess) {
        let location =
            if windows_written(context.new.spec, |windows| windows.host_process.is_some()) {
                key("/windows/hostProcess")
            } else {
                value("/kubernetes/version")
            };
        found.push(
            Diagnostic::new(
                &KUBECLUSTER_TO_HOSTPROCESS,
                location,
                "the Windows nodes move from KubeCluster.ps1 to HostProcess DaemonSets: each Windows node is replaced".to_string(),
            )
            .label("set up by KubeCluster.ps1 before")
            .help("replace each Windows node with one joined by the rendered `join.ps1`, once the control plane runs 1.24 or later"),
        );
    }
}

/// The old node a new one renames: a node of the same OS at the same address whose name is gone.
pub(crate) fn renamed_from(context: &ChangeContext, new_index: usize) -> Option<usize> {
    let (old, new) = (&context.old.plan.nodes, &context.new.plan.nodes);
    let node = &new[new_index];
    if old.iter().any(|other| other.name == node.name) {
        return None;
    }
    let address = node.address.as_ref().ok()?;
    old.iter().position(|other| {
        other.address.as_ref().ok() == Some(address)
            && other.os == node.os
            && !new.iter().any(|kept| kept.name == other.name)
    })
}

fn check_renamed(context: &ChangeContext, found: &mut Vec<Diagnostic>) {
    for (new_index, node) in context.new.plan.nodes.iter().enumerate() {
        let Some(old_index) = renamed_from(context, new_index) else {
            continue;
        };
        let before = &context.old.plan.nodes[old_index].name;
        found.push(
            Diagnostic::new(
                &NODE_RENAMED,
                value(node_pointer(new_index, "name")),
                format!("node `{before}` is renamed `{}`: the old Node is drained and deleted and the host joins again", node.name),
            )
            .label(format!("was `{before}`"))
            .help(format!("keep the name `{before}`, or drain, delete and rejoin the host")),
        );
    }
}

//! HG5xx: the plan against the live cluster (`hybridgen verify`). Each check compares what the
//! spec plans with what kubectl captured, points at the spec field or node that disagrees, and
//! quotes the live value with where it was read.

use super::hostprocess::maintained_containerd;
use super::{declare_rules, listing, node_pointer};
use crate::diagnostic::{Diagnostic, key, value};
use crate::live::{Embedded, Live, LiveCluster, LiveDaemonSet, LiveNode, LivePod, Matching};
use crate::plan::releases::advisories::{self, ADVISORIES, Advisory, Affected, Certainty, Scope};
use crate::plan::releases::rke2::{self, WindowsFlannel};
use crate::plan::releases::windows::{self, Has, Update};
use crate::plan::releases::{containerd, kubernetes};
use crate::plan::version::{Release, WindowsBuild};
use crate::plan::{NodePlan, Plan, PodCidrs, SubnetSource};
use crate::spec::{Backend, Os, Spec};
use ipnet::Ipv4Net;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// What a live check reads: the spec, its plan, the captured cluster and which live node each
/// planned node is.
pub struct LiveContext<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
    pub cluster: &'a LiveCluster,
    pub matching: &'a Matching,
    /// `verify --out DIR`: the pod subnets the routes in DIR were rendered from.
    pub rendered: Option<&'a RenderedRoutes>,
}

/// What the manifest of a rendered directory says of the pod subnets its routes hold
/// (`verify --out DIR`): those `render --kubectl` or `--cluster` read from the cluster, the
/// others predicted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedRoutes {
    /// The directory, as the command line names it.
    pub out: String,
    /// How the render read the cluster (`read with kubectl`); `None`: it rendered without it.
    pub source: Option<String>,
    /// By planned node name: the subnet read from the cluster, `None` when it was predicted.
    pub subnets: BTreeMap<String, Option<Ipv4Net>>,
}

impl RenderedRoutes {
    /// The subnet the routes in the directory hold for a node predicted `predicted`: the one read
    /// from the cluster, else the prediction.
    pub fn routed(&self, name: &str, predicted: Ipv4Net) -> Ipv4Net {
        self.subnets
            .get(name)
            .copied()
            .flatten()
            .unwrap_or(predicted)
    }

    /// Whether the routes were rendered from the cluster for every planned node: then the spec's
    /// warning that routes come from predictions (HG117) does not hold for this directory.
    pub fn covers_every_node(&self, plan: &Plan) -> bool {
        self.source.is_some()
            && plan
                .nodes
                .iter()
                .all(|node| matches!(self.subnets.get(&node.name), Some(Some(_))))
    }
}

pub type LiveCheck = fn(&LiveContext, &mut Vec<Diagnostic>);

declare_rules! {
    checks: LiveCheck;

    /// ### What it checks
    /// That every planned node is in the cluster (matched by name as Kubernetes registers it —
    /// lower case, or the first label of a qualified name — else by address), when the nodes
    /// were captured as a list (`kubectl get nodes`); single Node objects say nothing of the
    /// others. Warning: a cluster node the spec does not declare.
    ///
    /// ### Why it matters
    /// A node that never joined has no pods; a node the plan does not know got a pod subnet and
    /// routes nobody planned, and the Windows and host-gw artifacts leave it out.
    ///
    /// ### Fix
    /// Join the node, or remove it from the spec; declare the nodes the cluster runs.
    ///
    /// ### References
    /// Kubernetes "Nodes" (node name uniqueness, `--hostname-override`); kubernetes/kubernetes
    /// `pkg/kubelet/nodestatus`.
    LIVE_NODE_MISSING = ("HG501", "live-node-missing", Error, Some(check_nodes_present));

    /// ### What it checks
    /// That each node's `kubernetes.io/os` label (else `beta.kubernetes.io/os`, else
    /// `status.nodeInfo.operatingSystem`) is the `os` the spec plans for it.
    ///
    /// ### Why it matters
    /// The OS decides which DaemonSets, images and network setup a node gets: a Windows node
    /// planned as Linux gets no Windows flanneld or kube-proxy, and the reverse.
    ///
    /// ### Fix
    /// Correct the node's `os` in the spec, or the node's `--node-labels`.
    ///
    /// ### References
    /// Kubernetes "Well-Known Labels, Annotations and Taints" (`kubernetes.io/os`).
    LIVE_NODE_OS_MISMATCH = ("HG502", "live-node-os-mismatch", Error, Some(check_node_os));

    /// ### What it checks
    /// Each node's `spec.podCIDR`: allocated, inside `clusterCidr`, of the planned
    /// `nodeCidrMaskSize`, and equal to a pinned `podCidr` (with `podCidrs: hybridgen`, to every
    /// node's planned subnet); and, when pods were captured, that each pod's address lies in its
    /// node's subnet. Under `podCidrs: controller` kube-controller-manager hands out the subnets the
    /// spec does not pin in the order nodes join: when host-gw routes are rendered (a cloud's route
    /// table, or per-host scripts), a node whose subnet is not the predicted one is a warning,
    /// since routes rendered without the cluster send its subnet elsewhere. With `verify --out DIR`
    /// the routes are those rendered in DIR: a node whose subnet a `render --kubectl` (or
    /// `--cluster`) read into DIR is compared with that subnet, and warned about only when the
    /// cluster changed since.
    ///
    /// ### Why it matters
    /// flannel refuses a node without a podCIDR ("failed to acquire lease: node ... pod cidr not
    /// assigned") or outside its `Network`, a pod outside its node's subnet cannot be routed, and a
    /// route to the wrong node drops host-gw traffic without an error.
    ///
    /// ### Fix
    /// Re-render the routes from the cluster: `hybridgen render SPEC --out DIR --kubectl` (or
    /// `--cluster` with a capture) takes each joined node's `spec.podCIDR`; then `hybridgen
    /// verify SPEC --kubectl --out DIR` knows the routes in DIR hold them. Let
    /// kube-controller-manager allocate node subnets from the planned range (kubeadm:
    /// `networking.podSubnet`, as `kubeadm/kubeadm-config.yaml` sets it), or with
    /// `podCidrs: hybridgen` run `pod-cidrs/assign.sh`; re-register a node whose subnet is wrong.
    ///
    /// ### References
    /// flannel-io/flannel `pkg/subnet/kube/kube.go`; flannel-io/flannel#728, #1224, #1344, #1437,
    /// #1558; kubernetes/kubernetes#103898; MicrosoftDocs/Virtualization-Documentation#1013;
    /// kubernetes/kubernetes `pkg/apis/core/validation/validation.go` (`ValidateNodeUpdate`: a
    /// node's subnet is set once).
    LIVE_POD_CIDR_MISMATCH = ("HG503", "live-pod-cidr-mismatch", Error, Some(check_pod_cidrs));

    /// ### What it checks
    /// Each Windows node's `status.nodeInfo.kernelVersion` (`10.0.BUILD.REVISION`, the only field
    /// with the revision; `osImage` never names the build): the planned build, the revision at
    /// least the planned one, and with vxlan the update overlay networking needs, as HG302 checks
    /// the planned build: on build 17763 revision 379 (KB4489899), on build 26100 revision 6899
    /// (KB5066835). Warning: no revision in it.
    ///
    /// ### Why it matters
    /// Process-isolated Windows containers need images of the host's build; overlay networking on
    /// Windows Server 2019 needs KB4489899, and on Windows Server 2025 was broken until KB5066835.
    ///
    /// ### Fix
    /// Update the node, or correct `windows.build` (or the node's `windowsBuild`) to what it runs.
    ///
    /// ### References
    /// kubernetes/kubernetes `pkg/kubelet/winstats/version.go` (`GetPatchVersion`);
    /// kubernetes/website `windows-networking.md` (KB4489899); rancher/rancher#50915 (KB5066835).
    LIVE_WINDOWS_BUILD = ("HG504", "live-windows-build", Error, Some(check_windows_builds));

    /// ### What it checks
    /// flannel's `net-conf.json` (ConfigMap `kube-flannel-cfg`): `Network`, `Backend.Type`, and for
    /// vxlan `Backend.VNI` and `Backend.Port` (unset: flannel's defaults 1 and 8472) against the
    /// plan; and each node's flannel `backend-type` annotation.
    ///
    /// ### Why it matters
    /// flanneld reads its network and backend from this file: a `Network` other than the cluster
    /// range makes it refuse the nodes' subnets, and a VNI or port other than Windows' breaks
    /// Linux–Windows pod traffic without an error.
    ///
    /// ### Fix
    /// Apply the `kube-flannel.yml` hybridgen renders, and restart the flannel pods.
    ///
    /// ### References
    /// flannel-io/flannel `Documentation/configuration.md`, `Documentation/backends.md`;
    /// flannel-io/flannel#1983.
    LIVE_NET_CONF_MISMATCH = ("HG505", "live-net-conf-mismatch", Error, Some(check_net_conf));

    /// ### What it checks
    /// vxlan: the VNI each node's flanneld announces in its `backend-data` annotation, against the
    /// planned VNI and each other. flanneld on Linux before v0.14.0 records no VNI there (its
    /// lease held the VTEP MAC only) and runs the VNI of `net-conf.json`, which HG505 compares;
    /// warning: such nodes when flannel's ConfigMap was not captured, so nothing compares it.
    ///
    /// ### Why it matters
    /// Linux flanneld defaults to VNI 1 while Windows needs 4096: nodes on different VNIs drop each
    /// other's pod traffic, silently.
    ///
    /// ### Fix
    /// Set `"VNI": 4096` in `net-conf.json` (the rendered `kube-flannel.yml` does) and restart
    /// flanneld on every node. When the captured `net-conf.json` already says so, the nodes on
    /// another VNI kept the one their flanneld read at start: restart flanneld on those nodes.
    ///
    /// ### References
    /// flannel-io/flannel `pkg/subnet/kube/annotations.go`; k3s-io/k3s#9295; rancher/rke2#5952;
    /// rancher/rancher#26609.
    LIVE_VNI_MISMATCH = ("HG506", "live-vni-mismatch", Error, Some(check_vnis));

    /// ### What it checks
    /// The cluster's own configuration against the plan: kubeadm's `ClusterConfiguration`
    /// (`networking.podSubnet`, `serviceSubnet`, `dnsDomain`, the controller manager's
    /// `node-cidr-mask-size`, as a v1beta3 map or a v1beta4 list), kube-proxy's `clusterCIDR`, the
    /// kubelet's `clusterDNS` and `clusterDomain`; on k3s and RKE2, which have no kubeadm
    /// ConfigMap, the server flags their `node-args` annotation records. What was not captured is
    /// not compared, and the report says so.
    ///
    /// ### Why it matters
    /// A pod subnet kubeadm allocates from that is not flannel's `Network` makes flannel crash-loop;
    /// a Service range or DNS address other than planned breaks DNS for every pod.
    ///
    /// ### Fix
    /// Set up the cluster with the rendered `kubeadm/kubeadm-config.yaml`, or correct the spec to
    /// what the cluster runs.
    ///
    /// ### References
    /// kubeadm configuration (v1beta3, v1beta4); kube-proxy `KubeProxyConfiguration`; flannel-io/flannel#1983;
    /// kubernetes/kubernetes#103898.
    LIVE_CLUSTER_CONFIG_MISMATCH = ("HG507", "live-cluster-config-mismatch", Error, Some(check_cluster_config));

    /// ### What it checks
    /// With Windows nodes: that the Linux flannel and kube-proxy DaemonSets cannot schedule onto
    /// Windows (a `kubernetes.io/os: linux` node selector or affinity, or a taint on every Windows
    /// node that they do not tolerate), the Windows ones (`*-windows`) not onto Linux, and no
    /// DaemonSet reports misscheduled pods. Transient taints (`node.kubernetes.io/not-ready`,
    /// `unreachable`, ..., `node.cloudprovider.kubernetes.io/uninitialized`) keep nothing off.
    /// And on every cluster: that the Linux flannel DaemonSet tolerates each planned Linux
    /// node's taints.
    ///
    /// ### Why it matters
    /// A Linux DaemonSet on a Windows node crash-loops there and keeps the node from being Ready;
    /// kube-proxy DaemonSets made before kubeadm set a Linux node selector
    /// (kubernetes/kubernetes#76327), old flannel manifests and hand-edited ones carry no OS
    /// constraint, and kube-proxy tolerates every taint. A Linux node whose taint flannel does
    /// not tolerate gets no flannel pod and stays NotReady: no rke2-flannel chart tolerates
    /// `CriticalAddonsOnly=true:NoExecute` (rancher/rke2#5629).
    ///
    /// ### Fix
    /// Run `patches/apply.sh` from `hybridgen render`, which pins them to Linux; remove a taint
    /// flannel does not tolerate from the Linux node.
    ///
    /// ### References
    /// Kubernetes "Guide for adding Windows Nodes" (node selectors for Linux DaemonSets);
    /// Kubernetes "Taints and Tolerations"; kubernetes/kubernetes#76327; rancher/rke2-charts
    /// `charts/rke2-flannel` (`flannel.tolerations`).
    LIVE_DAEMONSET_PLACEMENT = ("HG508", "live-daemonset-placement", Error, Some(check_daemonsets));

    /// ### What it checks
    /// That each captured file is kubectl's JSON or YAML of the kinds `verify` reads (Node,
    /// ConfigMap, DaemonSet, Pod, and RKE2's HelmChart and HelmChartConfig): a `List`, a typed
    /// list or one object. `kubectl describe` text, a `kubectl get` table (`-o wide`), a
    /// truncated file or something that is no Kubernetes object is an error; an object of
    /// another kind is a warning, since nothing compares it.
    /// Also errors: captures holding no Node, DaemonSet or Pod (every cluster runs them), an
    /// empty capture of a list kubectl always prints, and a compared value of the wrong type or
    /// shape (a number for `Network`, garbage for a Windows `kernelVersion`), naming file and
    /// field.
    ///
    /// ### Why it matters
    /// A capture that cannot be read would leave part of the cluster unchecked without a word.
    ///
    /// ### Fix
    /// Capture with the command the help gives (`hybridgen verify SPEC --print-capture` prints
    /// them all), or let `hybridgen verify --kubectl` run them.
    ///
    /// ### References
    /// kubectl "Output options" (`-o json`, `-o yaml`).
    CAPTURE_UNREADABLE = ("HG509", "live-capture-unreadable", Error, None);

    /// ### What it checks
    /// That each node's `InternalIP` is its planned `address`, and that the address flanneld
    /// announces (`public-ip` annotation) is too.
    ///
    /// ### Why it matters
    /// The kubelet and flanneld pick an interface themselves when not told: on a Windows node or a
    /// VM with a NAT adapter they pick the wrong one, and pod traffic to that node goes nowhere.
    ///
    /// ### Fix
    /// Set the kubelet's `--node-ip` and flanneld's `--iface` to the planned address (the rendered
    /// join files do), or correct the node's `address`.
    ///
    /// ### References
    /// microsoft/SDN#315; flannel-io/flannel#946; tsl0922/kubeadm-vagrant PR #1.
    LIVE_NODE_ADDRESS_MISMATCH = ("HG510", "live-node-address-mismatch", Error, Some(check_addresses));

    /// ### What it checks
    /// The releases the cluster runs against the tables `plan` checks the pinned ones with: each
    /// Windows node's build revision (`status.nodeInfo.kernelVersion`), its kube-proxy's release
    /// (the kubelet's, `status.nodeInfo.kubeletVersion`) and, on the HostProcess setup, the
    /// flanneld image tag of the Windows flannel DaemonSets against the advisory table (as
    /// HG320); on RKE2 with
    /// Windows nodes, the release the kubelets report (`v1.28.9+rke2r1`) against the Windows
    /// flannel it bundles (as HG602); each node's containerd
    /// (`status.nodeInfo.containerRuntimeVersion`) against its line's end of life (as HG313; RKE2
    /// and k3s bundle theirs, which their release decides). An error where the bug is shown for
    /// this setup, a warning where it is shown on a related one, for the early RKE2 releases and
    /// for a containerd past its end of life. One finding per advisory, naming its nodes.
    ///
    /// ### Why it matters
    /// A cluster planned on fixed releases can still run broken ones: nodes installed before an
    /// update, an image tag not bumped. flannel v0.25.3's Windows vxlan backend gives up waiting
    /// for an interface that is there; Windows Server 2022's July to September 2024 updates broke
    /// container networking on Kubernetes; RKE2's April and May 2024 charts default the Linux VNI
    /// to 1 while Windows uses 4096; a containerd line past its end of life gets no more fixes.
    ///
    /// ### Fix
    /// Upgrade what the message names to the fixed release its help gives: the Windows update
    /// (then write its revision in `windows.build`), the flannel image, the RKE2 release, or a
    /// maintained containerd line, one line at a time.
    ///
    /// ### References
    /// flannel-io/flannel 727fc083 and 42601e98; flannel-io/flannel#1852 and 761c2578;
    /// rancher/rke2#6171; microsoft/Windows-Containers#516; KB5044281; rancher/rke2#5952;
    /// containerd/containerd `RELEASES.md` (release lifecycle).
    LIVE_KNOWN_BROKEN_RELEASE = ("HG511", "live-known-broken-release", Error, Some(check_running_releases));
}

/// The matched pairs: planned node index, planned node, live node.
fn matched<'a>(
    context: &'a LiveContext,
) -> impl Iterator<Item = (usize, &'a NodePlan, &'a LiveNode)> + 'a {
    context
        .matching
        .live_of
        .iter()
        .enumerate()
        .filter_map(|(index, live)| {
            Some((
                index,
                context.plan.nodes.get(index)?,
                context.cluster.nodes.get((*live)?)?,
            ))
        })
}

fn check_nodes_present(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let cluster = context.cluster;
    if cluster.nodes.is_empty() {
        return;
    }
    let live_names = || listing(cluster.nodes.iter().map(|n| format!("`{}`", n.name)), 6);
    let missing = context.matching.live_of.iter().enumerate();
    for (index, live) in missing.filter(|_| cluster.all_nodes) {
        let Some(node) = context.plan.nodes.get(index).filter(|_| live.is_none()) else {
            continue;
        };
        let address = node
            .address
            .as_ref()
            .map_or_else(|_| String::new(), |address| format!(" ({address})"));
        found.push(
            Diagnostic::new(
                &LIVE_NODE_MISSING,
                value(node_pointer(index, "")),
                format!(
                    "node `{}`{address} is not in the cluster, which runs {}",
                    node.name,
                    live_names()
                ),
            )
            .label("not in the cluster")
            .help("join the node (its hostname, in lower case, must be its name), or remove it from the spec"),
        );
    }
    for live in &context.matching.undeclared {
        let Some(node) = cluster.nodes.get(*live) else {
            continue;
        };
        let address = node
            .internal_ip
            .as_ref()
            .map_or_else(String::new, |ip| format!(", address {}", ip.value));
        found.push(
            Diagnostic::new(
                &LIVE_NODE_MISSING,
                key("/nodes"),
                format!(
                    "the cluster runs node `{}` ({}{address}), which the spec does not declare",
                    node.name, node.source
                ),
            )
            .label("not declared")
            .help(format!(
                "declare `{}` under `nodes`, with its address, OS and roles",
                node.name
            ))
            .warning(),
        );
    }
}

fn check_node_os(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    for (index, planned, live) in matched(context) {
        let Some(os) = &live.os else { continue };
        if !os.value.eq_ignore_ascii_case(planned.os.as_str()) {
            found.push(
                Diagnostic::new(
                    &LIVE_NODE_OS_MISMATCH,
                    value(node_pointer(index, "os")),
                    format!(
                        "node `{}` runs `{}` ({}), but the spec plans `{}`",
                        planned.name,
                        os.value,
                        os.source,
                        planned.os.as_str()
                    ),
                )
                .label("planned OS")
                .help(format!(
                    "set `os: {}` for this node, or correct the node's labels",
                    os.value.to_ascii_lowercase()
                )),
            );
        }
    }
}

/// The command that renders routes from the cluster, for the helps.
const RENDER_FROM_CLUSTER: &str = "hybridgen render SPEC --out DIR --kubectl";

fn check_pod_cidrs(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let subnets = check_live_subnets(context, found);
    check_predictions(context, &subnets, found);
    check_pod_addresses(context, &subnets, found);
}

/// HG503 on the subnets alone, without the pods: what `render --cluster` checks before it takes
/// the joined nodes' subnets from the cluster.
pub fn live_subnet_findings(context: &LiveContext) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    check_live_subnets(context, &mut found);
    found
}

/// The subnet the plan holds each node to: its pin, or with `podCidrs: hybridgen` the plan's.
fn held_subnet(planned: &NodePlan) -> Option<Ipv4Net> {
    match (&planned.pinned, planned.subnet_source) {
        (Some(Ok(pinned)), _) => Some(*pinned),
        (None, SubnetSource::Assigned) => planned.pod_subnet,
        _ => None,
    }
}

/// Each matched node's subnet, checked: allocated, inside `clusterCidr`, of the planned size, and
/// the one the plan holds it to. Returns the subnets read, by planned node.
fn check_live_subnets(
    context: &LiveContext,
    found: &mut Vec<Diagnostic>,
) -> BTreeMap<usize, Ipv4Net> {
    let plan = context.plan;
    let mut subnets = BTreeMap::new();
    let Ok(cluster) = &plan.cluster_cidr else {
        return subnets;
    };
    let from_plan = plan.pod_cidrs == PodCidrs::Hybridgen;
    for (index, planned, live) in matched(context) {
        let Some(text) = &live.pod_cidr.value else {
            let help = match planned.pod_subnet.filter(|_| from_plan) {
                Some(subnet) => format!(
                    "run `bash pod-cidrs/assign.sh` from `hybridgen render`, which gives the node {subnet}"
                ),
                None => format!(
                    "let kube-controller-manager allocate node subnets from {cluster} (kubeadm: `networking.podSubnet`)"
                ),
            };
            found.push(
                Diagnostic::new(
                    &LIVE_POD_CIDR_MISMATCH,
                    value(node_pointer(index, "")),
                    format!(
                        "node `{}` has no pod subnet ({} is empty): {}, and flannel refuses the node",
                        planned.name,
                        live.pod_cidr.source,
                        if from_plan { "`pod-cidrs/assign.sh` has not set it yet" } else { "kube-controller-manager never allocated one" }
                    ),
                )
                .label("no podCIDR")
                .help(help),
            );
            continue;
        };
        let Ok(subnet) = text.parse::<Ipv4Net>() else {
            continue;
        };
        subnets.insert(index, subnet);
        let quoted = format!("`{text}` ({})", live.pod_cidr.source);
        if !cluster.contains(&subnet) {
            found.push(
                Diagnostic::new(
                    &LIVE_POD_CIDR_MISMATCH,
                    value("/network/clusterCidr"),
                    format!(
                        "node `{}` has pod subnet {quoted}, outside `clusterCidr` {cluster}",
                        planned.name,
                    ),
                )
                .label("planned pod network")
                .related(value(node_pointer(index, "")), format!("node `{}`", planned.name))
                .help("allocate node subnets from `clusterCidr` (kube-controller-manager `--cluster-cidr`), or correct `clusterCidr` to the cluster's"),
            );
        } else if subnet.prefix_len() != plan.node_mask {
            found.push(
                Diagnostic::new(
                    &LIVE_POD_CIDR_MISMATCH,
                    value("/network/nodeCidrMaskSize"),
                    format!(
                        "node `{}` has pod subnet {quoted}, a /{}, but the plan gives each node a /{}",
                        planned.name,
                        subnet.prefix_len(),
                        plan.node_mask,
                    ),
                )
                .label("planned node subnet size")
                .help(format!(
                    "set `nodeCidrMaskSize: {}`, or kube-controller-manager's `--node-cidr-mask-size` to {}",
                    subnet.prefix_len(),
                    plan.node_mask,
                )),
            );
        } else if let Some(held) = held_subnet(planned).filter(|held| *held != subnet) {
            found.push(held_subnet_mismatch(
                index, planned, &quoted, subnet, held, from_plan,
            ));
        }
    }
    subnets
}

/// HG503 for a node whose subnet is not the one the plan holds it to.
fn held_subnet_mismatch(
    index: usize,
    planned: &NodePlan,
    quoted: &str,
    subnet: Ipv4Net,
    held: Ipv4Net,
    from_plan: bool,
) -> Diagnostic {
    let name = &planned.name;
    if planned.pinned.is_none() {
        return Diagnostic::new(
            &LIVE_POD_CIDR_MISMATCH,
            value(node_pointer(index, "")),
            format!("node `{name}` has pod subnet {quoted}, but with `podCidrs: hybridgen` the plan gives it {held}: kube-controller-manager still allocates node subnets"),
        )
        .label("planned pod subnet")
        .help(format!("turn kube-controller-manager's allocation off (`allocate-node-cidrs: \"false\"`, as `kubeadm/kubeadm-config.yaml` sets it), then delete node `{name}` and join it again so that `pod-cidrs/assign.sh` gives it {held}"));
    }
    let help = if from_plan {
        format!(
            "delete node `{name}` and join it again so that `pod-cidrs/assign.sh` gives it {held}, or pin `podCidr: {subnet}`"
        )
    } else {
        format!(
            "pin `podCidr: {subnet}` as the cluster has it, and render the routes from the cluster with `{RENDER_FROM_CLUSTER}`"
        )
    };
    Diagnostic::new(
        &LIVE_POD_CIDR_MISMATCH,
        value(node_pointer(index, "podCidr")),
        format!("node `{name}` has pod subnet {quoted}, but the spec pins {held}"),
    )
    .label("pinned pod subnet")
    .help(help)
}

/// Warnings for predicted subnets the cluster did not give, when routes are rendered from them:
/// those routes send the subnet to another node.
fn check_predictions(
    context: &LiveContext,
    subnets: &BTreeMap<usize, Ipv4Net>,
    found: &mut Vec<Diagnostic>,
) {
    let plan = context.plan;
    if plan.external_routes(context.spec.provider()).is_none() {
        return;
    }
    for (index, planned, live) in matched(context) {
        let Some(subnet) = subnets.get(&index) else {
            continue;
        };
        let Some(predicted) = planned
            .pod_subnet
            .filter(|_| planned.subnet_source == SubnetSource::Predicted)
        else {
            continue;
        };
        // The subnet the rendered routes send to this node: the prediction, or with `--out` the
        // subnet the render read from the cluster.
        let routed = match context.rendered {
            Some(rendered) if rendered.source.is_some() => {
                rendered.routed(&planned.name, predicted)
            }
            _ => predicted,
        };
        if routed == *subnet {
            continue;
        }
        let name = &planned.name;
        let live_source = &live.pod_cidr.source;
        let (message, help) = match context.rendered {
            None => (
                format!(
                    "node `{name}` has pod subnet `{subnet}` ({live_source}), but the plan predicted {predicted}: host-gw routes rendered without the cluster send {predicted} to this node"
                ),
                format!(
                    "render the routes from the cluster with `{RENDER_FROM_CLUSTER}`, and apply them; if you did, give verify that directory with `--out DIR`"
                ),
            ),
            Some(RenderedRoutes {
                out, source: None, ..
            }) => (
                format!(
                    "node `{name}` has pod subnet `{subnet}` ({live_source}), but the routes in `{out}` were rendered without the cluster, and send it the predicted {predicted}"
                ),
                format!(
                    "render the routes from the cluster with `hybridgen render SPEC --out {out} --kubectl` (or `--cluster` with a capture), and apply them"
                ),
            ),
            Some(RenderedRoutes {
                out,
                source: Some(source),
                subnets: remembered,
            }) => {
                let then = match remembered.get(name) {
                    Some(Some(read)) => format!("its pod subnet was {read}"),
                    Some(None) => {
                        format!("it had no pod subnet, so they send it the predicted {predicted}")
                    }
                    None => {
                        format!("it was not in the spec, so they send it the predicted {predicted}")
                    }
                };
                (
                    format!(
                        "node `{name}` has pod subnet `{subnet}` ({live_source}), but when the routes in `{out}` were rendered from the cluster ({source}) {then}: the cluster changed since"
                    ),
                    format!(
                        "render the routes from the cluster again with `hybridgen render SPEC --out {out} --kubectl` (or `--cluster` with a fresh capture), and apply them"
                    ),
                )
            }
        };
        found.push(
            Diagnostic::new(
                &LIVE_POD_CIDR_MISMATCH,
                value(node_pointer(index, "")),
                message,
            )
            .label(if routed == predicted {
                "predicted pod subnet"
            } else {
                "pod subnet changed since the render"
            })
            .help(help)
            .warning(),
        );
    }
}

/// Pods whose address lies outside their node's subnet (flannel-io/flannel#1437), at most one
/// finding per node.
fn check_pod_addresses(
    context: &LiveContext,
    subnets: &BTreeMap<usize, Ipv4Net>,
    found: &mut Vec<Diagnostic>,
) {
    let mut pods_of: HashMap<&str, Vec<&LivePod>> = HashMap::new();
    for pod in &context.cluster.pods {
        pods_of.entry(pod.node.as_str()).or_default().push(pod);
    }
    for (index, planned, live) in matched(context) {
        let Some(subnet) = subnets.get(&index) else {
            continue;
        };
        let pods: Vec<String> = pods_of
            .get(live.name.as_str())
            .into_iter()
            .flatten()
            .filter(|pod| {
                pod.ip
                    .parse::<std::net::Ipv4Addr>()
                    .is_ok_and(|ip| !subnet.contains(&ip))
            })
            .map(|pod| format!("{} at {} ({})", pod.label, pod.ip, pod.source))
            .collect();
        if pods.is_empty() {
            continue;
        }
        found.push(
            Diagnostic::new(
                &LIVE_POD_CIDR_MISMATCH,
                value(node_pointer(index, "")),
                format!(
                    "node `{}` has pod subnet {subnet}, but {} outside it: {}",
                    planned.name,
                    if pods.len() == 1 { "1 of its pods is".to_string() } else { format!(
                        "{} of its pods are",
                        pods.len(),
                    ) },
                    listing(pods.iter().cloned(), 3)
                ),
            )
            .label("pods outside the node's subnet")
            .help("restart flanneld and the pods on this node, so that they take addresses from its subnet"),
        );
    }
}

fn check_windows_builds(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let vxlan = context.plan.flannel.backend == Backend::Vxlan;
    for (_, planned, live) in matched(context) {
        let Some(windows) = planned
            .windows
            .as_ref()
            .filter(|_| planned.os == Os::Windows)
        else {
            continue;
        };
        let (Some(Ok(build)), Some(kernel)) = (&windows.build, &live.kernel_version) else {
            continue;
        };
        let Some(running) = kernel
            .value
            .strip_prefix("10.0.")
            .and_then(WindowsBuild::parse)
        else {
            continue;
        };
        let pointer = windows.build_pointer.clone();
        let said = format!("`{}` ({})", kernel.value, kernel.source);
        let mut finding = |message: String, help: String| {
            found.push(
                Diagnostic::new(&LIVE_WINDOWS_BUILD, value(pointer.clone()), message)
                    .label("planned Windows build")
                    .help(help),
            );
        };
        if running.build != build.build {
            finding(
                format!(
                    "node `{}` runs Windows build {said}, but the plan says {build}",
                    planned.name
                ),
                format!(
                    "set the node's `windowsBuild` to \"10.0.{}\", or run the planned build",
                    kernel.value.trim_start_matches("10.0.")
                ),
            );
        } else if let (Some(planned_revision), Some(revision)) = (build.revision, running.revision)
            && revision < planned_revision
        {
            finding(
                format!(
                    "node `{}` runs {said}, an older revision than the planned {build}",
                    planned.name
                ),
                format!(
                    "install the updates that bring it to revision {planned_revision}, or correct the planned build"
                ),
            );
        }
        // The overlay column HG302 reads for the planned build: KB4489899 on Windows Server
        // 2019, KB5066835 on Windows Server 2025.
        if let (true, Has::No, Some(Update::FromRevision(first, kb))) = (
            vxlan,
            windows::has(&running, |row| row.overlay),
            windows::row(running.build).map(|row| row.overlay),
        ) {
            finding(
                format!(
                    "node `{}` runs {said}, before {kb} (10.0.{}.{first}), which vxlan overlay needs",
                    planned.name, running.build
                ),
                format!("install {kb} or a later cumulative update"),
            );
        }
        if running.revision.is_none() {
            found.push(
                Diagnostic::new(
                    &LIVE_WINDOWS_BUILD,
                    value(windows.build_pointer.clone()),
                    format!(
                        "node `{}` reports kernel {said} without a revision, so the updates it has cannot be verified",
                        planned.name,
                    ),
                )
                .label("revision unknown")
                .help("use a kubelet that reports the revision (kubernetes `winstats.GetPatchVersion`)")
                .warning(),
            );
        }
    }
}

fn check_net_conf(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let flannel = &plan.flannel;
    match &context.cluster.net_conf {
        Some(Err(problem)) => found.push(
            Diagnostic::new(
                &LIVE_NET_CONF_MISMATCH,
                key("/flannel"),
                format!(
                    "flannel's configuration cannot be read: {} ({})",
                    problem.value, problem.source
                ),
            )
            .label("planned flannel settings")
            .help("apply the `kube-flannel.yml` hybridgen renders"),
        ),
        Some(Ok(net_conf)) => {
            let mut mismatch = |pointer: &str, what: &str, live: String, planned: String| {
                found.push(
                    Diagnostic::new(
                        &LIVE_NET_CONF_MISMATCH,
                        value(pointer),
                        format!("flannel's `{what}` is {live}, but the plan says `{planned}`"),
                    )
                    .label("planned value")
                    .help("apply the `kube-flannel.yml` hybridgen renders and restart the flannel pods"),
                );
            };
            if let (Some(network), Ok(cluster)) = (&net_conf.network, &plan.cluster_cidr)
                && network.value.parse::<Ipv4Net>().ok() != Some(*cluster)
            {
                mismatch(
                    "/network/clusterCidr",
                    "Network",
                    format!("`{}` ({})", network.value, network.source),
                    cluster.to_string(),
                );
            }
            if let Some(kind) = &net_conf.backend_type
                && kind.value != flannel.backend.as_str()
            {
                mismatch(
                    "/flannel/backend",
                    "Backend.Type",
                    format!("`{}` ({})", kind.value, kind.source),
                    flannel.backend.as_str().into(),
                );
            }
            if flannel.backend == Backend::Vxlan {
                // flannel's vxlan defaults: VNI 1, and the kernel's port 8472.
                let (vni, vni_source) = net_conf.vni.as_ref().map_or(
                    (
                        1,
                        format!("unset in {}: flannel's default", net_conf.source),
                    ),
                    |v| (v.value, v.source.clone()),
                );
                if vni != u64::from(flannel.vni) {
                    mismatch(
                        "/flannel/vni",
                        "Backend.VNI",
                        format!("`{vni}` ({vni_source})"),
                        flannel.vni.to_string(),
                    );
                }
                let (port, port_source) = net_conf.port.as_ref().map_or(
                    (
                        8472,
                        format!("unset in {}: the kernel's default", net_conf.source),
                    ),
                    |p| (p.value, p.source.clone()),
                );
                if port != u64::from(flannel.port) {
                    mismatch(
                        "/flannel/port",
                        "Backend.Port",
                        format!("`{port}` ({port_source})"),
                        flannel.port.to_string(),
                    );
                }
            }
        }
        None => {}
    }
    for (index, planned, live) in matched(context) {
        let Some(kind) = live
            .flannel
            .get("backend-type")
            .filter(|kind| !kind.value.is_empty())
        else {
            continue;
        };
        if kind.value != flannel.backend.as_str() {
            found.push(
                Diagnostic::new(
                    &LIVE_NET_CONF_MISMATCH,
                    value("/flannel/backend"),
                    format!(
                        "flanneld on node `{}` runs the `{}` backend ({}), but the plan says `{}`",
                        planned.name,
                        kind.value,
                        kind.source,
                        flannel.backend.as_str()
                    ),
                )
                .label("planned backend")
                .related(
                    value(node_pointer(index, "")),
                    format!("node `{}`", planned.name),
                )
                .help("apply the rendered `kube-flannel.yml` and restart flanneld on that node"),
            );
        }
    }
}

fn check_vnis(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let flannel = &context.plan.flannel;
    if flannel.backend != Backend::Vxlan {
        return;
    }
    let mut by_vni: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    // Where the first node on each VNI announced it, to quote.
    let mut first_source: BTreeMap<u64, &str> = BTreeMap::new();
    let mut silent: Vec<(&NodePlan, &Live<String>)> = Vec::new();
    for (_, planned, live) in matched(context) {
        let Some(data) = live.flannel.get("backend-data") else {
            continue;
        };
        let vni = serde_json::from_str::<Value>(&data.value)
            .ok()
            .and_then(|value| value.get("VNI").and_then(Value::as_u64));
        match vni {
            Some(vni) => {
                by_vni
                    .entry(vni)
                    .or_default()
                    .push(format!("`{}`", planned.name));
                first_source.entry(vni).or_insert(&data.source);
            }
            None => silent.push((planned, data)),
        }
    }
    // flanneld before v0.14.0 (flannel-io/flannel#1215) records no VNI in its lease's
    // `backend-data` (`vxlanLeaseAttrs` held the VTEP MAC only): such a node runs the VNI of
    // `net-conf.json`, which HG505 compares when flannel's ConfigMap was captured.
    if let (Some((planned, data)), None) = (silent.first(), &context.cluster.net_conf) {
        let others = match silent.len() {
            1 => String::new(),
            more => format!(" (and {} more nodes)", more - 1),
        };
        found.push(
            Diagnostic::new(
                &LIVE_VNI_MISMATCH,
                value("/flannel/vni"),
                format!(
                    "node `{}`{others} announces no VNI ({} is `{}`): flanneld before v0.14.0 records none, and runs the VNI of flannel's `net-conf.json`, which was not captured",
                    planned.name, data.source, data.value,
                ),
            )
            .label("planned VNI")
            .help(format!(
                "capture flannel's ConfigMap with `kubectl -n {} get configmap kube-flannel-cfg -o json > kube-flannel-cfg.json` so that its VNI is compared",
                context.plan.flannel.namespace()
            ))
            .warning(),
        );
    }
    let planned = u64::from(flannel.vni);
    let other: Vec<String> = by_vni
        .iter()
        .filter(|(vni, _)| **vni != planned)
        .map(|(vni, nodes)| {
            let source = first_source.get(vni).copied().unwrap_or_default();
            let first = if nodes.len() > 1 { "the first: " } else { "" };
            format!(
                "VNI {vni} on {} ({first}{source})",
                listing(nodes.iter().cloned(), 5)
            )
        })
        .collect();
    if !other.is_empty() {
        let agreeing = by_vni.get(&planned).map_or(String::new(), |nodes| {
            format!("; VNI {planned} on {}", listing(nodes.iter().cloned(), 5))
        });
        found.push(
            Diagnostic::new(
                &LIVE_VNI_MISMATCH,
                value("/flannel/vni"),
                format!(
                    "nodes announce {}{agreeing}, but the plan says VNI {planned}: nodes on different VNIs drop each other's pod traffic",
                    other.join("; "),
                ),
            )
            .label("planned VNI")
            .help(vni_help(context, planned, &by_vni)),
        );
    }
}

/// What puts the nodes back on the planned VNI: when the captured `net-conf.json` already holds
/// it, the nodes on another VNI kept the one their flanneld read before (flanneld reads the file
/// only at start), so restarting flanneld on those nodes is the fix; else the file is to change.
fn vni_help(context: &LiveContext, planned: u64, by_vni: &BTreeMap<u64, Vec<String>>) -> String {
    let net_conf_vni = match &context.cluster.net_conf {
        Some(Ok(net_conf)) => net_conf.vni.as_ref().map(|vni| vni.value),
        _ => None,
    };
    if net_conf_vni != Some(planned) {
        return format!(
            "set `\"VNI\": {planned}` in flannel's `net-conf.json` and restart flanneld on every node"
        );
    }
    let stale = by_vni
        .iter()
        .filter(|(vni, _)| **vni != planned)
        .flat_map(|(_, nodes)| nodes.iter().cloned());
    format!(
        "`net-conf.json` already says `\"VNI\": {planned}`, and flanneld reads it only when it starts: restart flanneld on {}",
        listing(stale, 5)
    )
}

/// The IPv4 range of a value kubeadm or k3s writes (`10.244.0.0/16`, or a dual-stack pair).
fn ipv4_range(text: &str) -> Option<Ipv4Net> {
    text.split(',').find_map(|part| part.trim().parse().ok())
}

/// A string field of a captured configuration, with where it was read.
fn text<'a>(config: &'a Embedded, pointer: &str) -> Option<(&'a str, String)> {
    match config.field(pointer)? {
        Live {
            value: Value::String(text),
            source,
        } => Some((text, source)),
        _ => None,
    }
}

/// A controller-manager argument from `extraArgs`: a map (kubeadm v1beta3) or a list of
/// `{name, value}` (v1beta4).
fn extra_arg<'a>(config: &'a Embedded, name: &str) -> Option<Live<&'a Value>> {
    let args = config.field("/controllerManager/extraArgs")?;
    let found = match args.value {
        Value::Object(map) => map.get(name),
        Value::Array(list) => list
            .iter()
            .find(|arg| arg.get("name").and_then(Value::as_str) == Some(name))
            .and_then(|arg| arg.get("value")),
        _ => None,
    }?;
    Some(Live {
        value: found,
        source: format!("{} (`{name}`)", args.source),
    })
}

/// HG507 for a value of the cluster's configuration that differs from the plan's.
fn config_mismatch(pointer: &str, what: String, planned: String, help: &str) -> Diagnostic {
    Diagnostic::new(
        &LIVE_CLUSTER_CONFIG_MISMATCH,
        value(pointer),
        format!("{what}, but the plan says `{planned}`"),
    )
    // The field may be left to its default: the label names it where the report points.
    .label(format!(
        "planned `{}`",
        pointer.rsplit('/').next().unwrap_or(pointer)
    ))
    .help(help.to_string())
}

const KUBEADM_HELP: &str = "set the cluster up with the rendered `kubeadm/kubeadm-config.yaml`, or correct the spec to what it runs";

/// A check of one captured configuration against the plan.
type ConfigCheck = fn(&Plan, &Embedded, &mut Vec<Diagnostic>);

fn check_cluster_config(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let cluster = context.cluster;
    if cluster.cluster_configuration.is_none() {
        check_node_args(context, found);
    }
    let configs: [(_, ConfigCheck); 3] = [
        (&cluster.cluster_configuration, check_kubeadm),
        (&cluster.kube_proxy, check_kube_proxy),
        (&cluster.kubelet, check_kubelet),
    ];
    for (config, check) in configs {
        match config {
            Some(Ok(config)) => check(context.plan, config, found),
            Some(Err(problem)) => found.push(
                Diagnostic::new(
                    &LIVE_CLUSTER_CONFIG_MISMATCH,
                    key("/network"),
                    format!(
                        "the cluster's configuration cannot be read: {} ({})",
                        problem.value, problem.source
                    ),
                )
                .label("planned network")
                .help("capture the ConfigMap again with `kubectl get configmap -o json`"),
            ),
            None => {}
        }
    }
}

fn check_kubeadm(plan: &Plan, config: &Embedded, found: &mut Vec<Diagnostic>) {
    match text(config, "/networking/podSubnet") {
        Some((subnet, source)) => {
            if let Ok(planned) = &plan.cluster_cidr
                && ipv4_range(subnet) != Some(*planned)
            {
                found.push(config_mismatch(
                    "/network/clusterCidr",
                    format!("kubeadm's pod subnet is `{subnet}` ({source})"),
                    planned.to_string(),
                    KUBEADM_HELP,
                ));
            }
        }
        None => found.push(
            Diagnostic::new(
                &LIVE_CLUSTER_CONFIG_MISMATCH,
                value("/network/clusterCidr"),
                format!(
                    "kubeadm's `ClusterConfiguration` has no `networking.podSubnet` ({}, {}): kube-controller-manager allocates no node subnets, and flannel refuses every node",
                    config.file,
                    config.object,
                ),
            )
            .label("planned pod network")
            .help("set the cluster up with `networking.podSubnet` (the rendered `kubeadm/kubeadm-config.yaml` has it, or `kubeadm init --pod-network-cidr`)"),
        ),
    }
    if let (Some((subnet, source)), Ok(planned)) = (
        text(config, "/networking/serviceSubnet"),
        &plan.service_cidr,
    ) && ipv4_range(subnet) != Some(*planned)
    {
        found.push(config_mismatch(
            "/network/serviceCidr",
            format!("kubeadm's Service subnet is `{subnet}` ({source})"),
            planned.to_string(),
            KUBEADM_HELP,
        ));
    }
    check_dns_domain(
        plan,
        config,
        "/networking/dnsDomain",
        "kubeadm's DNS domain",
        found,
    );
    check_allocation(plan, config, found);
    let mask = extra_arg(config, "node-cidr-mask-size-ipv4")
        .or_else(|| extra_arg(config, "node-cidr-mask-size"));
    if let Some(mask) = mask {
        let text = match mask.value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        if text.trim().parse::<u8>().ok() != Some(plan.node_mask) {
            found.push(config_mismatch(
                "/network/nodeCidrMaskSize",
                format!(
                    "the controller manager's node mask is `{text}` ({})",
                    mask.source
                ),
                plan.node_mask.to_string(),
                KUBEADM_HELP,
            ));
        }
    }
}

/// With `podCidrs: hybridgen`, kube-controller-manager must allocate no node subnet: kubeadm turns
/// `allocate-node-cidrs` on with a pod subnet unless `extraArgs` turn it off
/// (`getControllerManagerCommand`, kubernetes/kubernetes
/// `cmd/kubeadm/app/phases/controlplane/manifests.go`).
fn check_allocation(plan: &Plan, config: &Embedded, found: &mut Vec<Diagnostic>) {
    if plan.pod_cidrs != PodCidrs::Hybridgen {
        return;
    }
    let allocation = extra_arg(config, "allocate-node-cidrs");
    let off = allocation.as_ref().is_some_and(|arg| {
        arg.value
            .as_str()
            .is_some_and(|text| text.trim() == "false")
    });
    if off {
        return;
    }
    let how = match &allocation {
        Some(arg) => format!("`allocate-node-cidrs` is `{}` ({})", arg.value, arg.source),
        None => format!(
            "kubeadm turns `allocate-node-cidrs` on with `networking.podSubnet` ({}, {})",
            config.file, config.object
        ),
    };
    found.push(
        Diagnostic::new(
            &LIVE_CLUSTER_CONFIG_MISMATCH,
            value("/network/podCidrs"),
            format!("kube-controller-manager allocates node subnets: {how}, but with `podCidrs: hybridgen` every node's subnet is the plan's"),
        )
        .label("the plan gives the pod subnets")
        .help("set the cluster up with the rendered `kubeadm/kubeadm-config.yaml`, which sets `allocate-node-cidrs: \"false\"`"),
    );
}

fn check_kube_proxy(plan: &Plan, config: &Embedded, found: &mut Vec<Diagnostic>) {
    if let (Some((range, source)), Ok(planned)) = (text(config, "/clusterCIDR"), &plan.cluster_cidr)
        && !range.is_empty()
        && ipv4_range(range) != Some(*planned)
    {
        found.push(config_mismatch(
            "/network/clusterCidr",
            format!("kube-proxy's `clusterCIDR` is `{range}` ({source})"),
            planned.to_string(),
            "set kube-proxy's `clusterCIDR` to the pod network (kubeadm copies `networking.podSubnet`)",
        ));
    }
}

fn check_kubelet(plan: &Plan, config: &Embedded, found: &mut Vec<Diagnostic>) {
    if let (Some((ip, source)), Some(Ok(planned))) =
        (text(config, "/clusterDNS/0"), &plan.dns_service_ip)
        && ip.parse::<std::net::Ipv4Addr>().ok() != Some(*planned)
    {
        found.push(config_mismatch(
            "/network/dnsServiceIp",
            format!("the kubelet's `clusterDNS` is `{ip}` ({source})"),
            planned.to_string(),
            "set the kubelet's `clusterDNS` to the planned DNS address (kubeadm uses the 10th address of the Service subnet)",
        ));
    }
    check_dns_domain(
        plan,
        config,
        "/clusterDomain",
        "the kubelet's `clusterDomain`",
        found,
    );
}

/// HG507 for a configuration's DNS domain (at `pointer`, named `what`) other than the plan's.
fn check_dns_domain(
    plan: &Plan,
    config: &Embedded,
    pointer: &str,
    what: &str,
    found: &mut Vec<Diagnostic>,
) {
    if let Some((domain, source)) = text(config, pointer)
        && domain != plan.dns_domain
    {
        found.push(config_mismatch(
            "/kubernetes/dnsDomain",
            format!("{what} is `{domain}` ({source})"),
            plan.dns_domain.clone(),
            KUBEADM_HELP,
        ));
    }
}

/// The value of a flag in recorded arguments (`--flag value` or `--flag=value`).
pub(crate) fn flag(args: &[String], name: &str) -> Option<String> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if let Some(value) = word
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix('='))
        {
            return Some(value.to_string());
        }
        if word == name {
            return words.next().cloned();
        }
    }
    None
}

/// k3s and RKE2 record their server flags in the `k3s.io/node-args` or `rke2.io/node-args`
/// annotation: the best source of their ranges, which they keep in no ConfigMap.
fn check_node_args(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Some(args) = &context.cluster.server_args else {
        return;
    };
    let flag = |name: &str| flag(&args.value, name);
    let checks = [
        (
            "--cluster-cidr",
            "/network/clusterCidr",
            plan.cluster_cidr.as_ref().ok().map(ToString::to_string),
        ),
        (
            "--service-cidr",
            "/network/serviceCidr",
            plan.service_cidr.as_ref().ok().map(ToString::to_string),
        ),
        (
            "--cluster-dns",
            "/network/dnsServiceIp",
            plan.dns_service_ip
                .as_ref()
                .and_then(|ip| ip.as_ref().ok())
                .map(ToString::to_string),
        ),
        (
            "--cluster-domain",
            "/kubernetes/dnsDomain",
            Some(plan.dns_domain.clone()),
        ),
    ];
    for (name, pointer, planned) in checks {
        // An RKE2 server's ranges are HG651's: a change there is a rebuild.
        let ranges = ["--cluster-cidr", "--service-cidr"];
        if context.cluster.server_args_rke2 && ranges.contains(&name) {
            continue;
        }
        let (Some(live), Some(planned)) = (flag(name), planned) else {
            continue;
        };
        if live.split(',').next().unwrap_or_default().trim() != planned {
            found.push(
                Diagnostic::new(
                    &LIVE_CLUSTER_CONFIG_MISMATCH,
                    value(pointer),
                    format!(
                        "the server runs with `{name} {live}` ({}), but the plan says `{planned}`",
                        args.source
                    ),
                )
                .label("planned value")
                .help(format!(
                    "start the server with `{name} {planned}`, or correct the spec to what it runs"
                )),
            );
        }
    }
}

/// Whether a DaemonSet is flannel's or kube-proxy's, and for which OS.
fn network_daemonset(name: &str) -> Option<Os> {
    let ours = name.starts_with("kube-flannel") || name.starts_with("kube-proxy");
    ours.then(|| {
        if name.contains("windows") {
            Os::Windows
        } else {
            Os::Linux
        }
    })
}

fn check_daemonsets(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    check_linux_flannel_tolerated(context, found);
    let live_windows = live_nodes_of(context, Os::Windows);
    if live_windows.is_empty() && !context.plan.has_windows() {
        return;
    }
    let location = context
        .plan
        .nodes
        .iter()
        .position(|node| node.os == Os::Windows)
        .map_or_else(|| key("/nodes"), |index| value(node_pointer(index, "os")));
    for daemonset in &context.cluster.daemonsets {
        let Some(os) = network_daemonset(&daemonset.name) else {
            continue;
        };
        let other = match os {
            Os::Linux => Os::Windows,
            Os::Windows => Os::Linux,
        };
        let Some(message) = misplacement(context, daemonset, other) else {
            continue;
        };
        found.push(
            Diagnostic::new(&LIVE_DAEMONSET_PLACEMENT, location.clone(), message)
                .label("Windows nodes")
                .help(match os {
                    Os::Linux => "pin it to Linux with `bash patches/apply.sh` from `hybridgen render`",
                    Os::Windows => "apply the rendered Windows DaemonSets, whose node selector is `kubernetes.io/os: windows`",
                }),
        );
    }
}

/// Each planned Linux node must take the Linux flannel DaemonSet: a taint it does not tolerate
/// leaves the node without flannel, NotReady and without routes to other nodes' pods — a
/// dedicated RKE2 server tainted `CriticalAddonsOnly=true:NoExecute`, which no rke2-flannel chart
/// tolerates (rancher/rke2#5629).
fn check_linux_flannel_tolerated(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let linux_flannel = context.cluster.daemonsets.iter().filter(|daemonset| {
        daemonset.name.starts_with("kube-flannel")
            && network_daemonset(&daemonset.name) == Some(Os::Linux)
            && daemonset.schedulable_on.contains(Os::Linux.as_str())
    });
    for daemonset in linux_flannel {
        for (index, planned, live) in matched(context) {
            if planned.os != Os::Linux {
                continue;
            }
            let untolerated: Vec<String> = live
                .taints
                .iter()
                .filter(|taint| !daemonset.tolerates_taint(taint))
                .map(|taint| {
                    let value = if taint.value.is_empty() {
                        String::new()
                    } else {
                        format!("={}", taint.value)
                    };
                    format!("`{}{value}:{}`", taint.key, taint.effect)
                })
                .collect();
            if untolerated.is_empty() {
                continue;
            }
            found.push(
                Diagnostic::new(
                    &LIVE_DAEMONSET_PLACEMENT,
                    value(node_pointer(index, "name")),
                    format!(
                        "DaemonSet `{}/{}` ({}) cannot schedule onto Linux node `{}`: it does not tolerate its taint {}, so the node has no flannel",
                        daemonset.namespace,
                        daemonset.name,
                        daemonset.source,
                        live.name,
                        untolerated.join(", ")
                    ),
                )
                .label("no flannel here")
                .help("remove the taint from the node (`kubectl taint nodes <node> <key>-`), or use `node-role.kubernetes.io/control-plane:NoSchedule`"),
            );
        }
    }
}

/// The live nodes of an OS, by their label, else by the planned node they match.
fn live_nodes_of<'a>(context: &'a LiveContext, os: Os) -> Vec<&'a LiveNode> {
    let mut nodes: Vec<&LiveNode> = context
        .cluster
        .nodes
        .iter()
        .filter(|node| {
            node.os
                .as_ref()
                .is_some_and(|live| live.value.eq_ignore_ascii_case(os.as_str()))
        })
        .collect();
    for (_, planned, live) in matched(context) {
        if planned.os == os && live.os.is_none() {
            nodes.push(live);
        }
    }
    nodes
}

/// Why a DaemonSet can run, or runs, on nodes of the `other` OS; `None` when it cannot. A node
/// selector or affinity keeps it off; so do the other OS's taints when every live node of that OS
/// has one the DaemonSet does not tolerate (transient taints do not count).
fn misplacement(context: &LiveContext, daemonset: &LiveDaemonSet, other: Os) -> Option<String> {
    let name = format!(
        "DaemonSet `{}/{}` ({})",
        daemonset.namespace, daemonset.name, daemonset.source
    );
    let other_name = match other {
        Os::Windows => "Windows",
        Os::Linux => "Linux",
    };
    if daemonset.schedulable_on.contains(other.as_str()) {
        let nodes = live_nodes_of(context, other);
        let reachable: Vec<String> = nodes
            .iter()
            .filter(|node| daemonset.tolerates(node))
            .map(|node| format!("`{}`", node.name))
            .collect();
        if nodes.is_empty() {
            return Some(format!(
                "{name} can schedule onto {other_name} nodes: nothing in its node selector or affinity keeps it off them"
            ));
        }
        if !reachable.is_empty() {
            return Some(format!(
                "{name} can schedule onto {other_name} nodes {}: neither its node selector, its affinity nor their taints keep it off",
                reachable.join(", ")
            ));
        }
    }
    (daemonset.misscheduled > 0).then(|| {
        format!(
            "{name} reports {} misscheduled pods (`status.numberMisscheduled`)",
            daemonset.misscheduled
        )
    })
}

/// How to make a node use its planned address. Windows nodes: the rendered files set it. Linux
/// nodes: hybridgen's Linux flannel manifest is the release's own, with no `--iface`, so flanneld
/// takes the default route's interface (a NAT adapter on Vagrant/VirtualBox). One argument in the
/// DaemonSet must pick the planned network on every node: `--iface-can-reach` another planned
/// node (from flannel v0.18.0, flannel-io/flannel#1545), before that `--iface-regex` on the
/// addresses (flannel-io/flannel `Documentation/configuration.md`). The kubelet needs `--node-ip`.
fn address_fix(plan: &Plan, node: &NodePlan, flanneld: bool) -> String {
    let Ok(address) = &node.address else {
        return "correct the node's `address`".into();
    };
    match (node.os, flanneld) {
        (Os::Windows, true) => format!(
            "start flanneld with `--iface={address}` (the rendered Windows DaemonSet does), or correct `address`"
        ),
        (Os::Windows, false) => format!(
            "start the kubelet with `--node-ip={address}` (the rendered join files do), or correct `address`"
        ),
        (Os::Linux, true) => {
            let peer = plan
                .nodes
                .iter()
                .filter(|other| other.name != node.name)
                .find_map(|other| other.address.as_ref().ok());
            let can_reach = matches!(&plan.flannel.version, Ok(version) if version.at_least(0, 18));
            let flag = match peer.filter(|_| can_reach) {
                Some(peer) => format!("--iface-can-reach={peer}"),
                None => {
                    let [a, b, c, _] = address.octets();
                    format!("--iface-regex=^{a}\\.{b}\\.{c}\\.")
                }
            };
            format!(
                "add `{flag}` to flanneld's arguments in the Linux flannel DaemonSet (`kube-flannel.yml`), or correct `address`"
            )
        }
        (Os::Linux, false) => format!(
            "start the kubelet on that node with `--node-ip={address}` (kubeadm: `nodeRegistration.kubeletExtraArgs`), or correct `address`"
        ),
    }
}

fn check_addresses(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    for (index, planned, live) in matched(context) {
        let Ok(address) = &planned.address else {
            continue;
        };
        let address = address.to_string();
        let reported = [
            (live.internal_ip.as_ref(), "the kubelet reports"),
            (live.flannel.get("public-ip"), "flanneld uses"),
        ];
        for (seen, who) in reported {
            let Some(seen) = seen.filter(|seen| !seen.value.is_empty() && seen.value != address)
            else {
                continue;
            };
            found.push(
                Diagnostic::new(
                    &LIVE_NODE_ADDRESS_MISMATCH,
                    value(node_pointer(index, "address")),
                    format!(
                        "{who} `{}` for node `{}` ({}), not its planned address {address}",
                        seen.value, planned.name, seen.source,
                    ),
                )
                .label("planned address")
                .help(address_fix(
                    context.plan,
                    planned,
                    who.starts_with("flanneld"),
                )),
            );
        }
    }
}

/// Nodes or DaemonSets one finding names: each with the release it runs, and where the first was
/// read.
struct Group {
    location: crate::diagnostic::Location,
    names: Vec<String>,
    source: String,
}

impl Group {
    fn new(location: crate::diagnostic::Location, live: &Live<String>) -> Group {
        Group {
            location,
            names: Vec::new(),
            source: live.source.clone(),
        }
    }

    fn add(
        groups: &mut BTreeMap<usize, Group>,
        row: usize,
        location: impl FnOnce() -> crate::diagnostic::Location,
        name: String,
        live: &Live<String>,
    ) {
        groups
            .entry(row)
            .or_insert_with(|| Group::new(location(), live))
            .names
            .push(format!("`{name}` ({})", live.value));
    }

    /// `node \`a\` (v1) runs`, `nodes \`a\` (v1), \`b\` (v2) and 3 more run`.
    fn subject(&self, what: &str) -> String {
        let (noun, verb) = match self.names.len() {
            1 => (what.to_string(), "runs"),
            _ => (format!("{what}s"), "run"),
        };
        format!("{noun} {} {verb}", listing(self.names.iter().cloned(), 6))
    }
}

fn check_running_releases(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    check_running_windows_builds(context, found);
    check_running_kube_proxy(context, found);
    check_running_flannel(context, found);
    check_running_rke2(context, found);
    check_running_containerd(context, found);
}

/// The finding for one advisory: an error where the bug is shown for this setup, else a warning.
fn advisory_finding(
    advisory: &Advisory,
    group: Group,
    message: String,
    help: String,
) -> Diagnostic {
    let finding = Diagnostic::new(&LIVE_KNOWN_BROKEN_RELEASE, group.location, message)
        .label(format!("known bug: {}", advisory.reference))
        .help(help);
    match advisory.certainty {
        Certainty::Breaks => finding,
        Certainty::MayBreak => finding.warning(),
    }
}

/// The index of an advisory in the table, to group its findings in the table's order.
fn row_of(advisory: &Advisory) -> usize {
    ADVISORIES
        .iter()
        .position(|row| std::ptr::eq(row, advisory))
        .unwrap_or(usize::MAX)
}

fn check_running_windows_builds(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let scope = Scope::windows_on(context.plan.flannel.backend);
    let mut groups = BTreeMap::new();
    for (_, planned, live) in matched(context) {
        let Some(windows) = planned
            .windows
            .as_ref()
            .filter(|_| planned.os == Os::Windows)
        else {
            continue;
        };
        let Some(kernel) = &live.kernel_version else {
            continue;
        };
        let Some(running) = kernel
            .value
            .strip_prefix("10.0.")
            .and_then(WindowsBuild::parse)
        else {
            continue;
        };
        for advisory in advisories::windows_build(running, scope) {
            let pointer = || value(windows.build_pointer.clone());
            Group::add(
                &mut groups,
                row_of(advisory),
                pointer,
                planned.name.clone(),
                kernel,
            );
        }
    }
    for (row, group) in groups {
        let advisory = &ADVISORIES[row];
        let Affected::WindowsRevisions {
            build,
            fixed,
            update,
            ..
        } = advisory.affected
        else {
            continue;
        };
        let message = format!(
            "Windows {} a build revision with a known bug: {} ({}); fixed by {update} (10.0.{build}.{fixed})",
            group.subject("node"),
            advisory.effect,
            group.source
        );
        let help = format!(
            "install {update} or a later cumulative update on these nodes, and write `10.0.{build}.{fixed}` or later in the planned build"
        );
        found.push(advisory_finding(advisory, group, message, help));
    }
}

/// Each Windows node's kube-proxy: the release its kubelet reports (`v1.33.0`, `v1.31.5+rke2r1`),
/// which every setup's Windows kube-proxy matches, on the build its kernel reports.
fn check_running_kube_proxy(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let mut groups = BTreeMap::new();
    let mut releases = BTreeMap::new();
    for (_, planned, live) in matched(context) {
        if planned.os != Os::Windows {
            continue;
        }
        let Some(kubelet) = &live.kubelet_version else {
            continue;
        };
        let Some(release) = Release::parse(&kubelet.value) else {
            continue;
        };
        let build = live.kernel_version.as_ref().and_then(|kernel| {
            let running = kernel.value.strip_prefix("10.0.")?;
            WindowsBuild::parse(running).map(|running| running.build)
        });
        for advisory in advisories::kube_proxy(release, build.as_slice()) {
            let row = row_of(advisory);
            // The oldest release among the group's nodes names the fix to reach.
            let oldest = releases.entry(row).or_insert(release);
            *oldest = (*oldest).min(release);
            let pointer = || value("/kubernetes/version");
            Group::add(&mut groups, row, pointer, planned.name.clone(), kubelet);
        }
    }
    for (row, group) in groups {
        let advisory = &ADVISORIES[row];
        let fix = advisory.affected.kube_proxy_fix(releases[&row]);
        let message = format!(
            "Windows {} a Kubernetes release whose kube-proxy has a known bug: {} ({})",
            group.subject("node"),
            advisory.effect,
            group.source
        );
        let help = match fix {
            Some(fix) => format!(
                "upgrade these nodes to Kubernetes {fix} or later, whose Windows kube-proxy has the fix"
            ),
            None => {
                "upgrade these nodes to a Kubernetes release whose Windows kube-proxy has the fix"
                    .into()
            }
        };
        found.push(advisory_finding(advisory, group, message, help));
    }
}

/// The flannel release an image runs, from its tag (`ghcr.io/flannel-io/flannel:v0.25.4`,
/// `sigwindowstools/flannel:v0.13.0-nanoserver`): `None` for an image that is no flanneld (the
/// CNI plugin's, kube-proxy's) or whose tag names no release.
fn flannel_release(image: &str) -> Option<Release> {
    let image = image.split_once('@').map_or(image, |(name, _)| name);
    let (name, tag) = image
        .rsplit_once(':')
        .filter(|(_, tag)| !tag.contains('/'))?;
    let repository = name.rsplit('/').next()?;
    let flanneld = repository.contains("flannel") && !repository.contains("cni");
    flanneld.then(|| Release::parse(tag)).flatten()
}

/// The Windows flannel DaemonSets' flanneld (kubeadm's HostProcess and DaemonSet setups; RKE2's
/// Windows agents run the flanneld their release bundles, checked by the release).
fn check_running_flannel(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    // As HG320: before the HostProcess setup the Windows flanneld is an old release whose only
    // advisory (flannel-io/flannel#1852) needs more network adapters than the spec describes.
    if context.plan.rke2.is_some()
        || context.plan.windows_setup != Some(crate::plan::WindowsSetup::HostProcess)
    {
        return;
    }
    let scope = Scope::windows_on(context.plan.flannel.backend);
    let mut groups = BTreeMap::new();
    let windows_flannel = context.cluster.daemonsets.iter().filter(|daemonset| {
        daemonset.name.starts_with("kube-flannel")
            && network_daemonset(&daemonset.name) == Some(Os::Windows)
    });
    for daemonset in windows_flannel {
        for image in &daemonset.images {
            let Some(release) = flannel_release(&image.value) else {
                continue;
            };
            for advisory in advisories::flannel(release, scope) {
                let name = format!("{}/{}", daemonset.namespace, daemonset.name);
                let pointer = || value("/flannel/version");
                Group::add(&mut groups, row_of(advisory), pointer, name, image);
            }
        }
    }
    for (row, group) in groups {
        let advisory = &ADVISORIES[row];
        let Affected::Flannel { fixed, .. } = advisory.affected else {
            continue;
        };
        let message = format!(
            "the Windows flannel {} a flannel release with a known bug: {} ({}); fixed in v{fixed}",
            group.subject("DaemonSet"),
            advisory.effect,
            group.source
        );
        let help = format!(
            "run a flannel image of `v{fixed}` or later on Windows (the image recipe `render` writes builds `flannel.version`)"
        );
        found.push(advisory_finding(advisory, group, message, help));
    }
}

/// The RKE2 release each node's kubelet reports, against the Windows flannel it bundles (HG602's
/// column of the RKE2 release table).
fn check_running_rke2(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    if context.plan.rke2.is_none() || !context.plan.has_windows() {
        return;
    }
    let mut groups: BTreeMap<(u32, u32, u32, u32), (rke2::Resolved, Group)> = BTreeMap::new();
    for node in &context.cluster.nodes {
        let Some(version) = &node.kubelet_version else {
            continue;
        };
        let Some((_, suffix)) = version.value.split_once("+rke2r") else {
            continue;
        };
        let (Some(release), Ok(revision)) = (Release::parse(&version.value), suffix.parse::<u32>())
        else {
            continue;
        };
        let resolved = rke2::resolve(release, revision);
        let broken = resolved
            .flannel()
            .is_some_and(|bundled| bundled.windows() != WindowsFlannel::Supported);
        if !broken {
            continue;
        }
        let key = (release.major, release.minor, release.patch, revision);
        let entry = groups
            .entry(key)
            .or_insert_with(|| (resolved, Group::new(value("/kubernetes/version"), version)));
        entry.1.names.push(format!("`{}`", node.name));
    }
    for ((_, minor, _, _), (resolved, group)) in groups {
        let Some(bundled) = resolved.flannel() else {
            continue;
        };
        let fixed = rke2::first_supported_on_windows(minor).unwrap_or_else(rke2::newest);
        let help = format!("upgrade the cluster to RKE2 {fixed} or later");
        let nodes = listing(group.names.iter().cloned(), 6);
        let finding = match bundled.windows() {
            WindowsFlannel::Supported => continue,
            WindowsFlannel::Broken => Diagnostic::new(
                &LIVE_KNOWN_BROKEN_RELEASE,
                group.location,
                format!(
                    "nodes {nodes} run RKE2 {} ({}), whose flannel chart defaults the Linux VNI to {} while its Windows agents use 4096, so Linux and Windows pods cannot reach each other unless the chart values set 4096; fixed in {fixed}",
                    resolved.tag,
                    group.source,
                    bundled.chart_line().default_vni
                ),
            )
            .label("known bug: rancher/rke2#5952"),
            WindowsFlannel::Early => Diagnostic::new(
                &LIVE_KNOWN_BROKEN_RELEASE,
                group.location,
                format!(
                    "nodes {nodes} run RKE2 {} ({}), among the first releases with flannel on Windows (flanneld v{}), before the Windows fixes of April 2024; fixed in {fixed}",
                    resolved.tag,
                    group.source,
                    bundled.windows_flanneld
                ),
            )
            .label("early Windows flannel: rancher/rke2 PRs #5661, #5666, #5667")
            .warning(),
        };
        found.push(finding.help(help));
    }
}

/// Each node's containerd against its line's end of life, as HG313 checks the planned one (the
/// table says which lines have reached theirs by the day it was written, so the finding does
/// not change with the clock). RKE2 and k3s bundle their own containerd (`-k3s` releases),
/// which their release decides.
fn check_running_containerd(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if plan.rke2.is_some() {
        return;
    }
    let mut groups: BTreeMap<usize, (Release, Group)> = BTreeMap::new();
    for (index, planned, live) in matched(context) {
        let Some(runtime) = &live.runtime_version else {
            continue;
        };
        let Some(version) = runtime.value.strip_prefix("containerd://") else {
            continue;
        };
        let Some(release) = Release::parse(version).filter(|_| !version.contains("-k3s")) else {
            continue;
        };
        let line = containerd::resolve(&release);
        let Some(row) = containerd::LINES
            .iter()
            .position(|row| std::ptr::eq(row, line.row))
            .filter(|_| line.known && line.row.end_of_life.is_some())
        else {
            continue;
        };
        let entry = groups
            .entry(row)
            .or_insert_with(|| (release, Group::new(value(node_pointer(index, "")), runtime)));
        entry.0 = entry.0.max(release);
        entry
            .1
            .names
            .push(format!("`{}` ({})", planned.name, runtime.value));
    }
    let target = maintained_containerd(
        plan.kubernetes_release
            .map_or(kubernetes::newest(), |resolved| resolved.row),
    );
    for (row, (newest_running, group)) in groups {
        let line = &containerd::LINES[row];
        let day = line.end_of_life.unwrap_or_default();
        let help = match containerd::upgrade_path(newest_running, target) {
            Ok(steps) if steps.len() > 1 => format!(
                "upgrade containerd to {target}, one line at a time: {}",
                listing(steps.iter().map(Release::to_string), steps.len())
            ),
            _ => format!("upgrade containerd to {target}"),
        };
        found.push(
            Diagnostic::new(
                &LIVE_KNOWN_BROKEN_RELEASE,
                group.location.clone(),
                format!(
                    "{} containerd {}, whose line reached its end of life ({day}) and gets no more fixes ({})",
                    group.subject("node"),
                    line.name(),
                    group.source
                ),
            )
            .label("end of life: containerd/containerd RELEASES.md")
            .help(help)
            .warning(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flanneld_image_tag_names_its_release_and_other_images_none() {
        let release = |image| flannel_release(image).map(|release| release.to_string());
        assert_eq!(
            release("ghcr.io/flannel-io/flannel:v0.25.3").as_deref(),
            Some("0.25.3")
        );
        assert_eq!(
            release("sigwindowstools/flannel:v0.13.0-nanoserver").as_deref(),
            Some("0.13.0")
        );
        assert_eq!(
            release("registry.example.com:5000/k8s/flannel-windows:v0.25.4-hostprocess@sha256:00")
                .as_deref(),
            Some("0.25.4")
        );
        assert_eq!(
            release("rancher/hardened-flannel:v0.26.1-build20241112").as_deref(),
            Some("0.26.1")
        );
        assert_eq!(
            release("ghcr.io/flannel-io/flannel-cni-plugin:v1.7.1-flannel1"),
            None
        );
        assert_eq!(release("registry.example.com:5000/flannel"), None);
        assert_eq!(release("registry.k8s.io/kube-proxy:v1.33.4"), None);
    }
}

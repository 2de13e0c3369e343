//! HG1xx: the address plan — Service, cluster and host networks, DNS address, node subnets.

use super::{Context, declare_rules, listing, node_pointer};
use crate::diagnostic::{Diagnostic, key, value};
use crate::plan::address::{nth, overlaps, size};
use crate::plan::distribution::Distribution;
use crate::plan::subnets::overlapping_pairs;
use crate::plan::{DNS_SERVICE_INDEX, ExternalRoutes, Plan, PodCidrs, SubnetSource, WindowsSetup};
use crate::spec::Os;
use ipnet::Ipv4Net;
use std::net::Ipv4Addr;

declare_rules! {
    /// ### What it checks
    /// That `serviceCidr` and `clusterCidr` share no address (neither contains the other, and they
    /// are not equal).
    ///
    /// ### Why it matters
    /// A pod and a Service with the same address break DNS and Service routing. Pinned node subnets
    /// and flannel do not skip the Service range, and Windows kube-proxy uses the cluster range for
    /// its SNAT exceptions.
    ///
    /// ### Fix
    /// Move one of the two ranges, e.g. pods `10.244.0.0/16` and Services `10.96.0.0/12`.
    ///
    /// ### References
    /// kubernetes/kops (the `serviceClusterIPRange must not overlap podCIDR` check, removed in
    /// kubernetes/kops#16340); kube-controller-manager `filterOutServiceRange`
    /// (`pkg/controller/nodeipam/ipam/range_allocator.go`).
    SERVICE_CIDR_OVERLAPS_CLUSTER_CIDR = ("HG101", "service-cidr-overlaps-cluster-cidr", Error, Some(check_service_overlap));

    /// ### What it checks
    /// That `serviceCidr` is between /12 and /28: at most 2^20 addresses, at least 16.
    ///
    /// ### Why it matters
    /// kubeadm and kube-apiserver refuse a larger Service range; a smaller one has no 10th address
    /// for the cluster DNS Service.
    ///
    /// ### Fix
    /// Use a prefix length from 12 to 28, e.g. `10.96.0.0/12`.
    ///
    /// ### References
    /// kubeadm `ValidateServiceSubnetSize` (kubernetes/kubernetes
    /// `cmd/kubeadm/app/apis/kubeadm/validation/validation.go`); kube-apiserver
    /// `validateMaxCIDRRange` and `ServiceIPRange` (`cmd/kube-apiserver/app/options`).
    SERVICE_CIDR_SIZE = ("HG102", "service-cidr-size", Error, Some(check_service_size));

    /// ### What it checks
    /// That `dnsServiceIp` lies inside `serviceCidr`.
    ///
    /// ### Why it matters
    /// The API server refuses to create the DNS Service at an address outside the Service range,
    /// and every pod's resolver points at it.
    ///
    /// ### Fix
    /// Use the 10th address of `serviceCidr`, or leave `dnsServiceIp` out to get it.
    ///
    /// ### References
    /// kubernetes/kops `ValidateCluster` ("ServiceClusterIPRange must contain the DNS Server IP");
    /// Azure/aks-engine `pkg/api/vlabs/validate.go` (`DNSServiceIP is not within the ServiceCidr`).
    DNS_IP_OUTSIDE_SERVICE_CIDR = ("HG103", "dns-ip-outside-service-cidr", Error, Some(check_dns_outside));

    /// ### What it checks
    /// That `dnsServiceIp` is not the network address, the broadcast address, or the first address
    /// (the `kubernetes` API Service).
    ///
    /// ### Why it matters
    /// The Service allocator never hands out the network or broadcast address, and the first
    /// address is taken by the API Service.
    ///
    /// ### Fix
    /// Use the 10th address of `serviceCidr`.
    ///
    /// ### References
    /// Azure/aks-engine `pkg/api/vlabs/validate.go` (`DNSServiceIP` checks); kubernetes/kubernetes
    /// `pkg/registry/core/service/ipallocator/bitmap.go` (network and broadcast never allocated).
    DNS_IP_RESERVED = ("HG104", "dns-ip-reserved", Error, Some(check_dns_reserved));

    /// ### What it checks
    /// That `dnsServiceIp` is the 10th address of `serviceCidr`.
    ///
    /// ### Why it matters
    /// kubeadm creates the kube-dns Service at the 10th address and configures kubelets with it; a
    /// different address must be carried by hand into every kubelet and Windows node config.
    ///
    /// ### Fix
    /// Use the 10th address, or leave `dnsServiceIp` out.
    ///
    /// ### References
    /// kubeadm `GetDNSIP` (kubernetes/kubernetes `cmd/kubeadm/app/constants/constants.go`).
    DNS_IP_NOT_TENTH = ("HG105", "dns-ip-not-tenth", Warning, Some(check_dns_tenth));

    /// ### What it checks
    /// That `nodeCidrMaskSize` is not shorter than the `clusterCidr` prefix (equal is one node
    /// subnet, the whole range), at most 16 bits longer, and at most /30. Warning: Windows nodes
    /// set up by KubeCluster.ps1 or RKE1 with a mask other than /24 (the HostProcess path and
    /// RKE2 work from the subnet's prefix). How many node subnets the range holds for the nodes
    /// is HG107's question.
    ///
    /// ### Why it matters
    /// kube-controller-manager and kubeadm refuse a node subnet larger than the cluster range and
    /// more than 16 bits between the two; flannel needs at least four addresses per node. Windows
    /// node scripts derive the gateway and endpoint addresses as text (`.1`, `.2`), which is only
    /// right for /24 subnets.
    ///
    /// ### Fix
    /// Use a mask between the cluster prefix and 30; 24 with Windows nodes.
    ///
    /// ### References
    /// kubeadm `ValidatePodSubnetNodeMask`; KCM `NewNodeIpamController`; flannel `CheckNetworkConfig`;
    /// microsoft/SDN `Kubernetes/windows/helper.psm1` (`Get-PodGateway`); flannel-io/flannel
    /// `pkg/subnet/config.go` (`CheckNetworkConfig`).
    NODE_MASK_INVALID = ("HG106", "node-mask-invalid", Error, Some(check_node_mask));

    /// ### What it checks
    /// That `clusterCidr` holds a node subnet for every node: nodes ≤ 2^(mask − prefix). Warning at
    /// 90% or more, which leaves no room to add nodes.
    ///
    /// ### Why it matters
    /// A node without a pod subnet never gets `podCIDR`; flannel on it fails with "pod cidr not
    /// assigned" and no pod on it starts.
    ///
    /// ### Fix
    /// Widen `clusterCidr` (the help gives the prefix, one that also holds every pod, HG108), or
    /// lengthen `nodeCidrMaskSize` where no Windows node needs /24.
    ///
    /// ### References
    /// kube-controller-manager `CIDR allocation failed` (kubernetes/kubernetes
    /// `pkg/controller/nodeipam/ipam/cidrset/cidr_set.go`); flannel-io/flannel#1688.
    CLUSTER_CIDR_EXHAUSTED = ("HG107", "cluster-cidr-exhausted", Error, Some(check_exhausted));

    /// ### What it checks
    /// That `clusterCidr` holds at least nodes + nodes × `maxPodsPerNode` addresses.
    ///
    /// ### Why it matters
    /// This is the Kubernetes Windows guide's sizing rule: below it, nodes run out of pod
    /// addresses before reaching their pod limit.
    ///
    /// ### Fix
    /// Widen `clusterCidr` to the prefix the help gives, which also leaves HG107 a node subnet
    /// for every node.
    ///
    /// ### References
    /// Kubernetes "Guide for adding Windows Nodes in Kubernetes" (kubernetes/website, "Plan IP
    /// Addressing for your cluster": nodes + nodes × maximum pods per node).
    CLUSTER_CIDR_TOO_SMALL_FOR_PODS = ("HG108", "cluster-cidr-too-small-for-pods", Error, Some(check_pod_capacity));

    /// ### What it checks
    /// That each node subnet has at least `maxPodsPerNode` usable pod addresses: Linux size − 3
    /// (network, broadcast, gateway .1), Windows size − 4 (also .2: the l2bridge host endpoint or
    /// the overlay source VIP).
    ///
    /// ### Why it matters
    /// The kubelet schedules up to `maxPods` pods; those past the subnet's capacity fail to start
    /// with IP allocation errors.
    ///
    /// ### Fix
    /// Lower `maxPodsPerNode` or shorten `nodeCidrMaskSize`; with Windows nodes, use
    /// `nodeCidrMaskSize: 24`, which HG106 asks for too.
    ///
    /// ### References
    /// flannel-io/flannel `pkg/backend/hostgw/hostgw_windows.go` (the `.2` endpoint) and
    /// `pkg/backend/vxlan/device_windows.go` (the `.1` next hop).
    NODE_SUBNET_TOO_SMALL_FOR_MAX_PODS = ("HG109", "node-subnet-too-small-for-max-pods", Error, Some(check_node_capacity));

    /// ### What it checks
    /// That no node address lies inside `clusterCidr` or `serviceCidr`.
    ///
    /// ### Why it matters
    /// Traffic to the node would be routed into the pod overlay or captured by kube-proxy.
    ///
    /// ### Fix
    /// Move the node, or the range, so that they do not overlap.
    ///
    /// ### References
    /// kubernetes/kops `pkg/apis/kops/validation` (`validateSubnet`: "must not overlap podCIDR").
    NODE_ADDRESS_IN_CLUSTER_NETWORK = ("HG110", "node-address-in-cluster-network", Error, Some(check_node_addresses));

    /// ### What it checks
    /// That no `hostSubnets` entry overlaps `clusterCidr` or `serviceCidr`.
    ///
    /// ### Why it matters
    /// Hosts in the overlapping part become unreachable from pods, or reachable by the wrong route.
    ///
    /// ### Fix
    /// Choose pod and Service ranges outside every host network.
    ///
    /// ### References
    /// kubernetes/kops `pkg/apis/kops/validation` ("must not overlap podCIDR", "must not overlap
    /// serviceClusterIPRange"); Amazon EKS API reference (service CIDR); AKS networking docs.
    HOST_SUBNET_OVERLAPS_CLUSTER_NETWORK = ("HG111", "host-subnet-overlaps-cluster-network", Error, Some(check_host_subnets));

    /// ### What it checks
    /// That a node's `podCidr` lies inside `clusterCidr` and has the `nodeCidrMaskSize` prefix.
    ///
    /// ### Why it matters
    /// flannel refuses a node whose PodCIDR is outside its Network; kube-controller-manager crashes
    /// on start-up on a PodCIDR outside its cluster range.
    ///
    /// ### Fix
    /// Pin a subnet of the right size inside `clusterCidr`, or remove `podCidr`.
    ///
    /// ### References
    /// flannel-io/flannel `pkg/subnet/kube/kube.go` ("doesn't contain ... PodCIDR"); kube-controller-manager
    /// `occupyCIDRs` (kubernetes/kubernetes `pkg/controller/nodeipam/ipam/range_allocator.go`).
    PINNED_POD_CIDR_INVALID = ("HG112", "pinned-pod-cidr-invalid", Error, Some(check_pinned));

    /// ### What it checks
    /// That no two nodes' pod subnets overlap.
    ///
    /// ### Why it matters
    /// kube-controller-manager accepts the double booking silently; two nodes then hand out the
    /// same pod addresses.
    ///
    /// ### Fix
    /// Give each pinned node its own subnet, or remove the pins.
    ///
    /// ### References
    /// kube-controller-manager `cidrset.Occupy` (kubernetes/kubernetes
    /// `pkg/controller/nodeipam/ipam/cidrset/cidr_set.go`), which does not refuse a subnet in use.
    POD_CIDR_CONFLICT = ("HG113", "pod-cidr-conflict", Error, Some(check_pod_conflicts));

    /// ### What it checks
    /// That no cluster, Service or host range overlaps a special-purpose range: 0.0.0.0/8,
    /// 127.0.0.0/8, 169.254.0.0/16 (link-local, cloud metadata), 224.0.0.0/4, 240.0.0.0/4; with
    /// Windows nodes, 192.168.255.0/30, the "External" HNS network the Windows setup creates on
    /// every node (an error when the Service range, a host range or a node's pod subnet overlaps
    /// it; a warning when only the cluster range contains it). Warning: Docker's default bridge
    /// 172.17.0.0/16.
    ///
    /// ### Why it matters
    /// Addresses in these ranges are routed specially by every host; the Windows External network
    /// and the Docker bridge sit on the nodes themselves.
    ///
    /// ### Fix
    /// Move the range into private space that avoids them.
    ///
    /// ### References
    /// RFC 6890; KubeCluster.ps1 (`External` network); AKS docs on `dockerBridgeCidr`;
    /// RFC 6890 (special-purpose address registry); AKS networking docs (`dockerBridgeCidr`);
    /// microsoft/SDN `Kubernetes/windows/helper.psm1` (the `External` network on 192.168.255.0/30).
    RESERVED_RANGE_OVERLAP = ("HG114", "reserved-range-overlap", Error, Some(check_reserved));

    /// ### What it checks
    /// That `clusterCidr` and `serviceCidr` lie inside private space: 10.0.0.0/8, 172.16.0.0/12,
    /// 192.168.0.0/16 or 100.64.0.0/10.
    ///
    /// ### Why it matters
    /// Pods and Services in public space shadow the real internet hosts with those addresses.
    ///
    /// ### Fix
    /// Choose private ranges, e.g. `10.244.0.0/16` and `10.96.0.0/12`.
    ///
    /// ### References
    /// RFC 1918, RFC 6598; Amazon EKS API reference (service CIDR "within one of the following
    /// private IP address blocks").
    PUBLIC_RANGE = ("HG115", "public-range", Warning, Some(check_public));

    /// ### What it checks
    /// When `hostSubnets` is given, that every node address lies in one of them.
    ///
    /// ### Why it matters
    /// A node outside the declared networks is either a typo or a network the plan does not know,
    /// so its overlaps and host-gw adjacency go unchecked.
    ///
    /// ### Fix
    /// Correct the address, or add its network to `hostSubnets`.
    ///
    /// ### References
    /// kubernetes/kops subnet checks; Rancher 2.3 "Configuring Custom Clusters for Windows" (host-gw
    /// nodes "belong to the same layer 2 subnet").
    NODE_ADDRESS_OUTSIDE_HOST_SUBNETS = ("HG116", "node-address-outside-host-subnets", Error, Some(check_outside_host_subnets));

    /// ### What it checks
    /// That no host-gw route artifact (a cloud's route table, or static routes on each host) is
    /// written from a predicted pod subnet: that of a node under `podCidrs: controller` without a
    /// `podCidr`, not read from the cluster (`render --cluster` or `--kubectl` reads the subnets
    /// of the nodes that joined).
    ///
    /// ### Why it matters
    /// kube-controller-manager gives node subnets in the order nodes register, not in spec order.
    /// When the workers join in another order every cloud route sends a subnet to the wrong node,
    /// and host-gw traffic is dropped without an error. The Rancher guide reads the subnets from the
    /// cluster (`kubectl get nodes -o custom-columns=...,routeDestination:.spec.podCIDR`) before it
    /// writes a route.
    ///
    /// ### Fix
    /// Once the nodes have joined, render the routes from the cluster
    /// (`hybridgen render SPEC --out DIR --kubectl`, or `--cluster` with a capture); or set
    /// `network.podCidrs: hybridgen`, so that every subnet is the plan's (docs/routes.md).
    ///
    /// ### References
    /// kubernetes/kubernetes `pkg/controller/nodeipam/ipam/range_allocator.go` (subnets allocated
    /// as nodes are added); Rancher 2.3 "Configuring Custom Clusters for Windows", "Cloud-hosted VM
    /// Routes Configuration for Host Gateway Mode".
    POD_CIDR_PREDICTED = ("HG117", "pod-cidr-predicted", Warning, Some(check_predicted));

    /// ### What it checks
    /// That a node's `podCidr` is not written under `network.podCidrs: controller` (the default).
    ///
    /// ### Why it matters
    /// kube-controller-manager allocates every node's subnet itself and reads no pin; the kubelet's
    /// `--pod-cidr` is used only in standalone mode. The pinned subnet is what the routes and the
    /// plan assume, and what the node gets only by chance; a node's `spec.podCIDR` cannot change
    /// once set.
    ///
    /// ### Fix
    /// Set `network.podCidrs: hybridgen`, which turns the controller's allocation off and renders the
    /// step that sets each node's subnet from the plan; or remove the `podCidr`.
    ///
    /// ### References
    /// kubelet `--pod-cidr` ("only used in standalone mode", kubernetes/kubernetes
    /// `cmd/kubelet/app/options/options.go`); kubeadm `getControllerManagerCommand`
    /// (`cmd/kubeadm/app/phases/controlplane/manifests.go`: `allocate-node-cidrs` with a pod
    /// subnet); `ValidateNodeUpdate` (`pkg/apis/core/validation/validation.go`).
    POD_CIDR_PIN_NOT_ENFORCED = ("HG118", "pod-cidr-pin-not-enforced", Warning, Some(check_pins_enforced));
}

const CLUSTER: &str = "/network/clusterCidr";
const SERVICE: &str = "/network/serviceCidr";
const DNS: &str = "/network/dnsServiceIp";
const MASK: &str = "/network/nodeCidrMaskSize";
const MAX_PODS: &str = "/network/maxPodsPerNode";

/// The prefix lengths kube-apiserver and kubeadm accept for the Service range: at most 2^20
/// addresses, and at least 16 so that the cluster DNS Service has its 10th.
const SERVICE_PREFIXES: std::ops::RangeInclusive<u8> = 12..=28;

/// The cluster range, and the Service range when its size is one the cluster accepts. A Service
/// range HG102 refuses is one mistake: what it overlaps (the pods, the hosts, the nodes, the DNS
/// address) follows from its size, so the other checks leave it to HG102, whose help moves it
/// clear of them all.
fn networks(plan: &Plan) -> (Option<Ipv4Net>, Option<Ipv4Net>) {
    (plan.cluster_cidr.clone().ok(), sized_service(plan))
}

/// The cluster and Service networks with their field names and pointers.
fn named_networks(plan: &Plan) -> [(Option<Ipv4Net>, &'static str, &'static str); 2] {
    let (cluster, service) = networks(plan);
    [
        (cluster, "clusterCidr", CLUSTER),
        (service, "serviceCidr", SERVICE),
    ]
}

fn sized_service(plan: &Plan) -> Option<Ipv4Net> {
    plan.service_cidr
        .clone()
        .ok()
        .filter(|service| SERVICE_PREFIXES.contains(&service.prefix_len()))
}

fn net(text: &str) -> Ipv4Net {
    text.parse().unwrap_or_default()
}

fn relation(a: &Ipv4Net, b: &Ipv4Net) -> &'static str {
    if a == b {
        "is the same range as"
    } else if a.contains(b) {
        "contains"
    } else {
        "lies inside"
    }
}

/// A Service range for help texts that plans clean: of an accepted size, private, clear of the
/// cluster range, the host networks, the nodes' addresses and the reserved ranges, and holding a
/// written `dnsServiceIp` as its 10th address. Tried in turn: the range whose 10th address is the
/// written DNS address, the written range resized, then the distributions' defaults (kubeadm's
/// 10.96.0.0/12, k3s' and RKE's 10.43.0.0/16, ...). When no range fits the DNS address, the
/// suggestion moves it too (`Some` address).
fn service_suggestion(context: &Context) -> (Ipv4Net, Option<Ipv4Addr>) {
    let plan = context.plan;
    let dns = written_dns_address(context);
    let written = plan.service_cidr.clone().ok();
    let mut candidates: Vec<Ipv4Net> = Vec::new();
    if let Some(base) = dns.and_then(|dns| u32::from(dns).checked_sub(DNS_SERVICE_INDEX as u32)) {
        let base = Ipv4Addr::from(base);
        candidates.extend(
            [16, 12, 20, 24, 28]
                .into_iter()
                .filter_map(|prefix| Ipv4Net::new(base, prefix).ok())
                .filter(|range| range.network() == base),
        );
    }
    if let Some(written) = written {
        let prefix = written
            .prefix_len()
            .clamp(*SERVICE_PREFIXES.start(), *SERVICE_PREFIXES.end());
        candidates.extend(written.subnets(prefix).into_iter().flatten().take(16));
        candidates.extend(Ipv4Net::new(written.network(), prefix).map(|range| range.trunc()));
    }
    candidates.extend(
        [
            "10.96.0.0/12",
            "10.43.0.0/16",
            "172.20.0.0/16",
            "192.168.128.0/20",
        ]
        .map(net),
    );
    let clear: Vec<Ipv4Net> = candidates
        .into_iter()
        .filter(|candidate| service_range_is_clear(plan, candidate))
        .collect();
    let holds_dns =
        |range: &&Ipv4Net| dns.is_none_or(|dns| nth(range, DNS_SERVICE_INDEX) == Some(dns));
    match (clear.iter().find(holds_dns), clear.first()) {
        (Some(range), _) => (*range, None),
        (None, Some(range)) => (*range, nth(range, DNS_SERVICE_INDEX)),
        (None, None) => (net("10.96.0.0/12"), None),
    }
}

/// Whether a Service range would raise none of the range checks.
fn service_range_is_clear(plan: &Plan, candidate: &Ipv4Net) -> bool {
    let private = PRIVATE_SPACE.map(net);
    let mut taken: Vec<Ipv4Net> = plan.host_subnets.iter().flatten().copied().collect();
    taken.extend(plan.cluster_cidr.clone().ok());
    taken.extend(SPECIAL_RANGES.iter().map(|(range, _)| net(range)));
    taken.extend([net(DOCKER_BRIDGE), net(WINDOWS_EXTERNAL_NETWORK)]);
    private.iter().any(|space| space.contains(candidate))
        && !taken.iter().any(|range| overlaps(range, candidate))
        && !plan.nodes.iter().any(|node| {
            node.address
                .as_ref()
                .is_ok_and(|address| candidate.contains(address))
        })
}

/// `serviceCidr: RANGE` (and `dnsServiceIp: ADDRESS` when that must move too), for a help.
fn service_suggestion_text(context: &Context) -> String {
    match service_suggestion(context) {
        (range, None) => format!("`serviceCidr: {range}`"),
        (range, Some(dns)) => format!("`serviceCidr: {range}` with `dnsServiceIp: {dns}`"),
    }
}

fn check_service_overlap(context: &Context, found: &mut Vec<Diagnostic>) {
    let (Some(cluster), Some(service)) = networks(context.plan) else {
        return;
    };
    if overlaps(&service, &cluster) {
        found.push(
            Diagnostic::new(
                &SERVICE_CIDR_OVERLAPS_CLUSTER_CIDR,
                value(SERVICE),
                format!(
                    "`serviceCidr` {service} {} `clusterCidr` {cluster}",
                    relation(&service, &cluster)
                ),
            )
            .label("overlaps the pod network")
            .related(value(CLUSTER), "`clusterCidr` declared here")
            .help(format!(
                "move the Services to a range outside {cluster}, e.g. {}",
                service_suggestion_text(context)
            )),
        );
    }
}

fn check_service_size(context: &Context, found: &mut Vec<Diagnostic>) {
    let Ok(service) = &context.plan.service_cidr else {
        return;
    };
    let prefix = service.prefix_len();
    let (message, label) = if prefix < 12 {
        (
            format!(
                "`serviceCidr` {service} holds {} addresses; kubeadm and kube-apiserver allow at most 2^20 (a /12)",
                size(service)
            ),
            "too large",
        )
    } else if prefix > 28 {
        (
            format!(
                "`serviceCidr` {service} holds {} addresses; the cluster DNS Service needs the 10th, so at least 16 (a /28)",
                size(service)
            ),
            "too small",
        )
    } else {
        return;
    };
    found.push(
        Diagnostic::new(&SERVICE_CIDR_SIZE, value(SERVICE), message)
            .label(label)
            .help(format!(
                "use a prefix length from 12 to 28 clear of the other networks, e.g. {}",
                service_suggestion_text(context)
            )),
    );
}

/// The written DNS address, when it parses.
fn written_dns_address(context: &Context) -> Option<Ipv4Addr> {
    context.spec.network.dns_service_ip.as_ref()?;
    context.plan.dns_service_ip.clone()?.ok()
}

/// The written DNS address and the Service range, when both parse and the range has a size the
/// cluster accepts.
fn written_dns(context: &Context) -> Option<(Ipv4Addr, Ipv4Net)> {
    Some((written_dns_address(context)?, sized_service(context.plan)?))
}

fn tenth(service: &Ipv4Net) -> String {
    nth(service, DNS_SERVICE_INDEX)
        .map_or_else(|| "the 10th address".into(), |ip| format!("`{ip}`"))
}

fn check_dns_outside(context: &Context, found: &mut Vec<Diagnostic>) {
    if let Some((dns, service)) = written_dns(context)
        && !service.contains(&dns)
    {
        found.push(
            Diagnostic::new(
                &DNS_IP_OUTSIDE_SERVICE_CIDR,
                value(DNS),
                format!("`dnsServiceIp` {dns} is outside `serviceCidr` {service}"),
            )
            .label("outside the Service range")
            .related(value(SERVICE), "`serviceCidr` declared here")
            .help(format!(
                "use {} (the 10th address of {service})",
                tenth(&service)
            )),
        );
    }
}

/// Why a DNS address inside the Service range cannot be used, if it cannot.
fn reserved_reason(dns: Ipv4Addr, service: &Ipv4Net) -> Option<&'static str> {
    if dns == service.network() {
        Some("the network address")
    } else if dns == service.broadcast() {
        Some("the broadcast address")
    } else if nth(service, 1) == Some(dns) {
        Some("the address of the `kubernetes` API Service")
    } else {
        None
    }
}

fn check_dns_reserved(context: &Context, found: &mut Vec<Diagnostic>) {
    if let Some((dns, service)) = written_dns(context)
        && let Some(reason) = reserved_reason(dns, &service).filter(|_| service.contains(&dns))
    {
        found.push(
            Diagnostic::new(
                &DNS_IP_RESERVED,
                value(DNS),
                format!("`dnsServiceIp` {dns} is {reason} of `serviceCidr` {service}"),
            )
            .label("reserved address")
            .help(format!("use {}", tenth(&service))),
        );
    }
}

fn check_dns_tenth(context: &Context, found: &mut Vec<Diagnostic>) {
    if let Some((dns, service)) = written_dns(context) {
        let usable = service.contains(&dns) && reserved_reason(dns, &service).is_none();
        let tenth_address = nth(&service, DNS_SERVICE_INDEX);
        if usable && tenth_address.is_some_and(|ip| ip != dns) {
            found.push(
                Diagnostic::new(
                    &DNS_IP_NOT_TENTH,
                    value(DNS),
                    format!("`dnsServiceIp` {dns} is not the 10th address of `serviceCidr` {service}, where kubeadm creates the DNS Service"),
                )
                .label("not the 10th address")
                .help(format!("use {}, or carry {dns} into every kubelet's `clusterDNS` by hand", tenth(&service))),
            );
        }
    }
}

/// Where to point for the node mask: the written value, else the cluster range it is measured on.
fn mask_pointer(context: &Context) -> &'static str {
    if context.spec.network.node_cidr_mask_size.is_some() {
        MASK
    } else {
        CLUSTER
    }
}

/// The node mask's error, if it has one.
fn mask_error(plan: &Plan) -> Option<String> {
    let cluster = plan.cluster_cidr.as_ref().ok()?;
    let (mask, prefix) = (plan.node_mask, cluster.prefix_len());
    if mask > 30 {
        Some(format!(
            "`nodeCidrMaskSize` /{mask} leaves fewer than 4 addresses per node; flannel needs /30 or shorter"
        ))
    } else if mask < prefix {
        Some(format!(
            "`nodeCidrMaskSize` /{mask} is shorter than the `clusterCidr` prefix /{prefix}: a node subnet would be larger than the whole pod network"
        ))
    } else if mask - prefix > 16 {
        Some(format!(
            "`nodeCidrMaskSize` /{mask} is {} bits longer than the `clusterCidr` prefix /{prefix}; kubeadm allows at most 16",
            mask - prefix
        ))
    } else {
        None
    }
}

fn check_node_mask(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Ok(cluster) = &plan.cluster_cidr else {
        return;
    };
    if let Some(message) = mask_error(plan) {
        let (shortest, longest) = (cluster.prefix_len(), (cluster.prefix_len() + 16).min(30));
        let help = if shortest <= longest {
            // A /24 per node where the range allows it, and at least one subnet per node.
            let nodes = plan.nodes.len().max(1);
            let bits = u8::try_from(nodes.next_power_of_two().trailing_zeros()).unwrap_or(16);
            let suggested = (shortest + bits).max(24).clamp(shortest, longest);
            format!("use a mask from {shortest} to {longest}, e.g. `nodeCidrMaskSize: {suggested}`")
        } else {
            format!(
                "widen `clusterCidr`: a /{shortest} leaves no room for a node subnet of at least 4 addresses"
            )
        };
        found.push(
            Diagnostic::new(&NODE_MASK_INVALID, value(mask_pointer(context)), message)
                .label("invalid node subnet size")
                .related(
                    value(CLUSTER),
                    format!("`clusterCidr` {cluster} declared here"),
                )
                .help(help),
        );
    } else if plan.has_windows()
        && plan.node_mask != 24
        // The /24 arithmetic is microsoft/SDN's `helper.psm1` (KubeCluster.ps1, RKE1). The
        // HostProcess scripts compute from the subnet's prefix, and RKE2's Windows agent reserves
        // through host-local (rancher/rke2 `pkg/windows/flannel.go`).
        && plan.windows_setup != Some(WindowsSetup::HostProcess)
        && context.spec.distribution() != Distribution::Rke2
    {
        found.push(
            Diagnostic::new(
                &NODE_MASK_INVALID,
                value(mask_pointer(context)),
                format!("Windows nodes with /{} node subnets: the Windows setup derives gateway and endpoint addresses for /24 subnets", plan.node_mask),
            )
            .label("not /24")
            .help("use `nodeCidrMaskSize: 24` with Windows nodes")
            .warning(),
        );
    }
}

/// `1 node subnet`, `2 node subnets`.
fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The cluster network widened so that it holds `needed` (subnets of `mask` bits, or addresses).
fn widened(cluster: &Ipv4Net, prefix_for: impl Fn(u8) -> bool) -> Option<Ipv4Net> {
    (0..=cluster.prefix_len())
        .rev()
        .find(|prefix| prefix_for(*prefix))
        .and_then(|prefix| Ipv4Net::new(cluster.network(), prefix).ok())
        .map(|wider| wider.trunc())
}

/// The cluster network widened until it passes HG107 and HG108 together: a node subnet for every
/// node with room to spare (fewer than 90% used) and an address for every pod, so that either
/// finding's help, applied as written, settles both.
fn roomy(plan: &crate::plan::Plan, cluster: &Ipv4Net) -> Option<Ipv4Net> {
    let mask = plan.node_mask;
    let nodes = plan.nodes.len() as u64;
    let pods = nodes + nodes * u64::from(plan.max_pods);
    widened(cluster, |prefix| {
        prefix <= mask
            && nodes * 10 < (1u64 << (mask - prefix)) * 9
            && (1u64 << (32 - u32::from(prefix))) >= pods
    })
}

fn check_exhausted(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Ok(cluster) = &plan.cluster_cidr else {
        return;
    };
    if mask_error(plan).is_some() {
        return;
    }
    let mask = plan.node_mask;
    let subnets = 1u64 << (mask - cluster.prefix_len());
    let nodes = plan.nodes.len() as u64;
    let message = format!(
        "`clusterCidr` {cluster} has {} of /{mask}, but the spec has {nodes} nodes",
        count(subnets, "node subnet")
    );
    if nodes > subnets {
        let help = match roomy(plan, cluster) {
            // Windows nodes take /24 node subnets (HG106): only the range can grow.
            Some(wider) if plan.has_windows() => format!("widen `clusterCidr` to `{wider}`"),
            Some(wider) => {
                format!("widen `clusterCidr` to `{wider}`, or lengthen `nodeCidrMaskSize`")
            }
            None => "lengthen `nodeCidrMaskSize` or split the cluster".into(),
        };
        found.push(
            Diagnostic::new(&CLUSTER_CIDR_EXHAUSTED, value(CLUSTER), message)
                .label("too few node subnets")
                .help(help),
        );
    } else if nodes * 10 >= subnets * 9 {
        let help = match roomy(plan, cluster) {
            Some(wider) => format!("widen `clusterCidr` to `{wider}` to leave room for more nodes"),
            None => "lengthen `nodeCidrMaskSize` to leave room for more nodes".into(),
        };
        found.push(
            Diagnostic::new(
                &CLUSTER_CIDR_EXHAUSTED,
                value(CLUSTER),
                format!(
                    "`clusterCidr` {cluster} has {} of /{mask} and {} use {}% of them",
                    count(subnets, "node subnet"),
                    count(nodes, "node"),
                    nodes * 100 / subnets
                ),
            )
            .label("almost full")
            .help(help)
            .warning(),
        );
    }
}

fn check_pod_capacity(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Ok(cluster) = &plan.cluster_cidr else {
        return;
    };
    let nodes = plan.nodes.len() as u64;
    let needed = nodes + nodes * u64::from(plan.max_pods);
    if size(cluster) < needed {
        let help = match roomy(plan, cluster) {
            Some(wider) => format!("widen `clusterCidr` to `{wider}`"),
            None => "lower `maxPodsPerNode` or split the cluster".into(),
        };
        found.push(
            Diagnostic::new(
                &CLUSTER_CIDR_TOO_SMALL_FOR_PODS,
                value(CLUSTER),
                format!(
                    "`clusterCidr` {cluster} holds {} addresses, but {nodes} nodes with {} pods each need {needed}",
                    size(cluster),
                    plan.max_pods
                ),
            )
            .label("too small for the pods")
            .help(help),
        );
    }
}

fn check_node_capacity(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if plan.node_mask > 30 {
        return;
    }
    let subnet_size = 1u64 << (32 - u32::from(plan.node_mask));
    let pointer = if context.spec.network.max_pods_per_node.is_some() {
        MAX_PODS
    } else {
        mask_pointer(context)
    };
    for (os, reserved) in [(Os::Linux, 3u64), (Os::Windows, 4)] {
        if !plan.nodes.iter().any(|node| node.os == os) {
            continue;
        }
        let usable = subnet_size - reserved;
        if usable < u64::from(plan.max_pods) {
            let fitting_mask = (0..=30u32)
                .rev()
                .find(|mask| (1u64 << (32 - mask)) - reserved >= u64::from(plan.max_pods))
                .unwrap_or(0);
            // Windows nodes take /24 (HG106): the one mask that settles both, or fewer pods.
            let help = if plan.has_windows() && fitting_mask >= 24 {
                "use `nodeCidrMaskSize: 24`, the node subnet Windows nodes need".to_string()
            } else if plan.has_windows() {
                format!(
                    "lower `maxPodsPerNode` to {}, what a /24 holds on Windows",
                    256 - 4
                )
            } else {
                format!(
                    "lower `maxPodsPerNode` to {usable}, or use `nodeCidrMaskSize: {fitting_mask}`"
                )
            };
            found.push(
                Diagnostic::new(
                    &NODE_SUBNET_TOO_SMALL_FOR_MAX_PODS,
                    value(pointer),
                    format!(
                        "a /{} node subnet gives {} nodes {usable} usable pod addresses, fewer than `maxPodsPerNode` {}",
                        plan.node_mask,
                        os.as_str(),
                        plan.max_pods
                    ),
                )
                .label("more pods than addresses")
                .help(help),
            );
        }
    }
}

fn check_node_addresses(context: &Context, found: &mut Vec<Diagnostic>) {
    let networks = named_networks(context.plan);
    for (index, node) in context.plan.nodes.iter().enumerate() {
        let Ok(address) = node.address else { continue };
        for (range, field, pointer) in networks {
            if let Some(range) = range.filter(|range| range.contains(&address)) {
                found.push(
                    Diagnostic::new(
                        &NODE_ADDRESS_IN_CLUSTER_NETWORK,
                        value(node_pointer(index, "address")),
                        format!(
                            "node `{}` address {address} lies inside `{field}` {range}",
                            node.name
                        ),
                    )
                    .label(format!("inside `{field}`"))
                    .related(value(pointer), format!("`{field}` declared here"))
                    .help(format!(
                        "give the node an address outside {range}, or move `{field}`"
                    )),
                );
            }
        }
    }
}

fn check_host_subnets(context: &Context, found: &mut Vec<Diagnostic>) {
    let networks = named_networks(context.plan);
    for (index, subnet) in context.plan.host_subnets.iter().enumerate() {
        let Ok(subnet) = subnet else { continue };
        for (range, field, pointer) in networks {
            if let Some(range) = range.filter(|range| overlaps(range, subnet)) {
                found.push(
                    Diagnostic::new(
                        &HOST_SUBNET_OVERLAPS_CLUSTER_NETWORK,
                        value(format!("/network/hostSubnets/{index}")),
                        format!("host subnet {subnet} overlaps `{field}` {range}"),
                    )
                    .label(format!("overlaps `{field}`"))
                    .related(value(pointer), format!("`{field}` declared here"))
                    .help(format!("move `{field}` out of the host networks")),
                );
            }
        }
    }
}

fn check_pinned(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Ok(cluster) = &plan.cluster_cidr else {
        return;
    };
    for (index, node) in plan.nodes.iter().enumerate() {
        let Some(Ok(pinned)) = &node.pinned else {
            continue;
        };
        let pointer = node_pointer(index, "podCidr");
        if !cluster.contains(pinned) {
            found.push(
                Diagnostic::new(
                    &PINNED_POD_CIDR_INVALID,
                    value(pointer),
                    format!(
                        "node `{}` `podCidr` {pinned} is not inside `clusterCidr` {cluster}",
                        node.name
                    ),
                )
                .label("outside the pod network")
                .related(value(CLUSTER), "`clusterCidr` declared here")
                .help(format!(
                    "pin a /{} inside {cluster}, or remove `podCidr` to have one assigned",
                    plan.node_mask
                )),
            );
        } else if pinned.prefix_len() != plan.node_mask {
            let resized = Ipv4Net::new(pinned.network(), plan.node_mask).map(|n| n.trunc());
            let help = match resized {
                Ok(resized) if cluster.contains(&resized) => format!("use `{resized}`"),
                _ => format!("pin a /{} subnet", plan.node_mask),
            };
            found.push(
                Diagnostic::new(
                    &PINNED_POD_CIDR_INVALID,
                    value(pointer),
                    format!(
                        "node `{}` `podCidr` {pinned} is a /{}, but `nodeCidrMaskSize` is /{}",
                        node.name,
                        pinned.prefix_len(),
                        plan.node_mask
                    ),
                )
                .label("wrong size")
                .help(help),
            );
        }
    }
}

/// The pointer of a node's pod subnet: its pin when pinned, else the node.
fn subnet_pointer(plan: &Plan, index: usize) -> String {
    if plan.nodes[index].pinned.is_some() {
        node_pointer(index, "podCidr")
    } else {
        node_pointer(index, "")
    }
}

fn check_pod_conflicts(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let subnets: Vec<(Ipv4Net, usize)> = plan
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(index, node)| Some((node.pod_subnet?, index)))
        .collect();
    for (first, second) in overlapping_pairs(&subnets) {
        let (a, b) = (&plan.nodes[first], &plan.nodes[second]);
        let (Some(a_subnet), Some(b_subnet)) = (a.pod_subnet, b.pod_subnet) else {
            continue;
        };
        found.push(
            Diagnostic::new(
                &POD_CIDR_CONFLICT,
                value(subnet_pointer(plan, second)),
                format!(
                    "node `{}` pod subnet {b_subnet} overlaps node `{}` pod subnet {a_subnet}",
                    b.name, a.name
                ),
            )
            .label("overlapping pod subnet")
            .related(
                value(subnet_pointer(plan, first)),
                format!("`{}` has {a_subnet}", a.name),
            )
            .help("give each node its own subnet, or remove `podCidr` to have one assigned"),
        );
    }
}

/// Ranges every host routes specially, with what they are.
const SPECIAL_RANGES: &[(&str, &str)] = &[
    ("0.0.0.0/8", "\"this network\""),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local (cloud metadata)"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
];
const WINDOWS_EXTERNAL_NETWORK: &str = "192.168.255.0/30";
const DOCKER_BRIDGE: &str = "172.17.0.0/16";

/// The plan's ranges with their pointer and field name.
fn declared_ranges(plan: &Plan) -> Vec<(Ipv4Net, String, String)> {
    let networks = named_networks(plan)
        .into_iter()
        .filter_map(|(range, field, pointer)| {
            Some((range?, pointer.to_string(), format!("`{field}`")))
        });
    let host_subnets = plan
        .host_subnets
        .iter()
        .enumerate()
        .filter_map(|(index, subnet)| {
            let pointer = format!("/network/hostSubnets/{index}");
            Some((*subnet.as_ref().ok()?, pointer, "host subnet".to_string()))
        });
    networks.chain(host_subnets).collect()
}

fn check_reserved(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let external = net(WINDOWS_EXTERNAL_NETWORK);
    for (range, pointer, field) in declared_ranges(plan) {
        for (special, what) in SPECIAL_RANGES {
            let special = net(special);
            if overlaps(&range, &special) {
                found.push(
                    Diagnostic::new(
                        &RESERVED_RANGE_OVERLAP,
                        value(pointer.clone()),
                        format!("{field} {range} overlaps {special}, the {what} range"),
                    )
                    .label(format!("overlaps {special}"))
                    .help("choose a range in private space, e.g. inside 10.0.0.0/8"),
                );
            }
        }
        if plan.has_windows() && overlaps(&range, &external) {
            found.push(windows_external_finding(
                plan, &range, &pointer, &field, &external,
            ));
        }
        let docker = net(DOCKER_BRIDGE);
        if overlaps(&range, &docker) {
            found.push(
                Diagnostic::new(&RESERVED_RANGE_OVERLAP, value(pointer), format!("{field} {range} overlaps Docker's default bridge {docker}"))
                    .label("overlaps the Docker bridge")
                    .help("choose a range outside 172.17.0.0/16, or move Docker's bridge (`bip`) on every node")
                    .warning(),
            );
        }
    }
}

/// The Windows setup creates 192.168.255.0/30 on every node: an error where an address the
/// cluster uses falls into it, a warning where the cluster range merely contains it.
fn windows_external_finding(
    plan: &Plan,
    range: &Ipv4Net,
    pointer: &str,
    field: &str,
    external: &Ipv4Net,
) -> Diagnostic {
    let base = Diagnostic::new(
        &RESERVED_RANGE_OVERLAP,
        value(pointer),
        format!(
            "{field} {range} overlaps {external}, the \"External\" HNS network the Windows setup creates on every node"
        ),
    );
    if pointer != CLUSTER {
        return base
            .label(format!("overlaps {external}"))
            .help("choose a range that avoids 192.168.255.0/30");
    }
    let colliding = plan.nodes.iter().enumerate().find(|(_, node)| {
        node.pod_subnet
            .is_some_and(|subnet| overlaps(&subnet, external))
    });
    match colliding {
        Some((index, node)) => base
            .label(format!("overlaps {external}"))
            .related(value(subnet_pointer(plan, index)), format!("`{}` gets a pod subnet there", node.name))
            .help("keep every node's pod subnet out of 192.168.255.0/24, or move `clusterCidr`"),
        None => base
            .label(format!("contains {external}"))
            .help("no node may get a pod subnet that covers 192.168.255.0/30; pin subnets elsewhere or move `clusterCidr`")
            .warning(),
    }
}

/// Private address space (RFC 1918) and shared address space (RFC 6598).
const PRIVATE_SPACE: [&str; 4] = [
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "100.64.0.0/10",
];

fn check_public(context: &Context, found: &mut Vec<Diagnostic>) {
    let private = PRIVATE_SPACE.map(net);
    for (range, field, pointer) in named_networks(context.plan) {
        let Some(range) = range else { continue };
        if !private.iter().any(|space| space.contains(&range)) {
            found.push(
                Diagnostic::new(
                    &PUBLIC_RANGE,
                    value(pointer),
                    format!("`{field}` {range} is outside private address space"),
                )
                .label("public addresses")
                .help(
                    "use a range inside 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 or 100.64.0.0/10",
                ),
            );
        }
    }
}

fn check_outside_host_subnets(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if plan.host_subnets.is_empty() || plan.host_subnets.iter().any(Result::is_err) {
        return;
    }
    let merged = merged_ranges(plan.host_subnets.iter().flatten());
    for (index, node) in plan.nodes.iter().enumerate() {
        let Ok(address) = node.address else { continue };
        if !in_ranges(&merged, address) {
            found.push(
                Diagnostic::new(
                    &NODE_ADDRESS_OUTSIDE_HOST_SUBNETS,
                    value(node_pointer(index, "address")),
                    // The subnets are named rather than pointed at: a label on `hostSubnets`,
                    // above the nodes, would head the report instead of the address.
                    format!(
                        "node `{}` address {address} is in none of the `hostSubnets` ({})",
                        node.name,
                        listing(
                            plan.host_subnets.iter().flatten().map(ToString::to_string),
                            3
                        )
                    ),
                )
                .label("outside every host subnet")
                .help("correct the address, or add its network to `hostSubnets`"),
            );
        }
    }
}

/// Disjoint, sorted address intervals covering the networks: lookups are binary searches.
pub(crate) fn merged_ranges<'a>(networks: impl Iterator<Item = &'a Ipv4Net>) -> Vec<(u32, u32)> {
    let mut ranges: Vec<(u32, u32)> = networks
        .map(|network| (u32::from(network.network()), u32::from(network.broadcast())))
        .collect();
    ranges.sort_unstable();
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match merged.last_mut() {
            Some((_, last_end)) if start <= last_end.saturating_add(1) => {
                *last_end = (*last_end).max(end)
            }
            _ => merged.push((start, end)),
        }
    }
    merged
}

pub(crate) fn in_ranges(ranges: &[(u32, u32)], address: Ipv4Addr) -> bool {
    let address = u32::from(address);
    let at = ranges.partition_point(|(start, _)| *start <= address);
    at > 0 && ranges[at - 1].1 >= address
}

/// What `render` writes pod routes into, as messages name it.
fn route_files(routes: ExternalRoutes) -> String {
    match routes {
        ExternalRoutes::Cloud(cloud) => {
            format!("`routes/{0}.sh` and `routes/{0}.tf.json`", cloud.as_str())
        }
        ExternalRoutes::Hosts => "the `routes/hosts/` scripts".into(),
    }
}

/// `network.podCidrs` when written, else the `network` key it belongs under.
fn pod_cidrs_key(context: &Context) -> crate::diagnostic::Location {
    if context.spec.network.pod_cidrs.is_some() {
        key("/network/podCidrs")
    } else {
        key("/network")
    }
}

fn check_predicted(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Some(routes) = plan.external_routes(context.spec.provider()) else {
        return;
    };
    let predicted = plan.predicted_nodes();
    if predicted.is_empty() {
        return;
    }
    let names = listing(
        predicted
            .iter()
            .filter_map(|index| plan.nodes.get(*index))
            .map(|node| format!("`{}`", node.name)),
        5,
    );
    let files = route_files(routes);
    let any_live = plan
        .nodes
        .iter()
        .any(|node| node.subnet_source == SubnetSource::Live);
    let (message, help) = if any_live {
        (
            format!(
                "{} of {} nodes are not in the cluster ({names}): {files} give them predicted pod subnets, which kube-controller-manager assigns in the order nodes register",
                predicted.len(),
                plan.nodes.len()
            ),
            "join these nodes, then render the routes again with `--kubectl` (or `--cluster` with a new capture)".to_string(),
        )
    } else {
        (
            format!(
                "{files} are written from {} predicted pod subnets ({names}): kube-controller-manager assigns node subnets in the order nodes register, not in spec order",
                predicted.len()
            ),
            "render the routes from the joined cluster with `hybridgen render SPEC --out DIR --kubectl`, or set `podCidrs: hybridgen` under `network`".to_string(),
        )
    };
    found.push(
        Diagnostic::new(&POD_CIDR_PREDICTED, pod_cidrs_key(context), message)
            .label("kube-controller-manager assigns the pod subnets")
            .help(help),
    );
}

fn check_pins_enforced(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if plan.pod_cidrs != PodCidrs::Controller {
        return;
    }
    for (index, node) in plan.nodes.iter().enumerate() {
        let Some(Ok(pinned)) = &node.pinned else {
            continue;
        };
        let mut finding = Diagnostic::new(
            &POD_CIDR_PIN_NOT_ENFORCED,
            value(node_pointer(index, "podCidr")),
            format!(
                "node `{}` pins `podCidr` {pinned}, but with `podCidrs: controller` kube-controller-manager assigns every node's subnet itself and reads no pin",
                node.name
            ),
        )
        .label("not enforced")
        .help("set `podCidrs: hybridgen` under `network`, so that `render` writes what gives each node its planned subnet");
        if context.spec.network.pod_cidrs.is_some() {
            finding = finding.related(
                value("/network/podCidrs"),
                "kube-controller-manager assigns the pod subnets",
            );
        }
        found.push(finding);
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::Plan;
    use crate::spec::Spec;

    fn codes(cluster: &str, mask: u8) -> Vec<&'static str> {
        let yaml = format!(
            "apiVersion: hybridgen/v1
kind: Cluster
metadata: {{name: demo}}
kubernetes: {{version: \"1.30.2\"}}
network: {{clusterCidr: \"{cluster}\", serviceCidr: 172.20.0.0/16, nodeCidrMaskSize: {mask}, maxPodsPerNode: 1}}
flannel: {{backend: vxlan}}
nodes:
  - {{name: control-0, os: linux, roles: [controlplane, etcd, worker], address: 192.168.10.10}}
"
        );
        let spec: Spec = serde_yaml::from_str(&yaml).unwrap();
        let plan = Plan::build(&spec);
        crate::rules::run(&spec, &plan)
            .iter()
            .map(|finding| finding.code())
            .collect()
    }

    /// The /24 warning belongs to KubeCluster.ps1's arithmetic: a /25 on the HostProcess path or
    /// on RKE2 is fine.
    #[test]
    fn a_windows_mask_other_than_24_is_judged_by_the_setup() {
        let spec = |version: &str, distribution: &str| {
            format!(
                "apiVersion: hybridgen/v1
kind: Cluster
metadata: {{name: demo}}
kubernetes: {{version: \"{version}\"{distribution}}}
network: {{clusterCidr: 10.244.0.0/16, serviceCidr: 10.96.0.0/12, nodeCidrMaskSize: 25}}
flannel: {{backend: vxlan}}
windows: {{build: \"10.0.20348.2762\", hostProcess: {{registry: registry.example.com/k8s}}}}
nodes:
  - {{name: control-0, os: linux, roles: [controlplane, etcd, worker], address: 192.168.10.10}}
  - {{name: win-0, os: windows, roles: [worker], address: 192.168.10.30}}
"
            )
        };
        let mask_findings = |yaml: String| {
            let spec: Spec = serde_yaml::from_str(&yaml).unwrap();
            let plan = Plan::build(&spec);
            crate::rules::run(&spec, &plan)
                .iter()
                .filter(|finding| finding.code() == "HG106")
                .count()
        };
        assert_eq!(mask_findings(spec("1.33.4", "")), 0, "HostProcess");
        assert_eq!(
            mask_findings(spec("1.31.4+rke2r1", ", distribution: rke2")),
            0,
            "RKE2"
        );
        let kubecluster =
            spec("1.22.17", "").replace(", hostProcess: {registry: registry.example.com/k8s}", "");
        assert_eq!(mask_findings(kubecluster), 1, "KubeCluster.ps1");
    }

    /// Every pair of cluster prefix and node mask is judged without a panic, and HG106 fires exactly
    /// where kube-controller-manager, kubeadm or flannel refuse the mask.
    #[test]
    fn every_prefix_and_mask_is_judged_without_panic() {
        for prefix in 0..=32u8 {
            let cluster = format!("10.0.0.0/{prefix}");
            let cluster = if prefix < 8 {
                format!("0.0.0.0/{prefix}")
            } else {
                cluster
            };
            for mask in 0..=32u8 {
                let found = codes(&cluster, mask);
                let refused = mask < prefix || mask > 30 || mask - prefix > 16;
                assert_eq!(
                    found.contains(&"HG106"),
                    refused,
                    "cluster /{prefix}, mask /{mask}: {found:?}"
                );
            }
        }
    }

    /// A mask equal to the cluster prefix is one node subnet, which kube-controller-manager
    /// accepts: HG106 is silent and HG107 judges whether one is enough.
    #[test]
    fn a_mask_equal_to_the_cluster_prefix_is_one_node_subnet() {
        assert_eq!(codes("10.244.0.0/24", 24), ["HG107"]);
    }
}

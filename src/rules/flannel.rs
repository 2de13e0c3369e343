//! HG2xx: flannel — vxlan interop between Linux and Windows, HNS network names, host-gw routing.

use super::{Context, declare_rules, node_pointer};
use crate::diagnostic::{Diagnostic, value};
use crate::plan::cloud;
use crate::plan::flannel_release::{self, Feature, FlannelRelease};
use crate::plan::{
    Plan, WINDOWS_VXLAN_PORT, WINDOWS_VXLAN_VNI, WindowsSetup, expected_network_name,
    flannel_network_name,
};
use crate::spec::{Backend, Provider};

declare_rules! {
    /// ### What it checks
    /// vxlan with Windows nodes: `vni` is at least 4096; and exactly 4096 where the Windows side
    /// runs flannel before v0.13.1, which hard-codes it. With Kubernetes before 1.24 the Windows
    /// side is set up by KubeCluster.ps1, which always installs flanneld v0.11.0.
    ///
    /// ### Why it matters
    /// flannel on Windows refuses a VNI below 4096 ("VNI must be greater than or equal to 4096 on
    /// Windows"); Linux's default is 1, so the two sides never talk.
    ///
    /// ### Fix
    /// Set `vni: 4096` (or leave it out: 4096 is the default with Windows nodes).
    ///
    /// ### References
    /// flannel `pkg/backend/vxlan/vxlan_windows.go`; flannel PR #1215 (v0.13.1); Kubernetes
    /// Windows guide ("VNI must be set to 4096"); flannel-io/flannel `pkg/backend/vxlan/vxlan_windows.go`.
    VXLAN_VNI_WINDOWS = ("HG201", "vxlan-vni-windows", Error, Some(check_vni_windows));

    /// ### What it checks
    /// vxlan with Windows nodes: `port` is 4789.
    ///
    /// ### Why it matters
    /// Windows only speaks VXLAN on UDP 4789; Linux's default, the kernel's 8472, breaks
    /// Linux–Windows pod traffic silently (nothing logs an error).
    ///
    /// ### Fix
    /// Set `port: 4789`, or leave it out.
    ///
    /// ### References
    /// flannel `vxlan_windows.go` ("Port is not supported on Windows"); rancher/rancher#19699.
    VXLAN_PORT_WINDOWS = ("HG202", "vxlan-port-windows", Error, Some(check_port_windows));

    /// ### What it checks
    /// vxlan with Windows nodes: `directRouting` is not enabled.
    ///
    /// ### Why it matters
    /// flannel on Windows refuses to start with it ("DirectRouting is not supported on Windows").
    ///
    /// ### Fix
    /// Remove `directRouting`, or set it to `false`.
    ///
    /// ### References
    /// flannel-io/flannel `pkg/backend/vxlan/vxlan_windows.go`.
    VXLAN_OPTION_WINDOWS = ("HG203", "vxlan-option-windows", Error, Some(check_direct_routing));

    /// ### What it checks
    /// That `macPrefix` is two hexadecimal bytes joined by `-`, like `0E-2A`.
    ///
    /// ### Why it matters
    /// flannel on Windows builds the VTEP MAC addresses from it; anything else fails at start.
    ///
    /// ### Fix
    /// Write two hex bytes joined by `-`, or leave it out (default `0E-2A`).
    ///
    /// ### References
    /// flannel-io/flannel `pkg/backend/vxlan/vxlan_windows.go` (`MacPrefix`); flannel
    /// `Documentation/backends.md`.
    MAC_PREFIX_INVALID = ("HG204", "mac-prefix-invalid", Error, Some(check_mac_prefix));

    /// ### What it checks
    /// Where the Windows nodes are set up with KubeCluster.ps1 (Kubernetes before 1.24), that
    /// `networkName` is the HNS network that setup creates and waits for: `vxlan0` for vxlan,
    /// `cbr0` for host-gw. With `windows.setup: wins-daemonsets` (Kubernetes 1.18 to 1.23,
    /// sig-windows-tools' DaemonSets that run flanneld and kube-proxy on Docker through
    /// rancher/wins), that it is the name flanneld gives the network itself: `flannel.<vni>` for
    /// vxlan, `cbr0` for host-gw. On the HostProcess path (1.24 and later) the name is free:
    /// hybridgen writes it into `net-conf.json` as `Backend.Name`, and HG314 checks it.
    ///
    /// ### Why it matters
    /// KubeCluster.ps1 waits 60 s for its network, then fails ("Fail to create the network"); the
    /// wins DaemonSets' net-conf.json has no `Backend.Name`, so flanneld creates its default
    /// name, while their CNI configuration and kube-proxy (`KUBE_NETWORK`) look the network up by
    /// the planned one.
    ///
    /// ### Fix
    /// Use the name the help gives, or leave `networkName` out.
    ///
    /// ### References
    /// kubernetes-sigs/sig-windows-tools `kubeadm/KubeCluster.ps1` (`$NetworkName`),
    /// `kubeadm/flannel/flannel-overlay.yml` (`"name": "flannel.4096"`) and
    /// `kubeadm/flannel/flannel-host-gw.yml` (`"name": "cbr0"`) at commit 1ab39f1;
    /// flannel-io/flannel `pkg/backend/vxlan/vxlan_windows.go` and
    /// `pkg/backend/hostgw/hostgw_windows.go`; microsoft/SDN
    /// `Kubernetes/windows/helper.v2.psm1` (`WaitForNetwork`).
    HNS_NETWORK_NAME = ("HG205", "hns-network-name", Error, Some(check_network_name));

    /// ### What it checks
    /// host-gw without a cloud (`cloud.provider: none`): that all nodes share one layer-2 network.
    /// With `hostSubnets`, nodes must lie in one of them; without, in one /24.
    ///
    /// ### Why it matters
    /// host-gw routes each node's pod subnet to the node's address as a next hop, which only
    /// works between neighbours on one L2 segment ("network is unreachable" otherwise).
    ///
    /// ### Fix
    /// Use vxlan, or a cloud whose route tables carry the pod routes, or declare the shared L2
    /// network in `network.hostSubnets`.
    ///
    /// ### References
    /// Rancher 2.3 "Configuring Custom Clusters for Windows" (host-gw requirements); microsoft/SDN#262.
    HOST_GW_NOT_ADJACENT = ("HG206", "host-gw-not-adjacent", Error, Some(check_adjacency));

    /// ### What it checks
    /// host-gw on a cloud: a reminder that each node must be allowed to forward traffic for its pod
    /// subnet, and that the cloud's route table must carry one route per node.
    ///
    /// ### Why it matters
    /// Clouds drop packets whose addresses are not the instance's own unless forwarding is enabled:
    /// AWS source/destination check off, GCE `canIpForward`, Azure NIC IP forwarding.
    ///
    /// ### Fix
    /// Apply the route and forwarding commands that `hybridgen render` writes under `routes/`.
    ///
    /// ### References
    /// Rancher 2.3 "Configuring Custom Clusters for Windows" (cloud-hosted VM routes and IP
    /// forwarding).
    HOST_GW_CLOUD_FORWARDING = ("HG207", "host-gw-cloud-forwarding", Warning, Some(check_cloud_forwarding));

    /// ### What it checks
    /// With Windows nodes, that `flannel.version` is v0.11.0 or later.
    ///
    /// ### Why it matters
    /// v0.11.0 is the first flannel release with Windows support.
    ///
    /// ### Fix
    /// Use flannel v0.11.0 or later.
    ///
    /// ### References
    /// flannel-io/flannel v0.11.0 release notes (Windows support for vxlan and host-gw).
    FLANNEL_WINDOWS_VERSION = ("HG208", "flannel-windows-version", Error, Some(check_flannel_version));

    /// ### What it checks
    /// vxlan: that `vni` is within 1–16777215 (24 bits). Warning: above 65535 with Windows nodes.
    ///
    /// ### Why it matters
    /// The VXLAN header holds 24 bits; Windows stores the VNI in 16 bits (HNS VSID policy).
    ///
    /// ### Fix
    /// Use 4096 with Windows nodes, 1 without.
    ///
    /// ### References
    /// RFC 7348 §5; flannel-io/flannel `pkg/backend/vxlan/device_windows.go`.
    VXLAN_VNI_RANGE = ("HG209", "vxlan-vni-range", Error, Some(check_vni_range));

    /// ### What it checks
    /// That `flannel.version` is a release in hybridgen's release table (v0.11.0 to v0.28.9): a
    /// future release, a pre-release or a mistyped one is not.
    ///
    /// ### Why it matters
    /// Each flannel release ships its own manifest: images, volumes, environment and RBAC rules
    /// change from release to release. For a release it does not know, hybridgen renders the
    /// manifest of the nearest known release before it, with the image of the requested one; that
    /// release may need something its manifest does not have.
    ///
    /// ### Fix
    /// Correct a mistyped version, or compare the release's own `Documentation/kube-flannel.yml`
    /// with the rendered file before deploying it.
    ///
    /// ### References
    /// flannel-io/flannel `Documentation/kube-flannel.yml` at each release tag; flannel-io/flannel
    /// releases page.
    FLANNEL_RELEASE_UNKNOWN = ("HG210", "flannel-release-unknown", Warning, Some(check_release_known));

    /// ### What it checks
    /// That `flannel.version` is not a patch its minor line never had: `v0.26.40`, while the v0.26
    /// releases are v0.26.0 to v0.26.7. A line whose last known patch is the table's newest (a
    /// newer patch may have come out since) and pre-releases are HG210's.
    ///
    /// ### Why it matters
    /// The manifest names the image of the written tag, and that tag was never published: every
    /// flannel pod fails to pull it (`ErrImagePull`) and no node gets a pod network.
    ///
    /// ### Fix
    /// Use the line's nearest release, which the help names (e.g. `v0.26.7`).
    ///
    /// ### References
    /// flannel-io/flannel releases page; flannel-io/flannel `Documentation/kube-flannel.yml` at each
    /// release tag.
    FLANNEL_RELEASE_NONEXISTENT = ("HG211", "flannel-release-nonexistent", Error, Some(check_release_exists));
}

const VNI: &str = "/flannel/vni";
/// The flanneld KubeCluster.ps1 downloads, whatever the spec says.
const KUBECLUSTER_FLANNEL: &str = "v0.11.0";

/// vxlan with Windows nodes whose flannel reads the cluster's settings: RKE2's Windows agents
/// hard-code theirs, which HG603 compares instead.
fn vxlan_with_windows(plan: &Plan) -> bool {
    plan.flannel.backend == Backend::Vxlan
        && plan.has_windows()
        && !plan.distribution.windows_flannel_fixed
}

/// The release row of the flannel on the Windows nodes: KubeCluster.ps1's, or on the HostProcess
/// path the spec's own (for a release the table lacks, the nearest known one).
fn windows_flannel(plan: &Plan) -> Option<&'static FlannelRelease> {
    match plan.windows_setup {
        Some(WindowsSetup::KubeCluster) => {
            flannel_release::resolve(KUBECLUSTER_FLANNEL).map(|resolved| resolved.row)
        }
        _ => plan.flannel.release.as_ref().map(|resolved| resolved.row),
    }
}

fn check_vni_windows(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if !vxlan_with_windows(plan) {
        return;
    }
    let vni = plan.flannel.vni;
    if vni < WINDOWS_VXLAN_VNI {
        found.push(
            Diagnostic::new(
                &VXLAN_VNI_WINDOWS,
                value(VNI),
                format!(
                    "`vni` {vni} is below {WINDOWS_VXLAN_VNI}, which flannel on Windows requires"
                ),
            )
            .label(format!("Windows needs {WINDOWS_VXLAN_VNI} or more"))
            .help(format!("set `vni: {WINDOWS_VXLAN_VNI}`")),
        );
    } else if vni != WINDOWS_VXLAN_VNI {
        if let Some(release) =
            windows_flannel(plan).filter(|release| !release.has(Feature::WindowsAnyVni))
        {
            found.push(
                Diagnostic::new(
                    &VXLAN_VNI_WINDOWS,
                    value(VNI),
                    format!("`vni` {vni} differs from {WINDOWS_VXLAN_VNI}, which flannel {} on the Windows nodes hard-codes", release.tag()),
                )
                .label(format!("Windows uses {WINDOWS_VXLAN_VNI}"))
                .help(format!("set `vni: {WINDOWS_VXLAN_VNI}`; other values need flannel v0.13.1 or later on Windows (Kubernetes 1.24 or later)")),
            );
        }
    }
}

fn check_port_windows(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if vxlan_with_windows(plan) && plan.flannel.port != WINDOWS_VXLAN_PORT {
        found.push(
            Diagnostic::new(
                &VXLAN_PORT_WINDOWS,
                value("/flannel/port"),
                format!(
                    "`port` {} is not {WINDOWS_VXLAN_PORT}, the only VXLAN port flannel on Windows uses",
                    plan.flannel.port
                ),
            )
            .label(format!("Windows needs {WINDOWS_VXLAN_PORT}"))
            .help(format!("set `port: {WINDOWS_VXLAN_PORT}` so that Linux and Windows nodes speak the same VXLAN port")),
        );
    }
}

fn check_direct_routing(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if vxlan_with_windows(plan) && plan.flannel.direct_routing {
        found.push(
            Diagnostic::new(
                &VXLAN_OPTION_WINDOWS,
                value("/flannel/directRouting"),
                "`directRouting` is not supported by flannel on Windows",
            )
            .label("unsupported on Windows")
            .help("remove `directRouting` or set it to `false`"),
        );
    }
}

fn check_mac_prefix(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(prefix) = &context.spec.flannel.mac_prefix else {
        return;
    };
    let hex_byte = |part: &str| part.len() == 2 && part.bytes().all(|b| b.is_ascii_hexdigit());
    let valid = prefix
        .split_once('-')
        .is_some_and(|(a, b)| hex_byte(a) && hex_byte(b));
    if !valid {
        found.push(
            Diagnostic::new(
                &MAC_PREFIX_INVALID,
                value("/flannel/macPrefix"),
                format!("`macPrefix` `{prefix}` is not two hex bytes joined by `-`"),
            )
            .label("expected the form `0E-2A`")
            .help("write it like `0E-2A`, or leave it out"),
        );
    }
}

fn check_network_name(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if context.spec.flannel.network_name.is_none() {
        return;
    }
    let backend = plan.flannel.backend;
    let (expected, who) = match plan.windows_setup {
        Some(WindowsSetup::KubeCluster) => (
            expected_network_name(backend).to_string(),
            "the HNS network KubeCluster.ps1 (the Windows setup hybridgen renders before Kubernetes 1.24 by default) creates and waits for",
        ),
        Some(WindowsSetup::WinsDaemonSets) => (
            flannel_network_name(backend, plan.flannel.vni),
            "the HNS network flanneld of the wins DaemonSets (`windows.setup: wins-daemonsets`) creates",
        ),
        _ => return,
    };
    let name = &plan.flannel.network_name;
    if *name != expected {
        found.push(
            Diagnostic::new(
                &HNS_NETWORK_NAME,
                value("/flannel/networkName"),
                format!(
                    "`networkName` `{name}` is not `{expected}`, {who} with {}",
                    backend.as_str()
                ),
            )
            .label(format!("expected `{expected}`"))
            .help(format!("set `networkName: {expected}`, or leave it out")),
        );
    }
}

fn check_adjacency(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if plan.flannel.backend != Backend::HostGw || context.spec.provider() != Provider::None {
        return;
    }
    let Some((segment, outside)) = plan.nodes_off_segment() else {
        return;
    };
    if outside.is_empty() {
        return;
    }
    let basis = if plan.host_subnets.is_empty() {
        "the /24 of"
    } else {
        "the host subnet of"
    };
    let mut diagnostic = Diagnostic::new(
        &HOST_GW_NOT_ADJACENT,
        value("/flannel/backend"),
        format!(
            "host-gw needs every node on one L2 network, but {} node(s) lie outside {segment} ({basis} `{}`), and no cloud routes between them",
            outside.len(),
            plan.nodes[0].name
        ),
    )
    .label("host-gw across networks")
    .help("use `backend: vxlan`, or a cloud provider whose route tables carry the pod routes, or declare the shared L2 network in `network.hostSubnets`");
    for index in outside.iter().take(3) {
        let node = &plan.nodes[*index];
        let text = format!("`{}` is on another network", node.name);
        diagnostic = diagnostic.related(value(node_pointer(*index, "address")), text);
    }
    found.push(diagnostic);
}

fn check_cloud_forwarding(context: &Context, found: &mut Vec<Diagnostic>) {
    let provider = context.spec.provider();
    if context.plan.flannel.backend != Backend::HostGw {
        return;
    }
    let Some(row) = cloud::traits(provider) else {
        return;
    };
    let forwarding = row.forwarding;
    found.push(
        Diagnostic::new(
            &HOST_GW_CLOUD_FORWARDING,
            value("/cloud/provider"),
            format!(
                "host-gw on {}: the route table needs one route per node ({} routes), and each node must forward for its pod subnet",
                provider.as_str(),
                context.plan.routes.len()
            ),
        )
        .label("cloud routing needed")
        .help(format!("apply the route commands `hybridgen render` writes under `routes/`, and {forwarding}")),
    );
}

fn check_flannel_version(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if !plan.has_windows() || context.spec.flannel.version.is_none() {
        return;
    }
    let first = flannel_release::oldest();
    if let Ok(release) = &plan.flannel.version {
        if *release < first.version {
            found.push(
                Diagnostic::new(
                    &FLANNEL_WINDOWS_VERSION,
                    value("/flannel/version"),
                    format!(
                        "flannel v{release} has no Windows support; the first release with it is {}",
                        first.tag()
                    ),
                )
                .label("no Windows support")
                .help(format!("use flannel {} or later", first.tag())),
            );
        }
    }
}

fn check_release_known(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(resolved) = &context.plan.flannel.release else {
        return;
    };
    if resolved.known
        || context.spec.flannel.version.is_none()
        || flannel_release::never_published(resolved).is_some()
    {
        return;
    }
    let (oldest, newest) = (flannel_release::oldest(), flannel_release::newest());
    let predates_windows =
        matches!(&context.plan.flannel.version, Ok(version) if *version < oldest.version);
    if predates_windows && context.plan.has_windows() {
        // HG208 says what is wrong with it.
        return;
    }
    found.push(
        Diagnostic::new(
            &FLANNEL_RELEASE_UNKNOWN,
            value("/flannel/version"),
            format!(
                "flannel {} is not a release hybridgen knows ({} to {}): it is rendered as the manifest of {}, the nearest known release, with the image `{}`",
                resolved.tag,
                oldest.tag(),
                newest.tag(),
                resolved.row.tag(),
                resolved.image()
            ),
        )
        .label("not in the release table")
        .help(format!(
            "check that tag's own `Documentation/kube-flannel.yml` for changes since {}, or use a known release such as `{}`",
            resolved.row.tag(),
            newest.tag()
        )),
    );
}

fn check_release_exists(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(resolved) = &context.plan.flannel.release else {
        return;
    };
    let Some(nearest) = flannel_release::never_published(resolved) else {
        return;
    };
    let version = nearest.version;
    let releases: Vec<String> = flannel_release::line(version.major, version.minor)
        .map(FlannelRelease::tag)
        .collect();
    let line = match releases.as_slice() {
        [only] => format!(
            "the only v{}.{} release is {only}",
            version.major, version.minor
        ),
        [first, last] => format!(
            "the v{}.{} releases are {first} and {last}",
            version.major, version.minor
        ),
        [first, .., last] => format!(
            "the v{}.{} releases are {first} to {last}",
            version.major, version.minor
        ),
        [] => return,
    };
    found.push(
        Diagnostic::new(
            &FLANNEL_RELEASE_NONEXISTENT,
            value("/flannel/version"),
            format!(
                "flannel {} was never released ({line}): its image `{}` does not exist",
                resolved.tag,
                resolved.image()
            ),
        )
        .label("no such release")
        .help(format!(
            "use `{}`, the nearest v{}.{} release",
            nearest.tag(),
            version.major,
            version.minor
        )),
    );
}

fn check_vni_range(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if plan.flannel.backend != Backend::Vxlan {
        return;
    }
    let vni = plan.flannel.vni;
    if !(1..=16_777_215).contains(&vni) {
        found.push(
            Diagnostic::new(
                &VXLAN_VNI_RANGE,
                value(VNI),
                format!("`vni` {vni} is outside 1–16777215, the 24 bits VXLAN carries"),
            )
            .label("out of range")
            .help(if plan.has_windows() {
                format!("set `vni: {WINDOWS_VXLAN_VNI}`")
            } else {
                format!("set `vni: 1`, or {WINDOWS_VXLAN_VNI} to be ready for Windows nodes")
            }),
        );
    } else if vni > 65_535 && plan.has_windows() {
        found.push(
            Diagnostic::new(
                &VXLAN_VNI_RANGE,
                value(VNI),
                format!("`vni` {vni} is above 65535; Windows stores the VNI in 16 bits"),
            )
            .label("too large for Windows")
            .help(format!("set `vni: {WINDOWS_VXLAN_VNI}`"))
            .warning(),
        );
    }
}

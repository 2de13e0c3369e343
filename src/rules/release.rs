//! HG319: a Kubernetes release the release table does not know ([`crate::plan::releases`]);
//! HG320: a pinned release with a known bug ([`crate::plan::releases::advisories`]); HG321: a
//! release whose downloads the download table cannot name ([`crate::plan::downloads`]).

use super::windows::declared_builds;
use super::{Context, declare_rules};
use crate::diagnostic::{Diagnostic, value};
use crate::plan::downloads::Asset;
use crate::plan::releases::advisories::{self, Advisory, Affected, Certainty, Scope};
use crate::plan::releases::containerd;
use crate::plan::releases::kubernetes::{self, Known};
use crate::plan::version::Release;

declare_rules! {
    /// ### What it checks
    /// That `kubernetes.version` is a release hybridgen's release table knows (1.14 to 1.37). A
    /// warning for the minor after the newest, which may have been released since; an error for a
    /// version that cannot exist yet: two or more minors past the newest (`1.99.0`), or a major
    /// other than 1. Releases before the table are real and not flagged (HG304 says which need
    /// Windows nodes to wait). A warning, too, for a patch newer than the newest one hybridgen
    /// knows of its minor (`1.33.99`); RKE2 releases are checked by HG601.
    ///
    /// ### Why it matters
    /// The kubelet flags, kube-proxy feature gates, kubeadm API, default containerd and supported
    /// Windows builds all come from the minor's row. For the minor after the newest hybridgen
    /// assumes the newest row with the changes already announced for it (the kubelet refusing
    /// containerd 1.x, the WinOverlay and WinDSR gates removed); anything else it changed is
    /// unknown. A version that does not exist is a typo, and its downloads would fail on the node.
    ///
    /// ### Fix
    /// Write the release you run, e.g. `"1.37.0"`; for a release newer than the table, compare its
    /// changelog's Windows notes with what `render` writes.
    ///
    /// ### References
    /// kubernetes/kubernetes `CHANGELOG/`; kubernetes.io "Releases"; rancher/rke2 tags; kubernetes/enhancements
    /// KEP-4033 (containerd 1.x refused from 1.38); kubernetes PR #142125 (gate removal).
    KUBERNETES_RELEASE_UNKNOWN = ("HG319", "kubernetes-release-unknown", Error, Some(check_release_known));

    /// ### What it checks
    /// The pinned releases against hybridgen's advisory table: `flannel.version` where the
    /// Windows nodes run that flanneld (kubeadm's HostProcess path; RKE2 bundles its own, HG602),
    /// each Windows node's build revision, and the Kubernetes release, whose kube-proxy every
    /// setup runs on Windows. Before 1.24 the Windows flanneld is not `flannel.version`'s pick
    /// alone: KubeCluster.ps1 always installs v0.11.0, and the wins DaemonSets take
    /// sigwindowstools images of v0.12.0 to v0.15.1 (HG331). Those releases' only advisory is
    /// flannel-io/flannel#1852 (`--iface` ignored on Windows): it is not reported per plan, since
    /// it hits only Windows nodes with more than one network adapter, which the spec cannot
    /// describe, and those setups have no fixed flanneld to move to short of Kubernetes 1.24's
    /// HostProcess setup. An error where the bug is shown for this setup, a warning where it is
    /// shown on a related one, hits only nodes the spec cannot describe (more than one network
    /// adapter) or only some Services.
    ///
    /// ### Why it matters
    /// These releases plan and render like any other and then leave Windows nodes without a
    /// network: flannel v0.25.3's Windows vxlan backend gives up waiting for an interface that
    /// is there, v0.25.3 and v0.25.4's host-gw backend for a bridge endpoint that attached, and
    /// Windows Server 2022's July to September 2024 updates broke container networking on
    /// Kubernetes until the October 2024 update. Before v0.24.1 flanneld on Windows ignores
    /// `--iface`: on a node with more than one network adapter it may build its HNS network on
    /// another adapter than the node address's. Windows kube-proxy from 1.31 fails to create
    /// endpoints for reused pod addresses until 1.31.9, 1.32.5 and 1.33.1, and on Windows
    /// Server 2025 keeps old endpoints in Services until 1.32.6 and 1.33.2.
    ///
    /// ### Fix
    /// Use the release the message names as fixed: flannel `v0.25.4` (`v0.25.5` on host-gw;
    /// `v0.24.1` for the adapter choice, which only matters on nodes with more than one adapter)
    /// or later, the Kubernetes patch the help names, or update the Windows nodes to the fixing
    /// update's revision and write it in `windows.build`.
    ///
    /// ### References
    /// flannel-io/flannel 727fc083, 42601e98 and 49ce9839 (flannel-io/flannel#1998);
    /// flannel-io/flannel#1852 and 761c2578; rancher/rke2#6171; microsoft/Windows-Containers#516;
    /// KB5044281; projectcalico/calico#9019; kubernetes/kubernetes#131427, #131466, #131506
    /// and the 1.31–1.33 CHANGELOGs; kubernetes-sigs/sig-windows-tools
    /// `kubeadm/KubeClusterHelper.psm1` (`DownloadFlannelBinaries`: flanneld v0.11.0).
    KNOWN_BROKEN_RELEASE = ("HG320", "known-broken-release", Error, Some(check_advisories));

    /// ### What it checks
    /// On the HostProcess path: that every file `join.ps1` and the image recipe download is a
    /// release hybridgen's download table lists — containerd (a patch no newer than its line's
    /// newest), crictl, the CNI plugins. Kubernetes' own binaries are HG319's, flanneld HG210's.
    ///
    /// ### Why it matters
    /// A release the table does not list is one nothing has shown to be published under the name
    /// the scripts ask for: the download 404s on the node or the build host, after `plan` and
    /// `render` said nothing.
    ///
    /// ### Fix
    /// Pin a release the message names, or check that the release exists upstream.
    ///
    /// ### References
    /// containerd/containerd releases and `RELEASES.md`; kubernetes-sigs/cri-tools releases.
    DOWNLOAD_UNLISTED = ("HG321", "download-unlisted", Warning, Some(check_downloads));
}

fn check_release_known(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let (Ok(version), Some(resolved)) = (&plan.kubernetes_version, &plan.kubernetes_release) else {
        return;
    };
    let (oldest, newest) = (kubernetes::oldest().minor, kubernetes::newest().minor);
    // On RKE2 the release to write is an RKE2 one, which HG601 then accepts.
    let suggestion = match plan.rke2 {
        Some(_) => crate::plan::releases::rke2::newest(),
        None => format!("1.{newest}.0"),
    };
    match resolved.known {
        Known::Yes => check_patch_known(context, version, found),
        Known::BeforeTable => {}
        Known::AfterNewest => found.push(
            Diagnostic::new(
                &KUBERNETES_RELEASE_UNKNOWN,
                value("/kubernetes/version"),
                format!(
                    "Kubernetes {version} is newer than the releases hybridgen knows (1.{oldest} to 1.{newest}): it is planned as 1.{newest} with the changes announced for 1.{}",
                    resolved.row.minor
                ),
            )
            .label("not in the release table")
            .help(format!(
                "check the Windows notes of the 1.{} changelog against what `render` writes, or use `{suggestion}`",
                resolved.row.minor
            ))
            .warning(),
        ),
        Known::Impossible => found.push(
            Diagnostic::new(
                &KUBERNETES_RELEASE_UNKNOWN,
                value("/kubernetes/version"),
                format!(
                    "Kubernetes {version} does not exist: the newest release is 1.{newest}, and the next one is 1.{}",
                    newest + 1
                ),
            )
            .label("no such release")
            .help(format!("write the release you run, e.g. `{suggestion}`")),
        ),
    }
}

/// A patch past the newest of its minor hybridgen knows: a typo, or a release newer than the
/// table, whose kubelet, kubeadm and kube-proxy downloads 404 if it does not exist.
fn check_patch_known(context: &Context, version: &Release, found: &mut Vec<Diagnostic>) {
    if context.plan.rke2.is_some() {
        return;
    }
    let Some(newest) = kubernetes::newest_patch(version.minor) else {
        return;
    };
    if version.patch <= newest {
        return;
    }
    let known = format!("1.{}.{newest}", version.minor);
    found.push(
        Diagnostic::new(
            &KUBERNETES_RELEASE_UNKNOWN,
            value("/kubernetes/version"),
            format!(
                "Kubernetes {version} is newer than the newest 1.{} patch hybridgen knows ({known}): if it was not released, every download of it fails on the node",
                version.minor
            ),
        )
        .label("no such patch known")
        .help(format!(
            "write a released patch, e.g. `{known}`, or check that {version} is on dl.k8s.io"
        ))
        .warning(),
    );
}

fn check_advisories(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if !plan.has_windows() {
        return;
    }
    let scope = Scope::windows_on(plan.flannel.backend);
    // On RKE2 the Windows flanneld is RKE2's own (HG602); KubeCluster.ps1 downloads flanneld
    // v0.11.0 whatever the spec says (sig-windows-tools `kubeadm/KubeClusterHelper.psm1`), and
    // the wins DaemonSets' v0.12.0 to v0.15.1 hit only flannel-io/flannel#1852, which the explain
    // text says is not reported before the HostProcess path.
    let release = plan.flannel.release.as_ref().filter(|_| {
        plan.rke2.is_none() && plan.windows_setup == Some(crate::plan::WindowsSetup::HostProcess)
    });
    if let Some(release) = release {
        for advisory in advisories::flannel(release.row.version, scope) {
            let message = format!("flannel {}: {}", release.tag, advisory.effect);
            found.push(advisory_finding(
                advisory,
                value("/flannel/version"),
                message,
                None,
                plan.rke2.is_some(),
            ));
        }
    }
    let builds = declared_builds(plan);
    for (pointer, build) in &builds {
        for advisory in advisories::windows_build(*build, scope) {
            let message = format!("Windows build {build}: {}", advisory.effect);
            found.push(advisory_finding(
                advisory,
                value(*pointer),
                message,
                None,
                plan.rke2.is_some(),
            ));
        }
    }
    // Every setup runs the kube-proxy of the cluster's release on Windows: KubeCluster.ps1 and
    // the HostProcess image download it by that version, and RKE2 ships its own of it.
    if let Ok(version) = &plan.kubernetes_version {
        let builds: Vec<u32> = builds.values().map(|build| build.build).collect();
        for advisory in advisories::kube_proxy(*version, &builds) {
            let message = format!("Kubernetes {version}: {}", advisory.effect);
            let location = value("/kubernetes/version");
            found.push(advisory_finding(
                advisory,
                location,
                message,
                Some(*version),
                plan.rke2.is_some(),
            ));
        }
    }
}

/// `kubernetes`: the release a kube-proxy advisory was found for, whose line's fix the help names
/// (as an RKE2 release where `rke2`).
fn advisory_finding(
    advisory: &Advisory,
    location: crate::diagnostic::Location,
    message: String,
    kubernetes: Option<Release>,
    rke2: bool,
) -> Diagnostic {
    let help = match advisory.affected {
        Affected::Flannel { fixed, .. } => format!("use flannel `v{fixed}` or later"),
        Affected::WindowsRevisions {
            build,
            fixed,
            update,
            ..
        } => format!("install {update} or later and write `10.0.{build}.{fixed}`"),
        Affected::KubeProxy { .. } => {
            match kubernetes.and_then(|r| advisory.affected.kube_proxy_fix(r)) {
                // An RKE2 release carries the kube-proxy of its Kubernetes release.
                Some(fix) if rke2 => format!(
                    "use an RKE2 release of Kubernetes {fix} or later, whose Windows kube-proxy has the fix"
                ),
                Some(fix) => {
                    format!("use Kubernetes {fix} or later, whose Windows kube-proxy has the fix")
                }
                None => "use a Kubernetes release whose Windows kube-proxy has the fix".to_string(),
            }
        }
    };
    let finding = Diagnostic::new(&KNOWN_BROKEN_RELEASE, location, message)
        .label(format!("known bug: {}", advisory.reference))
        .help(help);
    match advisory.certainty {
        Certainty::Breaks => finding,
        Certainty::MayBreak => finding.warning(),
    }
}

fn check_downloads(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Some(windows) = plan.windows.as_ref() else {
        return;
    };
    if plan.windows_setup != Some(crate::plan::WindowsSetup::HostProcess) {
        return;
    }
    let Ok(containerd) = &windows.containerd_version else {
        return;
    };
    let written = context.spec.windows_containerd_written();
    let pointer = if written {
        "/windows/containerd/version"
    } else {
        "/kubernetes/version"
    };
    let release = containerd.to_string();
    let line = containerd::resolve(containerd);
    // A line the table lacks is HG318's to name.
    if !line.known || Asset::Containerd.lists(&release) {
        return;
    }
    let newest = line.row.newest;
    found.push(
        Diagnostic::new(
            &DOWNLOAD_UNLISTED,
            value(pointer),
            format!(
                "containerd {release} is not a release hybridgen's download table lists (the newest of its line it knows is {newest}): `join.ps1` would download `{}`",
                Asset::Containerd.download(&release).url
            ),
        )
        .label("release not known to be published")
        .help(format!("pin a published release, e.g. `{newest}`, or check that {release} exists")),
    );
}

//! HG31x: Windows nodes on the HostProcess path (Kubernetes 1.24 and later) — the runtime,
//! HostProcess support, the images, containerd and its support by the Kubernetes minor, the one
//! network name, host-gw, kube-proxy DSR and the HostProcess mount layout.

use super::{Context, declare_rules};
use crate::diagnostic::{Diagnostic, key, value};
use crate::plan::releases::containerd::ContainerdLine;
use crate::plan::releases::kubernetes::{self, ContainerdOne, KubernetesRelease};
use crate::plan::releases::windows::{Has, Update};
use crate::plan::releases::{self, containerd};
use crate::plan::version::{Release, WindowsBuild};
use crate::plan::{Plan, WindowsPlan, WindowsSetup};
use crate::spec::{Backend, Runtime};
use std::collections::BTreeSet;

declare_rules! {
    /// ### What it checks
    /// Windows nodes with `windows.runtime: dockerd` on Kubernetes 1.24 or later.
    ///
    /// ### Why it matters
    /// Kubernetes 1.24 removed dockershim, the kubelet's built-in Docker support: a Windows
    /// kubelet cannot run containers through Docker any more, and Docker never ran HostProcess
    /// containers, which the Windows flanneld and kube-proxy need.
    ///
    /// ### Fix
    /// Use `runtime: containerd` (or leave `runtime` out: it is the default from 1.24).
    ///
    /// ### References
    /// kubernetes.io "Dockershim removal FAQ"; kubernetes/enhancements KEP-2221
    /// (dockershim removal); KEP-1981 (HostProcess containers: "Docker is not supported").
    WINDOWS_RUNTIME_REMOVED = ("HG310", "windows-runtime-removed", Error, Some(check_runtime_removed));

    /// ### What it checks
    /// The HostProcess path (asked for with `windows.hostProcess` before Kubernetes 1.24) on a
    /// Kubernetes release or runtime without HostProcess containers: before 1.23, where they were
    /// alpha behind a gate, or with `runtime: dockerd`.
    ///
    /// ### Why it matters
    /// The Windows flanneld and kube-proxy DaemonSets run as HostProcess pods. HostProcess
    /// containers are beta and on by default from 1.23 and stable from 1.26, and only containerd
    /// runs them; elsewhere the pods are refused.
    ///
    /// ### Fix
    /// Use Kubernetes 1.23 or later with `runtime: containerd`, or remove `windows.hostProcess`
    /// to set the nodes up with KubeCluster.ps1.
    ///
    /// ### References
    /// kubernetes/website `feature-gates/WindowsHostProcessContainers.md`; blog "Kubernetes 1.26:
    /// Windows HostProcess Containers Are Going Stable"; kubernetes/enhancements KEP-1981.
    HOSTPROCESS_UNSUPPORTED = ("HG311", "hostprocess-unsupported", Error, Some(check_hostprocess_supported));

    /// ### What it checks
    /// On the HostProcess path: that `windows.hostProcess.registry` is set, or both
    /// `windows.hostProcess.images.flannel` and `.kubeProxy`; and that each, and
    /// `windows.images.pause`, is a plausible image reference (no scheme, no spaces, only the
    /// characters of a reference, a lower-case repository).
    ///
    /// ### Why it matters
    /// No maintained public image runs flanneld or a flannel-flavoured kube-proxy as a HostProcess
    /// container: sig-windows-tools removed its flannel manifests in 2025 and its
    /// `sigwindowstools/flannel` images are stale or missing, and flannel publishes Linux images
    /// only. hybridgen renders the recipe (`windows/images/`) and needs to know where you push the
    /// images; it never guesses an image nobody publishes.
    ///
    /// ### Fix
    /// Set `windows.hostProcess.registry` (e.g. `registry.example.com/k8s`), then build and push
    /// with `bash windows/images/build.sh`.
    ///
    /// ### References
    /// kubernetes-sigs/sig-windows-tools PR #385 and issue #387 (flannel examples removed);
    /// sig-windows-tools #319, #327, #343, #350 (missing images); flannel-io/flannel #1984.
    HOSTPROCESS_IMAGES_MISSING = ("HG312", "hostprocess-images-missing", Error, Some(check_images));

    /// ### What it checks
    /// The containerd of the HostProcess path, written in `windows.containerd.version` or the
    /// Kubernetes minor's default: an error before 1.6, a warning for a line that has reached its
    /// end of life (1.6 on 2025-08-23, 2.1 on 2026-07-03, 1.7 in September 2026, 2.2 on
    /// 2026-11-06).
    ///
    /// ### Why it matters
    /// containerd runs HostProcess containers from 1.6. A line past its end of life gets no more
    /// fixes, security fixes included.
    ///
    /// ### Fix
    /// Use a maintained line (leave `version` out for the default of the Kubernetes minor). Where
    /// the default itself is past its end of life, the minor lists no maintained line: move to a
    /// newer Kubernetes minor, or pin a maintained line and check HG318.
    ///
    /// ### References
    /// kubernetes/website "Create a Windows HostProcess Pod" (prerequisites); containerd/containerd
    /// `RELEASES.md` (release lifecycle).
    CONTAINERD_TOO_OLD = ("HG313", "containerd-too-old", Error, Some(check_containerd));

    /// ### What it checks
    /// On the HostProcess path: that `networkName`, which names the HNS network in the Windows CNI
    /// configuration, kube-proxy's `--network-name` and `net-conf.json` `Backend.Name`, is a
    /// valid CNI network name (a letter or digit, then letters, digits, `_`, `.` or `-`).
    ///
    /// ### Why it matters
    /// flanneld creates the HNS network under `Backend.Name`, the CNI plugins look it up by the
    /// configuration's `name`, and kube-proxy waits for it by `--network-name`: all three must be
    /// one string. hybridgen writes the same value into each, so the only way they part is a name
    /// the CNI configuration cannot carry — host-local also uses it as a directory of its IPAM
    /// store.
    ///
    /// ### Fix
    /// Use a name such as `flannel.4096` (vxlan) or `cbr0` (host-gw), or leave `networkName` out.
    ///
    /// ### References
    /// containernetworking/cni `SPEC.md` ("name"); flannel `pkg/backend/vxlan/vxlan_windows.go`
    /// (`Name`, default `flannel.<VNI>`); kubernetes `pkg/proxy/winkernel` (`--network-name`,
    /// `KUBE_NETWORK`).
    WINDOWS_NETWORK_NAME_MISMATCH = ("HG314", "windows-network-name-mismatch", Error, Some(check_network_name));

    /// ### What it checks
    /// `backend: host-gw` with Windows nodes on the HostProcess path.
    ///
    /// ### Why it matters
    /// No upstream HostProcess recipe for flannel host-gw (l2bridge) on Windows exists: the
    /// sig-windows-tools manifests were overlay-only, and RKE2 and k3s run flannel on Windows with
    /// vxlan only. hybridgen renders the l2bridge variant (sdnbridge, network `cbr0`, no source VIP)
    /// from microsoft/windows-container-networking's `flannel_l2bridge.conf` example, but no one
    /// has published it working end to end. flanneld's host-gw backend on Windows also builds its
    /// L2Bridge network without naming an adapter (flannel-io/flannel
    /// `pkg/backend/hostgw/hostgw_windows.go`; the `--iface` fix of v0.24.1, 761c2578, covers
    /// vxlan only): on a node with more than one adapter it may take another one.
    ///
    /// ### Fix
    /// Prefer `backend: vxlan`; with host-gw, test a Windows node before relying on it.
    ///
    /// ### References
    /// microsoft/windows-container-networking `example/flannel_l2bridge.conf`; rancher/rke2
    /// `pkg/windows/flannel.go` (vxlan only); kubernetes-sigs/sig-windows-tools PR #385.
    HOST_GW_HOSTPROCESS = ("HG315", "host-gw-hostprocess", Warning, Some(check_host_gw));

    /// ### What it checks
    /// kube-proxy Direct Server Return on a Windows build that lacks it: `Kubeclusterbridge.json`
    /// (host-gw, Kubernetes before 1.24) sets `WinDSR=true` for every node, so a Windows Server
    /// 2019 node before 10.0.17763.1554 (KB4580390), or with no revision given, is flagged. On the
    /// HostProcess path hybridgen turns DSR on only when every Windows node's build has it.
    ///
    /// ### Why it matters
    /// kube-proxy checks the platform when DSR is enabled and refuses to start where it is missing,
    /// so Services stop working on that node.
    ///
    /// ### Fix
    /// Update the node to 10.0.17763.1554 or later and write the build with its revision, or use
    /// `backend: vxlan`, whose `Kubeclustervxlan.json` does not enable DSR.
    ///
    /// ### References
    /// kubernetes/enhancements KEP-5100 (Windows DSR and overlay); kubernetes `pkg/proxy/winkernel`
    /// (`hcn.DSRSupported`); kubernetes-sigs/sig-windows-tools `hostprocess/calico/kube-proxy/start.ps1`
    /// ("requires 2019 with KB4580390").
    WINDOWS_DSR_UNSUPPORTED = ("HG316", "windows-dsr-unsupported", Warning, Some(check_dsr));

    /// ### What it checks
    /// On the HostProcess path: the Windows containerd against what the Kubernetes minor supports.
    /// An error where the kubelet refuses containerd 1.x (assumed from 1.38); a warning where it no
    /// longer supports 1.x and falls back (1.36, 1.37), for a line containerd's `RELEASES.md`
    /// does not list for the minor while it lists a newer one, for a patch below the one it
    /// lists, and for a line newer than hybridgen knows. A known line newer than every line listed
    /// for the minor (2.x on 1.24 to 1.29, 2.3 on 1.35) gets no finding: it serves CRI v1, which
    /// these kubelets speak, though containerd's maintainers did not list the pair as tested.
    ///
    /// ### Why it matters
    /// From 1.34 the kubelet asks the runtime for its cgroup driver with the CRI `RuntimeConfig`
    /// call, which containerd 1.x lacks: 1.35 is the last minor supporting 1.x, 1.36 and 1.37 fall
    /// back with a deprecation metric, and 1.38 is planned to refuse to start. The lines and
    /// patches `RELEASES.md` lists are the ones tested with each minor.
    ///
    /// ### Fix
    /// Use the containerd the help names, or leave `windows.containerd.version` out for the
    /// minor's default.
    ///
    /// ### References
    /// containerd/containerd `RELEASES.md` ("Kubernetes Support"); kubernetes/enhancements
    /// KEP-4033; kubernetes.io blog "Kubernetes v1.35 sneak peek"; kubernetes/website PR #55809.
    CONTAINERD_KUBERNETES_SUPPORT = ("HG318", "containerd-kubernetes-support", Error, Some(check_containerd_support));

    /// ### What it checks
    /// On the HostProcess path, with `windows.hostProcess.images` written: that a tag naming a
    /// version (`flannel-windows:v0.28.9-hostprocess`, `kube-proxy-windows:v1.33.4-…`) names the
    /// planned flannel release and Kubernetes version.
    ///
    /// ### Why it matters
    /// The images are built by `windows/images/build.sh` for the planned versions; an image of
    /// another flannel release runs a Windows flanneld whose behaviour differs from the Linux one
    /// the cluster runs (flannel has fixed Windows-only bugs in patch releases, v0.25.4 for one),
    /// and a kube-proxy of another minor may be outside the supported version skew.
    ///
    /// ### Fix
    /// Build and push the images with the rendered `build.sh`, or point the references at the
    /// tags of the planned versions.
    ///
    /// ### References
    /// https://kubernetes.io/releases/version-skew-policy/#kube-proxy;
    /// https://github.com/flannel-io/flannel/releases.
    HOSTPROCESS_IMAGE_VERSION_MISMATCH = ("HG322", "hostprocess-image-version-mismatch", Warning, Some(check_image_versions));
}

/// The version a tag names: `v0.28.9-hostprocess` gives 0.28.9; a digest or a tag that names
/// none gives `None`.
fn tag_version(reference: &str) -> Option<Release> {
    let name = reference.split('@').next()?;
    let last = name.rsplit('/').next()?;
    let (_, tag) = last.split_once(':')?;
    let tag = tag.strip_prefix('v')?;
    let end = tag
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map_or(tag.len(), |(index, _)| index);
    Release::parse(&tag[..end])
}

fn check_image_versions(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if host_process(plan).is_none() {
        return;
    }
    let Some(images) = context
        .spec
        .windows
        .as_ref()
        .and_then(|windows| windows.host_process.as_ref())
        .and_then(|host_process| host_process.images.as_ref())
    else {
        return;
    };
    let flannel = plan.flannel.version.as_ref().ok();
    let kubernetes = plan.kubernetes_version.as_ref().ok();
    for (field, reference, planned, what) in [
        ("flannel", &images.flannel, flannel, "`flannel.version`"),
        (
            "kubeProxy",
            &images.kube_proxy,
            kubernetes,
            "`kubernetes.version`",
        ),
    ] {
        let (Some(reference), Some(planned)) = (reference, planned) else {
            continue;
        };
        let Some(tagged) = tag_version(reference) else {
            continue;
        };
        if tagged == *planned {
            continue;
        }
        found.push(
            Diagnostic::new(
                &HOSTPROCESS_IMAGE_VERSION_MISMATCH,
                value(format!("/windows/hostProcess/images/{field}")),
                format!(
                    "image `{}` is tagged v{tagged}, but {what} is v{planned}",
                    crate::escape::bounded(reference, 200)
                ),
            )
            .label(format!("v{tagged}, not v{planned}"))
            .help(format!(
                "use the image built for v{planned} (the rendered `windows/images/build.sh` builds it)"
            )),
        );
    }
}

fn host_process(plan: &Plan) -> Option<&WindowsPlan> {
    (plan.windows_setup == Some(WindowsSetup::HostProcess))
        .then_some(plan.windows.as_ref())
        .flatten()
}

fn check_runtime_removed(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let (Ok(kubernetes), Some(resolved), Some(windows)) = (
        &plan.kubernetes_version,
        &plan.kubernetes_release,
        &plan.windows,
    ) else {
        return;
    };
    if plan.has_windows() && !resolved.row.dockershim && windows.runtime == Runtime::Dockerd {
        found.push(
            Diagnostic::new(
                &WINDOWS_RUNTIME_REMOVED,
                value("/windows/runtime"),
                format!("`runtime: dockerd` with Kubernetes {kubernetes}: dockershim was removed in 1.24"),
            )
            .label("Docker is no Kubernetes runtime since 1.24")
            .help("set `runtime: containerd`, or leave `runtime` out"),
        );
    }
}

fn check_hostprocess_supported(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Some(windows) = host_process(plan) else {
        return;
    };
    let (Ok(kubernetes), Some(resolved)) = (&plan.kubernetes_version, &plan.kubernetes_release)
    else {
        return;
    };
    if !resolved.row.host_process {
        let first = kubernetes::first(|row| row.host_process).map_or(0, |row| row.minor);
        found.push(
            Diagnostic::new(
                &HOSTPROCESS_UNSUPPORTED,
                key("/windows/hostProcess"),
                format!("Kubernetes {kubernetes} has no HostProcess containers on by default; they are beta from 1.{first}"),
            )
            .label("HostProcess path asked for here")
            .help(format!("use Kubernetes 1.{first} or later, or remove `windows.hostProcess` to use KubeCluster.ps1")),
        );
    } else if windows.runtime == Runtime::Dockerd && resolved.row.dockershim {
        found.push(
            Diagnostic::new(
                &HOSTPROCESS_UNSUPPORTED,
                value("/windows/runtime"),
                "`runtime: dockerd` cannot run HostProcess containers; only containerd can",
            )
            .label("no HostProcess containers with Docker")
            .related(
                key("/windows/hostProcess"),
                "HostProcess path asked for here",
            )
            .help(
                "set `runtime: containerd`, or remove `windows.hostProcess` to use KubeCluster.ps1",
            ),
        );
    }
}

/// Why an image reference cannot be pulled as written, if it cannot.
fn reference_problem(reference: &str) -> Option<&'static str> {
    if reference.is_empty() {
        return Some("is empty");
    }
    if reference.contains("://") {
        return Some("has a URL scheme, which image references do not");
    }
    if reference
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        return Some("holds white space");
    }
    // A reference is a host, path components, a tag and a digest: letters, digits and
    // `.`, `_`, `-`, `/`, `:`, `@` (distribution/reference `reference.go`). A quote would end the
    // TOML string `join.ps1` writes the pause image into.
    if !reference
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | ':' | '@'))
    {
        return Some("holds a character no image reference has");
    }
    // The repository (before the tag or digest) is lower case; a registry host may carry a port.
    let repository = reference.split('@').next().unwrap_or(reference);
    let repository = match repository.rsplit_once(':') {
        Some((name, tag)) if !tag.contains('/') => name,
        _ => repository,
    };
    let path = repository
        .split_once('/')
        .map_or(repository, |(_, path)| path);
    if path.chars().any(|c| c.is_ascii_uppercase()) {
        return Some("has upper-case letters in its repository path");
    }
    None
}

fn check_images(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(windows) = host_process(context.plan) else {
        return;
    };
    let written = context
        .spec
        .windows
        .as_ref()
        .and_then(|windows| windows.host_process.as_ref());
    let mut malformed = false;
    if let Some(registry) = written.and_then(|hp| hp.registry.as_deref()) {
        if let Some(problem) = reference_problem(registry) {
            malformed = true;
            found.push(
                Diagnostic::new(
                    &HOSTPROCESS_IMAGES_MISSING,
                    value("/windows/hostProcess/registry"),
                    format!("`registry` `{registry}` {problem}"),
                )
                .label("not a registry path")
                .help("write the registry host and path, e.g. `registry.example.com/k8s`"),
            );
        }
    }
    if let Some(pause) = context
        .spec
        .windows
        .as_ref()
        .and_then(|windows| windows.images.as_ref())
        .and_then(|images| images.pause.as_deref())
    {
        // `join.ps1` writes it into containerd's configuration as `sandbox_image`.
        if let Some(problem) = reference_problem(pause) {
            malformed = true;
            found.push(
                Diagnostic::new(
                    &HOSTPROCESS_IMAGES_MISSING,
                    value("/windows/images/pause"),
                    format!("pause image `{pause}` {problem}"),
                )
                .label("not an image reference")
                .help("write the full reference, e.g. `registry.k8s.io/pause:3.10`"),
            );
        }
    }
    let images = written.and_then(|hp| hp.images.as_ref());
    for (field, image) in [
        (
            "flannel",
            images.and_then(|images| images.flannel.as_deref()),
        ),
        (
            "kubeProxy",
            images.and_then(|images| images.kube_proxy.as_deref()),
        ),
    ] {
        let Some(image) = image else { continue };
        if let Some(problem) = reference_problem(image) {
            malformed = true;
            found.push(
                Diagnostic::new(
                    &HOSTPROCESS_IMAGES_MISSING,
                    value(format!("/windows/hostProcess/images/{field}")),
                    format!("image `{image}` {problem}"),
                )
                .label("not an image reference")
                .help("write the full reference, e.g. `registry.example.com/k8s/flannel-windows:v0.28.9-hostprocess`"),
            );
        }
    }
    let missing: Vec<&str> = [
        ("flannel", windows.flannel_image.is_none()),
        ("kube-proxy", windows.kube_proxy_image.is_none()),
    ]
    .into_iter()
    .filter_map(|(what, absent)| absent.then_some(what))
    .collect();
    if missing.is_empty() || malformed {
        return;
    }
    let location = if written.is_some() {
        key("/windows/hostProcess")
    } else {
        key("/windows")
    };
    found.push(
        Diagnostic::new(
            &HOSTPROCESS_IMAGES_MISSING,
            location,
            format!(
                "no HostProcess image for the Windows {}: neither `windows.hostProcess.registry` nor the image is set, and no maintained public image exists",
                missing.join(" and ")
            ),
        )
        .label("where the Windows images come from")
        .help("set `windows.hostProcess.registry`, e.g. `registry.example.com/k8s`, and push the images with `bash windows/images/build.sh`"),
    );
}

/// Whether the spec writes `windows.containerd.version` (rather than taking the default).
fn check_containerd(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(windows) = host_process(context.plan) else {
        return;
    };
    let (Ok(version), Some(line)) = (&windows.containerd_version, &windows.containerd_line) else {
        return;
    };
    let written = context.spec.windows_containerd_written();
    if !written {
        check_default_containerd(version, line, found);
        return;
    }
    let pointer = value("/windows/containerd/version");
    let oldest = containerd::oldest();
    let use_maintained = use_maintained_containerd(
        context
            .plan
            .kubernetes_release
            .map_or(kubernetes::newest(), |resolved| resolved.row),
        "version",
    );
    if (version.major, version.minor) < (oldest.major, oldest.minor) {
        found.push(
            Diagnostic::new(
                &CONTAINERD_TOO_OLD,
                pointer,
                format!(
                    "containerd {version} cannot run HostProcess containers; they need {} or later",
                    oldest.name()
                ),
            )
            .label("no HostProcess containers")
            .help(use_maintained.clone()),
        );
    } else if let (true, Some(day)) = (line.known, line.row.end_of_life) {
        found.push(
            Diagnostic::new(
                &CONTAINERD_TOO_OLD,
                pointer,
                format!(
                    "containerd {} reached its end of life ({day}): {version} gets no more fixes",
                    line.row.name()
                ),
            )
            .label("end of life")
            .help(use_maintained.clone())
            .warning(),
        );
    }
}

/// The help naming the containerd to use on Kubernetes minor `row`: the newest patch of the newest
/// line `RELEASES.md` lists for it that has not reached its end of life, else of the newest such
/// line after every listed one (HG318 accepts it); the minor's default only where no line is
/// maintained. A line past its end of life would only trade this finding for HG313's.
fn use_maintained_containerd(row: &KubernetesRelease, field: &str) -> String {
    let release = maintained_containerd(row);
    if release == row.default_containerd {
        format!("use containerd {release}, or leave `{field}` out")
    } else {
        format!("use containerd {release}")
    }
}

/// The containerd release [`use_maintained_containerd`] names.
pub(crate) fn maintained_containerd(row: &KubernetesRelease) -> Release {
    let usable = |line: &&ContainerdLine| {
        line.end_of_life.is_none()
            && (line.runtime_config || row.containerd_one < ContainerdOne::FallsBack)
    };
    let listed = |line: &&ContainerdLine| row.containerd.iter().any(|minimum| line.holds(minimum));
    let after_listed = |line: &&ContainerdLine| {
        row.containerd
            .iter()
            .all(|minimum| (line.major, line.minor) > (minimum.major, minimum.minor))
    };
    let lines = || containerd::LINES.iter().filter(usable).rev();
    lines()
        .find(listed)
        .or_else(|| lines().find(after_listed))
        .map_or(row.default_containerd, |line| line.newest)
}

/// The minor's default containerd, when its line has reached its end of life: the nodes get it
/// without the spec naming it, so the finding points at the Kubernetes version that chose it.
fn check_default_containerd(
    version: &Release,
    line: &containerd::Resolved,
    found: &mut Vec<Diagnostic>,
) {
    let (true, Some(day)) = (line.known, line.row.end_of_life) else {
        return;
    };
    found.push(
        Diagnostic::new(
            &CONTAINERD_TOO_OLD,
            value("/kubernetes/version"),
            format!(
                "the default containerd of this Kubernetes minor, {version}, is of line {}, which reached its end of life ({day}) and gets no more fixes",
                line.row.name()
            ),
        )
        .label("its default containerd is past end of life")
        .help("move to a Kubernetes minor whose default containerd is maintained, or pin a maintained line in `windows.containerd.version`")
        .warning(),
    );
}

fn check_containerd_support(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Some(windows) = host_process(plan) else {
        return;
    };
    let (Ok(version), Some(line), Some(kubernetes), Ok(release)) = (
        &windows.containerd_version,
        &windows.containerd_line,
        &plan.kubernetes_release,
        &plan.kubernetes_version,
    ) else {
        return;
    };
    let oldest = containerd::oldest();
    if (version.major, version.minor) < (oldest.major, oldest.minor) {
        // HG313 says what is wrong with it.
        return;
    }
    let row = kubernetes.row;
    let pointer = if context.spec.windows_containerd_written() {
        value("/windows/containerd/version")
    } else {
        key("/windows")
    };
    let use_maintained = use_maintained_containerd(row, "windows.containerd.version");
    let finding = |message: String, label: &str| {
        Diagnostic::new(&CONTAINERD_KUBERNETES_SUPPORT, pointer.clone(), message)
            .label(label.to_string())
            .help(use_maintained.clone())
    };
    if !line.row.runtime_config {
        match row.containerd_one {
            ContainerdOne::Refused => {
                found.push(finding(
                    format!("Kubernetes {release} is planned to refuse containerd {version}: its kubelet needs the CRI `RuntimeConfig` call, which containerd 1.x lacks"),
                    "the kubelet will not start",
                ));
                return;
            }
            ContainerdOne::FallsBack => {
                found.push(
                    finding(
                        format!(
                            "Kubernetes {release} no longer supports containerd 1.x ({version}): the kubelet falls back to its own cgroup driver, and is planned to refuse it from 1.{}",
                            kubernetes::ASSUMED_AFTER_NEWEST.minor
                        ),
                        "containerd 1.x is unsupported",
                    )
                    .warning(),
                );
                return;
            }
            ContainerdOne::Supported | ContainerdOne::Deprecated | ContainerdOne::LastSupported => {
            }
        }
    }
    let newest_line = containerd::newest();
    if !line.known && (version.major, version.minor) > (newest_line.major, newest_line.minor) {
        found.push(
            finding(
                format!(
                    "containerd {version} is newer than the lines hybridgen knows ({} to {}); its configuration is written as for {}",
                    oldest.name(),
                    newest_line.name(),
                    newest_line.name()
                ),
                "unknown containerd line",
            )
            .warning(),
        );
        return;
    }
    let listed: Vec<String> = row
        .containerd
        .iter()
        .map(|minimum| format!("{minimum}+"))
        .collect();
    match row.containerd.iter().find(|minimum| line.row.holds(minimum)) {
        Some(minimum) if version < minimum => found.push(
            finding(
                format!(
                    "containerd {version} is older than {minimum}, the oldest {} release containerd's RELEASES.md lists for Kubernetes 1.{}",
                    line.row.name(),
                    row.minor
                ),
                "below the listed patch",
            )
            .help(format!("use containerd {} or later, e.g. `{}`", minimum, line.row.newest))
            .warning(),
        ),
        Some(_) => {}
        None if row.containerd.iter().any(|minimum| (minimum.major, minimum.minor) > (version.major, version.minor)) => found.push(
            finding(
                format!(
                    "containerd {} is not among the lines containerd's RELEASES.md lists for Kubernetes 1.{} ({})",
                    line.row.name(),
                    row.minor,
                    listed.join(", ")
                ),
                "not listed for this Kubernetes",
            )
            .warning(),
        ),
        None => {}
    }
}

/// A CNI network name: a letter or digit, then letters, digits, `_`, `.` or `-`
/// (containernetworking/cni `SPEC.md`).
pub(crate) fn is_cni_network_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

fn check_network_name(context: &Context, found: &mut Vec<Diagnostic>) {
    if host_process(context.plan).is_none() {
        return;
    }
    let Some(name) = &context.spec.flannel.network_name else {
        return;
    };
    if !is_cni_network_name(name) {
        found.push(
            Diagnostic::new(
                &WINDOWS_NETWORK_NAME_MISMATCH,
                value("/flannel/networkName"),
                format!("`networkName` `{name}` is not a CNI network name, so the Windows CNI configuration cannot name the HNS network flanneld and kube-proxy use"),
            )
            .label("letters, digits, `_`, `.` and `-` only")
            .help(format!(
                "use `flannel.{}`, or leave `networkName` out",
                context.plan.flannel.vni
            )),
        );
    }
}

fn check_host_gw(context: &Context, found: &mut Vec<Diagnostic>) {
    if host_process(context.plan).is_some() && context.plan.flannel.backend == Backend::HostGw {
        found.push(
            Diagnostic::new(
                &HOST_GW_HOSTPROCESS,
                value("/flannel/backend"),
                "host-gw on the Windows HostProcess path: the l2bridge DaemonSet hybridgen renders has no upstream recipe to match and is unverified",
            )
            .label("no upstream l2bridge HostProcess recipe")
            .help("prefer `backend: vxlan`, or test a Windows node with host-gw before relying on it"),
        );
    }
}

fn check_dsr(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    // Only Kubeclusterbridge.json enables DSR unconditionally (`WinDSR=true`).
    if plan.windows_setup != Some(WindowsSetup::KubeCluster)
        || plan.flannel.backend != Backend::HostGw
    {
        return;
    }
    let mut seen = BTreeSet::new();
    for windows in plan.nodes.iter().filter_map(|node| node.windows.as_ref()) {
        let Some(Ok(build)) = &windows.build else {
            continue;
        };
        if !seen.insert(windows.build_pointer.clone()) {
            continue;
        }
        let Some(Update::FromRevision(first, kb)) =
            releases::windows::row(build.build).map(|row| row.dsr)
        else {
            continue;
        };
        let needed = WindowsBuild {
            build: build.build,
            revision: Some(first),
        };
        let message = match releases::windows::has(build, |row| row.dsr) {
            Has::Yes => continue,
            Has::Unknown => format!(
                "Windows build {build} has no revision, so DSR support ({needed}, {kb}), which `Kubeclusterbridge.json` enables, cannot be verified"
            ),
            Has::No => format!(
                "Windows build {build} predates {needed} ({kb}), but `Kubeclusterbridge.json` enables kube-proxy DSR (`WinDSR=true`)"
            ),
        };
        found.push(
            Diagnostic::new(&WINDOWS_DSR_UNSUPPORTED, value(windows.build_pointer.clone()), message)
                .label(format!("kube-proxy DSR needs {kb}"))
                .help(format!("update the nodes to {needed} or later and write the revision, or use `backend: vxlan`, which does not enable DSR")),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_tags_name_their_versions() {
        let version = |text: &str| tag_version(text).map(|release| release.to_string());
        assert_eq!(
            version("registry.example.com:5000/k8s/flannel-windows:v0.28.9-hostprocess").as_deref(),
            Some("0.28.9")
        );
        assert_eq!(
            version("r.example/kube-proxy-windows:v1.33.4-flannel-hostprocess@sha256:00")
                .as_deref(),
            Some("1.33.4")
        );
        assert_eq!(version("r.example/flannel-windows:latest"), None);
        assert_eq!(version("r.example:5000/flannel-windows"), None);
    }

    /// From the first minor `RELEASES.md` lists a 2.x line for, the default containerd is the one
    /// HG313's and HG318's help names, so a spec that leaves the version out gets neither.
    #[test]
    fn the_default_containerd_is_the_maintained_one_from_the_first_minor_listing_2x() {
        let first = kubernetes::first(|row| row.containerd.iter().any(|line| line.major >= 2))
            .expect("a minor listing containerd 2.x");
        for row in kubernetes::RELEASES
            .iter()
            .chain([&kubernetes::ASSUMED_AFTER_NEWEST])
            .filter(|row| row.minor >= first.minor)
        {
            assert_eq!(
                row.default_containerd,
                maintained_containerd(row),
                "1.{}",
                row.minor
            );
        }
    }

    #[test]
    fn cni_network_names_follow_the_spec() {
        assert!(is_cni_network_name("flannel.4096"));
        assert!(is_cni_network_name("cbr0"));
        assert!(is_cni_network_name("vxlan_0-a"));
        assert!(!is_cni_network_name(""));
        assert!(!is_cni_network_name(".hidden"));
        assert!(!is_cni_network_name("my net"));
        assert!(!is_cni_network_name(r"a\b"));
    }

    #[test]
    fn image_references_are_judged_by_their_repository() {
        assert_eq!(
            reference_problem("registry.example.com:5000/k8s/flannel-windows:v0.28.9-hostprocess"),
            None
        );
        assert_eq!(reference_problem("Registry.example.com/k8s"), None);
        assert!(reference_problem("registry.example.com/K8s/flannel").is_some());
        assert!(reference_problem("https://registry.example.com/k8s").is_some());
        assert!(reference_problem("registry.example.com/k8s flannel").is_some());
        assert!(reference_problem("registry.k8s.io/pause:3.10'='x").is_some());
        assert_eq!(
            reference_problem("registry.k8s.io/pause@sha256:0123456789abcdef"),
            None
        );
    }
}

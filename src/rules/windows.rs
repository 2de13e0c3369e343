//! HG3xx: Windows nodes — builds, the overlay hotfix, images, Kubernetes support, setup flow.

use super::{Context, declare_rules, node_pointer};
use crate::diagnostic::{Diagnostic, value};
use crate::plan::releases::kubernetes::{self, Known};
use crate::plan::releases::windows::{self, Has, Update};
use crate::plan::version::WindowsBuild;
use crate::plan::windows_image::{image_build, image_runs_on, pause_runs_on};
use crate::plan::{
    DEFAULT_INTERFACE_NAME, Plan, WINS_DAEMONSETS_FIRST_MINOR, WINS_FLANNEL_RELEASES, WindowsSetup,
    WinsAdapterProblem, wins_adapter_char, wins_adapter_problems, wins_flannel_image,
};
use crate::spec::{Backend, Os, Role, Runtime, Setup};
use std::collections::BTreeMap;

declare_rules! {
    /// ### What it checks
    /// That every Windows build is 17763 (Windows Server 2019 / 1809) or later.
    ///
    /// ### Why it matters
    /// Kubernetes supports Windows nodes from Windows Server 2019 on; 1803 and earlier lack the
    /// networking (HNS) features the kubelet, kube-proxy and flannel use.
    ///
    /// ### Fix
    /// Use Windows Server 2019 (10.0.17763) or later.
    ///
    /// ### References
    /// Kubernetes "Windows in Kubernetes" support table (kubernetes/website
    /// `content/en/docs/concepts/windows/intro.md`); microsoft/hcsshim `osversion/windowsbuilds.go`.
    WINDOWS_BUILD_UNSUPPORTED = ("HG301", "windows-build-unsupported", Error, Some(check_build_supported));

    /// ### What it checks
    /// vxlan on build 17763: that the revision is 379 or later (KB4489899). Warning when no
    /// revision is written, so the hotfix cannot be verified.
    ///
    /// ### Why it matters
    /// Overlay networking on Windows Server 2019 needs KB4489899; without it flannel cannot create
    /// the remote subnets ("platform does not support feature Remote Subnet").
    ///
    /// ### Fix
    /// Install the March 2019 cumulative update or later and write the build with its revision,
    /// e.g. `10.0.17763.379`; or use host-gw.
    ///
    /// ### References
    /// kubernetes/website `windows-networking.md` ("requires KB4489899 on Windows Server 2019");
    /// Rancher Windows docs; microsoft/SDN `Kubernetes/flannel/overlay/README.md`.
    WINDOWS_OVERLAY_HOTFIX = ("HG302", "windows-overlay-hotfix", Error, Some(check_overlay_hotfix));

    /// ### What it checks
    /// That the pause, nanoserver and servercore images are built for the build of every Windows
    /// node that runs them (from Windows Server 2022 on, an image of the previous LTSC up to the
    /// host's own build also runs, e.g. ltsc2022 images on a 26100 host). A multi-arch pause image
    /// is checked against the Windows variants its tag carries; a variant no source confirms
    /// (`registry.k8s.io/pause` 3.10.1 and 3.10.2 on 1809 and ltsc2022) gives no finding either
    /// way. Without `windows.images.pause`, the default pause image chosen for each node's build
    /// is checked too: the default is the newest tag with a variant for the build (3.6 for 1903,
    /// 3.8 for 20H2), and a build that no tag carries (an unlisted semi-annual build such as
    /// 10.0.19044) is named; HG301 names builds before Windows Server 2019.
    ///
    /// ### Why it matters
    /// Process-isolated containers refuse to start when image and host builds differ ("The
    /// operating system of the container does not match the operating system of the host").
    ///
    /// ### Fix
    /// Use the image tag for the node's build, or leave `windows.images` out to get matching ones.
    ///
    /// ### References
    /// Microsoft "Windows container version compatibility"; hcsshim `CheckHostAndContainerCompat`;
    /// MicrosoftDocs/Virtualization-Documentation `version-compatibility.md`; the pause image's
    /// Windows variants per tag: kubernetes `build/pause/CHANGELOG.md`.
    WINDOWS_IMAGE_BUILD_MISMATCH = ("HG303", "windows-image-build-mismatch", Error, Some(check_images));

    /// ### What it checks
    /// Windows nodes need Kubernetes 1.14 or later. Warning: a Windows build that this Kubernetes
    /// minor does not list as supported.
    ///
    /// ### Why it matters
    /// Windows nodes became stable in 1.14; each release lists the Windows Server versions it is
    /// tested on, and others may fail in ways no one has seen.
    ///
    /// ### Fix
    /// Use Kubernetes 1.14 or later, and a Windows build its release lists.
    ///
    /// ### References
    /// kubernetes/website "Windows in Kubernetes" per release
    /// (`content/en/docs/concepts/windows/intro.md`).
    WINDOWS_KUBERNETES_VERSION = ("HG304", "windows-kubernetes-version", Error, Some(check_kubernetes_support));

    /// ### What it checks
    /// `runtime: containerd` where the Windows nodes are set up with KubeCluster.ps1 (Kubernetes
    /// before 1.24 without `windows.hostProcess`) or with the wins DaemonSets, which hybridgen
    /// renders for dockerd (sig-windows-tools' `cni-conf.json`; their containerd variant is not
    /// rendered). (From 1.24 the nodes take the HostProcess path,
    /// whose files `render` writes instead of `Kubeclustervxlan.json`; HG310–HG316 check it.)
    ///
    /// ### Why it matters
    /// KubeCluster.ps1 refuses any runtime but dockerd ("containerd is not yet supported"; its
    /// containerd branch throws "Not Implemented").
    ///
    /// ### Fix
    /// Use `runtime: dockerd`; or, with Kubernetes 1.23, add `windows.hostProcess` to take the
    /// containerd/HostProcess path.
    ///
    /// ### References
    /// kubernetes-sigs/sig-windows-tools `kubeadm/KubeCluster.ps1` and `KubeClusterHelper.psm1`
    /// (`ValidateConfig`, `InstallCRI`); PR #271.
    WINDOWS_SETUP_INCOMPATIBLE = ("HG305", "windows-setup-incompatible", Error, Some(check_setup_flow));

    /// ### What it checks
    /// That Windows nodes have neither the `controlplane` nor the `etcd` role.
    ///
    /// ### Why it matters
    /// The Kubernetes control plane and etcd run on Linux only.
    ///
    /// ### Fix
    /// Give Windows nodes the `worker` role only.
    ///
    /// ### References
    /// Kubernetes "Windows in Kubernetes" ("the control plane must run on Linux").
    WINDOWS_ROLE = ("HG306", "windows-role", Error, Some(check_roles));

    /// ### What it checks
    /// That a spec with Windows nodes has a `windows` section, and every Windows node has a build
    /// (its own `windowsBuild` or `windows.build`).
    ///
    /// ### Why it matters
    /// The build decides the images, the hotfix check and the supported Kubernetes versions.
    ///
    /// ### Fix
    /// Add `windows: {build: "10.0.17763.379", runtime: dockerd}` before Kubernetes 1.24 (the
    /// KubeCluster.ps1 setup), `windows: {build: "10.0.20348.2762", hostProcess: {registry:
    /// registry.example.com/k8s}}` from 1.24 (containerd, HostProcess images from your registry);
    /// or the node's `windowsBuild`.
    ///
    /// ### References
    /// The spec format in the README.
    WINDOWS_SETTINGS_MISSING = ("HG307", "windows-settings-missing", Error, Some(check_settings));

    /// ### What it checks
    /// That `windows.setup` names a setup the Kubernetes version has: `kubecluster` and
    /// `wins-daemonsets` need dockershim (before 1.24), `wins-daemonsets` exists from 1.18, and
    /// neither goes with `windows.hostProcess`.
    ///
    /// ### Why it matters
    /// From 1.24 the kubelet has no dockershim: only the HostProcess setup works, and hybridgen
    /// renders it whatever `windows.setup` says. sig-windows-tools added the wins DaemonSets in
    /// February 2020, for Kubernetes 1.18; no guide or image of theirs covers earlier releases.
    ///
    /// ### Fix
    /// Remove `windows.setup` from 1.24 on (or with `windows.hostProcess`); before 1.18 use
    /// `kubecluster`, or Kubernetes 1.18 or later for `wins-daemonsets`.
    ///
    /// What `render` writes for `wins-daemonsets`: `windows/kube-flannel-wins.yml` and
    /// `windows/kube-proxy-wins.yml` (sig-windows-tools' manifests at commit 1ab39f1, their
    /// dockerd variant only), and steps that run sig-windows-tools' own `PrepareNode.ps1` of that
    /// commit on each node, after Docker 20.10 from Microsoft's `install-docker-ce.ps1`, then
    /// `kubeadm join`. It renders no per-node file and no kubelet configuration of its own for this
    /// setup.
    ///
    /// ### References
    /// kubernetes-sigs/sig-windows-tools commit ea35456 ("Adds flannel (overlay + l2bridge) and
    /// kube-proxy yml") and PR #271 (removes them with dockershim); kubernetes PR #106907
    /// (dockershim removed in 1.24); the Kubernetes docs "Adding Windows nodes" of releases 1.18 to
    /// 1.22.
    WINDOWS_SETUP_RELEASE = ("HG330", "windows-setup-release", Error, Some(check_setup_release));

    /// ### What it checks
    /// `windows.setup: wins-daemonsets`: that `flannel.version` is a release sig-windows-tools
    /// published a Windows flanneld image of (`sigwindowstools/flannel:<release>-nanoserver`):
    /// v0.12.0, v0.13.0, v0.14.0 or v0.15.1.
    ///
    /// ### Why it matters
    /// The Windows flannel DaemonSet runs that image, and it must be the flannel of the Linux
    /// manifest: they share `kube-flannel-cfg` and the ServiceAccount `flannel`, in kube-system
    /// (the manifests of v0.19 and later move to the `kube-flannel` namespace, where the DaemonSet
    /// would not find kubeadm's `kubeadm-config` and `kube-proxy` ConfigMaps). Any other tag was
    /// never pushed, and the pods fail to pull it.
    ///
    /// ### Fix
    /// Set `flannel.version` to one of them, e.g. `v0.15.1`.
    ///
    /// ### References
    /// kubernetes-sigs/sig-windows-tools `kubeadm/flannel/buildconfig.json` and `build.ps1`
    /// (commit 98813c8), `kubeadm/flannel/flannel-overlay.yml`.
    WINS_FLANNEL_IMAGE_MISSING = ("HG331", "wins-flannel-image-missing", Error, Some(check_wins_flannel));

    /// ### What it checks
    /// `windows.setup: wins-daemonsets`: that every Windows node uses the adapter
    /// `windows.interfaceName` names (no node names its own `interfaceName`), and that the name
    /// is one word of ASCII letters, digits, `-`, `_` and `.`.
    ///
    /// ### Why it matters
    /// One flannel DaemonSet runs on every Windows node, and its `run.ps1` starts flannel's
    /// `setup.exe` through wins with one adapter for all of them (`wins cli process run --path
    /// /k/flannel/setup.exe --args "--mode=overlay --interface=Ethernet"`): a node whose adapter
    /// has another name gets no HNS network. wins splits `--args` at every space, so `Ethernet 2`
    /// reaches `setup.exe` as `--interface=Ethernet` and a stray `2`; quotes, `$` or a backtick
    /// would end or expand the PowerShell string the name sits in.
    ///
    /// ### Fix
    /// Rename the adapter on every Windows node to one such word (`Rename-NetAdapter -Name
    /// "Ethernet 2" -NewName Ethernet2`), set it as `windows.interfaceName`, and remove the nodes'
    /// own `interfaceName`.
    ///
    /// ### References
    /// kubernetes-sigs/sig-windows-tools `kubeadm/flannel/flannel-overlay.yml` and
    /// `flannel-host-gw.yml` (commit 1ab39f1, the `wins cli process run` lines of `run.ps1`);
    /// rancher/wins `cmd/cmds/flags/list_value.go` (`--args` split at `" "`) and
    /// `cmd/client/process/run.go`.
    WINS_ADAPTER_UNUSABLE = ("HG332", "wins-adapter-unusable", Error, Some(check_wins_adapter));
}

fn check_setup_release(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(windows) = &context.spec.windows else {
        return;
    };
    let (Some(declared), Some(setup), Some(kubernetes)) = (
        windows.setup,
        context.plan.windows_setup,
        context.plan.kubernetes_version.as_ref().ok(),
    ) else {
        return;
    };
    let problem = if setup == WindowsSetup::HostProcess {
        let why = if windows.host_process.is_some() {
            "`windows.hostProcess` is written".to_string()
        } else {
            format!("Kubernetes {kubernetes} has no dockershim")
        };
        Some((
            format!(
                "`setup: {}` with Kubernetes {kubernetes}: {why}, and the Windows nodes take the HostProcess setup",
                declared.as_str()
            ),
            "remove `setup`: from Kubernetes 1.24 (or with `hostProcess`) the only setup is HostProcess".to_string(),
        ))
    } else if declared == Setup::WinsDaemonsets && kubernetes.minor < WINS_DAEMONSETS_FIRST_MINOR {
        Some((
            format!(
                "`setup: wins-daemonsets` with Kubernetes {kubernetes}: sig-windows-tools' wins DaemonSets start at 1.{WINS_DAEMONSETS_FIRST_MINOR}"
            ),
            format!(
                "use `setup: kubecluster`, or Kubernetes 1.{WINS_DAEMONSETS_FIRST_MINOR} or later"
            ),
        ))
    } else {
        None
    };
    if let Some((message, help)) = problem {
        found.push(
            Diagnostic::new(&WINDOWS_SETUP_RELEASE, value("/windows/setup"), message)
                .label("no such setup for this release")
                .help(help),
        );
    }
}

fn check_wins_flannel(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if plan.windows_setup != Some(WindowsSetup::WinsDaemonSets) {
        return;
    }
    let Some(release) = &plan.flannel.release else {
        return;
    };
    if wins_flannel_image(&release.tag).is_some() {
        return;
    }
    let newest = WINS_FLANNEL_RELEASES[WINS_FLANNEL_RELEASES.len() - 1];
    let pointer = if context.spec.flannel.version.is_some() {
        value("/flannel/version")
    } else {
        crate::diagnostic::key("/flannel")
    };
    found.push(
        Diagnostic::new(
            &WINS_FLANNEL_IMAGE_MISSING,
            pointer,
            format!(
                "flannel {} has no `sigwindowstools/flannel` image for the wins DaemonSets, which exist for {} only",
                release.tag,
                WINS_FLANNEL_RELEASES.join(", ")
            ),
        )
        .label("no Windows image")
        .help(format!("set `flannel.version: {newest}`")),
    );
}

fn check_wins_adapter(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let (Some(WindowsSetup::WinsDaemonSets), Some(windows)) = (plan.windows_setup, &plan.windows)
    else {
        return;
    };
    let shared_written = context
        .spec
        .windows
        .as_ref()
        .is_some_and(|windows| windows.interface_name.is_some());
    for problem in wins_adapter_problems(windows, &plan.nodes) {
        let diagnostic = match problem {
            WinsAdapterProblem::OwnAdapter { node, shared, .. } => {
                let diagnostic = Diagnostic::new(
                    &WINS_ADAPTER_UNUSABLE,
                    value(node_pointer(node, "interfaceName")),
                    problem.to_string(),
                )
                .label("not the shared adapter")
                .help(format!(
                    "remove `interfaceName` from this node and rename its adapter to `{shared}`"
                ));
                if shared_written {
                    diagnostic.related(
                        value("/windows/interfaceName"),
                        "the adapter of every Windows node",
                    )
                } else {
                    diagnostic
                }
            }
            WinsAdapterProblem::NotOneWord(name) => Diagnostic::new(
                &WINS_ADAPTER_UNUSABLE,
                value("/windows/interfaceName"),
                problem.to_string(),
            )
            .label("not one word")
            .help(format!(
                "rename the adapter on every Windows node to `{}` and write that here",
                one_word(name)
            )),
        };
        found.push(diagnostic);
    }
}

/// `name` with every character wins or PowerShell would not pass on whole left out, for the help.
fn one_word(name: &str) -> String {
    let word: String = name.chars().filter(|c| wins_adapter_char(*c)).collect();
    if word.is_empty() {
        DEFAULT_INTERFACE_NAME.into()
    } else {
        word
    }
}

/// Every distinct place a Windows build in use is declared, with the build.
pub(super) fn declared_builds(plan: &Plan) -> BTreeMap<&str, WindowsBuild> {
    plan.nodes
        .iter()
        .filter_map(|node| node.windows.as_ref())
        .filter_map(|windows| match &windows.build {
            Some(Ok(build)) => Some((windows.build_pointer.as_str(), *build)),
            _ => None,
        })
        .collect()
}

fn check_build_supported(context: &Context, found: &mut Vec<Diagnostic>) {
    let first = windows::first_supported();
    for (pointer, build) in declared_builds(context.plan) {
        if build.build < first.build {
            found.push(
                Diagnostic::new(
                    &WINDOWS_BUILD_UNSUPPORTED,
                    value(pointer),
                    format!("Windows build {build} ({}) is older than {}, the first build Kubernetes supports", windows::name(build.build), first.build),
                )
                .label("unsupported Windows build")
                .help(format!("use {}, 10.0.{}, or later", first.name, first.build)),
            );
        }
    }
}

fn check_overlay_hotfix(context: &Context, found: &mut Vec<Diagnostic>) {
    if context.plan.flannel.backend != Backend::Vxlan {
        return;
    }
    for (pointer, build) in declared_builds(context.plan) {
        // Builds before the first supported one are HG301's.
        let Some(Update::FromRevision(first, kb)) = windows::row(build.build)
            .filter(|row| row.build >= windows::first_supported().build)
            .map(|row| row.overlay)
        else {
            continue;
        };
        let needed = WindowsBuild {
            build: build.build,
            revision: Some(first),
        };
        match windows::has(&build, |row| row.overlay) {
            Has::No => found.push(
                Diagnostic::new(
                    &WINDOWS_OVERLAY_HOTFIX,
                    value(pointer),
                    format!("Windows build {build} predates {kb} ({needed}), which vxlan overlay networking needs"),
                )
                .label("overlay hotfix missing")
                .help(format!("update the nodes to {needed} or later, or use `backend: host-gw`")),
            ),
            Has::Unknown => found.push(
                Diagnostic::new(
                    &WINDOWS_OVERLAY_HOTFIX,
                    value(pointer),
                    format!("Windows build {build} has no revision, so the {kb} overlay hotfix (revision {first}) cannot be verified"),
                )
                .label("revision unknown")
                .help(format!("write the build with its revision, e.g. `{needed}`"))
                .warning(),
            ),
            Has::Yes => {}
        }
    }
}

fn check_images(context: &Context, found: &mut Vec<Diagnostic>) {
    let written = context
        .spec
        .windows
        .as_ref()
        .and_then(|windows| windows.images.as_ref());
    if let Some(images) = written {
        let builds = declared_builds(context.plan);
        for (field, image) in [
            ("pause", &images.pause),
            ("nanoserver", &images.nanoserver),
            ("servercore", &images.servercore),
        ] {
            let Some(image) = image else { continue };
            let mismatch = builds
                .iter()
                .find(|(_, host)| runs_on(image, host.build) == Some(false));
            if let Some((pointer, host)) = mismatch {
                found.push(
                    Diagnostic::new(
                        &WINDOWS_IMAGE_BUILD_MISMATCH,
                        value(format!("/windows/images/{field}")),
                        match image_build(image) {
                            Some(image_build) => format!(
                                "image `{image}` is built for Windows {image_build}, but nodes run build {} ({})",
                                host.build,
                                windows::name(host.build)
                            ),
                            None => format!(
                                "image `{image}` has no variant for build {} ({}), which the nodes run",
                                host.build,
                                windows::name(host.build)
                            ),
                        },
                    )
                    .label("image and host builds differ")
                    .related(value(*pointer), "the nodes' build is declared here")
                    .help(format!("use the {field} image for build {}, or leave `windows.images.{field}` out", host.build)),
                );
            }
        }
    }
    // RKE2 pulls its own pause image (rke2 `pkg/images`), which no default here describes.
    if written.is_some_and(|images| images.pause.is_some()) || context.plan.rke2.is_some() {
        return;
    }
    // The default pause image is chosen per build from the same table; a build no tag carries
    // still gets one, and that node cannot start a pod.
    let mut reported = BTreeMap::new();
    for windows in context
        .plan
        .nodes
        .iter()
        .filter_map(|node| node.windows.as_ref())
    {
        // HG301 already rejects a build before Windows Server 2019.
        let Some(Ok(build)) = &windows.build else {
            continue;
        };
        if build.build < windows::first_supported().build {
            continue;
        }
        let pause = &windows.images.pause;
        if pause_runs_on(pause, build.build) == Some(Has::No) {
            reported.insert(windows.build_pointer.clone(), (build.build, pause.clone()));
        }
    }
    for (pointer, (build, pause)) in reported {
        found.push(
            Diagnostic::new(
                &WINDOWS_IMAGE_BUILD_MISMATCH,
                value(pointer),
                format!(
                    "the default pause image `{pause}` has no variant for build {build} ({}), and no pause tag hybridgen knows has one",
                    windows::name(build)
                ),
            )
            .label("no default pause image runs on this build")
            .help("set `windows.images.pause` to a pause image built for this build, or use a build a pause tag carries (Windows Server 2019, 2022 or 2025)"),
        );
    }
}

/// Whether an image runs on a host build: from the pause table for the pause images it lists
/// (`None` where no source confirms either way), else from the build its tag names.
fn runs_on(image: &str, host_build: u32) -> Option<bool> {
    match pause_runs_on(image, host_build) {
        Some(Has::Yes) => Some(true),
        Some(Has::No) => Some(false),
        Some(Has::Unknown) => None,
        None => image_build(image).map(|build| image_runs_on(build, host_build)),
    }
}

fn check_kubernetes_support(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let (Ok(kubernetes), Some(resolved)) = (&plan.kubernetes_version, &plan.kubernetes_release)
    else {
        return;
    };
    if !plan.has_windows() {
        return;
    }
    // The table starts where Windows nodes became stable.
    let first = kubernetes::oldest().minor;
    match resolved.known {
        Known::BeforeTable => {
            found.push(
                Diagnostic::new(
                    &WINDOWS_KUBERNETES_VERSION,
                    value("/kubernetes/version"),
                    format!(
                        "Kubernetes {kubernetes} predates stable Windows node support (1.{first})"
                    ),
                )
                .label("too old for Windows nodes")
                .help(format!("use Kubernetes 1.{first} or later")),
            );
            return;
        }
        // HG319 says what is wrong with it.
        Known::Impossible => return,
        Known::Yes | Known::AfterNewest => {}
    }
    let minor = kubernetes.minor;
    for (pointer, build) in declared_builds(plan) {
        if build.build >= windows::first_supported().build && !windows::listed(build.build, minor) {
            let listed: Vec<String> = windows::listed_by(minor)
                .iter()
                .map(u32::to_string)
                .collect();
            found.push(
                Diagnostic::new(
                    &WINDOWS_KUBERNETES_VERSION,
                    value(pointer),
                    format!(
                        "Windows build {} ({}) is not listed as supported by Kubernetes {}.{}, which lists {}",
                        build.build,
                        windows::name(build.build),
                        kubernetes.major,
                        kubernetes.minor,
                        listed.join(", ")
                    ),
                )
                .label("not listed for this Kubernetes")
                .help("use a listed Windows build, or a Kubernetes release that lists this one")
                .warning(),
            );
        }
    }
}

fn check_setup_flow(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let Some(windows) = &plan.windows else {
        return;
    };
    let dockerd_setup = match plan.windows_setup {
        Some(WindowsSetup::KubeCluster) => Some("the KubeCluster.ps1 node setup supports"),
        Some(WindowsSetup::WinsDaemonSets) => Some("the wins DaemonSets hybridgen renders run on"),
        _ => None,
    };
    if let Some(setup) = dockerd_setup
        && windows.runtime == Runtime::Containerd
    {
        let kubernetes = plan
            .kubernetes_version
            .as_ref()
            .map_or_else(|_| "?".to_string(), ToString::to_string);
        found.push(
            Diagnostic::new(
                &WINDOWS_SETUP_INCOMPATIBLE,
                value("/windows/runtime"),
                format!("`runtime: containerd` with Kubernetes {kubernetes}: {setup} dockerd only"),
            )
            .label("this setup needs dockerd")
            .help("use `runtime: dockerd`, or Kubernetes 1.24 or later (1.23 with `windows.hostProcess`) for the containerd setup"),
        );
    }
}

fn check_roles(context: &Context, found: &mut Vec<Diagnostic>) {
    for (index, node) in context.plan.nodes.iter().enumerate() {
        if node.os != Os::Windows {
            continue;
        }
        let forbidden: Vec<&str> = node
            .roles
            .iter()
            .filter_map(|role| match role {
                Role::Controlplane => Some("controlplane"),
                Role::Etcd => Some("etcd"),
                Role::Worker => None,
            })
            .collect();
        if !forbidden.is_empty() {
            found.push(
                Diagnostic::new(
                    &WINDOWS_ROLE,
                    value(node_pointer(index, "roles")),
                    format!("Windows node `{}` has the `{}` role; the control plane and etcd run on Linux only", node.name, forbidden.join("` and `")),
                )
                .label("Linux-only role")
                .help("give Windows nodes `roles: [worker]` and run the control plane on a Linux node"),
            );
        }
    }
}

/// A Windows build the plan's node setup supports: Windows Server 2019 with the overlay hotfix
/// (KB4489899, revision 379) under KubeCluster.ps1, Windows Server 2022 on the HostProcess path.
fn starter_build(plan: &Plan) -> &'static str {
    match plan.windows_setup {
        Some(WindowsSetup::HostProcess) => "10.0.20348.2762",
        _ => "10.0.17763.379",
    }
}

/// The smallest `windows` section that plans clean for the plan's node setup: KubeCluster.ps1
/// needs dockerd; on the HostProcess path (Kubernetes 1.24 and later) the runtime is containerd
/// by default, dockerd is gone (HG310), and the two HostProcess images need a registry (HG312).
fn starter_settings(plan: &Plan) -> String {
    let build = starter_build(plan);
    match plan.windows_setup {
        Some(WindowsSetup::HostProcess) => {
            format!("{{build: \"{build}\", hostProcess: {{registry: registry.example.com/k8s}}}}")
        }
        _ => format!("{{build: \"{build}\", runtime: dockerd}}"),
    }
}

fn check_settings(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    let windows_nodes = plan
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| node.os == Os::Windows);
    if context.spec.windows.is_none() {
        if let Some((index, node)) = windows_nodes.clone().next() {
            found.push(
                Diagnostic::new(
                    &WINDOWS_SETTINGS_MISSING,
                    value(node_pointer(index, "os")),
                    format!(
                        "node `{}` runs Windows, but the spec has no `windows` section",
                        node.name
                    ),
                )
                .label("Windows node")
                .help(format!("add `windows: {}`", starter_settings(plan))),
            );
        }
        return;
    }
    for (index, node) in windows_nodes {
        if node
            .windows
            .as_ref()
            .is_some_and(|windows| windows.build.is_none())
        {
            found.push(
                Diagnostic::new(
                    &WINDOWS_SETTINGS_MISSING,
                    value(node_pointer(index, "")),
                    format!("Windows node `{}` has no build: neither `windowsBuild` nor `windows.build` is set", node.name),
                )
                .label("no Windows build")
                .help(format!("set `windows.build` (e.g. `\"{}\"`) or the node's `windowsBuild`", starter_build(plan))),
            );
        }
    }
}

//! The version steps of a change: Kubernetes one minor at a time (control plane, kube-proxy,
//! Linux workers, Windows workers), and the Windows nodes' containerd one line at a time, each
//! line before the kubelet that needs it. Every step records the versions the cluster runs after
//! it, which the skew policy ([`crate::plan::releases::skew`]) is checked against.

use super::membership::Groups;
use super::{Action, Component, Paths, Step, VersionState, drain, drained};
use crate::diagnostic::{Diagnostic, Rule, value};
use crate::plan::WindowsSetup;
use crate::plan::distribution::Distribution;
use crate::plan::releases::advisories::{self, Certainty, Scope};
use crate::plan::releases::{containerd, kubernetes, rke2, skew};
use crate::plan::version::Release;
use crate::render::kubeadm::windows::wins;
use crate::rules::change::{self as rules, ChangeContext};
use crate::spec::Backend;
use std::collections::VecDeque;

const CONTROL_PLANE: &str = "control plane";
const LINUX_WORKERS: &str = "Linux workers";
const WINDOWS: &str = "Windows";
const KUBEADM_LINUX_NODES: &str =
    "https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/upgrading-linux-nodes/";
const KUBEADM_WINDOWS_NODES: &str =
    "https://kubernetes.io/docs/tasks/administer-cluster/kubeadm/upgrading-windows-nodes/";
/// kube-proxy's DaemonSet moves after the control plane (https://github.com/kubernetes/kubeadm/issues/2346).
const KUBE_PROXY_AFTER_CONTROL_PLANE: &str = "https://github.com/kubernetes/kubeadm/issues/2346";

/// One Kubernetes release an upgrade stops at.
#[derive(Debug, Clone)]
struct Stage {
    release: Release,
    /// How the distribution names it: `v1.34.9`, `v1.34.9+rke2r1`.
    tag: String,
    /// The spec's own version (the last stage): rendered from the spec as written.
    last: bool,
}

/// What the steps are built from.
struct Upgrade<'a> {
    context: &'a ChangeContext<'a>,
    groups: &'a Groups,
    paths: &'a Paths,
    state: VersionState,
    hops: VecDeque<Release>,
    steps: Vec<Step>,
}

/// The version steps and the findings that say why a version cannot move.
pub fn steps(
    context: &ChangeContext,
    groups: &Groups,
    paths: &Paths,
) -> (Vec<Step>, Vec<Diagnostic>) {
    let mut findings = Vec::new();
    let stages = stages(context).unwrap_or_else(|finding| {
        findings.push(*finding);
        Vec::new()
    });
    let hops = containerd_hops(context, groups).unwrap_or_else(|finding| {
        findings.push(*finding);
        VecDeque::new()
    });
    let Ok(&old_version) = context.old.plan.kubernetes_version.as_ref() else {
        return (Vec::new(), findings);
    };
    let mut upgrade = Upgrade {
        context,
        groups,
        paths,
        state: initial_state(context, groups, old_version),
        hops,
        steps: Vec::new(),
    };
    for stage in &stages {
        match context.new.plan.distribution.distribution {
            Distribution::Kubeadm => upgrade.kubeadm_stage(stage),
            Distribution::Rke2 => upgrade.rke2_stage(stage),
            Distribution::Rke => upgrade.rke_stage(stage),
        }
    }
    while !upgrade.hops.is_empty() {
        upgrade.pop_hop();
    }
    (upgrade.steps, findings)
}

fn finding(rule: &'static Rule, pointer: &str, message: String, help: String) -> Box<Diagnostic> {
    Box::new(
        Diagnostic::new(rule, value(pointer), message)
            .label("cannot be reached in legal steps")
            .help(help),
    )
}

/// The releases the upgrade stops at, one per minor; or why there are none.
fn stages(context: &ChangeContext) -> Result<Vec<Stage>, Box<Diagnostic>> {
    let (Ok(&old), Ok(&new)) = (
        context.old.plan.kubernetes_version.as_ref(),
        context.new.plan.kubernetes_version.as_ref(),
    ) else {
        return Ok(Vec::new());
    };
    if new < old {
        return Err(finding(
            &rules::KUBERNETES_DOWNGRADE,
            "/kubernetes/version",
            format!(
                "Kubernetes goes back from {old} to {new}: a control plane is upgraded, never downgraded"
            ),
            format!(
                "keep `{old}`, or restore the control plane from the etcd backup taken before {old} ({})",
                skew::KUBEADM_UPGRADE
            ),
        ));
    }
    for (side, version) in [("old", old), ("new", new)] {
        if kubernetes::resolve(&version).known != kubernetes::Known::Yes {
            let (oldest, newest) = (kubernetes::oldest().minor, kubernetes::newest().minor);
            return Err(finding(
                &rules::KUBERNETES_OUTSIDE_TABLE,
                "/kubernetes/version",
                format!(
                    "the {side} spec's Kubernetes {version} is outside the release table (1.{oldest} to 1.{newest}): no step to or from it can be checked"
                ),
                format!(
                    "write a version from 1.{oldest} to 1.{newest} (https://kubernetes.io/releases/)"
                ),
            ));
        }
    }
    if old == new {
        return Ok(Vec::new());
    }
    (old.minor + 1..new.minor)
        .map(|minor| intermediate(context, minor))
        .chain([Ok(last_stage(context, new))])
        .collect()
}

fn last_stage(context: &ChangeContext, release: Release) -> Stage {
    let tag = context
        .new
        .plan
        .rke2
        .as_ref()
        .and_then(|rke2| rke2.tag())
        .map_or_else(|| format!("v{release}"), str::to_string);
    Stage {
        release,
        tag,
        last: true,
    }
}

/// The release a minor between the two is passed at: its newest patch the tables know (for
/// RKE2, its newest release whose bundled flannel no advisory flags).
fn intermediate(context: &ChangeContext, minor: u32) -> Result<Stage, Box<Diagnostic>> {
    match context.new.plan.distribution.distribution {
        Distribution::Kubeadm | Distribution::Rke => {
            let patch = kubernetes::newest_patch(minor).unwrap_or(0);
            let release = Release::new(1, minor, patch);
            Ok(Stage {
                release,
                tag: format!("v{release}"),
                last: false,
            })
        }
        Distribution::Rke2 => rke2_intermediate(context, minor),
    }
}

fn rke2_intermediate(context: &ChangeContext, minor: u32) -> Result<Stage, Box<Diagnostic>> {
    let unavailable = |why: String| {
        finding(
            &rules::UPGRADE_RELEASE_UNAVAILABLE,
            "/kubernetes/version",
            why,
            format!(
                "upgrade to a release of 1.{minor} first (https://github.com/rancher/rke2/releases), one minor at a time ({})",
                skew::RKE2_UPGRADE
            ),
        )
    };
    let Some((patch, revision)) = rke2::newest_in_minor(minor) else {
        return Err(unavailable(format!(
            "no RKE2 release of Kubernetes 1.{minor} is in hybridgen's table, and RKE2 upgrades one minor at a time"
        )));
    };
    let release = Release::new(1, minor, patch);
    let resolved = rke2::resolve(release, revision);
    let windows_vxlan =
        context.new.plan.has_windows() && context.new.plan.flannel.backend == Backend::Vxlan;
    if let Some(bundled) = resolved.flannel()
        && windows_vxlan
        // Only a bug shown to leave Windows nodes without a network bars a stage; one that hits
        // only some nodes (more than one adapter) does not.
        && let Some(advisory) = advisories::flannel(bundled.windows_flanneld, Scope::WindowsVxlan)
            .find(|advisory| advisory.certainty == Certainty::Breaks)
    {
        return Err(unavailable(format!(
            "RKE2 {}, the release of 1.{minor} to pass through, bundles Windows flanneld v{}: {} ({})",
            resolved.tag, bundled.windows_flanneld, advisory.effect, advisory.reference
        )));
    }
    Ok(Stage {
        release,
        tag: resolved.tag,
        last: false,
    })
}

fn initial_state(context: &ChangeContext, groups: &Groups, version: Release) -> VersionState {
    let mut state = VersionState::default();
    state.set(Component::ApiServer, CONTROL_PLANE, version);
    for (group, nodes) in [
        (CONTROL_PLANE, &groups.control_plane),
        (LINUX_WORKERS, &groups.linux_workers),
        (WINDOWS, &groups.windows),
    ] {
        if !nodes.is_empty() {
            state.set(Component::Kubelet, group, version);
            state.set(Component::KubeProxy, group, version);
        }
    }
    if let Some(version) = windows_containerd(context.old.plan)
        && !groups.windows.is_empty()
    {
        state.set(Component::Containerd, WINDOWS, version);
    }
    state
}

/// The containerd the Windows nodes run where hybridgen installs it (the HostProcess path).
fn windows_containerd(plan: &crate::plan::Plan) -> Option<Release> {
    let windows = plan.windows.as_ref()?;
    let host_process = plan.windows_setup == Some(WindowsSetup::HostProcess);
    host_process.then_some(*windows.containerd_version.as_ref().ok()?)
}

/// The containerd releases the Windows nodes pass through, or why they cannot.
fn containerd_hops(
    context: &ChangeContext,
    groups: &Groups,
) -> Result<VecDeque<Release>, Box<Diagnostic>> {
    let (Some(old), Some(new)) = (
        windows_containerd(context.old.plan),
        windows_containerd(context.new.plan),
    ) else {
        return Ok(VecDeque::new());
    };
    if groups.windows.is_empty() {
        return Ok(VecDeque::new());
    }
    let pointer = if context.new.spec.windows_containerd_written() {
        "/windows/containerd/version"
    } else {
        "/kubernetes/version"
    };
    match containerd::upgrade_path(old, new) {
        Ok(path) => Ok(path.into()),
        Err(containerd::PathError::Downgrade) => Err(finding(
            &rules::CONTAINERD_DOWNGRADE,
            pointer,
            format!("containerd on the Windows nodes goes back from {old} to {new}"),
            format!(
                "keep containerd {old} (`windows.containerd.version: \"{old}\"`), or replace the nodes; containerd is upgraded, never downgraded ({})",
                containerd::UPGRADE_ONE_LINE_AT_A_TIME
            ),
        )),
        Err(containerd::PathError::UnknownLine(version)) => Err(finding(
            &rules::CONTAINERD_LINE_UNKNOWN,
            pointer,
            format!(
                "containerd {version} is on a line hybridgen's table does not hold: the upgrade from {old} to {new} cannot be named line by line"
            ),
            format!(
                "pin a release of a line from {} to {} ({})",
                containerd::oldest().name(),
                containerd::newest().name(),
                containerd::UPGRADE_ONE_LINE_AT_A_TIME
            ),
        )),
    }
}

impl Upgrade<'_> {
    fn out(&self, stage: &Stage) -> String {
        if stage.last {
            self.paths.out.clone()
        } else {
            self.out_of(stage.release.minor)
        }
    }

    /// The folder a copy of the spec at a minor is rendered into.
    fn out_of(&self, minor: u32) -> String {
        format!("{}-1.{minor}", self.paths.out.trim_end_matches('/'))
    }

    /// How the files of a stage are rendered: the spec as written for the last, a copy with the
    /// stage's version for the others.
    fn render(&self, stage: &Stage) -> String {
        if stage.last {
            self.paths.render()
        } else {
            format!(
                "render a copy of {} with `kubernetes.version: \"{}\"` into {}",
                self.paths.spec,
                stage.release,
                self.out(stage)
            )
        }
    }

    /// A step of a stage: one rendered from a copy of the spec at an intermediate release
    /// applies none of the files the spec itself renders.
    fn push_stage(&mut self, stage: &Stage, step: Step) {
        let step = if stage.last {
            step
        } else {
            step.without_files()
        };
        self.steps.push(step.versions(&self.state));
    }

    /// One kubeadm minor: control plane, Windows kube-proxy, Linux workers, the containerd the
    /// Windows kubelets need, Windows workers, then the containerd they run with.
    fn kubeadm_stage(&mut self, stage: &Stage) {
        self.kubeadm_control_plane(stage);
        let setup = self.context.new.plan.windows_setup;
        let host_process = setup == Some(WindowsSetup::HostProcess);
        let wins = setup == Some(WindowsSetup::WinsDaemonSets);
        if host_process && !self.groups.windows.is_empty() {
            self.windows_kube_proxy(stage);
        }
        if wins && !self.groups.windows.is_empty() {
            self.wins_kube_proxy(stage);
        }
        self.kubeadm_linux_workers(stage);
        self.containerd_before(stage.release.minor);
        if !self.groups.windows.is_empty() {
            if wins {
                self.wins_windows_workers(stage);
            } else {
                self.kubeadm_windows_workers(stage, host_process);
            }
        }
        self.containerd_after(stage.release.minor, stage.last);
    }

    fn kubeadm_control_plane(&mut self, stage: &Stage) {
        let release = stage.release;
        let control_plane = self.groups.control_plane.clone();
        let mut step = Step::new(
            format!(
                "control plane to {} (kubeadm, one minor at a time)",
                stage.tag
            ),
            Action::InPlace,
            skew::KUBEADM_UPGRADE,
        )
        .nodes(&control_plane)
        .topics(&["kubeadm/kubeadm-config.yaml"])
        .command(self.render(stage));
        for (index, node) in control_plane.iter().enumerate() {
            step = step.command(if index == 0 {
                format!("on `{node}`: upgrade the kubeadm package to {release} (pkgs.k8s.io repository v1.{}), `kubeadm upgrade plan {}`, then `kubeadm upgrade apply {}`", release.minor, stage.tag, stage.tag)
            } else {
                format!("on `{node}`: upgrade the kubeadm package to {release}, then `kubeadm upgrade node`")
            });
        }
        for node in &control_plane {
            step = step.command(kubelet_upgrade(node, release));
        }
        self.state.set(Component::ApiServer, CONTROL_PLANE, release);
        self.state.set(Component::Kubelet, CONTROL_PLANE, release);
        // `kubeadm upgrade apply` moves the kube-proxy DaemonSet of the Linux nodes.
        for group in [CONTROL_PLANE, LINUX_WORKERS] {
            if self.state.get(Component::KubeProxy, group).is_some() {
                self.state.set(Component::KubeProxy, group, release);
            }
        }
        self.push_stage(stage, step);
    }

    /// The HostProcess kube-proxy image is per Kubernetes release: built and pushed before its
    /// DaemonSet names it.
    fn windows_kube_proxy(&mut self, stage: &Stage) {
        let out = self.out(stage);
        let step = Step::new(
            format!(
                "Windows kube-proxy to {}: its image built and pushed before its DaemonSet moves",
                stage.tag
            ),
            Action::Rerender,
            KUBE_PROXY_AFTER_CONTROL_PLANE,
        )
        .topics(&[
            "windows/kube-proxy-windows.yml",
            "windows/images/kube-proxy/",
            "windows/images/build.sh",
            "patches/kube-proxy",
        ])
        .command(format!(
            "sh {out}/windows/images/build.sh   # builds and pushes kube-proxy-windows {}",
            stage.tag
        ))
        .command(format!(
            "kubectl apply -f {out}/windows/kube-proxy-windows.yml"
        ));
        self.state.set(Component::KubeProxy, WINDOWS, stage.release);
        self.push_stage(stage, step);
    }

    /// The wins kube-proxy DaemonSet names sig-windows-tools' image of each Kubernetes release:
    /// applying the new render moves it.
    fn wins_kube_proxy(&mut self, stage: &Stage) {
        let out = self.out(stage);
        let step = Step::new(
            format!("Windows kube-proxy to {}", stage.tag),
            Action::Rerender,
            KUBE_PROXY_AFTER_CONTROL_PLANE,
        )
        .topics(&[wins::KUBE_PROXY_PATH, "patches/kube-proxy"])
        .command(format!("kubectl apply -f {out}/{}", wins::KUBE_PROXY_PATH));
        self.state.set(Component::KubeProxy, WINDOWS, stage.release);
        self.push_stage(stage, step);
    }

    /// A Windows node of the wins DaemonSets, as the Kubernetes docs' "Upgrading Windows nodes"
    /// has it: kubeadm.exe of the release, `kubeadm upgrade node`, then kubelet.exe with the
    /// service stopped (`PrepareNode.ps1` put both in `C:\k`).
    fn wins_windows_workers(&mut self, stage: &Stage) {
        let (release, windows) = (stage.release, self.groups.windows.clone());
        let mut step = Step::new(
            format!("Windows workers to {}", stage.tag),
            Action::InPlace,
            KUBEADM_WINDOWS_NODES,
        )
        .nodes(&windows);
        for node in &windows {
            step = step.commands(drained(node, format!(
                "on `{node}`: `curl.exe -fLo C:\\k\\kubeadm.exe https://dl.k8s.io/v{release}/bin/windows/amd64/kubeadm.exe`, `kubeadm upgrade node`, `Stop-Service kubelet`, `curl.exe -fLo C:\\k\\kubelet.exe https://dl.k8s.io/v{release}/bin/windows/amd64/kubelet.exe`, `Start-Service kubelet`"
            )));
        }
        self.state.set(Component::Kubelet, WINDOWS, release);
        self.push_stage(stage, step);
    }

    fn kubeadm_linux_workers(&mut self, stage: &Stage) {
        let (release, workers) = (stage.release, self.groups.linux_workers.clone());
        if workers.is_empty() {
            return;
        }
        let mut step = Step::new(
            format!("Linux workers to {}", stage.tag),
            Action::InPlace,
            KUBEADM_LINUX_NODES,
        )
        .nodes(&workers);
        for node in &workers {
            step = step.command(format!(
                "on `{node}`: upgrade the kubeadm package to {release}, then `kubeadm upgrade node`"
            ));
            step = step.command(kubelet_upgrade(node, release));
        }
        self.state.set(Component::Kubelet, LINUX_WORKERS, release);
        self.push_stage(stage, step);
    }

    fn kubeadm_windows_workers(&mut self, stage: &Stage, host_process: bool) {
        let (release, windows) = (stage.release, self.groups.windows.clone());
        let mut out = self.out(stage);
        let mut step = Step::new(
            format!("Windows workers to {}", stage.tag),
            Action::InPlace,
            KUBEADM_WINDOWS_NODES,
        )
        .nodes(&windows);
        // The spec's own render installs its containerd too: while containerd steps are left,
        // the kubelets move with the containerd they run now.
        if let (true, false, Some(containerd)) = (
            stage.last,
            self.hops.is_empty(),
            self.state.of(Component::Containerd).next(),
        ) {
            out = self.out_of(release.minor);
            step = step.without_files().command(format!(
                "render a copy of {} with `windows.containerd.version: \"{containerd}\"` into {out}",
                self.paths.spec
            ));
        }
        for node in &windows {
            step = step.commands(drained(node, if host_process {
                format!("on `{node}`: copy {out}/windows/{node}/ to the node and run `powershell -File join.ps1` again (it installs the {release} kubelet and restarts it)")
            } else {
                format!("on `{node}`: run KubeCluster.ps1 again with the {release} configuration")
            }));
        }
        self.state.set(Component::Kubelet, WINDOWS, release);
        if !host_process {
            self.state.set(Component::KubeProxy, WINDOWS, release);
        }
        self.push_stage(stage, step);
    }

    fn rke2_stage(&mut self, stage: &Stage) {
        let (tag, release) = (&stage.tag, stage.release);
        let groups = [
            (CONTROL_PLANE, self.groups.control_plane.clone(), "servers"),
            (
                LINUX_WORKERS,
                self.groups.linux_workers.clone(),
                "Linux agents",
            ),
            (WINDOWS, self.groups.windows.clone(), "Windows agents"),
        ];
        for (group, nodes, title) in groups {
            if nodes.is_empty() {
                continue;
            }
            let install = |node: &String| match group {
                CONTROL_PLANE => vec![format!(
                    "on `{node}`: curl -sfL https://get.rke2.io | INSTALL_RKE2_VERSION={tag} sh - && systemctl restart rke2-server"
                )],
                LINUX_WORKERS => vec![format!(
                    "on `{node}`: curl -sfL https://get.rke2.io | INSTALL_RKE2_VERSION={tag} INSTALL_RKE2_TYPE=agent sh - && systemctl restart rke2-agent"
                )],
                _ => drained(
                    node,
                    format!(
                        "on `{node}`: $env:INSTALL_RKE2_VERSION = \"{tag}\"; Invoke-WebRequest -Uri https://raw.githubusercontent.com/rancher/rke2/master/install.ps1 -OutFile install.ps1; ./install.ps1; Restart-Service rke2"
                    ),
                ),
            };
            let mut step = Step::new(
                format!("RKE2 {title} to {tag}, one at a time"),
                Action::InPlace,
                skew::RKE2_UPGRADE,
            )
            .nodes(&nodes)
            .commands(nodes.iter().flat_map(install));
            if group == CONTROL_PLANE {
                self.state.set(Component::ApiServer, CONTROL_PLANE, release);
                step = step.topics(&["rke2/manifests/"]);
            }
            // RKE2 runs kube-proxy as a static pod beside each node's kubelet.
            self.state.set(Component::Kubelet, group, release);
            self.state.set(Component::KubeProxy, group, release);
            self.push_stage(stage, step);
        }
    }

    fn rke_stage(&mut self, stage: &Stage) {
        let release = stage.release;
        let nodes = self.groups.all();
        let step = Step::new(
            format!("every node to {} with `rke up` (control plane first, then workers)", stage.tag),
            Action::InPlace,
            skew::RKE1_UPGRADE,
        )
        .nodes(&nodes)
        .topics(&["rke/"])
        .command(format!("set `kubernetes_version` in cluster.yml to the RKE system image of {} (`rke config --list-version --all`)", stage.tag))
        .command("rke up --config cluster.yml");
        let groups: Vec<&'static str> = self
            .state
            .running
            .iter()
            .map(|running| running.group)
            .collect();
        self.state.set(Component::ApiServer, CONTROL_PLANE, release);
        for group in groups {
            self.state.set(Component::Kubelet, group, release);
            self.state.set(Component::KubeProxy, group, release);
        }
        self.push_stage(stage, step);
    }

    /// The containerd hops the Windows kubelets of `minor` need before they move: until the line
    /// the nodes run is one the minor lists ("containerd before the kubelet that needs it").
    fn containerd_before(&mut self, minor: u32) {
        let row = kubernetes::resolve(&Release::new(1, minor, 0)).row;
        while !self.hops.is_empty()
            && !self
                .state
                .of(Component::Containerd)
                .next()
                .is_some_and(|running| lists(row, running))
        {
            self.pop_hop();
        }
    }

    /// The hops the Windows kubelets of `minor` run with, once they moved; all that are left
    /// after the last stage.
    fn containerd_after(&mut self, minor: u32, last: bool) {
        let row = kubernetes::resolve(&Release::new(1, minor, 0)).row;
        while let Some(&next) = self.hops.front() {
            if !last && !lists(row, next) {
                break;
            }
            self.pop_hop();
        }
    }

    fn pop_hop(&mut self) {
        if let Some(hop) = self.hops.pop_front() {
            self.containerd_step(hop);
        }
    }

    fn containerd_step(&mut self, to: Release) {
        let windows = self.groups.windows.clone();
        let from = self.state.of(Component::Containerd).next();
        let line = containerd::resolve(&to).row;
        let mut step = Step::new(
            format!(
                "containerd {} to {to} on the Windows nodes (one line at a time; config.toml version {})",
                from.map_or_else(|| "?".to_string(), |from| from.to_string()),
                line.config.version()
            ),
            Action::InPlace,
            containerd::UPGRADE_ONE_LINE_AT_A_TIME,
        )
        .nodes(&windows);
        // join.ps1 installs the kubelet of the render too: a containerd step renders the version
        // the Windows kubelets run now, so that it moves containerd alone.
        let kubelet = self.state.get(Component::Kubelet, WINDOWS);
        let new = self.context.new.plan;
        let final_render = windows_containerd(new) == Some(to)
            && kubelet == new.kubernetes_version.as_ref().ok().copied();
        step = if final_render {
            step.command(self.paths.render())
        } else {
            step.without_files().command(format!(
                "render a copy of {} with `kubernetes.version: \"{}\"` and `windows.containerd.version: \"{to}\"` into {}-containerd-{to}",
                self.paths.spec,
                kubelet.map_or_else(|| "?".to_string(), |kubelet| kubelet.to_string()),
                self.paths.out.trim_end_matches('/')
            ))
        };
        let crosses_line =
            from.is_some_and(|from| (from.major, from.minor) != (to.major, to.minor));
        for node in &windows {
            step = step.command(drain(node));
            if crosses_line {
                step = step.command(format!(
                    "on `{node}`: `ctr deprecations list` shows what {} no longer reads",
                    line.name()
                ));
            }
            step = step.command(format!(
                "on `{node}`: run `join.ps1` again (it installs containerd {to} and rewrites config.toml), then `kubectl uncordon {node}`"
            ));
        }
        self.state.set(Component::Containerd, WINDOWS, to);
        self.steps.push(step.versions(&self.state));
    }
}

/// Whether a Kubernetes minor lists a containerd release's line.
fn lists(row: &kubernetes::KubernetesRelease, containerd: Release) -> bool {
    row.containerd
        .iter()
        .any(|listed| (listed.major, listed.minor) == (containerd.major, containerd.minor))
}

fn kubelet_upgrade(node: &str, release: Release) -> String {
    format!(
        "on `{node}`: `kubectl drain {node} --ignore-daemonsets`, upgrade the kubelet and kubectl packages to {release}, `systemctl daemon-reload && systemctl restart kubelet`, `kubectl uncordon {node}`"
    )
}

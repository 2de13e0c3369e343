//! Which nodes stay and are upgraded, which leave before the upgrade and which join after it;
//! and the steps that move flannel and Windows updates on the nodes that stay.

use super::{Action, Paths, Step, drain, drained};
use crate::diagnostic::{Diagnostic, Rule};
use crate::plan::distribution::Distribution;
use crate::plan::releases::windows;
use crate::plan::{NodePlan, WindowsSetup};
use crate::render::kubeadm::windows::wins;
use crate::rules::change::{self as rules, ChangeContext};
use crate::spec::{Os, Role};

const DRAIN: &str = "https://kubernetes.io/docs/tasks/administer-cluster/safely-drain-node/";
const KUBEADM_JOIN: &str = "https://kubernetes.io/docs/reference/setup-tools/kubeadm/kubeadm-join/";
const RKE2_INSTALL: &str = "https://docs.rke2.io/install/quickstart";
const FLANNEL_WINDOWS: &str = "https://github.com/kubernetes-sigs/sig-windows-tools/issues/198";
const WINDOWS_UPDATES: &str =
    "https://learn.microsoft.com/en-us/windows/release-health/windows-server-release-info";

/// The staying nodes an upgrade moves, by the order they move in.
#[derive(Debug, Default, Clone)]
pub struct Groups {
    pub control_plane: Vec<String>,
    pub linux_workers: Vec<String>,
    pub windows: Vec<String>,
}

/// A node that leaves or joins, and why.
#[derive(Debug, Clone)]
struct Move {
    name: String,
    os: Os,
    control_plane: bool,
    action: Action,
    reason: String,
    rule: Option<&'static Rule>,
    source: &'static str,
}

#[derive(Debug, Default)]
pub struct Membership {
    leaving: Vec<Move>,
    joining: Vec<Move>,
    /// The staying nodes the version steps move.
    pub(crate) upgraded: Groups,
}

fn has(findings: &[Diagnostic], rule: &Rule) -> bool {
    findings.iter().any(|finding| finding.code() == rule.code)
}

fn is_control_plane(roles: &[Role]) -> bool {
    roles.contains(&Role::Controlplane) || roles.contains(&Role::Etcd)
}

impl Membership {
    /// Sorts the nodes of both sides; `findings` are the change rules' on this change.
    pub fn of(context: &ChangeContext, findings: &[Diagnostic]) -> Self {
        let windows_rejoin = windows_rejoin(findings);
        let mut membership = Membership::default();
        let staying = rules::staying_nodes(context);
        for (new_index, node) in context.new.plan.nodes.iter().enumerate() {
            let Some(&(old_index, _)) = staying.iter().find(|(_, new)| *new == new_index) else {
                membership.joining.push(arriving(context, new_index));
                continue;
            };
            match moving(context, old_index, new_index, windows_rejoin) {
                Some(change) => {
                    membership.leaving.push(change.clone());
                    membership.joining.push(change);
                }
                None => {
                    membership
                        .upgraded
                        .push(node.os, is_control_plane(&node.roles), &node.name)
                }
            }
        }
        membership.leaving.extend(gone(context));
        membership
    }

    /// Each leaving node drained and deleted, before any upgrade: a node that stayed behind would
    /// fall out of the skew policy.
    pub fn leave_steps(&self) -> Vec<Step> {
        self.leaving
            .iter()
            .map(|node| {
                let mut step = Step::new(
                    format!(
                        "take `{}` out of the cluster ({}) first",
                        node.name, node.reason
                    ),
                    node.action,
                    node.source,
                )
                .nodes(std::slice::from_ref(&node.name))
                .without_files()
                .command(drain(&node.name))
                .command(format!("kubectl delete node {}", node.name));
                step.rule = node.rule.map(|rule| rule.code);
                if node.control_plane {
                    step = step.command(
                        "a control-plane or etcd member: remove its etcd member first (`etcdctl member remove`)",
                    );
                }
                step
            })
            .collect()
    }

    /// Each joining node, at the new versions, after the upgrade.
    pub fn join_steps(&self, context: &ChangeContext, paths: &Paths) -> Vec<Step> {
        self.joining
            .iter()
            .map(|node| {
                let mut step = Step::new(
                    format!("join `{}` ({})", node.name, node.reason),
                    node.action,
                    node.source,
                )
                .nodes(std::slice::from_ref(&node.name))
                .command(paths.render());
                step.rule = node.rule.map(|rule| rule.code);
                if node.action == Action::ReplaceNode {
                    step = step.command(format!(
                        "install the host `{}` again with the operating system the spec names",
                        node.name
                    ));
                }
                step.commands(join_commands(context, node, &paths.out))
            })
            .collect()
    }
}

impl Move {
    fn of(
        node: &NodePlan,
        action: Action,
        reason: String,
        rule: Option<&'static Rule>,
        source: &'static str,
    ) -> Self {
        Move {
            name: node.name.clone(),
            os: node.os,
            control_plane: is_control_plane(&node.roles),
            action,
            reason,
            rule,
            source,
        }
    }
}

/// A node only the new spec has: added, or the new name of a renamed one.
fn arriving(context: &ChangeContext, new_index: usize) -> Move {
    let node = &context.new.plan.nodes[new_index];
    match rules::renamed_from(context, new_index) {
        Some(old_index) => Move::of(
            node,
            Action::DrainRejoin,
            format!("renamed from `{}`", context.old.plan.nodes[old_index].name),
            Some(&rules::NODE_RENAMED),
            "https://kubernetes.io/docs/concepts/architecture/nodes/#node-name-uniqueness",
        ),
        None => Move::of(
            node,
            Action::Join,
            "added".into(),
            None,
            join_source(context),
        ),
    }
}

/// How a node both specs have must leave and join again, if it must: a new Windows build, the
/// Windows nodes' setup or network, or a pod subnet the spec moves.
fn moving(
    context: &ChangeContext,
    old_index: usize,
    new_index: usize,
    windows_rejoin: Option<WindowsRejoin>,
) -> Option<Move> {
    let node = &context.new.plan.nodes[new_index];
    if let Some((before, after)) = rules::windows_build_change(context, old_index, new_index) {
        return Some(Move::of(
            node,
            Action::ReplaceNode,
            format!("{} to {}", windows::name(before), windows::name(after)),
            Some(&rules::WINDOWS_BUILD_CHANGED),
            "https://learn.microsoft.com/en-us/virtualization/windowscontainers/deploy-containers/version-compatibility",
        ));
    }
    if node.os == Os::Windows
        && let Some((action, rule, source, reason)) = windows_rejoin
    {
        return Some(Move::of(node, action, reason.into(), Some(rule), source));
    }
    rules::pod_cidr_move(context, old_index, new_index).map(|(before, after)| {
        Move::of(
            node,
            Action::DrainRejoin,
            format!("pod subnet {before} to {after}"),
            Some(&rules::POD_CIDR_MOVED),
            "https://github.com/kubernetes/kubernetes/issues/71794",
        )
    })
}

/// The nodes only the old spec has: removed, or the old name of a renamed one.
fn gone(context: &ChangeContext) -> Vec<Move> {
    let (old_nodes, new_nodes) = (&context.old.plan.nodes, &context.new.plan.nodes);
    old_nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| !new_nodes.iter().any(|new| new.name == node.name))
        .map(|(old_index, node)| {
            let renamed = (0..new_nodes.len())
                .any(|new_index| rules::renamed_from(context, new_index) == Some(old_index));
            let (action, reason, rule) = if renamed {
                (Action::DrainRejoin, "renamed", Some(&rules::NODE_RENAMED))
            } else {
                (Action::Remove, "removed", None)
            };
            Move::of(node, action, reason.into(), rule, DRAIN)
        })
        .collect()
}

impl Groups {
    fn push(&mut self, os: Os, control_plane: bool, name: &str) {
        let group = match (os, control_plane) {
            (Os::Windows, _) => &mut self.windows,
            (Os::Linux, true) => &mut self.control_plane,
            (Os::Linux, false) => &mut self.linux_workers,
        };
        group.push(name.to_string());
    }

    pub fn all(&self) -> Vec<String> {
        [&self.control_plane, &self.linux_workers, &self.windows]
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    }
}

/// When every Windows node must leave and join again: the class, rule, source and reason.
type WindowsRejoin = (Action, &'static Rule, &'static str, &'static str);

fn windows_rejoin(findings: &[Diagnostic]) -> Option<WindowsRejoin> {
    [
        (
            Action::ReplaceNode,
            &rules::KUBECLUSTER_TO_HOSTPROCESS,
            "https://github.com/openshift/enhancements/pull/962",
            "KubeCluster.ps1 to HostProcess",
        ),
        (
            Action::ReplaceNode,
            &rules::DOCKERSHIM_TO_CONTAINERD,
            "https://github.com/MicrosoftDocs/azure-docs/issues/87523",
            "dockerd to containerd",
        ),
        (
            Action::DrainRejoin,
            &rules::WINDOWS_NETWORK_RENAMED,
            FLANNEL_WINDOWS,
            "the HNS network is renamed",
        ),
    ]
    .into_iter()
    .find(|(_, rule, _, _)| has(findings, rule))
}

fn join_source(context: &ChangeContext) -> &'static str {
    match context.new.plan.distribution.distribution {
        Distribution::Kubeadm => KUBEADM_JOIN,
        Distribution::Rke2 => RKE2_INSTALL,
        Distribution::Rke => {
            "https://ranchermanager.docs.rancher.com/how-to-guides/new-user-guides/launch-kubernetes-with-rancher/use-windows-clusters"
        }
    }
}

fn join_commands(context: &ChangeContext, node: &Move, out: &str) -> Vec<String> {
    let name = &node.name;
    match (context.new.plan.distribution.distribution, node.os) {
        (Distribution::Kubeadm, Os::Linux) if node.control_plane => vec![
            "on a control-plane node: `kubeadm token create --print-join-command`, then `kubeadm init phase upload-certs --upload-certs` for the certificate key".into(),
            format!("on `{name}`: the printed `kubeadm join` with `--control-plane --certificate-key KEY`"),
        ],
        (Distribution::Kubeadm, Os::Linux) => vec![format!(
            "on `{name}`: sh {out}/kubeadm/{name}/join.sh"
        )],
        (Distribution::Kubeadm, Os::Windows) => match context.new.plan.windows_setup {
            Some(WindowsSetup::KubeCluster) => vec![format!(
                "on `{name}`: copy {out}/windows/{name}/ and run KubeCluster.ps1 with its configuration"
            )],
            // No per-node file: the DaemonSets reach the node once it has joined.
            Some(WindowsSetup::WinsDaemonSets) => vec![format!(
                "on `{name}`: run sig-windows-tools' PrepareNode.ps1 with `-ContainerRuntime Docker`, then the `kubeadm join` of `kubeadm token create --print-join-command` ({out}/README.md shows both)"
            )],
            _ => vec![format!(
                "on `{name}`: copy {out}/windows/{name}/ to the node and run `powershell -File join.ps1` (with KUBEADM_TOKEN and KUBEADM_CA_HASH set)"
            )],
        },
        (Distribution::Rke2, Os::Linux) => vec![format!(
            "on `{name}`: sh {out}/rke2/{name}/install.sh (with RKE2_TOKEN set)"
        )],
        (Distribution::Rke2, Os::Windows) => vec![format!(
            "on `{name}`: copy {out}/rke2/{name}/ to the node and run `powershell -File install.ps1` (with RKE2_TOKEN set)"
        )],
        (Distribution::Rke, _) => vec![format!(
            "register `{name}` with the node command Rancher shows for the cluster"
        )],
    }
}

/// flannel on Linux and Windows together: an outage window when its VXLAN identity or backend
/// changes (HG704, HG705), else one step when only its release moves.
pub fn flannel_steps(
    context: &ChangeContext,
    findings: &[Diagnostic],
    membership: &Membership,
    paths: &Paths,
) -> Vec<Step> {
    const TOPICS: [&str; 7] = [
        "kube-flannel.yml",
        "windows/images/build.sh",
        "windows/kube-flannel-windows.yml",
        wins::FLANNEL_PATH,
        "windows/images/flannel/",
        "patches/kube-flannel",
        "rke2/manifests/rke2-flannel",
    ];
    let (old, new) = (&context.old.plan.flannel, &context.new.plan.flannel);
    let step = |title: String, action: Action, source: &'static str| {
        Step::new(title, action, source)
            .nodes(&membership.upgraded.all())
            .topics(&TOPICS)
            .command(paths.render())
            .commands(flannel_apply(context, &paths.out))
    };
    let outage = [&rules::BACKEND_CHANGED, &rules::VXLAN_IDENTITY_CHANGED]
        .into_iter()
        .find(|rule| has(findings, rule));
    if let Some(rule) = outage {
        // The name is the spec's text: quoted as PowerShell reads a single-quoted string.
        let quoted = old.network_name.replace('\'', "''");
        let title = format!(
            "outage window, every node at once: flannel {} VNI {} port {} becomes {} VNI {} port {}",
            old.backend.as_str(),
            old.vni,
            old.port,
            new.backend.as_str(),
            new.vni,
            new.port
        );
        // Under the wins DaemonSets flanneld creates the network again when its pod restarts.
        let again = match context.new.plan.windows_setup {
            Some(WindowsSetup::WinsDaemonSets) => "delete its `kube-flannel-ds-windows-amd64` pod",
            _ => "run its join script again",
        };
        return vec![step(title, Action::InPlace, "https://github.com/flannel-io/flannel/blob/master/Documentation/backends.md")
            .rule(rule)
            .command(format!(
                "on each Windows node: remove the HNS network `{}` (`Get-HnsNetwork | Where-Object Name -eq '{quoted}' | Remove-HnsNetwork`) and {again}",
                old.network_name
            ))];
    }
    let (Ok(before), Ok(after)) = (&old.version, &new.version) else {
        return Vec::new();
    };
    if before == after || context.new.plan.distribution.ships_flannel {
        return Vec::new();
    }
    let title = format!(
        "flannel v{before} to v{after} on Linux and Windows together; VNI {}, port {} and network `{}` unchanged",
        new.vni, new.port, new.network_name
    );
    vec![step(title, Action::Rerender, FLANNEL_WINDOWS)]
}

fn flannel_apply(context: &ChangeContext, out: &str) -> Vec<String> {
    let plan = context.new.plan;
    match plan.distribution.distribution {
        Distribution::Kubeadm => {
            let linux = format!("kubectl apply -f {out}/kube-flannel.yml");
            match plan.windows_setup.filter(|_| plan.has_windows()) {
                Some(WindowsSetup::HostProcess) => vec![
                    format!(
                        "sh {out}/windows/images/build.sh   # builds and pushes the flannel-windows image first"
                    ),
                    linux,
                    format!("kubectl apply -f {out}/windows/kube-flannel-windows.yml"),
                ],
                // The Windows DaemonSet names the sigwindowstools image of the flannel release.
                Some(WindowsSetup::WinsDaemonSets) => vec![
                    linux,
                    format!("kubectl apply -f {out}/{}", wins::FLANNEL_PATH),
                ],
                Some(WindowsSetup::KubeCluster) | None => vec![linux],
            }
        }
        Distribution::Rke2 => vec![format!(
            "kubectl apply -f {out}/rke2/manifests/rke2-flannel-config.yaml"
        )],
        Distribution::Rke => {
            vec!["update the network options in Rancher (RKE1) and run `rke up`".into()]
        }
    }
}

/// A newer revision of the same Windows build: the update is installed in place.
pub fn windows_update_steps(context: &ChangeContext, membership: &Membership) -> Vec<Step> {
    rules::staying_nodes(context)
        .into_iter()
        .filter_map(|(old_index, new_index)| {
            let node = &context.new.plan.nodes[new_index];
            if !membership.upgraded.windows.contains(&node.name) {
                return None;
            }
            let before = rules::windows_build_of(&context.old.plan.nodes[old_index])?;
            let after = rules::windows_build_of(node)?;
            (before != after).then(|| {
                Step::new(
                    format!("install the Windows update that brings `{}` from {before} to {after}", node.name),
                    Action::InPlace,
                    WINDOWS_UPDATES,
                )
                .nodes(std::slice::from_ref(&node.name))
                .commands(drained(&node.name, "install the cumulative update (Windows Update or `wusa.exe`), then `Restart-Computer`".into()))
            })
        })
        .collect()
}

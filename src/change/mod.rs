//! Change plans: what it takes to move a running cluster from one spec to another. The two
//! resolved plans are compared ([`crate::rules::change`] says what cannot change in place), the
//! versions are moved in legal steps ([`versions`], under the skew policy of
//! [`crate::plan::releases::skew`]), nodes leave and join ([`membership`]), and the two renders
//! are compared in memory ([`files`]) so that each step names the files it applies.
//!
//! Order, for every change: nodes that leave go first (drained and deleted before any upgrade, so
//! no kubelet is left behind the skew), then each minor's control plane, kube-proxy, Linux
//! workers, containerd and Windows workers, then flannel on Linux and Windows together, then the
//! nodes that join, at the new versions, and last what else the render changed.

pub mod files;
pub mod live;
pub mod membership;
pub mod versions;

use crate::diagnostic::Diagnostic;
use crate::plan::Plan;
use crate::plan::version::Release;
use crate::rules::Context;
use crate::rules::change::{self as change_rules, ChangeContext};
use crate::spec::Spec;
use files::FileChanges;

/// How disruptive a step is, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Action {
    /// Nothing on the cluster changes.
    NoAction,
    /// Render again and apply manifests; no node is touched by hand.
    Rerender,
    /// On the node, in place: binaries and configuration replaced (`join.ps1` or `install.ps1`
    /// run again, `kubeadm upgrade node`), drained while the kubelet restarts.
    InPlace,
    /// The Node object is deleted and the same host joins again.
    DrainRejoin,
    /// A node leaves for good (drained and deleted).
    Remove,
    /// A new node joins.
    Join,
    /// The host is installed again (or a new one takes its place) and joins.
    ReplaceNode,
    /// A new cluster, and the workloads moved to it.
    RebuildCluster,
}

impl Action {
    /// The words reports show, and the stable name machine formats carry.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Action::NoAction => ("no action", "no-action"),
            Action::Rerender => ("re-render and apply", "rerender"),
            Action::InPlace => ("in place on the node", "in-place"),
            Action::DrainRejoin => ("drain and rejoin", "drain-rejoin"),
            Action::Remove => ("drain and remove", "remove"),
            Action::Join => ("join", "join"),
            Action::ReplaceNode => ("replace the node", "replace-node"),
            Action::RebuildCluster => ("rebuild the cluster", "rebuild-cluster"),
        }
    }

    /// The words reports show.
    pub fn as_str(self) -> &'static str {
        self.names().0
    }

    /// The stable name machine formats carry.
    pub fn key(self) -> &'static str {
        self.names().1
    }
}

/// What a component runs after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Component {
    ApiServer,
    Kubelet,
    KubeProxy,
    Containerd,
}

/// One component of one group of nodes at a version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Running {
    pub component: Component,
    /// Which nodes: `control plane`, `Linux workers`, `Windows`.
    pub group: &'static str,
    pub version: Release,
}

/// The versions the cluster runs after a step: what the skew policy is checked against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionState {
    pub running: Vec<Running>,
}

impl VersionState {
    pub fn apiserver(&self) -> Option<Release> {
        self.of(Component::ApiServer).next()
    }

    /// Every version of one component.
    pub fn of(&self, component: Component) -> impl Iterator<Item = Release> + '_ {
        self.running
            .iter()
            .filter(move |running| running.component == component)
            .map(|running| running.version)
    }

    /// The version of one component on one group of nodes.
    pub(crate) fn get(&self, component: Component, group: &str) -> Option<Release> {
        self.running
            .iter()
            .find(|running| running.component == component && running.group == group)
            .map(|running| running.version)
    }

    pub(crate) fn set(&mut self, component: Component, group: &'static str, version: Release) {
        match self
            .running
            .iter_mut()
            .find(|running| running.component == component && running.group == group)
        {
            Some(running) => running.version = version,
            None => self.running.push(Running {
                component,
                group,
                version,
            }),
        }
    }
}

/// One step of a change plan.
#[derive(Debug, Clone)]
pub struct Step {
    pub title: String,
    pub action: Action,
    pub nodes: Vec<String>,
    /// The rendered files that change and belong to this step.
    pub files: Vec<String>,
    pub commands: Vec<String>,
    /// The public source of the rule the step follows.
    pub source: &'static str,
    /// The change rule that classifies it, when one does.
    pub rule: Option<&'static str>,
    /// The versions the cluster runs once the step is done (version steps only).
    pub versions: Option<VersionState>,
    /// Which rendered paths belong to the step besides those naming its nodes: path prefixes.
    topics: Vec<&'static str>,
    /// Whether rendered files belong to it at all (a node taken out applies none).
    takes_files: bool,
}

impl Step {
    pub(crate) fn new(title: impl Into<String>, action: Action, source: &'static str) -> Self {
        Step {
            title: title.into(),
            action,
            nodes: Vec::new(),
            files: Vec::new(),
            commands: Vec::new(),
            source,
            rule: None,
            versions: None,
            topics: Vec::new(),
            takes_files: true,
        }
    }

    pub(crate) fn nodes(mut self, nodes: &[String]) -> Self {
        self.nodes = nodes.to_vec();
        self
    }

    pub(crate) fn command(mut self, command: impl Into<String>) -> Self {
        self.commands.push(command.into());
        self
    }

    pub(crate) fn commands(mut self, commands: impl IntoIterator<Item = String>) -> Self {
        self.commands.extend(commands);
        self
    }

    pub(crate) fn rule(mut self, rule: &'static crate::diagnostic::Rule) -> Self {
        self.rule = Some(rule.code);
        self
    }

    pub(crate) fn topics(mut self, topics: &[&'static str]) -> Self {
        self.topics.extend_from_slice(topics);
        self
    }

    pub(crate) fn without_files(mut self) -> Self {
        self.takes_files = false;
        self
    }

    pub(crate) fn versions(mut self, state: &VersionState) -> Self {
        self.versions = Some(state.clone());
        self
    }

    /// Whether a rendered path belongs to this step: under one of its topics, or in a folder
    /// named after one of its nodes.
    fn owns(&self, path: &str) -> bool {
        self.takes_files
            && (self.topics.iter().any(|topic| path.starts_with(topic))
                || path
                    .split('/')
                    .any(|segment| self.nodes.iter().any(|node| node == segment)))
    }
}

/// One side of the change: a spec and its plan.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
}

/// Where the commands a plan prints read and write: the new spec's path and `render`'s folder.
#[derive(Debug, Clone)]
pub struct Paths {
    pub spec: String,
    pub out: String,
}

impl Paths {
    /// The command that renders the new spec into `render`'s folder.
    pub(crate) fn render(&self) -> String {
        format!("hybridgen render {} --out {}", self.spec, self.out)
    }
}

/// The command that drains a node before it is worked on.
pub(crate) fn drain(node: &str) -> String {
    format!("kubectl drain {node} --ignore-daemonsets --delete-emptydir-data")
}

/// `work` on a node, between draining it and letting pods back onto it.
pub(crate) fn drained(node: &str, work: String) -> Vec<String> {
    vec![drain(node), work, format!("kubectl uncordon {node}")]
}

/// The change plan: findings on the new spec, the ordered steps, and what the render changes.
#[derive(Debug)]
pub struct ChangePlan {
    pub steps: Vec<Step>,
    /// What the old side could not say (a live cluster's unread fields), for the reader.
    pub notes: Vec<String>,
    pub findings: Vec<Diagnostic>,
    pub files: FileChanges,
}

impl ChangePlan {
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(Diagnostic::is_error)
    }
}

/// The rules whose finding makes the change a new cluster.
const REBUILDS: [&crate::diagnostic::Rule; 4] = [
    &change_rules::CLUSTER_CIDR_CHANGED,
    &change_rules::SERVICE_CIDR_CHANGED,
    &change_rules::NODE_MASK_CHANGED,
    &change_rules::DISTRIBUTION_CHANGED,
];

/// The change from `old` to `new`.
pub fn plan(old: Side, new: Side, paths: &Paths) -> ChangePlan {
    let context = ChangeContext {
        old: Context {
            spec: old.spec,
            plan: old.plan,
        },
        new: Context {
            spec: new.spec,
            plan: new.plan,
        },
    };
    let mut findings = change_rules::run(&context);
    let files = files::compare(old, new);
    let steps = steps(&context, &mut findings, &files, paths);
    ChangePlan {
        steps,
        notes: Vec::new(),
        findings,
        files,
    }
}

/// The ordered steps of the change.
fn steps(
    context: &ChangeContext,
    findings: &mut Vec<Diagnostic>,
    files: &FileChanges,
    paths: &Paths,
) -> Vec<Step> {
    // Node names are written into the commands the plan prints: one that is no DNS label (HG007)
    // could be anything a shell reads, so no command is printed for a spec that has one.
    if let Some(name) = [&context.old, &context.new]
        .iter()
        .flat_map(|side| &side.plan.nodes)
        .map(|node| node.name.as_str())
        .find(|name| !crate::spec::names::is_dns_label(name))
    {
        let step = Step::new(
            format!(
                "no change plan: the node name `{}` is not a DNS-1123 label (HG007), and the plan's commands would carry it",
                crate::escape::bounded(name, 80)
            ),
            Action::NoAction,
            "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-label-names",
        )
        .without_files();
        return vec![step];
    }
    let rebuild = findings
        .iter()
        .find(|finding| REBUILDS.iter().any(|rule| finding.code() == rule.code));
    let (mut steps, joins) = match rebuild {
        Some(first) => (
            vec![rebuild_step(context.new.plan, first, paths)],
            Vec::new(),
        ),
        None => match in_place(context, findings, paths) {
            Ok(steps) => steps,
            // No plan: nothing is applied either.
            Err(blocked) => return vec![*blocked],
        },
    };
    let before_joins = steps.len();
    steps.extend(joins);
    // The rest of the render (node-selector patches, DaemonSets, routes) is applied before new
    // nodes join, so that they come up into the cluster as the spec describes it.
    if let Some(rest) = assign_files(&mut steps, files, paths) {
        steps.insert(before_joins, rest);
    }
    if steps.is_empty() {
        steps.push(Step::new(
            "nothing to do: the two specs plan and render the same cluster",
            Action::NoAction,
            "https://kubernetes.io/docs/reference/kubectl/generated/kubectl_diff/",
        ));
    }
    steps
}

/// The steps of a change the cluster can make: those before the new nodes join, and the joins;
/// or the one step saying why a version cannot be reached in legal steps (no plan then).
fn in_place(
    context: &ChangeContext,
    findings: &mut Vec<Diagnostic>,
    paths: &Paths,
) -> Result<(Vec<Step>, Vec<Step>), Box<Step>> {
    let membership = membership::Membership::of(context, findings);
    let mut steps = membership.leave_steps();
    let (version_steps, version_findings) = versions::steps(context, &membership.upgraded, paths);
    let blocked = version_findings
        .iter()
        .find(|finding| finding.is_error())
        .map(|blocked| {
            Step::new(
                format!("no change plan: {}", blocked.message),
                Action::NoAction,
                blocked_source(blocked),
            )
            .rule(blocked.rule)
            .without_files()
        });
    findings.extend(version_findings);
    if let Some(blocked) = blocked {
        return Err(Box::new(blocked));
    }
    steps.extend(version_steps);
    steps.extend(membership::flannel_steps(
        context,
        findings,
        &membership,
        paths,
    ));
    steps.extend(membership::windows_update_steps(context, &membership));
    Ok((steps, membership.join_steps(context, paths)))
}

/// The public source of a finding that leaves no plan.
fn blocked_source(finding: &Diagnostic) -> &'static str {
    use crate::plan::releases::{containerd, kubernetes, skew};
    match finding.code() {
        code if code == change_rules::CONTAINERD_DOWNGRADE.code
            || code == change_rules::CONTAINERD_LINE_UNKNOWN.code =>
        {
            containerd::UPGRADE_ONE_LINE_AT_A_TIME
        }
        code if code == change_rules::UPGRADE_RELEASE_UNAVAILABLE.code => skew::RKE2_UPGRADE,
        code if code == change_rules::KUBERNETES_OUTSIDE_TABLE.code => kubernetes::RELEASES_PAGE,
        _ => skew::KUBEADM_UPGRADE,
    }
}

fn rebuild_step(new: &Plan, finding: &Diagnostic, paths: &Paths) -> Step {
    let names: Vec<String> = new.nodes.iter().map(|node| node.name.clone()).collect();
    let source = match finding.code() {
        code if code == change_rules::DISTRIBUTION_CHANGED.code => {
            "https://github.com/rancher/rke2/issues/562"
        }
        _ => "https://github.com/kubernetes/kubernetes/issues/71794",
    };
    Step::new(
        format!("build a new cluster from the new spec ({})", finding.message),
        Action::RebuildCluster,
        source,
    )
    .nodes(&names)
    .rule(finding.rule)
    .command(paths.render())
    .command("create the new cluster on new hosts with the rendered files, move the workloads, then retire the old cluster")
    .topics(&[""])
}

/// Gives each changed file to the steps that apply it; what no step takes makes a step that
/// renders and applies it, returned to be placed.
fn assign_files(steps: &mut [Step], files: &FileChanges, paths: &Paths) -> Option<Step> {
    let mut rest = Vec::new();
    for path in files.changed_paths() {
        let mut taken = false;
        for step in steps.iter_mut().filter(|step| step.owns(path)) {
            step.files.push(path.to_string());
            taken = true;
        }
        if !taken {
            rest.push(path.to_string());
        }
    }
    if rest.is_empty() {
        return None;
    }
    let mut step = Step::new(
        "render again and apply the other changed files",
        Action::Rerender,
        "https://kubernetes.io/docs/reference/kubectl/generated/kubectl_apply/",
    )
    .command(paths.render())
    .commands(
        rest.iter()
            .filter(|path| is_manifest(path))
            .map(|path| format!("kubectl apply -f {}/{path}", paths.out)),
    );
    if rest.iter().any(|path| path == "patches/apply.sh") {
        step = step.command(format!("sh {}/patches/apply.sh", paths.out));
    }
    step.files = rest;
    Some(step)
}

/// Kubernetes manifests `render` writes at the top of its folder or under `windows/`.
fn is_manifest(path: &str) -> bool {
    (path.ends_with(".yml") || path.ends_with(".yaml"))
        && !path.contains("kubeadm")
        && !path.starts_with("rke")
        && path.matches('/').count() <= 1
}

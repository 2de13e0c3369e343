//! `hybridgen verify`: the plan against what the cluster runs, as kubectl captured it. The stage
//! beside `plan`: `kubectl` knows the capture commands (printed, or run through the user's own
//! kubectl), `capture` reads the files into objects, `crate::live` reads the objects into what the
//! checks compare, and `rules::live` compares; the findings are reported like `plan`'s, in every
//! format. [`observe`] is that reading, whole: `verify` and `render --cluster` both go through it.

pub mod capture;
pub mod kubectl;
mod prune;

use crate::diagnostic::{Diagnostic, key};
use crate::escape;
use crate::live::{self, Live, LiveCluster, Matching, match_nodes};
use crate::plan::Plan;
use crate::rules;
use crate::rules::live::RenderedRoutes;
use crate::spec::Spec;
use std::path::{Path, PathBuf};

/// One capture: what it reads, the file it is saved to, and the `kubectl` arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    pub file: &'static str,
    pub args: Vec<String>,
    /// Objects a cluster may lack (kubeadm's ConfigMaps on k3s or RKE2): captured with
    /// `--ignore-not-found`, so that an absent one leaves an empty file.
    pub optional: bool,
}

impl Capture {
    /// The command line, as a user types it.
    pub fn command_line(&self) -> String {
        format!("kubectl {}", self.args.join(" "))
    }

    /// The command line saving to `file` under `dir`.
    pub fn saved_to(&self, dir: &str) -> String {
        format!("{} > {dir}/{}", self.command_line(), self.file)
    }
}

/// Where the cluster is read from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// Files or directories kubectl captured.
    Files(&'a [PathBuf]),
    /// kubectl (a path, or a name looked up on `PATH`), run here through its current context,
    /// within its limits.
    Kubectl(&'a Path, kubectl::Limits),
}

/// The cluster as the captures show it.
pub struct Observed {
    /// The captures, with their own findings (HG509).
    pub captured: capture::Captured,
    pub cluster: LiveCluster,
    /// Which live node each planned node is.
    pub matching: Matching,
}

/// Reads the cluster: the files, or what kubectl prints, as captures (HG509 for what is none),
/// then the live model, then which live node each planned node is. `Err` when a file cannot be
/// read or kubectl fails: then nothing was read.
pub fn observe(
    source: Source,
    plan: &Plan,
    annotation_prefix: Option<&str>,
) -> Result<Observed, String> {
    let inputs = match source {
        Source::Files(paths) => capture::gather(paths)?,
        Source::Kubectl(kubectl, limits) => kubectl::capture_all(kubectl, plan, limits)?,
    };
    Ok(read(inputs, plan, annotation_prefix))
}

/// The captures read, the live model built from them, and the nodes matched. A captured value of
/// the wrong type or shape is a finding (HG509) in its capture.
pub fn read(inputs: Vec<capture::Input>, plan: &Plan, annotation_prefix: Option<&str>) -> Observed {
    let mut captured = capture::read(inputs, &kubectl::captures(plan));
    let cluster = live::cluster::read(&captured.objects, plan, annotation_prefix);
    for problem in &cluster.unreadable {
        let named =
            |capture: &&mut capture::CaptureFile| capture.file.source.name() == problem.file;
        if let Some(capture) = captured.files.iter_mut().find(named) {
            capture.diagnostics.push(unreadable_value(problem));
        }
    }
    let matching = match_nodes(plan, &cluster);
    Observed {
        captured,
        cluster,
        matching,
    }
}

/// A cluster always has nodes: captures without any compare none of the plan's.
fn no_nodes_captured(plan: &Plan) -> Diagnostic {
    Diagnostic::new(
        &rules::live::CAPTURE_UNREADABLE,
        key("/nodes"),
        match plan.nodes.len() {
            1 => "no capture holds a Node, so the planned node cannot be compared".to_string(),
            planned => {
                format!("no capture holds a Node, so none of the {planned} planned nodes can be compared")
            }
        },
    )
    .label("planned nodes")
    .help("capture them with `kubectl get nodes -o json > nodes.json`")
}

/// A cluster always runs DaemonSets (kube-proxy, flannel) and pods (CoreDNS): captures without
/// any of one kind mean a capture failed or was left out, whatever the files are named.
fn required_kind_missing(kind: &str, command: &str) -> Diagnostic {
    Diagnostic::new(
        &rules::live::CAPTURE_UNREADABLE,
        key("/nodes"),
        format!(
            "no capture holds a {kind}, which every cluster runs: a capture failed or was left out, so nothing about them is compared"
        ),
    )
    .label("planned nodes")
    .help(format!("capture them with `{command}`"))
}

/// A captured value of the wrong type or shape, as a finding in its capture.
fn unreadable_value(problem: &live::Unreadable) -> Diagnostic {
    Diagnostic::new(
        &rules::live::CAPTURE_UNREADABLE,
        crate::diagnostic::value(problem.pointer.clone()),
        problem.message.clone(),
    )
    .label("not comparable")
    .help("capture the object again with `kubectl get ... -o json`; a value of this type is not what the API server returns")
}

/// What a comparison found, and what it compared.
pub struct Comparison {
    /// Every HG5xx finding about the plan; the captures' own (HG509) are in
    /// `capture::Captured::files`.
    pub diagnostics: Vec<Diagnostic>,
    /// What was compared, and what was absent and so not compared.
    pub compared: Vec<String>,
    pub not_compared: Vec<String>,
}

/// Compares the plan with the cluster.
pub fn compare(spec: &Spec, plan: &Plan, observed: &Observed) -> Comparison {
    compare_with_rendered(spec, plan, observed, None)
}

/// Compares the plan with the cluster, and with `rendered` (`verify --out DIR`) the pod subnets
/// of the routes in DIR with the cluster's.
pub fn compare_with_rendered(
    spec: &Spec,
    plan: &Plan,
    observed: &Observed,
    rendered: Option<&RenderedRoutes>,
) -> Comparison {
    let Observed {
        cluster, matching, ..
    } = observed;
    let mut diagnostics = rules::run_live(&rules::live::LiveContext {
        spec,
        plan,
        cluster,
        matching,
        rendered,
    });
    if cluster.nodes.is_empty() {
        diagnostics.push(no_nodes_captured(plan));
    }
    if cluster.daemonsets.is_empty() {
        diagnostics.push(required_kind_missing(
            "DaemonSet",
            "kubectl get daemonsets -A -o json > daemonsets.json",
        ));
    }
    if !cluster.captured_pods {
        diagnostics.push(required_kind_missing(
            "Pod",
            "kubectl get pods -A -o json > pods.json",
        ));
    }
    let mut compared = Vec::new();
    let mut not_compared = Vec::new();
    if !cluster.nodes.is_empty() {
        compared.push(nodes_found(plan, observed));
    }
    let configurations = [
        (configuration(&cluster.net_conf), "flannel's net-conf.json"),
        (
            configuration(&cluster.cluster_configuration),
            "kubeadm's ClusterConfiguration",
        ),
        (
            configuration(&cluster.kube_proxy),
            "kube-proxy's configuration",
        ),
        (
            configuration(&cluster.kubelet),
            "the kubelet's configuration",
        ),
        (
            cluster.server_args.as_ref().map(|_| Ok(())),
            "the server's node-args",
        ),
        (
            (!cluster.helm_charts.is_empty()).then_some(Ok(())),
            "RKE2's HelmCharts",
        ),
        (
            configuration(&cluster.rke2_flannel_values),
            "the rke2-flannel HelmChartConfig",
        ),
    ];
    // Present and read: compared. Absent: in the cluster's notes. Captured but unreadable: not
    // compared, and its finding says why.
    for (read, what) in configurations {
        match read {
            Some(Ok(())) => compared.push(what.to_string()),
            Some(Err(problem)) => {
                not_compared.push(format!("{what}: {} ({})", problem.value, problem.source));
            }
            None => {}
        }
    }
    if !cluster.daemonsets.is_empty() {
        compared.push(format!("{} DaemonSets", cluster.daemonsets.len()));
    }
    if !cluster.pods.is_empty() {
        compared.push(format!("{} pods on the pod network", cluster.pods.len()));
    }
    if let Some(rendered) = rendered.filter(|_| plan.external_routes(spec.provider()).is_some()) {
        compared.push(rendered_routes(plan, observed, rendered));
    }
    not_compared.extend(cluster.notes.iter().cloned());
    if !cluster.unreadable.is_empty() {
        let count = cluster.unreadable.len();
        not_compared.push(if count == 1 {
            "1 captured value of the wrong type or shape (HG509 in its capture)".to_string()
        } else {
            format!("{count} captured values of the wrong type or shape (HG509 in their captures)")
        });
    }
    Comparison {
        diagnostics,
        compared,
        not_compared,
    }
}

/// `--out DIR`: how many joined nodes have the pod subnet the routes in DIR were rendered from.
fn rendered_routes(plan: &Plan, observed: &Observed, rendered: &RenderedRoutes) -> String {
    let live = observed.matching.pod_subnets(&observed.cluster);
    let Some(source) = &rendered.source else {
        return format!(
            "the routes in `{}`, rendered without the cluster (predicted pod subnets)",
            rendered.out
        );
    };
    let mut joined = 0;
    let mut agree = 0;
    for (node, live) in plan.nodes.iter().zip(&live) {
        let (Some(live), Some(predicted)) = (live, node.pod_subnet) else {
            continue;
        };
        joined += 1;
        if rendered.routed(&node.name, predicted) == *live {
            agree += 1;
        }
    }
    format!(
        "the routes in `{}` were rendered from pod subnets {source}: {agree} of {joined} joined nodes have them",
        rendered.out
    )
}

/// How many planned nodes the captured ones hold: among the cluster's nodes when they were
/// captured as the node list, else among the single Node objects captured.
fn nodes_found(plan: &Plan, observed: &Observed) -> String {
    let found = observed.matching.live_of.iter().flatten().count();
    let planned = plan.nodes.len();
    let live = observed.cluster.nodes.len();
    let among = if observed.cluster.all_nodes {
        format!("the cluster's {live}")
    } else {
        format!("{live} captured Node object{}", plural(live))
    };
    format!(
        "{found} of {planned} planned node{} found among {among}",
        plural(planned)
    )
}

/// The ending of a noun counted `n` times.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Whether a ConfigMap's configuration was read, or why it could not be.
fn configuration<T>(read: &Option<Result<T, Live<String>>>) -> Option<Result<(), &Live<String>>> {
    read.as_ref().map(|read| read.as_ref().map(|_| ()))
}

impl Comparison {
    /// For the human report: what was read and compared, and what was not.
    pub fn coverage_text(&self, spec: &str, captured: &capture::Captured) -> String {
        let counted = |n: usize, what: &str| format!("{n} {what}{}", plural(n));
        let compared = if self.compared.is_empty() {
            "nothing".to_string()
        } else {
            self.compared.join("; ")
        };
        let mut text = format!(
            "verify {spec}: {} from {}\n  compared: {compared}\n",
            counted(captured.objects.len(), "object"),
            counted(captured.files.len(), "capture"),
        );
        for note in &self.not_compared {
            text.push_str(&format!("  not compared: {note}\n"));
        }
        if !captured.empty.is_empty() {
            text.push_str(&format!(
                "  empty captures (objects the cluster does not have): {}\n",
                captured.empty.join(", ")
            ));
        }
        text.push('\n');
        // Names and notes hold values from the captures and the command line.
        escape::no_workflow_commands(
            text.lines()
                .map(|line| format!("{}\n", escape::inline(line)))
                .collect::<String>(),
        )
    }
}

//! `hybridgen verify`: the plan against what the cluster runs, as kubectl captured it. The stage
//! beside `plan`: `kubectl` knows the capture commands (printed, or run through the user's own
//! kubectl), `capture` reads the files into objects, `crate::live` reads the objects into what the
//! checks compare, and `rules::live` compares; the findings are reported like `plan`'s, in every
//! format. [`observe`] is that reading, whole: `verify` and `render --cluster` both go through it.

pub mod capture;
pub mod kubectl;
mod prune;

use crate::diagnostic::{Diagnostic, key};
use crate::live::{LiveCluster, Matching, match_nodes};
use crate::plan::Plan;
use crate::rules;
use crate::spec::Spec;
use std::path::{Path, PathBuf};

/// Where the cluster is read from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// Files or directories kubectl captured.
    Files(&'a [PathBuf]),
    /// kubectl (a path, or a name looked up on `PATH`), run here through its current context.
    Kubectl(&'a Path),
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
        Source::Kubectl(kubectl) => kubectl::run(kubectl, plan)
            .map(|ran| {
                ran.output.map(|bytes| capture::Input {
                    name: ran.capture.command_line(),
                    bytes,
                })
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(read(inputs, plan, annotation_prefix))
}

/// The captures read, the live model built from them, and the nodes matched.
pub fn read(inputs: Vec<capture::Input>, plan: &Plan, annotation_prefix: Option<&str>) -> Observed {
    let captured = capture::read(inputs, &kubectl::captures(plan));
    let cluster = crate::live::cluster::read(&captured.objects, plan, annotation_prefix);
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
        format!(
            "no capture holds a Node, so none of the {} planned nodes can be compared",
            plan.nodes.len()
        ),
    )
    .label("planned nodes")
    .help("capture them with `kubectl get nodes -o json > nodes.json`")
}

/// What a comparison found, and what it compared.
pub struct Comparison {
    /// Every HG5xx finding but the captures' own (HG509, in `capture::Captured::files`).
    pub diagnostics: Vec<Diagnostic>,
    /// What was compared, and what was absent and so not compared.
    pub compared: Vec<String>,
    pub not_compared: Vec<String>,
}

/// Compares the plan with the cluster.
pub fn compare(spec: &Spec, plan: &Plan, observed: &Observed) -> Comparison {
    let Observed {
        cluster, matching, ..
    } = observed;
    let mut diagnostics = rules::run_live(&rules::live::LiveContext {
        spec,
        plan,
        cluster,
        matching,
    });
    if cluster.nodes.is_empty() {
        diagnostics.push(no_nodes_captured(plan));
    }
    let found = matching.live_of.iter().flatten().count();
    let mut compared = vec![format!(
        "{found} of {} planned nodes found among the cluster's {}",
        plan.nodes.len(),
        cluster.nodes.len()
    )];
    let configurations = [
        (cluster.net_conf.is_some(), "flannel's net-conf.json"),
        (
            cluster.cluster_configuration.is_some(),
            "kubeadm's ClusterConfiguration",
        ),
        (cluster.kube_proxy.is_some(), "kube-proxy's configuration"),
        (cluster.kubelet.is_some(), "the kubelet's configuration"),
        (cluster.server_args.is_some(), "the server's node-args"),
        (!cluster.helm_charts.is_empty(), "RKE2's HelmCharts"),
        (
            cluster.rke2_flannel_values.is_some(),
            "the rke2-flannel HelmChartConfig",
        ),
    ];
    for (present, what) in configurations {
        if present {
            compared.push(what.to_string());
        }
    }
    if !cluster.daemonsets.is_empty() {
        compared.push(format!("{} DaemonSets", cluster.daemonsets.len()));
    }
    if !cluster.pods.is_empty() {
        compared.push(format!("{} pods on the pod network", cluster.pods.len()));
    }
    Comparison {
        diagnostics,
        compared,
        not_compared: cluster.notes.clone(),
    }
}

impl Comparison {
    /// For the human report: what was read and compared, and what was not.
    pub fn coverage_text(&self, spec: &str, captured: &capture::Captured) -> String {
        let counted = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        let mut text = format!(
            "verify {spec}: {} from {}\n  compared: {}\n",
            counted(captured.objects.len(), "object"),
            counted(captured.files.len(), "capture"),
            self.compared.join("; ")
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
        text
    }
}

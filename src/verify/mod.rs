//! `hybridgen verify`: the plan against what the cluster runs, as kubectl captured it. The stage
//! beside `plan`: `kubectl` knows the capture commands (printed, or run through the user's own
//! kubectl), `capture` reads the files into objects, `crate::live` reads the objects into what the
//! checks compare, and `rules::live` compares; the findings are reported like `plan`'s, in every
//! format.

pub mod capture;
pub mod kubectl;
mod prune;

use crate::diagnostic::{Diagnostic, key};
use crate::live::{LiveCluster, match_nodes};
use crate::plan::Plan;
use crate::rules;
use crate::spec::Spec;

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
pub fn compare(spec: &Spec, plan: &Plan, cluster: &LiveCluster) -> Comparison {
    let matching = match_nodes(plan, cluster);
    let mut diagnostics = rules::run_live(&rules::live::LiveContext {
        spec,
        plan,
        cluster,
        matching: &matching,
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

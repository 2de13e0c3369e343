//! `hybridgen verify`: the plan against what the cluster runs, as kubectl captured it. The stage
//! beside `plan`: `kubectl` knows the capture commands (printed, or run through the user's own
//! kubectl), `capture` reads the files, `cluster` reads the objects into what the checks compare,
//! and `rules::live` compares; the findings are reported like `plan`'s, in every format.

pub mod capture;
pub mod cluster;
pub mod kubectl;
mod prune;

use crate::diagnostic::{Diagnostic, key};
use crate::plan::NodePlan;
use crate::plan::Plan;
use crate::rules;
use crate::spec::Spec;
use cluster::{LiveCluster, LiveNode};
use std::collections::HashMap;

/// Which live node each planned node is, and the live nodes the spec does not declare.
#[derive(Debug, Default)]
pub struct Matching {
    /// For each planned node, in spec order, its index in `LiveCluster::nodes`.
    pub live_of: Vec<Option<usize>>,
    pub undeclared: Vec<usize>,
}

/// One way of matching: the key of a planned node, and the key of a live node.
struct MatchRound {
    planned: fn(&NodePlan) -> Option<String>,
    live: fn(&LiveNode) -> Option<String>,
}

/// Matches planned nodes to live ones as Kubernetes names them: the kubelet registers the
/// hostname in lower case, and clouds often register the fully qualified name, so a node matches
/// by its name, else by the first label of a qualified name, else by its address (InternalIP).
/// Each round looks keys up in a map, so 5,000 nodes match in linear time.
pub fn match_nodes(plan: &Plan, cluster: &LiveCluster) -> Matching {
    let rounds = [
        MatchRound {
            planned: |node| Some(node.name.to_ascii_lowercase()),
            live: |node| Some(node.name.to_ascii_lowercase()),
        },
        MatchRound {
            planned: |node| Some(node.name.to_ascii_lowercase()),
            live: |node| {
                let (host, _) = node.name.split_once('.')?;
                Some(host.to_ascii_lowercase())
            },
        },
        MatchRound {
            planned: |node| node.address.as_ref().ok().map(ToString::to_string),
            live: |node| node.internal_ip.as_ref().map(|ip| ip.value.clone()),
        },
    ];
    let mut taken = vec![false; cluster.nodes.len()];
    let mut live_of = vec![None; plan.nodes.len()];
    for round in rounds {
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (index, node) in cluster.nodes.iter().enumerate() {
            if let Some(key) = (round.live)(node).filter(|_| !taken[index]) {
                by_key.entry(key).or_default().push(index);
            }
        }
        for (index, planned) in plan.nodes.iter().enumerate() {
            if live_of[index].is_some() {
                continue;
            }
            let Some(candidates) = (round.planned)(planned).and_then(|key| by_key.get(&key)) else {
                continue;
            };
            let free: Vec<usize> = candidates.iter().copied().filter(|c| !taken[*c]).collect();
            // Only a match that no other live node shares.
            if let [only] = free[..] {
                taken[only] = true;
                live_of[index] = Some(only);
            }
        }
    }
    Matching {
        live_of,
        undeclared: (0..cluster.nodes.len())
            .filter(|live| !taken[*live])
            .collect(),
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

//! Which live node each planned node is: by name as Kubernetes registers it, else by address.

use super::{LiveCluster, LiveNode};
use crate::plan::{NodePlan, Plan};
use ipnet::Ipv4Net;
use std::collections::HashMap;

/// Which live node each planned node is, and the live nodes the spec does not declare.
#[derive(Debug, Default)]
pub struct Matching {
    /// For each planned node, in spec order, its index in `LiveCluster::nodes`.
    pub live_of: Vec<Option<usize>>,
    pub undeclared: Vec<usize>,
}

impl Matching {
    /// The subnet the cluster gave each planned node (`spec.podCIDR`), in spec order: `None` for a
    /// node not in the cluster, or without a subnet that reads as IPv4.
    pub fn pod_subnets(&self, cluster: &LiveCluster) -> Vec<Option<Ipv4Net>> {
        self.live_of
            .iter()
            .map(|live| {
                let node = cluster.nodes.get((*live)?)?;
                node.pod_cidr.value.as_deref()?.parse().ok()
            })
            .collect()
    }
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

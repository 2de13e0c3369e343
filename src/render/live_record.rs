//! What a render from the cluster (`--kubectl`, `--cluster`) remembers in the manifest: where the
//! pod subnets were read, and each planned node's subnet as read then. A later `render` or
//! `render --check` without a cluster flag (CI has no cluster) renders from these, so that it
//! never puts the predictions back in place of the subnets the cluster gave.
//!
//! Reusing them holds because a node's `spec.podCIDR` cannot change once set: the API server
//! refuses the update ("node updates may not change podCIDR except from \"\" to valid",
//! <https://github.com/kubernetes/kubernetes/blob/master/pkg/apis/core/validation/validation.go>).
//! Only a node deleted and joined again gets another one, which is what `--kubectl` refreshes.
//!
//! The lines start with a dot, which no artifact path does, so an older hybridgen skips them:
//!
//! ```text
//! .live-source kubectl                  or  .live-source capture [PATH]
//! .live-node win-0 10.244.1.0/24        a node the cluster gave that subnet
//! .live-node linux-worker-1 -           a planned node the cluster did not hold (predicted)
//! ```
//!
//! The manifest is in `--out`, which a pull request can commit: every line is validated, and
//! nothing read here names a file to open or a command to run (a capture's path is shown only
//! when it is plain text, as a reminder).

use crate::plan::{Plan, SubnetSource};
use ipnet::Ipv4Net;
use std::collections::BTreeMap;

const SOURCE: &str = ".live-source";
const NODE: &str = ".live-node";
/// More nodes than any spec may declare would hold (the loader's limit is far below).
const MAX_NODES: usize = 1 << 20;

/// Where the subnets were read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LiveSource {
    Kubectl,
    /// `--cluster`: the capture's path as given, when it is plain text.
    Capture(Option<String>),
}

/// The subnets a render took from the cluster, by planned node name; `None` for a planned node
/// the cluster did not hold, or held without a subnet (its subnet was predicted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveRecord {
    pub source: LiveSource,
    pub nodes: BTreeMap<String, Option<Ipv4Net>>,
}

/// Why the remembered subnets cannot be used for the spec as it now is.
#[derive(Debug, PartialEq, Eq)]
pub struct Stale(pub String);

impl LiveSource {
    /// `kubectl`, `the capture \`cap\``: how messages name it.
    pub fn describe(&self) -> String {
        match self {
            LiveSource::Kubectl => "read with kubectl".into(),
            LiveSource::Capture(Some(path)) => format!("read from the capture `{path}`"),
            LiveSource::Capture(None) => "read from a capture".into(),
        }
    }
}

/// A path worth showing back: printable ASCII without spaces, quotes or shell characters.
fn plain_path(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 200
        && !text.starts_with('-')
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._/+@:=,-".contains(&b))
}

/// A pod subnet as the cluster holds it: `a.b.c.d/len`, no host bits, no leading zeros.
fn subnet(text: &str) -> Option<Ipv4Net> {
    let net = crate::plan::address::parse_cidr(text).ok()?;
    (net.network() == net.addr() && net.to_string() == text).then_some(net)
}

impl LiveRecord {
    /// The record of the subnets `live_plan` took from the cluster (`read` in spec order).
    pub fn of(source: LiveSource, plan: &Plan, read: &[Option<Ipv4Net>]) -> Self {
        let source = match source {
            LiveSource::Capture(path) => LiveSource::Capture(path.filter(|path| plain_path(path))),
            LiveSource::Kubectl => LiveSource::Kubectl,
        };
        let nodes = plan
            .nodes
            .iter()
            .enumerate()
            .map(|(index, node)| (node.name.clone(), read.get(index).copied().flatten()))
            .collect();
        LiveRecord { source, nodes }
    }

    /// The manifest's lines for this record, in a stable order.
    pub fn manifest_lines(&self) -> String {
        let mut text = match &self.source {
            LiveSource::Kubectl => format!("{SOURCE} kubectl\n"),
            LiveSource::Capture(Some(path)) => format!("{SOURCE} capture {path}\n"),
            LiveSource::Capture(None) => format!("{SOURCE} capture\n"),
        };
        for (name, subnet) in &self.nodes {
            let subnet = subnet.map_or("-".to_string(), |subnet| subnet.to_string());
            text.push_str(&format!("{NODE} {name} {subnet}\n"));
        }
        text
    }

    /// The record in a manifest's text, if it holds one. Every live line is checked: an error
    /// names the line and what to do.
    pub fn parse(manifest: &str, manifest_name: &str) -> Result<Option<Self>, String> {
        let mut source = None;
        let mut nodes = BTreeMap::new();
        let mut held = std::collections::BTreeSet::new();
        let fix = "render from the cluster again (`--kubectl`, or `--cluster FILE` with a fresh capture), which rewrites these lines";
        for (number, line) in manifest.lines().enumerate() {
            let bad = |what: &str| {
                let shown: String = line.chars().take(120).collect();
                format!(
                    "`{manifest_name}` line {}: {what} in `{shown}`; {fix}",
                    number + 1
                )
            };
            let mut fields = line.split(' ');
            match fields.next() {
                Some(SOURCE) => {
                    if source.is_some() {
                        return Err(bad("a second `.live-source`"));
                    }
                    source = Some(match (fields.next(), fields.next(), fields.next()) {
                        (Some("kubectl"), None, _) => LiveSource::Kubectl,
                        (Some("capture"), None, _) => LiveSource::Capture(None),
                        (Some("capture"), Some(path), None) if plain_path(path) => {
                            LiveSource::Capture(Some(path.to_string()))
                        }
                        _ => {
                            return Err(bad(
                                "the source is neither `kubectl` nor `capture [PATH]` with a plain path",
                            ));
                        }
                    });
                }
                Some(NODE) => {
                    let (Some(name), Some(value), None) =
                        (fields.next(), fields.next(), fields.next())
                    else {
                        return Err(bad("a node line is `.live-node NAME SUBNET`"));
                    };
                    if !crate::spec::names::is_dns_subdomain(name) {
                        return Err(bad("the node name is not a Kubernetes node name"));
                    }
                    let value = match value {
                        "-" => None,
                        text => Some(subnet(text).ok_or_else(|| {
                            bad("the subnet is not an IPv4 network like `10.244.1.0/24`")
                        })?),
                    };
                    if nodes.insert(name.to_string(), value).is_some() {
                        return Err(bad("the node is listed twice"));
                    }
                    // The cluster never gives two nodes one subnet: such a line was written by
                    // hand.
                    if let Some(subnet) = value
                        && !held.insert(subnet)
                    {
                        return Err(bad("another node has this subnet"));
                    }
                    if nodes.len() > MAX_NODES {
                        return Err(bad("too many node lines"));
                    }
                }
                Some(other) if other.starts_with(".live") => {
                    return Err(bad("an unknown live line"));
                }
                _ => {}
            }
        }
        match source {
            Some(source) => Ok(Some(LiveRecord { source, nodes })),
            None if nodes.is_empty() => Ok(None),
            None => Err(format!(
                "`{manifest_name}` lists `.live-node` lines without a `.live-source`; {fix}"
            )),
        }
    }

    /// The remembered subnet of each planned node, in spec order, checked against the plan as
    /// `render --cluster` checks the cluster's: a planned node the record does not know (added
    /// since), a subnet outside `clusterCidr` or of another size, or one that is not the node's
    /// pin, means the cluster must be read again.
    pub fn subnets_for(&self, plan: &Plan) -> Result<Vec<Option<Ipv4Net>>, Stale> {
        let mut subnets = Vec::with_capacity(plan.nodes.len());
        let mut added = Vec::new();
        for node in &plan.nodes {
            let Some(remembered) = self.nodes.get(&node.name) else {
                added.push(format!("`{}`", node.name));
                continue;
            };
            if let Some(subnet) = remembered {
                let fits = plan
                    .cluster_cidr
                    .as_ref()
                    .is_ok_and(|cluster| cluster.contains(subnet))
                    && subnet.prefix_len() == plan.node_mask;
                if !fits {
                    return Err(Stale(format!(
                        "node `{}` had pod subnet {subnet}, which `clusterCidr` and `nodeCidrMaskSize` no longer give",
                        node.name
                    )));
                }
                let held = match (&node.pinned, node.subnet_source) {
                    (Some(Ok(pinned)), _) => Some(*pinned),
                    (None, SubnetSource::Assigned) => node.pod_subnet,
                    _ => None,
                };
                if let Some(held) = held.filter(|held| held != subnet) {
                    return Err(Stale(format!(
                        "node `{}` had pod subnet {subnet}, but the spec now holds it to {held}",
                        node.name
                    )));
                }
            }
            subnets.push(*remembered);
        }
        if !added.is_empty() {
            let count = added.len();
            let (noun, verb) = if count == 1 {
                ("node", "was")
            } else {
                ("nodes", "were")
            };
            return Err(Stale(format!(
                "{noun} {} {verb} not in the spec then",
                list(&added, count)
            )));
        }
        Ok(subnets)
    }
}

/// `a`, `a and b`, `a, b and 3 more`: a bounded list for a message.
fn list(names: &[String], count: usize) -> String {
    match names {
        [one] => one.clone(),
        [first, second] => format!("{first} and {second}"),
        [first, second, ..] => format!("{first}, {second} and {} more", count - 2),
        [] => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written() {
        let record = LiveRecord {
            source: LiveSource::Capture(Some("captures/nodes.json".into())),
            nodes: BTreeMap::from([
                ("win-0".to_string(), Some("10.244.1.0/24".parse().unwrap())),
                ("linux-1".to_string(), None),
            ]),
        };
        let text = record.manifest_lines();
        assert_eq!(
            text,
            ".live-source capture captures/nodes.json\n.live-node linux-1 -\n.live-node win-0 10.244.1.0/24\n"
        );
        assert_eq!(LiveRecord::parse(&text, "m"), Ok(Some(record)));
    }

    #[test]
    fn hostile_live_lines_are_refused_with_the_line() {
        for (line, what) in [
            (".live-node win-0 10.244.1.5/24", "IPv4 network"),
            (".live-node win-0 10.244.1.0/33", "IPv4 network"),
            (".live-node win-0 010.244.1.0/24", "IPv4 network"),
            (".live-node ../etc 10.244.1.0/24", "node name"),
            (".live-node Win-0 10.244.1.0/24", "node name"),
            (
                ".live-node win-0 10.244.1.0/24 extra",
                "`.live-node NAME SUBNET`",
            ),
            (".live-source capture $(reboot)", "plain path"),
            (".live-source ssh", "neither"),
            (".live-whatever", "unknown live line"),
            (
                ".live-node win-1 10.244.9.0/24\n.live-node win-2 10.244.9.0/24",
                "another node has this subnet",
            ),
        ] {
            let text = format!(".live-source kubectl\n{line}\n");
            let text = if line.starts_with(".live-source") {
                format!("{line}\n")
            } else {
                text
            };
            let error = LiveRecord::parse(&text, "m").unwrap_err();
            assert!(error.contains(what), "{line}: {error}");
            assert!(error.contains("`m` line"), "{error}");
            assert!(error.contains("--kubectl"), "{error}");
        }
    }

    #[test]
    fn a_manifest_without_live_lines_has_no_record() {
        assert_eq!(LiveRecord::parse("abc 0644 plan.json\n", "m"), Ok(None));
    }
}

//! The RKE2 part of the plan (`kubernetes.distribution: rke2`): the RKE2 release
//! `kubernetes.version` names and its row of [`releases::rke2`], which nodes are servers and which
//! one starts the cluster, the address the others join, and Rancher when it provisions the
//! cluster.

use super::address;
use super::releases::{self, rke2::Resolved};
use super::version::Release;
use super::{InputError, Parsed};
use crate::spec::{Os, Role, Spec};
use std::net::Ipv4Addr;

/// RKE2's supervisor port, where agents and joining servers register: fixed, not configurable
/// (rancher/rke2 `pkg/cli/defaults/defaults.go`, `SupervisorPort = 9345`).
pub const SUPERVISOR_PORT: u16 = 9345;

/// The Rancher release assumed when `rancher.version` is absent.
pub const DEFAULT_RANCHER_VERSION: &str = "2.14.4";

#[derive(Debug, Clone)]
pub struct Rke2Plan {
    /// The release `kubernetes.version` names (`1.31.4` is `v1.31.4+rke2r1`), or why it cannot be
    /// an RKE2 release.
    pub release: Parsed<Resolved>,
    /// The Linux nodes with the `controlplane` or `etcd` role: RKE2 servers. The others are agents.
    pub servers: Vec<usize>,
    /// The server that starts the cluster (its `config.yaml` has no `server:`): a server with
    /// etcd, the one at `join_address` if it has etcd, else the first with etcd (an etcd-less
    /// server can only join one that has it: docs.rke2.io "Server Roles").
    pub first_server: Option<usize>,
    /// Where agents join (`https://<address>:9345`): `rke2.server`, else the first Linux
    /// `controlplane` node's address.
    pub join_address: Option<Parsed<Ipv4Addr>>,
    /// Where the other servers join: the first server's address (a control-plane-only server
    /// joins an etcd one: docs.rke2.io "Server Roles"), or `rke2.server` when it names no node
    /// (a load balancer or DNS name in front of the servers).
    pub server_join_address: Option<Parsed<Ipv4Addr>>,
    pub rancher: Option<RancherPlan>,
}

#[derive(Debug, Clone)]
pub struct RancherPlan {
    /// `rancher.url` without a trailing `/`.
    pub url: String,
    pub version: Parsed<Release>,
}

impl Rke2Plan {
    /// The release's tag, `v1.31.4+rke2r1`, when it is one.
    pub fn tag(&self) -> Option<&str> {
        self.release
            .as_ref()
            .ok()
            .map(|release| release.tag.as_str())
    }

    pub fn is_server(&self, node: usize) -> bool {
        self.servers.contains(&node)
    }
}

pub fn plan(spec: &Spec, kubernetes: Option<&Release>) -> Rke2Plan {
    let servers: Vec<usize> = spec
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| {
            node.os == Os::Linux
                && (node.roles.contains(&Role::Controlplane) || node.roles.contains(&Role::Etcd))
        })
        .map(|(index, _)| index)
        .collect();
    let written = spec.rke2.as_ref().and_then(|rke2| rke2.server.as_deref());
    let join_address = match written {
        Some(text) => Some(address::parse_ip(text)),
        None => spec
            .nodes
            .iter()
            .find(|node| node.os == Os::Linux && node.roles.contains(&Role::Controlplane))
            .map(|node| address::parse_ip(&node.address)),
    };
    let joined = join_address
        .as_ref()
        .and_then(|address| address.as_ref().ok());
    let with_etcd = |index: &usize| spec.nodes[*index].roles.contains(&Role::Etcd);
    let at_join_address =
        |index: &usize| address::parse_ip(&spec.nodes[*index].address).ok().as_ref() == joined;
    let first_server = servers
        .iter()
        .copied()
        .find(|index| with_etcd(index) && at_join_address(index))
        .or_else(|| servers.iter().copied().find(with_etcd))
        .or_else(|| servers.first().copied());
    let names_a_node = (0..spec.nodes.len()).any(|index| at_join_address(&index));
    let server_join_address = match written {
        Some(_) if !names_a_node => join_address.clone(),
        _ => first_server.map(|index| address::parse_ip(&spec.nodes[index].address)),
    };
    Rke2Plan {
        release: release(&spec.kubernetes.version, kubernetes),
        servers,
        first_server,
        join_address,
        server_join_address,
        rancher: spec.rancher.as_ref().map(|rancher| RancherPlan {
            url: rancher.url.trim_end_matches('/').to_string(),
            version: {
                let text = rancher.version.as_deref().unwrap_or(DEFAULT_RANCHER_VERSION);
                Release::parse(text).ok_or_else(|| {
                    InputError::new(
                        format!("`{text}` is not a Rancher version"),
                        format!(
                            "write it as `MAJOR.MINOR.PATCH` in quotes, e.g. `\"{DEFAULT_RANCHER_VERSION}\"`"
                        ),
                    )
                })
            },
        }),
    }
}

/// The RKE2 release of `kubernetes.version`: its suffix, when written, must be `+rke2r<N>`.
fn release(written: &str, kubernetes: Option<&Release>) -> Parsed<Resolved> {
    let kubernetes = kubernetes.ok_or_else(|| {
        InputError::new(
            format!("`{written}` is not an RKE2 release"),
            "write it as `MAJOR.MINOR.PATCH`, e.g. `\"1.31.4\"` or `\"v1.31.4+rke2r1\"`",
        )
    })?;
    let bare = written.trim_start_matches('v');
    let suffix = bare.find(['-', '+']).map(|at| &bare[at..]);
    let revision = match suffix {
        None => 1,
        Some(suffix) => suffix
            .strip_prefix("+rke2r")
            .and_then(super::version::number)
            .ok_or_else(|| {
                InputError::new(
                    format!(
                        "`{written}` is not an RKE2 release: its suffix `{suffix}` is not `+rke2r<N>`"
                    ),
                    format!(
                        "write `\"v{kubernetes}+rke2r1\"`, or `\"{kubernetes}\"` for its first revision"
                    ),
                )
            })?,
    };
    Ok(releases::rke2::resolve(*kubernetes, revision))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODES: &str = "  - {name: a, os: linux, roles: [worker], address: 192.168.10.9}
  - {name: b, os: linux, roles: [controlplane, etcd], address: 192.168.10.10}
  - {name: c, os: linux, roles: [etcd], address: 192.168.10.11}
  - {name: w, os: windows, roles: [worker], address: 192.168.10.30}
";

    fn planned_with(version: &str, extra: &str, nodes: &str) -> Rke2Plan {
        let yaml = format!(
            "apiVersion: hybridgen/v1
kind: Cluster
metadata: {{name: demo}}
kubernetes: {{version: \"{version}\", distribution: rke2}}
network: {{clusterCidr: 10.42.0.0/16, serviceCidr: 10.43.0.0/16}}
flannel: {{backend: vxlan}}
{extra}nodes:
{nodes}"
        );
        let spec: Spec = serde_yaml::from_str(&yaml).unwrap();
        plan(&spec, Release::parse(version).as_ref())
    }

    fn planned(version: &str, extra: &str) -> Rke2Plan {
        planned_with(version, extra, NODES)
    }

    #[test]
    fn servers_are_the_linux_control_plane_and_etcd_nodes() {
        let plan = planned("1.31.4", "");
        assert_eq!(plan.servers, [1, 2]);
        assert_eq!(plan.first_server, Some(1));
        assert_eq!(plan.tag(), Some("v1.31.4+rke2r1"));
        let through = planned("1.31.4", "rke2: {server: 192.168.10.11}\n");
        assert_eq!(through.first_server, Some(2));
        let balancer = planned("1.31.4", "rke2: {server: 192.168.10.100}\n");
        assert_eq!(balancer.first_server, Some(1));
        // Servers join through a load balancer when one is named.
        assert_eq!(
            balancer.server_join_address.unwrap().unwrap(),
            Ipv4Addr::new(192, 168, 10, 100)
        );
    }

    #[test]
    fn an_etcd_server_starts_the_cluster() {
        let split = planned_with(
            "1.31.4",
            "",
            &NODES.replace("roles: [controlplane, etcd]", "roles: [controlplane]"),
        );
        assert_eq!(split.servers, [1, 2]);
        assert_eq!(split.first_server, Some(2));
        // Agents join the control plane; the control-plane server joins the etcd one.
        assert_eq!(
            split.join_address.unwrap().unwrap(),
            Ipv4Addr::new(192, 168, 10, 10)
        );
        assert_eq!(
            split.server_join_address.unwrap().unwrap(),
            Ipv4Addr::new(192, 168, 10, 11)
        );
        // Naming the control-plane server for the agents does not make it join itself.
        let named = planned_with(
            "1.31.4",
            "rke2: {server: 192.168.10.10}\n",
            &NODES.replace("roles: [controlplane, etcd]", "roles: [controlplane]"),
        );
        assert_eq!(
            named.server_join_address.unwrap().unwrap(),
            Ipv4Addr::new(192, 168, 10, 11)
        );
    }

    #[test]
    fn the_suffix_names_the_revision_and_nothing_else() {
        assert_eq!(
            planned("v1.27.16+rke2r2", "").tag(),
            Some("v1.27.16+rke2r2")
        );
        for wrong in ["1.31.4+k3s1", "1.31.4-rc1", "1.31.4+rke2r"] {
            let problem = planned(wrong, "").release.unwrap_err().problem.clone();
            assert!(problem.contains("is not `+rke2r<N>`"), "{wrong}: {problem}");
        }
    }
}

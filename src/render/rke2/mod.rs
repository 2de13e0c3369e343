//! RKE2's room (`distribution: rke2`), standalone: per node `rke2/<node>/config.yaml` (RKE2's
//! configuration file, which holds no secret: its `token-file` names the file the install script
//! writes from the environment when it runs) and its install script (`install.sh` on Linux,
//! `install.ps1` on Windows, [`install`]), and
//! `rke2/manifests/rke2-flannel-config.yaml`, the `rke2-flannel` HelmChartConfig every server
//! deploys from `/var/lib/rancher/rke2/server/manifests/`. With `rancher:` the [`rancher`] room
//! renders instead: Rancher writes the node configuration itself.
//!
//! RKE2 ships flannel (`cni: flannel`, the `rke2-flannel` chart) and its Windows agent runs
//! flanneld and kube-proxy itself, so no Linux manifest, HostProcess image or kubeadm file is
//! rendered. What both rooms write is decided here once: the cluster keys of the servers, the keys
//! of every node, and the chart's values.

pub mod install;
pub mod rancher;

use super::{Artifact, ControllerManager, Input, Network, RenderError, Room};
use crate::plan::rke2::{Rke2Plan, SUPERVISOR_PORT};
use crate::plan::{NodePlan, Plan};
use crate::render::script::path_segment;
use crate::spec::{Backend, Os, Role, Spec};
use serde_json::{Map, Value, json};
use std::net::Ipv4Addr;

/// The HelmChartConfig, shared by every server.
pub const MANIFEST_PATH: &str = "rke2/manifests/rke2-flannel-config.yaml";

/// The taint of a server that should run no workloads: the control-plane taint kubeadm gives its
/// control-plane nodes, which every `rke2-flannel` chart tolerates (v0.24.201 every `NoSchedule`
/// taint, later ones this key; see [`crate::plan::releases::rke2::ChartLine::tolerations`]).
/// Not the `CriticalAddonsOnly=true:NoExecute` of docs.rke2.io "High Availability", written for
/// the canal chart: no rke2-flannel chart tolerates it, so the server would get no flannel and
/// stay NotReady (rancher/rke2#5629 shows the same for an etcd taint).
pub const DEDICATED_SERVER_TAINT: &str = "node-role.kubernetes.io/control-plane:NoSchedule";

pub(crate) struct Standalone;

impl Room for Standalone {
    fn paths(&self, input: &Input) -> Result<Vec<String>, RenderError> {
        let mut paths = vec![MANIFEST_PATH.to_string()];
        for node in &input.plan.nodes {
            let dir = node_dir(node)?;
            paths.push(format!("{dir}/config.yaml"));
            paths.push(format!("{dir}/{}", install::script_name(node.os)));
        }
        Ok(paths)
    }

    fn render(&self, input: &Input) -> Result<Vec<Artifact>, RenderError> {
        let rke2 = rke2_plan(input.plan)?;
        let network = input.network()?;
        let join = join_url(rke2)?;
        let server_join = supervisor_url(rke2.server_join_address.as_ref())?;
        let mut artifacts = vec![Artifact::new(MANIFEST_PATH, helm_chart_config(input.plan)?)];
        for (index, node) in input.plan.nodes.iter().enumerate() {
            let dir = node_dir(node)?;
            let joins = if rke2.is_server(index) {
                &server_join
            } else {
                &join
            };
            let config = node_config(input, &network, rke2, index, joins)?;
            artifacts.push(Artifact::new(format!("{dir}/config.yaml"), config));
            artifacts.push(Artifact::new(
                format!("{dir}/{}", install::script_name(node.os)),
                install::script(input, rke2, index, joins)?,
            ));
        }
        Ok(artifacts)
    }

    fn controller_manager(&self) -> ControllerManager {
        ControllerManager {
            flags_in: "each server's rke2/<node>/config.yaml",
            started_by: "the first server has started",
        }
    }
}

pub(crate) fn rke2_plan(plan: &Plan) -> Result<&Rke2Plan, RenderError> {
    plan.rke2
        .as_ref()
        .ok_or_else(|| RenderError("the plan has no RKE2 part".into()))
}

/// The RKE2 release tag, `v1.31.4+rke2r1`.
pub(crate) fn release_tag(rke2: &Rke2Plan) -> Result<&str, RenderError> {
    rke2.tag()
        .ok_or_else(|| RenderError("`kubernetes.version` is not an RKE2 release".into()))
}

/// `https://<address>:9345`, where agents join.
pub(crate) fn join_url(rke2: &Rke2Plan) -> Result<String, RenderError> {
    supervisor_url(rke2.join_address.as_ref())
}

fn supervisor_url(address: Option<&crate::plan::Parsed<Ipv4Addr>>) -> Result<String, RenderError> {
    match address {
        Some(Ok(address)) => Ok(format!("https://{address}:{SUPERVISOR_PORT}")),
        _ => Err(RenderError(
            "no address to join: set `rke2.server` or give a Linux node the `controlplane` role"
                .into(),
        )),
    }
}

/// `rke2/<node>`.
pub(crate) fn node_dir(node: &NodePlan) -> Result<String, RenderError> {
    Ok(format!("rke2/{}", path_segment(&node.name)?))
}

pub(crate) fn node_address(node: &NodePlan) -> Result<Ipv4Addr, RenderError> {
    node.address
        .as_ref()
        .copied()
        .map_err(|_| RenderError(format!("node `{}` has no valid address", node.name)))
}

/// The keys every server takes, cluster-wide and identical on each (RKE2 refuses a server whose
/// "critical configuration values" differ, docs.rke2.io "Server Configuration Reference"): flannel
/// as the CNI (RKE2's default is canal, which Windows nodes cannot run; Rancher's is calico), the
/// ranges, the cluster DNS, and the controller manager's flags the plan decides.
pub(crate) fn cluster_keys(plan: &Plan, network: &Network) -> Map<String, Value> {
    let mut keys: Map<String, Value> = [
        ("cni", json!("flannel")),
        ("cluster-cidr", json!(network.cluster_cidr.to_string())),
        ("service-cidr", json!(network.service_cidr.to_string())),
        ("cluster-dns", json!(network.dns_service_ip.to_string())),
        ("cluster-domain", json!(plan.dns_domain)),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_string(), value))
    .collect();
    let controller_manager: Vec<String> =
        super::pod_cidrs::controller_manager_args(plan, &network.kubernetes)
            .into_iter()
            .map(|(flag, setting)| format!("{flag}={setting}"))
            .collect();
    if !controller_manager.is_empty() {
        keys.insert(
            "kube-controller-manager-arg".into(),
            json!(controller_manager),
        );
    }
    keys
}

/// The keys every node takes, agents included: the kubelet's pod limit when not its default.
pub(crate) fn every_node_keys(plan: &Plan) -> Map<String, Value> {
    let mut keys = Map::new();
    if plan.max_pods != crate::plan::DEFAULT_MAX_PODS {
        keys.insert(
            "kubelet-arg".into(),
            json!([format!("max-pods={}", plan.max_pods)]),
        );
    }
    keys
}

/// `rke2.config` (every node) or `rke2.serverConfig`.
pub(crate) fn extra_keys(spec: &Spec, servers: bool) -> Map<String, Value> {
    let written = spec.rke2.as_ref().and_then(|rke2| {
        if servers {
            rke2.server_config.as_ref()
        } else {
            rke2.config.as_ref()
        }
    });
    written
        .into_iter()
        .flatten()
        .map(|(key, value)| (key.clone(), value.0.clone()))
        .collect()
}

/// Adds `extra` to `keys`: a list extends hybridgen's list of the same key, any other value is
/// added where hybridgen writes none (HG606 reports a key hybridgen owns before rendering).
pub(crate) fn merge(keys: &mut Map<String, Value>, extra: Map<String, Value>) {
    for (name, extra_value) in extra {
        match (keys.get_mut(&name), extra_value) {
            (Some(Value::Array(ours)), Value::Array(more)) => ours.extend(more),
            (Some(_), _) => {}
            (None, extra_value) => {
                keys.insert(name, extra_value);
            }
        }
    }
}

/// The Linux flanneld's arguments: the chart's own two (Helm replaces a list, so they are
/// repeated: rancher/rke2-charts `charts/rke2-flannel/*/values.yaml` `flannel.args`) and
/// `--iface-regex` on the planned Linux addresses, so that each node announces the interface that
/// holds its planned address rather than the default route's. RKE2 passes `--iface=<node-ip>` to
/// the Windows flanneld only (rancher/rke2 `pkg/windows/flannel.go`); `flannel-iface` is a dropped
/// flag. flanneld matches the regex against each interface's addresses before its name
/// (flannel-io/flannel `Documentation/configuration.md`, `--iface-regex`).
fn linux_flanneld_args(plan: &Plan) -> Vec<String> {
    let addresses: Vec<String> = plan
        .nodes
        .iter()
        .filter(|node| node.os == Os::Linux)
        .filter_map(|node| node.address.as_ref().ok())
        .map(|address| address.to_string().replace('.', "\\."))
        .collect();
    let mut args = vec!["--ip-masq".to_string(), "--kube-subnet-mgr".to_string()];
    if !addresses.is_empty() {
        args.push(format!("--iface-regex=^({})$", addresses.join("|")));
    }
    args
}

/// The `rke2-flannel` chart values the plan decides: the backend, the VNI and the VXLAN port
/// under the key the release's chart reads (`vxlanBackendPort` in v0.24.201, `backendPort`
/// later; rancher/rke2-charts PR #424), and the Linux flanneld's arguments. Written even where
/// they equal the chart's defaults: the April and May 2024 charts default the VNI to 1
/// (rancher/rke2#5952). For the standalone HelmChartConfig and Rancher's `chartValues` alike
/// (Rancher writes them into the same HelmChartConfig).
pub(crate) fn flannel_values_with_args(plan: &Plan) -> Result<Value, RenderError> {
    let bundled = rke2_plan(plan)?
        .release
        .as_ref()
        .ok()
        .and_then(|release| release.flannel())
        .ok_or_else(|| RenderError("the RKE2 release has no `cni: flannel`".into()))?;
    let mut flannel = Map::new();
    flannel.insert("backend".into(), json!(plan.flannel.backend.as_str()));
    if plan.flannel.backend == Backend::Vxlan {
        flannel.insert("vni".into(), json!(plan.flannel.vni));
        flannel.insert(
            bundled.chart_line().port_key.into(),
            json!(plan.flannel.port),
        );
    }
    flannel.insert("args".into(), json!(linux_flanneld_args(plan)));
    Ok(json!({ "flannel": flannel }))
}

fn helm_chart_config(plan: &Plan) -> Result<String, RenderError> {
    let values = flannel_values_with_args(plan)?;
    let values = super::yaml::document(&values);
    let object = json!({
        "apiVersion": "helm.cattle.io/v1",
        "kind": "HelmChartConfig",
        "metadata": {"name": "rke2-flannel", "namespace": "kube-system"},
        "spec": {"valuesContent": values},
    });
    Ok(format!(
        "# Code generated by hybridgen; DO NOT EDIT.\n\
         # The rke2-flannel chart's values: every server's install.sh puts this file in\n\
         # /var/lib/rancher/rke2/server/manifests/ before RKE2 first starts, so the chart is\n\
         # installed with them (docs.rke2.io \"Helm Integration\": the name and namespace must be\n\
         # the HelmChart's, rke2-flannel in kube-system).\n{}",
        super::yaml::document(&object)
    ))
}

/// One node's `config.yaml`.
fn node_config(
    input: &Input,
    network: &Network,
    rke2: &Rke2Plan,
    index: usize,
    join: &str,
) -> Result<String, RenderError> {
    let plan = input.plan;
    let node = &plan.nodes[index];
    let server = rke2.is_server(index);
    let mut keys = if server {
        cluster_keys(plan, network)
    } else {
        Map::new()
    };
    merge(&mut keys, every_node_keys(plan));
    keys.insert("node-name".into(), json!(node.name));
    keys.insert("node-ip".into(), json!(node_address(node)?.to_string()));
    keys.insert("token-file".into(), json!(install::token_file(node.os)));
    if rke2.first_server != Some(index) {
        keys.insert("server".into(), json!(join));
    }
    if server {
        // A server's own address is in its certificate already: the join address is a SAN to add
        // only where it names another machine (a load balancer, another server).
        if let Some(Ok(address)) = &rke2.join_address
            && *address != node_address(node)?
        {
            keys.insert("tls-san".into(), json!([address.to_string()]));
        }
        merge(&mut keys, server_role_keys(&node.roles));
    }
    merge(&mut keys, extra_keys(input.spec, false));
    if server {
        merge(&mut keys, extra_keys(input.spec, true));
    }
    let kind = if server { "server" } else { "agent" };
    let path = match node.os {
        Os::Linux => "/etc/rancher/rke2/config.yaml",
        Os::Windows => r"C:\etc\rancher\rke2\config.yaml",
    };
    Ok(format!(
        "# Code generated by hybridgen; DO NOT EDIT.\n\
         # RKE2 {kind} configuration of node {}, for {path}. It holds no secret: {} writes the\n\
         # join token into `token-file` from the environment when it runs.\n{}",
        node.name,
        install::script_name(node.os),
        super::yaml::document(&Value::Object(keys))
    ))
}

/// What a server's roles turn off (docs.rke2.io "Server Roles"): a server without `etcd` runs no
/// etcd, one without `controlplane` no API server, scheduler or controller manager; and one
/// without `worker` is tainted so that no workload is scheduled there.
fn server_role_keys(roles: &[Role]) -> Map<String, Value> {
    let mut keys = Map::new();
    if !roles.contains(&Role::Etcd) {
        keys.insert("disable-etcd".into(), json!(true));
    }
    if !roles.contains(&Role::Controlplane) {
        for component in ["apiserver", "controller-manager", "scheduler"] {
            keys.insert(format!("disable-{component}"), json!(true));
        }
    }
    if !roles.contains(&Role::Worker) {
        keys.insert("node-taint".into(), json!([DEDICATED_SERVER_TAINT]));
    }
    keys
}

#[cfg(test)]
mod tests;

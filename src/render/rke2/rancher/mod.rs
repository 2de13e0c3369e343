//! RKE2 through Rancher v2 (`rancher:`): a custom cluster, whose nodes Rancher's agent installs
//! and configures itself. Rendered:
//! - `rancher/cluster.yaml`: the `provisioning.cattle.io/v1` `Cluster`, to apply to Rancher's
//!   own (local) cluster. `machineGlobalConfig` holds what every node shares and Rancher passes
//!   on: `cni: flannel` always (Rancher's default is calico: rancher/rancher
//!   `pkg/capr/planner/config.go` `addDefaults`), the ranges and cluster DNS, and the flags the
//!   plan decides — only keys Rancher's version data lists as RKE2 server or agent arguments
//!   (rancher/kontainer-driver-metadata `channels-rke2.yaml`), since it drops the others
//!   (`pkg/capr/planner/filter.go`); `rke2.serverConfig` goes to the servers through
//!   `machineSelectorConfig`; `chartValues.rke2-flannel` holds the flannel values.
//! - `rancher/cluster.tf.json`: the same cluster as Terraform's `rancher2_cluster_v2`
//!   (terraform-provider-rancher2 `docs/resources/cluster_v2.md`), with each node's registration
//!   command as a sensitive output built from the `cluster_registration_token` Rancher returns.
//!   Written by `render::terraform`, so no value of the spec is a Terraform template.
//! - `rancher/<node>/register.sh` (Linux) or `register.ps1` (Windows): Rancher's node command
//!   with the flags `machineGlobalConfig` cannot carry per node — roles, `--node-name`,
//!   `--internal-address` (which becomes RKE2's `node-ip`, the address Windows flanneld binds
//!   to). The registration token is read from the environment when the script runs
//!   (`CATTLE_TOKEN`, the variable Rancher's installers read); no file holds it.

use super::{
    cluster_keys, every_node_keys, extra_keys, flannel_values_with_args, merge, rke2_plan,
};
use crate::plan::rke2::RancherPlan;
use crate::plan::{NodePlan, Plan};
use crate::render::script::{Script, path_segment, powershell_quote, script_value, shell_quote};
use crate::render::terraform::{self, Expression};
use crate::render::{Artifact, ControllerManager, Input, RenderError, Room, yaml};
use crate::spec::{Os, Role};
use serde_json::{Map, Value, json};

pub const CLUSTER_PATH: &str = "rancher/cluster.yaml";
pub const TERRAFORM_PATH: &str = "rancher/cluster.tf.json";
/// The namespace Rancher keeps custom clusters in, and `rancher2_cluster_v2`'s default
/// `fleet_namespace`.
pub const FLEET_NAMESPACE: &str = "fleet-default";

/// The Machine labels Rancher gives a node registered with a role (rancher/rancher
/// `pkg/capr/common.go`): `rke2.serverConfig` is selected by them.
const SERVER_ROLE_LABELS: [&str; 2] = [
    "rke.cattle.io/control-plane-role",
    "rke.cattle.io/etcd-role",
];

/// `rancher2` provider lines by Rancher minor: 2.x for Rancher 2.6 to 8.x for 2.12, then the
/// provider's major is Rancher's minor (terraform-provider-rancher2 `README.md` and
/// `docs/compatibility-matrix.md`).
const PROVIDER_MAJORS: [(u32, u32); 7] =
    [(6, 2), (7, 3), (8, 4), (9, 5), (10, 6), (11, 7), (12, 8)];

pub(crate) struct Rancher;

impl Room for Rancher {
    fn paths(&self, input: &Input) -> Result<Vec<String>, RenderError> {
        let mut paths = vec![CLUSTER_PATH.to_string(), TERRAFORM_PATH.to_string()];
        for node in &input.plan.nodes {
            paths.push(script_path(node)?);
        }
        Ok(paths)
    }

    fn render(&self, input: &Input) -> Result<Vec<Artifact>, RenderError> {
        let rancher = rancher_plan(input.plan)?;
        let cluster = ClusterConfig::of(input)?;
        let mut artifacts = vec![
            Artifact::new(CLUSTER_PATH, cluster_object(input, &cluster)?),
            Artifact::new(TERRAFORM_PATH, terraform(input, rancher, &cluster)?),
        ];
        for (index, node) in input.plan.nodes.iter().enumerate() {
            artifacts.push(Artifact::new(
                script_path(node)?,
                registration_script(input, rancher, index)?,
            ));
        }
        Ok(artifacts)
    }

    fn controller_manager(&self) -> ControllerManager {
        ControllerManager {
            flags_in: "rancher/cluster.yaml's machineGlobalConfig",
            started_by: "Rancher has started the first server",
        }
    }
}

/// `rancher/<node>/register.sh`, or `register.ps1` on Windows.
fn rancher_plan(plan: &Plan) -> Result<&RancherPlan, RenderError> {
    rke2_plan(plan)?
        .rancher
        .as_ref()
        .ok_or_else(|| RenderError("the plan has no Rancher part".into()))
}

fn script_path(node: &NodePlan) -> Result<String, RenderError> {
    let name = match node.os {
        Os::Linux => "register.sh",
        Os::Windows => "register.ps1",
    };
    Ok(format!("rancher/{}/{name}", path_segment(&node.name)?))
}

/// Rancher keeps only string, boolean and list values of a node's configuration
/// (rancher/rancher `pkg/capr/planner/filter.go`, `filterField`) and reads the configuration as
/// JSON, so every number arrives as a float and is dropped: numbers are written as strings, which
/// RKE2 reads the same (each key becomes `--key=value`).
fn numbers_as_strings(keys: Map<String, Value>) -> Map<String, Value> {
    keys.into_iter()
        .map(|(name, value)| match value {
            Value::Number(number) => (name, Value::String(number.to_string())),
            other => (name, other),
        })
        .collect()
}

/// What the `Cluster` object and the Terraform resource both carry.
struct ClusterConfig {
    kubernetes_version: String,
    machine_global_config: Map<String, Value>,
    /// `rke2.serverConfig`, for the servers only.
    server_config: Map<String, Value>,
    chart_values: Value,
}

impl ClusterConfig {
    fn of(input: &Input) -> Result<Self, RenderError> {
        let plan = input.plan;
        let network = input.network()?;
        let mut global = cluster_keys(plan, &network);
        merge(&mut global, every_node_keys(plan));
        merge(&mut global, extra_keys(input.spec, false));
        Ok(ClusterConfig {
            kubernetes_version: super::release_tag(rke2_plan(plan)?)?.to_string(),
            machine_global_config: numbers_as_strings(global),
            server_config: numbers_as_strings(extra_keys(input.spec, true)),
            chart_values: json!({ "rke2-flannel": flannel_values_with_args(plan)? }),
        })
    }

    /// One `machineSelectorConfig` entry per server role label: a node with either gets the
    /// servers' keys (entries are alternatives; the labels of one entry must all match).
    fn server_selectors(&self) -> Vec<(&'static str, &Map<String, Value>)> {
        if self.server_config.is_empty() {
            return Vec::new();
        }
        SERVER_ROLE_LABELS
            .into_iter()
            .map(|label| (label, &self.server_config))
            .collect()
    }
}

fn cluster_object(input: &Input, cluster: &ClusterConfig) -> Result<String, RenderError> {
    let mut rke_config = json!({
        "machineGlobalConfig": cluster.machine_global_config,
        "chartValues": cluster.chart_values,
    });
    let selectors: Vec<Value> = cluster
        .server_selectors()
        .into_iter()
        .map(|(label, config)| {
            json!({
                "machineLabelSelector": {"matchLabels": {label: "true"}},
                "config": config,
            })
        })
        .collect();
    if !selectors.is_empty() {
        rke_config["machineSelectorConfig"] = Value::Array(selectors);
    }
    let object = json!({
        "apiVersion": "provisioning.cattle.io/v1",
        "kind": "Cluster",
        "metadata": {"name": input.spec.metadata.name, "namespace": FLEET_NAMESPACE},
        "spec": {
            "kubernetesVersion": cluster.kubernetes_version,
            // flannel enforces no NetworkPolicy (docs.rke2.io "Basic Network Options").
            "enableNetworkPolicy": false,
            "rkeConfig": rke_config,
        },
    });
    Ok(format!(
        "# Code generated by hybridgen; DO NOT EDIT.\n\
         # The Rancher custom cluster: apply it to Rancher's own cluster (the `local` cluster),\n\
         #   kubectl apply -f rancher/cluster.yaml\n\
         # then register each node with rancher/<node>/register.sh or register.ps1.\n{}",
        yaml::document(&object)
    ))
}

/// The provider line for a Rancher release.
fn provider_major(rancher: &RancherPlan) -> u32 {
    let minor = rancher.version.as_ref().map_or(14, |version| version.minor);
    PROVIDER_MAJORS
        .iter()
        .find(|(rancher_minor, _)| *rancher_minor == minor)
        .map_or(minor, |(_, major)| *major)
}

fn terraform(
    input: &Input,
    rancher: &RancherPlan,
    cluster: &ClusterConfig,
) -> Result<String, RenderError> {
    let name = &input.spec.metadata.name;
    let mut rke_config = json!({
        "machine_global_config": yaml::document(&Value::Object(cluster.machine_global_config.clone())),
        "chart_values": yaml::document(&cluster.chart_values),
    });
    let selectors: Vec<Value> = cluster
        .server_selectors()
        .into_iter()
        .map(|(label, config)| {
            json!({
                "machine_label_selector": [{"match_labels": {label: "true"}}],
                "config": yaml::document(&Value::Object(config.clone())),
            })
        })
        .collect();
    if !selectors.is_empty() {
        rke_config["machine_selector_config"] = Value::Array(selectors);
    }
    // The resource's name in Terraform, which must be an identifier; the cluster keeps its name.
    let resource = terraform::identifier(name);
    let token = format!("rancher2_cluster_v2.{resource}.cluster_registration_token[0]");
    let mut outputs = Map::new();
    for node in &input.plan.nodes {
        let (command, flags) = match node.os {
            Os::Linux => ("node_command", linux_flags(node)?.join(" ")),
            Os::Windows => ("windows_node_command", windows_flags(node)?.join(" ")),
        };
        let value =
            Expression::reference(&format!("{token}.{command}"))?.followed_by(&format!(" {flags}"));
        // Node names may hold dots (`ip-10-0-0-1.eu-west-1.compute.internal`), which become `_`
        // like `-`: two names that differ only there would share one output.
        let output = terraform::identifier(&format!("register_{}", node.name.replace('-', "_")));
        if outputs.contains_key(&output) {
            return Err(RenderError(format!(
                "two nodes would share the Terraform output name `{output}`: rename one of them"
            )));
        }
        outputs.insert(
            output,
            json!({
                "description": format!("The registration command of node {}: run it on the node.", node.name),
                "value": value,
                "sensitive": true,
            }),
        );
    }
    let document = json!({
        "//": format!(
            "Code generated by hybridgen; DO NOT EDIT. The Rancher custom cluster {name} on {}; the provider reads RANCHER_URL and RANCHER_TOKEN_KEY.",
            rancher.url
        ),
        "terraform": {
            "required_providers": {
                "rancher2": {
                    "source": "rancher/rancher2",
                    "version": format!("~> {}.0", provider_major(rancher)),
                },
            },
        },
        "resource": {
            "rancher2_cluster_v2": {
                resource: {
                    "name": name,
                    "fleet_namespace": FLEET_NAMESPACE,
                    "kubernetes_version": cluster.kubernetes_version,
                    "enable_network_policy": false,
                    "rke_config": [rke_config],
                },
            },
        },
        "output": outputs,
    });
    terraform::document(&document, TERRAFORM_PATH)
}

/// The Linux installer's flags for a node, after Rancher's own (rancher/system-agent
/// `install.sh`: `--etcd`, `--controlplane`, `--worker`, `--node-name`, `--internal-address`;
/// `-a` is `--all-roles`, so the long forms are written).
fn linux_flags(node: &NodePlan) -> Result<Vec<String>, RenderError> {
    let mut flags: Vec<String> = [
        (Role::Etcd, "--etcd"),
        (Role::Controlplane, "--controlplane"),
        (Role::Worker, "--worker"),
    ]
    .into_iter()
    .filter(|(role, _)| node.roles.contains(role))
    .map(|(_, flag)| flag.to_string())
    .collect();
    flags.push(format!(
        "--node-name {}",
        shell_quote(script_value(&node.name, "node name")?)
    ));
    flags.push(format!("--internal-address {}", super::node_address(node)?));
    Ok(flags)
}

/// The Windows installer's parameters after Rancher's command, which has `-Worker` already
/// (rancher/wins `install.ps1`: `-NodeName`, `-InternalAddress`).
fn windows_flags(node: &NodePlan) -> Result<Vec<String>, RenderError> {
    Ok(vec![
        format!(
            "-NodeName {}",
            powershell_quote(script_value(&node.name, "node name")?)
        ),
        format!("-InternalAddress {}", super::node_address(node)?),
    ])
}

fn registration_script(
    input: &Input,
    rancher: &RancherPlan,
    index: usize,
) -> Result<String, RenderError> {
    let node = &input.plan.nodes[index];
    let name = script_value(&node.name, "node name")?;
    let url = script_value(&rancher.url, "rancher.url")?;
    Ok(match node.os {
        Os::Linux => linux_script(name, url, &linux_flags(node)?),
        Os::Windows => windows_script(name, url, &super::node_address(node)?.to_string()),
    })
}

fn linux_script(name: &str, url: &str, flags: &[String]) -> String {
    let mut script = Script::bash();
    script.comment("Code generated by hybridgen; DO NOT EDIT.");
    script.comment(&format!(
        "Registers node {name} with Rancher {url}: Rancher's node command, with the node's roles,"
    ));
    script.comment("name and internal address. Rancher's agent then installs and configures RKE2.");
    script.comment("The registration token is read when it runs, never written here: copy it from");
    script
        .comment("the cluster's Registration tab, or `terraform output -raw` of the cluster, then");
    script.comments(&[
        &format!("  CATTLE_TOKEN=<token> bash rancher/{name}/register.sh"),
        "(and CATTLE_CA_CHECKSUM=<sha256> when Rancher's certificate is from a private CA).",
    ]);
    script.line("set -euo pipefail");
    script.blank();
    script.line(": \"${CATTLE_TOKEN:?set CATTLE_TOKEN to the registration token of the cluster, see docs/rke2.md}\"");
    script.line(&format!(
        "args=(--server {} --label 'cattle.io/os=linux' --token \"$CATTLE_TOKEN\")",
        shell_quote(url)
    ));
    script.line("if [ -n \"${CATTLE_CA_CHECKSUM:-}\" ]; then");
    script.line("  args+=(--ca-checksum \"$CATTLE_CA_CHECKSUM\")");
    script.line("fi");
    script.line(&format!("args+=({})", flags.join(" ")));
    script.line(&format!(
        "curl -fL {} | sudo sh -s - \"${{args[@]}}\"",
        shell_quote(&format!("{url}/system-agent-install.sh"))
    ));
    script.finish()
}

fn windows_script(name: &str, url: &str, address: &str) -> String {
    let quoted = |value: &str| powershell_quote(value);
    let lines = [
        "# Code generated by hybridgen; DO NOT EDIT.".to_string(),
        format!("# Registers Windows node {name} with Rancher {url} as a worker: Rancher's Windows node command,"),
        "# with the node's name and internal address. Rancher's agent then installs RKE2.".into(),
        "# The registration token is read when it runs, never written here: copy it from the cluster's".into(),
        "# Registration tab, or `terraform output -raw` of the cluster, then in an elevated PowerShell:".into(),
        format!("#   $env:CATTLE_TOKEN = '<token>'; powershell -ExecutionPolicy Bypass -File rancher\\{name}\\register.ps1"),
        "# (and $env:CATTLE_CA_CHECKSUM = '<sha256>' when Rancher's certificate is from a private CA).".into(),
        "$ErrorActionPreference = 'Stop'".into(),
        "if (-not $env:CATTLE_TOKEN) {".into(),
        "    throw \"set CATTLE_TOKEN to the cluster's registration token (see docs/rke2.md)\"".into(),
        "}".into(),
        String::new(),
        super::install::CONTAINERS_FEATURE.into(),
        String::new(),
        "$installer = Join-Path $env:TEMP 'wins-agent-install.ps1'".into(),
        format!("curl.exe -fL {} -o $installer", quoted(&format!("{url}/wins-agent-install.ps1"))),
        "if ($LASTEXITCODE -ne 0) { throw 'could not download the Rancher agent installer' }".into(),
        "Set-ExecutionPolicy Bypass -Scope Process -Force".into(),
        "$arguments = @{".into(),
        format!("    Server = {}", quoted(url)),
        "    Label = 'cattle.io/os=windows'".into(),
        "    Token = $env:CATTLE_TOKEN".into(),
        "    Worker = $true".into(),
        format!("    NodeName = {}", quoted(name)),
        format!("    InternalAddress = {}", quoted(address)),
        "}".into(),
        "if ($env:CATTLE_CA_CHECKSUM) { $arguments.CaChecksum = $env:CATTLE_CA_CHECKSUM }".into(),
        "# The installer stops with `exit 255` on a failure, which sets $LASTEXITCODE and throws nothing.".into(),
        "$global:LASTEXITCODE = 0".into(),
        "& $installer @arguments".into(),
        "if ($LASTEXITCODE -ne 0) { throw \"the Rancher agent installer failed with exit code $LASTEXITCODE: read its output above\" }".into(),
    ];
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests;

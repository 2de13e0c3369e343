//! The routes artifacts. `routes/routes.json` always lists every pod route (destination, next hop,
//! node). host-gw needs more, and only the plan decides which:
//!
//! - on a cloud (aws, gce, azure): that cloud's script (`routes/<cloud>.sh`) and Terraform JSON
//!   (`routes/<cloud>.tf.json`), one route per node plus per-node forwarding;
//! - on bare metal across networks (the case HG206 reports, rendered anyway when downgraded):
//!   one route script per node under `routes/hosts/`.
//!
//! Scripts are built in Rust rather than templates: every interpolated value goes through one
//! quoting function, which is easier to see (and test) here than in template filters.

use super::{Artifact, Input, RenderError};
use crate::plan::Plan;
use crate::spec::{Backend, NodeCloud, Os, Provider, Spec};
use ipnet::Ipv4Net;
use serde::Serialize;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

/// GCE resource names: `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
const GCE_NAME_MAX: usize = 63;
/// Azure route names: at most 80 characters (letters, digits, `_`, `.`, `-`).
const AZURE_NAME_MAX: usize = 80;
/// The priority gcloud gives a route by default; written out so the script and Terraform agree.
const GCE_ROUTE_PRIORITY: u32 = 1000;

/// The files `render` writes here, without rendering them.
pub fn paths(input: &Input) -> Result<Vec<String>, RenderError> {
    let mut paths = vec![ROUTES_PATH.to_string()];
    if input.plan.flannel.backend != Backend::HostGw {
        return Ok(paths);
    }
    let cloud = |name: &str| {
        [
            format!("routes/{name}.sh"),
            format!("routes/{name}.tf.json"),
        ]
    };
    match input.spec.provider() {
        Provider::Aws => paths.extend(cloud("aws")),
        Provider::Gce => paths.extend(cloud("gce")),
        Provider::Azure => paths.extend(cloud("azure")),
        Provider::None if routed_hosts(input.plan) => {
            for node in &input.plan.nodes {
                paths.push(host_script_path(&node.name, node.os)?);
            }
        }
        Provider::None => {}
    }
    Ok(paths)
}

const ROUTES_PATH: &str = "routes/routes.json";

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let mut artifacts = vec![routes_json(input)?];
    if input.plan.flannel.backend != Backend::HostGw {
        // vxlan encapsulates between node addresses: nothing outside flannel routes pod subnets.
        return Ok(artifacts);
    }
    match input.spec.provider() {
        Provider::Aws => artifacts.extend(aws(input)?),
        Provider::Gce => artifacts.extend(gce(input)?),
        Provider::Azure => artifacts.extend(azure(input)?),
        Provider::None => artifacts.extend(hosts(input)?),
    }
    Ok(artifacts)
}

// ---------------------------------------------------------------------------------------------
// routes/routes.json

#[derive(Serialize)]
struct RoutesFile<'a> {
    backend: &'static str,
    provider: &'static str,
    routes: Vec<RouteEntry<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RouteEntry<'a> {
    destination: Ipv4Net,
    next_hop: Ipv4Addr,
    node: &'a str,
    os: &'static str,
}

fn routes_json(input: &Input) -> Result<Artifact, RenderError> {
    let plan = input.plan;
    let routes = plan
        .routes
        .iter()
        .map(|route| {
            let node = plan.nodes.get(route.node).ok_or_else(|| {
                RenderError(format!(
                    "routes: a route names node #{}, which does not exist",
                    route.node
                ))
            })?;
            Ok(RouteEntry {
                destination: route.destination,
                next_hop: route.next_hop,
                node: &node.name,
                os: node.os.as_str(),
            })
        })
        .collect::<Result<Vec<_>, RenderError>>()?;
    let file = RoutesFile {
        backend: plan.flannel.backend.as_str(),
        provider: input.spec.provider().as_str(),
        routes,
    };
    Ok(Artifact::new(ROUTES_PATH, pretty_json(&file, ROUTES_PATH)?))
}

fn pretty_json<T: Serialize>(value: &T, path: &str) -> Result<String, RenderError> {
    let mut text = serde_json::to_string_pretty(value)
        .map_err(|error| RenderError(format!("`{path}` could not be serialized: {error}")))?;
    text.push('\n');
    // The serializer doubles its buffer as it goes; the file is kept until written.
    text.shrink_to_fit();
    Ok(text)
}

// ---------------------------------------------------------------------------------------------
// One route per node, for the host-gw artifacts

/// A node's pod route, with what the scripts print about it.
struct NodeRoute<'a> {
    index: usize,
    name: &'a str,
    os: Os,
    destination: Ipv4Net,
    next_hop: Ipv4Addr,
}

/// Every node's route, in node order. host-gw sends each pod subnet to its node, so a node without
/// a subnet or an address (which lint reports as an error) cannot be rendered.
fn node_routes(plan: &Plan) -> Result<Vec<NodeRoute<'_>>, RenderError> {
    // Indexed by node once, so that finding each node's route is not a scan of all routes.
    let mut route_of = vec![None; plan.nodes.len()];
    for route in &plan.routes {
        if let Some(slot) = route_of.get_mut(route.node) {
            *slot = Some(route);
        }
    }
    plan.nodes
        .iter()
        .zip(route_of)
        .enumerate()
        .map(|(index, (node, route))| {
            let route = route.ok_or_else(|| {
                    RenderError(format!(
                        "routes: node `{}` has no pod subnet or no valid address, so no route can be written",
                        node.name
                    ))
                })?;
            Ok(NodeRoute {
                index,
                name: &node.name,
                os: node.os,
                destination: route.destination,
                next_hop: route.next_hop,
            })
        })
        .collect()
}

fn node_cloud<'a>(spec: &'a Spec, route: &NodeRoute) -> Option<&'a NodeCloud> {
    spec.nodes.get(route.index)?.cloud.as_ref()
}

fn missing(what: &str) -> RenderError {
    RenderError(format!("routes: `{what}` is missing"))
}

fn node_missing(node: &str, field: &str) -> RenderError {
    RenderError(format!("routes: node `{node}` has no `cloud.{field}`"))
}

// ---------------------------------------------------------------------------------------------
// AWS

#[derive(Serialize)]
struct AwsTerraform {
    #[serde(rename = "//")]
    comment: &'static str,
    data: AwsData,
    resource: AwsResources,
}

#[derive(Serialize)]
struct AwsData {
    aws_instance: BTreeMap<String, AwsInstanceLookup>,
}

#[derive(Serialize)]
struct AwsInstanceLookup {
    instance_id: String,
}

#[derive(Serialize)]
struct AwsResources {
    aws_route: BTreeMap<String, AwsRoute>,
}

#[derive(Serialize)]
struct AwsRoute {
    route_table_id: String,
    destination_cidr_block: String,
    network_interface_id: String,
}

const AWS_TF_COMMENT: &str = "Pod routes for flannel host-gw, generated by hybridgen: one route per node to the primary network interface of its instance (aws_route's instance_id argument is deprecated since provider 4.0 and no longer accepted by current releases). Each instance must also have its source/destination check off (source_dest_check = false on the aws_instance, or routes/aws.sh). Create the routes with this file or with routes/aws.sh, not both: Terraform refuses routes it did not create.";

fn aws(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let spec = input.spec;
    let settings = spec
        .cloud
        .as_ref()
        .and_then(|cloud| cloud.aws.as_ref())
        .ok_or_else(|| missing("cloud.aws"))?;
    let region = settings
        .region
        .as_deref()
        .ok_or_else(|| missing("cloud.aws.region"))?;
    let table = settings
        .route_table_id
        .as_deref()
        .ok_or_else(|| missing("cloud.aws.routeTableId"))?;
    script_value(region, "cloud.aws.region")?;
    script_value(table, "cloud.aws.routeTableId")?;
    let routes = node_routes(input.plan)?;

    let mut script = Script::bash();
    script.comment(&format!(
        "Pod routes for flannel host-gw on AWS, cluster {}: generated by hybridgen.",
        script_value(&spec.metadata.name, "metadata.name")?
    ));
    script.comment(
        "Each node forwards for its pod subnet, so its source/destination check is turned off,",
    );
    script.comment(&format!(
        "and route table {table} sends the subnet to the node's instance."
    ));
    script.comment(
        "Safe to re-run: turning the check off again changes nothing, and each route is replaced",
    );
    script.comment(
        "when it exists (replace-route fails when it does not; create-route then adds it).",
    );
    script.comment("Routes of nodes that were removed from the spec are not deleted.");
    script.line("set -euo pipefail");
    script.comment(
        "awscli v2 pages its output through `less` on a terminal; a script must not wait for it.",
    );
    script.line("export AWS_PAGER=''");

    let mut lookups = BTreeMap::new();
    let mut resources = BTreeMap::new();
    for route in &routes {
        let instance = node_cloud(spec, route)
            .and_then(|cloud| cloud.instance_id.as_deref())
            .ok_or_else(|| node_missing(route.name, "instanceId"))?;
        script_value(instance, "cloud.instanceId")?;
        let name = script_value(route.name, "node name")?;
        let cidr = route.destination.to_string();
        let common = format!(
            "--region {} --route-table-id {} --destination-cidr-block {} --instance-id {}",
            shell_quote(region),
            shell_quote(table),
            shell_quote(&cidr),
            shell_quote(instance)
        );
        script.blank();
        script.echo(&format!(
            "{name}: turning off the source/destination check of instance {instance}"
        ));
        script.line(&format!(
            "aws ec2 modify-instance-attribute --region {} --instance-id {} --no-source-dest-check",
            shell_quote(region),
            shell_quote(instance)
        ));
        script.echo(&format!(
            "{name}: routing {cidr} to instance {instance} in route table {table}"
        ));
        script.line(&format!("aws ec2 replace-route {common} 2>/dev/null \\"));
        script.line(&format!("  || aws ec2 create-route {common}"));

        let resource_name = terraform_name(route.name);
        unique_insert(
            &mut resources,
            resource_name.clone(),
            AwsRoute {
                route_table_id: terraform_literal(table),
                destination_cidr_block: cidr,
                network_interface_id: format!(
                    "${{data.aws_instance.{resource_name}.network_interface_id}}"
                ),
            },
        )?;
        lookups.insert(
            resource_name,
            AwsInstanceLookup {
                instance_id: terraform_literal(instance),
            },
        );
    }
    let terraform = AwsTerraform {
        comment: AWS_TF_COMMENT,
        data: AwsData {
            aws_instance: lookups,
        },
        resource: AwsResources {
            aws_route: resources,
        },
    };
    Ok(cloud_artifacts("aws", script, &terraform)?.into())
}

// ---------------------------------------------------------------------------------------------
// GCE

#[derive(Serialize)]
struct GceTerraform {
    #[serde(rename = "//")]
    comment: &'static str,
    resource: GceResources,
}

#[derive(Serialize)]
struct GceResources {
    google_compute_route: BTreeMap<String, GceRoute>,
}

#[derive(Serialize)]
struct GceRoute {
    name: String,
    project: String,
    network: String,
    dest_range: String,
    next_hop_instance: String,
    next_hop_instance_zone: String,
    priority: u32,
}

const GCE_TF_COMMENT: &str = "Pod routes for flannel host-gw, generated by hybridgen: one route per node to the instance named like the node. Each instance must have been created with IP forwarding (can_ip_forward = true); the routes cannot turn it on. Create the routes with this file or with routes/gce.sh, not both: Terraform refuses routes it did not create.";

fn gce(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let spec = input.spec;
    let settings = spec
        .cloud
        .as_ref()
        .and_then(|cloud| cloud.gce.as_ref())
        .ok_or_else(|| missing("cloud.gce"))?;
    let project = settings
        .project
        .as_deref()
        .ok_or_else(|| missing("cloud.gce.project"))?;
    let network = settings
        .network
        .as_deref()
        .ok_or_else(|| missing("cloud.gce.network"))?;
    script_value(project, "cloud.gce.project")?;
    script_value(network, "cloud.gce.network")?;
    let cluster = script_value(&spec.metadata.name, "metadata.name")?;
    let routes = node_routes(input.plan)?;

    let mut script = Script::bash();
    script.comment(&format!(
        "Pod routes for flannel host-gw on GCE, cluster {cluster}: generated by hybridgen."
    ));
    script.comment(&format!(
        "Network {network} of project {project} gets one route per node: the node's pod subnet goes to"
    ));
    script.comment("the instance named like the node.");
    script.comment("IP forwarding: each instance must have been created with `--can-ip-forward`");
    script.comment("(gcloud compute instances create NAME --can-ip-forward ...). This script cannot turn it on");
    script.comment("for an existing instance; without it the instance drops pod traffic.");
    script.comment(
        "Safe to re-run: a route that already exists (by name) is left alone. GCE routes cannot be",
    );
    script.comment("changed: when a node's pod subnet or zone changes, delete its route first");
    script.comment("(gcloud compute routes delete NAME --project PROJECT). Routes of removed nodes are not deleted.");
    script.line("set -euo pipefail");
    script.blank();
    script.echo("NOTE: each node instance must have been created with --can-ip-forward; this script cannot turn it on.");

    let mut names = BTreeSet::new();
    let mut resources = BTreeMap::new();
    for route in &routes {
        let zone = node_cloud(spec, route)
            .and_then(|cloud| cloud.zone.as_deref())
            .ok_or_else(|| node_missing(route.name, "zone"))?;
        script_value(zone, "cloud.zone")?;
        let instance = script_value(route.name, "node name")?;
        let name = cloud_route_name(cluster, instance, GCE_NAME_MAX);
        if !names.insert(name.clone()) {
            return Err(RenderError(format!(
                "routes: two nodes would share the GCE route name `{name}`"
            )));
        }
        let cidr = route.destination.to_string();
        script.blank();
        script.echo(&format!(
            "{instance}: route {name} sends {cidr} to instance {instance} in {zone}"
        ));
        script.line(&format!(
            "gcloud compute routes describe {} --project {} >/dev/null 2>&1 \\",
            shell_quote(&name),
            shell_quote(project)
        ));
        script.line(&format!(
            "  || gcloud compute routes create {} --project {} --network {} --destination-range {} \\",
            shell_quote(&name),
            shell_quote(project),
            shell_quote(network),
            shell_quote(&cidr)
        ));
        script.line(&format!(
            "       --next-hop-instance {} --next-hop-instance-zone {} --priority {GCE_ROUTE_PRIORITY}",
            shell_quote(instance),
            shell_quote(zone)
        ));
        unique_insert(
            &mut resources,
            terraform_name(route.name),
            GceRoute {
                name,
                project: terraform_literal(project),
                network: terraform_literal(network),
                dest_range: cidr,
                next_hop_instance: terraform_literal(instance),
                next_hop_instance_zone: terraform_literal(zone),
                priority: GCE_ROUTE_PRIORITY,
            },
        )?;
    }
    let terraform = GceTerraform {
        comment: GCE_TF_COMMENT,
        resource: GceResources {
            google_compute_route: resources,
        },
    };
    Ok(cloud_artifacts("gce", script, &terraform)?.into())
}

// ---------------------------------------------------------------------------------------------
// Azure

#[derive(Serialize)]
struct AzureTerraform {
    #[serde(rename = "//")]
    comment: &'static str,
    resource: AzureResources,
}

#[derive(Serialize)]
struct AzureResources {
    azurerm_route: BTreeMap<String, AzureRoute>,
}

#[derive(Serialize)]
struct AzureRoute {
    name: String,
    resource_group_name: String,
    route_table_name: String,
    address_prefix: String,
    next_hop_type: &'static str,
    next_hop_in_ip_address: String,
}

const AZURE_TF_COMMENT: &str = "Pod routes for flannel host-gw, generated by hybridgen: one route per node to the node's address. Each node's NIC must also forward (ip_forwarding_enabled = true on the azurerm_network_interface, or routes/azure.sh), and the route table must be associated with the nodes' subnet. Create the routes with this file or with routes/azure.sh, not both: Terraform refuses routes it did not create.";

fn azure(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let spec = input.spec;
    let settings = spec
        .cloud
        .as_ref()
        .and_then(|cloud| cloud.azure.as_ref())
        .ok_or_else(|| missing("cloud.azure"))?;
    let group = settings
        .resource_group
        .as_deref()
        .ok_or_else(|| missing("cloud.azure.resourceGroup"))?;
    let table = settings
        .route_table_name
        .as_deref()
        .ok_or_else(|| missing("cloud.azure.routeTableName"))?;
    script_value(group, "cloud.azure.resourceGroup")?;
    script_value(table, "cloud.azure.routeTableName")?;
    let cluster = script_value(&spec.metadata.name, "metadata.name")?;
    let routes = node_routes(input.plan)?;

    let mut script = Script::bash();
    script.comment(&format!(
        "Pod routes for flannel host-gw on Azure, cluster {cluster}: generated by hybridgen."
    ));
    script.comment(
        "Each node's NIC forwards for its pod subnet, and the route table sends the subnet to the",
    );
    script.comment(&format!(
        "node's address: route table {table} in resource group {group}, which must be associated"
    ));
    script.comment("with the nodes' subnet.");
    script.comment("Safe to re-run: `az network nic update` sets the same value again, and");
    script.comment("`az network route-table route create` updates a route that already exists.");
    script.comment("Routes of nodes that were removed from the spec are not deleted.");
    script.line("set -euo pipefail");

    let mut names = BTreeSet::new();
    let mut resources = BTreeMap::new();
    for route in &routes {
        let nic = node_cloud(spec, route)
            .and_then(|cloud| cloud.nic.as_deref())
            .ok_or_else(|| node_missing(route.name, "nic"))?;
        script_value(nic, "cloud.nic")?;
        let node = script_value(route.name, "node name")?;
        let name = cloud_route_name(cluster, node, AZURE_NAME_MAX);
        if !names.insert(name.clone()) {
            return Err(RenderError(format!(
                "routes: two nodes would share the Azure route name `{name}`"
            )));
        }
        let cidr = route.destination.to_string();
        let next_hop = route.next_hop.to_string();
        script.blank();
        script.echo(&format!("{node}: enabling IP forwarding on NIC {nic}"));
        script.line(&format!(
            "az network nic update --resource-group {} --name {} --ip-forwarding true --output none",
            shell_quote(group),
            shell_quote(nic)
        ));
        script.echo(&format!("{node}: route {name} sends {cidr} to {next_hop}"));
        script.line(&format!(
            "az network route-table route create --resource-group {} --route-table-name {} --name {} \\",
            shell_quote(group),
            shell_quote(table),
            shell_quote(&name)
        ));
        script.line(&format!(
            "  --address-prefix {} --next-hop-type VirtualAppliance --next-hop-ip-address {} --output none",
            shell_quote(&cidr),
            shell_quote(&next_hop)
        ));
        unique_insert(
            &mut resources,
            terraform_name(route.name),
            AzureRoute {
                name,
                resource_group_name: terraform_literal(group),
                route_table_name: terraform_literal(table),
                address_prefix: cidr,
                next_hop_type: "VirtualAppliance",
                next_hop_in_ip_address: next_hop,
            },
        )?;
    }
    let terraform = AzureTerraform {
        comment: AZURE_TF_COMMENT,
        resource: AzureResources {
            azurerm_route: resources,
        },
    };
    Ok(cloud_artifacts("azure", script, &terraform)?.into())
}

// ---------------------------------------------------------------------------------------------
// Bare metal across networks: routes/hosts/<node>.sh and .ps1

/// host-gw on bare metal where the nodes are not all on one L2 network (HG206, downgraded): one
/// script per node in the layout of the Kubernetes 1.8 Windows guide, a route to each other node's
/// pod subnet via that node's address. A next hop must be on a network the node is attached to
/// (Linux refuses others with "Nexthop has invalid gateway"), so pod subnets of nodes on another
/// network are left to the upstream router ("Upstream L3 Routing"), and the script says so.
fn hosts(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    if !routed_hosts(plan) {
        return Ok(Vec::new());
    }
    let cluster = script_value(&input.spec.metadata.name, "metadata.name")?;
    let routes = node_routes(plan)?;
    let mut artifacts = Vec::new();
    for node in &routes {
        let name = path_segment(node.name)?;
        script_value(name, "node name")?;
        let peers: Vec<(&NodeRoute, bool)> = routes
            .iter()
            .filter(|peer| peer.index != node.index)
            .map(|peer| (peer, same_network(plan, node.next_hop, peer.next_hop)))
            .collect();
        let path = host_script_path(name, node.os)?;
        let artifact = match node.os {
            Os::Linux => Artifact::new(path, linux_host(cluster, node, &peers)),
            Os::Windows => {
                let interface = plan
                    .nodes
                    .get(node.index)
                    .and_then(|plan_node| plan_node.windows.as_ref())
                    .map(|windows| windows.interface_name.as_str())
                    .ok_or_else(|| {
                        RenderError(format!(
                            "routes: Windows node `{name}` has no network adapter name"
                        ))
                    })?;
                script_value(interface, "interfaceName")?;
                Artifact::new(path, windows_host(cluster, node, interface, &peers))
            }
        };
        artifacts.push(artifact);
    }
    Ok(artifacts)
}

/// Whether the nodes sit on more than one network (the HG206 reading), so that each node needs a
/// script for the routes flannel's host-gw cannot install. On one L2 network flannel does it all.
fn routed_hosts(plan: &Plan) -> bool {
    plan.nodes_off_segment()
        .is_some_and(|(_, outside)| !outside.is_empty())
}

fn host_script_path(name: &str, os: Os) -> Result<String, RenderError> {
    let name = path_segment(name)?;
    Ok(match os {
        Os::Linux => format!("routes/hosts/{name}.sh"),
        Os::Windows => format!("routes/hosts/{name}.ps1"),
    })
}

/// A cloud's route script and its Terraform twin.
fn cloud_artifacts<T: Serialize>(
    cloud: &str,
    script: Script,
    terraform: &T,
) -> Result<[Artifact; 2], RenderError> {
    let terraform_path = format!("routes/{cloud}.tf.json");
    let terraform = pretty_json(terraform, &terraform_path)?;
    Ok([
        Artifact::new(format!("routes/{cloud}.sh"), script.finish()),
        Artifact::new(terraform_path, terraform),
    ])
}

/// Whether two node addresses share a layer-2 network, read as HG206 reads it: a declared host
/// subnet holding both, or the same /24 when none is declared.
fn same_network(plan: &Plan, a: Ipv4Addr, b: Ipv4Addr) -> bool {
    if plan.host_subnets.is_empty() {
        return Ipv4Net::new(a, 24).is_ok_and(|segment| segment.trunc().contains(&b));
    }
    plan.host_subnets
        .iter()
        .flatten()
        .any(|subnet| subnet.contains(&a) && subnet.contains(&b))
}

fn host_header(cluster: &str, node: &NodeRoute) -> [String; 4] {
    [
        format!(
            "Pod routes on node {} ({}, {}), cluster {cluster}: generated by hybridgen.",
            node.name,
            node.os.as_str(),
            node.next_hop
        ),
        "flannel host-gw with nodes on more than one network: each pod subnet of a node on this node's"
            .into(),
        "network is routed via that node's address. Pod subnets of nodes on other networks must be"
            .into(),
        "routed by the upstream router (routes/routes.json lists every pod subnet and its next hop)."
            .into(),
    ]
}

fn off_network_note(node: &NodeRoute, peer: &NodeRoute) -> String {
    format!(
        "{}: {} (pods of {}) is left to the upstream router, which must send it to {}: {} is on another network",
        node.name, peer.destination, peer.name, peer.next_hop, peer.name
    )
}

fn linux_host(cluster: &str, node: &NodeRoute, peers: &[(&NodeRoute, bool)]) -> String {
    let mut script = Script::bash();
    for line in host_header(cluster, node) {
        script.comment(&line);
    }
    script.comment(
        "Safe to re-run: `ip route replace` adds each route or updates it. The routes do not",
    );
    script.comment(
        "persist across reboots: run this at boot (e.g. from a systemd unit) or add them to the",
    );
    script.comment("distribution's network configuration.");
    script.line("set -euo pipefail");
    for (peer, adjacent) in peers {
        script.blank();
        if *adjacent {
            let cidr = peer.destination.to_string();
            let via = peer.next_hop.to_string();
            script.echo(&format!(
                "{}: routing {cidr} (pods of {}) via {via}",
                node.name, peer.name
            ));
            script.line(&format!(
                "ip route replace {} via {}",
                shell_quote(&cidr),
                shell_quote(&via)
            ));
        } else {
            script.echo(&off_network_note(node, peer));
        }
    }
    script.finish()
}

fn windows_host(
    cluster: &str,
    node: &NodeRoute,
    interface: &str,
    peers: &[(&NodeRoute, bool)],
) -> String {
    let mut script = Script::default();
    for line in host_header(cluster, node) {
        script.comment(&line);
    }
    script.comment(
        "Safe to re-run: a subnet that already has a route keeps it, even via another next hop",
    );
    script.comment(
        "(remove that route with Remove-NetRoute first). New-NetRoute stores routes persistently.",
    );
    script.line("$ErrorActionPreference = 'Stop'");
    script.blank();
    script.comment(
        "Once the l2bridge HNS network exists, the host address lives on 'vEthernet (<adapter>)';",
    );
    script.comment(
        "before that, on the adapter itself (KubeCluster.ps1 looks up both names the same way).",
    );
    script.line(&format!("$InterfaceName = {}", powershell_quote(interface)));
    script.line("$InterfaceAlias = 'vEthernet (' + $InterfaceName + ')'");
    script.line("if (-not (Get-NetAdapter -Name $InterfaceAlias -ErrorAction SilentlyContinue)) {");
    script.line("    $InterfaceAlias = $InterfaceName");
    script.line("}");
    for (peer, adjacent) in peers {
        script.blank();
        if *adjacent {
            let cidr = powershell_quote(&peer.destination.to_string());
            let via = powershell_quote(&peer.next_hop.to_string());
            script.line(&format!(
                "Write-Host {}",
                powershell_quote(&format!(
                    "{}: routing {} (pods of {}) via {}",
                    node.name, peer.destination, peer.name, peer.next_hop
                ))
            ));
            script.line(&format!(
                "if (-not (Get-NetRoute -DestinationPrefix {cidr} -ErrorAction SilentlyContinue)) {{"
            ));
            script.line(&format!(
                "    New-NetRoute -DestinationPrefix {cidr} -NextHop {via} -InterfaceAlias $InterfaceAlias | Out-Null"
            ));
            script.line("}");
        } else {
            script.line(&format!(
                "Write-Host {}",
                powershell_quote(&off_network_note(node, peer))
            ));
        }
    }
    script.finish()
}

// ---------------------------------------------------------------------------------------------
// Names, quoting and script text

/// A script under construction: LF line endings and a final newline.
#[derive(Default)]
struct Script {
    text: String,
}

impl Script {
    fn bash() -> Self {
        let mut script = Script::default();
        script.line("#!/usr/bin/env bash");
        script
    }

    fn line(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }

    fn blank(&mut self) {
        self.text.push('\n');
    }

    /// A comment line: only fixed text and values `script_value` accepted (no line breaks).
    fn comment(&mut self, text: &str) {
        self.line(&format!("# {text}"));
    }

    fn echo(&mut self, message: &str) {
        self.line(&format!("echo {}", shell_quote(message)));
    }

    fn finish(self) -> String {
        self.text
    }
}

/// A POSIX shell word holding exactly `value`: single quotes, each `'` written as `'\''`.
fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// A PowerShell verbatim string holding exactly `value`: single quotes, each `'` doubled.
fn powershell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// A value that may appear in a script: printable ASCII only, so that no value can end a comment
/// line, and Windows PowerShell 5.1 (which reads a file without BOM in the ANSI code page) reads
/// it as written.
fn script_value<'a>(value: &'a str, what: &str) -> Result<&'a str, RenderError> {
    if value.is_empty() {
        return Err(RenderError(format!("routes: `{what}` is empty")));
    }
    if let Some(bad) = value.chars().find(|c| !(' '..='~').contains(c)) {
        return Err(RenderError(format!(
            "routes: `{what}` holds {bad:?}; route scripts take printable ASCII only"
        )));
    }
    Ok(value)
}

/// A node name used as a file name: never a path.
fn path_segment(name: &str) -> Result<&str, RenderError> {
    if name.is_empty()
        || name.contains('/')
        || name.contains('\\')
        || name.contains("..")
        || name.starts_with('.')
    {
        return Err(RenderError(format!(
            "routes: node name {name:?} cannot be used as a file name"
        )));
    }
    Ok(name)
}

/// A cloud route name from the cluster and node names: `<cluster>-pods-<node>`, lower-case
/// letters, digits and `-`, starting with a letter and ending with a letter or digit (GCE's
/// `[a-z]([-a-z0-9]*[a-z0-9])?`, also valid for Azure). A name longer than `max` keeps its start and
/// ends with a hash of the whole name, so that truncated names stay distinct and stable.
fn cloud_route_name(cluster: &str, node: &str, max: usize) -> String {
    let full = format!("{cluster}-pods-{node}");
    let mut name: String = full
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        name.insert_str(0, "r-");
    }
    if name.len() > max {
        let hash = format!("{:08x}", fnv1a(full.as_bytes()));
        // The name is ASCII here, so any byte index is a character boundary.
        name.truncate(max.saturating_sub(hash.len() + 1));
        while name.ends_with('-') {
            name.pop();
        }
        name.push('-');
        name.push_str(&hash);
    }
    while name.ends_with('-') {
        name.pop();
    }
    name
}

/// 32-bit FNV-1a: a small, stable hash (the same on every platform and release).
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193)
    })
}

/// A Terraform resource name for a node: `pods_` and the node name with every character other
/// than a letter, digit or `_` written as `_` (Terraform's convention; `-` would be allowed).
fn terraform_name(node: &str) -> String {
    let node: String = node
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("pods_{node}")
}

/// A Terraform JSON string that means exactly `value`: Terraform reads JSON strings as templates,
/// so `${` and `%{` are escaped as `$${` and `%%{`.
fn terraform_literal(value: &str) -> String {
    value.replace("${", "$${").replace("%{", "%%{")
}

/// Inserts a resource under a name no other node took.
fn unique_insert<T>(
    map: &mut BTreeMap<String, T>,
    name: String,
    value: T,
) -> Result<(), RenderError> {
    match map.entry(name) {
        Entry::Occupied(entry) => Err(RenderError(format!(
            "routes: two nodes would share the Terraform resource name `{}`",
            entry.key()
        ))),
        Entry::Vacant(entry) => {
            entry.insert(value);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Secrets;
    use serde_json::Value;
    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::sync::atomic::{AtomicUsize, Ordering};

    const LINUX_AND_WINDOWS: &[(&str, &str, &str)] = &[
        ("control-0", "linux", "192.168.10.10"),
        ("linux-worker-0", "linux", "192.168.10.20"),
        ("win-0", "windows", "192.168.10.30"),
    ];

    /// A spec with the given nodes `(name, os, address)`; `node_cloud` is written under each node's
    /// `cloud:` (with `{i}` replaced by the node's index), `extra` at the top level.
    fn spec_yaml(
        backend: &str,
        cloud: &str,
        node_cloud: &str,
        nodes: &[(&str, &str, &str)],
        extra: &str,
    ) -> String {
        let mut text = format!(
            "apiVersion: hybridgen/v1
kind: Cluster
metadata:
  name: demo
kubernetes:
  version: \"1.16.2\"
network:
  clusterCidr: 10.244.0.0/16
  serviceCidr: 10.96.0.0/12
{extra}flannel:
  version: v0.11.0
  backend: {backend}
windows:
  build: \"10.0.17763.379\"
  runtime: dockerd
  interfaceName: Ethernet
{cloud}nodes:
"
        );
        for (index, (name, os, address)) in nodes.iter().enumerate() {
            let roles = if index == 0 {
                "[controlplane, etcd, worker]"
            } else {
                "[worker]"
            };
            text.push_str(&format!(
                "  - name: {name}\n    os: {os}\n    roles: {roles}\n    address: {address}\n"
            ));
            if !node_cloud.is_empty() {
                let value = node_cloud.replace("{i}", &index.to_string());
                text.push_str(&format!("    cloud:\n      {value}\n"));
            }
        }
        text
    }

    const AWS: &str =
        "cloud:\n  provider: aws\n  aws:\n    region: us-east-1\n    routeTableId: rtb-0a1b2c3d\n";
    const AWS_NODE: &str = "instanceId: i-000{i}";
    const GCE: &str =
        "cloud:\n  provider: gce\n  gce:\n    project: demo-project\n    network: default\n";
    const GCE_NODE: &str = "zone: us-central1-a";
    const AZURE: &str = "cloud:\n  provider: azure\n  azure:\n    resourceGroup: demo-rg\n    routeTableName: demo-pods\n    location: eastus2\n";
    const AZURE_NODE: &str = "nic: nic-{i}";

    fn render_yaml(yaml: &str) -> Result<Vec<Artifact>, RenderError> {
        let spec: Spec = serde_yaml::from_str(yaml).expect("test spec parses");
        let plan = Plan::build(&spec);
        render(&Input {
            spec: &spec,
            plan: &plan,
            secrets: &Secrets::default(),
        })
    }

    fn rendered(yaml: &str) -> BTreeMap<String, String> {
        render_yaml(yaml)
            .expect("renders")
            .into_iter()
            .map(|artifact| (artifact.path, artifact.contents))
            .collect()
    }

    fn paths(files: &BTreeMap<String, String>) -> Vec<&str> {
        files.keys().map(String::as_str).collect()
    }

    fn json(text: &str) -> Value {
        serde_json::from_str(text).expect("valid JSON")
    }

    /// A fresh directory under the system temp dir, removed when dropped.
    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch_dir() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hybridgen-routes-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }

    fn write_executable(path: &Path, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, text).expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    fn assert_bash_syntax(script: &str) {
        let scratch = scratch_dir();
        let path = scratch.0.join("script.sh");
        std::fs::write(&path, script).expect("write script");
        let output = Command::new("bash")
            .arg("-n")
            .arg(&path)
            .output()
            .expect("bash runs");
        assert!(
            output.status.success(),
            "bash -n rejected the script: {}\n{script}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Runs `script` with fake cloud CLIs (each logs its arguments as `[arg]` per call and exits
    /// with the status `fake` computes) first on PATH; returns the log.
    fn run_with_fake(script: &str, tool: &str, fake: &str) -> Vec<String> {
        let scratch = scratch_dir();
        let dir = &scratch.0;
        write_executable(
            &dir.join(tool),
            &format!(
                "#!/usr/bin/env bash\nfor arg in \"$@\"; do printf '[%s]' \"$arg\"; done >> \"$FAKE_LOG\"\necho >> \"$FAKE_LOG\"\n{fake}\n"
            ),
        );
        let script_path = dir.join("script.sh");
        std::fs::write(&script_path, script).expect("write script");
        let log = dir.join("log");
        let path = format!(
            "{}:{}",
            dir.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let output = Command::new("bash")
            .arg(&script_path)
            .env("PATH", path)
            .env("FAKE_LOG", &log)
            .output()
            .expect("bash runs");
        assert!(
            output.status.success(),
            "script failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    fn assert_well_formed(files: &BTreeMap<String, String>) {
        for (path, text) in files {
            assert!(text.ends_with('\n'), "{path} has no final newline");
            assert!(!text.contains('\r'), "{path} has a CR");
            assert!(text.is_ascii(), "{path} is not ASCII");
            if path.ends_with(".sh") {
                assert!(
                    text.starts_with("#!/usr/bin/env bash\n"),
                    "{path} has no shebang"
                );
                assert!(
                    text.contains("\nset -euo pipefail\n"),
                    "{path} is not strict"
                );
                assert_bash_syntax(text);
            }
            if path.ends_with(".json") {
                json(text);
            }
        }
    }

    fn count(text: &str, needle: &str) -> usize {
        text.matches(needle).count()
    }

    /// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
    fn is_gce_name(name: &str) -> bool {
        let bytes = name.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= 63
            && bytes[0].is_ascii_lowercase()
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
            && !name.ends_with('-')
    }

    fn is_terraform_identifier(name: &str) -> bool {
        name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn routes_json_lists_every_node_in_order() {
        let files = rendered(&spec_yaml("vxlan", "", "", LINUX_AND_WINDOWS, ""));
        assert_eq!(paths(&files), ["routes/routes.json"]);
        assert_well_formed(&files);
        let routes = json(&files["routes/routes.json"]);
        assert_eq!(routes["backend"], "vxlan");
        assert_eq!(routes["provider"], "none");
        let found: Vec<String> = routes["routes"]
            .as_array()
            .expect("routes")
            .iter()
            .map(|route| {
                format!(
                    "{} {} {} {}",
                    route["node"].as_str().unwrap_or("?"),
                    route["os"].as_str().unwrap_or("?"),
                    route["destination"].as_str().unwrap_or("?"),
                    route["nextHop"].as_str().unwrap_or("?")
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                "control-0 linux 10.244.0.0/24 192.168.10.10",
                "linux-worker-0 linux 10.244.1.0/24 192.168.10.20",
                "win-0 windows 10.244.2.0/24 192.168.10.30",
            ]
        );
    }

    #[test]
    fn vxlan_on_a_cloud_needs_only_the_route_list() {
        let files = rendered(&spec_yaml("vxlan", AWS, AWS_NODE, LINUX_AND_WINDOWS, ""));
        assert_eq!(paths(&files), ["routes/routes.json"]);
        assert_eq!(json(&files["routes/routes.json"])["provider"], "aws");
    }

    #[test]
    fn host_gw_on_one_l2_network_needs_only_the_route_list() {
        let files = rendered(&spec_yaml("host-gw", "", "", LINUX_AND_WINDOWS, ""));
        assert_eq!(paths(&files), ["routes/routes.json"]);
        assert_eq!(json(&files["routes/routes.json"])["backend"], "host-gw");
    }

    #[test]
    fn aws_host_gw_renders_script_and_terraform() {
        let files = rendered(&spec_yaml("host-gw", AWS, AWS_NODE, LINUX_AND_WINDOWS, ""));
        assert_eq!(
            paths(&files),
            ["routes/aws.sh", "routes/aws.tf.json", "routes/routes.json"]
        );
        assert_well_formed(&files);

        let script = &files["routes/aws.sh"];
        assert_eq!(count(script, "aws ec2 modify-instance-attribute "), 3);
        assert_eq!(count(script, "aws ec2 replace-route "), 3);
        assert_eq!(count(script, "|| aws ec2 create-route "), 3);
        for (index, cidr) in ["10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"]
            .iter()
            .enumerate()
        {
            let args = format!(
                "--region 'us-east-1' --route-table-id 'rtb-0a1b2c3d' --destination-cidr-block '{cidr}' --instance-id 'i-000{index}'"
            );
            assert!(script.contains(&format!("aws ec2 replace-route {args} 2>/dev/null \\\n  || aws ec2 create-route {args}\n")), "{script}");
            assert!(script.contains(&format!(
                "aws ec2 modify-instance-attribute --region 'us-east-1' --instance-id 'i-000{index}' --no-source-dest-check\n"
            )));
        }

        let terraform = json(&files["routes/aws.tf.json"]);
        let routes = terraform["resource"]["aws_route"]
            .as_object()
            .expect("routes");
        let lookups = terraform["data"]["aws_instance"]
            .as_object()
            .expect("lookups");
        assert_eq!(routes.len(), 3);
        assert_eq!(lookups.len(), 3);
        assert_eq!(
            routes["pods_linux_worker_0"],
            serde_json::json!({
                "route_table_id": "rtb-0a1b2c3d",
                "destination_cidr_block": "10.244.1.0/24",
                "network_interface_id": "${data.aws_instance.pods_linux_worker_0.network_interface_id}",
            })
        );
        assert_eq!(
            lookups["pods_linux_worker_0"],
            serde_json::json!({"instance_id": "i-0001"})
        );
        assert!(routes.keys().all(|name| is_terraform_identifier(name)));
    }

    #[test]
    fn aws_script_runs_and_creates_missing_routes() {
        let yaml = spec_yaml("host-gw", AWS, AWS_NODE, LINUX_AND_WINDOWS, "")
            .replace("rtb-0a1b2c3d", "\"rtb-it's\"");
        let files = rendered(&yaml);
        // replace-route fails as it does when the route does not exist yet.
        let log = run_with_fake(
            &files["routes/aws.sh"],
            "aws",
            "[ \"$2\" = replace-route ] && exit 1; exit 0",
        );
        assert_eq!(log.len(), 9, "{log:?}");
        assert_eq!(
            log[2],
            "[ec2][create-route][--region][us-east-1][--route-table-id][rtb-it's][--destination-cidr-block][10.244.0.0/24][--instance-id][i-0000]"
        );
        assert_eq!(
            log[0],
            "[ec2][modify-instance-attribute][--region][us-east-1][--instance-id][i-0000][--no-source-dest-check]"
        );
        // A second run where every route exists replaces them and creates nothing.
        let log = run_with_fake(&files["routes/aws.sh"], "aws", "exit 0");
        assert_eq!(
            log.iter()
                .filter(|line| line.contains("create-route"))
                .count(),
            0
        );
    }

    #[test]
    fn gce_host_gw_renders_script_and_terraform() {
        let files = rendered(&spec_yaml("host-gw", GCE, GCE_NODE, LINUX_AND_WINDOWS, ""));
        assert_eq!(
            paths(&files),
            ["routes/gce.sh", "routes/gce.tf.json", "routes/routes.json"]
        );
        assert_well_formed(&files);

        let script = &files["routes/gce.sh"];
        assert!(script.contains("--can-ip-forward"));
        assert_eq!(count(script, "gcloud compute routes describe "), 3);
        assert_eq!(count(script, "|| gcloud compute routes create "), 3);
        assert!(script.contains(
            "gcloud compute routes describe 'demo-pods-win-0' --project 'demo-project' >/dev/null 2>&1 \\\n  || gcloud compute routes create 'demo-pods-win-0' --project 'demo-project' --network 'default' --destination-range '10.244.2.0/24' \\\n       --next-hop-instance 'win-0' --next-hop-instance-zone 'us-central1-a' --priority 1000\n"
        ), "{script}");

        let terraform = json(&files["routes/gce.tf.json"]);
        let routes = terraform["resource"]["google_compute_route"]
            .as_object()
            .expect("routes");
        assert_eq!(routes.len(), 3);
        assert_eq!(
            routes["pods_control_0"],
            serde_json::json!({
                "name": "demo-pods-control-0",
                "project": "demo-project",
                "network": "default",
                "dest_range": "10.244.0.0/24",
                "next_hop_instance": "control-0",
                "next_hop_instance_zone": "us-central1-a",
                "priority": 1000,
            })
        );
        let names: BTreeSet<&str> = routes
            .values()
            .map(|route| route["name"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(names.len(), 3);
        assert!(names.iter().all(|name| is_gce_name(name)), "{names:?}");
    }

    #[test]
    fn gce_script_creates_only_missing_routes() {
        let yaml = spec_yaml("host-gw", GCE, GCE_NODE, LINUX_AND_WINDOWS, "")
            .replace("demo-project", "\"it's-a-project\"");
        let files = rendered(&yaml);
        let script = &files["routes/gce.sh"];
        let log = run_with_fake(script, "gcloud", "[ \"$3\" = describe ] && exit 1; exit 0");
        let creates: Vec<&String> = log
            .iter()
            .filter(|line| line.contains("[create]"))
            .collect();
        assert_eq!(creates.len(), 3);
        assert_eq!(
            creates[1],
            "[compute][routes][create][demo-pods-linux-worker-0][--project][it's-a-project][--network][default][--destination-range][10.244.1.0/24][--next-hop-instance][linux-worker-0][--next-hop-instance-zone][us-central1-a][--priority][1000]"
        );
        let log = run_with_fake(script, "gcloud", "exit 0");
        assert!(log.iter().all(|line| !line.contains("[create]")), "{log:?}");
    }

    #[test]
    fn gce_route_names_are_valid_unique_and_stable_when_truncated() {
        let cluster = "c".repeat(63);
        let long_a = format!("{}-a", "n".repeat(60));
        let long_b = format!("{}-b", "n".repeat(60));
        let a = cloud_route_name(&cluster, &long_a, GCE_NAME_MAX);
        let b = cloud_route_name(&cluster, &long_b, GCE_NAME_MAX);
        assert!(is_gce_name(&a) && is_gce_name(&b), "{a} {b}");
        assert_ne!(a, b);
        assert_eq!(a, cloud_route_name(&cluster, &long_a, GCE_NAME_MAX));
        assert_eq!(a.len(), 63);
        assert!(is_gce_name(&cloud_route_name(
            "9lives",
            "win-0",
            GCE_NAME_MAX
        )));
        assert_eq!(
            cloud_route_name("demo", "win-0", GCE_NAME_MAX),
            "demo-pods-win-0"
        );

        let yaml = spec_yaml(
            "host-gw",
            GCE,
            GCE_NODE,
            &[
                ("control-0", "linux", "192.168.10.10"),
                (&long_a, "linux", "192.168.10.20"),
                (&long_b, "windows", "192.168.10.30"),
            ],
            "",
        )
        .replace("name: demo\n", &format!("name: {cluster}\n"));
        let files = rendered(&yaml);
        let terraform = json(&files["routes/gce.tf.json"]);
        let names: BTreeSet<String> = terraform["resource"]["google_compute_route"]
            .as_object()
            .expect("routes")
            .values()
            .map(|route| route["name"].as_str().unwrap_or("").to_string())
            .collect();
        assert_eq!(names.len(), 3);
        assert!(names.iter().all(|name| is_gce_name(name)), "{names:?}");
        for name in &names {
            assert!(
                files["routes/gce.sh"].contains(&format!("gcloud compute routes create '{name}' "))
            );
        }
    }

    #[test]
    fn azure_host_gw_renders_script_and_terraform() {
        let files = rendered(&spec_yaml(
            "host-gw",
            AZURE,
            AZURE_NODE,
            LINUX_AND_WINDOWS,
            "",
        ));
        assert_eq!(
            paths(&files),
            [
                "routes/azure.sh",
                "routes/azure.tf.json",
                "routes/routes.json"
            ]
        );
        assert_well_formed(&files);

        let script = &files["routes/azure.sh"];
        assert_eq!(count(script, "az network nic update "), 3);
        assert_eq!(count(script, "az network route-table route create "), 3);
        assert!(script.contains(
            "az network nic update --resource-group 'demo-rg' --name 'nic-2' --ip-forwarding true --output none\n"
        ));
        assert!(script.contains(
            "az network route-table route create --resource-group 'demo-rg' --route-table-name 'demo-pods' --name 'demo-pods-win-0' \\\n  --address-prefix '10.244.2.0/24' --next-hop-type VirtualAppliance --next-hop-ip-address '192.168.10.30' --output none\n"
        ), "{script}");

        let terraform = json(&files["routes/azure.tf.json"]);
        let routes = terraform["resource"]["azurerm_route"]
            .as_object()
            .expect("routes");
        assert_eq!(routes.len(), 3);
        assert_eq!(
            routes["pods_win_0"],
            serde_json::json!({
                "name": "demo-pods-win-0",
                "resource_group_name": "demo-rg",
                "route_table_name": "demo-pods",
                "address_prefix": "10.244.2.0/24",
                "next_hop_type": "VirtualAppliance",
                "next_hop_in_ip_address": "192.168.10.30",
            })
        );
    }

    #[test]
    fn azure_script_quotes_a_single_quote() {
        let yaml = spec_yaml("host-gw", AZURE, AZURE_NODE, LINUX_AND_WINDOWS, "")
            .replace("demo-rg", "\"o'brien-rg\"");
        let files = rendered(&yaml);
        let log = run_with_fake(&files["routes/azure.sh"], "az", "exit 0");
        assert_eq!(log.len(), 6);
        assert!(
            log[0]
                .starts_with("[network][nic][update][--resource-group][o'brien-rg][--name][nic-0]")
        );
    }

    #[test]
    fn terraform_strings_escape_template_sequences() {
        let yaml = spec_yaml("host-gw", AZURE, AZURE_NODE, LINUX_AND_WINDOWS, "")
            .replace("demo-rg", "\"rg-${oops}\"");
        let files = rendered(&yaml);
        let terraform = json(&files["routes/azure.tf.json"]);
        assert_eq!(
            terraform["resource"]["azurerm_route"]["pods_win_0"]["resource_group_name"],
            "rg-$${oops}"
        );
    }

    const ACROSS_TWO_24S: &[(&str, &str, &str)] = &[
        ("control-0", "linux", "192.168.10.10"),
        ("linux-worker-0", "linux", "192.168.10.20"),
        ("win-0", "windows", "192.168.11.30"),
        ("win-1", "windows", "192.168.11.31"),
    ];

    #[test]
    fn bare_metal_across_networks_renders_one_script_per_node() {
        let files = rendered(&spec_yaml("host-gw", "", "", ACROSS_TWO_24S, ""));
        assert_eq!(
            paths(&files),
            [
                "routes/hosts/control-0.sh",
                "routes/hosts/linux-worker-0.sh",
                "routes/hosts/win-0.ps1",
                "routes/hosts/win-1.ps1",
                "routes/routes.json",
            ]
        );
        assert_well_formed(&files);

        let control = &files["routes/hosts/control-0.sh"];
        assert_eq!(count(control, "\nip route replace "), 1);
        assert!(control.contains("\nip route replace '10.244.1.0/24' via '192.168.10.20'\n"));
        // The Windows nodes are on another network: their subnets are the upstream router's.
        assert!(!control.contains("ip route replace '10.244.2.0/24'"));
        assert!(control.contains("10.244.2.0/24 (pods of win-0) is left to the upstream router, which must send it to 192.168.11.30"));
        assert!(
            !control.contains("10.244.0.0/24"),
            "no route to its own subnet"
        );

        let windows = &files["routes/hosts/win-0.ps1"];
        assert_eq!(count(windows, "\n    New-NetRoute "), 1);
        assert!(windows.contains(
            "if (-not (Get-NetRoute -DestinationPrefix '10.244.3.0/24' -ErrorAction SilentlyContinue)) {\n    New-NetRoute -DestinationPrefix '10.244.3.0/24' -NextHop '192.168.11.31' -InterfaceAlias $InterfaceAlias | Out-Null\n}\n"
        ), "{windows}");
        assert!(windows.contains("$InterfaceName = 'Ethernet'\n"));
        assert!(
            windows.contains("is left to the upstream router, which must send it to 192.168.10.10")
        );
    }

    #[test]
    fn declared_host_subnets_decide_adjacency() {
        let two = "  hostSubnets:\n    - 192.168.10.0/24\n    - 192.168.11.0/24\n";
        let files = rendered(&spec_yaml("host-gw", "", "", ACROSS_TWO_24S, two));
        assert!(files.contains_key("routes/hosts/win-1.ps1"));
        let one = "  hostSubnets:\n    - 192.168.0.0/16\n";
        let files = rendered(&spec_yaml("host-gw", "", "", ACROSS_TWO_24S, one));
        assert_eq!(paths(&files), ["routes/routes.json"]);
    }

    #[test]
    fn host_scripts_are_only_for_bare_metal() {
        let nodes = [
            ("control-0", "linux", "192.168.10.10"),
            ("linux-worker-0", "linux", "192.168.10.20"),
            ("win-0", "windows", "192.168.11.30"),
        ];
        let files = rendered(&spec_yaml("host-gw", AWS, AWS_NODE, &nodes, ""));
        assert_eq!(
            paths(&files),
            ["routes/aws.sh", "routes/aws.tf.json", "routes/routes.json"]
        );
        let files = rendered(&spec_yaml("vxlan", "", "", &nodes, ""));
        assert_eq!(paths(&files), ["routes/routes.json"]);
    }

    #[test]
    fn powershell_quotes_the_adapter_name() {
        let yaml = spec_yaml("host-gw", "", "", ACROSS_TWO_24S, "")
            .replace("interfaceName: Ethernet", "interfaceName: \"Bob's NIC\"");
        let files = rendered(&yaml);
        assert!(files["routes/hosts/win-0.ps1"].contains("$InterfaceName = 'Bob''s NIC'\n"));
    }

    #[test]
    fn node_names_that_are_paths_are_refused() {
        for name in ["../evil", "a/b", "a\\b", ".hidden"] {
            let nodes = [
                ("control-0", "linux", "192.168.10.10"),
                (name, "linux", "192.168.11.20"),
            ];
            let yaml = spec_yaml("host-gw", "", "", &nodes, "")
                .replace(&format!("name: {name}\n"), &format!("name: '{name}'\n"));
            let error = render_yaml(&yaml).expect_err(name);
            assert!(
                error.0.contains("cannot be used as a file name"),
                "{error:?}"
            );
        }
    }

    #[test]
    fn values_that_are_not_printable_ascii_are_refused() {
        let yaml = spec_yaml("host-gw", AWS, AWS_NODE, LINUX_AND_WINDOWS, "")
            .replace("rtb-0a1b2c3d", "\"rtb-1\\nrm -rf /\"");
        let error = render_yaml(&yaml).expect_err("newline refused");
        assert!(error.0.contains("cloud.aws.routeTableId"), "{error:?}");
    }

    #[test]
    fn missing_cloud_settings_are_an_error_not_a_panic() {
        let yaml = spec_yaml(
            "host-gw",
            "cloud:\n  provider: gce\n",
            GCE_NODE,
            LINUX_AND_WINDOWS,
            "",
        );
        assert_eq!(
            render_yaml(&yaml),
            Err(RenderError("routes: `cloud.gce` is missing".into()))
        );
        let yaml = spec_yaml("host-gw", AZURE, "", LINUX_AND_WINDOWS, "");
        assert_eq!(
            render_yaml(&yaml),
            Err(RenderError(
                "routes: node `control-0` has no `cloud.nic`".into()
            ))
        );
    }

    #[test]
    fn rendering_twice_is_byte_identical() {
        for yaml in [
            spec_yaml("host-gw", AWS, AWS_NODE, LINUX_AND_WINDOWS, ""),
            spec_yaml("host-gw", GCE, GCE_NODE, LINUX_AND_WINDOWS, ""),
            spec_yaml("host-gw", AZURE, AZURE_NODE, LINUX_AND_WINDOWS, ""),
            spec_yaml("host-gw", "", "", ACROSS_TWO_24S, ""),
        ] {
            assert_eq!(render_yaml(&yaml), render_yaml(&yaml));
        }
    }

    #[test]
    fn examples_render() {
        for (yaml, script) in [
            (
                include_str!("../../examples/rancher-gce-host-gw.yaml"),
                "routes/gce.sh",
            ),
            (
                include_str!("../../examples/rancher-azure-host-gw.yaml"),
                "routes/azure.sh",
            ),
        ] {
            let files = rendered(yaml);
            assert_well_formed(&files);
            assert!(files.contains_key(script));
        }
        let files = rendered(include_str!("../../examples/bare-metal-host-gw-1.8.yaml"));
        assert_eq!(paths(&files), ["routes/routes.json"]);
    }
}

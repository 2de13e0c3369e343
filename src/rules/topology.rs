//! HG4xx: topology and cloud — the Linux control plane and workers, and what cloud routes need.

use super::{Context, declare_rules, node_pointer};
use crate::diagnostic::{Diagnostic, key, value};
use crate::spec::{Backend, NodeCloud, Os, Provider, Role, Spec};

declare_rules! {
    /// ### What it checks
    /// That a Linux node has the `controlplane` role and a Linux node has the `etcd` role.
    ///
    /// ### Why it matters
    /// The API server, scheduler, controller manager and etcd run on Linux only; without them there
    /// is no cluster for the workers to join.
    ///
    /// ### Fix
    /// Add a Linux node with `roles: [controlplane, etcd]`.
    ///
    /// ### References
    /// Kubernetes "Windows in Kubernetes"; Rancher 2.3 Windows guide (node roles).
    NO_LINUX_CONTROL_PLANE = ("HG401", "no-linux-control-plane", Error, Some(check_control_plane));

    /// ### What it checks
    /// That at least one Linux node has the `worker` role.
    ///
    /// ### Why it matters
    /// Cluster DNS, ingress controllers and metrics run on Linux; with only Windows workers they
    /// have nowhere to run.
    ///
    /// ### Fix
    /// Add `worker` to a Linux node's roles, or add a Linux worker.
    ///
    /// ### References
    /// Rancher 2.3 Windows guide ("a Linux worker node is required"); facts-windows.md §7.
    NO_LINUX_WORKER = ("HG402", "no-linux-worker", Error, Some(check_linux_worker));

    /// ### What it checks
    /// host-gw on a cloud: every node has what the cloud's route names: AWS `instanceId`, GCE
    /// `zone`, Azure `nic`, under the node's `cloud`.
    ///
    /// ### Why it matters
    /// Each pod route targets a node by that identity; without it no route can be written.
    ///
    /// ### Fix
    /// Add the node's `cloud.instanceId`, `cloud.zone` or `cloud.nic`.
    ///
    /// ### References
    /// `aws ec2 create-route --instance-id`; `gcloud compute routes create --next-hop-instance-zone`;
    /// `az network nic update --ip-forwarding`.
    CLOUD_NODE_IDENTITY_MISSING = ("HG403", "cloud-node-identity-missing", Error, Some(check_node_identity));

    /// ### What it checks
    /// That `cloud.provider` aws, gce or azure has its section, complete: AWS `region` and
    /// `routeTableId`, GCE `project` and `network`, Azure `resourceGroup`, `routeTableName` and
    /// `location`.
    ///
    /// ### Why it matters
    /// Route tables and forwarding settings cannot be written without them.
    ///
    /// ### Fix
    /// Add the missing fields the message names.
    ///
    /// ### References
    /// The spec format in the README.
    CLOUD_SETTINGS_MISSING = ("HG404", "cloud-settings-missing", Error, Some(check_cloud_settings));

    /// ### What it checks
    /// host-gw on a cloud: that the routes (one per node) fit the cloud's default route-table
    /// limit: AWS 500 routes per route table (raised from 50 in 2025; adjustable to 1,000),
    /// Azure 400 routes per route table, GCE 250 static routes (the default project quota).
    ///
    /// ### Why it matters
    /// Routes past the limit are refused, and the nodes they were for cannot reach or be reached
    /// by pods elsewhere.
    ///
    /// ### Fix
    /// Request a higher quota before deploying, or use vxlan, which needs no cloud routes.
    ///
    /// ### References
    /// Amazon VPC quotas ("Routes per route table"); Azure networking limits ("Routes per route
    /// table"); Google Cloud VPC quotas ("Routes").
    ROUTE_TABLE_LIMIT = ("HG405", "route-table-limit", Warning, Some(check_route_limit));
}

fn linux_nodes_with(spec: &Spec, role: Role) -> bool {
    spec.nodes
        .iter()
        .any(|node| node.os == Os::Linux && node.roles.contains(&role))
}

fn check_control_plane(context: &Context, found: &mut Vec<Diagnostic>) {
    let missing: Vec<&str> = [(Role::Controlplane, "controlplane"), (Role::Etcd, "etcd")]
        .into_iter()
        .filter(|(role, _)| !linux_nodes_with(context.spec, *role))
        .map(|(_, name)| name)
        .collect();
    if !missing.is_empty() {
        let roles = missing.join("` or `");
        found.push(
            Diagnostic::new(
                &NO_LINUX_CONTROL_PLANE,
                key("/nodes"),
                format!("no Linux node has the `{roles}` role"),
            )
            .label("no Linux control plane")
            .help(format!(
                "add `{}` to a Linux node's roles",
                missing.join("` and `")
            )),
        );
    }
}

fn check_linux_worker(context: &Context, found: &mut Vec<Diagnostic>) {
    if !linux_nodes_with(context.spec, Role::Worker) {
        found.push(
            Diagnostic::new(
                &NO_LINUX_WORKER,
                key("/nodes"),
                "no Linux node has the `worker` role; cluster DNS and ingress need one",
            )
            .label("no Linux worker")
            .help("add `worker` to a Linux node's roles, or add a Linux worker node"),
        );
    }
}

fn routes_on_cloud(context: &Context) -> Option<Provider> {
    let provider = context.spec.provider();
    (context.plan.flannel.backend == Backend::HostGw && provider != Provider::None)
        .then_some(provider)
}

/// The node field a cloud's routes name, and whether the node has it.
fn identity(provider: Provider, cloud: Option<&NodeCloud>) -> (&'static str, bool) {
    match provider {
        Provider::Aws => ("instanceId", cloud.is_some_and(|c| c.instance_id.is_some())),
        Provider::Gce => ("zone", cloud.is_some_and(|c| c.zone.is_some())),
        _ => ("nic", cloud.is_some_and(|c| c.nic.is_some())),
    }
}

fn check_node_identity(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(provider) = routes_on_cloud(context) else {
        return;
    };
    for (index, node) in context.spec.nodes.iter().enumerate() {
        let (field, present) = identity(provider, node.cloud.as_ref());
        if !present {
            found.push(
                Diagnostic::new(
                    &CLOUD_NODE_IDENTITY_MISSING,
                    value(node_pointer(index, "")),
                    format!(
                        "node `{}` has no `cloud.{field}`, which its {} route needs",
                        node.name,
                        provider.as_str()
                    ),
                )
                .label(format!("`cloud.{field}` missing"))
                .help(format!(
                    "add `cloud: {{{field}: …}}` to node `{}`",
                    node.name
                )),
            );
        }
    }
}

fn check_cloud_settings(context: &Context, found: &mut Vec<Diagnostic>) {
    let spec = context.spec;
    let provider = spec.provider();
    let Some(cloud) = &spec.cloud else { return };
    let fields: Option<Vec<(&str, bool)>> = match provider {
        Provider::None => return,
        Provider::Aws => cloud.aws.as_ref().map(|aws| {
            vec![
                ("region", aws.region.is_some()),
                ("routeTableId", aws.route_table_id.is_some()),
            ]
        }),
        Provider::Gce => cloud.gce.as_ref().map(|gce| {
            vec![
                ("project", gce.project.is_some()),
                ("network", gce.network.is_some()),
            ]
        }),
        Provider::Azure => cloud.azure.as_ref().map(|azure| {
            vec![
                ("resourceGroup", azure.resource_group.is_some()),
                ("location", azure.location.is_some()),
                ("routeTableName", azure.route_table_name.is_some()),
            ]
        }),
    };
    let name = provider.as_str();
    match fields {
        None => found.push(
            Diagnostic::new(
                &CLOUD_SETTINGS_MISSING,
                value("/cloud/provider"),
                format!("`cloud.provider` is {name}, but there is no `cloud.{name}` section"),
            )
            .label(format!("no `cloud.{name}` section"))
            .help(format!("add `cloud.{name}` with its settings")),
        ),
        Some(fields) => {
            let missing: Vec<&str> = fields
                .iter()
                .filter(|(_, present)| !present)
                .map(|(field, _)| *field)
                .collect();
            if !missing.is_empty() {
                found.push(
                    Diagnostic::new(
                        &CLOUD_SETTINGS_MISSING,
                        key(format!("/cloud/{name}")),
                        format!("`cloud.{name}` lacks `{}`", missing.join("`, `")),
                    )
                    .label("incomplete")
                    .help(format!(
                        "add `{}` to `cloud.{name}`",
                        missing.join("` and `")
                    )),
                );
            }
        }
    }
}

/// Default route-table capacity per cloud.
fn route_limit(provider: Provider) -> usize {
    match provider {
        Provider::Aws => 500,
        Provider::Azure => 400,
        _ => 250,
    }
}

fn check_route_limit(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(provider) = routes_on_cloud(context) else {
        return;
    };
    let routes = context.plan.nodes.len();
    let limit = route_limit(provider);
    if routes > limit {
        found.push(
            Diagnostic::new(
                &ROUTE_TABLE_LIMIT,
                key("/nodes"),
                format!("{routes} nodes need {routes} routes, more than the {limit} {} allows in one route table by default", provider.as_str()),
            )
            .label("more routes than the default limit")
            .help("request a higher route quota before deploying, or use `backend: vxlan`"),
        );
    }
}

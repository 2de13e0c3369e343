//! HG4xx: topology and cloud — the Linux control plane and workers, and what cloud routes need.

use super::{Context, declare_rules, node_pointer};
use crate::diagnostic::{Diagnostic, key, value};
use crate::spec::{Backend, Cloud, NodeCloud, Os, Provider, Role, Spec};

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
    /// On RKE2 and RKE1: that at least one Linux node has the `worker` role. Not on kubeadm,
    /// whose CoreDNS tolerates the control-plane taint and which deploys no ingress.
    ///
    /// ### Why it matters
    /// The ingress controller and metrics server RKE2 deploys, and Rancher's cluster agent, run on
    /// Linux nodes that take workloads. An RKE2 server without the `worker` role is tainted
    /// (`node-role.kubernetes.io/control-plane:NoSchedule`), and then "the NGINX Ingress and
    /// Metrics Server addons will not be deployed"; Windows workers cannot run them.
    ///
    /// ### Fix
    /// Add `worker` to a Linux node's roles, or add a Linux worker.
    ///
    /// ### References
    /// docs.rke2.io "High Availability" (server node taints); Rancher 2.3 "Configuring Custom
    /// Clusters for Windows" ("a Linux worker node is required" for the cluster agent, DNS,
    /// metrics server and ingress); kubernetes/kubernetes
    /// `cmd/kubeadm/app/phases/addons/dns/manifests.go` (CoreDNS tolerations).
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
    /// host-gw on a cloud: that the provider's section holds what the rendered route commands and
    /// Terraform use: AWS `region` and `routeTableId` (`routes/aws.sh`, `routes/aws.tf.json`), GCE
    /// `project` and `network` (`routes/gce.sh`, `routes/gce.tf.json`), Azure `resourceGroup` and
    /// `routeTableName` (`routes/azure.sh`, `routes/azure.tf.json`). vxlan needs no route table, so
    /// nothing is required there; Azure `location` is never required (no command uses it).
    ///
    /// ### Why it matters
    /// The pod routes and the per-node forwarding settings cannot be written without them.
    ///
    /// ### Fix
    /// Add the missing fields the message names, or use vxlan, which needs no cloud routes.
    ///
    /// ### References
    /// `aws ec2 create-route --region --route-table-id`; `gcloud compute routes create --project
    /// --network`; `az network route-table route create --resource-group --route-table-name`.
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

    /// ### What it checks
    /// On kubeadm: `windows.controlPlane.address` against the nodes. An error when it is the
    /// address of a node that runs no API server (a worker, or a Windows node); a warning when it
    /// is no node's address, which `render` then gives kubeadm as `controlPlaneEndpoint` and as a
    /// certificate SAN.
    ///
    /// ### Why it matters
    /// Windows flanneld, kube-proxy and `kubeadm join` reach the API there. On a worker nothing
    /// listens on the API port, so every Windows join fails; an address that is no node's must be
    /// a load balancer or VIP you run, forwarding to the control-plane nodes' API servers.
    ///
    /// ### Fix
    /// Set it to a control-plane node's address, or to the load balancer's and make sure it
    /// forwards the port to every control-plane node.
    ///
    /// ### References
    /// kubernetes.io "Creating Highly Available Clusters with kubeadm" (`controlPlaneEndpoint`,
    /// load balancer); kubeadm `ClusterConfiguration` (`apiServer.certSANs`).
    API_ADDRESS_UNSERVED = ("HG407", "api-address-unserved", Error, Some(check_api_address));
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
    let distribution = context.plan.distribution;
    if distribution.needs_linux_worker && !linux_nodes_with(context.spec, Role::Worker) {
        found.push(
            Diagnostic::new(
                &NO_LINUX_WORKER,
                key("/nodes"),
                format!(
                    "no Linux node has the `worker` role; on {} the ingress controller and metrics server need one",
                    distribution.title
                ),
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

/// The settings of a provider's section that the rendered host-gw routes use, and whether each
/// is given.
fn route_settings(cloud: &Cloud, provider: Provider) -> Option<Vec<(&'static str, bool)>> {
    match provider {
        Provider::None => Some(Vec::new()),
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
                ("routeTableName", azure.route_table_name.is_some()),
            ]
        }),
    }
}

fn check_cloud_settings(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(provider) = routes_on_cloud(context) else {
        return;
    };
    let Some(cloud) = &context.spec.cloud else {
        return;
    };
    let name = provider.as_str();
    let users = format!("`routes/{name}.sh` and `routes/{name}.tf.json`");
    match route_settings(cloud, provider) {
        None => found.push(
            Diagnostic::new(
                &CLOUD_SETTINGS_MISSING,
                value("/cloud/provider"),
                format!("host-gw on {name} needs the `cloud.{name}` section, which the pod routes in {users} use"),
            )
            .label(format!("no `cloud.{name}` section"))
            .help(format!("add `cloud.{name}` with {}", required(provider))),
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
                        format!("`cloud.{name}` lacks `{}`, which the host-gw pod routes in {users} use", missing.join("`, `")),
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

/// The settings host-gw routes need on a provider, for help texts.
fn required(provider: Provider) -> &'static str {
    match provider {
        Provider::Aws => "`region` and `routeTableId`",
        Provider::Gce => "`project` and `network`",
        Provider::Azure => "`resourceGroup` and `routeTableName`",
        Provider::None => "nothing",
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

fn check_api_address(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if plan.rke2.is_some() || context.spec.rancher.is_some() {
        return;
    }
    let written = context
        .spec
        .windows
        .as_ref()
        .and_then(|windows| windows.control_plane.as_ref())
        .and_then(|control_plane| control_plane.address.as_deref());
    let (Some(written), Some(windows)) = (written, plan.windows.as_ref()) else {
        return;
    };
    let Some(Ok(address)) = windows.control_plane_address.as_ref() else {
        return;
    };
    let serves = |node: &crate::plan::NodePlan| {
        node.os == Os::Linux && node.roles.contains(&Role::Controlplane)
    };
    let holder = plan
        .nodes
        .iter()
        .position(|node| node.address.as_ref().ok() == Some(address));
    let pointer = value("/windows/controlPlane/address");
    match holder {
        Some(index) if serves(&plan.nodes[index]) => {}
        Some(index) => found.push(
            Diagnostic::new(
                &API_ADDRESS_UNSERVED,
                pointer,
                format!(
                    "`windows.controlPlane.address` {written} is node `{}`, which runs no API server: Windows joins and flanneld would reach nothing there",
                    plan.nodes[index].name
                ),
            )
            .label("no API server here")
            .related(value(node_pointer(index, "address")), "this node")
            .help("set it to a Linux control-plane node's address, or to a load balancer in front of them"),
        ),
        None => found.push(
            Diagnostic::new(
                &API_ADDRESS_UNSERVED,
                pointer,
                format!(
                    "`windows.controlPlane.address` {written} is no node's address: it is given to kubeadm as `controlPlaneEndpoint`, so a load balancer or VIP must serve it"
                ),
            )
            .label("a load balancer or VIP")
            .help(format!(
                "make sure {written}:{} forwards to every control-plane node's API server, or set a control-plane node's address",
                windows.api_server_port
            ))
            .warning(),
        ),
    }
}

//! HG4xx: topology and cloud — the Linux control plane and workers, and what cloud routes need.

use super::{Context, declare_rules, node_pointer};
use crate::diagnostic::{Diagnostic, key, value};
use crate::escape;
use crate::plan::cloud::{self, CloudTraits};
use crate::spec::{Backend, Os, Role, Spec};

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
    /// Every cloud identifier the spec gives, against its cloud's grammar: AWS `region`
    /// (`us-east-1`), `routeTableId` (`rtb-` and 8 or 17 hex digits) and `instanceId` (`i-` and 8
    /// or 17 hex digits); GCE `project` (6 to 30 lower-case letters, digits or `-`), `network`
    /// (RFC 1035, at most 63) and `zone` (`us-central1-a`); Azure `resourceGroup` (1 to 90 letters,
    /// digits, `_`, `-`, `.`, parentheses, not ending with `.`), `routeTableName` and `nic` (1 to
    /// 80 letters, digits, `_`, `-`, `.`, starting with a letter or digit, ending with a letter,
    /// digit or `_`) and `location` (`eastus2`). hybridgen takes the ASCII part of each grammar
    /// and refuses a leading `-`.
    ///
    /// ### Why it matters
    /// These values are arguments of `aws`, `gcloud` and `az` in `routes/<cloud>.sh`. The AWS CLI
    /// loads a parameter written `file://…` or `fileb://…` from that file (and version 1 fetches
    /// `http(s)://…`), the Azure CLI loads `@<path>`, and a value starting with `-` is read as an
    /// option: a spec could send the administrator's credentials to the cloud API, which prints
    /// them back in its error. A value of the cloud's own shape can do none of that.
    ///
    /// ### Fix
    /// Write the identifier as the cloud shows it (`aws ec2 describe-route-tables`, `gcloud
    /// compute zones list`, `az network nic list`).
    ///
    /// ### References
    /// https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html;
    /// https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html;
    /// https://docs.aws.amazon.com/cli/v1/userguide/cli-usage-parameters-file.html (file:// and
    /// fileb://); https://cloud.google.com/resource-manager/docs/creating-managing-projects;
    /// https://cloud.google.com/compute/docs/naming-resources;
    /// https://cloud.google.com/compute/docs/regions-zones;
    /// https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/resource-name-rules;
    /// https://learn.microsoft.com/en-us/cli/azure/use-azure-cli-successfully-tips (`@` loads a file).
    CLOUD_IDENTIFIER_MALFORMED = ("HG406", "cloud-identifier-malformed", Error, Some(check_cloud_identifiers));

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

/// The cloud whose route table carries the pod routes: host-gw on a provider other than `none`.
fn routes_on_cloud(context: &Context) -> Option<&'static CloudTraits> {
    if context.plan.flannel.backend != Backend::HostGw {
        return None;
    }
    cloud::traits(context.spec.provider())
}

fn check_node_identity(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(row) = routes_on_cloud(context) else {
        return;
    };
    let field = row.node_identity.field;
    for (index, node) in context.spec.nodes.iter().enumerate() {
        let present = node
            .cloud
            .as_ref()
            .is_some_and(|cloud| (row.node_identity.read)(cloud).is_some());
        if !present {
            found.push(
                Diagnostic::new(
                    &CLOUD_NODE_IDENTITY_MISSING,
                    value(node_pointer(index, "")),
                    format!(
                        "node `{}` has no `cloud.{field}`, which its {} route needs",
                        node.name,
                        row.provider.as_str()
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
    let (Some(row), Some(cloud)) = (routes_on_cloud(context), &context.spec.cloud) else {
        return;
    };
    let name = row.provider.as_str();
    let users = format!("`routes/{name}.sh` and `routes/{name}.tf.json`");
    if !(row.has_section)(cloud) {
        found.push(
            Diagnostic::new(
                &CLOUD_SETTINGS_MISSING,
                value("/cloud/provider"),
                format!("host-gw on {name} needs the `cloud.{name}` section, which the pod routes in {users} use"),
            )
            .label(format!("no `cloud.{name}` section"))
            .help(format!("add `cloud.{name}` with {}", row.required_settings())),
        );
        return;
    }
    let missing: Vec<&str> = row
        .settings
        .iter()
        .filter(|setting| setting.routes_need && (setting.read)(cloud).is_none())
        .map(|setting| setting.field)
        .collect();
    if !missing.is_empty() {
        found.push(
            Diagnostic::new(
                &CLOUD_SETTINGS_MISSING,
                key(format!("/cloud/{name}")),
                format!(
                    "`cloud.{name}` lacks `{}`, which the host-gw pod routes in {users} use",
                    missing.join("`, `")
                ),
            )
            .label("incomplete")
            .help(format!(
                "add `{}` to `cloud.{name}`",
                missing.join("` and `")
            )),
        );
    }
}

fn check_route_limit(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(row) = routes_on_cloud(context) else {
        return;
    };
    let routes = context.plan.nodes.len();
    let limit = row.route_limit;
    if routes > limit {
        found.push(
            Diagnostic::new(
                &ROUTE_TABLE_LIMIT,
                key("/nodes"),
                format!("{routes} nodes need {routes} routes, more than the {limit} {} allows in one route table by default", row.provider.as_str()),
            )
            .label("more routes than the default limit")
            .help("request a higher route quota before deploying, or use `backend: vxlan`"),
        );
    }
}

/// Every cloud identifier the spec gives, whichever provider and backend are chosen: a value is
/// checked where it is written, not only where it is used.
fn check_cloud_identifiers(context: &Context, found: &mut Vec<Diagnostic>) {
    for row in &cloud::CLOUDS {
        for written in cloud::written(row, context.spec) {
            if written.is_well_formed() {
                continue;
            }
            let grammar = written.grammar;
            found.push(
                Diagnostic::new(
                    &CLOUD_IDENTIFIER_MALFORMED,
                    value(written.pointer()),
                    format!(
                        "`{}` `{}` must be {}",
                        written.field(),
                        escape::bounded(written.value, 80),
                        grammar.rule
                    ),
                )
                .label("not a cloud identifier")
                .help(format!(
                    "write the identifier the cloud shows, e.g. `{}` ({})",
                    grammar.example, grammar.source
                )),
            );
        }
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
    let holder = plan
        .nodes
        .iter()
        .enumerate()
        .find(|(_, node)| node.address.as_ref().ok() == Some(address));
    let pointer = value("/windows/controlPlane/address");
    match holder {
        Some((_, node)) if node.os == Os::Linux && node.roles.contains(&Role::Controlplane) => {}
        Some((index, node)) => found.push(
            Diagnostic::new(
                &API_ADDRESS_UNSERVED,
                pointer,
                format!(
                    "`windows.controlPlane.address` {written} is node `{}`, which runs no API server: Windows joins and flanneld would reach nothing there",
                    node.name
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

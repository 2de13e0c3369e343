//! The routes artifacts. `routes/routes.json` always lists every pod route (destination, next hop,
//! node). host-gw needs more, and only the plan decides which:
//!
//! - on a cloud: that cloud's script (`routes/<cloud>.sh`) and Terraform JSON
//!   (`routes/<cloud>.tf.json`), one route per node plus per-node forwarding — one file per cloud
//!   here (`aws`, `gce`, `azure`);
//! - on bare metal across networks (the case HG206 reports, rendered anyway when downgraded):
//!   one route script per node under `routes/hosts/` (`hosts`).
//!
//! Scripts are built in Rust rather than templates: every interpolated value goes through one
//! quoting function (`render::script`), which is easier to see (and test) than template filters.

mod aws;
mod azure;
mod gce;
mod hosts;
mod terraform;

use super::script::{Script, script_value};
use super::{Artifact, Input, RenderError};
use crate::plan::{ExternalRoutes, Plan, SubnetSource, cloud};
use crate::spec::{Os, Provider, Spec};
use hosts::host_script_path;
use ipnet::Ipv4Net;
use serde::Serialize;
use std::net::Ipv4Addr;

/// The files `render` writes here, without rendering them.
pub fn paths(input: &Input) -> Result<Vec<String>, RenderError> {
    let mut paths = vec![ROUTES_PATH.to_string()];
    match input.plan.external_routes(input.spec.provider()) {
        Some(ExternalRoutes::Cloud(cloud)) => paths.extend([
            format!("routes/{}.sh", cloud.as_str()),
            format!("routes/{}.tf.json", cloud.as_str()),
        ]),
        Some(ExternalRoutes::Hosts) => {
            for node in &input.plan.nodes {
                paths.push(host_script_path(&node.name, node.os)?);
            }
        }
        None => {}
    }
    Ok(paths)
}

const ROUTES_PATH: &str = "routes/routes.json";

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    refuse_identifiers_a_cli_would_load(input.spec)?;
    let mut artifacts = vec![routes_json(input)?];
    // vxlan encapsulates between node addresses, and host-gw on one L2 network is flannel's own:
    // nothing else routes pod subnets there.
    match input.plan.external_routes(input.spec.provider()) {
        Some(ExternalRoutes::Cloud(Provider::Aws)) => artifacts.extend(aws::render(input)?),
        Some(ExternalRoutes::Cloud(Provider::Gce)) => artifacts.extend(gce::render(input)?),
        Some(ExternalRoutes::Cloud(Provider::Azure)) => artifacts.extend(azure::render(input)?),
        Some(ExternalRoutes::Hosts) => artifacts.extend(hosts::render(input)?),
        Some(ExternalRoutes::Cloud(Provider::None)) | None => {}
    }
    Ok(artifacts)
}

/// The part of HG406 that keeps a cloud command inert, checked again where the values are
/// written: even with HG406 allowed, no `aws`, `gcloud` or `az` command receives a value it would
/// load from a file or URL or read as an option. (Other malformed values only fail in the cloud.)
fn refuse_identifiers_a_cli_would_load(spec: &Spec) -> Result<(), RenderError> {
    let Some(row) = cloud::traits(spec.provider()) else {
        return Ok(());
    };
    match cloud::written(row, spec)
        .into_iter()
        .find(|written| cloud::cli_would_load(written.value))
    {
        Some(written) => Err(RenderError(format!(
            "routes: `{}` at {} is read by the cloud CLI as a file, a URL or an option; write the identifier itself ({}, HG406)",
            written.field(),
            written.pointer(),
            written.grammar.rule
        ))),
        None => Ok(()),
    }
}

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
    /// `predicted`, `assigned`, `pinned` or `live`: how far the destination can be trusted.
    pod_cidr_source: &'static str,
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
                pod_cidr_source: node.subnet_source.as_str(),
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

pub(super) fn pretty_json<T: Serialize>(value: &T, path: &str) -> Result<String, RenderError> {
    let mut text = crate::escape::json_pretty(value)
        .map_err(|error| RenderError(format!("`{path}` could not be serialized: {error}")))?;
    text.push('\n');
    // The serializer doubles its buffer as it goes; the file is kept until written.
    text.shrink_to_fit();
    Ok(text)
}

// ---------------------------------------------------------------------------------------------
// One route per node, for the host-gw artifacts

/// A node's pod route, with what the scripts print about it.
pub(super) struct NodeRoute<'a> {
    index: usize,
    name: &'a str,
    os: Os,
    destination: Ipv4Net,
    next_hop: Ipv4Addr,
}

/// Every node's route, in node order. host-gw sends each pod subnet to its node, so a node without
/// a subnet or an address (which lint reports as an error) cannot be rendered.
pub(super) fn node_routes(plan: &Plan) -> Result<Vec<NodeRoute<'_>>, RenderError> {
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

/// Where the route files' pod subnets come from, for the top of each: a route file written from
/// predictions says so, and names the nodes (HG117).
pub(super) fn subnet_origin(plan: &Plan) -> Result<Vec<String>, RenderError> {
    const SOURCES: [(SubnetSource, &str); 4] = [
        (
            SubnetSource::Live,
            "live (the node's spec.podCIDR in the cluster)",
        ),
        (SubnetSource::Pinned, "pinned (podCidr in the spec)"),
        (
            SubnetSource::Assigned,
            "assigned (set from the plan by pod-cidrs/assign.sh)",
        ),
        (SubnetSource::Predicted, "predicted"),
    ];
    let counts: Vec<String> = SOURCES
        .iter()
        .filter_map(|(source, what)| {
            let count = plan
                .nodes
                .iter()
                .filter(|node| node.subnet_source == *source)
                .count();
            (count > 0).then(|| format!("{count} {what}"))
        })
        .collect();
    let mut lines = vec![format!("Pod subnets: {}.", counts.join(", "))];
    let predicted = plan.predicted_nodes();
    if predicted.is_empty() {
        return Ok(lines);
    }
    /// Names shown before `and N more`.
    const SHOWN: usize = 6;
    let mut names = Vec::new();
    for index in predicted.iter().take(SHOWN) {
        let node = plan.nodes.get(*index).ok_or_else(|| missing("node"))?;
        names.push(script_value(&node.name, "node name")?.to_string());
    }
    let mut named = names.join(", ");
    if predicted.len() > SHOWN {
        named.push_str(&format!(" and {} more", predicted.len() - SHOWN));
    }
    lines.extend([
        format!("PREDICTED, not assigned: {named}."),
        "kube-controller-manager gives node subnets in the order nodes register, so a predicted subnet is"
            .into(),
        "the node's only if the nodes register in spec order. Once they have joined, render these routes"
            .into(),
        "from the cluster: hybridgen render SPEC --out DIR --kubectl (or --cluster CAPTURE-DIR).".into(),
    ]);
    Ok(lines)
}

pub(super) fn missing(what: &str) -> RenderError {
    RenderError(format!("routes: `{what}` is missing"))
}

/// A cloud setting the route scripts need: present, and fit for a script.
pub(super) fn setting<'a>(value: &'a Option<String>, field: &str) -> Result<&'a str, RenderError> {
    let value = value.as_deref().ok_or_else(|| missing(field))?;
    script_value(value, field)
}

/// A node's identifier at its cloud (the `node_identity` of the cloud's row): present, and fit
/// for a script.
pub(super) fn node_identity<'a>(spec: &'a Spec, route: &NodeRoute) -> Result<&'a str, RenderError> {
    let row = cloud::traits(spec.provider()).ok_or_else(|| missing("cloud"))?;
    let (field, read) = (row.node_identity.field, row.node_identity.read);
    let value = spec
        .nodes
        .get(route.index)
        .and_then(|node| node.cloud.as_ref());
    let value = value.and_then(read).ok_or_else(|| {
        RenderError(format!(
            "routes: node `{}` has no `cloud.{field}`",
            route.name
        ))
    })?;
    script_value(value, &format!("cloud.{field}"))
}

/// A cloud's route script and its Terraform twin.
pub(super) fn cloud_artifacts<T: Serialize>(
    cloud: &str,
    script: Script,
    terraform: &T,
) -> Result<[Artifact; 2], RenderError> {
    let terraform_path = format!("routes/{cloud}.tf.json");
    let terraform = crate::render::terraform::document(terraform, &terraform_path)?;
    Ok([
        Artifact::new(format!("routes/{cloud}.sh"), script.finish()),
        Artifact::new(terraform_path, terraform),
    ])
}

/// A cloud route name from the cluster and node names: `<cluster>-pods-<node>`, lower-case
/// letters, digits and `-`, starting with a letter and ending with a letter or digit (GCE's
/// `[a-z]([-a-z0-9]*[a-z0-9])?`, also valid for Azure). A name longer than `max` keeps its start and
/// ends with a hash of the whole name, so that truncated names stay distinct and stable.
pub(super) fn cloud_route_name(cluster: &str, node: &str, max: usize) -> String {
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
pub(super) fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    pub(super) use serde_json::Value;
    pub(super) use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use std::process::Command;
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub(super) const LINUX_AND_WINDOWS: &[(&str, &str, &str)] = &[
        ("control-0", "linux", "192.168.10.10"),
        ("linux-worker-0", "linux", "192.168.10.20"),
        ("win-0", "windows", "192.168.10.30"),
    ];

    /// A spec with the given nodes `(name, os, address)`; `node_cloud` is written under each node's
    /// `cloud:` (with `{i}` replaced by the node's index), `extra` at the top level.
    pub(super) fn spec_yaml(
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

    pub(super) const AWS: &str =
        "cloud:\n  provider: aws\n  aws:\n    region: us-east-1\n    routeTableId: rtb-0a1b2c3d\n";
    pub(super) const AWS_NODE: &str = "instanceId: i-000{i}";
    pub(super) const GCE: &str =
        "cloud:\n  provider: gce\n  gce:\n    project: demo-project\n    network: default\n";
    pub(super) const GCE_NODE: &str = "zone: us-central1-a";
    pub(super) const AZURE: &str = "cloud:\n  provider: azure\n  azure:\n    resourceGroup: demo-rg\n    routeTableName: demo-pods\n    location: eastus2\n";
    pub(super) const AZURE_NODE: &str = "nic: nic-{i}";

    pub(super) fn render_yaml(yaml: &str) -> Result<Vec<Artifact>, RenderError> {
        let spec: Spec = serde_yaml::from_str(yaml).expect("test spec parses");
        let plan = Plan::build(&spec);
        render(&Input {
            spec: &spec,
            plan: &plan,
        })
    }

    pub(super) fn rendered(yaml: &str) -> BTreeMap<String, String> {
        render_yaml(yaml)
            .expect("renders")
            .into_iter()
            .map(|artifact| (artifact.path, artifact.contents))
            .collect()
    }

    pub(super) fn paths(files: &BTreeMap<String, String>) -> Vec<&str> {
        files.keys().map(String::as_str).collect()
    }

    pub(super) fn json(text: &str) -> Value {
        serde_json::from_str(text).expect("valid JSON")
    }

    /// A fresh directory under the system temp dir, removed when dropped.
    pub(super) struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    pub(super) fn scratch_dir() -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "hybridgen-routes-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }

    pub(super) fn write_executable(path: &Path, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, text).expect("write");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }

    pub(super) fn assert_bash_syntax(script: &str) {
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
    pub(super) fn run_with_fake(script: &str, tool: &str, fake: &str) -> Vec<String> {
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

    pub(super) fn assert_well_formed(files: &BTreeMap<String, String>) {
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

    pub(super) fn count(text: &str, needle: &str) -> usize {
        text.matches(needle).count()
    }

    /// `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
    pub(super) fn is_gce_name(name: &str) -> bool {
        let bytes = name.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= 63
            && bytes[0].is_ascii_lowercase()
            && bytes
                .iter()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
            && !name.ends_with('-')
    }

    pub(super) fn is_terraform_identifier(name: &str) -> bool {
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
            spec_yaml("host-gw", "", "", hosts::tests::ACROSS_TWO_24S, ""),
        ] {
            assert_eq!(render_yaml(&yaml), render_yaml(&yaml));
        }
    }

    #[test]
    fn examples_render() {
        for (yaml, script) in [
            (
                include_str!("../../../examples/rancher-gce-host-gw.yaml"),
                "routes/gce.sh",
            ),
            (
                include_str!("../../../examples/rancher-azure-host-gw.yaml"),
                "routes/azure.sh",
            ),
        ] {
            let files = rendered(yaml);
            assert_well_formed(&files);
            assert!(files.contains_key(script));
        }
        let files = rendered(include_str!(
            "../../../examples/bare-metal-host-gw-1.8.yaml"
        ));
        assert_eq!(paths(&files), ["routes/routes.json"]);
    }
}

//! Routes from the cluster: host-gw specs on GCE, AWS and Azure whose workers registered in
//! another order than the spec's. Without a capture `render` warns HG117 and the route files say
//! their subnets are predicted; with `--cluster` every route sends each node's live subnet to that
//! node; a node not joined keeps a prediction no joined node holds; a live subnet that contradicts
//! a pin stops the render; and `verify` names the command that re-renders the routes.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const NODES: [(&str, &str, &str); 3] = [
    ("control-0", "linux", "192.168.10.10"),
    ("linux-worker-0", "linux", "192.168.10.20"),
    ("win-0", "windows", "192.168.10.30"),
];

/// The control plane registered first; then the Windows worker, then the Linux one: the reverse
/// of the spec's order for the workers.
const LIVE: [(&str, &str); 3] = [
    ("control-0", "10.244.0.0/24"),
    ("win-0", "10.244.1.0/24"),
    ("linux-worker-0", "10.244.2.0/24"),
];

struct Cloud {
    name: &'static str,
    section: &'static str,
    node: &'static str,
}

const CLOUDS: [Cloud; 3] = [
    Cloud {
        name: "gce",
        section: "  provider: gce\n  gce:\n    project: demo-project\n    network: default\n",
        node: "zone: us-central1-a",
    },
    Cloud {
        name: "aws",
        section: "  provider: aws\n  aws:\n    region: us-east-1\n    routeTableId: rtb-0a1b2c3d\n",
        node: "instanceId: i-0a1b2c3{i}",
    },
    Cloud {
        name: "azure",
        section: "  provider: azure\n  azure:\n    resourceGroup: demo-rg\n    routeTableName: demo-pods\n    location: eastus2\n",
        node: "nic: nic-{i}",
    },
];

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("routes-from-cluster")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A host-gw spec on `cloud`, `pin` written under the node it names.
fn spec_text(cloud: &Cloud, pin: Option<(&str, &str)>) -> String {
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
flannel:
  version: v0.11.0
  backend: host-gw
windows:
  build: \"10.0.17763.1554\"
  runtime: dockerd
cloud:
{}nodes:
",
        cloud.section
    );
    for (index, (name, os, address)) in NODES.iter().enumerate() {
        let roles = if index == 0 {
            "[controlplane, etcd, worker]"
        } else {
            "[worker]"
        };
        text.push_str(&format!(
            "  - name: {name}\n    os: {os}\n    roles: {roles}\n    address: {address}\n    cloud:\n      {}\n",
            cloud.node.replace("{i}", &index.to_string())
        ));
        if let Some((_, subnet)) = pin.filter(|(pinned, _)| pinned == name) {
            text.push_str(&format!("    podCidr: {subnet}\n"));
        }
    }
    text
}

/// `kubectl get nodes -o json` of the nodes in `live`, in registration order.
fn nodes_capture(live: &[(&str, &str)]) -> String {
    let items: Vec<Value> = live
        .iter()
        .map(|(name, subnet)| {
            let (_, os, address) = NODES.iter().find(|(n, _, _)| n == name).unwrap();
            json!({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": {"kubernetes.io/os": os}},
                "spec": {"podCIDR": subnet, "podCIDRs": [subnet]},
                "status": {"addresses": [{"type": "InternalIP", "address": address}]},
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": items}))
        .unwrap()
}

/// The spec and a capture of its nodes, in a directory of their own.
fn prepare(name: &str, spec_text: &str, live: &[(&str, &str)]) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let spec_path = dir.join("spec.yaml");
    std::fs::write(&spec_path, spec_text).unwrap();
    let capture = dir.join("capture");
    std::fs::create_dir_all(&capture).unwrap();
    std::fs::write(capture.join("nodes.json"), nodes_capture(live)).unwrap();
    (spec_path, capture)
}

fn hybridgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn render(spec: &Path, out: &Path, capture: Option<&Path>) -> Output {
    let mut args = vec![
        "render".to_string(),
        spec.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    if let Some(capture) = capture {
        args.extend(["--cluster".into(), capture.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    hybridgen(&args)
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Each node's (destination, source) in `routes/routes.json`.
fn routes(out: &Path) -> BTreeMap<String, (String, String)> {
    json_file(&out.join("routes/routes.json"))["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|route| {
            (
                route["node"].as_str().unwrap().to_string(),
                (
                    route["destination"].as_str().unwrap().to_string(),
                    route["podCidrSource"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect()
}

/// Each node's destination in the cloud's Terraform file (resources are named `pods_<node>`).
fn terraform_destinations(cloud: &str, out: &Path) -> BTreeMap<String, String> {
    let terraform = json_file(&out.join(format!("routes/{cloud}.tf.json")));
    let (kind, field) = match cloud {
        "gce" => ("google_compute_route", "dest_range"),
        "aws" => ("aws_route", "destination_cidr_block"),
        _ => ("azurerm_route", "address_prefix"),
    };
    terraform["resource"][kind]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, route)| {
            (
                name.trim_start_matches("pods_").replace('_', "-"),
                route[field].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Whether the command of a cloud script that routes `subnet` names the node's own target.
fn script_routes_to(cloud: &str, script: &str, subnet: &str, node: &str) -> bool {
    let index = NODES.iter().position(|(name, _, _)| *name == node).unwrap();
    let target = match cloud {
        "gce" => format!("--next-hop-instance '{node}'"),
        "aws" => format!("--instance-id 'i-0a1b2c3{index}'"),
        _ => format!("--next-hop-ip-address '{}'", NODES[index].2),
    };
    // A command continued over lines (`\` at the end) is one line here.
    script
        .replace("\\\n", " ")
        .lines()
        .filter(|line| line.contains(&format!("'{subnet}'")))
        .any(|line| line.contains(&target))
}

#[test]
fn routes_rendered_from_the_cluster_send_each_live_subnet_to_its_own_node() {
    for cloud in &CLOUDS {
        let (spec, capture) = prepare(cloud.name, &spec_text(cloud, None), &LIVE);

        // Without the cluster: predictions in spec order, said everywhere.
        let predicted = scratch(&format!("{}-predicted", cloud.name));
        let output = render(&spec, &predicted, None);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert!(
            text(&output.stderr).contains("HG117"),
            "{}",
            text(&output.stderr)
        );
        let script =
            std::fs::read_to_string(predicted.join(format!("routes/{}.sh", cloud.name))).unwrap();
        assert!(
            script.contains("# PREDICTED, not assigned: control-0, linux-worker-0, win-0."),
            "{script}"
        );
        assert_eq!(
            routes(&predicted)["linux-worker-0"],
            ("10.244.1.0/24".into(), "predicted".into())
        );

        // From the cluster: each live subnet to its own node, in every artifact.
        let live = scratch(&format!("{}-live", cloud.name));
        let output = render(&spec, &live, Some(&capture));
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        assert!(!stderr.contains("HG117"), "{stderr}");
        assert!(
            stderr.contains("the pod subnets of 3 of 3 planned nodes were read from the cluster"),
            "{stderr}"
        );
        let script =
            std::fs::read_to_string(live.join(format!("routes/{}.sh", cloud.name))).unwrap();
        assert!(script.contains("# Pod subnets: 3 live"), "{script}");
        assert!(!script.contains("PREDICTED"), "{script}");
        let terraform = terraform_destinations(cloud.name, &live);
        let routes = routes(&live);
        let plan = json_file(&live.join("plan.json"));
        for (node, subnet) in LIVE {
            assert_eq!(
                routes[node],
                (subnet.to_string(), "live".to_string()),
                "{}",
                cloud.name
            );
            assert_eq!(terraform[node], subnet, "{} {node}", cloud.name);
            assert!(
                script_routes_to(cloud.name, &script, subnet, node),
                "{} {node}:\n{script}",
                cloud.name
            );
            let planned = plan["nodes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["name"] == node)
                .unwrap();
            assert_eq!(planned["podCidr"], subnet);
            assert_eq!(planned["podCidrSource"], "live");
        }
    }
}

#[test]
fn a_node_not_joined_keeps_a_prediction_no_joined_node_holds() {
    let cloud = &CLOUDS[0];
    // linux-worker-0 has not joined; the Windows worker took the subnet spec order predicts for it.
    let live = [("control-0", "10.244.0.0/24"), ("win-0", "10.244.1.0/24")];
    let (spec, capture) = prepare("partial", &spec_text(cloud, None), &live);
    let out = scratch("partial-out");
    let output = render(&spec, &out, Some(&capture));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("HG117"), "{stderr}");
    assert!(
        stderr.contains("1 of 3 nodes are not in the cluster (`linux-worker-0`)"),
        "{stderr}"
    );
    let routes = routes(&out);
    assert_eq!(routes["win-0"], ("10.244.1.0/24".into(), "live".into()));
    assert_eq!(
        routes["linux-worker-0"],
        ("10.244.2.0/24".into(), "predicted".into())
    );
    let script = std::fs::read_to_string(out.join("routes/gce.sh")).unwrap();
    assert!(
        script.contains("# PREDICTED, not assigned: linux-worker-0."),
        "{script}"
    );
}

#[test]
fn a_live_subnet_that_contradicts_a_pin_renders_nothing() {
    let cloud = &CLOUDS[1];
    let (spec, capture) = prepare(
        "contradiction",
        &spec_text(cloud, Some(("linux-worker-0", "10.244.5.0/24"))),
        &LIVE,
    );
    let out = scratch("contradiction-out").join("deploy");
    let output = render(&spec, &out, Some(&capture));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("HG503"), "{stderr}");
    // The message is wrapped where the path (the target directory's) makes it: read it unwrapped.
    let message = stderr
        .split_whitespace()
        .filter(|word| *word != "│")
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        message.contains("has pod subnet `10.244.2.0/24`"),
        "{stderr}"
    );
    assert!(message.contains("pins 10.244.5.0/24"), "{stderr}");
    assert!(stderr.contains("nothing was rendered"), "{stderr}");
    assert!(
        !out.exists(),
        "a render that failed wrote {}",
        out.display()
    );

    // A capture that is no capture (`kubectl describe` text) is HG509, and nothing is written.
    std::fs::write(
        capture.join("nodes.json"),
        "Name:               control-0\nRoles:              control-plane\n",
    )
    .unwrap();
    let (spec, _) = prepare("unreadable", &spec_text(cloud, None), &LIVE);
    let output = render(&spec, &out, Some(&capture));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("HG509"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn verify_names_the_command_that_renders_the_routes_from_the_cluster() {
    let cloud = &CLOUDS[2];
    let (spec, capture) = prepare("verify", &spec_text(cloud, None), &LIVE);
    let output = hybridgen(&[
        "verify",
        spec.to_str().unwrap(),
        "--cluster",
        capture.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let warnings: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "HG503")
        .collect();
    // The two workers hold each other's predicted subnet; the control plane's is as predicted.
    assert_eq!(warnings.len(), 2, "{report:#}");
    for warning in warnings {
        assert_eq!(warning["severity"], "warning");
        assert_eq!(
            warning["help"],
            "render the routes from the cluster with `hybridgen render SPEC --out DIR --kubectl`, and apply them; if you did, give verify that directory with `--out DIR`"
        );
    }
}

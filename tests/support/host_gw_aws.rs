//! The host-gw spec on AWS the tests of routes read from the cluster share: Kubernetes 1.16 with
//! dockerd Windows nodes, controller-allocated pod subnets, routes in the cloud's route table.

/// The nodes: name, os, address.
pub const NODES: [(&str, &str, &str); 3] = [
    ("control-0", "linux", "192.168.10.10"),
    ("linux-worker-0", "linux", "192.168.10.20"),
    ("win-0", "windows", "192.168.10.30"),
];

/// The pod subnets the cluster gave them: the Windows worker registered before the Linux one, the
/// reverse of the spec's order, so both workers hold the subnet the plan predicted for the other.
pub const LIVE: [(&str, &str); 3] = [
    ("control-0", "10.244.0.0/24"),
    ("win-0", "10.244.1.0/24"),
    ("linux-worker-0", "10.244.2.0/24"),
];

/// The spec with `nodes` (name, os, address); the first is the control plane.
pub fn spec_text(nodes: &[(&str, &str, &str)]) -> String {
    let mut text = "apiVersion: hybridgen/v1
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
  provider: aws
  aws:
    region: us-east-1
    routeTableId: rtb-0a1b2c3d
nodes:
"
    .to_string();
    for (index, (name, os, address)) in nodes.iter().enumerate() {
        let roles = if index == 0 {
            "[controlplane, etcd, worker]"
        } else {
            "[worker]"
        };
        text.push_str(&format!(
            "  - name: {name}\n    os: {os}\n    roles: {roles}\n    address: {address}\n    cloud:\n      instanceId: i-0a1b2c3{index}\n"
        ));
    }
    text
}

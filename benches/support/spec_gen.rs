//! Writes valid cluster specs of any size for the benchmarks: a Linux control plane, then workers
//! with every fourth one (from the third) on Windows, every tenth pinning its pod subnet (which
//! hybridgen then assigns, `podCidrs: hybridgen`, as HG118 asks), and an AWS instance id on each
//! node. The text depends on the node count only, so every run measures the same bytes.

use std::fmt::Write;

/// The same spec with an error on every eighth node: its Windows build override names Windows
/// Server 2016 (HG301), for measuring reports with many findings.
pub fn spec_with_findings(nodes: usize) -> String {
    spec(nodes).replace(OVERRIDE_BUILD, "\"10.0.14393.0\"")
}

/// The build every eighth node (a Windows one) sets for itself.
const OVERRIDE_BUILD: &str = "\"10.0.17763.4010\"";

/// The spec text for a cluster of `nodes` nodes (at least 3, at most 65,536).
pub fn spec(nodes: usize) -> String {
    let nodes = nodes.clamp(3, 65_536);
    let large = nodes > 256;
    let (cluster, service, dns) = if large {
        ("10.0.0.0/8", "172.20.0.0/16", "172.20.0.10")
    } else {
        ("10.244.0.0/16", "10.96.0.0/12", "10.96.0.10")
    };
    let mut text = String::with_capacity(160 * nodes + 1024);
    let _ = write!(
        text,
        "\
apiVersion: hybridgen/v1
kind: Cluster
metadata:
  name: generated-{nodes}
kubernetes:
  version: \"1.23.17\"
network:
  clusterCidr: {cluster}
  serviceCidr: {service}
  dnsServiceIp: {dns}
  hostSubnets: [100.64.0.0/10]
  podCidrs: hybridgen
flannel:
  version: v0.17.0
  backend: vxlan
  vni: 4096
  port: 4789
windows:
  build: \"10.0.17763.3887\"
  runtime: dockerd
  controlPlane:
    address: {control_plane}
    username: localadmin
    kubeadmToken: {{fromEnv: KUBEADM_TOKEN}}
    kubeadmCaHash: {{fromEnv: KUBEADM_CA_HASH}}
cloud:
  provider: aws
  aws:
    region: us-east-1
    routeTableId: rtb-0a1b2c3d4e5f60718
nodes:
",
        control_plane = host_address(0),
    );
    for index in 0..nodes {
        write_node(&mut text, index, large);
    }
    text
}

fn write_node(text: &mut String, index: usize, large: bool) {
    let windows = index % 4 == 2;
    let (name, os, roles) = match (index, windows) {
        (0, _) => ("control".to_string(), "linux", "[controlplane, etcd]"),
        (_, true) => (format!("win-{index}"), "windows", "[worker]"),
        (_, false) => (format!("linux-{index}"), "linux", "[worker]"),
    };
    let _ = write!(
        text,
        "  - name: {name}\n    os: {os}\n    roles: {roles}\n    address: {address}\n",
        address = host_address(index),
    );
    if index % 10 == 5 {
        let _ = writeln!(text, "    podCidr: {}", pod_subnet(index, large));
    }
    if windows && index % 8 == 6 {
        let _ = writeln!(text, "    windowsBuild: {OVERRIDE_BUILD}");
    }
    let _ = writeln!(text, "    cloud: {{instanceId: i-{index:017x}}}");
}

/// Node `index`'s host address in 100.64.0.0/10, starting at .10.
fn host_address(index: usize) -> String {
    let at = index + 10;
    format!("100.{}.{}.{}", 64 + (at >> 16), (at >> 8) & 0xff, at & 0xff)
}

/// The `index`-th /24 of the cluster network, which leaves the lower ones to the unpinned nodes.
fn pod_subnet(index: usize, large: bool) -> String {
    if large {
        format!("10.{}.{}.0/24", index >> 8, index & 0xff)
    } else {
        format!("10.244.{index}.0/24")
    }
}

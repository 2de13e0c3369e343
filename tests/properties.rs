//! Properties over generated specs: whatever the numbers, checking never panics, and a spec that
//! plans without errors renders (a render failure would be a rule that let a broken spec through).

use hybridgen::diagnostic::Severity;
use hybridgen::{pipeline, render};
use proptest::prelude::*;

const KUBERNETES: &[&str] = &[
    "1.13.0", "1.16.2", "1.21.3", "1.23.4", "1.24.0", "1.30.2", "1.37.0",
];
const FLANNEL: &[&str] = &[
    "v0.10.0",
    "v0.11.0",
    "v0.13.0",
    "v0.16.2",
    "v0.21.5",
    "v0.28.9",
    "v0.29.0",
    "v0.28.0-rc1",
];
const BUILDS: &[&str] = &[
    "10.0.17134",
    "10.0.17763.1",
    "10.0.17763.379",
    "10.0.17763.2452",
    "10.0.20348.2700",
    "10.0.20348.1006",
    "10.0.26100",
];
const PROVIDERS: &[&str] = &[
    "",
    "cloud:\n  provider: aws\n  aws: {region: us-east-1, routeTableId: rtb-0a1b2c3d}\n",
    "cloud:\n  provider: gce\n  gce: {project: my-project, network: default}\n",
    "cloud:\n  provider: azure\n",
];

#[derive(Debug, Clone)]
struct Node {
    windows: bool,
    address: u32,
    pin: Option<(u32, u8)>,
}

fn ipv4(address: u32) -> String {
    std::net::Ipv4Addr::from(address).to_string()
}

/// A CIDR from any address and prefix, with the host bits cleared (else HG004 stops everything).
fn cidr(address: u32, prefix: u8) -> String {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(prefix))
    };
    format!("{}/{prefix}", ipv4(address & mask))
}

prop_compose! {
    fn node()(windows in any::<bool>(), address in 0xc0a8_0000u32..0xc0a8_0400, pin in proptest::option::weighted(0.2, (0x0af4_0000u32..0x0af5_0000, 20u8..=28))) -> Node {
        Node { windows, address, pin }
    }
}

#[allow(clippy::too_many_arguments)]
fn spec(
    kubernetes: &str,
    flannel: &str,
    host_gw: bool,
    vni: Option<u32>,
    port: Option<u16>,
    cluster: (u32, u8),
    service: (u32, u8),
    mask: u8,
    max_pods: u32,
    build: &str,
    provider: &str,
    nodes: &[Node],
) -> String {
    let mut text = format!(
        "apiVersion: hybridgen/v1\nkind: Cluster\nmetadata: {{name: generated}}\nkubernetes: {{version: \"{kubernetes}\"}}\nnetwork:\n  clusterCidr: {}\n  serviceCidr: {}\n  nodeCidrMaskSize: {mask}\n  maxPodsPerNode: {max_pods}\nflannel:\n  version: {flannel}\n  backend: {}\n",
        cidr(cluster.0, cluster.1),
        cidr(service.0, service.1),
        if host_gw { "host-gw" } else { "vxlan" },
    );
    if let Some(vni) = vni {
        text.push_str(&format!("  vni: {vni}\n"));
    }
    if let Some(port) = port {
        text.push_str(&format!("  port: {port}\n"));
    }
    // Kubernetes 1.24 and later take the HostProcess path: containerd, images from a registry.
    let current = !matches!(kubernetes, "1.13.0" | "1.16.2" | "1.21.3" | "1.23.4");
    text.push_str(&format!("windows:\n  build: \"{build}\"\n"));
    text.push_str(if current {
        "  runtime: containerd\n  hostProcess: {registry: registry.example.com/k8s}\n"
    } else {
        "  runtime: dockerd\n"
    });
    text.push_str(provider);
    text.push_str("nodes:\n");
    for (index, node) in nodes.iter().enumerate() {
        let (os, roles) = match (index, node.windows) {
            (0, _) => ("linux", "[controlplane, etcd, worker]"),
            (_, true) => ("windows", "[worker]"),
            (_, false) => ("linux", "[worker]"),
        };
        text.push_str(&format!(
            "  - name: node-{index}\n    os: {os}\n    roles: {roles}\n    address: {}\n",
            ipv4(node.address + index as u32 * 0x100)
        ));
        if let Some((address, prefix)) = node.pin {
            text.push_str(&format!("    podCidr: {}\n", cidr(address, prefix)));
        }
        if !provider.is_empty() {
            text.push_str(&format!(
                "    cloud: {{instanceId: i-{index:08x}, zone: us-central1-a, nic: nic-{index}}}\n"
            ));
        }
    }
    text
}

/// Cases run, and the floor of those that must come out clean and render: without it, a change
/// that made every generated spec fail a rule would leave the render half of this test vacuous.
const CASES: u32 = 1500;
const RENDERED_AT_LEAST: usize = CASES as usize / 10;

#[test]
fn any_spec_is_judged_and_a_clean_one_renders() {
    let strategy = (
        prop::sample::select(KUBERNETES),
        prop::sample::select(FLANNEL),
        any::<bool>(),
        prop_oneof![6 => Just(None), 2 => Just(Some(4096u32)), 1 => Just(Some(1)), 1 => any::<u32>().prop_map(Some)],
        prop_oneof![6 => Just(None), 2 => Just(Some(4789u16)), 1 => Just(Some(8472)), 1 => any::<u16>().prop_map(Some)],
        // Mostly plausible plans, so that many are clean and get rendered; sometimes anything.
        prop_oneof![8 => (0x0a00_0000u32..0x0b00_0000, 12u8..=22), 1 => (any::<u32>(), 0u8..=32)],
        prop_oneof![8 => (0xac10_0000u32..0xac20_0000, 12u8..=24), 1 => (any::<u32>(), 0u8..=32)],
        prop_oneof![8 => 22u8..=26, 1 => 0u8..=32],
        prop_oneof![8 => 10u32..120, 1 => 0u32..1000],
        prop::sample::select(BUILDS),
        prop::sample::select(PROVIDERS),
        prop::collection::vec(node(), 1..6),
    );
    let rendered = std::cell::Cell::new(0usize);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(CASES));
    let result = runner.run(
        &strategy,
        |(
            kubernetes,
            flannel,
            host_gw,
            vni,
            port,
            cluster,
            service,
            mask,
            max_pods,
            build,
            provider,
            nodes,
        )| {
            let text = spec(
                kubernetes, flannel, host_gw, vni, port, cluster, service, mask, max_pods, build,
                provider, &nodes,
            );
            let checked = pipeline::check("generated.yaml", text.clone().into_bytes());
            let clean = checked.spec.is_some()
                && !checked
                    .diagnostics
                    .iter()
                    .any(|d| d.severity == Severity::Error);
            if clean {
                let (spec, plan) = checked.into_spec_and_plan().unwrap();
                let input = render::Input {
                    spec: &spec,
                    plan: &plan,
                };
                let artifacts = render::render_all(&input);
                prop_assert!(
                    artifacts.is_ok(),
                    "a clean spec does not render: {:?}\n{text}",
                    artifacts.err()
                );
                let listed = render::artifact_paths(&input).unwrap();
                let paths: Vec<String> = artifacts.unwrap().into_iter().map(|a| a.path).collect();
                prop_assert!(!paths.is_empty(), "a clean spec rendered nothing\n{text}");
                prop_assert_eq!(listed, paths);
                rendered.set(rendered.get() + 1);
            }
            Ok(())
        },
    );
    if let Err(failure) = result {
        panic!("{failure}");
    }
    assert!(
        rendered.get() >= RENDERED_AT_LEAST,
        "{} of {CASES} generated specs were clean and rendered",
        rendered.get()
    );
}

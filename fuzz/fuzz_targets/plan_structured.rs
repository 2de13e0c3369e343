//! Structure-aware: a valid spec mutated field by field (CIDRs, masks, counts, versions, builds,
//! node lists), planned, reported and, when clean, rendered in memory.
#![no_main]

use arbitrary::Arbitrary;
use hybridgen::{pipeline, render};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

const SEED: &str = include_str!("../../examples/kubeadm-vxlan-windows.yaml");

#[derive(Arbitrary, Debug)]
enum Mutation {
    ClusterCidr(u32, u8),
    ServiceCidr(u32, u8),
    DnsServiceIp(u32),
    HostSubnet(u32, u8),
    NodeMask(u8),
    MaxPods(u32),
    Vni(u32),
    Port(u16),
    DirectRouting(bool),
    Backend(bool),
    KubernetesVersion(u8, u8, u8),
    FlannelVersion(u8, u8, u8),
    WindowsBuild(u32, Option<u16>),
    Provider(u8),
    AddNode { windows: bool, address: u32, pin: Option<(u32, u8)>, role: u8 },
    RemoveNode(u8),
    NodeAddress(u8, u32),
    NodeName(u8, String),
    Text(u8, String),
}

fn ip(bits: u32) -> String {
    std::net::Ipv4Addr::from(bits).to_string()
}

fn apply(spec: &mut Value, mutation: Mutation) {
    let count = spec["nodes"].as_array().map_or(0, Vec::len).max(1);
    match mutation {
        Mutation::ClusterCidr(a, p) => spec["network"]["clusterCidr"] = json!(format!("{}/{}", ip(a), p % 40)),
        Mutation::ServiceCidr(a, p) => spec["network"]["serviceCidr"] = json!(format!("{}/{}", ip(a), p % 40)),
        Mutation::DnsServiceIp(a) => spec["network"]["dnsServiceIp"] = json!(ip(a)),
        Mutation::HostSubnet(a, p) => spec["network"]["hostSubnets"] = json!([format!("{}/{}", ip(a), p % 40)]),
        Mutation::NodeMask(m) => spec["network"]["nodeCidrMaskSize"] = json!(m),
        Mutation::MaxPods(n) => spec["network"]["maxPodsPerNode"] = json!(n),
        Mutation::Vni(v) => spec["flannel"]["vni"] = json!(v),
        Mutation::Port(p) => spec["flannel"]["port"] = json!(p),
        Mutation::DirectRouting(d) => spec["flannel"]["directRouting"] = json!(d),
        Mutation::Backend(host_gw) => spec["flannel"]["backend"] = json!(if host_gw { "host-gw" } else { "vxlan" }),
        Mutation::KubernetesVersion(a, b, c) => spec["kubernetes"]["version"] = json!(format!("{a}.{b}.{c}")),
        Mutation::FlannelVersion(a, b, c) => spec["flannel"]["version"] = json!(format!("v{a}.{b}.{c}")),
        Mutation::WindowsBuild(build, revision) => {
            spec["windows"]["build"] = json!(match revision {
                Some(r) => format!("10.0.{build}.{r}"),
                None => format!("10.0.{build}"),
            })
        }
        Mutation::Provider(p) => {
            let provider = ["none", "aws", "gce", "azure"][usize::from(p % 4)];
            spec["cloud"] = json!({"provider": provider, "aws": {"region": "r", "routeTableId": "rtb-1"},
                "gce": {"project": "p", "network": "n"}, "azure": {"resourceGroup": "g", "routeTableName": "t", "location": "l"}});
        }
        Mutation::AddNode { windows, address, pin, role } => {
            if let Some(nodes) = spec["nodes"].as_array_mut() {
                let roles = [["worker"].as_slice(), &["controlplane", "etcd"], &["etcd"]][usize::from(role % 3)];
                let mut node = json!({"name": format!("n{}", nodes.len()), "os": if windows { "windows" } else { "linux" },
                    "roles": roles, "address": ip(address), "cloud": {"instanceId": "i-1", "zone": "z", "nic": "nic"}});
                if let Some((a, p)) = pin {
                    node["podCidr"] = json!(format!("{}/{}", ip(a), p % 40));
                }
                nodes.push(node);
            }
        }
        Mutation::RemoveNode(i) => {
            if let Some(nodes) = spec["nodes"].as_array_mut() {
                if !nodes.is_empty() {
                    nodes.remove(usize::from(i) % nodes.len());
                }
            }
        }
        Mutation::NodeAddress(i, a) => spec["nodes"][usize::from(i) % count]["address"] = json!(ip(a)),
        Mutation::NodeName(i, name) => spec["nodes"][usize::from(i) % count]["name"] = json!(name),
        Mutation::Text(field, text) => {
            let pointer = ["/metadata/name", "/kubernetes/dnsDomain", "/flannel/macPrefix", "/flannel/networkName", "/windows/interfaceName"][usize::from(field % 5)];
            if let Some(slot) = spec.pointer_mut(pointer.rsplit_once('/').map_or("", |(p, _)| p)) {
                slot[pointer.rsplit('/').next().unwrap_or_default()] = json!(text);
            }
        }
    }
}

fuzz_target!(|mutations: Vec<Mutation>| {
    let Ok(mut spec) = serde_yaml::from_str::<Value>(SEED) else { return };
    for mutation in mutations.into_iter().take(32) {
        apply(&mut spec, mutation);
    }
    let Ok(text) = serde_yaml::to_string(&spec) else { return };
    let checked = pipeline::check("fuzz.yaml", text.into_bytes());
    let reports = [hybridgen::report::FileReport::new(&checked, &checked.diagnostics)];
    let _ = hybridgen::report::sarif::render(&reports);
    if let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) {
        let secrets = render::Secrets::default();
        let _ = render::render_all(&render::Input { spec, plan, secrets: &secrets });
    }
});

//! kubeadm's configuration file: the ClusterConfiguration (networking, the controller manager's
//! flags the plan decides, and the control-plane endpoint when the API is reached through another
//! address), the KubeletConfiguration, the KubeProxyConfiguration and the InitConfiguration of the
//! first control-plane node (its advertise address and `node-ip`).

use crate::plan::pins;
use crate::plan::releases::kubeadm::KubeadmApi;
use crate::plan::releases::kubernetes;
use crate::plan::version::Release;
use crate::plan::{Plan, PodCidrs};
use crate::render::pod_cidrs::controller_manager_args;
use crate::render::{Artifact, Input, RenderError};
use crate::spec::{Os, Role};
use minijinja::context;
use std::net::Ipv4Addr;

/// The kubeadm config API a Kubernetes release reads: kubeadm's column of the release table (a
/// release before the table reads the oldest row's, v1beta1).
pub fn kubeadm_api(kubernetes: &Release) -> KubeadmApi {
    kubernetes::resolve(kubernetes).row.kubeadm.api
}

/// The file `render` writes here.
pub const PATH: &str = "kubeadm/kubeadm-config.yaml";

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    let network = input.network()?;
    let kubernetes = &network.kubernetes;
    let (cluster_cidr, service_cidr, dns_service_ip) = (
        network.cluster_cidr.to_string(),
        network.service_cidr.to_string(),
        network.dns_service_ip.to_string(),
    );
    let api = kubeadm_api(kubernetes);
    let init = init_node(plan);
    let endpoint = init.and_then(|(_, address)| external_endpoint(plan, address));
    let bind_port = match (endpoint, plan.windows.as_ref()) {
        (None, Some(windows)) => windows.api_server_port,
        _ => pins::API_SERVER_PORT,
    };
    let kubeadm = crate::render::template("kubeadm/kubeadm-config.yaml.j2")?.render(context! {
        api_version => api.as_str(),
        kubernetes_version => kubernetes.to_string(),
        cluster_name => input.spec.metadata.name.clone(),
        cluster_cidr,
        service_cidr,
        dns_service_ip,
        dns_domain => plan.dns_domain.clone(),
        max_pods => plan.max_pods,
        controller_manager_args => controller_manager_args(plan, kubernetes),
        pod_cidrs_from_plan => plan.pod_cidrs == PodCidrs::Hybridgen,
        extra_args_list => api.extra_args_list(),
        endpoint => endpoint.map(|(address, port)| format!("{address}:{port}")),
        endpoint_address => endpoint.map(|(address, _)| address.to_string()),
        init_node => init.map(|(name, _)| name),
        init_address => init.map(|(_, address)| address.to_string()),
        bind_port,
    })?;
    Ok(vec![Artifact::new(PATH, kubeadm)])
}

/// The node `kubeadm init` runs on: the first Linux control-plane node with a valid address.
fn init_node(plan: &Plan) -> Option<(&str, Ipv4Addr)> {
    plan.nodes
        .iter()
        .filter(|node| node.os == Os::Linux && node.roles.contains(&Role::Controlplane))
        .find_map(|node| Some((node.name.as_str(), *node.address.as_ref().ok()?)))
}

/// The API endpoint the other nodes join: the external one, else the init node's address and
/// the API server's port.
pub fn join_endpoint(plan: &Plan) -> Option<(Ipv4Addr, u16)> {
    let (_, address) = init_node(plan)?;
    let port = plan
        .windows
        .as_ref()
        .map_or(pins::API_SERVER_PORT, |windows| windows.api_server_port);
    Some(external_endpoint(plan, address).unwrap_or((address, port)))
}

/// The API endpoint the nodes are given (`windows.controlPlane.address` and `.port`) when it is
/// not the init node's own address: a load balancer or VIP, which kubeadm must know as
/// `controlPlaneEndpoint` and put in the serving certificate, or every join fails TLS
/// verification (kubeadm "Creating Highly Available Clusters with kubeadm").
fn external_endpoint(plan: &Plan, init_address: Ipv4Addr) -> Option<(Ipv4Addr, u16)> {
    let windows = plan.windows.as_ref()?;
    let address = *windows.control_plane_address.as_ref()?.as_ref().ok()?;
    (address != init_address).then_some((address, windows.api_server_port))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::render::pod_cidrs::node_mask_flag;
    use crate::spec::Spec;

    fn render_spec(edit: impl Fn(String) -> String) -> Vec<Artifact> {
        let text = edit(include_str!("../../../templates/starter-kubecluster.yaml").to_string());
        let spec: Spec = serde_yaml::from_str(&text).unwrap();
        let plan = Plan::build(&spec);
        render(&Input {
            spec: &spec,
            plan: &plan,
        })
        .unwrap()
    }

    fn documents(text: &str) -> Vec<serde_yaml::Value> {
        serde_yaml::Deserializer::from_str(text)
            .map(|document| serde_yaml::Value::deserialize(document).unwrap())
            .collect()
    }

    use serde::Deserialize;

    #[test]
    fn kubeadm_config_carries_the_plan() {
        let artifacts = render_spec(|text| text);
        let docs = documents(&artifacts[0].contents);
        assert_eq!(docs.len(), 4);
        assert_eq!(docs[0]["apiVersion"], "kubeadm.k8s.io/v1beta2");
        assert_eq!(docs[0]["kubernetesVersion"], "v1.16.2");
        assert_eq!(docs[0]["networking"]["podSubnet"], "10.244.0.0/16");
        assert_eq!(docs[0]["networking"]["serviceSubnet"], "10.96.0.0/12");
        assert!(
            docs[0].get("controllerManager").is_none(),
            "mask 24 needs no flag"
        );
        assert_eq!(docs[1]["clusterDNS"][0], "10.96.0.10");
        assert_eq!(docs[1]["maxPods"], 110);
        assert_eq!(docs[2]["clusterCIDR"], "10.244.0.0/16");
        assert_eq!(docs[3]["kind"], "InitConfiguration");
        assert!(docs[0].get("controlPlaneEndpoint").is_none());
    }

    #[test]
    fn the_init_node_advertises_its_planned_address() {
        for (version, list) in [("1.16.2", false), ("1.33.4", true)] {
            let artifacts = render_spec(|text| {
                text.replace("version: \"1.16.2\"", &format!("version: \"{version}\""))
            });
            let docs = documents(&artifacts[0].contents);
            let init = &docs[3];
            assert_eq!(init["kind"], "InitConfiguration");
            let address = init["localAPIEndpoint"]["advertiseAddress"].clone();
            assert_eq!(init["nodeRegistration"]["name"], "control-0", "{version}");
            let node_ip = if list {
                init["nodeRegistration"]["kubeletExtraArgs"][0]["value"].clone()
            } else {
                init["nodeRegistration"]["kubeletExtraArgs"]["node-ip"].clone()
            };
            assert_eq!(node_ip, address, "{version}");
            assert_eq!(init["localAPIEndpoint"]["bindPort"], 6443);
        }
    }

    #[test]
    fn an_api_address_that_is_not_the_init_node_is_the_control_plane_endpoint() {
        let artifacts = render_spec(|text| {
            text.replace(
                "  controlPlane:\n",
                "  controlPlane:\n    address: 192.168.10.99\n",
            )
        });
        let docs = documents(&artifacts[0].contents);
        assert_eq!(docs[0]["controlPlaneEndpoint"], "192.168.10.99:6443");
        assert_eq!(docs[0]["apiServer"]["certSANs"][0], "192.168.10.99");
        assert_eq!(
            docs[3]["localAPIEndpoint"]["advertiseAddress"],
            "192.168.10.10"
        );
    }

    #[test]
    fn kubeadm_api_versions_follow_the_release() {
        let version = |text: &str| kubeadm_api(&Release::parse(text).unwrap()).as_str();
        assert_eq!(version("1.14.0"), "kubeadm.k8s.io/v1beta1");
        assert_eq!(version("1.21.9"), "kubeadm.k8s.io/v1beta2");
        assert_eq!(version("1.30.0"), "kubeadm.k8s.io/v1beta3");
        assert_eq!(version("1.31.0"), "kubeadm.k8s.io/v1beta4");
    }

    #[test]
    fn a_node_mask_other_than_24_reaches_the_controller_manager() {
        let artifacts = render_spec(|text| {
            text.replace(
                "  serviceCidr: 10.96.0.0/12",
                "  serviceCidr: 10.96.0.0/12\n  nodeCidrMaskSize: 25\n  maxPodsPerNode: 100",
            )
            .replace("version: \"1.16.2\"", "version: \"1.31.2\"")
        });
        let docs = documents(&artifacts[0].contents);
        assert_eq!(
            docs[0]["controllerManager"]["extraArgs"][0]["name"],
            "node-cidr-mask-size-ipv4"
        );
        assert_eq!(docs[0]["controllerManager"]["extraArgs"][0]["value"], "25");
    }

    #[test]
    fn pod_subnets_from_the_plan_turn_the_controller_managers_allocation_off() {
        for (version, list) in [("1.16.2", false), ("1.31.2", true)] {
            let artifacts = render_spec(|text| {
                text.replace(
                    "  serviceCidr: 10.96.0.0/12",
                    "  serviceCidr: 10.96.0.0/12\n  nodeCidrMaskSize: 25\n  maxPodsPerNode: 100\n  podCidrs: hybridgen",
                )
                .replace("version: \"1.16.2\"", &format!("version: \"{version}\""))
            });
            let docs = documents(&artifacts[0].contents);
            let args = &docs[0]["controllerManager"]["extraArgs"];
            let arg = |name: &str| -> serde_yaml::Value {
                if list {
                    args.as_sequence()
                        .unwrap()
                        .iter()
                        .find(|arg| arg["name"] == name)
                        .map(|arg| arg["value"].clone())
                        .unwrap()
                } else {
                    args[name].clone()
                }
            };
            assert_eq!(arg("allocate-node-cidrs"), "false", "{version}");
            assert!(
                matches!(arg(node_mask_flag(&Release::parse(version).unwrap())), serde_yaml::Value::String(mask) if mask == "25")
            );
        }
        let controller = render_spec(|text| text);
        assert!(!controller[0].contents.contains("allocate-node-cidrs"));
    }
}

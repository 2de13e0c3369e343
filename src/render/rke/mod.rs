//! RKE1's room (`distribution: rke`): the network part of an RKE `cluster.yml`
//! (`rke/cluster-network.yml`) — flannel's backend options and the address plan — to merge into
//! the cluster's own. RKE1 deploys flannel itself and Rancher's agent joins its Windows nodes, so
//! nothing else is rendered for it. RKE1 reached its end of life on 31 July 2025
//! (rancher/rancher#46376) and Rancher 2.12 cannot provision it; the file says so.

use super::{Artifact, ControllerManager, Input, RenderError, Room};
use minijinja::context;

/// The file `render` writes here.
pub const PATH: &str = "rke/cluster-network.yml";

pub(crate) struct Rke;

impl Room for Rke {
    fn paths(&self, _input: &Input) -> Result<Vec<String>, RenderError> {
        Ok(vec![PATH.to_string()])
    }

    fn render(&self, input: &Input) -> Result<Vec<Artifact>, RenderError> {
        let plan = input.plan;
        let network = input.network()?;
        let end_of_life = plan.distribution.end_of_life.as_ref();
        let text = super::template("rke/cluster-network.yml.j2")?.render(context! {
            backend => plan.flannel.backend.as_str(),
            port => plan.flannel.port,
            vni => plan.flannel.vni,
            cluster_cidr => network.cluster_cidr.to_string(),
            service_cidr => network.service_cidr.to_string(),
            dns_service_ip => network.dns_service_ip.to_string(),
            dns_domain => plan.dns_domain.clone(),
            controller_manager_args => super::pod_cidrs::controller_manager_args(plan, &network.kubernetes),
            end_of_life_date => end_of_life.map(|end| end.date),
            successor => end_of_life.map(|end| end.successor),
        })?;
        Ok(vec![Artifact::new(PATH, text)])
    }

    fn controller_manager(&self) -> ControllerManager {
        ControllerManager {
            flags_in: "rke/cluster-network.yml",
            started_by: "`rke up`",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Plan;
    use crate::spec::Spec;
    use serde::Deserialize;

    /// The RKE1 file of a spec.
    fn rendered(text: &str) -> String {
        let spec: Spec = serde_yaml::from_str(text).unwrap();
        let plan = Plan::build(&spec);
        let artifacts = Rke
            .render(&Input {
                spec: &spec,
                plan: &plan,
            })
            .unwrap();
        artifacts[0].contents.clone()
    }

    #[test]
    fn options_are_strings_and_the_end_of_life_is_stated() {
        let text = include_str!("../../../examples/rancher-azure-host-gw.yaml")
            .replace("backend: host-gw", "backend: vxlan\n  vni: 4096\n  port: 4789")
            .replace("  networkName: cbr0               # the l2bridge HNS network the Windows node setup creates\n", "");
        let contents = &rendered(&text);
        assert!(
            contents.contains("end of life on 31 July 2025"),
            "{contents}"
        );
        let document =
            serde_yaml::Value::deserialize(serde_yaml::Deserializer::from_str(contents)).unwrap();
        let options = &document["network"]["options"];
        assert_eq!(options["flannel_backend_vni"], "4096");
        assert_eq!(options["flannel_backend_port"], "4789");
        assert_eq!(
            document["services"]["kubelet"]["cluster_dns_server"],
            "10.43.0.10"
        );
        assert_eq!(
            document["services"]["kube-controller"]["cluster_cidr"],
            "10.42.0.0/16"
        );
        assert!(
            document["services"]["kube-controller"]
                .get("extra_args")
                .is_none()
        );
    }

    #[test]
    fn pod_subnets_from_the_plan_turn_the_allocation_off() {
        let text = include_str!("../../../examples/rancher-azure-host-gw.yaml").replace(
            "  nodeCidrMaskSize: 24\n",
            "  nodeCidrMaskSize: 25\n  podCidrs: hybridgen\n",
        );
        let contents = &rendered(&text);
        let document =
            serde_yaml::Value::deserialize(serde_yaml::Deserializer::from_str(contents)).unwrap();
        let extra = &document["services"]["kube-controller"]["extra_args"];
        assert_eq!(extra["allocate-node-cidrs"], "false");
        // Kubernetes 1.15: the single-family flag.
        assert_eq!(extra["node-cidr-mask-size"], "25");
    }
}

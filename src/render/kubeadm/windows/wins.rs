//! The wins DaemonSets (Kubernetes 1.18 to 1.23, `windows.setup: wins-daemonsets`):
//! `windows/kube-flannel-wins.yml` and `windows/kube-proxy-wins.yml`, sig-windows-tools'
//! `kubeadm/flannel/flannel-overlay.yml` (or `flannel-host-gw.yml`) and
//! `kubeadm/kube-proxy/kube-proxy.yml` on dockerd, with this cluster's namespace, images, adapter
//! and HNS network name. Each node is prepared with sig-windows-tools' own `PrepareNode.ps1` and
//! joined with `kubeadm join` (the steps README says how); nothing here is per node.

use super::node_settings;
use crate::plan::{
    WinsAdapterProblem, wins_adapter_problems, wins_flannel_image, wins_kube_proxy_image,
};
use crate::render::yaml::indented;
use crate::render::{Artifact, Input, RenderError};
use crate::spec::Backend;
use minijinja::context;
use minijinja::value::Serde;
use serde::Serialize;
use serde_json::json;

pub const FLANNEL_PATH: &str = "windows/kube-flannel-wins.yml";
pub const KUBE_PROXY_PATH: &str = "windows/kube-proxy-wins.yml";

/// The files `render` writes here.
pub const PATHS: [&str; 2] = [FLANNEL_PATH, KUBE_PROXY_PATH];

/// The last Kubernetes minor whose kube-proxy takes `IPv6DualStack=false`: the gate went GA,
/// locked on, in 1.23 (kubernetes PR #104691), and sig-windows-tools dropped the line then
/// (kubernetes-sigs/sig-windows-tools#224).
const LAST_DUAL_STACK_GATE_MINOR: u32 = 22;

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    let settings = node_settings(plan)?;
    let network = input.network()?;
    let release = crate::render::flannel::planned_release(input)?;
    let image = wins_flannel_image(&release.tag).ok_or_else(|| {
        RenderError(format!(
            "sig-windows-tools published no Windows flannel image for flannel {} (HG331)",
            release.tag
        ))
    })?;
    // HG332 reports these; a suppressed finding must still not reach `run.ps1`.
    if let Some(problem) = wins_adapter_problems(settings.windows, &plan.nodes).first() {
        let at = match problem {
            WinsAdapterProblem::OwnAdapter { node, .. } => plan
                .nodes
                .get(*node)
                .map(|node| format!("Windows node `{}`: ", node.name))
                .unwrap_or_default(),
            WinsAdapterProblem::NotOneWord(_) => String::new(),
        };
        return Err(RenderError(format!("{at}{problem} (HG332)")));
    }
    let interface = settings.windows.interface_name.clone();
    let vxlan = plan.flannel.backend == Backend::Vxlan;
    let flannel = FlannelManifest {
        flannel_tag: release.tag.clone(),
        backend: plan.flannel.backend.as_str(),
        upstream_file: if vxlan {
            "flannel-overlay.yml"
        } else {
            "flannel-host-gw.yml"
        },
        namespace: plan.flannel.namespace(),
        image,
        network_name: plan.flannel.network_name.clone(),
        vxlan,
        setup_mode: if vxlan { "overlay" } else { "l2bridge" },
        interface,
        cni_conf: cni_conf(&plan.flannel.network_name, vxlan)?,
    };
    let flannel_text = crate::render::template("windows/wins-flannel.yml.j2")?
        .render(context! { m => Serde(&flannel) })?;
    let proxy = KubeProxyManifest {
        kubernetes_tag: format!("v{}", network.kubernetes),
        image: wins_kube_proxy_image(&network.kubernetes),
        network_name: plan.flannel.network_name.clone(),
        dual_stack_off: network.kubernetes.minor <= LAST_DUAL_STACK_GATE_MINOR,
    };
    let proxy_text = crate::render::template("windows/wins-kube-proxy.yml.j2")?
        .render(context! { m => Serde(&proxy) })?;
    Ok(vec![
        Artifact::new(FLANNEL_PATH, flannel_text),
        Artifact::new(KUBE_PROXY_PATH, proxy_text),
    ])
}

/// The dockerd CNI configuration of `flannel-overlay.yml` (win-overlay) or `flannel-host-gw.yml`
/// (win-bridge), with the planned network name; `run.ps1` fills the address lists on the node.
fn cni_conf(network_name: &str, vxlan: bool) -> Result<String, RenderError> {
    let outbound_nat = json!({
        "Name": "EndpointPolicy",
        "Value": { "Type": "OutBoundNAT", "ExceptionList": [] }
    });
    let route = json!({
        "Name": "EndpointPolicy",
        "Value": { "Type": "ROUTE", "DestinationPrefix": "", "NeedEncap": true }
    });
    let delegate = if vxlan {
        json!({ "type": "win-overlay", "policies": [outbound_nat, route] })
    } else {
        json!({
            "type": "win-bridge",
            "hairpinMode": true,
            "isDefaultGateway": true,
            "policies": [outbound_nat, route.clone(), route]
        })
    };
    let conf = json!({
        "name": network_name,
        "cniVersion": "0.3.0",
        "type": "flannel",
        "capabilities": { "dns": true },
        "delegate": delegate,
    });
    let text = serde_json::to_string_pretty(&conf)
        .map_err(|error| RenderError(format!("the Windows CNI configuration: {error}")))?;
    Ok(indented(&text))
}

#[derive(Serialize)]
struct FlannelManifest {
    flannel_tag: String,
    backend: &'static str,
    upstream_file: &'static str,
    namespace: &'static str,
    image: String,
    network_name: String,
    vxlan: bool,
    setup_mode: &'static str,
    interface: String,
    cni_conf: String,
}

#[derive(Serialize)]
struct KubeProxyManifest {
    kubernetes_tag: String,
    image: String,
    network_name: String,
    dual_stack_off: bool,
}

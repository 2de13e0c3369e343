//! The Windows flanneld and kube-proxy as HostProcess DaemonSets (Kubernetes 1.24 and later):
//! `windows/kube-flannel-windows.yml` and `windows/kube-proxy-windows.yml`.
//!
//! Every cluster value is written here — the one network name, the ranges, the API endpoint — so
//! that the images and their start scripts are the same for every cluster (they depend on the
//! flannel and Kubernetes versions only). A DaemonSet is shared by all Windows nodes, so the
//! node-specific values come from the node at start, through the downward API: its name, and its
//! address as the kubelet registered it (`status.hostIP`, which is the `--node-ip` `join.ps1`
//! gives each node its planned address with). Nothing here names a node, so adding one touches no
//! cluster-wide object.

use super::node_settings;
use crate::plan::Plan;
use crate::plan::pins::WINDOWS_CNI_CONFIG_VERSION;
use crate::plan::releases::kubernetes::KubernetesRelease;
use crate::render::yaml::indented;
use crate::render::{Artifact, Input, RenderError};
use crate::spec::Backend;
use minijinja::context;
use minijinja::value::Serde;
use serde::Serialize;

pub const FLANNEL_PATH: &str = "windows/kube-flannel-windows.yml";
pub const KUBE_PROXY_PATH: &str = "windows/kube-proxy-windows.yml";

/// The files `render` writes here.
pub const PATHS: [&str; 2] = [FLANNEL_PATH, KUBE_PROXY_PATH];

/// Where the flannel DaemonSet puts the CNI plugins and configuration on the node; the join
/// script points containerd at the same directories.
pub const CNI_BIN_PATH: &str = r"C:\opt\cni\bin";
pub const CNI_CONFIG_PATH: &str = r"C:\etc\cni\net.d";

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    let settings = node_settings(plan)?;
    let network = input.network()?;
    // The Windows DaemonSet joins the flannel manifest's namespace, ServiceAccount and ConfigMap.
    let flannel_release = crate::render::flannel::planned_release(input)?;
    let flannel = FlannelManifest {
        flannel_tag: flannel_release.tag.clone(),
        kubernetes: network.kubernetes.to_string(),
        namespace: flannel_release.row.layout.namespace(),
        image: image(settings.windows.flannel_image.as_deref(), "flannel")?,
        api_host: settings.control_plane.to_string(),
        api_port: settings.windows.api_server_port.to_string(),
        cni_bin_path: CNI_BIN_PATH,
        cni_config_path: CNI_CONFIG_PATH,
        cni_conf: indented(&cni_conf_json(plan, &network)?),
    };
    let flannel_text = crate::render::template("windows/kube-flannel-windows.yml.j2")?
        .render(context! { m => Serde(&flannel) })?;
    let vxlan = plan.flannel.backend == Backend::Vxlan;
    let row = plan
        .kubernetes_release
        .ok_or_else(|| RenderError("`kubernetes.version` is not a release".into()))?
        .row;
    let routes = crate::plan::cloud::traits(input.spec.provider())
        .map(|cloud| cloud.link_local_routes.join(","))
        .unwrap_or_default();
    let proxy = KubeProxyManifest {
        kubernetes_tag: format!("v{}", network.kubernetes),
        image: image(settings.windows.kube_proxy_image.as_deref(), "kube-proxy")?,
        network_name: plan.flannel.network_name.clone(),
        cluster_cidr: network.cluster_cidr.to_string(),
        source_vip: vxlan,
        source_vip_text: vxlan.to_string(),
        dsr_text: settings.windows.dsr.to_string(),
        feature_gates: kube_proxy_gates(row, vxlan, settings.windows.dsr).join(","),
        metadata_routes: routes,
    };
    let proxy_text = crate::render::template("windows/kube-proxy-windows.yml.j2")?
        .render(context! { m => Serde(&proxy) })?;
    Ok(vec![
        Artifact::new(FLANNEL_PATH, flannel_text),
        Artifact::new(KUBE_PROXY_PATH, proxy_text),
    ])
}

/// The feature gates kube-proxy is started with: those of the features in use (overlay with vxlan,
/// DSR when planned) that the minor's row has off by default. A gate that is on, locked or gone is
/// never named (naming a removed gate is refused).
pub(crate) fn kube_proxy_gates(
    row: &KubernetesRelease,
    vxlan: bool,
    dsr: bool,
) -> Vec<&'static str> {
    [
        (vxlan && row.win_overlay.must_be_named(), "WinOverlay=true"),
        (dsr && row.win_dsr.must_be_named(), "WinDSR=true"),
    ]
    .into_iter()
    .filter_map(|(named, gate)| named.then_some(gate))
    .collect()
}

/// An image reference, known present: HG312 stops rendering without one.
fn image(reference: Option<&str>, what: &str) -> Result<String, RenderError> {
    reference.map(String::from).ok_or_else(|| {
        RenderError(format!(
            "no Windows {what} image: set `windows.hostProcess.registry` or the image (HG312)"
        ))
    })
}

/// The Windows CNI configuration every node shares: the sdnoverlay (vxlan) or sdnbridge (host-gw)
/// conflist of microsoft/windows-container-networking `example/flannel_overlay.conf` and
/// `example/flannel_l2bridge.conf`. Pod traffic to the pod and Service networks is not NATed,
/// Service traffic is encapsulated. With kube-proxy DSR on, `loopbackDSR` lets a pod reach a
/// Service whose chosen backend is itself (kubernetes-sigs/sig-windows-tools#119; the plugin flag
/// of microsoft/windows-container-networking `cni/cni.go`, from v0.2.2/v0.3.0). The start script
/// adds the one node-specific policy: the node's address as the overlay provider address, or
/// (l2bridge) a route to it.
pub(crate) fn cni_conf_json(
    plan: &Plan,
    network: &crate::render::Network,
) -> Result<String, RenderError> {
    let (cluster, service) = (
        network.cluster_cidr.to_string(),
        network.service_cidr.to_string(),
    );
    let vxlan = plan.flannel.backend == Backend::Vxlan;
    let conf = CniConf {
        cni_version: WINDOWS_CNI_CONFIG_VERSION,
        name: plan.flannel.network_name.clone(),
        plugins: [FlannelPlugin {
            kind: "flannel",
            capabilities: Capabilities {
                port_mappings: true,
                dns: true,
            },
            delegate: Delegate {
                kind: if vxlan { "sdnoverlay" } else { "sdnbridge" },
                optional_flags: OptionalFlags {
                    force_bridge_gateway: (!vxlan).then_some(true),
                    loopback_dsr: plan.windows.as_ref().is_some_and(|w| w.dsr).then_some(true),
                },
                additional_args: vec![
                    EndpointPolicy::new(PolicyValue::OutBoundNat {
                        settings: OutBoundNatSettings {
                            exceptions: vec![cluster, service.clone()],
                        },
                    }),
                    EndpointPolicy::new(PolicyValue::SdnRoute {
                        settings: SdnRouteSettings {
                            destination_prefix: service,
                            need_encap: true,
                        },
                    }),
                ],
            },
        }],
    };
    serde_json::to_string_pretty(&conf)
        .map_err(|error| RenderError(format!("cannot write the Windows CNI config: {error}")))
}

#[derive(Serialize)]
struct FlannelManifest {
    flannel_tag: String,
    kubernetes: String,
    namespace: &'static str,
    image: String,
    api_host: String,
    api_port: String,
    cni_bin_path: &'static str,
    cni_config_path: &'static str,
    cni_conf: String,
}

#[derive(Serialize)]
struct KubeProxyManifest {
    kubernetes_tag: String,
    image: String,
    network_name: String,
    cluster_cidr: String,
    source_vip: bool,
    source_vip_text: String,
    dsr_text: String,
    feature_gates: String,
    /// The link-local routes to restore, comma-separated; empty off a cloud.
    metadata_routes: String,
}

#[derive(Serialize)]
struct CniConf {
    #[serde(rename = "cniVersion")]
    cni_version: &'static str,
    name: String,
    plugins: [FlannelPlugin; 1],
}

#[derive(Serialize)]
struct FlannelPlugin {
    #[serde(rename = "type")]
    kind: &'static str,
    capabilities: Capabilities,
    delegate: Delegate,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Capabilities {
    port_mappings: bool,
    dns: bool,
}

#[derive(Serialize)]
struct Delegate {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(
        rename = "optionalFlags",
        skip_serializing_if = "OptionalFlags::is_empty"
    )]
    optional_flags: OptionalFlags,
    #[serde(rename = "AdditionalArgs")]
    additional_args: Vec<EndpointPolicy>,
}

/// The sdnoverlay/sdnbridge flags (microsoft/windows-container-networking `cni/cni.go`
/// `OptionalFlags`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OptionalFlags {
    #[serde(skip_serializing_if = "Option::is_none")]
    force_bridge_gateway: Option<bool>,
    #[serde(rename = "loopbackDSR", skip_serializing_if = "Option::is_none")]
    loopback_dsr: Option<bool>,
}

impl OptionalFlags {
    fn is_empty(&self) -> bool {
        self.force_bridge_gateway.is_none() && self.loopback_dsr.is_none()
    }
}

#[derive(Serialize)]
struct EndpointPolicy {
    #[serde(rename = "Name")]
    name: &'static str,
    #[serde(rename = "Value")]
    value: PolicyValue,
}

impl EndpointPolicy {
    fn new(value: PolicyValue) -> Self {
        Self {
            name: "EndpointPolicy",
            value,
        }
    }
}

#[derive(Serialize)]
#[serde(tag = "Type")]
enum PolicyValue {
    #[serde(rename = "OutBoundNAT")]
    OutBoundNat {
        #[serde(rename = "Settings")]
        settings: OutBoundNatSettings,
    },
    #[serde(rename = "SDNRoute")]
    SdnRoute {
        #[serde(rename = "Settings")]
        settings: SdnRouteSettings,
    },
}

#[derive(Serialize)]
struct OutBoundNatSettings {
    #[serde(rename = "Exceptions")]
    exceptions: Vec<String>,
}

#[derive(Serialize)]
struct SdnRouteSettings {
    #[serde(rename = "DestinationPrefix")]
    destination_prefix: String,
    #[serde(rename = "NeedEncap")]
    need_encap: bool,
}

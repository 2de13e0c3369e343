//! The join, per Windows node (HostProcess path): `windows/<node>/kubeadm-join.yaml`, the kubeadm
//! JoinConfiguration in the API version the release reads (it holds the token and CA hash, so it
//! is written 0600 and compared masked), and `windows/<node>/join.ps1`, which prepares the node
//! — the Containers feature, containerd with the CNI directories the flannel DaemonSet fills, the
//! kubelet, kubeadm and kube-log-runner binaries, the kubelet service, the firewall — and joins
//! it, saying what it does step by step. Every step checks first, so the script can run again.
//!
//! The kubelet runs as a Windows service (`--windows-service`) under kube-log-runner, which
//! Kubernetes ships for exactly this (kubernetes/kubernetes#106123: the klog file flags were
//! removed in 1.26), so no third-party service wrapper is downloaded.

use super::hostprocess::{CNI_BIN_PATH, CNI_CONFIG_PATH};
use super::{checked_node_name, host_process_settings, secret_values, windows_of};
use crate::plan::pins::CONTAINERD_CRI_SOCKET;
use crate::plan::version::Release;
use crate::plan::{Plan, release_tag};
use crate::render::cluster::kubeadm_api_version;
use crate::render::script::{Script, powershell_quote, script_value};
use crate::render::{Artifact, Input, RenderError};
use crate::spec::{Backend, Os};
use minijinja::context;
use minijinja::value::Serde;
use serde::Serialize;
use std::collections::BTreeSet;
use std::net::Ipv4Addr;

/// The keys of `kubeadm-join.yaml` whose values are secrets.
pub const SECRET_KEYS: &[&str] = &["token", "caCertHashes"];

const JOIN_FILE: &str = "kubeadm-join.yaml";
const SCRIPT_FILE: &str = "join.ps1";

/// The steps of `join.ps1`, the same for every node: they read the variables set above them.
const STEPS: &str = include_str!("../../../templates/windows/join-steps.ps1");

/// The first Kubernetes release whose kubelet takes the sandbox image from the runtime, so
/// `--pod-infra-container-image` is deprecated (removed in 1.34; sig-windows-tools 6308ea8 gates
/// it the same way).
const SANDBOX_FROM_RUNTIME: (u32, u32) = (1, 27);

pub fn paths(plan: &Plan) -> Result<Vec<String>, RenderError> {
    let mut paths = Vec::new();
    for node in plan.nodes.iter().filter(|node| node.os == Os::Windows) {
        let name = checked_node_name(&node.name)?;
        paths.push(format!("windows/{name}/{JOIN_FILE}"));
        paths.push(format!("windows/{name}/{SCRIPT_FILE}"));
    }
    Ok(paths)
}

#[derive(Serialize)]
struct JoinConfiguration<'a> {
    node: &'a str,
    kubernetes: String,
    api_version: &'static str,
    endpoint: String,
    token: &'a str,
    ca_hash: &'a str,
    cri_socket: &'static str,
    address: String,
    extra_args_list: bool,
}

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    let settings = host_process_settings(plan)?;
    let network = input.network()?;
    let kubernetes = network.kubernetes;
    let api_version = kubeadm_api_version(&kubernetes);
    let [token, ca_hash] = secret_values(input);
    let endpoint = format!(
        "{}:{}",
        settings.control_plane, settings.windows.api_server_port
    );
    let kubernetes_tag = release_tag(&input.spec.kubernetes.version).ok_or_else(|| {
        RenderError("`kubernetes.version` cannot be used as a download tag".into())
    })?;
    let containerd = settings
        .windows
        .containerd_version
        .as_ref()
        .map_err(|error| RenderError(format!("containerd: {}", error.problem)))?;
    let template = crate::render::template("windows/kubeadm-join.yaml.j2")?;
    let mut seen = BTreeSet::new();
    let mut artifacts = Vec::new();
    for node in plan.nodes.iter().filter(|node| node.os == Os::Windows) {
        let name = checked_node_name(&node.name)?;
        let pause = windows_of(node)?.images.pause.as_str();
        if !seen.insert(name) {
            return Err(RenderError(format!(
                "two Windows nodes are named {name:?}; each needs its own `{JOIN_FILE}`"
            )));
        }
        let address = *node
            .address
            .as_ref()
            .map_err(|_| RenderError(format!("Windows node `{name}` has no valid address")))?;
        let join = template.render(context! { j => Serde(&JoinConfiguration {
            node: name,
            kubernetes: kubernetes.to_string(),
            api_version,
            endpoint: endpoint.clone(),
            token: &token,
            ca_hash: &ca_hash,
            cri_socket: CONTAINERD_CRI_SOCKET,
            address: address.to_string(),
            extra_args_list: api_version.ends_with("v1beta4"),
        }) })?;
        artifacts.push(Artifact {
            path: format!("windows/{name}/{JOIN_FILE}"),
            contents: join,
            secret_keys: SECRET_KEYS,
        });
        let script = join_script(&JoinScript {
            cluster: &input.spec.metadata.name,
            node: name,
            address,
            kubernetes: &kubernetes,
            kubernetes_tag: &kubernetes_tag,
            containerd,
            pause,
            vxlan: plan.flannel.backend == Backend::Vxlan,
        })?;
        artifacts.push(Artifact::new(
            format!("windows/{name}/{SCRIPT_FILE}"),
            script,
        ));
    }
    Ok(artifacts)
}

/// What one node's `join.ps1` needs.
struct JoinScript<'a> {
    cluster: &'a str,
    node: &'a str,
    address: Ipv4Addr,
    kubernetes: &'a Release,
    kubernetes_tag: &'a str,
    containerd: &'a Release,
    pause: &'a str,
    vxlan: bool,
}

fn join_script(values: &JoinScript) -> Result<String, RenderError> {
    let cluster = script_value(values.cluster, "metadata.name")?;
    let node = script_value(values.node, "node name")?;
    let pause = script_value(values.pause, "windows.images.pause")?;
    let mut script = Script::default();
    script.comment(&format!(
        "Prepares Windows node {node} ({}) of cluster {cluster} and joins it: generated by hybridgen.",
        values.address
    ));
    script.comment(
        "Run it as Administrator on the node, from this directory (kubeadm-join.yaml beside it):",
    );
    script.comment(&format!(
        "  powershell -ExecutionPolicy Bypass -File .\\{SCRIPT_FILE}"
    ));
    script.comment(
        "Safe to run again: each step checks what is there first. After the Containers feature is",
    );
    script.comment(
        "installed the node must restart once; the script says so and stops, run it again after.",
    );
    script.line("#Requires -RunAsAdministrator");
    script.line("$ErrorActionPreference = 'Stop'");
    script.line("$ProgressPreference = 'SilentlyContinue'");
    script.comment("GitHub and dl.k8s.io accept TLS 1.2 only; Windows PowerShell 5.1 may not offer it by default.");
    script.line("[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12");
    script.blank();
    script.line(&format!("$NodeName = {}", powershell_quote(node)));
    script.line(&format!(
        "$NodeAddress = {}",
        powershell_quote(&values.address.to_string())
    ));
    script.line(&format!(
        "$KubernetesVersion = {}",
        powershell_quote(values.kubernetes_tag)
    ));
    script.line(&format!(
        "$ContainerdVersion = {}",
        powershell_quote(&values.containerd.to_string())
    ));
    script.line(&format!("$CniBinPath = {}", powershell_quote(CNI_BIN_PATH)));
    script.line(&format!(
        "$CniConfigPath = {}",
        powershell_quote(CNI_CONFIG_PATH)
    ));
    script.line(&format!(
        "$OpenVxlanPort = ${}",
        if values.vxlan { "true" } else { "false" }
    ));
    script.comment("containerd's configuration: only what differs from its defaults.");
    script.line("$ContainerdConfig = @'");
    for line in containerd_config(values.containerd, pause).lines() {
        script.line(line);
    }
    script.line("'@");
    script.comment(
        "The kubelet's flags (the cluster's KubeletConfiguration comes from kubeadm join).",
    );
    script.line("$KubeletArguments = @(");
    let flags = kubelet_flags(values.kubernetes, node, values.address, pause);
    for (index, flag) in flags.iter().enumerate() {
        let separator = if index + 1 < flags.len() { "," } else { "" };
        script.line(&format!("    {}{separator}", powershell_quote(flag)));
    }
    script.line(")");
    let mut text = script.finish();
    text.push_str(STEPS);
    Ok(text)
}

/// containerd's `config.toml`: the CNI directories the flannel DaemonSet fills (containerd's
/// Windows defaults are under `Program Files`), and the planned sandbox image (containerd's own
/// default may have no variant for the node's build). The 1.x schema (version 2) and the 2.x one (version 3, where the CNI section moved
/// to `io.containerd.cri.v1.runtime` and, from 2.1, takes `bin_dirs`) as containerd documents them
/// (containerd/containerd `docs/cri/config.md`).
pub(crate) fn containerd_config(containerd: &Release, pause: &str) -> String {
    let mut lines = Vec::new();
    if containerd.major >= 2 {
        lines.push("version = 3".to_string());
        lines.push("[plugins.'io.containerd.cri.v1.runtime'.cni]".into());
        if containerd.at_least(2, 1) {
            lines.push(format!("  bin_dirs = ['{CNI_BIN_PATH}']"));
        } else {
            lines.push(format!("  bin_dir = '{CNI_BIN_PATH}'"));
        }
        lines.push(format!("  conf_dir = '{CNI_CONFIG_PATH}'"));
        lines.push("[plugins.'io.containerd.cri.v1.images'.pinned_images]".into());
        lines.push(format!("  sandbox = '{pause}'"));
    } else {
        lines.push("version = 2".to_string());
        lines.push("[plugins.\"io.containerd.grpc.v1.cri\"]".into());
        lines.push(format!("  sandbox_image = '{pause}'"));
        lines.push("[plugins.\"io.containerd.grpc.v1.cri\".cni]".into());
        lines.push(format!("  bin_dir = '{CNI_BIN_PATH}'"));
        lines.push(format!("  conf_dir = '{CNI_CONFIG_PATH}'"));
    }
    lines.join("\n")
}

/// The kubelet's command line on Windows (sig-windows-tools `hostprocess/PrepareNode.ps1`, which
/// kubernetes.io's "Adding Windows worker nodes" uses): the kubeadm paths, this node's name and
/// planned address, containerd's pipe, and what Windows requires (no QoS cgroups, no node
/// allocatable enforcement, no resolv.conf). `--pod-infra-container-image` only before 1.27.
pub(crate) fn kubelet_flags(
    kubernetes: &Release,
    node: &str,
    address: Ipv4Addr,
    pause: &str,
) -> Vec<String> {
    let mut flags: Vec<String> = [
        "--windows-service",
        r"--cert-dir=C:\var\lib\kubelet\pki",
        r"--config=C:\var\lib\kubelet\config.yaml",
        r"--bootstrap-kubeconfig=C:\etc\kubernetes\bootstrap-kubelet.conf",
        r"--kubeconfig=C:\etc\kubernetes\kubelet.conf",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    flags.push(format!("--hostname-override={node}"));
    flags.push(format!("--node-ip={address}"));
    flags.push(format!(
        "--container-runtime-endpoint={CONTAINERD_CRI_SOCKET}"
    ));
    flags.push("--enforce-node-allocatable=".into());
    flags.push("--cgroups-per-qos=false".into());
    flags.push("--resolv-conf=".into());
    let (major, minor) = SANDBOX_FROM_RUNTIME;
    if !kubernetes.at_least(major, minor) {
        flags.push(format!("--pod-infra-container-image={pause}"));
    }
    flags.push("--v=2".into());
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_flag_is_gone_from_1_27() {
        let address = Ipv4Addr::new(192, 168, 10, 30);
        let pause = "registry.k8s.io/pause:3.9";
        let old = kubelet_flags(&Release::new(1, 26, 15), "win-0", address, pause);
        let new = kubelet_flags(&Release::new(1, 34, 0), "win-0", address, pause);
        assert!(old.contains(&"--pod-infra-container-image=registry.k8s.io/pause:3.9".to_string()));
        assert!(
            !new.iter()
                .any(|flag| flag.starts_with("--pod-infra-container-image"))
        );
        assert!(new.contains(&"--node-ip=192.168.10.30".to_string()));
        assert!(new.contains(&"--hostname-override=win-0".to_string()));
    }

    #[test]
    fn containerd_2_uses_the_version_3_schema() {
        let one = containerd_config(&Release::new(1, 7, 22), "registry.k8s.io/pause:3.10.2");
        assert!(one.starts_with("version = 2\n"));
        assert!(one.contains("[plugins.\"io.containerd.grpc.v1.cri\".cni]"));
        assert!(one.contains("sandbox_image = 'registry.k8s.io/pause:3.10.2'"));
        let two = containerd_config(&Release::new(2, 1, 0), "registry.k8s.io/pause:3.10");
        assert!(two.starts_with("version = 3\n"));
        assert!(two.contains("bin_dirs = ['C:\\opt\\cni\\bin']"));
        assert!(two.contains("sandbox = 'registry.k8s.io/pause:3.10'"));
    }
}

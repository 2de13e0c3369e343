//! The join, per Windows node (HostProcess path): `windows/<node>/kubeadm-join.yaml`, the kubeadm
//! JoinConfiguration in the API version the release reads (it holds the token and CA hash, so it
//! is written 0600 and compared masked); `windows/<node>/crictl.yaml`, crictl's configuration; and
//! `windows/<node>/join.ps1`, which prepares the node — the Containers feature, containerd with
//! the CNI directories the flannel DaemonSet fills, the kubelet, kubeadm, kube-log-runner and
//! crictl binaries, the kubelet service, the firewall — and joins it, saying what it does step by
//! step. Every step checks first, so the script can run again: on a joined node it updates what
//! changed, and after a join that failed half-way it undoes it with `kubeadm reset` and joins.
//!
//! The kubelet runs as a Windows service (`--windows-service`) under kube-log-runner, which
//! Kubernetes ships for exactly this (kubernetes/kubernetes#106123: the klog file flags were
//! removed in 1.26), so no third-party service wrapper is downloaded. What depends on the
//! Kubernetes minor or the containerd line — the kubelet's flags, the kubeadm API, the containerd
//! configuration format, kube-log-runner's rotation, crictl — comes from their rows in
//! [`crate::plan::releases`].

use super::hostprocess::{CNI_BIN_PATH, CNI_CONFIG_PATH};
use super::{checked_node_name, node_settings, windows_of};
use crate::plan::downloads::Asset;
use crate::plan::pins::{self, CONTAINERD_CRI_SOCKET};
use crate::plan::releases::containerd::{self, ConfigFormat, ContainerdLine};
use crate::plan::releases::kubernetes::KubernetesRelease;
use crate::plan::{Plan, release_tag};
use crate::render::node_secret::NodeSecret;
use crate::render::script::{Script, powershell_quote, script_value};
use crate::render::{Artifact, Input, RenderError};
use crate::spec::secret_fields;
use crate::spec::{Backend, Os};
use minijinja::context;
use minijinja::value::Serde;
use serde::Serialize;
use std::collections::BTreeSet;
use std::net::Ipv4Addr;

const JOIN_FILE: &str = "kubeadm-join.yaml";
const CRICTL_FILE: &str = "crictl.yaml";
const SCRIPT_FILE: &str = "join.ps1";

/// The steps of `join.ps1`, the same for every node: they read the variables set above them.
const STEPS: &str = include_str!("../../../../templates/windows/join-steps.ps1");

/// What `kubeadm join` leaves on a joined node.
const KUBELET_CONFIG: &str = r"C:\etc\kubernetes\kubelet.conf";

/// Where kube-log-runner writes the kubelet's output.
const KUBELET_LOG: &str = r"C:\var\log\kubelet\kubelet.log";

pub fn paths(plan: &Plan) -> Result<Vec<String>, RenderError> {
    let mut paths = Vec::new();
    for node in plan.nodes.iter().filter(|node| node.os == Os::Windows) {
        let name = checked_node_name(&node.name)?;
        for file in [JOIN_FILE, CRICTL_FILE, SCRIPT_FILE] {
            paths.push(format!("windows/{name}/{file}"));
        }
    }
    Ok(paths)
}

#[derive(Serialize)]
struct JoinConfiguration<'a> {
    node: &'a str,
    kubernetes: String,
    api_version: &'static str,
    endpoint: String,
    token_variable: &'a str,
    ca_hash_variable: &'a str,
    cri_socket: &'static str,
    address: String,
    extra_args_list: bool,
}

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    let settings = node_settings(plan)?;
    let network = input.network()?;
    let kubernetes = network.kubernetes;
    let row = plan
        .kubernetes_release
        .ok_or_else(|| RenderError("`kubernetes.version` is not a release".into()))?
        .row;
    let api = row.kubeadm.api;
    let token = NodeSecret::of(secret_fields::kubeadm_token(), input.spec)?;
    let ca_hash = NodeSecret::of(secret_fields::kubeadm_ca_hash(), input.spec)?;
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
    let line = settings
        .windows
        .containerd_line
        .ok_or_else(|| RenderError("containerd: the version is not a release".into()))?
        .row;
    let crictl = row.crictl.ok_or_else(|| {
        RenderError(format!(
            "no crictl release with a published checksum matches Kubernetes 1.{}",
            row.minor
        ))
    })?;
    let crictl_config = crictl_config();
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
            api_version: api.as_str(),
            endpoint: endpoint.clone(),
            token_variable: token.variable(),
            ca_hash_variable: ca_hash.variable(),
            cri_socket: CONTAINERD_CRI_SOCKET,
            address: address.to_string(),
            extra_args_list: api.extra_args_list(),
        }) })?;
        artifacts.push(Artifact::new(format!("windows/{name}/{JOIN_FILE}"), join));
        artifacts.push(Artifact::new(
            format!("windows/{name}/{CRICTL_FILE}"),
            crictl_config.clone(),
        ));
        let script = join_script(&JoinScript {
            cluster: &input.spec.metadata.name,
            node: name,
            address,
            kubernetes: row,
            kubernetes_tag: &kubernetes_tag,
            containerd: &containerd.to_string(),
            line,
            crictl,
            pause,
            vxlan: plan.flannel.backend == Backend::Vxlan,
            secrets: [&token, &ca_hash],
        })?;
        artifacts.push(Artifact::new(
            format!("windows/{name}/{SCRIPT_FILE}"),
            script,
        ));
    }
    Ok(artifacts)
}

/// `crictl.yaml`: containerd's CRI pipe for both endpoints (kubernetes-sigs/cri-tools
/// `docs/crictl.md`, the Windows example; the keys are those of its `pkg/common/config.go`).
fn crictl_config() -> String {
    let mut text = String::from(
        "# Code generated by hybridgen; DO NOT EDIT.\n\
         # crictl's configuration: join.ps1 copies it to C:\\k\\crictl.yaml and points CRI_CONFIG_FILE at it.\n",
    );
    for key in ["runtime-endpoint", "image-endpoint"] {
        text.push_str(&format!("{key}: {CONTAINERD_CRI_SOCKET}\n"));
    }
    text.push_str("timeout: 10\n");
    text
}

/// What one node's `join.ps1` needs.
struct JoinScript<'a> {
    cluster: &'a str,
    node: &'a str,
    address: Ipv4Addr,
    kubernetes: &'static KubernetesRelease,
    kubernetes_tag: &'a str,
    containerd: &'a str,
    line: &'static ContainerdLine,
    crictl: &'static str,
    pause: &'a str,
    vxlan: bool,
    /// The kubeadm token and CA hash, read when the script runs.
    secrets: [&'a NodeSecret<'a>; 2],
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
        "Run it as Administrator on the node, with kubeadm-join.yaml and crictl.yaml beside it, and",
    );
    script.comment(&format!(
        "on a node that has not joined yet, {} and {} set (kubeadm token create --print-join-command):",
        values.secrets[0].variable(),
        values.secrets[1].variable()
    ));
    script.comment(&format!(
        "  powershell -ExecutionPolicy Bypass -File .\\{SCRIPT_FILE}"
    ));
    script.comment(
        "Safe to run again: each step checks what is there first. On a joined node it updates what",
    );
    script.comment(
        "changed; after a join that failed half-way it runs kubeadm reset and joins again. After the",
    );
    script.comment(
        "Containers feature is installed the node must restart once; the script says so and stops.",
    );
    script.line("#Requires -RunAsAdministrator");
    script.line("$ErrorActionPreference = 'Stop'");
    script.line("$ProgressPreference = 'SilentlyContinue'");
    script.comment("GitHub and dl.k8s.io accept TLS 1.2 only; Windows PowerShell 5.1 may not offer it by default.");
    script.line("[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12");
    script.blank();
    let log_runner = if values.kubernetes.log_rotation {
        values.kubernetes_tag
    } else {
        // An earlier kube-log-runner cannot rotate; the first one that can runs any kubelet.
        pins::ROTATING_KUBE_LOG_RUNNER
    };
    for (variable, value) in [
        ("NodeName", node),
        ("NodeAddress", &values.address.to_string()),
        ("KubernetesVersion", values.kubernetes_tag),
        ("ContainerdVersion", values.containerd),
        ("CrictlVersion", values.crictl),
        ("LogRunnerVersion", log_runner),
        ("CniBinPath", CNI_BIN_PATH),
        ("CniConfigPath", CNI_CONFIG_PATH),
        ("CriSocket", CONTAINERD_CRI_SOCKET),
    ] {
        script.line(&format!("${variable} = {}", powershell_quote(value)));
    }
    script.comment("Every download and its published checksum file (hybridgen's download table).");
    for (variable, asset, release) in [
        ("Containerd", Asset::Containerd, values.containerd),
        ("Kubelet", Asset::Kubelet, values.kubernetes_tag),
        ("Kubeadm", Asset::Kubeadm, values.kubernetes_tag),
        ("LogRunner", Asset::KubeLogRunner, log_runner),
        ("Crictl", Asset::Crictl, values.crictl),
    ] {
        let download = asset.download(release);
        let checksum = download
            .checksum_url
            .as_deref()
            .ok_or_else(|| RenderError(format!("{} publishes no checksum file", download.url)))?;
        script.line(&format!(
            "${variable}Url = {}",
            powershell_quote(&download.url)
        ));
        script.line(&format!(
            "${variable}ChecksumUrl = {}",
            powershell_quote(checksum)
        ));
    }
    script.line(&format!(
        "$OpenVxlanPort = ${}",
        if values.vxlan { "true" } else { "false" }
    ));
    join_secrets(&mut script, values.secrets);
    script.comment(&format!(
        "containerd {}'s configuration (format version {}): only what differs from its defaults. Its own",
        values.line.name(),
        values.line.config.version()
    ));
    script.comment(&format!(
        "sandbox image is {}; the planned one has a variant for every Windows build in use.",
        values.line.default_pause
    ));
    script.line("$ContainerdConfig = @'");
    for line in containerd_config(values.line, pause).lines() {
        script.line(line);
    }
    script.line("'@");
    script.comment(
        "The kubelet's flags (the cluster's KubeletConfiguration comes from kubeadm join).",
    );
    list(
        &mut script,
        "KubeletArguments",
        &kubelet_flags(values.kubernetes, node, values.address, pause),
    );
    script.comment("kube-log-runner runs the kubelet and keeps its log bounded.");
    list(&mut script, "LogRunnerArguments", &log_runner_flags());
    script.comment(
        "containerd's lines, oldest first: an upgrade goes to the next line only (containerd#12727).",
    );
    let lines: Vec<String> = containerd::LINES.iter().map(|line| line.name()).collect();
    list(&mut script, "ContainerdLines", &lines);
    let mut text = script.finish();
    text.push_str(STEPS);
    Ok(text)
}

/// The token and CA hash, from the environment, before the script changes anything: only a node
/// that has not joined needs them (a bootstrap token expires in 24 hours; a joined node re-runs
/// the script without one). No rendered file holds them.
fn join_secrets(script: &mut Script, secrets: [&NodeSecret; 2]) {
    let [token, ca_hash] = secrets;
    script.comment(&format!(
        "The join secrets are read from {} and {} when this script runs: no rendered file holds them.",
        token.variable(),
        ca_hash.variable()
    ));
    script.line(&format!(
        "$JoinSecretsNeeded = -not (Test-Path -Path {})",
        powershell_quote(KUBELET_CONFIG)
    ));
    script.line("if ($JoinSecretsNeeded) {");
    for line in token
        .powershell_lines(SCRIPT_FILE, "JoinToken")
        .into_iter()
        .chain(ca_hash.powershell_lines(SCRIPT_FILE, "JoinCaHash"))
    {
        script.line(&format!("    {line}"));
    }
    script.line("}");
}

/// `$name = @( 'a', 'b' )`, one quoted item a line.
fn list(script: &mut Script, name: &str, items: &[String]) {
    script.line(&format!("${name} = @("));
    for (index, item) in items.iter().enumerate() {
        let separator = if index + 1 < items.len() { "," } else { "" };
        script.line(&format!("    {}{separator}", powershell_quote(item)));
    }
    script.line(")");
}

/// containerd's `config.toml` in the line's own format: the CNI directories the flannel DaemonSet
/// fills (containerd's Windows defaults are under `Program Files`), and the planned sandbox image
/// (containerd's own default may have no variant for the node's build). The keys as containerd
/// documents them (containerd/containerd `docs/cri/config.md`): version 2 under
/// `io.containerd.grpc.v1.cri`; versions 3 and 4 under `io.containerd.cri.v1.runtime` and
/// `io.containerd.cri.v1.images`, with the list `bin_dirs` from 2.1.
pub(crate) fn containerd_config(line: &ContainerdLine, pause: &str) -> String {
    let format: ConfigFormat = line.config;
    let bin = if line.cni_bin_dirs {
        format!("  bin_dirs = ['{CNI_BIN_PATH}']")
    } else {
        format!("  bin_dir = '{CNI_BIN_PATH}'")
    };
    let conf = format!("  conf_dir = '{CNI_CONFIG_PATH}'");
    let lines = if format.split_cri() {
        [
            format!("version = {}", format.version()),
            "[plugins.'io.containerd.cri.v1.runtime'.cni]".into(),
            bin,
            conf,
            "[plugins.'io.containerd.cri.v1.images'.pinned_images]".into(),
            format!("  sandbox = '{pause}'"),
        ]
    } else {
        [
            format!("version = {}", format.version()),
            "[plugins.\"io.containerd.grpc.v1.cri\"]".into(),
            format!("  sandbox_image = '{pause}'"),
            "[plugins.\"io.containerd.grpc.v1.cri\".cni]".into(),
            bin,
            conf,
        ]
    };
    lines.join("\n")
}

/// The kubelet's command line on Windows (sig-windows-tools `hostprocess/PrepareNode.ps1`, which
/// kubernetes.io's "Adding Windows worker nodes" uses): the kubeadm paths, this node's name and
/// planned address, containerd's pipe, and what Windows requires (no QoS cgroups, no node
/// allocatable enforcement, no resolv.conf); then what the minor's row asks for.
pub(crate) fn kubelet_flags(
    kubernetes: &KubernetesRelease,
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
    if kubernetes.kubelet.remote_runtime_flag {
        flags.push("--container-runtime=remote".into());
    }
    flags.push(format!(
        "--container-runtime-endpoint={CONTAINERD_CRI_SOCKET}"
    ));
    flags.push("--enforce-node-allocatable=".into());
    flags.push("--cgroups-per-qos=false".into());
    flags.push("--resolv-conf=".into());
    if kubernetes.kubelet.sandbox_image_flag {
        flags.push(format!("--pod-infra-container-image={pause}"));
    }
    flags.push("--v=2".into());
    flags
}

/// How often kube-log-runner flushes the kubelet's log to disk. Its README recommends
/// `-flush-interval` on Windows "to ensure recent log entries are written to disk in near
/// real-time" (default 0: never), with `5s` as its example (kubernetes
/// `staging/src/k8s.io/component-base/logs/kube-log-runner/README.md`).
const KUBELET_LOG_FLUSH_INTERVAL: &str = "5s";

/// kube-log-runner's flags: the log file, flushed every [`KUBELET_LOG_FLUSH_INTERVAL`], rotated
/// at [`pins::KUBELET_LOG_SIZE`] and rotated files removed after [`pins::KUBELET_LOG_AGE`]
/// (kube-log-runner `-flush-interval`, `-log-file-size`, `-log-file-age`: all three from
/// kubernetes PR #127667, in [`pins::ROTATING_KUBE_LOG_RUNNER`], the oldest runner rendered).
pub(crate) fn log_runner_flags() -> Vec<String> {
    vec![
        format!("-flush-interval={KUBELET_LOG_FLUSH_INTERVAL}"),
        format!("-log-file={KUBELET_LOG}"),
        format!("-log-file-size={}", pins::KUBELET_LOG_SIZE),
        format!("-log-file-age={}", pins::KUBELET_LOG_AGE),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::releases::{containerd, kubernetes};
    use crate::plan::version::Release;

    fn row(minor: u32) -> &'static KubernetesRelease {
        kubernetes::resolve(&Release::new(1, minor, 0)).row
    }

    #[test]
    fn the_sandbox_flag_is_gone_from_1_27_and_remote_runtime_is_named_before_1_24() {
        let address = Ipv4Addr::new(192, 168, 10, 30);
        let pause = "registry.k8s.io/pause:3.9";
        let with_dockershim = kubelet_flags(row(23), "win-0", address, pause);
        let old = kubelet_flags(row(26), "win-0", address, pause);
        let new = kubelet_flags(row(34), "win-0", address, pause);
        assert!(with_dockershim.contains(&"--container-runtime=remote".to_string()));
        assert!(!old.contains(&"--container-runtime=remote".to_string()));
        assert!(old.contains(&"--pod-infra-container-image=registry.k8s.io/pause:3.9".to_string()));
        assert!(
            !new.iter()
                .any(|flag| flag.starts_with("--pod-infra-container-image"))
        );
        assert!(new.contains(&"--node-ip=192.168.10.30".to_string()));
        assert!(new.contains(&"--hostname-override=win-0".to_string()));
    }

    #[test]
    fn each_containerd_line_gets_its_own_config_format() {
        let line = |version: Release| containerd::resolve(&version).row;
        let one = containerd_config(line(Release::new(1, 7, 34)), "registry.k8s.io/pause:3.10.2");
        assert!(one.starts_with("version = 2\n"));
        assert!(one.contains("[plugins.\"io.containerd.grpc.v1.cri\".cni]"));
        assert!(one.contains("sandbox_image = 'registry.k8s.io/pause:3.10.2'"));
        let two = containerd_config(line(Release::new(2, 0, 11)), "registry.k8s.io/pause:3.10");
        assert!(two.starts_with("version = 3\n"));
        assert!(two.contains("  bin_dir = 'C:\\opt\\cni\\bin'"));
        let two_one = containerd_config(line(Release::new(2, 1, 0)), "registry.k8s.io/pause:3.10");
        assert!(two_one.starts_with("version = 3\n"));
        assert!(two_one.contains("bin_dirs = ['C:\\opt\\cni\\bin']"));
        assert!(!two_one.contains("bin_dir "));
        assert!(two_one.contains("sandbox = 'registry.k8s.io/pause:3.10'"));
        let two_three =
            containerd_config(line(Release::new(2, 3, 4)), "registry.k8s.io/pause:3.10");
        assert!(two_three.starts_with("version = 4\n"));
    }

    #[test]
    fn the_steps_stop_on_a_failed_native_command_and_a_pending_restart() {
        // A native command's failure sets $LASTEXITCODE and throws nothing, even with
        // $ErrorActionPreference = 'Stop': every one is checked on the next line.
        let lines: Vec<&str> = STEPS.lines().collect();
        for (index, line) in lines.iter().enumerate() {
            let command = line.trim_start();
            let native = [
                "sc.exe ",
                "tar.exe ",
                "icacls.exe ",
                "& $containerdExe",
                "& 'C:\\k\\kubeadm.exe'",
            ]
            .iter()
            .any(|start| command.starts_with(start));
            if native {
                let next = lines.get(index + 1).copied().unwrap_or_default();
                assert!(next.contains("$LASTEXITCODE"), "unchecked: {line}");
            }
        }
        assert!(
            !STEPS.contains("exit 0"),
            "a restart pending is not success"
        );
    }

    #[test]
    fn containerd_is_upgraded_one_line_at_a_time() {
        let guard = STEPS
            .split_once("if ($upgrade -and $installed -match")
            .map(|(_, rest)| rest)
            .expect("the upgrade guard");
        let install = guard.find("Get-VerifiedFile -Url $ContainerdUrl").unwrap();
        let guard = &guard[..install];
        assert!(guard.contains("$to -gt $from + 1"), "{guard}");
        assert!(guard.contains(
            "throw \"containerd $($Matches[1]) is installed: upgrade one line at a time"
        ));
        // `$ContainerdLines` is the table in its order, which must be oldest first.
        assert!(
            containerd::LINES
                .windows(2)
                .all(|pair| (pair[0].major, pair[0].minor) < (pair[1].major, pair[1].minor))
        );
    }

    #[test]
    fn the_containerd_service_logs_to_a_file() {
        assert!(STEPS.contains(
            "& $containerdExe --register-service --log-file 'C:\\var\\log\\containerd\\containerd.log'"
        ));
    }

    #[test]
    fn crictl_talks_to_containerd() {
        let config = crictl_config();
        assert!(config.contains("runtime-endpoint: npipe:////./pipe/containerd-containerd\n"));
        assert!(config.contains("image-endpoint: npipe:////./pipe/containerd-containerd\n"));
    }
}

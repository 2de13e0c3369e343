//! The Windows node setup files: for each Windows node, the configuration sig-windows-tools'
//! `KubeCluster.ps1` (last version on master: 12a6e44) reads to install and join the node —
//! `windows/<node>/Kubeclustervxlan.json` (flannel vxlan) or `windows/<node>/Kubeclusterbridge.json`
//! (flannel host-gw, the script's `bridge` plugin).
//!
//! The key set is exactly the one the upstream files carry and the script reads
//! (sig-windows-tools `kubeadm/v1.16.0/Kubecluster*.json` at 12a6e44), in the upstream order, every leaf a string and only `Cni.Source` an
//! array. Nothing is rendered for Kubernetes 1.24 or later: the kubelet flags KubeCluster.ps1
//! writes were removed with dockershim (sig-windows-tools PR #271; lint rule HG305 says so).
//!
//! The JSON is built from typed structs (no template), so the key order is fixed and every value
//! is escaped by serde_json. The output is ASCII only: characters outside ASCII (possible in a
//! localized adapter name or a user name) are written as JSON `\uXXXX` escapes, which
//! PowerShell's `ConvertFrom-Json` reads back as the same characters.
//!
//! No file holds the kubeadm token or CA hash: `KubeadmToken` and `KubeadmCAHash` are written
//! empty, and `windows/<node>/join.ps1` reads both from the environment when it runs, writes a
//! copy of the configuration with them into a directory only Administrators can read, runs
//! `KubeCluster.ps1 -ConfigFile <copy> -join`, and deletes the copy.

use super::{NodeSettings, checked_node_name, node_settings, windows_of};
use crate::plan::version::Release;
use crate::plan::{Plan, WindowsSetup, releases};
use crate::render::node_secret::NodeSecret;
use crate::render::script::{Script, powershell_quote, script_value};
use crate::render::{Artifact, Input, RenderError};
use crate::spec::secret_fields;
use crate::spec::{Backend, Os, Runtime};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The script beside each node's configuration that joins it with the secrets.
const JOIN_SCRIPT: &str = "join.ps1";

/// The control-plane SSH user when `windows.controlPlane.username` is absent: the value in
/// sig-windows-tools' own `Kubecluster*.json` files.
pub const DEFAULT_USERNAME: &str = "localadmin";

/// The user KubeCluster.ps1 connects to the control plane as: the spec's, or the default.
pub fn control_plane_username(spec: &crate::spec::Spec) -> &str {
    spec.windows
        .as_ref()
        .and_then(|windows| windows.control_plane.as_ref())
        .and_then(|control_plane| control_plane.username.as_deref())
        .unwrap_or(DEFAULT_USERNAME)
}

/// `Cni.Source`: what the upstream files list. KubeCluster.ps1 does not read it — it always
/// downloads flanneld v0.11.0 from coreos/flannel (`KubeClusterHelper.psm1`) — so it is written as
/// upstream has it, whatever `flannel.version` says.
const FLANNELD_NAME: &str = "flanneld";
const FLANNELD_URL: &str =
    "https://github.com/coreos/flannel/releases/download/v0.11.0/flanneld.exe";

/// One `Kubecluster*.json`, keys in the upstream order.
#[derive(Serialize)]
struct KubeCluster<'a> {
    #[serde(rename = "Cri")]
    cri: Cri<'a>,
    #[serde(rename = "Cni")]
    cni: Cni<'a>,
    #[serde(rename = "Kubernetes")]
    kubernetes: Kubernetes<'a>,
    #[serde(rename = "Install")]
    install: Install<'a>,
}

#[derive(Serialize)]
struct Cri<'a> {
    #[serde(rename = "Name")]
    name: &'static str,
    #[serde(rename = "Images")]
    images: CriImages<'a>,
}

#[derive(Serialize)]
struct CriImages<'a> {
    #[serde(rename = "Pause")]
    pause: &'a str,
    #[serde(rename = "Nanoserver")]
    nanoserver: &'a str,
    #[serde(rename = "ServerCore")]
    server_core: &'a str,
}

#[derive(Serialize)]
struct Cni<'a> {
    #[serde(rename = "Name")]
    name: &'static str,
    #[serde(rename = "Source")]
    source: [CniSource; 1],
    #[serde(rename = "Plugin")]
    plugin: CniPlugin,
    #[serde(rename = "InterfaceName")]
    interface_name: &'a str,
}

#[derive(Serialize)]
struct CniSource {
    #[serde(rename = "Name")]
    name: &'static str,
    #[serde(rename = "Url")]
    url: &'static str,
}

#[derive(Serialize)]
struct CniPlugin {
    #[serde(rename = "Name")]
    name: &'static str,
}

#[derive(Serialize)]
struct Kubernetes<'a> {
    #[serde(rename = "Source")]
    source: KubernetesSource,
    #[serde(rename = "ControlPlane")]
    control_plane: ControlPlane<'a>,
    #[serde(rename = "KubeProxy")]
    kube_proxy: KubeProxy,
    #[serde(rename = "Network")]
    network: Network,
}

#[derive(Serialize)]
struct KubernetesSource {
    #[serde(rename = "Release")]
    release: String,
    #[serde(rename = "Url")]
    url: String,
}

#[derive(Serialize)]
struct ControlPlane<'a> {
    #[serde(rename = "IpAddress")]
    ip_address: String,
    #[serde(rename = "Username")]
    username: &'a str,
    #[serde(rename = "KubeadmToken")]
    kubeadm_token: String,
    #[serde(rename = "KubeadmCAHash")]
    kubeadm_ca_hash: String,
}

#[derive(Serialize)]
struct KubeProxy {
    #[serde(rename = "Gates")]
    gates: &'static str,
}

#[derive(Serialize)]
struct Network {
    #[serde(rename = "ServiceCidr")]
    service_cidr: String,
    #[serde(rename = "ClusterCidr")]
    cluster_cidr: String,
}

#[derive(Serialize)]
struct Install<'a> {
    #[serde(rename = "Destination")]
    destination: &'a str,
}

/// The Kubernetes release the files are rendered for, or `None` when the plan takes another
/// Windows setup (or has no Windows nodes).
fn rendered_release(plan: &Plan) -> Result<Option<Release>, RenderError> {
    if plan.windows_setup != Some(WindowsSetup::KubeCluster) {
        return Ok(None);
    }
    let release = plan.kubernetes_version.as_ref().map_err(|error| {
        RenderError(format!(
            "cannot render the Windows node files: {}",
            error.problem
        ))
    })?;
    Ok(Some(*release))
}

/// `Kubernetes.KubeProxy.Gates`, passed verbatim to kube-proxy's `--feature-gates` by
/// `KubeClusterHelper.psm1`.
///
/// Per the kubernetes/website feature-gate pages (`WinOverlay.md`, `WinDSR.md`):
/// * `WinOverlay` is alpha, default false, in 1.14–1.19, so `WinOverlay=true` is mandatory for
///   overlay (vxlan) there ("WinOverlay feature gate not enabled" otherwise); in 1.20–1.33 it is
///   beta, default true, and setting it true is redundant but valid (it is locked only from 1.34).
///   We write it for every rendered release (1.14–1.23): it is what the upstream
///   `Kubeclustervxlan.json` carries and what KubeCluster.ps1 itself defaults to for vxlan.
/// * `WinDSR` is alpha, default false, through 1.32, so every rendered release needs
///   `WinDSR=true` for Direct Server Return; for the bridge plugin KubeCluster.ps1 also adds
///   `--enable-dsr=true` when the gates contain it. This is the upstream
///   `Kubeclusterbridge.json` value. Overlay files do not get it, as upstream.
/// * Before 1.14, the release table's first minor, neither gate exists (kube-proxy would reject an
///   unknown gate), so nothing is written; lint rule HG304 rejects such specs anyway.
fn proxy_gates(backend: Backend, kubernetes: &Release) -> &'static str {
    if releases::kubernetes::resolve(kubernetes).known == releases::kubernetes::Known::BeforeTable {
        return "";
    }
    match backend {
        Backend::Vxlan => "WinOverlay=true",
        Backend::HostGw => "WinDSR=true",
    }
}

/// The file name and `Cni.Plugin.Name` KubeCluster.ps1 uses for a flannel backend.
fn backend_file(backend: Backend) -> (&'static str, &'static str) {
    match backend {
        Backend::Vxlan => ("Kubeclustervxlan.json", "vxlan"),
        Backend::HostGw => ("Kubeclusterbridge.json", "bridge"),
    }
}

fn runtime_name(runtime: Runtime) -> &'static str {
    match runtime {
        Runtime::Dockerd => "dockerd",
        Runtime::Containerd => "containerd",
    }
}

/// `Kubernetes.Source.Release`: the version as written, without a leading `v` (KubeCluster.ps1
/// expects none). A pre-release suffix (`-rc.1`) is kept, since it names a different download.
fn release_text(written: &str) -> Result<&str, RenderError> {
    let text = written.strip_prefix('v').unwrap_or(written);
    let url_safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+'));
    if url_safe {
        Ok(text)
    } else {
        Err(RenderError(format!(
            "Kubernetes version {written:?} cannot be used in a download URL"
        )))
    }
}

/// JSON with every non-ASCII character written as `\uXXXX` (UTF-16 units, so characters outside
/// the Basic Multilingual Plane become surrogate pairs). serde_json's output is ASCII outside
/// string literals, so escaping the whole text only touches string contents.
fn ascii_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        }
    }
    out
}

/// One `Kubecluster*.json` per Windows node, in node order, for Kubernetes before 1.24; nothing
/// otherwise.
///
/// Values: `Cri.Name` from `windows.runtime`; the images, the adapter (`Cni.InterfaceName`) from
/// the node's plan (its overrides, else the shared settings and build defaults);
/// `ControlPlane.IpAddress` the resolved control-plane address; `ControlPlane.Username` the
/// spec's, else [`DEFAULT_USERNAME`]; `KubeadmToken` and `KubeadmCAHash` empty (`join.ps1`
/// fills a private copy when it runs); `Network` the planned Service and pod networks;
/// `Install.Destination` `windows.installDir`.
///
/// The files `render` writes here, without rendering them.
pub fn paths(input: &Input) -> Result<Vec<String>, RenderError> {
    let plan = input.plan;
    if rendered_release(plan)?.is_none() {
        return Ok(Vec::new());
    }
    let (file_name, _) = backend_file(plan.flannel.backend);
    let mut paths = Vec::new();
    for node in plan.nodes.iter().filter(|node| node.os == Os::Windows) {
        paths.push(node_file_path(&node.name, file_name)?);
        paths.push(node_file_path(&node.name, JOIN_SCRIPT)?);
    }
    Ok(paths)
}

fn node_file_path(name: &str, file_name: &str) -> Result<String, RenderError> {
    Ok(["windows/", checked_node_name(name)?, "/", file_name].concat())
}

pub fn render(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let plan = input.plan;
    let Some(kubernetes) = rendered_release(plan)? else {
        return Ok(Vec::new());
    };
    let NodeSettings {
        windows,
        control_plane,
    } = node_settings(plan)?;
    let control_plane_address = control_plane.to_string();
    let network_error = |what: &str, problem: &str| {
        RenderError(format!(
            "cannot render the Windows node files: {what}: {problem}"
        ))
    };
    let service_cidr = plan
        .service_cidr
        .as_ref()
        .map_err(|error| network_error("serviceCidr", &error.problem))?
        .to_string();
    let cluster_cidr = plan
        .cluster_cidr
        .as_ref()
        .map_err(|error| network_error("clusterCidr", &error.problem))?
        .to_string();
    let release = release_text(&input.spec.kubernetes.version)?;
    let username = control_plane_username(input.spec);
    let token = NodeSecret::of(secret_fields::kubeadm_token(), input.spec)?;
    let ca_hash = NodeSecret::of(secret_fields::kubeadm_ca_hash(), input.spec)?;
    let backend = plan.flannel.backend;
    let (file_name, plugin) = backend_file(backend);
    let gates = proxy_gates(backend, &kubernetes);

    let mut paths = BTreeSet::new();
    let mut artifacts = Vec::new();
    for node in plan.nodes.iter().filter(|node| node.os == Os::Windows) {
        let name = checked_node_name(&node.name)?;
        let node_windows = windows_of(node)?;
        let config = KubeCluster {
            cri: Cri {
                name: runtime_name(windows.runtime),
                images: CriImages {
                    pause: &node_windows.images.pause,
                    nanoserver: &node_windows.images.nanoserver,
                    server_core: &node_windows.images.servercore,
                },
            },
            cni: Cni {
                name: "flannel",
                source: [CniSource {
                    name: FLANNELD_NAME,
                    url: FLANNELD_URL,
                }],
                plugin: CniPlugin { name: plugin },
                interface_name: &node_windows.interface_name,
            },
            kubernetes: Kubernetes {
                source: KubernetesSource {
                    release: release.to_string(),
                    url: format!(
                        "https://dl.k8s.io/v{release}/kubernetes-node-windows-amd64.tar.gz"
                    ),
                },
                control_plane: ControlPlane {
                    ip_address: control_plane_address.clone(),
                    username,
                    kubeadm_token: String::new(),
                    kubeadm_ca_hash: String::new(),
                },
                kube_proxy: KubeProxy { gates },
                network: Network {
                    service_cidr: service_cidr.clone(),
                    cluster_cidr: cluster_cidr.clone(),
                },
            },
            install: Install {
                destination: &windows.install_dir,
            },
        };
        // Serializing these structs cannot fail; the message never carries the values.
        let json = serde_json::to_string_pretty(&config).map_err(|_| {
            RenderError(format!("cannot serialize `{file_name}` for node {name:?}"))
        })?;
        let path = node_file_path(name, file_name)?;
        if !paths.insert(path.clone()) {
            return Err(RenderError(format!(
                "two Windows nodes are named {name:?}; each needs its own `{file_name}`"
            )));
        }
        let mut contents = ascii_json(&json);
        contents.push('\n');
        artifacts.push(Artifact::new(path, contents));
        artifacts.push(Artifact::new(
            node_file_path(name, JOIN_SCRIPT)?,
            join_script(name, file_name, [&token, &ca_hash])?,
        ));
    }
    Ok(artifacts)
}

/// `join.ps1`: the secrets from the environment, checked, into a copy of the node's configuration
/// only Administrators and SYSTEM can read; KubeCluster.ps1 joins with it; the copy is deleted.
fn join_script(
    node: &str,
    file_name: &str,
    secrets: [&NodeSecret; 2],
) -> Result<String, RenderError> {
    let node = script_value(node, "node name")?;
    let [token, ca_hash] = secrets;
    let mut script = Script::default();
    script.comment("Code generated by hybridgen; DO NOT EDIT.");
    script.comment(&format!(
        "Joins Windows node {node} with sig-windows-tools' KubeCluster.ps1 and {file_name} beside this script."
    ));
    script.comment(&format!(
        "Run it as Administrator after `KubeCluster.ps1 -ConfigFile {file_name} -install`, with KubeCluster.ps1"
    ));
    script.comment(&format!(
        "in this directory and {} and {} set (kubeadm token create --print-join-command).",
        token.variable(),
        ca_hash.variable()
    ));
    script.comment(
        "No rendered file holds the join secrets: they are read here, when the script runs.",
    );
    script.line("$ErrorActionPreference = 'Stop'");
    for line in token
        .powershell_lines(JOIN_SCRIPT, "JoinToken")
        .into_iter()
        .chain(ca_hash.powershell_lines(JOIN_SCRIPT, "JoinCaHash"))
    {
        script.line(&line);
    }
    script.line(&format!(
        "$config = Get-Content -Raw -Path (Join-Path $PSScriptRoot {}) | ConvertFrom-Json",
        powershell_quote(file_name)
    ));
    script.line("$config.Kubernetes.ControlPlane.KubeadmToken = $JoinToken");
    script.line("$config.Kubernetes.ControlPlane.KubeadmCAHash = $JoinCaHash");
    script.line("$directory = Join-Path $env:ProgramData ('hybridgen-join-' + [Guid]::NewGuid().ToString('N'))");
    script.line("New-Item -ItemType Directory -Path $directory | Out-Null");
    script.line("try {");
    script.line("    icacls.exe $directory /inheritance:r /grant:r '*S-1-5-32-544:(OI)(CI)F' '*S-1-5-18:(OI)(CI)F' | Out-Null");
    script.line("    if ($LASTEXITCODE -ne 0) { throw \"icacls could not restrict $directory\" }");
    script.line(&format!(
        "    $copy = Join-Path $directory {}",
        powershell_quote(file_name)
    ));
    script.line("    [IO.File]::WriteAllText($copy, ($config | ConvertTo-Json -Depth 10))");
    script.line("    # KubeCluster.ps1 -ConfigFile <copy> -join, the switch splatted: `-join` is also an operator.");
    script.line("    $arguments = @{ ConfigFile = $copy; join = $true }");
    script.line("    & (Join-Path $PSScriptRoot 'KubeCluster.ps1') @arguments");
    script.line("} finally {");
    script.line("    Remove-Item -Recurse -Force -LiteralPath $directory");
    script.line("}");
    Ok(script.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Plan, WindowsSetup, default_images};
    use crate::spec::{Secret, Spec};
    use serde_json::Value;

    /// examples/kubeadm-vxlan-windows.yaml, without its comments.
    const SPEC: &str = r#"
apiVersion: hybridgen/v1
kind: Cluster
metadata:
  name: kubeadm-vxlan-windows
kubernetes:
  version: "1.15.0"
  dnsDomain: cluster.local
network:
  clusterCidr: 10.244.0.0/16
  serviceCidr: 10.96.0.0/12
  dnsServiceIp: 10.96.0.10
  nodeCidrMaskSize: 24
  maxPodsPerNode: 100
  hostSubnets:
    - 192.168.10.0/24
flannel:
  version: v0.11.0
  backend: vxlan
  vni: 4096
  port: 4789
  directRouting: false
  networkName: vxlan0
windows:
  build: "10.0.17763.379"
  runtime: dockerd
  interfaceName: Ethernet
  installDir: 'C:\ProgramData\Kubernetes'
  images:
    pause: mcr.microsoft.com/k8s/core/pause:1.2.0
    nanoserver: mcr.microsoft.com/windows/nanoserver:1809
    servercore: mcr.microsoft.com/windows/servercore:ltsc2019
  controlPlane:
    address: 192.168.10.10
    username: localadmin
    kubeadmToken:
      fromEnv: KUBEADM_TOKEN
    kubeadmCaHash:
      fromEnv: KUBEADM_CA_HASH
cloud:
  provider: none
nodes:
  - name: flannel-master
    os: linux
    roles: [controlplane, etcd]
    address: 192.168.10.10
  - name: linux-worker-0
    os: linux
    roles: [worker]
    address: 192.168.10.20
  - name: linux-worker-1
    os: linux
    roles: [worker]
    address: 192.168.10.21
  - name: win-worker-0
    os: windows
    roles: [worker]
    address: 192.168.10.30
    podCidr: 10.244.10.0/24
  - name: win-worker-1
    os: windows
    roles: [worker]
    address: 192.168.10.31
    interfaceName: Ethernet 2
"#;

    const EXPECTED_LEAVES: &[&str] = &[
        "Cni.InterfaceName",
        "Cni.Name",
        "Cni.Plugin.Name",
        "Cni.Source[0].Name",
        "Cni.Source[0].Url",
        "Cri.Images.Nanoserver",
        "Cri.Images.Pause",
        "Cri.Images.ServerCore",
        "Cri.Name",
        "Install.Destination",
        "Kubernetes.ControlPlane.IpAddress",
        "Kubernetes.ControlPlane.KubeadmCAHash",
        "Kubernetes.ControlPlane.KubeadmToken",
        "Kubernetes.ControlPlane.Username",
        "Kubernetes.KubeProxy.Gates",
        "Kubernetes.Network.ClusterCidr",
        "Kubernetes.Network.ServiceCidr",
        "Kubernetes.Source.Release",
        "Kubernetes.Source.Url",
    ];

    fn spec() -> Spec {
        serde_yaml::from_str(SPEC).expect("the test spec parses")
    }

    fn render_with(spec: &Spec) -> Result<Vec<Artifact>, RenderError> {
        let plan = Plan::build(spec);
        render(&Input { spec, plan: &plan })
    }

    /// The configuration files, in node order.
    fn render_ok(spec: &Spec) -> Vec<Artifact> {
        let mut artifacts = render_with(spec).expect("renders");
        artifacts.retain(|artifact| artifact.path.ends_with(".json"));
        artifacts
    }

    /// The join scripts, in node order.
    fn scripts(spec: &Spec) -> Vec<Artifact> {
        let mut artifacts = render_with(spec).expect("renders");
        artifacts.retain(|artifact| artifact.path.ends_with(JOIN_SCRIPT));
        artifacts
    }

    fn json(artifact: &Artifact) -> Value {
        serde_json::from_str(&artifact.contents).expect("valid JSON")
    }

    /// Every leaf's path, asserting that each leaf is a string.
    fn leaves(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let path = if prefix.is_empty() {
                        key.clone()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    leaves(child, &path, out);
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    leaves(child, &format!("{prefix}[{index}]"), out);
                }
            }
            Value::String(_) => {
                out.insert(prefix.to_string());
            }
            other => panic!("{prefix} is not a string: {other}"),
        }
    }

    fn at<'a>(value: &'a Value, pointer: &str) -> &'a str {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no string at {pointer}"))
    }

    #[test]
    fn one_vxlan_file_per_windows_node_in_node_order() {
        let artifacts = render_ok(&spec());
        let paths: Vec<&str> = artifacts.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "windows/win-worker-0/Kubeclustervxlan.json",
                "windows/win-worker-1/Kubeclustervxlan.json"
            ]
        );
        for artifact in &artifacts {
            assert!(artifact.contents.ends_with("}\n"));
        }
        let scripts: Vec<String> = scripts(&spec()).into_iter().map(|a| a.path).collect();
        assert_eq!(
            scripts,
            [
                "windows/win-worker-0/join.ps1",
                "windows/win-worker-1/join.ps1"
            ]
        );
    }

    #[test]
    fn host_gw_renders_bridge_files() {
        let mut spec = spec();
        spec.flannel.backend = Backend::HostGw;
        let artifacts = render_ok(&spec);
        let paths: Vec<&str> = artifacts.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "windows/win-worker-0/Kubeclusterbridge.json",
                "windows/win-worker-1/Kubeclusterbridge.json"
            ]
        );
        let value = json(&artifacts[0]);
        assert_eq!(at(&value, "/Cni/Plugin/Name"), "bridge");
        assert_eq!(at(&value, "/Kubernetes/KubeProxy/Gates"), "WinDSR=true");
    }

    #[test]
    fn exactly_the_kubecluster_key_set() {
        let mut spec = spec();
        for backend in [Backend::Vxlan, Backend::HostGw] {
            spec.flannel.backend = backend;
            for artifact in render_ok(&spec) {
                let mut found = BTreeSet::new();
                leaves(&json(&artifact), "", &mut found);
                let expected: BTreeSet<String> =
                    EXPECTED_LEAVES.iter().map(|s| s.to_string()).collect();
                assert_eq!(found, expected, "{}", artifact.path);
            }
        }
    }

    #[test]
    fn keys_come_in_the_upstream_order() {
        let contents = &render_ok(&spec())[0].contents;
        let order = [
            "\"Cri\"",
            "\"Pause\"",
            "\"Nanoserver\"",
            "\"ServerCore\"",
            "\"Cni\"",
            "\"Source\"",
            "\"Plugin\"",
            "\"InterfaceName\"",
            "\"Kubernetes\"",
            "\"Release\"",
            "\"Url\"",
            "\"ControlPlane\"",
            "\"IpAddress\"",
            "\"Username\"",
            "\"KubeadmToken\"",
            "\"KubeadmCAHash\"",
            "\"KubeProxy\"",
            "\"Gates\"",
            "\"Network\"",
            "\"ServiceCidr\"",
            "\"ClusterCidr\"",
            "\"Install\"",
            "\"Destination\"",
        ];
        let mut from = 0;
        for key in order {
            let at = contents[from..]
                .find(key)
                .unwrap_or_else(|| panic!("{key} missing or out of order"));
            from += at + key.len();
        }
    }

    #[test]
    fn values_follow_the_plan() {
        let artifacts = render_ok(&spec());
        let first = json(&artifacts[0]);
        let second = json(&artifacts[1]);
        for value in [&first, &second] {
            assert_eq!(at(value, "/Cri/Name"), "dockerd");
            assert_eq!(
                at(value, "/Cri/Images/Pause"),
                "mcr.microsoft.com/k8s/core/pause:1.2.0"
            );
            assert_eq!(
                at(value, "/Cri/Images/Nanoserver"),
                "mcr.microsoft.com/windows/nanoserver:1809"
            );
            assert_eq!(
                at(value, "/Cri/Images/ServerCore"),
                "mcr.microsoft.com/windows/servercore:ltsc2019"
            );
            assert_eq!(at(value, "/Cni/Name"), "flannel");
            assert_eq!(at(value, "/Cni/Source/0/Name"), "flanneld");
            assert_eq!(
                at(value, "/Cni/Source/0/Url"),
                "https://github.com/coreos/flannel/releases/download/v0.11.0/flanneld.exe"
            );
            assert_eq!(at(value, "/Cni/Plugin/Name"), "vxlan");
            assert_eq!(at(value, "/Kubernetes/Source/Release"), "1.15.0");
            assert_eq!(
                at(value, "/Kubernetes/Source/Url"),
                "https://dl.k8s.io/v1.15.0/kubernetes-node-windows-amd64.tar.gz"
            );
            assert_eq!(
                at(value, "/Kubernetes/ControlPlane/IpAddress"),
                "192.168.10.10"
            );
            assert_eq!(at(value, "/Kubernetes/ControlPlane/Username"), "localadmin");
            assert_eq!(at(value, "/Kubernetes/KubeProxy/Gates"), "WinOverlay=true");
            assert_eq!(at(value, "/Kubernetes/Network/ServiceCidr"), "10.96.0.0/12");
            assert_eq!(
                at(value, "/Kubernetes/Network/ClusterCidr"),
                "10.244.0.0/16"
            );
            assert_eq!(
                at(value, "/Install/Destination"),
                r"C:\ProgramData\Kubernetes"
            );
        }
        assert_eq!(at(&first, "/Cni/InterfaceName"), "Ethernet");
        assert_eq!(at(&second, "/Cni/InterfaceName"), "Ethernet 2");
    }

    #[test]
    fn images_default_to_each_nodes_build() {
        let mut spec = spec();
        spec.windows.as_mut().unwrap().images = None;
        spec.nodes[4].windows_build = Some("10.0.20348.587".into());
        let artifacts = render_ok(&spec);
        for (artifact, build) in artifacts.iter().zip([17763, 20348]) {
            let value = json(artifact);
            let expected = default_images(build, Some(WindowsSetup::KubeCluster));
            assert_eq!(at(&value, "/Cri/Images/Pause"), expected.pause);
            assert_eq!(at(&value, "/Cri/Images/Nanoserver"), expected.nanoserver);
            assert_eq!(at(&value, "/Cri/Images/ServerCore"), expected.servercore);
        }
        let last = json(&artifacts[1]);
        assert_eq!(
            at(&last, "/Cri/Images/ServerCore"),
            "mcr.microsoft.com/windows/servercore:ltsc2022"
        );
    }

    #[test]
    fn no_file_holds_the_join_secrets_the_script_reads_them() {
        for artifact in render_ok(&spec()) {
            let value = json(&artifact);
            assert_eq!(at(&value, "/Kubernetes/ControlPlane/KubeadmToken"), "");
            assert_eq!(at(&value, "/Kubernetes/ControlPlane/KubeadmCAHash"), "");
        }
        for script in scripts(&spec()) {
            let text = &script.contents;
            assert!(text.contains("[Environment]::GetEnvironmentVariable('KUBEADM_TOKEN')"));
            assert!(text.contains("[Environment]::GetEnvironmentVariable('KUBEADM_CA_HASH')"));
            assert!(text.contains("$config.Kubernetes.ControlPlane.KubeadmToken = $JoinToken"));
            assert!(text.contains("$arguments = @{ ConfigFile = $copy; join = $true }"));
            assert!(text.contains("Remove-Item -Recurse -Force -LiteralPath $directory"));
        }
    }

    #[test]
    fn an_inline_value_is_never_rendered_and_a_named_variable_is_read() {
        let mut spec = spec();
        let control_plane = spec
            .windows
            .as_mut()
            .unwrap()
            .control_plane
            .as_mut()
            .unwrap();
        control_plane.kubeadm_token = Some(Secret::Inline("zyxwvu.9876543210zyxwvu".into()));
        control_plane.kubeadm_ca_hash = Some(Secret::FromEnv(crate::spec::EnvReference {
            from_env: "KUBEADM_JOIN_CA_HASH".into(),
        }));
        let all = render_with(&spec).unwrap();
        assert!(all.iter().all(|a| !a.contents.contains("zyxwvu")));
        let script = &scripts(&spec)[0].contents;
        assert!(script.contains("GetEnvironmentVariable('KUBEADM_TOKEN')"));
        assert!(script.contains("GetEnvironmentVariable('KUBEADM_JOIN_CA_HASH')"));
    }

    #[test]
    fn absent_control_plane_uses_the_defaults() {
        let mut spec = spec();
        spec.windows.as_mut().unwrap().control_plane = None;
        let value = json(&render_ok(&spec)[0]);
        assert_eq!(
            at(&value, "/Kubernetes/ControlPlane/Username"),
            "localadmin"
        );
        // The first controlplane node's address.
        assert_eq!(
            at(&value, "/Kubernetes/ControlPlane/IpAddress"),
            "192.168.10.10"
        );
        assert!(scripts(&spec)[0].contents.contains("('KUBEADM_TOKEN')"));
    }

    #[test]
    fn shared_variable_is_read_for_both() {
        let mut spec = spec();
        let control_plane = spec
            .windows
            .as_mut()
            .unwrap()
            .control_plane
            .as_mut()
            .unwrap();
        control_plane.kubeadm_ca_hash = Some(Secret::FromEnv(crate::spec::EnvReference {
            from_env: "KUBEADM_TOKEN".into(),
        }));
        let script = &scripts(&spec)[0].contents;
        assert_eq!(script.matches("('KUBEADM_TOKEN')").count(), 2, "{script}");
    }

    #[test]
    fn kubernetes_1_24_renders_nothing_here() {
        let mut spec = spec();
        spec.kubernetes.version = "1.24.0".into();
        assert!(render_with(&spec).unwrap().is_empty());
        spec.kubernetes.version = "1.23.17".into();
        assert_eq!(render_ok(&spec).len(), 2);
    }

    #[test]
    fn linux_only_renders_nothing() {
        let mut spec = spec();
        spec.nodes.retain(|node| node.os == Os::Linux);
        spec.windows = None;
        assert!(render_with(&spec).unwrap().is_empty());
    }

    #[test]
    fn release_has_no_leading_v() {
        let mut spec = spec();
        spec.kubernetes.version = "v1.16.2".into();
        let value = json(&render_ok(&spec)[0]);
        assert_eq!(at(&value, "/Kubernetes/Source/Release"), "1.16.2");
        assert_eq!(
            at(&value, "/Kubernetes/Source/Url"),
            "https://dl.k8s.io/v1.16.2/kubernetes-node-windows-amd64.tar.gz"
        );
    }

    #[test]
    fn gates_follow_the_feature_history() {
        for version in ["1.14.0", "1.19.16", "1.20.0", "1.23.17"] {
            let release = Release::parse(version).unwrap();
            assert_eq!(proxy_gates(Backend::Vxlan, &release), "WinOverlay=true");
            assert_eq!(proxy_gates(Backend::HostGw, &release), "WinDSR=true");
        }
        let old = Release::new(1, 13, 5);
        assert_eq!(proxy_gates(Backend::Vxlan, &old), "");
        assert_eq!(proxy_gates(Backend::HostGw, &old), "");
    }

    #[test]
    fn output_is_deterministic_and_ascii() {
        let spec = spec();
        let first = render_ok(&spec);
        let second = render_ok(&spec);
        assert_eq!(first, second);
        for artifact in &first {
            assert!(artifact.contents.is_ascii(), "{}", artifact.path);
        }
    }

    #[test]
    fn non_ascii_values_are_escaped() {
        let mut spec = spec();
        spec.nodes[4].interface_name = Some("Connexion réseau 🛰".into());
        let artifacts = render_ok(&spec);
        let contents = &artifacts[1].contents;
        assert!(contents.is_ascii());
        assert!(contents.contains(r"Connexion r\u00e9seau \ud83d\udef0"));
        assert_eq!(
            at(&json(&artifacts[1]), "/Cni/InterfaceName"),
            "Connexion réseau 🛰"
        );
    }

    #[test]
    fn node_names_that_would_leave_windows_are_refused() {
        for name in ["../evil", "a/b", r"a\b", ".hidden", "x..y", ""] {
            let mut spec = spec();
            spec.nodes[3].name = name.into();
            let error = render_ok_err(&spec);
            assert!(error.0.contains("directory name"), "{name}: {}", error.0);
        }
    }

    #[test]
    fn missing_pieces_are_errors_not_panics() {
        let mut spec = spec();
        spec.windows = None;
        assert!(render_with(&spec).is_err());

        let mut spec = self::spec();
        spec.windows.as_mut().unwrap().control_plane = None;
        spec.nodes.retain(|node| node.os == Os::Windows);
        let error = render_ok_err(&spec);
        assert!(error.0.contains("control-plane address"), "{}", error.0);

        // Without a Kubernetes version the plan picks no Windows setup; the cluster-wide
        // renderers refuse the spec instead.
        let mut spec = self::spec();
        spec.kubernetes.version = "latest".into();
        assert!(render_with(&spec).unwrap().is_empty());

        let mut spec = self::spec();
        spec.nodes[4].name = "win-worker-0".into();
        assert!(render_with(&spec).is_err());
    }

    fn render_ok_err(spec: &Spec) -> RenderError {
        render_with(spec).expect_err("refused")
    }
}

//! `README.md` at the top of `--out`: what to run where, in which order, for this spec. It is
//! built from the artifacts actually rendered (a step names a file only when the set holds it)
//! and the plan (the distribution, the Windows setup, the backend, each node's name, OS, roles and
//! address), so it is part of the artifact set: the manifest, `--check` and the determinism tests
//! cover it like any other file.
//!
//! Copies are idempotent as pasted: each node gets `hybridgen/` (Linux, in the login user's home)
//! or `C:\hybridgen\` (Windows) created first, and a node's directory is copied *into* its parent
//! there (`scp -r windows/win-0 HOST:C:/hybridgen/windows/`), which lands in the same place every
//! time; copying a directory *to* a path that does not exist yet would nest it on the second copy.
//! No secret is written: a step names the variable the node script reads, and prompts for it
//! without echo.
//!
//! Every value of the spec is hostile here: names in prose are Markdown-escaped
//! ([`crate::escape::markdown_text`], [`crate::escape::markdown_code`]), names in commands are
//! printable ASCII ([`script_value`]) quoted for their shell.

use super::kubeadm::windows::{hostprocess, wins};
use super::node_secret::NodeSecret;
use super::script::{path_segment, powershell_quote, script_value, shell_word};
use super::{Artifact, Input, RenderError};
use crate::escape::{markdown_code, markdown_text};
use crate::plan::distribution::Distribution;
use crate::plan::releases::kubernetes;
use crate::plan::rke2::Rke2Plan;
use crate::plan::{ExternalRoutes, NodePlan, SubnetSource, WindowsSetup};
use crate::spec::secret_fields::{self, SecretField};
use crate::spec::{Backend, Os, Role};
use std::collections::BTreeSet;
use std::net::Ipv4Addr;

/// The file `render` writes here.
pub const PATH: &str = "README.md";

/// Where Windows nodes keep their copies (`C:\hybridgen\`), as scp and PowerShell write it.
const WINDOWS_DIR_SCP: &str = "C:/hybridgen";
const WINDOWS_DIR: &str = r"C:\hybridgen";
/// Where Linux nodes keep their copies: relative to the login user's home.
const LINUX_DIR: &str = "hybridgen";
/// The user Windows nodes are reached as over SSH (OpenSSH Server on Windows).
const WINDOWS_USER: &str = "Administrator";
/// Microsoft's guide to OpenSSH Server on Windows, which the copies to Windows nodes need.
const OPENSSH_WINDOWS: &str = "https://learn.microsoft.com/en-us/windows-server/administration/openssh/openssh_install_firstuse";
/// kubeadm's guide to more control-plane nodes.
const KUBEADM_HA: &str =
    "https://kubernetes.io/docs/setup/production-environment/tools/kubeadm/high-availability/";
/// Where sig-windows-tools keeps KubeCluster.ps1 and its helper module.
const KUBECLUSTER_RAW: &str =
    "https://raw.githubusercontent.com/kubernetes-sigs/sig-windows-tools/master/kubeadm";
/// sig-windows-tools' `PrepareNode.ps1` for the wins DaemonSets on dockerd, pinned to 1ab39f18:
/// a revision that takes `-ContainerRuntime Docker` and installs wins (the later aba680c changed
/// only its containerd path; ba81c7a's 1.24 changes dropped Docker).
const PREPARE_NODE_RAW: &str = "https://raw.githubusercontent.com/kubernetes-sigs/sig-windows-tools/1ab39f18380ca077be6d6c9105efd7f74fdc5afa/kubeadm/scripts/PrepareNode.ps1";
/// Microsoft's Docker installer for Windows Server, pinned to 86af3b6 (2023-07-04), the revision
/// that takes `-DockerVersion` and downloads from download.docker.com. The Kubernetes docs of the
/// dockershim releases (kubernetes/website `content/en/docs/tasks/administer-cluster/kubeadm/
/// adding-windows-nodes.md`: `Install-WindowsFeature -Name containers`, then Docker) sent readers
/// to Microsoft's "Prep Windows for containers" (MicrosoftDocs/Virtualization-Documentation
/// `virtualization/windowscontainers/quick-start/set-up-environment.md`, `Install-Module -Name
/// DockerMsftProvider`), whose package source closed in May 2023 (OneGet/MicrosoftDockerProvider
/// README, issue #91); that page gives this script instead.
const INSTALL_DOCKER_RAW: &str = "https://raw.githubusercontent.com/microsoft/Windows-Containers/86af3b6b0f9e6928c3888d29fb601596a3211f60/helpful_tools/Install-DockerCE/install-docker-ce.ps1";
/// The Docker the wins nodes get: the last 20.10 release (docker-library's
/// `docker:20.10-windowsservercore` images download the same `docker-20.10.24.zip`), the line of the
/// dockershim years, rather than the script's default `latest`, which moves on without the kubelet.
const WINS_DOCKER_VERSION: &str = "20.10.24";

/// Who runs a step.
enum Machine<'a> {
    /// Any machine with this directory and `kubectl` (or the tool the step names).
    Workstation,
    /// A Linux or macOS machine with Docker buildx.
    BuildHost,
    /// A node of the spec.
    Node(&'a NodePlan, Ipv4Addr),
    /// Every node of the spec, each with its own commands.
    EveryNode,
}

impl Machine<'_> {
    /// The machine, a node's name written by `name`: plain text or Markdown code.
    fn label(&self, name: fn(&str) -> String) -> String {
        match self {
            Machine::Workstation => "workstation".into(),
            Machine::BuildHost => "build host".into(),
            Machine::Node(node, address) => format!("{} ({address})", name(&node.name)),
            Machine::EveryNode => "every node".into(),
        }
    }
}

enum Block {
    /// Markdown, every value in it already escaped.
    Text(String),
    Bash(Vec<String>),
    PowerShell(Vec<String>),
}

/// One step: a machine, what it does there (plain text, also printed by `render`), and how.
struct Step<'a> {
    machine: Machine<'a>,
    what: String,
    blocks: Vec<Block>,
}

impl<'a> Step<'a> {
    fn new(machine: Machine<'a>, what: &str) -> Self {
        Step {
            machine,
            what: what.to_string(),
            blocks: Vec::new(),
        }
    }

    fn text(mut self, text: impl Into<String>) -> Self {
        self.blocks.push(Block::Text(text.into()));
        self
    }

    fn bash(mut self, lines: Vec<String>) -> Self {
        self.blocks.push(Block::Bash(lines));
        self
    }

    fn powershell(mut self, lines: Vec<String>) -> Self {
        self.blocks.push(Block::PowerShell(lines));
        self
    }

    /// How to copy `dirs` from the workstation to a node: [`copy_lines`], after what they need.
    fn copy(self, os: Os, address: Ipv4Addr, dirs: &[String]) -> Self {
        self.text(match os {
            Os::Linux => "From the workstation:".to_string(),
            Os::Windows => format!(
                "From the workstation (the node runs OpenSSH Server, {OPENSSH_WINDOWS}; or copy \
                 the folder any other way to the same place):"
            ),
        })
        .bash(copy_lines(os, address, dirs))
    }
}

/// `README.md` for the rendered artifacts `others` (every artifact but this one).
pub fn render(input: &Input, others: &[Artifact]) -> Result<Artifact, RenderError> {
    Ok(Artifact::new(
        PATH,
        markdown(input, &steps(input, others)?)?,
    ))
}

/// The first `count` steps as `render` prints them: `1. control-0 (192.168.10.10): control
/// plane, kubeadm init`, one line each, inert on a terminal.
pub fn first_steps(
    input: &Input,
    artifacts: &[Artifact],
    count: usize,
) -> Result<Vec<String>, RenderError> {
    Ok(steps(input, artifacts)?
        .iter()
        .take(count)
        .enumerate()
        .map(|(index, step)| {
            format!(
                "{}. {}: {}",
                index + 1,
                step.machine.label(crate::escape::inline),
                crate::escape::inline(&step.what)
            )
        })
        .collect())
}

/// The steps for `artifacts`, which may hold this file too (it names only the others).
fn steps<'a>(input: &'a Input, artifacts: &[Artifact]) -> Result<Vec<Step<'a>>, RenderError> {
    let paths: &BTreeSet<&str> = &artifacts
        .iter()
        .map(|a| a.path.as_str())
        .filter(|path| *path != PATH)
        .collect();
    let mut steps = match input.plan.distribution.distribution {
        Distribution::Kubeadm => kubeadm(input, paths)?,
        Distribution::Rke2 => match &input.plan.rke2 {
            Some(rke2) if rke2.rancher.is_some() => rancher(input, paths)?,
            Some(rke2) => rke2_standalone(input, rke2, paths)?,
            None => return Err(RenderError("the plan has no RKE2 part".into())),
        },
        Distribution::Rke => rke(input),
    };
    steps.extend(routes(input, paths)?);
    steps.push(check(input)?);
    Ok(steps)
}

// --- values in commands ----------------------------------------------------------------------

/// A node with the address it is reached at; rendering runs only on specs without errors, so
/// every node has one.
fn reachable(node: &NodePlan) -> Result<(&NodePlan, Ipv4Addr), RenderError> {
    script_value(&node.name, "node name")?;
    path_segment(&node.name)?;
    match node.address {
        Ok(address) => Ok((node, address)),
        Err(_) => Err(RenderError(format!(
            "node {:?} has no valid address",
            node.name
        ))),
    }
}

fn ssh_target(os: Os, address: Ipv4Addr) -> String {
    match os {
        Os::Linux => address.to_string(),
        Os::Windows => format!("{WINDOWS_USER}@{address}"),
    }
}

/// The commands that copy the rendered files or directories `dirs` (each `parent/name`) to a node,
/// into the same layout under its `hybridgen` directory: the parents first, then each one into
/// its parent, so a second copy replaces the first instead of nesting inside it.
fn copy_lines(os: Os, address: Ipv4Addr, dirs: &[String]) -> Vec<String> {
    let target = ssh_target(os, address);
    let parents: BTreeSet<&str> = dirs
        .iter()
        .map(|dir| dir.rsplit_once('/').map_or("", |(parent, _)| parent))
        .collect();
    let mut lines = Vec::new();
    for parent in &parents {
        lines.push(match os {
            Os::Linux => format!(
                "ssh {target} mkdir -p {}",
                shell_word(&join(LINUX_DIR, parent))
            ),
            Os::Windows => format!(
                "ssh {target} powershell -NoProfile -Command New-Item -ItemType Directory -Force -Path {}",
                shell_word(&join(WINDOWS_DIR_SCP, parent))
            ),
        });
    }
    for parent in &parents {
        let sources: Vec<String> = dirs
            .iter()
            .filter(|dir| dir.rsplit_once('/').map_or("", |(p, _)| p) == *parent)
            .map(|dir| shell_word(dir))
            .collect();
        let base = match os {
            Os::Linux => LINUX_DIR,
            Os::Windows => WINDOWS_DIR_SCP,
        };
        lines.push(format!(
            "scp -r {} {target}:{}",
            sources.join(" "),
            shell_word(&format!("{}/", join(base, parent)))
        ));
    }
    lines
}

fn join(base: &str, path: &str) -> String {
    if path.is_empty() {
        base.to_string()
    } else {
        format!("{base}/{path}")
    }
}

/// The path of a rendered file on a Linux node after [`copy_lines`], relative to the home.
fn on_linux(path: &str) -> String {
    shell_word(&format!("{LINUX_DIR}/{path}"))
}

/// The path of a rendered file on a Windows node after [`copy_lines`].
fn on_windows(path: &str) -> String {
    let full = format!(r"{WINDOWS_DIR}\{}", path.replace('/', r"\"));
    let plain = |c: char| c.is_ascii_alphanumeric() || r"._-\:".contains(c);
    if full.chars().all(plain) {
        full
    } else {
        powershell_quote(&full)
    }
}

/// bash lines that ask for each variable without echoing it and export it.
fn bash_prompts(variables: &[&str]) -> Vec<String> {
    variables
        .iter()
        .map(|variable| format!("read -rsp '{variable}: ' {variable}; echo; export {variable}"))
        .collect()
}

/// PowerShell lines that ask for each variable without echoing it and set it for this session.
fn powershell_prompts(variables: &[&str]) -> Vec<String> {
    variables
        .iter()
        .map(|variable| {
            format!(
                "$env:{variable} = [Net.NetworkCredential]::new('', (Read-Host -AsSecureString '{variable}')).Password"
            )
        })
        .collect()
}

/// The variable a node script reads for a secret field: the one the spec names, checked as the
/// scripts check it.
fn variable<'s>(field: &'static SecretField, input: &Input<'s>) -> Result<&'s str, RenderError> {
    Ok(NodeSecret::of(field, input.spec)?.variable())
}

fn code_list(variables: &[&str]) -> String {
    variables
        .iter()
        .map(|variable| markdown_code(variable))
        .collect::<Vec<_>>()
        .join(" and ")
}

// --- kubeadm -----------------------------------------------------------------------------------

fn kubeadm<'a>(input: &'a Input, paths: &BTreeSet<&str>) -> Result<Vec<Step<'a>>, RenderError> {
    let plan = input.plan;
    let secrets = [
        variable(secret_fields::kubeadm_token(), input)?,
        variable(secret_fields::kubeadm_ca_hash(), input)?,
    ];
    let cluster = script_value(&input.spec.metadata.name, "metadata.name")?;
    let mut steps = Vec::new();
    let linux: Vec<&NodePlan> = plan.nodes.iter().filter(|n| n.os == Os::Linux).collect();
    let control_planes: Vec<&NodePlan> = linux
        .iter()
        .copied()
        .filter(|node| node.roles.contains(&Role::Controlplane))
        .collect();

    // 1. The control plane.
    if let Some(init) = control_planes.first() {
        let (init, address) = reachable(init)?;
        let config = super::kubeadm::config::PATH;
        let kubeconfig = format!(
            "\"$HOME\"/.kube/{}",
            shell_word(&format!("{}.conf", path_segment(cluster)?))
        );
        steps.push(
            Step::new(Machine::Node(init, address), "control plane, kubeadm init")
                .copy(Os::Linux, address, &[config.to_string()])
                .text(format!("On {}:", markdown_code(&init.name)))
                .bash(vec![
                    format!("sudo kubeadm init --config {}", on_linux(config)),
                    "mkdir -p \"$HOME/.kube\" && sudo cp /etc/kubernetes/admin.conf \"$HOME/.kube/config\" && sudo chown \"$(id -u):$(id -g)\" \"$HOME/.kube/config\"".into(),
                    "kubeadm token create --print-join-command".into(),
                ])
                .text(format!(
                    "The last command prints the token and the CA hash the other nodes join with \
                     (`--token` and `--discovery-token-ca-cert-hash`): the join steps below ask \
                     for them as {}. A token expires after 24 hours; run it again for a new one.",
                    code_list(&secrets)
                ))
                .text("On the workstation, the cluster's kubeconfig for the `kubectl` steps:")
                .bash(vec![
                    format!("mkdir -p ~/.kube && scp {address}:.kube/config {kubeconfig}"),
                    format!("export KUBECONFIG={kubeconfig}"),
                ]),
        );
        for other in control_planes.iter().skip(1) {
            let (other, address) = reachable(other)?;
            steps.push(
                Step::new(Machine::Node(other, address), "another control-plane node").text(
                    format!(
                        "No file is rendered for it: join it with `kubeadm join --control-plane`, \
                         as kubeadm's guide to highly available clusters says ({KUBEADM_HA}). \
                         That needs a load-balanced API address: set \
                         `windows.controlPlane.address` to it, which `kubeadm-config.yaml` then \
                         names as `controlPlaneEndpoint`, and run `kubeadm init` with \
                         `--upload-certs`."
                    ),
                ),
            );
        }
    }

    // 2. flannel for Linux, and the Linux DaemonSets kept on Linux.
    let mut flannel = Step::new(
        Machine::Workstation,
        "flannel, and the Linux DaemonSets kept on Linux",
    );
    if paths.contains(super::pod_cidrs::PATH) {
        flannel = flannel
            .text(
                "Every node gets its planned pod subnet from `pod-cidrs/assign.sh` once it has \
                 registered: start it in a second terminal and leave it running until it says \
                 every node has its subnet.",
            )
            .bash(vec![format!("bash {} --wait", super::pod_cidrs::PATH)]);
    }
    let mut lines = Vec::new();
    if paths.contains("kube-flannel.yml") {
        lines.push("kubectl apply -f kube-flannel.yml".to_string());
    }
    if paths.contains("patches/apply.sh") {
        lines.push("bash patches/apply.sh".to_string());
    }
    flannel = flannel.bash(lines).text(match plan.flannel.backend {
        Backend::Vxlan => format!(
            "flannel vxlan carries pod traffic between the nodes itself: UDP {} must pass \
                 between every two nodes.",
            plan.flannel.port
        ),
        Backend::HostGw => {
            "flannel host-gw routes pod subnets through the nodes' addresses.".to_string()
        }
    });
    steps.push(flannel);

    // 3. Linux workers.
    for node in linux
        .iter()
        .filter(|n| !n.roles.contains(&Role::Controlplane))
    {
        let (node, address) = reachable(node)?;
        let script = format!("kubeadm/{}/join.sh", node.name);
        let step = Step::new(Machine::Node(node, address), "Linux worker, kubeadm join");
        steps.push(if paths.contains(script.as_str()) {
            let mut run = bash_prompts(&secrets);
            run.push(format!(
                "sudo --preserve-env={} bash {}",
                secrets.join(","),
                on_linux(&script)
            ));
            step.copy(Os::Linux, address, &[format!("kubeadm/{}", node.name)])
                .text(format!(
                    "On {}, with the two values of step 1 (`join.sh` reads {}):",
                    markdown_code(&node.name),
                    code_list(&secrets)
                ))
                .bash(run)
        } else {
            step.text(
                "As root on the node, run the `kubeadm join` command `kubeadm token create \
                 --print-join-command` printed in step 1.",
            )
        });
    }

    // 4-5. The HostProcess images and the Windows DaemonSets (HostProcess or wins).
    let windows: Vec<&NodePlan> = plan.nodes.iter().filter(|n| n.os == Os::Windows).collect();
    let daemonsets = matches!(
        plan.windows_setup,
        Some(WindowsSetup::HostProcess | WindowsSetup::WinsDaemonSets)
    );
    if daemonsets {
        let (flannel, kube_proxy) = if plan.windows_setup == Some(WindowsSetup::WinsDaemonSets) {
            (wins::FLANNEL_PATH, wins::KUBE_PROXY_PATH)
        } else {
            (hostprocess::FLANNEL_PATH, hostprocess::KUBE_PROXY_PATH)
        };
        if paths.contains("windows/images/build.sh") {
            let mut lines: Vec<String> = registries(input)
                .iter()
                .map(|registry| format!("docker login {}", shell_word(registry)))
                .collect();
            lines.push("docker buildx use hybridgen-windows 2>/dev/null || docker buildx create --name hybridgen-windows --driver docker-container --use".into());
            lines.push("bash windows/images/build.sh".into());
            steps.push(
                Step::new(Machine::BuildHost, "build and push the Windows images")
                    .text(
                        "Any Linux or macOS machine with Docker and buildx, in this directory \
                         (or a copy of `windows/images/`); no Windows build host is needed:",
                    )
                    .bash(lines),
            );
        }
        steps.push(
            Step::new(Machine::Workstation, "the Windows DaemonSets")
                .bash(vec![format!("kubectl apply -f {flannel} -f {kube_proxy}")])
                .text("They schedule only on Windows nodes, so nothing runs until the next steps."),
        );
    }

    // 6. Windows workers.
    for node in windows {
        let (node, address) = reachable(node)?;
        let dir = format!("windows/{}", node.name);
        let step = Step::new(
            Machine::Node(node, address),
            "Windows worker, join.ps1 as Administrator",
        )
        .copy(Os::Windows, address, std::slice::from_ref(&dir));
        let join = on_windows(&format!("{dir}/join.ps1"));
        steps.push(match plan.windows_setup {
            Some(WindowsSetup::WinsDaemonSets) => {
                wins_node_step(node, address, &kubernetes_tag(input)?)
            }
            Some(WindowsSetup::KubeCluster) => {
                let config = ["Kubeclustervxlan.json", "Kubeclusterbridge.json"]
                    .into_iter()
                    .find(|file| paths.contains(format!("{dir}/{file}").as_str()))
                    .unwrap_or("Kubeclustervxlan.json");
                let username =
                    super::kubeadm::windows::kubecluster::control_plane_username(input.spec);
                let run = vec![
                    format!("cd {}", on_windows(&dir)),
                    format!("curl.exe -fLO {KUBECLUSTER_RAW}/KubeCluster.ps1"),
                    format!("curl.exe -fLO {KUBECLUSTER_RAW}/KubeClusterHelper.psm1"),
                    format!(
                        "powershell -ExecutionPolicy Bypass -File .\\KubeCluster.ps1 -ConfigFile .\\{config} -install"
                    ),
                ];
                let mut join_lines = powershell_prompts(&secrets);
                join_lines.push(format!("powershell -ExecutionPolicy Bypass -File {join}"));
                step.text(format!(
                    "On {}, in an elevated PowerShell: sig-windows-tools' KubeCluster.ps1 and its \
                     helper module beside the configuration, then its `-install` (it restarts the \
                     node once and carries on at the next logon):",
                    markdown_code(&node.name)
                ))
                .powershell(run)
                .text(format!(
                    "`-install` makes an SSH key: add its public key to `~/.ssh/authorized_keys` \
                     of {} on the control plane, as it says; `-join` fetches the kubeconfig \
                     through it. Then, with the two values of step 1 (`join.ps1` reads {}):",
                    markdown_code(username),
                    code_list(&secrets)
                ))
                .powershell(join_lines)
            }
            Some(WindowsSetup::HostProcess) | None => {
                let mut run = powershell_prompts(&secrets);
                run.push(format!("powershell -ExecutionPolicy Bypass -File {join}"));
                step.text(format!(
                    "On {}, in an elevated PowerShell, with the two values of step 1 (`join.ps1` \
                     reads {}; a node that has joined already needs neither):",
                    markdown_code(&node.name),
                    code_list(&secrets)
                ))
                .powershell(run)
                .text(
                    "The first run enables the Containers feature and stops: run \
                     `Restart-Computer`, then the same lines again. Running it again later is \
                     how the node is updated after a new render.",
                )
            }
        });
    }
    Ok(steps)
}

/// A Windows worker of the wins DaemonSets: Docker, sig-windows-tools' `PrepareNode.ps1` on
/// dockerd, then the same `kubeadm join` as a Linux worker; flanneld and kube-proxy come with the
/// DaemonSets.
fn wins_node_step<'a>(node: &'a NodePlan, address: Ipv4Addr, kubernetes: &str) -> Step<'a> {
    Step::new(
        Machine::Node(node, address),
        "Windows worker, Docker, PrepareNode.ps1 and kubeadm join as Administrator",
    )
    .text(format!(
        "On {}, in an elevated PowerShell, first Docker, which `PrepareNode.ps1` expects running. \
         The Kubernetes docs' \"Adding Windows nodes\" of this setup's releases install the \
         Containers feature, then Docker the way Microsoft's \"Prep Windows for containers\" \
         said then, with the `DockerMsftProvider` module; its package source closed in May 2023, \
         and Microsoft's `install-docker-ce.ps1` takes its place. The feature needs a restart:",
        markdown_code(&node.name),
    ))
    .powershell(vec![
        "Install-WindowsFeature -Name Containers".into(),
        "Restart-Computer -Force".into(),
    ])
    .text(format!(
        "After the restart, again in an elevated PowerShell: the script installs Docker \
         {WINS_DOCKER_VERSION} as the `docker` service and starts it:"
    ))
    .powershell(vec![
        format!("curl.exe -fLO {INSTALL_DOCKER_RAW}"),
        format!(
            "powershell -ExecutionPolicy Bypass -File .\\install-docker-ce.ps1 -DockerVersion {WINS_DOCKER_VERSION}"
        ),
    ])
    .text(format!(
        "Next, sig-windows-tools' `PrepareNode.ps1` downloads kubelet and kubeadm {}, installs \
         rancher/wins as a service (the DaemonSets start flanneld and kube-proxy on the host \
         through it) and the kubelet as a service after Docker:",
        markdown_code(kubernetes)
    ))
    .powershell(vec![
        format!("curl.exe -fLO {PREPARE_NODE_RAW}"),
        format!(
            "powershell -ExecutionPolicy Bypass -File .\\PrepareNode.ps1 -KubernetesVersion {kubernetes} -ContainerRuntime Docker"
        ),
    ])
    .text(
        "Then run the `kubeadm join` command that `kubeadm token create --print-join-command` \
         printed in step 1. The node turns Ready once the flannel DaemonSet's pod has created the \
         HNS network.",
    )
}

/// The Kubernetes version as `PrepareNode.ps1` takes it (`v1.22.4`).
fn kubernetes_tag(input: &Input) -> Result<String, RenderError> {
    Ok(format!("v{}", input.network()?.kubernetes))
}

/// The registries `build.sh` pushes to, for `docker login`: an image reference's first part when
/// it names a host (holds `.` or `:`, or is `localhost`, as Docker reads it).
fn registries<'a>(input: &Input<'a>) -> BTreeSet<&'a str> {
    let Some(windows) = &input.plan.windows else {
        return BTreeSet::new();
    };
    [&windows.flannel_image, &windows.kube_proxy_image]
        .into_iter()
        .flatten()
        .filter_map(|image| image.split_once('/').map(|(host, _)| host))
        .filter(|host| host.contains(['.', ':']) || *host == "localhost")
        .filter(|host| script_value(host, "registry").is_ok())
        .collect()
}

// --- RKE2 --------------------------------------------------------------------------------------

fn rke2_standalone<'a>(
    input: &'a Input,
    rke2: &Rke2Plan,
    paths: &BTreeSet<&str>,
) -> Result<Vec<Step<'a>>, RenderError> {
    let plan = input.plan;
    let token = [variable(secret_fields::rke2_token(), input)?];
    let mut order: Vec<usize> = Vec::new();
    order.extend(rke2.first_server);
    order.extend(
        rke2.servers
            .iter()
            .filter(|s| Some(**s) != rke2.first_server),
    );
    order.extend(
        (0..plan.nodes.len())
            .filter(|index| !rke2.is_server(*index) && plan.nodes[*index].os == Os::Linux),
    );
    order.extend((0..plan.nodes.len()).filter(|index| plan.nodes[*index].os == Os::Windows));
    let manifests = super::rke2::MANIFEST_PATH
        .rsplit_once('/')
        .map_or("rke2/manifests", |(dir, _)| dir);
    let mut steps = Vec::new();
    for index in order {
        let Some(node) = plan.nodes.get(index) else {
            continue;
        };
        let (node, address) = reachable(node)?;
        let dir = format!("rke2/{}", node.name);
        let first = Some(index) == rke2.first_server;
        let server = rke2.is_server(index);
        let what = match (first, server, node.os) {
            (true, _, _) => "the first RKE2 server, which starts the cluster",
            (false, true, _) => "RKE2 server",
            (false, false, Os::Linux) => "Linux RKE2 agent",
            (false, false, Os::Windows) => "Windows RKE2 agent, install.ps1 as Administrator",
        };
        let mut dirs = vec![dir.clone()];
        if server {
            dirs.push(manifests.to_string());
        }
        if first && paths.contains(super::pod_cidrs::PATH) {
            dirs.push("pod-cidrs".into());
        }
        let token_note = if first {
            format!(
                "{} is the join token: any string you choose now (e.g. the output of `openssl \
                 rand -hex 32`), the same on every node; later the server's \
                 `/var/lib/rancher/rke2/server/token` holds it.",
                markdown_code(token[0])
            )
        } else {
            format!(
                "The script reads the join token of step 1 from {}.",
                markdown_code(token[0])
            )
        };
        let step = Step::new(Machine::Node(node, address), what);
        let step = match node.os {
            Os::Linux => {
                let mut run = bash_prompts(&token);
                run.push(format!(
                    "sudo --preserve-env={} bash {}",
                    token[0],
                    on_linux(&format!("{dir}/install.sh"))
                ));
                let mut step = step
                    .copy(Os::Linux, address, &dirs)
                    .text(format!("{token_note} On {}:", markdown_code(&node.name)))
                    .bash(run);
                if first {
                    step = step
                        .text("When it is up, check it there:")
                        .bash(vec![
                            "sudo /var/lib/rancher/rke2/bin/kubectl --kubeconfig /etc/rancher/rke2/rke2.yaml get nodes -o wide".into(),
                        ]);
                    if paths.contains(super::pod_cidrs::PATH) {
                        step = step
                            .text(
                                "Every node gets its planned pod subnet from \
                                 `pod-cidrs/assign.sh` once it has registered: start it there in \
                                 a second terminal and leave it running until it says every node \
                                 has its subnet.",
                            )
                            .bash(vec![format!(
                                "sudo KUBECONFIG=/etc/rancher/rke2/rke2.yaml KUBECTL=/var/lib/rancher/rke2/bin/kubectl bash {} --wait",
                                on_linux(super::pod_cidrs::PATH)
                            )]);
                    }
                }
                step
            }
            Os::Windows => {
                let mut run = powershell_prompts(&token);
                run.push(format!(
                    "powershell -ExecutionPolicy Bypass -File {}",
                    on_windows(&format!("{dir}/install.ps1"))
                ));
                step.copy(Os::Windows, address, &dirs)
                    .text(format!(
                        "{token_note} On {}, in an elevated PowerShell:",
                        markdown_code(&node.name)
                    ))
                    .powershell(run)
                    .text(
                        "The first run enables the Containers feature and stops (exit code 3): \
                         run `Restart-Computer`, then the same lines again.",
                    )
            }
        };
        steps.push(step);
    }
    Ok(steps)
}

fn rancher<'a>(input: &'a Input, paths: &BTreeSet<&str>) -> Result<Vec<Step<'a>>, RenderError> {
    let plan = input.plan;
    let url = plan
        .rke2
        .as_ref()
        .and_then(|rke2| rke2.rancher.as_ref())
        .map(|rancher| rancher.url.as_str())
        .ok_or_else(|| RenderError("the plan has no Rancher part".into()))?;
    let url = script_value(url, "rancher.url")?;
    let mut steps = vec![
        Step::new(Machine::Workstation, "create the cluster in Rancher")
            .text("With `kubectl` using Rancher's own (local) cluster:")
            .bash(vec![format!(
                "kubectl apply -f {}",
                super::rke2::rancher::CLUSTER_PATH
            )])
            .text(
                "or with Terraform, which reads Rancher's URL from `RANCHER_URL` and an API \
                 token from `RANCHER_TOKEN_KEY` (terraform-provider-rancher2, \
                 https://registry.terraform.io/providers/rancher/rancher2/latest/docs); its state \
                 in `rancher/` holds the registration token, so keep it out of version control:",
            )
            .bash(vec![
                format!("export RANCHER_URL={}", shell_word(url)),
                "read -rsp 'RANCHER_TOKEN_KEY: ' RANCHER_TOKEN_KEY; echo; export RANCHER_TOKEN_KEY"
                    .into(),
                "terraform -chdir=rancher init".into(),
                "terraform -chdir=rancher apply".into(),
            ])
            .text(format!(
                "The registration token is on the cluster's Registration tab in Rancher (Cluster \
                 Management; the Linux and Windows commands carry the same `--token`): the \
                 scripts below read it from `CATTLE_TOKEN`, and `CATTLE_CA_CHECKSUM` when \
                 Rancher's certificate is from a private CA. With Terraform, `terraform \
                 -chdir=rancher output -raw register_<node>` prints a node's whole command \
                 instead. Rancher: {}",
                markdown_text(url)
            )),
    ];
    let servers = |node: &NodePlan| {
        node.os == Os::Linux
            && (node.roles.contains(&Role::Etcd) || node.roles.contains(&Role::Controlplane))
    };
    let order = plan
        .nodes
        .iter()
        .filter(|n| servers(n))
        .chain(
            plan.nodes
                .iter()
                .filter(|n| n.os == Os::Linux && !servers(n)),
        )
        .chain(plan.nodes.iter().filter(|n| n.os == Os::Windows));
    for node in order {
        let (node, address) = reachable(node)?;
        let dir = format!("rancher/{}", node.name);
        let what = match node.os {
            Os::Linux if servers(node) => "register with Rancher (etcd and control plane first)",
            Os::Linux => "register with Rancher (Linux worker)",
            Os::Windows => "register with Rancher (Windows worker), as Administrator",
        };
        let step = Step::new(Machine::Node(node, address), what);
        steps.push(match node.os {
            Os::Linux if paths.contains(format!("{dir}/register.sh").as_str()) => {
                let mut run = bash_prompts(&["CATTLE_TOKEN"]);
                run.push(format!("bash {}", on_linux(&format!("{dir}/register.sh"))));
                step.copy(Os::Linux, address, std::slice::from_ref(&dir))
                    .text(format!(
                        "On {} (the script runs Rancher's installer with sudo):",
                        markdown_code(&node.name)
                    ))
                    .bash(run)
            }
            Os::Windows if paths.contains(format!("{dir}/register.ps1").as_str()) => {
                let mut run = powershell_prompts(&["CATTLE_TOKEN"]);
                run.push(format!(
                    "powershell -ExecutionPolicy Bypass -File {}",
                    on_windows(&format!("{dir}/register.ps1"))
                ));
                step.copy(Os::Windows, address, std::slice::from_ref(&dir))
                    .text(format!(
                        "On {}, in an elevated PowerShell:",
                        markdown_code(&node.name)
                    ))
                    .powershell(run)
            }
            Os::Linux | Os::Windows => step.text("Run the node command Rancher shows for it."),
        });
    }
    Ok(steps)
}

// --- RKE1 --------------------------------------------------------------------------------------

fn rke<'a>(input: &'a Input) -> Vec<Step<'a>> {
    let mut text = String::from(
        "Merge `rke/cluster-network.yml` into your RKE `cluster.yml`, then run `rke up`; Windows \
         nodes join through the node command of a Rancher 2.x custom cluster.",
    );
    if let Some(end) = input.plan.distribution.end_of_life.as_ref() {
        text.push_str(&format!(
            " RKE1 reached its end of life on {}: move to {}.",
            end.date, end.successor
        ));
    }
    vec![Step::new(Machine::Workstation, "RKE1 cluster.yml").text(text)]
}

// --- shared ------------------------------------------------------------------------------------

/// host-gw's routes outside flannel: the cloud's route table, or static routes on each host.
fn routes<'a>(input: &'a Input, paths: &BTreeSet<&str>) -> Result<Vec<Step<'a>>, RenderError> {
    let plan = input.plan;
    let predicted = plan
        .nodes
        .iter()
        .any(|node| node.subnet_source == SubnetSource::Predicted);
    let predicted_note = "The routes hold predicted pod subnets (HG117): once every node has \
                          joined, render again with `--kubectl` (or `--cluster`), which reads the \
                          subnets the nodes were given, and use the new files.";
    match plan.external_routes(input.spec.provider()) {
        Some(ExternalRoutes::Cloud(provider)) => {
            let script = format!("routes/{}.sh", provider.as_str());
            if !paths.contains(script.as_str()) {
                return Ok(Vec::new());
            }
            let mut step = Step::new(Machine::Workstation, "pod routes in the cloud");
            if predicted {
                step = step.text(predicted_note);
            }
            Ok(vec![
                step.text(format!(
                    "With the cloud's CLI logged in to the account (or apply `routes/{}.tf.json` \
                     with Terraform instead); safe to run again:",
                    markdown_text(provider.as_str())
                ))
                .bash(vec![format!("bash {script}")]),
            ])
        }
        Some(ExternalRoutes::Hosts) => {
            let mut step = Step::new(Machine::EveryNode, "static pod routes on each node");
            if predicted {
                step = step.text(predicted_note);
            }
            for node in &plan.nodes {
                let (node, address) = reachable(node)?;
                let file = match node.os {
                    Os::Linux => format!("routes/hosts/{}.sh", node.name),
                    Os::Windows => format!("routes/hosts/{}.ps1", node.name),
                };
                if !paths.contains(file.as_str()) {
                    continue;
                }
                step = step
                    .text(format!(
                        "{} ({address}), from the workstation, then on the node (as root; on \
                         Windows in an elevated PowerShell):",
                        markdown_code(&node.name)
                    ))
                    .bash(copy_lines(node.os, address, std::slice::from_ref(&file)));
                step = match node.os {
                    Os::Linux => step.bash(vec![format!("sudo bash {}", on_linux(&file))]),
                    Os::Windows => step.powershell(vec![format!(
                        "powershell -ExecutionPolicy Bypass -File {}",
                        on_windows(&file)
                    )]),
                };
            }
            Ok(vec![step])
        }
        None => Ok(Vec::new()),
    }
}

fn check<'a>(input: &'a Input) -> Result<Step<'a>, RenderError> {
    let plan = input.plan;
    // Standalone RKE2 leaves its kubeconfig on the first server, readable by root.
    let first_server = match plan.distribution.distribution {
        Distribution::Rke2 => plan
            .rke2
            .as_ref()
            .filter(|rke2| rke2.rancher.is_none())
            .and_then(|rke2| rke2.first_server)
            .and_then(|index| plan.nodes.get(index)),
        Distribution::Kubeadm | Distribution::Rke => None,
    };
    let step = match first_server {
        Some(server) => {
            let (server, address) = reachable(server)?;
            Step::new(Machine::Node(server, address), "check")
                .text("Every node turns `Ready` once its network is up:")
                .bash(vec![
                    "sudo /var/lib/rancher/rke2/bin/kubectl --kubeconfig /etc/rancher/rke2/rke2.yaml get nodes -o wide".into(),
                ])
        }
        None => Step::new(Machine::Workstation, "check")
            .text(
                "With `kubectl` using the cluster's kubeconfig: every node turns `Ready` once its \
                 network is up.",
            )
            .bash(vec!["kubectl get nodes -o wide".into()]),
    };
    Ok(step.text(
        "Then `hybridgen verify` with the spec and `--kubectl` compares the running cluster with \
         this plan.",
    ))
}

// --- the document ------------------------------------------------------------------------------

fn markdown(input: &Input, steps: &[Step]) -> Result<String, RenderError> {
    let mut out = String::from("<!-- Code generated by hybridgen; DO NOT EDIT. -->\n");
    out.push_str(&format!(
        "# What to run where: {}\n\n",
        markdown_code(&input.spec.metadata.name)
    ));
    out.push_str(&summary(input));
    out.push_str("\n\n");
    let destinations = if input.plan.nodes.iter().any(|node| node.os == Os::Windows) {
        "to `~/hybridgen/` on Linux nodes and to `C:\\hybridgen\\` on Windows nodes"
    } else {
        "to `~/hybridgen/` on the nodes"
    };
    out.push_str(&format!(
        "Run the steps in order, each on the machine it names. Commands for the **workstation** \
         run in this directory. Files are copied {destinations}, in the layout they have here: \
         copying again after a new render replaces them in place. No file here holds a secret: \
         a script that needs one reads it from the environment variable the step names, and the \
         step asks for it without showing it.\n\n"
    ));
    out.push_str("| step | machine | what |\n|---|---|---|\n");
    for (index, step) in steps.iter().enumerate() {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            index + 1,
            markdown_text(&step.machine.label(crate::escape::inline)),
            markdown_text(&step.what)
        ));
    }
    for (index, step) in steps.iter().enumerate() {
        out.push_str(&format!(
            "\n## {}. {}: {}\n",
            index + 1,
            step.machine.label(markdown_code),
            markdown_text(&step.what)
        ));
        for block in &step.blocks {
            out.push('\n');
            match block {
                Block::Text(text) => {
                    out.push_str(text);
                    out.push('\n');
                }
                Block::Bash(lines) => fenced(&mut out, "bash", lines)?,
                Block::PowerShell(lines) => fenced(&mut out, "powershell", lines)?,
            }
        }
    }
    out.push_str(
        "\n`plan.json` and `routes/routes.json` are for reading and for tools; no machine needs \
         them.\n",
    );
    Ok(out)
}

/// A fenced code block: every line is printable ASCII (so none can close the fence early or
/// start another block), and no line starts with a backtick.
fn fenced(out: &mut String, language: &str, lines: &[String]) -> Result<(), RenderError> {
    out.push_str(&format!("```{language}\n"));
    for line in lines {
        let line = script_value(line, "a command")?;
        if line.starts_with('`') || line.starts_with('~') {
            return Err(RenderError(format!(
                "a command starts with a fence: {line:?}"
            )));
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("```\n");
    Ok(())
}

/// The cluster in one paragraph: distribution, version, flannel, Windows setup.
fn summary(input: &Input) -> String {
    let plan = input.plan;
    let version = match (
        plan.rke2.as_ref().and_then(Rke2Plan::tag),
        &plan.kubernetes_version,
    ) {
        (Some(tag), _) => tag.to_string(),
        (None, Ok(version)) => format!("Kubernetes {version}"),
        (None, Err(_)) => String::new(),
    };
    let flannel = match (&plan.flannel.version, plan.distribution.ships_flannel) {
        (_, true) => "its own flannel".to_string(),
        (Ok(version), false) => format!("flannel v{version}"),
        (Err(_), false) => "flannel".to_string(),
    };
    let backend = match plan.flannel.backend {
        Backend::Vxlan => format!(
            "vxlan (VNI {}, UDP {})",
            plan.flannel.vni, plan.flannel.port
        ),
        Backend::HostGw => "host-gw".to_string(),
    };
    let mut text = format!(
        "{}, {}, {flannel} {backend}.",
        plan.distribution.title,
        markdown_text(&version)
    );
    let has_windows = plan.nodes.iter().any(|node| node.os == Os::Windows);
    if has_windows {
        text.push(' ');
        text.push_str(match (plan.distribution.distribution, plan.windows_setup) {
            (Distribution::Kubeadm, Some(WindowsSetup::HostProcess)) => {
                "Windows nodes join with `kubeadm join` and run flanneld and kube-proxy as \
                 HostProcess containers, from images built for this cluster."
            }
            (Distribution::Kubeadm, Some(WindowsSetup::WinsDaemonSets)) => {
                "Windows nodes join with `kubeadm join` on dockerd and run flanneld and \
                 kube-proxy from DaemonSets through rancher/wins (sig-windows-tools' `kubeadm/` \
                 setup of Kubernetes 1.18 to 1.23)."
            }
            (Distribution::Kubeadm, Some(WindowsSetup::KubeCluster) | None) => {
                "Windows nodes are set up and joined by sig-windows-tools' KubeCluster.ps1 \
                 (Kubernetes before 1.24, dockerd)."
            }
            (Distribution::Rke2, _) if plan.rke2.as_ref().is_some_and(|r| r.rancher.is_some()) => {
                "Rancher's agent installs RKE2 on every node, Windows included."
            }
            (Distribution::Rke2, _) => {
                "The RKE2 agent on Windows runs flanneld and kube-proxy itself."
            }
            (Distribution::Rke, _) => "Rancher's agent joins the Windows nodes.",
        });
    }
    if let Some(end) = plan
        .kubernetes_version
        .as_ref()
        .ok()
        .and_then(kubernetes::end_of_life)
    {
        text.push_str(&format!(
            " Kubernetes 1.{} reached its end of life on {} ({})",
            end.minor,
            end.date,
            kubernetes::RELEASES_PAGE
        ));
        if let Some(minor) = end.oldest_maintained {
            text.push_str(&format!(": the oldest maintained minor is 1.{minor}"));
        }
        text.push('.');
    }
    text
}

//! The kubectl commands that capture what `verify` compares, for this spec's flannel release and
//! Kubernetes version: printed for a user or CI to run (`--print-capture`), or run here through
//! the user's own kubectl and current context (`--kubectl`), whose auth plugins, contexts and
//! proxies already work. Every command is a read-only `kubectl get`; none reads a Secret.

use crate::plan::Plan;
use crate::render::script::shell_word;
use std::path::Path;
use std::process::Command;

/// One capture: what it reads, the file it is saved to, and the `kubectl` arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    pub file: &'static str,
    pub args: Vec<String>,
    /// Objects a cluster may lack (kubeadm's ConfigMaps on k3s or RKE2): captured with
    /// `--ignore-not-found`, so that an absent one leaves an empty file.
    pub optional: bool,
}

impl Capture {
    /// The command line, as a user types it.
    pub fn command_line(&self) -> String {
        format!("kubectl {}", self.args.join(" "))
    }

    /// The command line saving to `file` under `dir`.
    pub fn saved_to(&self, dir: &str) -> String {
        format!("{} > {dir}/{}", self.command_line(), self.file)
    }
}

fn capture(file: &'static str, args: &[&str], optional: bool) -> Capture {
    let mut args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
    if optional {
        args.push("--ignore-not-found".into());
    }
    args.extend(["-o".into(), "json".into()]);
    Capture {
        file,
        args,
        optional,
    }
}

/// The kubelet's ConfigMap: `kubelet-config` from Kubernetes 1.24 (KEP-2915), before that
/// `kubelet-config-1.<minor>`.
fn kubelet_config_name(plan: &Plan) -> String {
    match &plan.kubernetes_version {
        Ok(kubernetes) if !kubernetes.at_least(1, 24) => {
            format!("kubelet-config-{}.{}", kubernetes.major, kubernetes.minor)
        }
        _ => "kubelet-config".into(),
    }
}

/// Every capture for this plan, in the order `verify` reads them.
pub fn captures(plan: &Plan) -> Vec<Capture> {
    let flannel = plan.flannel.namespace();
    let kubelet = kubelet_config_name(plan);
    vec![
        capture("nodes.json", &["get", "nodes"], false),
        capture(
            "kube-flannel-cfg.json",
            &["-n", flannel, "get", "configmap", "kube-flannel-cfg"],
            true,
        ),
        capture(
            "kubeadm-config.json",
            &["-n", "kube-system", "get", "configmap", "kubeadm-config"],
            true,
        ),
        capture(
            "kube-proxy.json",
            &["-n", "kube-system", "get", "configmap", "kube-proxy"],
            true,
        ),
        capture(
            "kubelet-config.json",
            &["-n", "kube-system", "get", "configmap", &kubelet],
            true,
        ),
        capture("daemonsets.json", &["get", "daemonsets", "-A"], false),
        capture("pods.json", &["get", "pods", "-A"], false),
    ]
}

/// The capture commands as a script a user can paste, saving into `dir`.
pub fn script(spec_name: &str, plan: &Plan) -> String {
    let dir = "cluster-capture";
    let spec_name = shell_word(spec_name);
    let mut text = format!(
        "#!/bin/sh\n# What `hybridgen verify` compares with the plan of {spec_name}: read-only `kubectl get`s,\n# no Secret, saved as JSON. Optional objects a cluster may lack leave an empty file.\nmkdir -p {dir}\n"
    );
    for capture in captures(plan) {
        text.push_str(&capture.saved_to(dir));
        text.push('\n');
    }
    text.push_str(&format!("hybridgen verify {spec_name} --cluster {dir}\n"));
    text
}

/// Why a capture failed: kubectl's own words, or when it printed none, how it exited.
fn failure(capture: &Capture, status: std::process::ExitStatus, stderr: &[u8]) -> String {
    let said = String::from_utf8_lossy(stderr);
    let exit = match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_string(),
    };
    if said.trim().is_empty() {
        format!(
            "`{}` failed ({exit}) and printed nothing on standard error",
            capture.command_line()
        )
    } else {
        format!(
            "`{}` failed ({exit}): {}",
            capture.command_line(),
            said.trim()
        )
    }
}

/// What running one capture gave: its output, or why kubectl failed.
pub struct Ran {
    pub capture: Capture,
    pub output: Result<Vec<u8>, String>,
}

/// Runs the captures through `kubectl` (a path, or the name looked up on `PATH`) and the user's
/// current context, each bounded by a request timeout: lazily, one at a time, so that a caller
/// can stop at the first failure instead of waiting for the rest to fail too.
pub fn run<'a>(kubectl: &'a Path, plan: &Plan) -> impl Iterator<Item = Ran> + 'a {
    captures(plan).into_iter().map(move |capture| {
        let output = Command::new(kubectl)
            .args(&capture.args)
            .arg("--request-timeout=30s")
            .output();
        let output = match output {
            Ok(output) if output.status.success() => Ok(output.stdout),
            Ok(output) => Err(failure(&capture, output.status, &output.stderr)),
            Err(error) => Err(format!(
                "cannot run `{}`: {error} (install kubectl, or give its path: `--kubectl=PATH`)",
                kubectl.display()
            )),
        };
        Ran { capture, output }
    })
}

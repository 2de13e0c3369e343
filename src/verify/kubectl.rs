//! The kubectl commands that capture what `verify` compares, for this spec's flannel release and
//! Kubernetes version: printed for a user or CI to run (`--print-capture`), or run here through
//! the user's own kubectl and current context (`--kubectl`), whose auth plugins, contexts and
//! proxies already work. Every command is a read-only `kubectl get`; none reads a Secret.

use super::Capture;
use super::capture::{BUDGET, Input, bytes_text};
use crate::escape;
use crate::plan::Plan;
use crate::plan::distribution::LiveConfiguration;
use crate::render::script::shell_word;
use std::io::Read as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

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

/// Every capture for this plan, in the order `verify` reads them: the nodes and flannel's
/// ConfigMap, then where the distribution keeps its configuration, then DaemonSets and pods.
pub fn captures(plan: &Plan) -> Vec<Capture> {
    let flannel = plan.flannel.namespace();
    let mut captures = vec![
        capture("nodes.json", &["get", "nodes"], false),
        capture(
            "kube-flannel-cfg.json",
            &["-n", flannel, "get", "configmap", "kube-flannel-cfg"],
            true,
        ),
    ];
    match plan.distribution.live_configuration {
        LiveConfiguration::KubeadmConfigMaps => {
            let kubelet = kubelet_config_name(plan);
            for (file, name) in [
                ("kubeadm-config.json", "kubeadm-config"),
                ("kube-proxy.json", "kube-proxy"),
                ("kubelet-config.json", kubelet.as_str()),
            ] {
                let args = ["-n", "kube-system", "get", "configmap", name];
                captures.push(capture(file, &args, true));
            }
        }
        // RKE2 deploys its CNI as a HelmChart and takes its values from a HelmChartConfig
        // (docs.rke2.io "Helm Integration"); the kinds exist on every RKE2 cluster.
        LiveConfiguration::HelmCharts => {
            for (file, kind) in [
                ("helmcharts.json", "helmcharts"),
                ("helmchartconfigs.json", "helmchartconfigs"),
            ] {
                captures.push(capture(file, &["-n", "kube-system", "get", kind], false));
            }
        }
        LiveConfiguration::None => {}
    }
    captures.extend([
        capture("daemonsets.json", &["get", "daemonsets", "-A"], false),
        capture("pods.json", &["get", "pods", "-A"], false),
    ]);
    captures
}

/// The capture commands as a script a user can paste, saving into `dir`.
pub fn script(spec_name: &str, plan: &Plan) -> String {
    let dir = "cluster-capture";
    // The comment shows the name escaped (a newline in it would end the comment and run the
    // rest); the command quotes it as a shell word.
    let shown = escape::inline(spec_name);
    let spec_name = shell_word(spec_name);
    let mut text = format!(
        "#!/bin/sh\n# What `hybridgen verify` compares with the plan of {shown}: read-only `kubectl get`s,\n# no Secret, saved as JSON. Optional objects a cluster may lack leave an empty file.\nmkdir -p {dir}\n"
    );
    for capture in captures(plan) {
        text.push_str(&capture.saved_to(dir));
        text.push('\n');
    }
    text.push_str(&format!("hybridgen verify {spec_name} --cluster {dir}\n"));
    text
}

/// How long one kubectl command may run, and how much it may print. A kubectl that hangs (an exec
/// auth plugin waiting for a browser, a proxy that never answers) or prints without end must
/// not take hybridgen with it.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    /// The most a command may print on standard output: a capture file's budget.
    pub stdout_bytes: u64,
    /// The most of its standard error that is kept: the end of it, where kubectl says what went
    /// wrong; the message quotes less.
    pub stderr_bytes: u64,
}

impl Limits {
    pub fn new(timeout: Duration) -> Self {
        Limits {
            timeout,
            stdout_bytes: BUDGET.file_bytes,
            stderr_bytes: 64 * 1024,
        }
    }
}

/// How much of kubectl's standard error a failure quotes.
const STDERR_QUOTED_CHARS: usize = 600;

/// Every capture's output, each named by its command, within the run's byte budget; or the first
/// failure. The captures run through `kubectl` (a path, or the name looked up on `PATH`) and the
/// user's current context, one at a time, stopping at the first failure instead of waiting for
/// the rest to fail too. Each runs in a process group of its own, under the limits; at the time
/// limit the whole group is killed, so that a child kubectl left behind (holding its output
/// open) ends too.
pub fn capture_all(kubectl: &Path, plan: &Plan, limits: Limits) -> Result<Vec<Input>, String> {
    let mut inputs: Vec<Input> = Vec::new();
    let mut total: u64 = 0;
    for capture in captures(plan) {
        let bytes = run_one(kubectl, &capture, limits)?;
        total = total.saturating_add(bytes.len() as u64);
        if total > BUDGET.total_bytes {
            return Err(format!(
                "kubectl printed more than {} in all, the most `verify` reads in one run",
                bytes_text(BUDGET.total_bytes)
            ));
        }
        inputs.push(Input {
            name: capture.command_line(),
            bytes,
        });
    }
    Ok(inputs)
}

fn run_one(kubectl: &Path, capture: &Capture, limits: Limits) -> Result<Vec<u8>, String> {
    let shown = escape::inline(&capture.command_line());
    let mut command = Command::new(kubectl);
    command
        .args(&capture.args)
        // kubectl's own limit on each request to the API server, inside the whole command's.
        .arg(format!(
            "--request-timeout={}s",
            limits.timeout.as_secs().clamp(1, 30)
        ))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command.spawn().map_err(|error| {
        format!(
            "cannot run `{}`: {error} (install kubectl, or give its path: `--kubectl=PATH`)",
            escape::inline(&kubectl.display().to_string())
        )
    })?;
    let started = Instant::now();
    let (sender, received) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        let sender = sender.clone();
        let limit = limits.stdout_bytes;
        // Detached: a reader blocked on a pipe that a process outside the group still holds is
        // left behind rather than waited for.
        std::thread::spawn(move || {
            let _ = sender.send(Output::Stdout(read_capped(stdout, limit)));
        });
    }
    if let Some(stderr) = child.stderr.take() {
        let limit = limits.stderr_bytes;
        std::thread::spawn(move || {
            let _ = sender.send(Output::Stderr(read_tail(stderr, limit)));
        });
    }
    let mut stdout = None;
    let mut stderr = None;
    let mut exited = false;
    while stdout.is_none() || stderr.is_none() {
        if started.elapsed() >= limits.timeout {
            end_group(&mut child);
            return Err(timed_out(&shown, limits));
        }
        match received.recv_timeout(POLL) {
            Ok(Output::Stdout(Some(bytes))) => stdout = Some(bytes),
            Ok(Output::Stdout(None)) => {
                end_group(&mut child);
                return Err(format!(
                    "`{shown}` printed more than {}, the most a capture may hold; it was stopped and nothing it printed was read",
                    bytes_text(limits.stdout_bytes)
                ));
            }
            Ok(Output::Stderr(bytes)) => stderr = Some(bytes),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        // kubectl has exited but something it started still holds its output open: whatever
        // kubectl printed is complete, and what is left of its group is ended.
        if !exited && has_exited(&mut child) {
            exited = true;
            kill_group(&child);
        }
    }
    // Both streams are closed; kubectl itself may take a moment more to exit.
    while !has_exited(&mut child) {
        if started.elapsed() >= limits.timeout {
            end_group(&mut child);
            return Err(timed_out(&shown, limits));
        }
        std::thread::sleep(POLL);
    }
    kill_group(&child);
    let status = child
        .wait()
        .map_err(|error| format!("`{shown}`: {error}"))?;
    if !status.success() {
        let said = quoted_stderr(&stderr.unwrap_or_default());
        let status = match status.code() {
            Some(code) => format!("exit status {code}"),
            None => "killed by a signal".to_string(),
        };
        return Err(if said.is_empty() {
            format!("`{shown}` failed ({status}) and printed nothing on standard error")
        } else {
            format!("`{shown}` failed ({status}): {said}")
        });
    }
    Ok(stdout.unwrap_or_default())
}

fn timed_out(shown: &str, limits: Limits) -> String {
    format!(
        "`{shown}` did not finish within {} s (`--kubectl-timeout`); it was stopped with every process it started",
        limits.timeout.as_secs()
    )
}

/// How often the wait for kubectl looks at the clock and at whether it has exited.
const POLL: Duration = Duration::from_millis(20);

enum Output {
    /// Standard output, or `None` past the limit.
    Stdout(Option<Vec<u8>>),
    /// The start of standard error; the rest is read and dropped, so that kubectl never blocks
    /// on a full pipe.
    Stderr(Vec<u8>),
}

/// Standard output up to `limit`, read in chunks and joined once at the end: a buffer grown by
/// doubling would hold up to twice the limit while it is copied.
fn read_capped(stream: impl std::io::Read, limit: u64) -> Option<Vec<u8>> {
    const CHUNK: usize = 1 << 20;
    let mut stream = stream.take(limit + 1);
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        let read = (&mut stream)
            .take(CHUNK as u64)
            .read_to_end(&mut chunk)
            .ok()?;
        if read == 0 {
            break;
        }
        chunks.push(chunk);
    }
    let total: usize = chunks.iter().map(Vec::len).sum();
    (total as u64 <= limit).then(|| chunks.concat())
}

/// The last `limit` bytes of a stream read to its end: kubectl says what went wrong on its last
/// line, after whatever client-go logged before it.
fn read_tail(mut stream: impl std::io::Read, limit: u64) -> Vec<u8> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut kept = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(read) => {
                kept.extend_from_slice(&chunk[..read]);
                // Dropped in halves, so that each byte is moved a bounded number of times.
                if kept.len() > limit.saturating_mul(2) {
                    kept.drain(..kept.len() - limit);
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if kept.len() > limit {
        kept.drain(..kept.len() - limit);
    }
    kept
}

/// Whether kubectl has exited, without reaping it (`waitid` with `WNOWAIT`): its process id stays
/// its group's until then, so that ending the group can never reach another process that took
/// the number.
fn has_exited(child: &mut Child) -> bool {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        matches!(
            waitid(WaitId::Pid(Pid::from_child(child)), options),
            Ok(Some(_))
        )
    }
    #[cfg(not(unix))]
    {
        child.try_wait().ok().flatten().is_some()
    }
}

/// Kills every process left in kubectl's group (kubectl itself is not reaped here, so the group's
/// id, kubectl's own from `process_group(0)`, cannot name another group).
fn kill_group(child: &Child) {
    #[cfg(unix)]
    {
        use rustix::process::{Pid, Signal, kill_process_group};
        let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// Ends kubectl's whole group and reaps kubectl.
fn end_group(child: &mut Child) {
    kill_group(child);
    let _ = child.kill();
    let _ = child.wait();
}

/// kubectl's standard error as a failure quotes it: its last line, which is where kubectl says
/// what went wrong (`The connection to the server … was refused`), after any number of client-go
/// log lines (`memcache.go:265] "Unhandled Error" …`); escaped, on one line, cut short, and
/// saying how many lines came before it.
fn quoted_stderr(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let Some(last) = lines.next_back() else {
        return String::new();
    };
    let earlier = lines.count();
    let quoted = escape::bounded(last, STDERR_QUOTED_CHARS);
    match earlier {
        0 => quoted,
        1 => format!("{quoted} (after 1 earlier line)"),
        count => format!("{quoted} (after {count} earlier lines)"),
    }
}

#[cfg(test)]
mod tests {
    use super::quoted_stderr;

    #[test]
    fn a_failure_quotes_kubectls_last_line() {
        let noise = "E1126 11:51:20.850550 17300 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server API group list: Get \\\"http://localhost:8080/api?timeout=32s\\\": dial tcp [::1]:8080: connect: connection refused\"\n";
        let stderr = format!(
            "{}\nThe connection to the server localhost:8080 was refused - did you specify the right host or port?\n",
            noise.repeat(5)
        );
        assert_eq!(
            quoted_stderr(stderr.as_bytes()),
            "The connection to the server localhost:8080 was refused - did you specify the right host or port? (after 5 earlier lines)"
        );
    }

    #[test]
    fn only_the_tail_of_a_long_stderr_is_kept() {
        let mut stderr = vec![b'x'; 200_000];
        stderr.extend_from_slice(b"\nerror: the server doesn't have a resource type \"nodes\"\n");
        let tail = super::read_tail(&stderr[..], 1000);
        assert_eq!(tail.len(), 1000);
        assert!(stderr.ends_with(&tail));
        assert!(
            quoted_stderr(&tail).starts_with("error: the server doesn't have a resource type"),
            "{}",
            quoted_stderr(&tail)
        );
    }

    #[test]
    fn the_last_line_is_escaped_and_bounded() {
        let stderr = format!("first\n\u{1b}]0;x\u{7}{}\n", "y".repeat(5000));
        let quoted = quoted_stderr(stderr.as_bytes());
        assert!(
            !quoted.contains('\u{1b}') && !quoted.contains('\u{7}'),
            "{quoted}"
        );
        assert!(
            quoted.contains("more characters") && quoted.len() < 800,
            "{quoted}"
        );
        assert!(quoted.ends_with("(after 1 earlier line)"), "{quoted}");
        assert_eq!(quoted_stderr(b"\n \n"), "");
    }
}

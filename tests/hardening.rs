//! Under attack and failure, through the real binary: `verify` is bounded (a kubectl that hangs,
//! floods or leaves children behind; FIFOs, devices, sparse files, symlinked directories; a
//! million broken items), never passes in silence (empty or wrongly typed captures), and its
//! output is inert (control characters, workflow commands, newlines in file names, SARIF URIs,
//! Secrets); `render` changes the output directory all at once or not at all (a kill at every
//! write, link, directory and rename, a failure part way, concurrent renders read without a lock).
//!
//! `HYBRIDGEN_TEST_BIN` runs these against another build of hybridgen (an older release, to see
//! which of them it fails).

#![allow(
    clippy::print_stderr,
    reason = "what the kill tests saw, shown with `--nocapture`"
)]
#![cfg(target_os = "linux")]

#[path = "support/watched.rs"]
mod watched;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const EXAMPLE: &str = "examples/kubeadm-1.36-vxlan-windows.yaml";
const HEALTHY: &str = "tests/fixtures/verify/healthy";
/// Far past anything these cases need: a run still going then is a hang.
const WATCHDOG: Duration = Duration::from_secs(90);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn binary() -> PathBuf {
    std::env::var_os("HYBRIDGEN_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_hybridgen")))
}

/// A fresh directory for one use.
fn scratch(name: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::SeqCst);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("hardening")
        .join(format!("{name}-{call}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

type Run = watched::Watched;

fn output(run: &Run) -> String {
    format!("{}{}", run.stdout, run.stderr)
}

fn run_command(mut command: Command) -> Run {
    command.current_dir(root());
    watched::run(command, WATCHDOG)
}

/// The watchdog every run here relies on: a child still running at its limit is killed, the
/// run ends soon after, and it reports the signal, not an exit code.
#[test]
fn the_watchdog_kills_a_child_past_its_limit() {
    let mut command = Command::new("sleep");
    command.arg("60");
    let run = watched::run(command, Duration::from_millis(300));
    assert_eq!(run.code, None);
    assert!(
        run.elapsed < Duration::from_secs(20),
        "took {:?}",
        run.elapsed
    );
    assert!(run.peak_kb > 0);
}

fn hybridgen(args: &[&str]) -> Run {
    let mut command = Command::new(binary());
    with_secrets(&mut command).args(args).env_remove("CI");
    run_command(command)
}

/// The healthy capture as JSON values by file name, for a case to change.
fn healthy() -> BTreeMap<String, Value> {
    std::fs::read_dir(root().join(HEALTHY))
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (
                name,
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap(),
            )
        })
        .collect()
}

fn write_capture(name: &str, files: &BTreeMap<String, Value>) -> PathBuf {
    let dir = scratch(name);
    for (file, value) in files {
        std::fs::write(dir.join(file), serde_json::to_vec_pretty(value).unwrap()).unwrap();
    }
    dir
}

fn verify_cluster(dir: &Path, format: &str) -> Run {
    hybridgen(&[
        "verify",
        EXAMPLE,
        "--cluster",
        dir.to_str().unwrap(),
        "--format",
        format,
    ])
}

/// `verify --kubectl` through the fake kubectl, misbehaving as `mode` says.
fn verify_kubectl(mode: &str, captures: &Path, extra: &[&str]) -> Run {
    let mut command = Command::new(binary());
    command
        .args(["verify", EXAMPLE, "--format", "json"])
        .arg(format!(
            "--kubectl={}",
            root()
                .join("tests/fixtures/hardening/fake-kubectl")
                .display()
        ))
        .args(extra)
        .env("FAKE_KUBECTL_MODE", mode)
        .env("FAKE_KUBECTL_DIR", captures);
    run_command(command)
}

fn codes_in(run: &Run) -> Vec<(String, String)> {
    let json: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}{}", run.stdout, run.stderr));
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                format!("{} | {}", d["file"].as_str().unwrap(), d["message"]),
            )
        })
        .collect()
}

// 1. A kubectl that never exits, leaves a child holding its output, prints forever, or fails
//    with 50 MB of stderr.

#[test]
fn a_kubectl_that_never_exits_is_stopped_at_the_timeout() {
    let run = verify_kubectl("hang", &root().join(HEALTHY), &["--kubectl-timeout", "2"]);
    assert_eq!(run.code, Some(2), "{}", output(&run));
    assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
    assert!(
        run.stderr.contains("did not finish within 2 s"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_kubectl_whose_child_holds_its_output_does_not_hang_verify() {
    // kubectl exits at once; the `sleep 600` it started keeps its stdout open. The default
    // timeout (60 s) is never reached: what kubectl printed is complete when it exits.
    let run = verify_kubectl("orphan", &root().join(HEALTHY), &[]);
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
    assert_eq!(run.code, Some(0), "{}", output(&run));
}

#[test]
fn a_kubectl_that_prints_forever_is_stopped_at_the_output_cap() {
    let run = verify_kubectl("flood", &root().join(HEALTHY), &[]);
    assert_eq!(run.code, Some(2), "{}", output(&run));
    assert!(
        run.stderr.contains("printed more than 256 MiB"),
        "{}",
        run.stderr
    );
    assert!(run.peak_kb < 500 * 1024, "peak {} KiB", run.peak_kb);
    assert!(run.elapsed < Duration::from_secs(60), "{:?}", run.elapsed);
}

#[test]
fn a_failing_kubectls_huge_stderr_is_quoted_short_and_escaped() {
    let run = verify_kubectl("stderr", &root().join(HEALTHY), &[]);
    assert_eq!(run.code, Some(2), "{}", output(&run));
    assert!(
        run.stderr.len() < 2_000,
        "{} bytes of stderr",
        run.stderr.len()
    );
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
    assert!(
        run.stderr.lines().all(|line| !line.starts_with("::")),
        "{}",
        run.stderr
    );
    // kubectl's last line is quoted (it says what went wrong), not the 50 MB before it.
    assert!(
        run.stderr
            .contains("failed (exit status 1): ::error file=x::injected (after 2 earlier lines)"),
        "{}",
        run.stderr
    );
}

// 2. Silent passes.

#[test]
fn empty_kubectl_output_is_never_a_clean_cluster() {
    let mut files = healthy();
    files.remove("daemonsets.json");
    files.remove("pods.json");
    let dir = write_capture("empty-kubectl", &files);
    let run = verify_kubectl("", &dir, &[]);
    assert_eq!(run.code, Some(1), "{}", output(&run));
    let found = codes_in(&run);
    for command in [
        "kubectl get daemonsets -A -o json",
        "kubectl get pods -A -o json",
    ] {
        assert!(
            found
                .iter()
                .any(|(code, what)| code == "HG509" && what.starts_with(command)),
            "{command} not in {found:#?}"
        );
    }
}

#[test]
fn an_empty_capture_under_any_name_is_never_a_clean_cluster() {
    let mut files = healthy();
    files.remove("daemonsets.json");
    let dir = write_capture("empty-ds", &files);
    std::fs::write(dir.join("ds.json"), "").unwrap();
    let run = verify_cluster(&dir, "json");
    assert_eq!(run.code, Some(1), "{}", output(&run));
    assert!(
        codes_in(&run)
            .iter()
            .any(|(code, what)| code == "HG509" && what.contains("no capture holds a DaemonSet")),
        "{}",
        run.stdout
    );
}

#[test]
fn values_of_the_wrong_type_are_findings_naming_file_and_field() {
    type Edit = fn(&mut BTreeMap<String, Value>);
    let cases: [(&str, Edit, &str); 4] = [
        (
            "kernel",
            |files| {
                files.get_mut("nodes.json").unwrap()["items"][2]["status"]["nodeInfo"]["kernelVersion"] =
                    "garbage".into()
            },
            "status.nodeInfo.kernelVersion",
        ),
        (
            "network",
            |files| {
                files.get_mut("kube-flannel-cfg.json").unwrap()["data"]["net-conf.json"] =
                    r#"{"Network": 10, "Backend": {"Type": "vxlan", "VNI": 4096, "Port": 4789}}"#
                        .into()
            },
            "Network",
        ),
        (
            "annotation",
            |files| {
                files.get_mut("nodes.json").unwrap()["items"][0]["metadata"]["annotations"]["flannel.alpha.coreos.com/backend-type"] =
                    serde_json::json!({"a": 1})
            },
            "flannel.alpha.coreos.com/backend-type",
        ),
        (
            "addresses",
            |files| {
                files.get_mut("nodes.json").unwrap()["items"][1]["status"]["addresses"] =
                    serde_json::json!({"InternalIP": "1.2.3.4"})
            },
            "status.addresses",
        ),
    ];
    for (name, edit, field) in cases {
        let mut files = healthy();
        edit(&mut files);
        let run = verify_cluster(&write_capture(name, &files), "json");
        assert_eq!(run.code, Some(1), "{name}: {}", output(&run));
        let found = codes_in(&run);
        assert!(
            found.iter().any(|(code, what)| code == "HG509"
                && what.contains(".json |")
                && what.contains(field)),
            "{name}: {found:#?}"
        );
    }
}

// 3. Special files.

fn make_fifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_bits_truncate(0o600),
        0,
    )
    .unwrap();
}

#[test]
fn fifos_devices_and_symlinked_directories_are_refused_before_reading() {
    let fifo = write_capture("fifo", &healthy());
    make_fifo(&fifo.join("pipe.json"));
    let device = write_capture("device", &healthy());
    std::os::unix::fs::symlink("/dev/urandom", device.join("random.json")).unwrap();
    let linked = write_capture("linked", &healthy());
    std::os::unix::fs::symlink("/dev", linked.join("dev")).unwrap();
    for (dir, reason) in [
        (fifo, "FIFO"),
        (device, "a device"),
        (linked, "symbolic link to a directory"),
    ] {
        let run = verify_cluster(&dir, "human");
        assert_eq!(run.code, Some(2), "{reason}: {}", output(&run));
        assert!(run.stderr.contains(reason), "{}", run.stderr);
        assert!(
            run.elapsed < Duration::from_secs(10),
            "{reason}: {:?}",
            run.elapsed
        );
        assert!(
            run.peak_kb < 100 * 1024,
            "{reason}: peak {} KiB",
            run.peak_kb
        );
    }
}

#[test]
fn files_beyond_the_byte_budget_are_refused_by_size() {
    let dir = write_capture("sparse", &healthy());
    for index in 0..6 {
        let file = std::fs::File::create(dir.join(format!("sparse-{index}.json"))).unwrap();
        file.set_len(600 * 1024 * 1024).unwrap();
    }
    let run = verify_cluster(&dir, "human");
    assert_eq!(run.code, Some(2), "{}", output(&run));
    assert!(
        run.stderr.contains("600 MiB") && run.stderr.contains("256 MiB"),
        "{}",
        run.stderr
    );
    assert!(run.elapsed < Duration::from_secs(10), "{:?}", run.elapsed);
    assert!(run.peak_kb < 100 * 1024, "peak {} KiB", run.peak_kb);
    // Under the per-file budget but over the total one.
    let total = write_capture("total", &healthy());
    for index in 0..3 {
        let file = std::fs::File::create(total.join(format!("big-{index}.json"))).unwrap();
        file.set_len(200 * 1024 * 1024).unwrap();
    }
    let run = verify_cluster(&total, "human");
    assert_eq!(run.code, Some(2), "{}", output(&run));
    assert!(run.stderr.contains("512 MiB"), "{}", run.stderr);
    assert!(run.peak_kb < 100 * 1024, "peak {} KiB", run.peak_kb);
}

// 4. Output amplification.

#[test]
fn a_capture_of_many_broken_items_prints_a_bounded_report() {
    for (items, line_breaks) in [(20_000, true), (1_000_000, false)] {
        let dir = write_capture("amplify", &healthy());
        let separator = if line_breaks { ",\n" } else { "," };
        let body = vec!["{}"; items].join(separator);
        std::fs::write(
            dir.join("broken.json"),
            format!("{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{body}]}}"),
        )
        .unwrap();
        for format in ["human", "github", "json", "sarif"] {
            let run = verify_cluster(&dir, format);
            assert_eq!(run.code, Some(1), "{items} {format}: {}", run.stderr);
            // SARIF carries the help of every rule (about 290 KB of it) whatever it reports.
            let bound = if format == "sarif" { 400_000 } else { 300_000 };
            assert!(
                run.stdout.len() < bound,
                "{items} items, {format}: {} bytes",
                run.stdout.len()
            );
            assert!(
                run.peak_kb < 500 * 1024,
                "{items}: peak {} KiB",
                run.peak_kb
            );
            assert!(run.elapsed < Duration::from_secs(60), "{:?}", run.elapsed);
        }
        let summary = verify_cluster(&dir, "human");
        assert!(
            summary
                .stdout
                .contains(&format!("{} more items", items - 20)),
            "{}",
            summary.stdout
        );
    }
}

// 5. Injection.

/// Values that act on a terminal or a CI log when printed raw.
const INJECTIONS: [&str; 5] = [
    "\u{1b}[2J\u{1b}[H",
    "\u{1b}]0;pwned\u{7}",
    "\n::error file=x,line=1::injected",
    "\r\u{9b}31m\u{202e}",
    "##[error]injected",
];

fn assert_inert(what: &str, text: &str) {
    assert!(
        !text.contains(['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\r']),
        "{what}: {text:?}"
    );
    for line in text.lines() {
        let body = line.trim_start();
        // A workflow command hybridgen wrote; inside it, GitHub reads no other command.
        let ours = [
            "::error title=HG",
            "::warning title=HG",
            "::notice title=HG",
        ]
        .iter()
        .any(|command| body.starts_with(command));
        assert!(ours || !body.starts_with("::"), "{what}: {line:?}");
        assert!(ours || !body.contains("##["), "{what}: {line:?}");
    }
}

#[test]
fn control_characters_and_workflow_commands_reach_no_terminal() {
    for (index, injection) in INJECTIONS.iter().enumerate() {
        // In a capture value quoted by a finding (HG505 quotes the backend type), and in a
        // capture's file name (HG509 names the file).
        let mut files = healthy();
        files.get_mut("nodes.json").unwrap()["items"][0]["metadata"]["annotations"]["flannel.alpha.coreos.com/backend-type"] =
            (*injection).into();
        let dir = write_capture("inject", &files);
        let name = format!("bad{}{index}.txt", injection.replace(['/', '\n'], "-"));
        std::fs::write(dir.join(&name), format!("Name: x{injection}\nLabels: y\n")).unwrap();
        for format in ["human", "github"] {
            let run = verify_cluster(&dir, format);
            assert_eq!(run.code, Some(1), "{}", output(&run));
            assert_inert(&format!("{injection:?} {format}"), &output(&run));
        }
        // In a spec: a value reported by the schema, and the file's own name.
        let spec_dir = scratch("inject-spec");
        let spec = spec_dir.join(format!("spec{}.yaml", injection.replace(['/', '\n'], "-")));
        let text = std::fs::read_to_string(root().join(EXAMPLE))
            .unwrap()
            .replace("backend: vxlan", &format!("backend: {:?}", injection));
        std::fs::write(&spec, text).unwrap();
        for format in ["human", "github"] {
            let run = hybridgen(&["plan", spec.to_str().unwrap(), "--format", format]);
            assert_eq!(run.code, Some(1), "{}", output(&run));
            assert_inert(&format!("spec {injection:?} {format}"), &output(&run));
        }
        let out = spec_dir.join("out");
        let run = hybridgen(&[
            "render",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_inert(&format!("render {injection:?}"), &output(&run));
    }
}

#[test]
fn print_capture_quotes_a_spec_name_holding_a_newline() {
    let dir = scratch("newline-name");
    let marker = dir.join("ran");
    let spec = dir.join("x\ntouch ran\n#.yaml");
    std::fs::copy(root().join(EXAMPLE), &spec).unwrap();
    let run = hybridgen(&["verify", spec.to_str().unwrap(), "--print-capture"]);
    assert_eq!(run.code, Some(0), "{}", output(&run));
    // The script runs with a kubectl and hybridgen that do nothing: only an injected line could
    // create the marker.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["kubectl", "hybridgen"] {
        std::os::unix::fs::symlink("/bin/true", bin.join(tool)).unwrap();
    }
    let script = dir.join("capture.sh");
    std::fs::write(&script, &run.stdout).unwrap();
    let status = Command::new("sh")
        .arg(&script)
        .current_dir(&dir)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        !marker.exists(),
        "the script ran a line from the file name:\n{}",
        run.stdout
    );
}

#[test]
fn sarif_uris_are_percent_encoded() {
    let dir = scratch("sarif-uri");
    let spec = dir.join("a b#c?d%e.yaml");
    std::fs::write(&spec, "apiVersion: hybridgen/v1\nkind: Cluster\n").unwrap();
    let run = hybridgen(&["plan", spec.to_str().unwrap(), "--format", "sarif"]);
    let sarif: Value = serde_json::from_str(&run.stdout).unwrap();
    let uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(uri.ends_with("a%20b%23c%3Fd%25e.yaml"), "{uri}");
    assert!(!uri.contains([' ', '#', '?']), "{uri}");
}

// 7. Secrets.

#[test]
fn a_secret_in_a_capture_is_never_quoted() {
    let secret = "c2VjcmV0LXRva2VuLXZhbHVl";
    let dir = write_capture("secret", &healthy());
    let yaml = format!(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: bootstrap-token-abcdef\n    namespace: kube-system\n  data:\n    token-secret: {secret}\n  stringData:\n    plain: {secret}-plain\n"
    );
    std::fs::write(dir.join("secrets.yaml"), &yaml).unwrap();
    std::fs::write(
        dir.join("secret.json"),
        format!(r#"{{"apiVersion":"v1","kind":"Secret","metadata":{{"name":"s"}},"data":{{"k":"{secret}"}}}}"#),
    )
    .unwrap();
    for format in ["human", "github", "json", "sarif"] {
        let run = verify_cluster(&dir, format);
        assert!(
            output(&run).contains("Secret"),
            "{format}: {}",
            output(&run)
        );
        assert!(!output(&run).contains(secret), "{format}: {}", output(&run));
    }
}

#[test]
fn inline_secrets_in_a_spec_that_does_not_load_are_masked() {
    let token = "abcdef.0123456789zzzzzz";
    let example = std::fs::read_to_string(root().join(EXAMPLE)).unwrap();
    let at = example.find("nodes:").unwrap();
    for (name, block) in [
        (
            "unclosed-quote",
            format!("windows:\n  controlPlane:\n    kubeadmToken: \"x{token}\n"),
        ),
        (
            "duplicate-key",
            format!(
                "windows:\n  controlPlane:\n    kubeadmToken: x{token}\n    kubeadmToken: y{token}\n"
            ),
        ),
        (
            "mapping-value",
            format!("windows:\n  controlPlane:\n    kubeadmToken: a: x{token}\n"),
        ),
    ] {
        let dir = scratch(name);
        let spec = dir.join("spec.yaml");
        std::fs::write(
            &spec,
            format!("{}{block}{}", &example[..at], &example[at..]),
        )
        .unwrap();
        for format in ["human", "github", "json", "sarif"] {
            let run = hybridgen(&["plan", spec.to_str().unwrap(), "--format", format]);
            assert_eq!(run.code, Some(1), "{name}: {}", output(&run));
            assert!(
                !output(&run).contains(token),
                "{name} {format}: {}",
                output(&run)
            );
        }
    }
}

// 6. Render: all or nothing.

/// Every regular file under `dir` that a reader of the artifacts sees (no dot-files), with its
/// contents, and the manifest's paths: what `cat` and `ls` show, read by plain paths.
fn snapshot(dir: &Path) -> (BTreeMap<String, Vec<u8>>, String) {
    fn walk(base: &Path, dir: &Path, files: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                walk(base, &path, files);
            } else {
                let relative = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.insert(relative, std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(dir, dir, &mut files);
    let manifest = std::fs::read_to_string(dir.join(".hybridgen-manifest")).unwrap_or_default();
    // `<sha256> <mode> <path>`: the path is the last field.
    let listed = manifest
        .lines()
        .map(|line| format!("{}\n", line.splitn(3, ' ').last().unwrap_or_default()))
        .collect();
    (files, listed)
}

/// The directory's identity: a swap gives `out` another inode.
fn identity(dir: &Path) -> Option<(u64, i64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(dir)
        .ok()
        .map(|meta| (meta.ino(), meta.ctime_nsec() + meta.ctime() * 1_000_000_000))
}

/// A fresh `out` in a directory of its own, so that what a render leaves beside it is its own.
fn fresh_out(name: &str) -> PathBuf {
    scratch(name).join("out")
}

/// What hybridgen left beside `out`: staging directories.
fn beside(out: &Path) -> Vec<String> {
    std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "out")
        .collect()
}

/// The set a spec renders, rendered alone.
fn rendered_alone(spec: &str) -> (BTreeMap<String, Vec<u8>>, String) {
    let out = fresh_out("alone");
    let run = render(spec, &out);
    assert_eq!(run.code, Some(0), "{spec}: {}", output(&run));
    let set = snapshot(&out);
    let listed: Vec<&str> = set.1.lines().collect();
    assert_eq!(listed, set.0.keys().map(String::as_str).collect::<Vec<_>>());
    set
}

/// `hybridgen render SPEC --out OUT`, with the join secrets of [`with_secrets`].
fn render(spec: &str, out: &Path) -> Run {
    hybridgen(&["render", spec, "--out", out.to_str().unwrap()])
}

/// The join secrets every render here reads: the same on every run, in the forms kubeadm and
/// RKE2 take.
fn with_secrets(command: &mut Command) -> &mut Command {
    command
        .env("KUBEADM_TOKEN", "abcdef.0123456789abcdef")
        .env(
            "KUBEADM_CA_HASH",
            "sha256:0000000000000000000000000000000000000000000000000000000000000000",
        )
        .env("RKE2_TOKEN", "a-shared-secret")
}

fn render_with(spec: &str, out: &Path, flag: &str) -> Run {
    hybridgen(&["render", spec, "--out", out.to_str().unwrap(), flag])
}

/// `strace`, which the kill and failure tests inject with. They are ignored by `cargo test`, so
/// that a run without strace lists them as not run; `.ci/run` installs strace and runs them.
fn strace() {
    let found = Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "install strace (Debian's `strace` package) to run this test"
    );
}

fn render_under_strace(spec: &str, out: &Path, syscall: &str, inject: &str) -> Run {
    let mut command = Command::new("strace");
    command
        .args(["-f", "-o", "/dev/null", "-e"])
        .arg(format!("trace={syscall}"))
        .arg("-e")
        .arg(format!("inject={syscall}:{inject}"))
        .arg(binary())
        .args(["render", spec, "--out", out.to_str().unwrap()]);
    with_secrets(&mut command);
    run_command(command)
}

const OLD_SPEC: &str = "examples/kubeadm-1.36-vxlan-windows.yaml";
const NEW_SPEC: &str = "examples/rke2-1.35-flannel-windows.yaml";

/// Files of the user's beside the artifacts, which every render carries over.
const USER_FILES: [(&str, &str); 2] = [("NOTES.md", "mine\n"), ("notes/deep/a.txt", "also mine\n")];

/// `OLD_SPEC`'s set rendered into `out`, with the user's files added.
fn old_set_with_user_files(out: &Path) {
    assert_eq!(render(OLD_SPEC, out).code, Some(0));
    for (path, text) in USER_FILES {
        std::fs::create_dir_all(out.join(path).parent().unwrap()).unwrap();
        std::fs::write(out.join(path), text).unwrap();
    }
}

/// A set as plain reads see it with the user's files beside it.
fn with_user_files(set: &Snapshot) -> Snapshot {
    let mut set = set.clone();
    for (path, text) in USER_FILES {
        set.0.insert(path.to_string(), text.as_bytes().to_vec());
    }
    set
}

/// Kills the render of `NEW_SPEC` over `OLD_SPEC`'s set at each call of `syscall` in turn, and
/// checks what plain reads see right after: the old set or the new one, never a mix; `--check`
/// agrees; the next render leaves nothing beside the directory. Returns how many calls there
/// were, and which set each kill left.
fn kill_at_every(
    syscall: &str,
    old: &Snapshot,
    new: &Snapshot,
) -> (usize, BTreeMap<&'static str, usize>) {
    let (old, new) = (&with_user_files(old), &with_user_files(new));
    let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
    for n in 1.. {
        let out = fresh_out("kill");
        old_set_with_user_files(&out);
        let run = render_under_strace(NEW_SPEC, &out, syscall, &format!("signal=SIGKILL:when={n}"));
        if run.code == Some(0) {
            // Past the last call: the render ran to the end.
            assert_eq!(snapshot(&out), *new);
            return (n - 1, outcomes);
        }
        let seen = snapshot(&out);
        let outcome = if seen == *old {
            "old"
        } else if seen == *new {
            "new"
        } else {
            panic!("killed at {syscall} {n}: neither set")
        };
        let check_old = render_with(OLD_SPEC, &out, "--check");
        let check_new = render_with(NEW_SPEC, &out, "--check");
        assert_eq!(
            check_old.code == Some(0),
            outcome == "old",
            "{syscall} {n}: {}",
            output(&check_old)
        );
        assert_eq!(
            check_new.code == Some(0),
            outcome == "new",
            "{syscall} {n}: {}",
            output(&check_new)
        );
        assert_eq!(snapshot(&out), seen, "--check changed the directory");
        assert_eq!(render(NEW_SPEC, &out).code, Some(0));
        assert_eq!(snapshot(&out), *new);
        assert_eq!(
            beside(&out),
            Vec::<String>::new(),
            "{syscall} {n}: left behind"
        );
        *outcomes.entry(outcome).or_default() += 1;
    }
    unreachable!()
}

type Snapshot = (BTreeMap<String, Vec<u8>>, String);

#[test]
#[ignore = "needs strace; .ci/run installs it and runs it"]
fn a_render_killed_at_every_write_and_rename_leaves_the_old_set_or_the_new_one() {
    strace();
    let old = rendered_alone(OLD_SPEC);
    let new = rendered_alone(NEW_SPEC);
    assert_ne!(old, new);
    for syscall in [
        "renameat2",
        "write",
        "linkat",
        "mkdirat",
        "fchmod",
        "unlinkat",
    ] {
        let (calls, outcomes) = kill_at_every(syscall, &old, &new);
        eprintln!("killed at each of {calls} {syscall} calls: {outcomes:?}");
        assert!(calls >= 1, "{syscall} was never called");
        if syscall == "renameat2" {
            // The one rename is the instant the set changes: killed before it, the old set.
            assert_eq!(outcomes, BTreeMap::from([("old", 1)]), "{outcomes:?}");
        }
    }
}

#[test]
#[ignore = "needs strace; .ci/run installs it and runs it"]
fn a_failure_part_way_leaves_the_old_set_and_says_so() {
    strace();
    let old = rendered_alone(OLD_SPEC);
    for (syscall, when, error) in [
        ("renameat2", 1, "EXDEV"),
        ("renameat2", 1, "EBUSY"),
        ("write", 3, "ENOSPC"),
        ("linkat", 2, "EPERM"),
        ("mkdirat", 1, "EACCES"),
        ("fchmod", 1, "EPERM"),
    ] {
        let out = fresh_out("fail");
        old_set_with_user_files(&out);
        let run = render_under_strace(
            NEW_SPEC,
            &out,
            syscall,
            &format!("error={error}:when={when}"),
        );
        assert_eq!(
            run.code,
            Some(2),
            "{syscall} {when} {error}: {}",
            output(&run)
        );
        assert!(run.stderr.contains("nothing was changed"), "{}", run.stderr);
        assert_eq!(
            snapshot(&out),
            with_user_files(&old),
            "{syscall} {when} failed with {error}"
        );
        assert_eq!(
            beside(&out),
            Vec::<String>::new(),
            "{syscall} {error}: left behind"
        );
    }
}

#[test]
#[ignore = "needs strace; .ci/run installs it and runs it"]
fn without_rename_exchange_two_renames_still_give_the_new_set() {
    strace();
    let new = rendered_alone(NEW_SPEC);
    let out = fresh_out("no-exchange");
    render(OLD_SPEC, &out);
    // The filesystem answers the exchange with EINVAL, as one without RENAME_EXCHANGE does.
    let run = render_under_strace(NEW_SPEC, &out, "renameat2", "error=EINVAL:when=1");
    assert_eq!(run.code, Some(0), "{}", output(&run));
    assert_eq!(snapshot(&out), new);
    assert_eq!(beside(&out), Vec::<String>::new());
}

#[test]
fn concurrent_renders_of_different_specs_leave_one_whole_set() {
    let specs: Vec<String> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|entry| format!("examples/{}", entry.unwrap().file_name().to_string_lossy()))
        .filter(|name| name.ends_with(".yaml"))
        .collect();
    let sets: Vec<_> = specs.iter().map(|spec| rendered_alone(spec)).collect();
    let out = fresh_out("concurrent");
    let stop = Arc::new(AtomicBool::new(false));
    let seen: Arc<Mutex<BTreeMap<usize, usize>>> = Default::default();
    // An observer that reads the directory as any program does, by paths and without a lock;
    // a sample during which `out` was swapped read two directories and is not counted.
    let observer = {
        let (out, stop, seen, sets) = (out.clone(), stop.clone(), seen.clone(), sets.clone());
        std::thread::spawn(move || {
            let (mut samples, mut straddled) = (0, 0);
            while !stop.load(Ordering::SeqCst) || samples == 0 {
                let before = identity(&out);
                let state = snapshot(&out);
                if before.is_none() || identity(&out) != before {
                    straddled += 1;
                    continue;
                }
                samples += 1;
                let which = sets.iter().position(|set| *set == state);
                let which = which.unwrap_or_else(|| {
                    panic!(
                        "sample {samples}: a mix of sets: {:?}",
                        state.0.keys().collect::<Vec<_>>()
                    )
                });
                *seen.lock().unwrap().entry(which).or_default() += 1;
            }
            (samples, straddled)
        })
    };
    let rounds = 5;
    for _ in 0..rounds {
        let renders: Vec<_> = specs
            .iter()
            .map(|spec| {
                let (spec, out) = (spec.clone(), out.clone());
                std::thread::spawn(move || render(&spec, &out))
            })
            .collect();
        for render in renders {
            let run = render.join().unwrap();
            assert_eq!(run.code, Some(0), "{}", output(&run));
        }
        let last = snapshot(&out);
        assert!(sets.contains(&last), "after a round: a mix");
        assert_eq!(beside(&out), Vec::<String>::new());
    }
    stop.store(true, Ordering::SeqCst);
    let (samples, straddled) = observer.join().unwrap();
    let seen = seen.lock().unwrap().clone();
    eprintln!(
        "{rounds} rounds of {} concurrent renders; {samples} samples ({straddled} straddled a swap), by set: {seen:?}",
        specs.len()
    );
    assert!(samples > 10, "{samples}");
}

#[test]
fn out_with_a_trailing_slash_is_the_same_symlink() {
    let dir = scratch("link-slash");
    let real = dir.join("real");
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(&real, dir.join("link")).unwrap();
    for out in ["link", "link/", "link//"] {
        let target = format!("{}/{out}", dir.display());
        let run = render(OLD_SPEC, Path::new(&target));
        assert_eq!(run.code, Some(2), "{out}: {}", output(&run));
        assert!(run.stderr.contains("symlink"), "{}", run.stderr);
        assert_eq!(
            std::fs::read_dir(&real).unwrap().count(),
            0,
            "{out} wrote through the link"
        );
    }
}

#[test]
fn a_check_diff_of_a_hostile_file_on_disk_is_inert() {
    let out = scratch("hostile-diff");
    assert_eq!(render(OLD_SPEC, &out).code, Some(0));
    let manifest = out.join("kube-flannel.yml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replacen("\n", &format!("\n{}\n", INJECTIONS.join("\n")), 3),
    )
    .unwrap();
    let run = render_with(OLD_SPEC, &out, "--check");
    assert_eq!(run.code, Some(1), "{}", output(&run));
    // The manifest says hybridgen wrote other bytes: the file was edited by hand.
    assert!(
        run.stdout.contains("edited by hand: kube-flannel.yml"),
        "{}",
        run.stdout
    );
    assert_inert("render --check", &output(&run));
    // A render refuses it, quoting the same diff on stderr.
    let run = render(OLD_SPEC, &out);
    assert_eq!(run.code, Some(1), "{}", output(&run));
    assert!(
        run.stderr.contains("edited by hand: kube-flannel.yml"),
        "{}",
        run.stderr
    );
    assert_inert("render", &output(&run));
}

#[test]
fn the_header_never_lists_a_comparison_that_did_not_happen() {
    let mut files = healthy();
    files.get_mut("kube-flannel-cfg.json").unwrap()["data"]["net-conf.json"] = "{not json".into();
    files.get_mut("nodes.json").unwrap()["items"][2]["status"]["nodeInfo"]["kernelVersion"] =
        "garbage".into();
    let run = verify_cluster(&write_capture("header", &files), "human");
    assert_eq!(run.code, Some(1), "{}", output(&run));
    let compared = run
        .stdout
        .lines()
        .find(|line| line.trim_start().starts_with("compared:"));
    assert!(
        compared.is_some_and(|line| !line.contains("net-conf.json")),
        "{}",
        run.stdout
    );
    for note in [
        "not compared: flannel's net-conf.json: `net-conf.json` is not JSON",
        "not compared: 1 captured value of the wrong type or shape",
    ] {
        assert!(run.stdout.contains(note), "{note}:\n{}", run.stdout);
    }
}

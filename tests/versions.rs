//! The main example rendered on every Kubernetes minor of the release table from 1.24, with every
//! containerd line and Windows Server 2019, 2022 and 2025, read back: the kubelet flags, the
//! kube-proxy gates, the kubeadm API, the containerd configuration format, the kube-log-runner and
//! crictl releases and the findings are the ones the rows call for. A row added to the table is
//! rendered here too, so it cannot bring back a flag an earlier row removed, name a gate it has
//! locked, or leave the findings out of step.

use hybridgen::diagnostic::Severity;
use hybridgen::plan::pins;
use hybridgen::plan::releases::containerd::{self, ContainerdLine};
use hybridgen::plan::releases::kubernetes::{self, ContainerdOne, Gate, KubernetesRelease};
use hybridgen::plan::releases::windows;
use hybridgen::render::{Input, render_all};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

const EXAMPLE: &str = include_str!("../examples/kubeadm-1.36-vxlan-windows.yaml");

/// Windows Server 2019 (updated past every feature the table gates on a revision), 2022 and 2025.
const BUILDS: [&str; 3] = ["10.0.17763.6293", "10.0.20348.2762", "10.0.26100.6899"];

/// The first minor of the HostProcess path without dockershim.
const FIRST_MINOR: u32 = 24;

/// The minor's newest patch hybridgen knows: a `.0` may carry a bug a patch fixed (HG320).
fn release_of(row: &KubernetesRelease) -> String {
    let patch = kubernetes::newest_patch(row.minor).unwrap_or(0);
    format!("1.{}.{patch}", row.minor)
}

fn spec_text(row: &KubernetesRelease, line: &ContainerdLine, build: &str) -> String {
    let edits = [
        (
            "version: \"1.36.3\"",
            format!("version: \"{}\"", release_of(row)),
        ),
        ("build: \"10.0.20348.2762\"", format!("build: \"{build}\"")),
        ("version: 2.3.4", format!("version: {}", line.newest)),
    ];
    let mut text = EXAMPLE.to_string();
    for (from, to) in edits {
        assert_eq!(text.matches(from).count(), 1, "the example lost {from}");
        text = text.replace(from, &to);
    }
    text
}

/// What the rendering of one combination gave.
struct Rendered {
    findings: BTreeMap<&'static str, Severity>,
    files: BTreeMap<String, String>,
}

fn render(row: &KubernetesRelease, line: &ContainerdLine, build: &str) -> Rendered {
    let text = spec_text(row, line, build);
    let checked = hybridgen::pipeline::check("spec.yaml", text.into_bytes());
    let findings: BTreeMap<&'static str, Severity> = checked
        .diagnostics
        .iter()
        .map(|d| (d.code(), d.severity))
        .collect();
    let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
        panic!(
            "1.{} with containerd {}: does not plan",
            row.minor, line.newest
        );
    };
    let files = render_all(&Input { spec, plan })
        .unwrap_or_else(|error| panic!("1.{}: {}", row.minor, error.0))
        .into_iter()
        .map(|artifact| (artifact.path, artifact.contents))
        .collect();
    Rendered { findings, files }
}

/// The quoted items of a `$Name = @( ... )` list in a rendered script.
fn script_list(script: &str, name: &str) -> Vec<String> {
    let start = format!("${name} = @(");
    script
        .lines()
        .skip_while(|line| *line != start)
        .skip(1)
        .take_while(|line| *line != ")")
        .map(|line| {
            line.trim()
                .trim_end_matches(',')
                .trim_matches('\'')
                .to_string()
        })
        .collect()
}

/// The value of `$Name = '...'` in a rendered script.
fn script_value<'a>(script: &'a str, name: &str) -> &'a str {
    let start = format!("${name} = '");
    script
        .lines()
        .find_map(|line| line.strip_prefix(&start))
        .and_then(|rest| rest.strip_suffix('\''))
        .unwrap_or_else(|| panic!("no ${name}"))
}

/// The lines of the `$ContainerdConfig` here-string.
fn containerd_config(script: &str) -> Vec<&str> {
    script
        .lines()
        .skip_while(|line| *line != "$ContainerdConfig = @'")
        .skip(1)
        .take_while(|line| *line != "'@")
        .collect()
}

fn yaml(text: &str) -> Vec<serde_yaml::Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|document| serde_yaml::Value::deserialize(document).unwrap())
        .filter(|document| !document.is_null())
        .collect()
}

fn env_value(daemonset: &serde_yaml::Value, name: &str) -> String {
    daemonset["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|var| var["name"] == name)
        .and_then(|var| var["value"].as_str())
        .unwrap_or_else(|| panic!("no {name}"))
        .to_string()
}

/// HG318 as the table calls for it: containerd 1.x where the kubelet no longer supports it, or a
/// line RELEASES.md does not list for the minor while it lists a newer one. The newest patch of a
/// listed line is never below the listed one.
fn expects_hg318(row: &KubernetesRelease, line: &ContainerdLine) -> bool {
    if !line.runtime_config && row.containerd_one >= ContainerdOne::FallsBack {
        return true;
    }
    if let Some(minimum) = row.containerd.iter().find(|minimum| line.holds(minimum)) {
        assert!(line.newest >= *minimum);
        return false;
    }
    row.containerd
        .iter()
        .any(|minimum| (minimum.major, minimum.minor) > (line.major, line.minor))
}

#[test]
fn every_minor_line_and_build_renders_what_its_rows_call_for() {
    let rows: Vec<&KubernetesRelease> = kubernetes::RELEASES
        .iter()
        .filter(|row| row.minor >= FIRST_MINOR)
        .collect();
    assert_eq!(rows.len(), 14, "1.24 to 1.37");
    let mut combinations = 0;
    for row in &rows {
        let removed: BTreeSet<&str> = kubernetes::RELEASES
            .iter()
            .filter(|earlier| earlier.minor <= row.minor)
            .flat_map(|earlier| earlier.kubelet.removed_flags.iter().copied())
            .collect();
        for line in containerd::LINES {
            for build in BUILDS {
                let at = format!("1.{} / containerd {} / {build}", row.minor, line.newest);
                let rendered = render(row, line, build);
                combinations += 1;

                // The findings: only these, and never an error.
                let number: u32 = build.split('.').nth(2).unwrap().parse().unwrap();
                let mut expected = BTreeSet::new();
                if !windows::listed(number, row.minor) {
                    expected.insert("HG304");
                }
                if line.end_of_life.is_some() {
                    expected.insert("HG313");
                }
                if expects_hg318(row, line) {
                    expected.insert("HG318");
                }
                // kubernetes/kubernetes#131506 was never picked into 1.31: its in-place load
                // balancer updates keep old endpoints on Windows Server 2025 in every 1.31 patch.
                if row.minor == 31 && number == 26100 {
                    expected.insert("HG320");
                }
                let found: BTreeSet<&str> = rendered.findings.keys().copied().collect();
                assert_eq!(found, expected, "{at}: findings");
                assert!(
                    rendered.findings.values().all(|s| *s == Severity::Warning),
                    "{at}: an error"
                );

                let script = &rendered.files["windows/win-worker-0/join.ps1"];
                // The kubelet: no flag this minor or an earlier one removed, and the ones the
                // row asks for.
                let flags = script_list(script, "KubeletArguments");
                for flag in &flags {
                    let name = flag.split('=').next().unwrap();
                    assert!(!removed.contains(name), "{at}: removed flag {flag}");
                }
                let has = |prefix: &str| flags.iter().any(|flag| flag.starts_with(prefix));
                assert_eq!(
                    has("--container-runtime=remote"),
                    row.kubelet.remote_runtime_flag,
                    "{at}"
                );
                assert_eq!(
                    has("--pod-infra-container-image="),
                    row.kubelet.sandbox_image_flag,
                    "{at}"
                );
                for required in [
                    "--windows-service",
                    "--node-ip=192.168.10.30",
                    "--cgroups-per-qos=false",
                    "--enforce-node-allocatable=",
                    "--container-runtime-endpoint=npipe:////./pipe/containerd-containerd",
                ] {
                    assert!(
                        flags.iter().any(|flag| flag == required),
                        "{at}: {required}"
                    );
                }

                // containerd: the installed line, in its own configuration format.
                assert_eq!(
                    script_value(script, "ContainerdVersion"),
                    line.newest.to_string(),
                    "{at}"
                );
                let config = containerd_config(script);
                assert_eq!(
                    config[0],
                    format!("version = {}", line.config.version()),
                    "{at}"
                );
                let split = config
                    .iter()
                    .any(|l| l.contains("'io.containerd.cri.v1.runtime'.cni"));
                assert_eq!(split, line.config.split_cri(), "{at}: CRI sections");
                let bin_dirs = config
                    .iter()
                    .any(|l| l.trim_start().starts_with("bin_dirs"));
                let bin_dir = config
                    .iter()
                    .any(|l| l.trim_start().starts_with("bin_dir "));
                assert_eq!(
                    (bin_dirs, bin_dir),
                    (line.cni_bin_dirs, !line.cni_bin_dirs),
                    "{at}: one of bin_dir and bin_dirs"
                );

                // kube-log-runner rotates, from the minor's own release when it can.
                let log_runner = script_value(script, "LogRunnerVersion");
                let own = format!("v{}", release_of(row));
                assert_eq!(
                    log_runner,
                    if row.log_rotation {
                        own.as_str()
                    } else {
                        pins::ROTATING_KUBE_LOG_RUNNER
                    },
                    "{at}"
                );
                // Rotated, and flushed every few seconds: on Windows kube-log-runner otherwise
                // leaves recent lines unwritten (its README, `-flush-interval`).
                let log_runner_flags = script_list(script, "LogRunnerArguments");
                for flag in ["-log-file-size=", "-flush-interval=5s"] {
                    assert!(
                        log_runner_flags.iter().any(|given| given.starts_with(flag)),
                        "{at}: no {flag}"
                    );
                }
                assert_eq!(
                    Some(script_value(script, "CrictlVersion")),
                    row.crictl,
                    "{at}"
                );

                // kube-proxy: only gates that are off by default, never a locked or removed one.
                let proxy = yaml(&rendered.files["windows/kube-proxy-windows.yml"]);
                let gates = env_value(&proxy[0], "FEATURE_GATES");
                let stage = |gate: &str| match gate {
                    "WinOverlay" => row.win_overlay,
                    "WinDSR" => row.win_dsr,
                    other => panic!("{at}: unknown gate {other}"),
                };
                for gate in gates.split(',').filter(|gate| !gate.is_empty()) {
                    let name = gate.trim_end_matches("=true");
                    assert_eq!(stage(name), Gate::Alpha, "{at}: {gate}");
                }
                // DSR is on by default only where its gate is (beta from 1.33): an alpha gate is
                // switched on only when the spec asks (`windows.hostProcess.dsr: true`).
                assert_eq!(
                    env_value(&proxy[0], "ENABLE_DSR"),
                    (row.win_dsr != Gate::Alpha).to_string(),
                    "{at}"
                );
                assert!(!gates.contains("WinDSR"), "{at}: {gates}");

                // kubeadm: the API the minor reads, in its extraArgs form.
                let join = yaml(&rendered.files["windows/win-worker-0/kubeadm-join.yaml"]);
                assert_eq!(join[0]["apiVersion"], row.kubeadm.api.as_str(), "{at}");
                assert_eq!(
                    join[0]["nodeRegistration"]["kubeletExtraArgs"].is_sequence(),
                    row.kubeadm.api.extra_args_list(),
                    "{at}"
                );
            }
        }
    }
    assert_eq!(combinations, 14 * containerd::LINES.len() * BUILDS.len());
}

/// The same matrix, anchored to what the sources say in plain numbers, so that a wrong row is
/// caught and not only a renderer that disagrees with its row.
#[test]
fn the_rows_say_what_the_sources_say() {
    let row = |minor: u32| {
        kubernetes::RELEASES
            .iter()
            .find(|row| row.minor == minor)
            .unwrap()
    };
    let line = |major: u32, minor: u32| {
        containerd::LINES
            .iter()
            .find(|line| (line.major, line.minor) == (major, minor))
            .unwrap()
    };
    let findings =
        |minor: u32, containerd: &ContainerdLine, build: &str| -> BTreeSet<&'static str> {
            render(row(minor), containerd, build)
                .findings
                .keys()
                .copied()
                .collect()
        };
    let ws2022 = BUILDS[1];
    // Kubernetes 1.35 is the last to support containerd 1.x; 1.36 falls back (RELEASES.md lists
    // 2.3 and 2.2 only).
    // 1.7 reached its end of life in September 2026 (HG313 warns).
    assert_eq!(findings(35, line(1, 7), ws2022), BTreeSet::from(["HG313"]));
    assert_eq!(
        findings(36, line(1, 7), ws2022),
        BTreeSet::from(["HG313", "HG318"])
    );
    assert!(findings(36, line(2, 3), ws2022).is_empty());
    // 1.35 lists 2.2, 2.1 and 1.7, not 2.0; 1.33 lists 2.0.4+.
    assert_eq!(findings(35, line(2, 0), ws2022), BTreeSet::from(["HG318"]));
    assert!(findings(33, line(2, 0), ws2022).is_empty());
    // Windows Server 2019 is listed through 1.34, 2025 from 1.35.
    assert!(findings(34, line(2, 0), BUILDS[0]).is_empty());
    assert_eq!(
        findings(35, line(1, 7), BUILDS[0]),
        BTreeSet::from(["HG304", "HG313"])
    );
    assert_eq!(
        findings(34, line(2, 0), BUILDS[2]),
        BTreeSet::from(["HG304"])
    );

    let flags_of = |minor: u32| {
        let rendered = render(row(minor), line(1, 7), ws2022);
        script_list(
            &rendered.files["windows/win-worker-0/join.ps1"],
            "KubeletArguments",
        )
    };
    let sandbox = |flags: &[String]| {
        flags
            .iter()
            .any(|flag| flag.starts_with("--pod-infra-container-image"))
    };
    // The sandbox image: the newest with a variant known to run on the build (3.10 carries 1809
    // and ltsc2022; 3.10.2 adds ltsc2025).
    for (build, pause) in [
        (BUILDS[0], "registry.k8s.io/pause:3.10"),
        (BUILDS[1], "registry.k8s.io/pause:3.10"),
        (BUILDS[2], "registry.k8s.io/pause:3.10.2"),
    ] {
        let rendered = render(row(33), line(2, 0), build);
        let config = containerd_config(&rendered.files["windows/win-worker-0/join.ps1"]).join("\n");
        assert!(config.contains(&format!("'{pause}'")), "{build}: {config}");
    }
    assert!(sandbox(&flags_of(26)));
    assert!(!sandbox(&flags_of(27)));
    assert!(!sandbox(&flags_of(35)));

    let gates_of = |minor: u32| {
        let rendered = render(row(minor), line(1, 7), ws2022);
        env_value(
            &yaml(&rendered.files["windows/kube-proxy-windows.yml"])[0],
            "FEATURE_GATES",
        )
    };
    // WinDSR: alpha to 1.32 (DSR off unless asked for), beta in 1.33, locked from 1.34.
    assert_eq!(gates_of(32), "");
    // Asked for, DSR is on before 1.33 too, through the alpha gate.
    let text = spec_text(row(32), line(1, 7), ws2022).replace(
        "    registry: registry.example.com/k8s",
        "    dsr: true\n    registry: registry.example.com/k8s",
    );
    let checked = hybridgen::pipeline::check("spec.yaml", text.into_bytes());
    let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
        panic!("1.32 with dsr: true does not plan");
    };
    let files = render_all(&Input { spec, plan }).unwrap();
    let proxy = files
        .iter()
        .find(|artifact| artifact.path == "windows/kube-proxy-windows.yml")
        .unwrap();
    let proxy = &yaml(&proxy.contents)[0];
    assert_eq!(env_value(proxy, "FEATURE_GATES"), "WinDSR=true");
    assert_eq!(env_value(proxy, "ENABLE_DSR"), "true");
    assert_eq!(gates_of(33), "");
    assert_eq!(gates_of(34), "");

    let rendered = render(row(37), line(2, 3), ws2022);
    let script = &rendered.files["windows/win-worker-0/join.ps1"];
    assert_eq!(containerd_config(script)[0], "version = 4");
    assert_eq!(script_value(script, "LogRunnerVersion"), "v1.37.0");
    let join = yaml(&rendered.files["windows/win-worker-0/kubeadm-join.yaml"]);
    assert_eq!(join[0]["apiVersion"], "kubeadm.k8s.io/v1beta4");
    let rendered = render(row(30), line(2, 1), ws2022);
    let join = yaml(&rendered.files["windows/win-worker-0/kubeadm-join.yaml"]);
    assert_eq!(join[0]["apiVersion"], "kubeadm.k8s.io/v1beta3");
}

/// Without `windows.containerd.version` each minor installs its own default, which plans clean.
#[test]
fn each_minor_default_containerd_plans_clean() {
    for row in kubernetes::RELEASES
        .iter()
        .filter(|row| row.minor >= FIRST_MINOR)
    {
        let pinned = format!("    version: {}", containerd::newest().newest);
        let text: String = spec_text(row, containerd::newest(), BUILDS[1])
            .lines()
            .filter(|line| *line != "  containerd:" && !line.starts_with(&pinned))
            .map(|line| format!("{line}\n"))
            .collect();
        let checked = hybridgen::pipeline::check("spec.yaml", text.into_bytes());
        let codes: Vec<&str> = checked.diagnostics.iter().map(|d| d.code()).collect();
        // A default whose line is past its end of life is named, as a warning, and nothing else.
        let default_line = containerd::resolve(&row.default_containerd).row;
        let expected: &[&str] = if default_line.end_of_life.is_some() {
            &["HG313"]
        } else {
            &[]
        };
        assert_eq!(codes, expected, "1.{}", row.minor);
        let plan = checked.plan.unwrap();
        let windows = plan.windows.unwrap();
        assert_eq!(
            windows.containerd_version.unwrap(),
            row.default_containerd,
            "1.{}",
            row.minor
        );
    }
}

/// The containerd HG313's and HG318's help names, applied as written, plans clean on every minor
/// and line: the help never trades one finding for another (an end-of-life line for HG313).
#[test]
fn the_containerd_the_help_names_plans_clean() {
    for row in kubernetes::RELEASES
        .iter()
        .filter(|row| row.minor >= FIRST_MINOR)
    {
        for line in containerd::LINES {
            let text = spec_text(row, line, BUILDS[1]);
            let checked = hybridgen::pipeline::check("spec.yaml", text.clone().into_bytes());
            for finding in checked
                .diagnostics
                .iter()
                .filter(|d| matches!(d.code(), "HG313" | "HG318"))
            {
                let help = finding.help.as_deref().unwrap_or_default();
                let Some(named) = help
                    .strip_prefix("use containerd ")
                    .and_then(|rest| rest.split([',', ' ']).next())
                else {
                    continue;
                };
                let applied = text.replace(
                    &format!("version: {}", line.newest),
                    &format!("version: {named}"),
                );
                let again = hybridgen::pipeline::check("spec.yaml", applied.into_bytes());
                let codes: Vec<&str> = again.diagnostics.iter().map(|d| d.code()).collect();
                assert_eq!(
                    codes,
                    [] as [&str; 0],
                    "1.{} with containerd {}: the help `{help}` does not plan clean",
                    row.minor,
                    line.newest
                );
            }
        }
    }
}

/// Every description of the JSON Schema, its line breaks read as spaces.
fn schema_descriptions() -> Vec<String> {
    fn walk(value: &serde_json::Value, found: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    match value {
                        serde_json::Value::String(text) if key == "description" => {
                            found.push(text.replace('\n', " "));
                        }
                        _ => walk(value, found),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|item| walk(item, found)),
            _ => {}
        }
    }
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/hybridgen.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut found = Vec::new();
    walk(&schema, &mut found);
    found
}

/// The schema, which editors show as a field's help, states the defaults the tables use: each
/// minor's containerd (every row, and the minors after the table), the Rancher release assumed,
/// and the newest flannel. A table change that leaves the text behind fails here.
#[test]
fn the_schema_states_the_defaults_of_the_tables() {
    let mut groups: Vec<(hybridgen::plan::version::Release, u32, u32)> = Vec::new();
    for row in kubernetes::RELEASES {
        match groups.last_mut() {
            Some((default, _, last)) if *default == row.default_containerd => *last = row.minor,
            _ => groups.push((row.default_containerd, row.minor, row.minor)),
        }
    }
    // "from 1.35" covers the minors after the table too.
    assert_eq!(
        groups.last().unwrap().0,
        kubernetes::ASSUMED_AFTER_NEWEST.default_containerd
    );
    let newest = kubernetes::newest().minor;
    let phrases: Vec<String> = groups
        .iter()
        .enumerate()
        .map(|(at, (default, first, last))| match at {
            0 => format!("{default} through 1.{last}"),
            _ if *last == newest => format!("{default} from 1.{first}"),
            _ => format!("{default} on 1.{first} to 1.{last}"),
        })
        .collect();
    let (last, others) = phrases.split_last().unwrap();
    let containerd = format!(
        "Default: the Kubernetes minor's, {} and {last}",
        others.join(", ")
    );
    let rancher = format!(
        "Default: {}.",
        hybridgen::plan::rke2::DEFAULT_RANCHER_VERSION
    );
    let flannel = format!(
        "Default: the newest release hybridgen knows, {} ",
        hybridgen::plan::default_flannel_version()
    );
    let descriptions = schema_descriptions();
    for expected in [containerd, rancher, flannel] {
        assert!(
            descriptions.iter().any(|text| text.contains(&expected)),
            "no schema description says {expected:?}"
        );
    }
}

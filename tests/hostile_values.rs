//! Hostile values from a spec or a cluster reach every consumer inert: Terraform evaluates no
//! template hybridgen did not write, no cloud CLI gets a value it loads from a file or reads as
//! an option, no YAML 1.1 reader sees a line break hybridgen did not write, and no terminal, CI
//! log or code-scanning view gets a control character, line separator or bidi control, in any
//! output format. Each case is a reproducer of the security review of November 2026 or a
//! variant of one.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory for one case.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile-values")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs hybridgen with join secrets of the right shapes in the environment, for the renders
/// that still read them.
fn hybridgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .current_dir(root())
        .env("KUBEADM_TOKEN", "abcdef.0123456789abcdef")
        .env(
            "KUBEADM_CA_HASH",
            format!("sha256:{}", "0123456789abcdef".repeat(4)),
        )
        .env("RKE2_TOKEN", "hostile-values-test-token")
        .output()
        .unwrap()
}

fn example(name: &str) -> String {
    std::fs::read_to_string(root().join("examples").join(name)).unwrap()
}

/// Writes `text` as `spec.yaml` in a fresh directory; returns the spec's path and an output
/// directory beside it.
fn spec_file(name: &str, text: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let spec = dir.join("spec.yaml");
    std::fs::write(&spec, text).unwrap();
    (spec, dir.join("out"))
}

fn render(spec: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "render",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    hybridgen(&args)
}

fn assert_exit(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every file under `dir`, by path relative to it.
fn files(dir: &Path) -> Vec<(String, String)> {
    fn walk(dir: &Path, base: &Path, found: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
        entries.sort_by_key(|entry| entry.path());
        for entry in entries {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, found);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                let relative = path.strip_prefix(base).unwrap().display().to_string();
                found.push((relative, text));
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, dir, &mut found);
    found
}

/// The Terraform template sequences of a `.tf.json` file that Terraform would evaluate: a `${`
/// or `%{` not escaped by doubling its first character.
fn evaluated_templates(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for marker in ["${", "%{"] {
        let escape = &marker[..1];
        for (at, _) in text.match_indices(marker) {
            if !text[..at].ends_with(escape) {
                let end = text[at..].find('}').map_or(text.len(), |end| at + end + 1);
                found.push(text[at..end].to_string());
            }
        }
    }
    found
}

/// Characters a consumer acts on instead of showing or keeping: C0 controls but newline (tab
/// too, in one-line output), DEL, C1 controls, the Unicode line and paragraph separators and the
/// bidi controls.
fn acted_on(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{61c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

fn assert_inert(what: &str, text: &str) {
    let raw: Vec<String> = text
        .chars()
        .filter(|c| acted_on(*c))
        .map(|c| format!("U+{:04X}", u32::from(c)))
        .collect();
    assert!(raw.is_empty(), "{what} holds {raw:?} raw:\n{text}");
}

// ---------------------------------------------------------------------------------------------
// Terraform (review findings 3 and 12b)

/// The Rancher example with `rke2.config` and `rke2.serverConfig` values that are Terraform
/// templates and directives.
fn rancher_with_templates(name: &str) -> String {
    example("rancher-2.14-custom-windows.yaml")
        .replace("name: rancher-windows", &format!("name: {name}"))
        .replace(
            "\nnodes:\n",
            "\nrke2:\n  config:\n    kubelet-arg:\n      - '${file(\"/etc/passwd\")}'\n      - '%{ if true }x%{ endif }'\n  serverConfig:\n    kube-apiserver-arg:\n      - 'audit-policy-file=${file(\"/root/.ssh/id_rsa\")}'\n\nnodes:\n",
        )
}

#[test]
fn rke2_config_values_reach_rancher_terraform_as_literals() {
    let (spec, out) = spec_file("rancher-config", &rancher_with_templates("rancher-windows"));
    assert_exit(&render(&spec, &out, &[]), 0);
    let text = std::fs::read_to_string(out.join("rancher/cluster.tf.json")).unwrap();
    for template in evaluated_templates(&text) {
        assert!(
            template.starts_with(
                "${rancher2_cluster_v2.rancher-windows.cluster_registration_token[0]."
            ),
            "Terraform would evaluate {template}:\n{text}"
        );
    }
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let rke = &document["resource"]["rancher2_cluster_v2"]["rancher-windows"]["rke_config"][0];
    let global = rke["machine_global_config"].as_str().unwrap();
    assert!(global.contains("$${file(\\\"/etc/passwd\\\")}"), "{global}");
    assert!(global.contains("%%{ if true }x%%{ endif }"), "{global}");
    for selector in rke["machine_selector_config"].as_array().unwrap() {
        let config = selector["config"].as_str().unwrap();
        assert!(
            config.contains("audit-policy-file=$${file(\\\"/root/.ssh/id_rsa\\\")}"),
            "{config}"
        );
    }
    // The Cluster object is no Terraform file: the same values stay as written there.
    let cluster = std::fs::read_to_string(out.join("rancher/cluster.yaml")).unwrap();
    assert!(
        cluster.contains("\"${file(\\\"/etc/passwd\\\")}\""),
        "{cluster}"
    );
}

#[test]
fn a_cluster_name_that_closes_the_reference_stays_a_literal_when_hg007_is_allowed() {
    let name = "x.id}${file(\"/etc/hostname\")}${rancher2_cluster_v2.x";
    let text = rancher_with_templates(&format!("'{name}'"));
    let (spec, out) = spec_file("rancher-name", &text);
    assert_exit(&render(&spec, &out, &["--allow", "HG007"]), 0);
    let text = std::fs::read_to_string(out.join("rancher/cluster.tf.json")).unwrap();
    let resource = "x_id___file___etc_hostname_____rancher2_cluster_v2_x";
    for template in evaluated_templates(&text) {
        assert!(
            template.starts_with(&format!(
                "${{rancher2_cluster_v2.{resource}.cluster_registration_token[0]."
            )),
            "Terraform would evaluate {template}:\n{text}"
        );
    }
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cluster = &document["resource"]["rancher2_cluster_v2"][resource];
    assert_eq!(
        cluster["name"],
        "x.id}$${file(\"/etc/hostname\")}$${rancher2_cluster_v2.x"
    );
}

#[test]
fn a_cluster_name_starting_with_a_digit_gives_a_terraform_identifier() {
    let text = example("rancher-2.14-custom-windows.yaml")
        .replace("name: rancher-windows", "name: 1st-cluster");
    let (spec, out) = spec_file("rancher-digit", &text);
    assert_exit(&render(&spec, &out, &[]), 0);
    let text = std::fs::read_to_string(out.join("rancher/cluster.tf.json")).unwrap();
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let clusters = document["resource"]["rancher2_cluster_v2"]
        .as_object()
        .unwrap();
    assert_eq!(clusters.keys().collect::<Vec<_>>(), ["_1st-cluster"]);
    assert_eq!(clusters["_1st-cluster"]["name"], "1st-cluster");
    let output = document["output"]["register_linux_master"]["value"]
        .as_str()
        .unwrap();
    assert!(
        output.starts_with(
            "${rancher2_cluster_v2._1st-cluster.cluster_registration_token[0].node_command} "
        ),
        "{output}"
    );
}

// ---------------------------------------------------------------------------------------------
// Cloud identifiers (review finding 4)

/// A host-gw AWS spec whose first node's instance ID is `instance`.
fn aws_spec(instance: &str) -> String {
    std::fs::read_to_string(
        root().join("tests/fixtures/valid/HG403-host-gw-aws-every-node-with-instanceid.yaml"),
    )
    .unwrap()
    .replace(
        "instanceId: i-0a1b2c3d4e5f00001",
        &format!("instanceId: '{instance}'"),
    )
}

const LOADED_BY_A_CLI: [&str; 6] = [
    "file:///home/admin/.aws/credentials",
    "fileb:///home/admin/.aws/credentials",
    "https://attacker.example/id",
    "http://attacker.example/id",
    "@/home/admin/.azure/msal_token_cache.json",
    "--debug",
];

#[test]
fn cloud_identifiers_a_cli_would_load_are_errors_in_every_format() {
    for (index, instance) in LOADED_BY_A_CLI.iter().enumerate() {
        let (spec, out) = spec_file(&format!("aws-{index}"), &aws_spec(instance));
        for format in ["human", "json", "sarif", "github"] {
            let output = hybridgen(&[
                "plan",
                spec.to_str().unwrap(),
                "--format",
                format,
                "--color",
                "never",
            ]);
            assert_exit(&output, 1);
            let stdout = String::from_utf8(output.stdout).unwrap();
            assert!(stdout.contains("HG406"), "{format} {instance}:\n{stdout}");
        }
        // Allowed, the finding goes, but no command of routes/aws.sh gets the value.
        let rendered = render(&spec, &out, &["--allow", "HG406"]);
        assert_ne!(rendered.status.code(), Some(0), "{instance}");
        assert!(
            String::from_utf8_lossy(&rendered.stderr).contains("cloud.instanceId"),
            "{}",
            String::from_utf8_lossy(&rendered.stderr)
        );
        assert!(!out.join("routes/aws.sh").exists(), "{instance}");
    }
}

#[test]
fn azure_and_gce_names_a_cli_would_load_are_errors() {
    let azure = std::fs::read_to_string(
        root().join("tests/fixtures/valid/HG403-host-gw-azure-every-node-with-nic.yaml"),
    )
    .unwrap();
    let gce = std::fs::read_to_string(
        root().join("tests/fixtures/valid/HG403-host-gw-gce-every-node-with-zone.yaml"),
    )
    .unwrap();
    let cases = [
        (
            "azure-group",
            azure.replace("resourceGroup: hybrid-rg", "resourceGroup: '@/etc/shadow'"),
            "/cloud/azure/resourceGroup",
        ),
        (
            "azure-table",
            azure.replace("routeTableName: hybrid-pods", "routeTableName: '-h'"),
            "/cloud/azure/routeTableName",
        ),
        (
            "azure-nic",
            azure.replace("nic: win-0-nic", "nic: 'file:///etc/shadow'"),
            "/nodes/2/cloud/nic",
        ),
        (
            "gce-project",
            gce.replace(
                "project: my-project",
                "project: '--impersonate-service-account=x'",
            ),
            "/cloud/gce/project",
        ),
        (
            "gce-network",
            gce.replace("network: default", "network: 'https://attacker.example/n'"),
            "/cloud/gce/network",
        ),
        (
            "gce-zone",
            gce.replacen("zone: us-central1-a", "zone: '@zone'", 1),
            "/nodes/0/cloud/zone",
        ),
    ];
    for (name, text, pointer) in cases {
        assert_ne!(text, azure, "{name}: the case changed nothing");
        let (spec, out) = spec_file(name, &text);
        let output = hybridgen(&["plan", spec.to_str().unwrap(), "--format", "json"]);
        assert_exit(&output, 1);
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let found: Vec<String> = report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "HG406")
            .map(|d| d["path"].as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(found, [pointer], "{name}: {report:#}");
        let rendered = render(&spec, &out, &["--allow", "HG406"]);
        assert_ne!(rendered.status.code(), Some(0), "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// YAML and JSON line breaks (review finding 5)

const SEPARATED: &str = "\"v=2\\n\u{2028}server: https://203.0.113.66:9345\\n\u{2029}token-file: /dev/null\u{85}agent-token: x\u{202e}\"";

#[test]
fn line_separators_in_rke2_config_never_reach_a_file_raw() {
    // `networkName` is not read on RKE2 (HG604 warns) but reaches plan.json.
    let standalone = example("rke2-1.35-flannel-windows.yaml")
        .replace(
            "\nrke2:\n",
            &format!("\nrke2:\n  config:\n    kubelet-arg:\n      - {SEPARATED}\n"),
        )
        .replace(
            "\nwindows:\n",
            "  networkName: \"cbr0\\u2028x: y\\u202e\"\nwindows:\n",
        );
    let rancher = example("rancher-2.14-custom-windows.yaml").replace(
        "\nnodes:\n",
        &format!("\nrke2:\n  config:\n    kubelet-arg:\n      - {SEPARATED}\n\nnodes:\n"),
    );
    for (name, text, file) in [
        ("rke2-separators", standalone, "rke2/server-0/config.yaml"),
        ("rancher-separators", rancher, "rancher/cluster.yaml"),
    ] {
        let (spec, out) = spec_file(name, &text);
        assert_exit(&render(&spec, &out, &[]), 0);
        let rendered = files(&out);
        assert!(
            rendered.iter().any(|(path, _)| path == file),
            "{name}: no {file}"
        );
        for (path, text) in &rendered {
            assert_inert(path, text);
        }
        if name == "rke2-separators" {
            let plan = std::fs::read_to_string(out.join("plan.json")).unwrap();
            assert!(
                plan.contains("\"networkName\": \"cbr0\\u2028x: y\\u202e\""),
                "{plan}"
            );
        }
        let config = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(
            config.contains("\\u2028server: https://203.0.113.66:9345\\n\\u2029token-file: /dev/null\\u0085agent-token: x\\u202e"),
            "{config}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Reports (review findings 7 and 12c)

#[test]
fn spec_values_reach_every_report_format_escaped() {
    let text = example("rancher-2.14-custom-windows.yaml")
        .replace(
            "url: https://rancher.example.com",
            "url: \"https://r.example/\\e]52;c;ZWNobyBwd25lZA==\\a\\u202e\\u2028\\u200f\"",
        )
        .replace(
            "  backend: vxlan",
            "  backend: vxlan\n  networkName: \"cbr0\\e]0;pwned-title\\a\\e[2J\\e[8m\\u2028\\u061c\\u2066\\x85\"",
        );
    let (spec, _) = spec_file("report-values", &text);
    for format in ["human", "json", "sarif", "github"] {
        let output = hybridgen(&[
            "plan",
            spec.to_str().unwrap(),
            "--format",
            format,
            "--color",
            "never",
        ]);
        assert_exit(&output, 1);
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_inert(format, &stdout);
        if format == "human" {
            assert!(stdout.contains("Windows network `cbr0\\e]0;pwned-title\\x07\\e[2J\\e[8m\\u{2028}\\u{61c}\\u{2066}\\u{85}`"), "{stdout}");
            assert!(stdout.contains("nodes register with Rancher https://r.example/\\e]52;c;ZWNobyBwd25lZA==\\x07\\u{202e}\\u{2028}\\u{200f}"), "{stdout}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// rancher.url (review findings 9 and 12e)

#[test]
fn rancher_urls_over_http_or_with_user_information_are_errors_unless_allowed() {
    for url in [
        "http://rancher.example.com",
        "https://rancher.corp.example@attacker.example",
    ] {
        let text = example("rancher-2.14-custom-windows.yaml")
            .replace("url: https://rancher.example.com", &format!("url: {url}"));
        let (spec, out) = spec_file("rancher-url", &text);
        for format in ["human", "json", "sarif", "github"] {
            let output = hybridgen(&[
                "plan",
                spec.to_str().unwrap(),
                "--format",
                format,
                "--color",
                "never",
            ]);
            assert_exit(&output, 1);
            assert!(
                String::from_utf8_lossy(&output.stdout).contains("HG610"),
                "{format} {url}"
            );
        }
        assert_exit(&render(&spec, &out, &[]), 1);
        assert!(!out.join("rancher").exists(), "{url}");
        // A lab without TLS, deliberately.
        assert_exit(
            &hybridgen(&["plan", spec.to_str().unwrap(), "--allow", "HG610"]),
            0,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// assign.sh (review finding 13)

#[test]
fn assign_sh_shows_what_the_cluster_returns_escaped() {
    let fixture = root().join("tests/fixtures/render/kubeadm-1.33-pod-cidrs-from-the-plan.yaml");
    let dir = scratch("assign");
    let out = dir.join("out");
    assert_exit(&render(&fixture, &out, &[]), 0);
    let script = std::fs::read_to_string(out.join("pod-cidrs/assign.sh")).unwrap();
    let planned: Vec<&str> = script
        .lines()
        .filter_map(|line| line.strip_prefix("  '"))
        .filter_map(|line| line.strip_suffix('\''))
        .collect();
    assert!(!planned.is_empty(), "{script}");
    // A hostile API server (or proxy, or $KUBECTL) answers every node with another subnet
    // carrying terminal escapes.
    let mut listing = String::new();
    for entry in &planned {
        let node = entry.split(' ').next().unwrap();
        listing.push_str(&format!(
            "{node} 10.9.9.0/24\x1b]0;pwned\x07\x1b[2J\u{202e}\n"
        ));
    }
    let kubectl = dir.join("kubectl");
    std::fs::write(
        &kubectl,
        format!("#!/usr/bin/env bash\nprintf '%s' '{listing}'\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = Command::new("bash")
        .arg(out.join("pod-cidrs/assign.sh"))
        .env("KUBECTL", &kubectl)
        .output()
        .unwrap();
    assert_exit(&output, 1);
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(shown.contains("holds $'10.9.9.0/24"), "{shown}");
    assert_inert("assign.sh output", &shown);
}

// ---------------------------------------------------------------------------------------------
// Captures (review finding 12c)

#[test]
fn capture_values_reach_every_report_format_escaped() {
    // The healthy capture with a node the spec does not declare (the HG501 case), named with a
    // bidi override, a line separator, a right-to-left mark and an escape (JSON escapes, so the
    // file itself is plain).
    let fixtures = root().join("tests/fixtures/verify");
    let capture = scratch("capture");
    for entry in std::fs::read_dir(fixtures.join("healthy"))
        .unwrap()
        .flatten()
    {
        std::fs::copy(entry.path(), capture.join(entry.file_name())).unwrap();
    }
    let nodes =
        std::fs::read_to_string(fixtures.join("HG501-node-missing-and-undeclared/nodes.json"))
            .unwrap()
            .replace(
                "\"name\": \"linux-worker-9\"",
                "\"name\": \"linux-worker-9\\u202e\\u2028\\u200f\\u001b[2J\"",
            );
    assert!(nodes.contains("\\u202e"), "the capture was not changed");
    std::fs::write(capture.join("nodes.json"), nodes).unwrap();
    for format in ["human", "json", "sarif", "github"] {
        let output = hybridgen(&[
            "verify",
            "examples/kubeadm-1.36-vxlan-windows.yaml",
            "--cluster",
            capture.to_str().unwrap(),
            "--format",
            format,
            "--color",
            "never",
        ]);
        assert_exit(&output, 1);
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(stdout.contains("linux-worker-9"), "{format}:\n{stdout}");
        assert_inert(format, &stdout);
        assert_inert(format, &String::from_utf8_lossy(&output.stderr));
    }
}

// ---------------------------------------------------------------------------------------------
// Route Terraform, with HG406 deliberately allowed

#[test]
fn an_allowed_template_in_a_cloud_setting_stays_a_literal_in_terraform() {
    let text = std::fs::read_to_string(
        root().join("tests/fixtures/valid/HG403-host-gw-azure-every-node-with-nic.yaml"),
    )
    .unwrap()
    .replace(
        "resourceGroup: hybrid-rg",
        "resourceGroup: 'rg-${file(\"/etc/passwd\")}-%{if true}x%{endif}'",
    );
    let (spec, out) = spec_file("azure-template", &text);
    let planned = hybridgen(&["plan", spec.to_str().unwrap(), "--format", "json"]);
    assert_exit(&planned, 1);
    assert!(String::from_utf8_lossy(&planned.stdout).contains("HG406"));
    assert_exit(&render(&spec, &out, &["--allow", "HG406"]), 0);
    let terraform = std::fs::read_to_string(out.join("routes/azure.tf.json")).unwrap();
    assert_eq!(
        evaluated_templates(&terraform),
        Vec::<String>::new(),
        "{terraform}"
    );
    assert!(
        terraform.contains("rg-$${file(\\\"/etc/passwd\\\")}-%%{if true}x%%{endif}"),
        "{terraform}"
    );
    // The script passes it as one quoted word.
    let script = std::fs::read_to_string(out.join("routes/azure.sh")).unwrap();
    assert!(
        script.contains("--resource-group 'rg-${file(\"/etc/passwd\")}-%{if true}x%{endif}'"),
        "{script}"
    );
}

#[test]
fn templates_write_line_separators_escaped_even_with_hg007_allowed() {
    // RKE1's cluster-network.yml takes the DNS domain through the templates' `tojson`.
    let text = example("terraform-azure-walkthrough.yaml").replace(
        "  distribution: rke",
        "  dnsDomain: \"cluster.local\\u2028cluster_dns_server: 203.0.113.66\\u202e\"\n  distribution: rke",
    );
    let (spec, out) = spec_file("rke1-dns-domain", &text);
    assert_exit(&render(&spec, &out, &["--allow", "HG007"]), 0);
    for (path, text) in files(&out) {
        assert_inert(&path, &text);
    }
    let network = std::fs::read_to_string(out.join("rke/cluster-network.yml")).unwrap();
    assert!(
        network.contains(
            "cluster_domain: \"cluster.local\\u2028cluster_dns_server: 203.0.113.66\\u202e\""
        ),
        "{network}"
    );
}

// ---------------------------------------------------------------------------------------------
// Spec values in the comments of rendered YAML

/// A network name with line breaks, its HG314 allowed: the comments of the rendered manifests
/// that name it keep it on their own line, so it never becomes a YAML key of its own.
#[test]
fn a_network_name_with_line_breaks_stays_inside_the_comments_that_name_it() {
    let text = example("kubeadm-1.36-vxlan-windows.yaml").replacen(
        "  backend: vxlan",
        "  backend: vxlan\n  networkName: \"evil\\nkind: Secret\\u2028x\"  # hybridgen: allow HG314 -- test",
        1,
    );
    let (spec, out) = spec_file("network-name-lines", &text);
    assert_exit(&render(&spec, &out, &[]), 0);
    let proxy = std::fs::read_to_string(out.join("windows/kube-proxy-windows.yml")).unwrap();
    assert!(
        proxy.contains("# `evil\\nkind: Secret\\u{2028}x` flanneld creates"),
        "{proxy}"
    );
    for entry in walk(&out) {
        let written = std::fs::read_to_string(&entry).unwrap_or_default();
        assert!(
            !written.lines().any(|line| line.starts_with("kind: Secret")),
            "{}",
            entry.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

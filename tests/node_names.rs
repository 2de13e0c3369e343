//! Node names are DNS-1123 subdomains, as clouds register nodes
//! (`ip-10-0-0-1.eu-west-1.compute.internal` on AWS): every example plans and renders with such
//! names, its per-node files land under the name, and the Terraform names derived from it stay
//! valid (https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-subdomain-names).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DOMAIN: &str = ".eu-west-1.compute.internal";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn hybridgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(args)
        .current_dir(root())
        .env("KUBEADM_TOKEN", "abcdef.0123456789abcdef")
        .env(
            "KUBEADM_CA_HASH",
            format!("sha256:{}", "0123456789abcdef".repeat(4)),
        )
        .env("RKE2_TOKEN", "node-names-test-token")
        .output()
        .unwrap()
}

/// The example with every node's name qualified by [`DOMAIN`]; its path and the new names.
fn qualified(example: &str, case: &str) -> (PathBuf, PathBuf, Vec<String>) {
    let path = if example.contains('/') {
        root().join(example)
    } else {
        root().join("examples").join(example)
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut names = Vec::new();
    let mut lines = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("  - name: ") {
            let (name, comment) = match rest.split_once('#') {
                Some((name, comment)) => (name.trim(), format!("  #{comment}")),
                None => (rest.trim(), String::new()),
            };
            let name = format!("{name}{DOMAIN}");
            lines.push(format!("  - name: {name}{comment}"));
            names.push(name);
        } else {
            lines.push(line.to_string());
        }
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("node-names")
        .join(case)
        .join(example.trim_end_matches(".yaml").replace('/', "_"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = dir.join("spec.yaml");
    std::fs::write(&spec, lines.join("\n") + "\n").unwrap();
    (spec, dir.join("out"), names)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn assert_ok(output: &Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        stdout(output),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, found);
            } else {
                found.push(path.strip_prefix(base).unwrap().display().to_string());
            }
        }
    }
    let mut found = Vec::new();
    walk(dir, dir, &mut found);
    found.sort();
    found
}

/// Terraform's identifier grammar: a letter or `_`, then letters, digits, `_` and `-`.
fn terraform_identifier(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The names a `.tf.json` document declares: resource, data and output labels.
fn terraform_names(document: &Value) -> Vec<String> {
    let mut names = Vec::new();
    if let Some(outputs) = document["output"].as_object() {
        names.extend(outputs.keys().cloned());
    }
    for block in ["resource", "data"] {
        if let Some(types) = document[block].as_object() {
            for resources in types.values() {
                if let Some(resources) = resources.as_object() {
                    names.extend(resources.keys().cloned());
                }
            }
        }
    }
    names
}

#[test]
fn qualified_node_names_plan_and_render_in_every_example() {
    // The examples and whether each Windows node gets files of its own (RKE1 writes none).
    for (example, per_node) in [
        ("kubeadm-1.36-vxlan-windows.yaml", true),
        ("kubeadm-vxlan-windows.yaml", true),
        ("rke2-1.35-flannel-windows.yaml", true),
        ("rancher-2.14-custom-windows.yaml", true),
        ("rancher-2.14-terraform-azure.yaml", true),
        ("rancher-gce-host-gw.yaml", false),
        ("tests/fixtures/render/aws-host-gw.yaml", false),
    ] {
        let (spec, out, names) = qualified(example, "every-example");
        assert!(names.len() >= 3, "{example}");
        let plan = hybridgen(&["plan", spec.to_str().unwrap(), "--format", "json"]);
        assert!(
            !stdout(&plan).contains("HG007"),
            "{example}: {}",
            stdout(&plan)
        );
        let render = hybridgen(&[
            "render",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_ok(&render);
        let written = files(&out);
        let windows = names
            .iter()
            .filter(|name| per_node && name.starts_with("win"));
        for name in windows {
            assert!(
                written
                    .iter()
                    .any(|file| file.contains(&format!("/{name}/"))),
                "{example}: no file of {name} in {written:?}"
            );
        }
        for file in written.iter().filter(|file| file.ends_with(".tf.json")) {
            let text = std::fs::read_to_string(out.join(file)).unwrap();
            let document: Value = serde_json::from_str(&text).unwrap();
            for name in terraform_names(&document) {
                assert!(terraform_identifier(&name), "{example}: {file}: {name}");
            }
        }
    }
}

#[test]
fn a_node_name_longer_than_a_label_value_is_refused_with_that_reason() {
    let (spec, _, _) = qualified("rke2-1.35-flannel-windows.yaml", "long-name");
    let text = std::fs::read_to_string(&spec).unwrap().replace(
        &format!("win-agent-1{DOMAIN}"),
        &format!("win-agent-1-with-a-name-longer-than-a-label-value{DOMAIN}"),
    );
    std::fs::write(&spec, text).unwrap();
    let plan = hybridgen(&["plan", spec.to_str().unwrap(), "--format", "json"]);
    let report = stdout(&plan);
    assert!(report.contains("HG007"), "{report}");
    assert!(report.contains("kubernetes.io/hostname"), "{report}");
    assert!(!report.contains("not a DNS-1123"), "{report}");
}

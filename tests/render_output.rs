//! `render`'s output options, as `plan` has them: `-q` prints errors only, `--format json` one
//! document on standard output whatever the outcome, `--color` colours the findings.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const SPEC: &str = "examples/kubeadm-vxlan-windows.yaml";

/// host-gw on AWS with controller-allocated subnets: render warns HG117 (predicted subnets).
const HOST_GW: &str = "apiVersion: hybridgen/v1
kind: Cluster
metadata:
  name: demo
kubernetes:
  version: \"1.16.2\"
network:
  clusterCidr: 10.244.0.0/16
  serviceCidr: 10.96.0.0/12
flannel:
  version: v0.11.0
  backend: host-gw
windows:
  build: \"10.0.17763.1554\"
  runtime: dockerd
cloud:
  provider: aws
  aws:
    region: us-east-1
    routeTableId: rtb-0a1b2c3d
nodes:
  - name: control-0
    os: linux
    roles: [controlplane, etcd, worker]
    address: 192.168.10.10
    cloud:
      instanceId: i-0a1b2c30
  - name: win-0
    os: windows
    roles: [worker]
    address: 192.168.10.30
    cloud:
      instanceId: i-0a1b2c31
";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("render-output")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn render(spec: &Path, out: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .current_dir(root())
        .env_remove("NO_COLOR")
        .arg("render")
        .arg(spec)
        .arg("--out")
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn quiet_prints_nothing_when_all_went_well() {
    let out = scratch("quiet").join("deploy");
    let spec = root().join(SPEC);
    for args in [&["-q"][..], &["-q"], &["--check", "--quiet"]] {
        let run = render(&spec, &out, args);
        assert_eq!(run.code, Some(0), "{args:?}: {}{}", run.stdout, run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
        assert_eq!(run.stderr, "", "{args:?}");
    }
    // A stale file is an error: still said.
    std::fs::remove_file(out.join("plan.json")).unwrap();
    let run = render(&spec, &out, &["--check", "-q"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stdout.contains("missing: plan.json"), "{}", run.stdout);

    // Warnings are not errors: `-q` leaves them out.
    let dir = scratch("quiet-warnings");
    std::fs::write(dir.join("spec.yaml"), HOST_GW).unwrap();
    let run = render(&dir.join("spec.yaml"), &dir.join("deploy"), &["-q"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let run = render(&dir.join("spec.yaml"), &dir.join("deploy"), &[]);
    assert!(run.stderr.contains("HG117"), "{}", run.stderr);
}

#[test]
fn json_is_one_document_whatever_the_outcome() {
    let out = scratch("json").join("deploy");
    let spec = root().join(SPEC);
    let run = render(&spec, &out, &["--format", "json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let document: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(document["outcome"], "clean");
    assert_eq!(document["check"], false);
    let files = document["files"].as_array().unwrap();
    assert!(
        files
            .iter()
            .any(|file| file["path"] == "plan.json" && file["status"] == "written"),
        "{document}"
    );

    let config = out.join("kubeadm/kubeadm-config.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replacen("10.96.0.10", "10.96.0.11", 1)).unwrap();
    for args in [&["--format", "json", "--check"][..], &["--format", "json"]] {
        let run = render(&spec, &out, args);
        assert_eq!(run.code, Some(1), "{args:?}");
        let document: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(document["outcome"], "errors", "{document}");
        let edited = &document["files"][0];
        assert_eq!(edited["path"], "kubeadm/kubeadm-config.yaml", "{document}");
        assert_eq!(edited["status"], "handEdited", "{document}");
        assert!(
            edited["diff"].as_str().unwrap().contains("10.96.0.11"),
            "{document}"
        );
    }

    // A spec with errors: the findings are in the document.
    let dir = scratch("json-errors");
    std::fs::write(
        dir.join("spec.yaml"),
        HOST_GW.replace("clusterCidr: 10.244.0.0/16", "clusterCidr: 10.244.0.0/33"),
    )
    .unwrap();
    let run = render(
        &dir.join("spec.yaml"),
        &dir.join("deploy"),
        &["--format=json"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let document: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(document["outcome"], "errors");
    let codes: Vec<&Value> = document["findings"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| &finding["code"])
        .collect();
    assert!(codes.contains(&&Value::from("HG004")), "{document}");
}

#[test]
fn color_colours_the_findings_when_asked() {
    let dir = scratch("color");
    std::fs::write(dir.join("spec.yaml"), HOST_GW).unwrap();
    let spec = dir.join("spec.yaml");
    let always = render(&spec, &dir.join("deploy"), &["--color", "always"]);
    assert!(always.stderr.contains("\u{1b}["), "{}", always.stderr);
    let never = render(&spec, &dir.join("deploy"), &["--color=never"]);
    assert!(never.stderr.contains("HG117"), "{}", never.stderr);
    assert!(!never.stderr.contains('\u{1b}'), "{}", never.stderr);
}

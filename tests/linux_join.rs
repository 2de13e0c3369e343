//! The Linux workers' `kubeadm/<node>/join.sh`, run in a sandbox with a stub `kubeadm` first on
//! PATH: it writes the node's JoinConfiguration from the environment, hands it to `kubeadm join`,
//! and refuses a malformed token before anything runs.

use hybridgen::render::{Input, render_all};
use std::path::Path;
use std::process::Command;

const TOKEN: &str = "q1w2e3.r4t5y6u7i8o9p0a1";
const CA_HASH: &str = "sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

fn join_script() -> String {
    let spec = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kubeadm-1.36-vxlan-windows.yaml"),
    )
    .unwrap();
    let checked = hybridgen::pipeline::check("spec.yaml", spec);
    let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
        panic!("the example does not plan");
    };
    let input = Input { spec, plan };
    let artifacts = render_all(&input).unwrap();
    let script = artifacts
        .iter()
        .find(|artifact| artifact.path == "kubeadm/linux-worker-0/join.sh")
        .expect("a join script for the Linux worker");
    assert!(!script.contents.contains(TOKEN));
    script.contents.clone()
}

/// Runs the script with a stub `kubeadm` that copies the configuration it is given.
fn run(script: &str, token: &str) -> (bool, String) {
    let sandbox = std::env::temp_dir().join(format!(
        "hybridgen-linux-join-{}-{}",
        std::process::id(),
        token.len()
    ));
    let _ = std::fs::remove_dir_all(&sandbox);
    std::fs::create_dir_all(sandbox.join("bin")).unwrap();
    let stub = sandbox.join("bin/kubeadm");
    std::fs::write(
        &stub,
        format!("#!/bin/sh\ncp \"$3\" '{}/given.yaml'\n", sandbox.display()),
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&stub).status().unwrap();
    std::fs::write(sandbox.join("join.sh"), script).unwrap();
    let path = format!(
        "{}:{}",
        sandbox.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = Command::new("bash")
        .arg(sandbox.join("join.sh"))
        .env("PATH", path)
        .env("KUBEADM_TOKEN", token)
        .env("KUBEADM_CA_HASH", CA_HASH)
        .status()
        .unwrap();
    let given = std::fs::read_to_string(sandbox.join("given.yaml")).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&sandbox);
    (status.success(), given)
}

#[test]
fn the_linux_worker_joins_with_its_name_and_address() {
    let (ok, given) = run(&join_script(), TOKEN);
    assert!(ok);
    let config: serde_yaml::Value = serde_yaml::from_str(&given).unwrap();
    assert_eq!(config["kind"], "JoinConfiguration");
    assert_eq!(config["discovery"]["bootstrapToken"]["token"], TOKEN);
    assert_eq!(
        config["discovery"]["bootstrapToken"]["caCertHashes"][0],
        CA_HASH
    );
    assert_eq!(
        config["discovery"]["bootstrapToken"]["apiServerEndpoint"],
        "192.168.10.10:6443"
    );
    assert_eq!(config["nodeRegistration"]["name"], "linux-worker-0");
    assert_eq!(
        config["nodeRegistration"]["kubeletExtraArgs"][0]["value"],
        "192.168.10.20"
    );
}

#[test]
fn a_malformed_token_stops_the_script_before_kubeadm_runs() {
    let (ok, given) = run(&join_script(), "not-a-token");
    assert!(!ok);
    assert!(given.is_empty());
}

use super::*;
use crate::render::render_all;
use crate::spec::Spec;
use serde::Deserialize;
use std::collections::BTreeMap;

fn spec_text(extra: &str) -> String {
    format!(
        "{}rancher: {{url: \"https://rancher.example.com/\", version: \"2.14.4\"}}\n{extra}",
        crate::render::rke2::tests::SPEC
    )
}

fn render(text: &str) -> BTreeMap<String, String> {
    let spec: Spec = serde_yaml::from_str(text).unwrap();
    let plan = Plan::build(&spec);
    render_all(&Input {
        spec: &spec,
        plan: &plan,
    })
    .unwrap()
    .into_iter()
    .map(|artifact| (artifact.path, artifact.contents))
    .collect()
}

fn yaml(text: &str) -> serde_yaml::Value {
    serde_yaml::Value::deserialize(serde_yaml::Deserializer::from_str(text)).unwrap()
}

#[test]
fn rancher_replaces_the_standalone_files() {
    let paths: Vec<String> = render(&spec_text("")).into_keys().collect();
    assert_eq!(
        paths,
        [
            "README.md",
            "plan.json",
            "rancher/cluster.tf.json",
            "rancher/cluster.yaml",
            "rancher/linux-0/register.sh",
            "rancher/server-0/register.sh",
            "rancher/server-1/register.sh",
            "rancher/win-0/register.ps1",
            "routes/routes.json",
        ]
    );
}

#[test]
fn the_cluster_object_writes_flannel_and_the_chart_values() {
    let files = render(&spec_text(""));
    let cluster = yaml(&files[CLUSTER_PATH]);
    assert_eq!(cluster["apiVersion"], "provisioning.cattle.io/v1");
    assert_eq!(cluster["metadata"]["namespace"], FLEET_NAMESPACE);
    assert_eq!(cluster["spec"]["kubernetesVersion"], "v1.31.4+rke2r1");
    let rke = &cluster["spec"]["rkeConfig"];
    let global = &rke["machineGlobalConfig"];
    assert_eq!(global["cni"], "flannel", "Rancher would default to calico");
    assert_eq!(global["cluster-cidr"], "10.42.0.0/16");
    assert_eq!(global["cluster-dns"], "10.43.0.10");
    for per_node in ["node-ip", "node-name", "token", "server", "node-taint"] {
        assert!(global.get(per_node).is_none(), "{per_node} is Rancher's");
    }
    let flannel = &rke["chartValues"]["rke2-flannel"]["flannel"];
    assert_eq!(flannel["vni"], 4096);
    assert_eq!(flannel["backendPort"], 4789);
    // The Linux flanneld is bound to the planned Linux addresses, as on the standalone path:
    // RKE2 binds only the Windows one (rancher/rke2 pkg/windows/flannel.go).
    let args: Vec<&str> = flannel["args"]
        .as_sequence()
        .expect("flanneld's arguments")
        .iter()
        .map(|arg| arg.as_str().unwrap())
        .collect();
    assert_eq!(args[..2], ["--ip-masq", "--kube-subnet-mgr"]);
    assert!(
        args[2].starts_with("--iface-regex=^(192\\.168\\.10\\.10|"),
        "{args:?}"
    );
    assert!(rke.get("machineSelectorConfig").is_none());
}

#[test]
fn server_keys_are_selected_by_either_server_role() {
    let files = render(&spec_text(
        "rke2: {serverConfig: {etcd-snapshot-retention: 10}}\n",
    ));
    let cluster = yaml(&files[CLUSTER_PATH]);
    let selectors = cluster["spec"]["rkeConfig"]["machineSelectorConfig"]
        .as_sequence()
        .unwrap();
    let labels: Vec<String> = selectors
        .iter()
        .map(|entry| {
            let labels = entry["machineLabelSelector"]["matchLabels"]
                .as_mapping()
                .unwrap();
            assert_eq!(entry["config"]["etcd-snapshot-retention"], "10");
            labels.keys().next().unwrap().as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(labels, SERVER_ROLE_LABELS);
    let terraform: Value = serde_json::from_str(&files[TERRAFORM_PATH]).unwrap();
    let rke = &terraform["resource"]["rancher2_cluster_v2"]["hybrid"]["rke_config"][0];
    assert_eq!(rke["machine_selector_config"].as_array().unwrap().len(), 2);
    assert_eq!(
        yaml(
            rke["machine_selector_config"][0]["config"]
                .as_str()
                .unwrap()
        )["etcd-snapshot-retention"],
        "10"
    );
}

#[test]
fn terraform_is_the_same_cluster_with_each_nodes_command() {
    let files = render(&spec_text(""));
    let terraform: Value = serde_json::from_str(&files[TERRAFORM_PATH]).unwrap();
    assert_eq!(
        terraform["terraform"]["required_providers"]["rancher2"]["version"],
        "~> 14.0"
    );
    let resource = &terraform["resource"]["rancher2_cluster_v2"]["hybrid"];
    assert_eq!(resource["kubernetes_version"], "v1.31.4+rke2r1");
    let cluster = yaml(&files[CLUSTER_PATH]);
    let rke = &resource["rke_config"][0];
    assert_eq!(
        yaml(rke["machine_global_config"].as_str().unwrap()),
        cluster["spec"]["rkeConfig"]["machineGlobalConfig"]
    );
    assert_eq!(
        yaml(rke["chart_values"].as_str().unwrap()),
        cluster["spec"]["rkeConfig"]["chartValues"]
    );
    let output = |name: &str| {
        terraform["output"][name]["value"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        output("register_server_0"),
        "${rancher2_cluster_v2.hybrid.cluster_registration_token[0].node_command} --etcd --controlplane --node-name 'server-0' --internal-address 192.168.10.10"
    );
    assert_eq!(
        output("register_win_0"),
        "${rancher2_cluster_v2.hybrid.cluster_registration_token[0].windows_node_command} -NodeName 'win-0' -InternalAddress 192.168.10.30"
    );
    assert_eq!(terraform["output"]["register_win_0"]["sensitive"], true);
}

#[test]
fn provider_lines_follow_rancher() {
    let line = |version: &str| {
        let files = render(&spec_text("").replace("2.14.4", version));
        let terraform: Value = serde_json::from_str(&files[TERRAFORM_PATH]).unwrap();
        terraform["terraform"]["required_providers"]["rancher2"]["version"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(line("2.9.3"), "~> 5.0");
    assert_eq!(line("2.12.1"), "~> 8.0");
    assert_eq!(line("2.13.0"), "~> 13.0");
}

#[test]
fn registration_scripts_take_the_token_at_run_time() {
    let files = render(&spec_text(""));
    let linux = &files["rancher/server-0/register.sh"];
    assert!(linux.contains("--token \"$CATTLE_TOKEN\""));
    assert!(linux.contains(
        "args+=(--etcd --controlplane --node-name 'server-0' --internal-address 192.168.10.10)"
    ));
    assert!(linux.contains("curl -fL 'https://rancher.example.com/system-agent-install.sh' | sudo sh -s - \"${args[@]}\""));
    let worker = &files["rancher/linux-0/register.sh"];
    assert!(worker.contains("args+=(--worker --node-name 'linux-0'"));
    let windows = &files["rancher/win-0/register.ps1"];
    assert!(windows.contains("Token = $env:CATTLE_TOKEN"));
    assert!(windows.contains("InternalAddress = '192.168.10.30'"));
    assert!(windows.contains("Worker = $true"));
    for (path, text) in &files {
        assert!(!text.contains("<unset:"), "{path} waits for a secret");
    }
}

#[test]
fn windows_registration_enables_containers_and_stops_when_the_installer_fails() {
    let files = render(&spec_text(""));
    let windows = &files["rancher/win-0/register.ps1"];
    let feature = windows
        .find("Enable-WindowsOptionalFeature -Online -FeatureName Containers")
        .expect("the Containers feature is enabled");
    let install = windows.find("& $installer @arguments").unwrap();
    assert!(
        feature < install,
        "the feature comes before Rancher's installer"
    );
    let after = &windows[install..];
    assert!(
        after.contains("if ($LASTEXITCODE -ne 0) { throw"),
        "the installer's exit code is checked:\n{after}"
    );
    let before = &windows[..install];
    assert!(before.ends_with("$global:LASTEXITCODE = 0\n"), "{before}");
}

#[test]
fn numbers_reach_rancher_as_strings() {
    let files = render(&spec_text(
        "rke2:\n  config:\n    lb-server-port: 6444\n    debug: true\n  serverConfig:\n    etcd-snapshot-retention: 10\n",
    ));
    let cluster = yaml(&files["rancher/cluster.yaml"]);
    let rke = &cluster["spec"]["rkeConfig"];
    assert_eq!(rke["machineGlobalConfig"]["lb-server-port"], "6444");
    assert_eq!(rke["machineGlobalConfig"]["debug"], true);
    let selectors = rke["machineSelectorConfig"].as_sequence().unwrap();
    assert!(
        selectors
            .iter()
            .any(|entry| entry["config"]["etcd-snapshot-retention"] == "10")
    );
    let terraform = &files["rancher/cluster.tf.json"];
    assert!(
        terraform.contains("lb-server-port: \\\"6444\\\""),
        "{terraform}"
    );
}

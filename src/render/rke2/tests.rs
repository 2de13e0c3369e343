use super::*;
use crate::plan::Plan;
use crate::render::render_all;
use serde::Deserialize;
use std::collections::BTreeMap;

pub(crate) const SPEC: &str = r#"
apiVersion: hybridgen/v1
kind: Cluster
metadata: {name: hybrid}
kubernetes: {version: "1.31.4", distribution: rke2}
network: {clusterCidr: 10.42.0.0/16, serviceCidr: 10.43.0.0/16}
flannel: {backend: vxlan}
windows: {build: "10.0.20348.2762"}
nodes:
  - {name: server-0, os: linux, roles: [controlplane, etcd], address: 192.168.10.10}
  - {name: server-1, os: linux, roles: [controlplane, etcd, worker], address: 192.168.10.11}
  - {name: linux-0, os: linux, roles: [worker], address: 192.168.10.20}
  - {name: win-0, os: windows, roles: [worker], address: 192.168.10.30}
"#;

fn render(text: &str) -> BTreeMap<String, Artifact> {
    let spec: Spec = serde_yaml::from_str(text).unwrap();
    let plan = Plan::build(&spec);
    render_all(&Input {
        spec: &spec,
        plan: &plan,
    })
    .unwrap()
    .into_iter()
    .map(|artifact| (artifact.path.clone(), artifact))
    .collect()
}

fn yaml(artifact: &Artifact) -> serde_yaml::Value {
    serde_yaml::Value::deserialize(serde_yaml::Deserializer::from_str(&artifact.contents)).unwrap()
}

fn keys(value: &serde_yaml::Value) -> Vec<String> {
    value
        .as_mapping()
        .unwrap()
        .keys()
        .map(|key| key.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn only_rke2_files_and_the_shared_ones_are_rendered() {
    let paths: Vec<String> = render(SPEC).into_keys().collect();
    assert_eq!(
        paths,
        [
            "README.md",
            "plan.json",
            "rke2/linux-0/config.yaml",
            "rke2/linux-0/install.sh",
            "rke2/manifests/rke2-flannel-config.yaml",
            "rke2/server-0/config.yaml",
            "rke2/server-0/install.sh",
            "rke2/server-1/config.yaml",
            "rke2/server-1/install.sh",
            "rke2/win-0/config.yaml",
            "rke2/win-0/install.ps1",
            "routes/routes.json",
        ]
    );
}

#[test]
fn servers_carry_the_cluster_and_agents_only_their_node() {
    let files = render(SPEC);
    let first = yaml(&files["rke2/server-0/config.yaml"]);
    assert_eq!(first["cni"], "flannel");
    assert_eq!(first["cluster-cidr"], "10.42.0.0/16");
    assert_eq!(first["service-cidr"], "10.43.0.0/16");
    assert_eq!(first["cluster-dns"], "10.43.0.10");
    assert_eq!(first["cluster-domain"], "cluster.local");
    // Its own address is in its certificate already; the second server's names the address
    // agents join through.
    assert!(first.get("tls-san").is_none(), "{first:?}");
    let second = yaml(&files["rke2/server-1/config.yaml"]);
    assert_eq!(second["tls-san"][0], "192.168.10.10");
    assert_eq!(first["token-file"], "/etc/rancher/rke2/join-token");
    assert!(
        first.get("token").is_none(),
        "no rendered file holds the token"
    );
    assert!(
        first.get("server").is_none(),
        "the first server joins nobody"
    );
    // Without the worker role no workload is scheduled there; flannel still is.
    assert_eq!(
        first["node-taint"][0],
        "node-role.kubernetes.io/control-plane:NoSchedule"
    );
    let second = yaml(&files["rke2/server-1/config.yaml"]);
    assert_eq!(second["server"], "https://192.168.10.10:9345");
    assert!(second.get("node-taint").is_none());
    // The critical values are the same on every server.
    for key in [
        "cni",
        "cluster-cidr",
        "service-cidr",
        "cluster-dns",
        "cluster-domain",
    ] {
        assert_eq!(first[key], second[key], "{key}");
    }
    let windows = yaml(&files["rke2/win-0/config.yaml"]);
    assert_eq!(
        keys(&windows),
        ["node-ip", "node-name", "server", "token-file"],
        "an agent file holds no server-only key"
    );
    assert_eq!(windows["node-ip"], "192.168.10.30");
    assert_eq!(windows["node-name"], "win-0");
    assert_eq!(windows["token-file"], r"C:\etc\rancher\rke2\join-token");
}

#[test]
fn the_chart_values_follow_the_release() {
    let values = |version: &str| {
        let files = render(&SPEC.replace("\"1.31.4\"", &format!("\"{version}\"")));
        let object = yaml(&files[MANIFEST_PATH]);
        assert_eq!(object["metadata"]["name"], "rke2-flannel");
        assert_eq!(object["metadata"]["namespace"], "kube-system");
        let content = object["spec"]["valuesContent"]
            .as_str()
            .unwrap()
            .to_string();
        serde_yaml::Value::deserialize(serde_yaml::Deserializer::from_str(&content)).unwrap()
    };
    let current = values("1.31.4");
    assert_eq!(current["flannel"]["backend"], "vxlan");
    // Linux flanneld announces the interface holding the planned address, not the default route's.
    let args: Vec<&str> = current["flannel"]["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|arg| arg.as_str().unwrap())
        .collect();
    assert_eq!(args[..2], ["--ip-masq", "--kube-subnet-mgr"]);
    let regex = args[2].strip_prefix("--iface-regex=").unwrap();
    assert!(regex.contains(r"192\.168\.10\.10"), "{regex}");
    assert!(!regex.contains("30"), "no Windows address: {regex}");
    assert_eq!(current["flannel"]["vni"], 4096);
    assert_eq!(current["flannel"]["backendPort"], 4789);
    // The February 2024 chart reads the VXLAN port from another key (rancher/rke2-charts #424).
    let february = values("1.29.2");
    assert_eq!(february["flannel"]["vxlanBackendPort"], 4789);
    assert!(february["flannel"].get("backendPort").is_none());
    // The April 2024 chart defaults the VNI to 1: the value is written all the same.
    assert_eq!(values("1.29.4")["flannel"]["vni"], 4096);
}

#[test]
fn plan_decided_flags_and_extra_keys_reach_their_files() {
    let text = SPEC.replace(
        "serviceCidr: 10.43.0.0/16}",
        "serviceCidr: 10.43.0.0/16, nodeCidrMaskSize: 25, maxPodsPerNode: 100, podCidrs: hybridgen}",
    ) + "rke2:\n  config: {kubelet-arg: [image-gc-high-threshold=85], protect-kernel-defaults: true}\n  serverConfig: {etcd-snapshot-retention: 10}\n";
    let files = render(&text);
    let server = yaml(&files["rke2/server-0/config.yaml"]);
    assert_eq!(
        server["kube-controller-manager-arg"],
        serde_yaml::to_value(["node-cidr-mask-size-ipv4=25", "allocate-node-cidrs=false"]).unwrap()
    );
    assert_eq!(
        server["kubelet-arg"],
        serde_yaml::to_value(["max-pods=100", "image-gc-high-threshold=85"]).unwrap()
    );
    assert_eq!(server["etcd-snapshot-retention"], 10);
    let agent = yaml(&files["rke2/linux-0/config.yaml"]);
    assert_eq!(agent["protect-kernel-defaults"], true);
    assert!(agent.get("etcd-snapshot-retention").is_none());
    assert!(agent.get("kube-controller-manager-arg").is_none());
    assert!(files.contains_key("pod-cidrs/assign.sh"));
}

#[test]
fn split_roles_turn_components_off_and_etcd_starts_the_cluster() {
    let text = SPEC
        .replace(
            "{name: server-0, os: linux, roles: [controlplane, etcd]",
            "{name: server-0, os: linux, roles: [controlplane]",
        )
        .replace(
            "{name: server-1, os: linux, roles: [controlplane, etcd, worker]",
            "{name: server-1, os: linux, roles: [etcd]",
        );
    let files = render(&text);
    let control_plane = yaml(&files["rke2/server-0/config.yaml"]);
    assert_eq!(control_plane["disable-etcd"], true);
    // It joins the etcd server, never itself; agents join the control plane.
    assert_eq!(control_plane["server"], "https://192.168.10.11:9345");
    let agent = yaml(&files["rke2/linux-0/config.yaml"]);
    assert_eq!(agent["server"], "https://192.168.10.10:9345");
    let etcd = yaml(&files["rke2/server-1/config.yaml"]);
    for component in ["apiserver", "controller-manager", "scheduler"] {
        assert_eq!(etcd[format!("disable-{component}").as_str()], true);
    }
    assert!(
        etcd.get("server").is_none(),
        "the etcd server starts the cluster"
    );
}

#[test]
fn install_scripts_name_the_release_and_the_node_kind() {
    let files = render(SPEC);
    let server = &files["rke2/server-0/install.sh"].contents;
    assert!(server.contains("INSTALL_RKE2_VERSION='v1.31.4+rke2r1' INSTALL_RKE2_TYPE=server sh -"));
    assert!(server.contains("/var/lib/rancher/rke2/server/manifests/rke2-flannel-config.yaml"));
    assert!(server.contains("install -d -m 0755 /etc/rancher/rke2\n"));
    assert!(server.contains("systemctl enable rke2-server.service\n"));
    let agent = &files["rke2/linux-0/install.sh"].contents;
    assert!(agent.contains("INSTALL_RKE2_TYPE=agent"));
    assert!(!agent.contains("manifests"), "agents deploy no manifest");
    let windows = &files["rke2/win-0/install.ps1"].contents;
    assert!(windows.contains("$version = 'v1.31.4+rke2r1'"));
    assert!(windows.contains("& $installer -Version $version\nif ($LASTEXITCODE -ne 0) { throw"));
    assert!(windows.contains("Restart-Service -Name rke2"));
    assert!(windows.contains("rke2.exe agent service --add"));
    assert!(windows.contains("[Environment]::GetEnvironmentVariable('RKE2_TOKEN')"));
    assert!(
        windows.contains(r"[IO.File]::WriteAllText('C:\etc\rancher\rke2\join-token', $JoinToken)")
    );
    assert!(server.contains("join_token=${RKE2_TOKEN-}"));
    assert!(server.contains("printf '%s\\n' \"$join_token\" > /etc/rancher/rke2/join-token"));
}

#[test]
fn no_rendered_file_holds_the_token_and_no_kubeadm_file_is_written() {
    let text = SPEC.replace(
        "flannel: {backend: vxlan}",
        "flannel: {backend: vxlan}\nrke2: {token: \"K10inline::server:s3cr3t\"}",
    );
    let files = render(&text);
    for (path, artifact) in &files {
        assert!(!artifact.contents.contains("s3cr3t"), "{path}");
        assert!(!artifact.contents.contains("<unset"), "{path}");
        assert!(
            !path.starts_with("windows/")
                && !path.starts_with("kubeadm/")
                && path != "kube-flannel.yml",
            "{path}"
        );
    }
    // An inline value is never used: the scripts read the default variable.
    assert!(
        files["rke2/linux-0/install.sh"]
            .contents
            .contains("${RKE2_TOKEN-}")
    );
}

#[test]
fn every_rke2_flannel_chart_tolerates_the_dedicated_server_taint() {
    use crate::plan::releases::rke2::{CHART_LINES, taint_tolerated};
    for line in &CHART_LINES {
        let tolerations = line.tolerations;
        assert_eq!(
            taint_tolerated(tolerations, DEDICATED_SERVER_TAINT),
            Some(true)
        );
        // The taint docs.rke2.io gives dedicated servers (for canal) keeps flannel off.
        assert_eq!(
            taint_tolerated(tolerations, "CriticalAddonsOnly=true:NoExecute"),
            Some(false)
        );
    }
}

/// The server's install.sh run in bash with stub commands first on `PATH` (never for real): a
/// re-run restarts a running service only when config.yaml changed, and starts it otherwise.
#[test]
fn a_rerun_restarts_rke2_only_when_its_config_changed() {
    use std::os::unix::fs::PermissionsExt;
    let files = render(SPEC);
    let dir = std::env::temp_dir().join(format!("hybridgen-rke2-rerun-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (bin, node) = (dir.join("bin"), dir.join("rke2/server-0"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&node).unwrap();
    let script = node.join("install.sh");
    // The one write the stubs cannot catch (the token file's `printf >`) goes to the sandbox.
    let etc = dir.join("etc");
    std::fs::create_dir_all(&etc).unwrap();
    let text = files["rke2/server-0/install.sh"]
        .contents
        .replace("/etc/rancher/rke2", etc.to_str().unwrap());
    assert!(!text.contains("/etc/rancher"), "{text}");
    std::fs::write(&script, text).unwrap();
    std::fs::write(node.join("config.yaml"), "node-name: server-0\n").unwrap();
    let log = dir.join("log");
    // Every command the script reaches logs itself and succeeds; `cmp` answers whether the
    // config is the installed one, `systemctl is-active` that the service runs.
    let stub = |name: &str, body: &str| {
        let path = bin.join(name);
        std::fs::write(
            &path,
            format!(
                "#!/bin/bash\necho \"{name} $*\" >> '{}'\n{body}\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    for name in ["install", "curl", "sh", "systemctl"] {
        stub(name, "exit 0");
    }
    let run = |config_unchanged: bool| {
        stub("cmp", if config_unchanged { "exit 0" } else { "exit 1" });
        let _ = std::fs::remove_file(&log);
        let output = std::process::Command::new("/bin/bash")
            .arg(&script)
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("RKE2_TOKEN", "K10abc::server:secret")
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let ran = std::fs::read_to_string(&log).unwrap();
        ran.lines()
            .filter(|line| line.starts_with("systemctl"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        run(false),
        [
            "systemctl enable rke2-server.service",
            "systemctl is-active --quiet rke2-server.service",
            "systemctl restart rke2-server.service",
        ]
    );
    assert_eq!(
        run(true),
        [
            "systemctl enable rke2-server.service",
            "systemctl start rke2-server.service",
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

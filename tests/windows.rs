//! The Windows HostProcess path (Kubernetes 1.24 and later), read back from what `render` writes,
//! for every example and render fixture that takes it: the one network name, VNI, port and ranges
//! agree across the Windows CNI config, kube-proxy, the DaemonSets and the shared net-conf; no
//! Windows object can break the Linux flannel DaemonSet, in every flannel manifest flavour; the
//! new example's Windows files are reviewed snapshots; `--check` holds for them.

use hybridgen::render::{Artifact, Input, render_all};
use serde::Deserialize;
use serde_json::Value as Json;
use serde_yaml::Value as Yaml;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every example and render fixture, rendered with test secrets; only those on the HostProcess
/// path (they write `windows/kube-proxy-windows.yml`).
fn hostprocess_renders() -> Vec<(String, BTreeMap<String, String>)> {
    let mut specs: Vec<PathBuf> = ["examples", "tests/fixtures/render"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root().join(dir)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    specs.sort();
    let mut renders = Vec::new();
    for path in specs {
        let checked = hybridgen::pipeline::check("spec.yaml", std::fs::read(&path).unwrap());
        let (Some(spec), Some(plan)) = (&checked.spec, &checked.plan) else {
            panic!("{} does not plan", path.display());
        };
        let artifacts = render_all(&Input { spec, plan })
            .unwrap_or_else(|error| panic!("{}: {}", path.display(), error.0));
        let files: BTreeMap<String, String> = artifacts
            .into_iter()
            .map(|Artifact { path, contents, .. }| (path, contents))
            .collect();
        if files.contains_key("windows/kube-proxy-windows.yml") {
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            renders.push((name, files));
        }
    }
    assert!(
        renders.len() >= 8,
        "only {} HostProcess specs",
        renders.len()
    );
    renders
}

fn documents(text: &str) -> Vec<Yaml> {
    serde_yaml::Deserializer::from_str(text)
        .map(|document| Yaml::deserialize(document).unwrap())
        .filter(|document| !document.is_null())
        .collect()
}

fn object<'a>(documents: &'a [Yaml], kind: &str, name: &str) -> &'a Yaml {
    documents
        .iter()
        .find(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

fn text<'a>(value: &'a Yaml, what: &str) -> &'a str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{what} is not a string: {value:?}"))
}

/// The container's environment: name → literal value.
fn env(daemonset: &Yaml) -> BTreeMap<String, String> {
    daemonset["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|var| {
            Some((
                text(&var["name"], "env name").to_string(),
                var["value"].as_str()?.to_string(),
            ))
        })
        .collect()
}

#[test]
fn one_network_name_vni_port_and_ranges_everywhere() {
    for (name, files) in hostprocess_renders() {
        let plan: Json = serde_json::from_str(&files["plan.json"]).unwrap();
        let linux = documents(&files["kube-flannel.yml"]);
        let net_conf: Json = serde_json::from_str(text(
            &object(&linux, "ConfigMap", "kube-flannel-cfg")["data"]["net-conf.json"],
            "net-conf.json",
        ))
        .unwrap();
        let windows = documents(&files["windows/kube-flannel-windows.yml"]);
        let cni: Json = serde_json::from_str(text(
            &object(&windows, "ConfigMap", "kube-flannel-windows-cfg")["data"]["cni-conf.json"],
            "cni-conf.json",
        ))
        .unwrap();
        let proxy = documents(&files["windows/kube-proxy-windows.yml"]);
        let proxy_env = env(object(&proxy, "DaemonSet", "kube-proxy-windows"));
        let flannel_env = env(object(&windows, "DaemonSet", "kube-flannel-ds-windows"));

        // The HNS network flanneld on Windows creates: Backend.Name, else flannel.<VNI> (vxlan) or
        // cbr0 (host-gw).
        let backend = &net_conf["Backend"];
        let vxlan = backend["Type"] == "vxlan";
        let flanneld_network = match (backend["Name"].as_str(), vxlan) {
            (Some(set), _) => set.to_string(),
            (None, true) => format!("flannel.{}", backend["VNI"]),
            (None, false) => "cbr0".to_string(),
        };
        assert_eq!(cni["name"], flanneld_network.as_str(), "{name}: CNI name");
        assert_eq!(
            proxy_env["KUBE_NETWORK"], flanneld_network,
            "{name}: KUBE_NETWORK"
        );
        assert_eq!(
            plan["flannel"]["networkName"],
            flanneld_network.as_str(),
            "{name}: plan"
        );

        // Windows flannel requires VNI >= 4096 and UDP 4789, written out for Linux to match.
        if vxlan {
            assert!(backend["VNI"].as_u64().unwrap() >= 4096, "{name}: VNI");
            assert_eq!(backend["Port"], 4789, "{name}: Port");
            assert_eq!(
                backend["VNI"], plan["flannel"]["vni"],
                "{name}: VNI vs plan"
            );
            assert_eq!(
                proxy_env["SOURCE_VIP"], "true",
                "{name}: overlay needs a source VIP"
            );
        } else {
            assert_eq!(proxy_env["SOURCE_VIP"], "false", "{name}");
        }

        // The ranges: net-conf Network, the CNI exceptions and Service route, kube-proxy's
        // cluster CIDR, all from the plan.
        let (cluster, service) = (
            plan["network"]["clusterCidr"].as_str().unwrap(),
            plan["network"]["serviceCidr"].as_str().unwrap(),
        );
        assert_eq!(net_conf["Network"], cluster, "{name}: Network");
        assert_eq!(proxy_env["CLUSTER_CIDR"], cluster, "{name}: CLUSTER_CIDR");
        let delegate = &cni["plugins"][0]["delegate"];
        assert_eq!(
            delegate["type"],
            if vxlan { "sdnoverlay" } else { "sdnbridge" }
        );
        let policies = delegate["AdditionalArgs"].as_array().unwrap();
        let of_type = |kind: &str| {
            policies
                .iter()
                .find(|p| p["Value"]["Type"] == kind)
                .unwrap_or_else(|| panic!("{name}: no {kind}"))
        };
        assert_eq!(
            of_type("OutBoundNAT")["Value"]["Settings"]["Exceptions"],
            serde_json::json!([cluster, service]),
            "{name}: OutBoundNAT exceptions"
        );
        let route = &of_type("SDNRoute")["Value"]["Settings"];
        assert_eq!(route["DestinationPrefix"], service, "{name}: Service route");
        assert_eq!(route["NeedEncap"], true);
        let version = cni["cniVersion"].as_str().unwrap();
        assert!(
            hybridgen::plan::pins::WINDOWS_CNI_VERSIONS.contains(&version),
            "{name}: cniVersion {version} is not one the bundled sdnoverlay/sdnbridge accept"
        );

        // With kube-proxy DSR on, the delegate lets a pod reach a Service it backs itself.
        let dsr = proxy_env["ENABLE_DSR"] == "true";
        assert_eq!(
            delegate["optionalFlags"]["loopbackDSR"].as_bool(),
            dsr.then_some(true),
            "{name}: loopbackDSR"
        );

        // On a cloud, kube-proxy's start script restores the routes to its link-local services:
        // the metadata service everywhere, and on AWS also KMS, Time Sync and DNS.
        let routes: Vec<&str> = proxy_env["METADATA_ROUTES"]
            .split(',')
            .filter(|route| !route.is_empty())
            .collect();
        match plan["cloud"].as_str().unwrap() {
            "none" => assert!(routes.is_empty(), "{name}: {routes:?}"),
            "aws" => {
                assert!(routes.contains(&"169.254.169.254/32"), "{name}");
                assert!(routes.contains(&"169.254.169.123/32"), "{name}: Time Sync");
                assert!(routes.contains(&"169.254.169.250/32"), "{name}: KMS");
            }
            _ => assert_eq!(routes, ["169.254.169.254/32"], "{name}"),
        }

        // flanneld reaches the API server where the nodes join it, not through the Service;
        // kube-proxy reads kubeadm's kubeconfig and is given no endpoint.
        let join = documents(
            &files[&files
                .keys()
                .find(|path| path.ends_with("/kubeadm-join.yaml"))
                .unwrap()
                .clone()],
        );
        let endpoint = text(
            &join[0]["discovery"]["bootstrapToken"]["apiServerEndpoint"],
            "endpoint",
        );
        assert_eq!(
            format!(
                "{}:{}",
                flannel_env["KUBERNETES_SERVICE_HOST"], flannel_env["KUBERNETES_SERVICE_PORT"]
            ),
            endpoint,
            "{name}: API endpoint"
        );
        assert!(
            !proxy_env.contains_key("KUBERNETES_SERVICE_HOST"),
            "{name}: kube-proxy is given an endpoint it does not read"
        );

        // Each node's address comes from the node (the kubelet's --node-ip, the planned address),
        // so the DaemonSets name no node: adding one touches nothing cluster-wide.
        for daemonset in [
            object(&windows, "DaemonSet", "kube-flannel-ds-windows"),
            object(&proxy, "DaemonSet", "kube-proxy-windows"),
        ] {
            let host_ip = daemonset["spec"]["template"]["spec"]["containers"][0]["env"]
                .as_sequence()
                .unwrap()
                .iter()
                .find(|var| var["name"] == "NODE_IP")
                .unwrap_or_else(|| panic!("{name}: no NODE_IP"));
            assert_eq!(
                host_ip["valueFrom"]["fieldRef"]["fieldPath"],
                "status.hostIP"
            );
        }
        for node in plan["nodes"].as_array().unwrap() {
            if node["os"] != "windows" {
                continue;
            }
            let node_name = node["name"].as_str().unwrap();
            let address = node["address"].as_str().unwrap();
            let script = &files[&format!("windows/{node_name}/join.ps1")];
            assert!(
                script.contains(&format!("'--node-ip={address}'")),
                "{name}: {node_name}'s kubelet registers its planned address"
            );
            for manifest in [
                "windows/kube-flannel-windows.yml",
                "windows/kube-proxy-windows.yml",
            ] {
                assert!(
                    !files[manifest].contains(address),
                    "{name}: {manifest} names {node_name}'s address"
                );
            }
        }
    }
}

/// The start scripts turn those settings into the arguments: kube-proxy's network name, cluster
/// CIDR and source VIP from the DaemonSet's environment, flanneld's interface from the address
/// the kubelet registered; both read their token under the sandbox mount point, which holds it in
/// both containerd mount layouts.
#[test]
fn the_start_scripts_use_the_rendered_settings() {
    let (_, files) = hostprocess_renders().swap_remove(0);
    let proxy = &files["windows/images/kube-proxy/start.ps1"];
    for needle in [
        "$network = $env:KUBE_NETWORK",
        "\"--network-name=$network\"",
        "\"--cluster-cidr=$env:CLUSTER_CIDR\"",
        "if ($env:SOURCE_VIP -eq 'true')",
        "\"--source-vip=$vip\"",
        "'--proxy-mode=kernelspace'",
        "\"--hostname-override=$env:NODE_NAME\"",
    ] {
        assert!(
            proxy.contains(needle),
            "kube-proxy start.ps1 lacks {needle}"
        );
    }
    let flannel = &files["windows/images/flannel/start.ps1"];
    for needle in [
        "$address = $env:NODE_IP",
        "\"--iface=$address\"",
        "--kube-subnet-mgr",
        "$account = \"$mount/var/run/secrets/kubernetes.io/serviceaccount\"",
        "tokenFile = \"$account/token\"",
        "\"--kubeconfig-file=$kubeconfig\"",
    ] {
        assert!(flannel.contains(needle), "flannel start.ps1 lacks {needle}");
    }
    assert!(
        !flannel.contains("Ethernet"),
        "no adapter name is hard-coded"
    );
    // In-cluster configuration would read the token at /var/run/secrets itself, which only the
    // bind-mount layout provides.
    for script in [flannel, proxy] {
        for line in script
            .lines()
            .filter(|line| line.contains("/var/run/secrets"))
        {
            assert!(
                line.trim_start().starts_with('#') || line.contains("$mount/var/run/secrets"),
                "reads the token outside the sandbox: {line}"
            );
        }
    }
}

/// What kubeadm's kube-proxy DaemonSet selects and labels (kubernetes
/// `cmd/kubeadm/app/phases/addons/proxy/manifests.go`).
const KUBEADM_KUBE_PROXY_LABELS: [(&str, &str); 1] = [("k8s-app", "kube-proxy")];

fn labels(value: &Yaml) -> BTreeMap<String, String> {
    value
        .as_mapping()
        .map(|mapping| {
            mapping
                .iter()
                .map(|(k, v)| (text(k, "label").to_string(), text(v, "label").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

fn selects(selector: &BTreeMap<String, String>, pod: &BTreeMap<String, String>) -> bool {
    selector
        .iter()
        .all(|(key, value)| pod.get(key) == Some(value))
}

fn identity(document: &Yaml) -> (String, String, String) {
    (
        document["kind"].as_str().unwrap_or_default().to_string(),
        document["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        document["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

#[test]
fn no_windows_object_can_break_the_linux_flannel_daemonset() {
    let mut layouts = std::collections::BTreeSet::new();
    for (name, files) in hostprocess_renders() {
        let linux = documents(&files["kube-flannel.yml"]);
        let mut windows = documents(&files["windows/kube-flannel-windows.yml"]);
        windows.extend(documents(&files["windows/kube-proxy-windows.yml"]));

        let linux_ids: Vec<_> = linux.iter().map(identity).collect();
        for document in &windows {
            let (kind, namespace, object_name) = identity(document);
            assert!(
                !linux_ids.iter().any(|(k, n, o)| *k == kind
                    && *o == object_name
                    && (n.is_empty() || *n == namespace)),
                "{name}: {kind} {namespace}/{object_name} is also in kube-flannel.yml"
            );
            assert!(
                matches!(kind.as_str(), "ConfigMap" | "DaemonSet"),
                "{name}: the Windows manifests create a {kind}; RBAC, ServiceAccounts and namespaces belong to kube-flannel.yml and kubeadm"
            );
        }

        let linux_daemonsets: Vec<&Yaml> =
            linux.iter().filter(|d| d["kind"] == "DaemonSet").collect();
        let windows_daemonsets: Vec<&Yaml> = windows
            .iter()
            .filter(|d| d["kind"] == "DaemonSet")
            .collect();
        let kubeadm_proxy: BTreeMap<String, String> = KUBEADM_KUBE_PROXY_LABELS
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut linux_pods: Vec<(BTreeMap<String, String>, BTreeMap<String, String>)> =
            linux_daemonsets
                .iter()
                .map(|ds| {
                    (
                        labels(&ds["spec"]["selector"]["matchLabels"]),
                        labels(&ds["spec"]["template"]["metadata"]["labels"]),
                    )
                })
                .collect();
        linux_pods.push((kubeadm_proxy.clone(), kubeadm_proxy));
        for ds in &windows_daemonsets {
            let selector = labels(&ds["spec"]["selector"]["matchLabels"]);
            let pod = labels(&ds["spec"]["template"]["metadata"]["labels"]);
            assert!(
                !selector.is_empty() && selects(&selector, &pod),
                "{name}: selector matches own pods"
            );
            for (linux_selector, linux_pod) in &linux_pods {
                assert!(
                    !selects(linux_selector, &pod),
                    "{name}: a Linux selector {linux_selector:?} matches Windows pods {pod:?}"
                );
                assert!(
                    !selects(&selector, linux_pod),
                    "{name}: the Windows selector {selector:?} matches Linux pods {linux_pod:?}"
                );
            }
        }

        // The Windows flannel DaemonSet lives in the Linux manifest's namespace and uses its
        // ServiceAccount and net-conf.
        let flannel_ds = object(&windows, "DaemonSet", "kube-flannel-ds-windows");
        let namespace = text(&flannel_ds["metadata"]["namespace"], "namespace");
        let linux_ds = linux_daemonsets[0];
        assert_eq!(
            linux_ds["metadata"]["namespace"], namespace,
            "{name}: namespace"
        );
        let account = text(
            &flannel_ds["spec"]["template"]["spec"]["serviceAccountName"],
            "account",
        );
        assert!(
            linux.iter().any(|d| d["kind"] == "ServiceAccount"
                && d["metadata"]["name"] == account
                && d["metadata"]["namespace"] == namespace),
            "{name}: ServiceAccount {account} is not in kube-flannel.yml"
        );
        let net_conf = object(&linux, "ConfigMap", "kube-flannel-cfg");
        assert_eq!(net_conf["metadata"]["namespace"], namespace);
        assert!(net_conf["data"]["net-conf.json"].is_string());
        layouts.insert((namespace.to_string(), linux_daemonsets.len()));
    }
    // Every flannel manifest flavour: per-arch DaemonSets in kube-system (before v0.13), one in
    // kube-system (v0.13-v0.18), one in kube-flannel (v0.19 on).
    assert_eq!(
        layouts,
        [
            ("kube-flannel".to_string(), 1),
            ("kube-system".to_string(), 1),
            ("kube-system".to_string(), 5)
        ]
        .into_iter()
        .collect(),
    );
}

#[test]
fn the_new_example_windows_files_are_stable() {
    let (_, files) = hostprocess_renders()
        .into_iter()
        .find(|(name, _)| name == "kubeadm-1.36-vxlan-windows")
        .unwrap();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (path, contents) in files
            .iter()
            .filter(|(path, _)| path.starts_with("windows/") || path == &"kube-flannel.yml")
        {
            let name = format!(
                "render@kubeadm-1.36-vxlan-windows@{}",
                path.replace('/', "__")
            );
            insta::assert_snapshot!(name, contents);
        }
    });
}

/// `"$name: text"` is a parse error in PowerShell (a drive-qualified variable with no name after
/// the colon), which no syntax check of the script sees until the line runs: every rendered
/// script writes `${name}:` instead.
#[test]
fn no_script_puts_a_colon_right_after_a_variable() {
    const SCOPES: [&str; 7] = [
        "env", "script", "global", "local", "private", "using", "variable",
    ];
    let mut scripts = 0;
    for (name, files) in hostprocess_renders() {
        for (path, contents) in files.iter().filter(|(path, _)| path.ends_with(".ps1")) {
            scripts += 1;
            for (number, line) in contents.lines().enumerate() {
                let bytes = line.as_bytes();
                for (at, _) in line.match_indices('$') {
                    let start = at + 1;
                    let end = bytes[start..]
                        .iter()
                        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                        .map_or(bytes.len(), |offset| start + offset);
                    let variable = &line[start..end];
                    let after = bytes.get(end + 1);
                    let qualified = after.is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
                    assert!(
                        variable.is_empty()
                            || bytes.get(end) != Some(&b':')
                            || (qualified && SCOPES.contains(&variable.to_lowercase().as_str())),
                        "{name}: {path}:{}: `${variable}:`",
                        number + 1
                    );
                }
            }
        }
    }
    assert!(scripts > 0);
}

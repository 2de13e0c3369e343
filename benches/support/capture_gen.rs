//! Writes what `kubectl get ... -o json` shows of a healthy cluster built from a plan, for the
//! `verify` benchmarks: each node as the kubelet registers it (labels, flannel annotations,
//! conditions, 25 images, nodeInfo), two pods per node (a host-network kube-proxy and one on the
//! pod network), the DaemonSets and the four ConfigMaps, pretty-printed as kubectl writes them.
//! Objects are about the size real ones are (a node about 11 KiB, a pod about 3.4 KiB), so the
//! capture of 5,000 nodes is about 87 MiB.

use hybridgen::plan::Plan;
use hybridgen::spec::{Os, PodCidrs};
use serde_json::{Value, json};

/// The capture files, by the name `--print-capture` gives them.
pub fn capture(plan: &Plan) -> Vec<(String, Vec<u8>)> {
    let flannel_namespace = if plan
        .flannel
        .release
        .as_ref()
        .is_some_and(|release| release.row.layout.namespace() == "kube-system")
    {
        "kube-system"
    } else {
        "kube-flannel"
    };
    let nodes: Vec<Value> = plan
        .nodes
        .iter()
        .map(|node| node_object(plan, node))
        .collect();
    let pods: Vec<Value> = plan
        .nodes
        .iter()
        .enumerate()
        .flat_map(|(index, node)| pods(index, node))
        .collect();
    let cluster = plan.cluster_cidr.as_ref().unwrap().to_string();
    let service = plan.service_cidr.as_ref().unwrap().to_string();
    let dns = plan
        .dns_service_ip
        .as_ref()
        .and_then(|ip| ip.as_ref().ok())
        .unwrap()
        .to_string();
    let version = plan.kubernetes_version.as_ref().unwrap();
    let net_conf = json!({
        "Network": cluster,
        "Backend": {"Type": "vxlan", "VNI": plan.flannel.vni, "Port": plan.flannel.port},
    });
    // Where hybridgen assigns the subnets, the rendered kubeadm config turns the controller
    // manager's allocation off.
    let controller_manager = match plan.pod_cidrs {
        PodCidrs::Hybridgen => "\n  extraArgs:\n    allocate-node-cidrs: \"false\"",
        PodCidrs::Controller => " {}",
    };
    let cluster_configuration = format!(
        "apiServer: {{}}\napiVersion: kubeadm.k8s.io/v1beta3\nclusterName: kubernetes\ncontrollerManager:{controller_manager}\nkind: ClusterConfiguration\nkubernetesVersion: v{version}\nnetworking:\n  dnsDomain: cluster.local\n  podSubnet: {cluster}\n  serviceSubnet: {service}\n"
    );
    let files = [
        ("nodes.json", list(nodes)),
        (
            "kube-flannel-cfg.json",
            config_map(
                flannel_namespace,
                "kube-flannel-cfg",
                "net-conf.json",
                &net_conf.to_string(),
            ),
        ),
        (
            "kubeadm-config.json",
            config_map(
                "kube-system",
                "kubeadm-config",
                "ClusterConfiguration",
                &cluster_configuration,
            ),
        ),
        (
            "kube-proxy.json",
            config_map(
                "kube-system",
                "kube-proxy",
                "config.conf",
                &format!(
                    "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: {cluster}\nmode: iptables\n"
                ),
            ),
        ),
        (
            "kubelet-config.json",
            config_map(
                "kube-system",
                &format!("kubelet-config-{}.{}", version.major, version.minor),
                "kubelet",
                &format!(
                    "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nclusterDNS:\n- {dns}\nclusterDomain: cluster.local\n"
                ),
            ),
        ),
        ("daemonsets.json", list(daemonsets(flannel_namespace))),
        ("pods.json", list(pods)),
    ];
    files
        .into_iter()
        .map(|(name, value)| (name.to_string(), serde_json::to_vec_pretty(&value).unwrap()))
        .collect()
}

fn list(items: Vec<Value>) -> Value {
    json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}})
}

fn config_map(namespace: &str, name: &str, key: &str, text: &str) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "resourceVersion": "1042", "uid": "6f1c1f9e-0000-4000-8000-000000000001"},
        "data": {key: text},
    })
}

fn node_object(plan: &Plan, node: &hybridgen::plan::NodePlan) -> Value {
    let address = node.address.as_ref().unwrap().to_string();
    let subnet = node.pod_subnet.unwrap().to_string();
    let windows = node.os == Os::Windows;
    let kernel = match &node.windows {
        Some(windows) => windows
            .build
            .as_ref()
            .unwrap()
            .as_ref()
            .unwrap()
            .to_string(),
        None => "6.1.0-27-amd64".to_string(),
    };
    let images: Vec<Value> = (0..25)
        .map(|image| {
            json!({
                "names": [
                    format!("registry.example.com/team-{image}/service@sha256:{:064x}", image * 7919 + 1),
                    format!("registry.example.com/team-{image}/service:v1.{image}.0"),
                ],
                "sizeBytes": 104_857_600 + image * 1_048_576,
            })
        })
        .collect();
    let condition = |kind: &str, status: &str, reason: &str, message: &str| {
        json!({
            "lastHeartbeatTime": "2026-11-20T10:00:00Z",
            "lastTransitionTime": "2026-11-01T08:00:00Z",
            "message": message,
            "reason": reason,
            "status": status,
            "type": kind,
        })
    };
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "flannel.alpha.coreos.com/backend-data": format!("{{\"VNI\":{},\"VtepMAC\":\"02:42:ac:11:00:02\"}}", plan.flannel.vni),
                "flannel.alpha.coreos.com/backend-type": "vxlan",
                "flannel.alpha.coreos.com/kube-subnet-manager": "true",
                "flannel.alpha.coreos.com/public-ip": address,
                "kubeadm.alpha.kubernetes.io/cri-socket": if windows { "npipe:////./pipe/docker_engine" } else { "unix:///var/run/containerd/containerd.sock" },
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": "2026-11-01T08:00:00Z",
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/os": node.os.as_str(),
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": node.name,
                "kubernetes.io/os": node.os.as_str(),
                "node.kubernetes.io/instance-type": "m6i.large",
                "topology.kubernetes.io/region": "us-east-1",
                "topology.kubernetes.io/zone": "us-east-1a",
            },
            "name": node.name,
            "resourceVersion": "918273",
            "uid": "0b9f4c1e-1111-4000-8000-000000000000",
        },
        "spec": {
            "podCIDR": subnet,
            "podCIDRs": [subnet],
            "providerID": "aws:///us-east-1a/i-0123456789abcdef0",
        },
        "status": {
            "addresses": [
                {"address": address, "type": "InternalIP"},
                {"address": node.name, "type": "Hostname"},
            ],
            "allocatable": {"cpu": "2", "ephemeral-storage": "47233297124", "memory": "7863868Ki", "pods": "110"},
            "capacity": {"cpu": "2", "ephemeral-storage": "51250136Ki", "memory": "7966268Ki", "pods": "110"},
            "conditions": [
                condition("NetworkUnavailable", "False", "FlannelIsUp", "Flannel is running on this node"),
                condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": images,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": "3c7d2a90-2222-4000-8000-000000000000",
                "containerRuntimeVersion": if windows { "docker://20.10.9" } else { "containerd://2.0.11" },
                "kernelVersion": kernel,
                "kubeProxyVersion": "v1.23.17",
                "kubeletVersion": "v1.23.17",
                "machineID": "ec2a5f5e3b3c4d4e8f9a0b1c2d3e4f50",
                "operatingSystem": node.os.as_str(),
                "osImage": if windows { "Windows Server 2019 Datacenter" } else { "Debian GNU/Linux 12 (bookworm)" },
                "systemUUID": "ec2a5f5e-3b3c-4d4e-8f9a-0b1c2d3e4f50",
            },
        },
    })
}

/// kube-proxy on the host network, and one pod on the pod network.
fn pods(index: usize, node: &hybridgen::plan::NodePlan) -> Vec<Value> {
    let address = node.address.as_ref().unwrap().to_string();
    let subnet = node.pod_subnet.unwrap();
    let pod_ip = subnet.hosts().nth(1).unwrap().to_string();
    let pod = |name: String, namespace: &str, ip: &str, host_network: bool, image: &str| {
        json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "creationTimestamp": "2026-11-01T08:05:00Z",
                "generateName": format!("{}-", name.rsplit_once('-').unwrap().0),
                "labels": {"app": name.rsplit_once('-').unwrap().0, "pod-template-generation": "1"},
                "name": name,
                "namespace": namespace,
                "ownerReferences": [{"apiVersion": "apps/v1", "blockOwnerDeletion": true, "controller": true, "kind": "DaemonSet", "name": "owner", "uid": "5e7c0000-3333-4000-8000-000000000000"}],
                "resourceVersion": "123456",
                "uid": "9a8b7c6d-4444-4000-8000-000000000000",
            },
            "spec": {
                "containers": [{
                    "command": ["/usr/local/bin/run", "--config=/var/lib/config/config.conf", format!("--hostname-override={}", node.name)],
                    "image": image,
                    "imagePullPolicy": "IfNotPresent",
                    "name": "main",
                    "resources": {"requests": {"cpu": "100m", "memory": "50Mi"}},
                    "volumeMounts": [
                        {"mountPath": "/var/lib/config", "name": "config"},
                        {"mountPath": "/run/xtables.lock", "name": "xtables-lock"},
                    ],
                }],
                "hostNetwork": host_network,
                "nodeName": node.name,
                "priorityClassName": "system-node-critical",
                "serviceAccountName": "default",
                "tolerations": [{"operator": "Exists"}],
                "volumes": [
                    {"configMap": {"name": "config"}, "name": "config"},
                    {"hostPath": {"path": "/run/xtables.lock", "type": "FileOrCreate"}, "name": "xtables-lock"},
                ],
            },
            "status": {
                "conditions": [
                    {"lastTransitionTime": "2026-11-01T08:05:00Z", "status": "True", "type": "Initialized"},
                    {"lastTransitionTime": "2026-11-01T08:05:10Z", "status": "True", "type": "Ready"},
                    {"lastTransitionTime": "2026-11-01T08:05:10Z", "status": "True", "type": "ContainersReady"},
                    {"lastTransitionTime": "2026-11-01T08:05:00Z", "status": "True", "type": "PodScheduled"},
                ],
                "containerStatuses": [{"image": image, "name": "main", "ready": true, "restartCount": 0, "started": true, "state": {"running": {"startedAt": "2026-11-01T08:05:08Z"}}}],
                "hostIP": address,
                "phase": "Running",
                "podIP": ip,
                "podIPs": [{"ip": ip}],
                "qosClass": "Burstable",
                "startTime": "2026-11-01T08:05:00Z",
            },
        })
    };
    let proxy = if node.os == Os::Windows {
        "kube-proxy-windows"
    } else {
        "kube-proxy"
    };
    vec![
        pod(
            format!("{proxy}-{index:05x}"),
            "kube-system",
            &address,
            true,
            "registry.k8s.io/kube-proxy:v1.23.17",
        ),
        pod(
            format!("web-{index:05x}"),
            "default",
            &pod_ip,
            false,
            "registry.example.com/web:1.0",
        ),
    ]
}

fn daemonsets(flannel_namespace: &str) -> Vec<Value> {
    let daemonset = |namespace: &str, name: &str, os: &str| {
        json!({
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"template": {"spec": {"nodeSelector": {"kubernetes.io/os": os}, "tolerations": [{"operator": "Exists"}]}}},
            "status": {"numberMisscheduled": 0},
        })
    };
    vec![
        daemonset(flannel_namespace, "kube-flannel-ds", "linux"),
        daemonset(flannel_namespace, "kube-flannel-ds-windows", "windows"),
        daemonset("kube-system", "kube-proxy", "linux"),
        daemonset("kube-system", "kube-proxy-windows", "windows"),
    ]
}

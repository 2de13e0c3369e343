//! Every flannel release hybridgen renders, v0.11.0 to v0.28.9: one row per release tag, read from
//! that tag's own `Documentation/kube-flannel.yml` (flannel-io/flannel). A row says which image the
//! release runs, which CNI-plugin image its manifest pins, its layout, the RBAC API it writes, and
//! the features its manifest has. The manifest renderer, the lint rules and `verify` all read this
//! table; adding a release is adding a row.
//!
//! The flannel image is the release's own, on the registry that release was pushed to: a few tag
//! manifests deploy the previous release's image (their rows say so), and a user who asks for
//! flannel vX expects flanneld vX. Every image of the table has evidence in a release workflow of
//! flannel-io/flannel, a tag's manifest, or rancher/image-mirror's `images-list`.

use super::pins;
use super::version::{Release, release_tag};

/// One flannel release.
#[derive(Debug, PartialEq, Eq)]
pub struct FlannelRelease {
    pub version: Release,
    /// The flanneld image. With [`Layout::PerArch`] each DaemonSet appends `-<arch>` to it.
    pub image: &'static str,
    /// The flannel CNI plugin image of the `install-cni-plugin` init container (from v0.15.0).
    pub cni_plugin_image: Option<&'static str>,
    pub layout: Layout,
    /// The API version of the ClusterRole and ClusterRoleBinding.
    pub rbac: Rbac,
    /// `cniVersion` of `cni-conf.json`.
    pub cni_version: &'static str,
    pub features: &'static [Feature],
}

/// Where the flannel objects live and how its DaemonSets are split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One DaemonSet per architecture (`kube-flannel-ds-<arch>`) in `kube-system`, scheduled on
    /// the `beta.kubernetes.io` labels (before v0.13.0).
    PerArch,
    /// One multi-arch DaemonSet `kube-flannel-ds` in `kube-system` (v0.13.0 to v0.18.x).
    KubeSystem,
    /// One DaemonSet `kube-flannel-ds` in its own namespace `kube-flannel` (from v0.19.0).
    KubeFlannel,
}

/// The architectures of the per-architecture DaemonSets, in manifest order.
pub const PER_ARCH: [&str; 5] = ["amd64", "arm64", "arm", "ppc64le", "s390x"];

impl Layout {
    pub fn namespace(self) -> &'static str {
        match self {
            Layout::PerArch | Layout::KubeSystem => "kube-system",
            Layout::KubeFlannel => "kube-flannel",
        }
    }

    /// The flannel DaemonSets, in manifest order.
    pub fn daemonset_names(self) -> Vec<String> {
        match self {
            Layout::PerArch => PER_ARCH
                .iter()
                .map(|arch| format!("kube-flannel-ds-{arch}"))
                .collect(),
            Layout::KubeSystem | Layout::KubeFlannel => vec!["kube-flannel-ds".to_string()],
        }
    }
}

/// The RBAC API version a release's manifest writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rbac {
    V1beta1,
    V1,
}

/// What a release's manifest (or its flanneld) has, beyond its layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// The `psp.flannel.unprivileged` PodSecurityPolicy and the ClusterRole rule to use it.
    PodSecurityPolicy,
    /// `NET_RAW` besides `NET_ADMIN` in the container's capabilities.
    NetRaw,
    /// CPU and memory limits on the flannel container (dropped at v0.21.0).
    Limits,
    /// `priorityClassName: system-node-critical`.
    PriorityClass,
    /// The `/run/xtables.lock` hostPath volume and mount, so that flanneld and kube-proxy do not
    /// run iptables at once (flannel-io/flannel 5f27126b, v0.16.2).
    XtablesLock,
    /// `EVENT_QUEUE_DEPTH=5000` in the container's environment.
    EventQueueDepth,
    /// `CONT_WHEN_CACHE_NOT_READY=false` in the container's environment.
    ContWhenCacheNotReady,
    /// `get` on `nodes` in the ClusterRole.
    NodesGet,
    /// `list` and `watch` on `networking.k8s.io` `clustercidrs` (v0.21.0 to v0.24.x).
    ClusterCidrs,
    /// The `k8s-app: flannel` label on every object.
    K8sAppLabels,
    /// `"EnableNFTables": false` in `net-conf.json`.
    EnableNfTables,
    /// The `install-cni` init container runs `/opt/bin/install-conf` instead of `cp -f`.
    InstallConf,
    /// `--healthz-port=8081`, its container port and the liveness and readiness probes.
    Healthz,
    /// flanneld on Windows takes any VNI of 4096 or more; before, it hard-coded 4096
    /// (flannel-io/flannel PR #1215, first in v0.13.1).
    WindowsAnyVni,
}

impl FlannelRelease {
    pub fn has(&self, feature: Feature) -> bool {
        self.features.contains(&feature)
    }

    /// The release tag, `vMAJOR.MINOR.PATCH`.
    pub fn tag(&self) -> String {
        format!("v{}", self.version)
    }

    /// The flannel CNI plugin release the Windows nodes run with this release: its own (the tag of
    /// `cni_plugin_image`), unless that one's Windows archive predates
    /// [`pins::FIRST_WINDOWS_FLANNEL_CNI_ARCHIVE`] or the release pins none; then that first one.
    pub fn windows_cni_plugin(&self) -> &'static str {
        let first = pins::FIRST_WINDOWS_FLANNEL_CNI_ARCHIVE;
        self.cni_plugin_image
            .and_then(|image| image.rsplit_once(':'))
            .map(|(_, tag)| tag)
            .filter(|tag| {
                matches!((Release::parse(tag), Release::parse(first)), (Some(own), Some(first)) if own >= first)
            })
            .unwrap_or(first)
    }

    /// The image repository (the image without its tag).
    pub fn repository(&self) -> &'static str {
        self.image
            .rsplit_once(':')
            .map_or(self.image, |(repository, _)| repository)
    }
}

/// The oldest release of the table: v0.11.0, also the first with Windows support
/// (flannel-io/flannel v0.11.0 release notes).
pub fn oldest() -> &'static FlannelRelease {
    &RELEASES[0]
}

/// The newest release of the table.
pub fn newest() -> &'static FlannelRelease {
    &RELEASES[RELEASES.len() - 1]
}

use Feature::*;

/// Every release, oldest first.
#[rustfmt::skip]
pub static RELEASES: &[FlannelRelease] = &[
    // The flavour the Kubernetes Windows guide deploys: flannel master at 2140ac87 (apps/v1, with
    // PodSecurityPolicy), with the v0.11.0 images.
    FlannelRelease {
        version: Release::new(0, 11, 0),
        image: "quay.io/coreos/flannel:v0.11.0",
        cni_plugin_image: None,
        layout: Layout::PerArch, rbac: Rbac::V1beta1, cni_version: "0.2.0",
        features: &[PodSecurityPolicy, Limits],
    },
    FlannelRelease {
        version: Release::new(0, 12, 0),
        image: "quay.io/coreos/flannel:v0.12.0",
        cni_plugin_image: None,
        layout: Layout::PerArch, rbac: Rbac::V1beta1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, Limits],
    },
    FlannelRelease {
        version: Release::new(0, 13, 0),
        image: "quay.io/coreos/flannel:v0.13.0",
        cni_plugin_image: None,
        layout: Layout::KubeSystem, rbac: Rbac::V1beta1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass],
    },
    FlannelRelease {
        version: Release::new(0, 14, 0),
        image: "quay.io/coreos/flannel:v0.14.0",
        cni_plugin_image: None,
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, WindowsAnyVni],
    },
    // The tag's manifest deploys the v0.14.0 image, and no v0.14.1 image is known to have been
    // published (v0.14.1 has no release workflow): kept as upstream.
    FlannelRelease {
        version: Release::new(0, 14, 1),
        image: "quay.io/coreos/flannel:v0.14.0",
        cni_plugin_image: None,
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 15, 0),
        image: "quay.io/coreos/flannel:v0.15.0",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.2"),
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 15, 1),
        image: "quay.io/coreos/flannel:v0.15.1",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.0.0"),
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, WindowsAnyVni],
    },
    // The tag's manifest lags (quay.io v0.15.1). v0.16.0 was pushed to flannelcni/flannel (its
    // release.yml) and mirrored as rancher/mirrored-flannelcni-flannel:v0.16.0 (rancher/image-
    // mirror 45b4d30), the name v0.16.2's manifest uses.
    FlannelRelease {
        version: Release::new(0, 16, 0),
        image: "rancher/mirrored-flannelcni-flannel:v0.16.0",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.0.0"),
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, WindowsAnyVni],
    },
    // The tag's manifest lags (quay.io v0.15.1); mirrored by rancher/image-mirror 1d7fe66.
    FlannelRelease {
        version: Release::new(0, 16, 1),
        image: "rancher/mirrored-flannelcni-flannel:v0.16.1",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.0.0"),
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.16.1); mirrored by rancher/image-mirror 1548612.
    FlannelRelease {
        version: Release::new(0, 16, 2),
        image: "rancher/mirrored-flannelcni-flannel:v0.16.2",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.0.1"),
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, XtablesLock, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.16.1); mirrored by rancher/image-mirror 9da2ddf.
    FlannelRelease {
        version: Release::new(0, 16, 3),
        image: "rancher/mirrored-flannelcni-flannel:v0.16.3",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.0.1"),
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, XtablesLock, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.16.3); mirrored by rancher/image-mirror b0c8625.
    FlannelRelease {
        version: Release::new(0, 17, 0),
        image: "rancher/mirrored-flannelcni-flannel:v0.17.0",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.0.1"),
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, XtablesLock, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 18, 0),
        image: "rancher/mirrored-flannelcni-flannel:v0.18.0",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0"),
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, XtablesLock,
            EventQueueDepth, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 18, 1),
        image: "rancher/mirrored-flannelcni-flannel:v0.18.1",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0"),
        layout: Layout::KubeSystem, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[PodSecurityPolicy, NetRaw, Limits, PriorityClass, XtablesLock,
            EventQueueDepth, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.18.1); mirrored by rancher/image-mirror 54b91e6.
    FlannelRelease {
        version: Release::new(0, 19, 0),
        image: "rancher/mirrored-flannelcni-flannel:v0.19.0",
        cni_plugin_image: Some("rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, Limits, PriorityClass, XtablesLock, EventQueueDepth, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.19.0); mirrored by rancher/image-mirror 45b0d6c.
    FlannelRelease {
        version: Release::new(0, 19, 1),
        image: "docker.io/rancher/mirrored-flannelcni-flannel:v0.19.1",
        cni_plugin_image: Some("docker.io/rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, Limits, PriorityClass, XtablesLock, EventQueueDepth, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 19, 2),
        image: "docker.io/rancher/mirrored-flannelcni-flannel:v0.19.2",
        cni_plugin_image: Some("docker.io/rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, Limits, PriorityClass, XtablesLock, EventQueueDepth, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 20, 0),
        image: "docker.io/rancher/mirrored-flannelcni-flannel:v0.20.0",
        cni_plugin_image: Some("docker.io/rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, Limits, PriorityClass, XtablesLock, EventQueueDepth, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 20, 1),
        image: "docker.io/rancher/mirrored-flannelcni-flannel:v0.20.1",
        cni_plugin_image: Some("docker.io/rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, Limits, PriorityClass, XtablesLock, EventQueueDepth, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 20, 2),
        image: "docker.io/rancher/mirrored-flannelcni-flannel:v0.20.2",
        cni_plugin_image: Some("docker.io/rancher/mirrored-flannelcni-flannel-cni-plugin:v1.1.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, Limits, PriorityClass, XtablesLock, EventQueueDepth, NodesGet,
            WindowsAnyVni],
    },
    // The tag's manifest lags (v0.20.2); from v0.21.0 the release workflow pushes flannel/flannel
    // to Docker Hub (flannel-io/flannel 3b242e9e).
    FlannelRelease {
        version: Release::new(0, 21, 0),
        image: "docker.io/flannel/flannel:v0.21.0",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.1.2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            WindowsAnyVni],
    },
    // The tag's manifest lags (v0.20.2); pushed by the release workflow (3b242e9e).
    FlannelRelease {
        version: Release::new(0, 21, 1),
        image: "docker.io/flannel/flannel:v0.21.1",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.1.2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            WindowsAnyVni],
    },
    // The tag's manifest lags (v0.20.2); pushed by the release workflow (3b242e9e).
    FlannelRelease {
        version: Release::new(0, 21, 2),
        image: "docker.io/flannel/flannel:v0.21.2",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.1.2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 21, 3),
        image: "docker.io/flannel/flannel:v0.21.3",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.1.2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 21, 4),
        image: "docker.io/flannel/flannel:v0.21.4",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.1.2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 21, 5),
        image: "docker.io/flannel/flannel:v0.21.5",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.1.2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 22, 0),
        image: "docker.io/flannel/flannel:v0.22.0",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.1.2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 22, 1),
        image: "docker.io/flannel/flannel:v0.22.1",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.2.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 22, 2),
        image: "docker.io/flannel/flannel:v0.22.2",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.2.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 22, 3),
        image: "docker.io/flannel/flannel:v0.22.3",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.2.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.22.3); pushed by the release workflow.
    FlannelRelease {
        version: Release::new(0, 23, 0),
        image: "docker.io/flannel/flannel:v0.23.0",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.2.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 24, 0),
        image: "docker.io/flannel/flannel:v0.24.0",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.2.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 24, 1),
        image: "docker.io/flannel/flannel:v0.24.1",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.2.0"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 24, 2),
        image: "docker.io/flannel/flannel:v0.24.2",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.4.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 24, 3),
        image: "docker.io/flannel/flannel:v0.24.3",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.4.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 24, 4),
        image: "docker.io/flannel/flannel:v0.24.4",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.4.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, ClusterCidrs,
            K8sAppLabels, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 25, 0),
        image: "docker.io/flannel/flannel:v0.25.0",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.4.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 25, 1),
        image: "docker.io/flannel/flannel:v0.25.1",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.4.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 25, 2),
        image: "docker.io/flannel/flannel:v0.25.2",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.4.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 25, 3),
        image: "docker.io/flannel/flannel:v0.25.3",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.4.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 25, 4),
        image: "docker.io/flannel/flannel:v0.25.4",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.4.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 25, 5),
        image: "docker.io/flannel/flannel:v0.25.5",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 25, 6),
        image: "docker.io/flannel/flannel:v0.25.6",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 25, 7),
        image: "docker.io/flannel/flannel:v0.25.7",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 26, 0),
        image: "docker.io/flannel/flannel:v0.26.0",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 26, 1),
        image: "docker.io/flannel/flannel:v0.26.1",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.5.1-flannel2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 26, 2),
        image: "docker.io/flannel/flannel:v0.26.2",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.6.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.26.2); v0.26.3's release workflow still pushes to Docker Hub
    // only (ghcr.io from v0.26.4).
    FlannelRelease {
        version: Release::new(0, 26, 3),
        image: "docker.io/flannel/flannel:v0.26.3",
        cni_plugin_image: Some("docker.io/flannel/flannel-cni-plugin:v1.6.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 26, 4),
        image: "ghcr.io/flannel-io/flannel:v0.26.4",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.6.2-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.26.4); pushed to ghcr.io by the release workflow.
    FlannelRelease {
        version: Release::new(0, 26, 5),
        image: "ghcr.io/flannel-io/flannel:v0.26.5",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.6.2-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 26, 6),
        image: "ghcr.io/flannel-io/flannel:v0.26.6",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.6.2-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 26, 7),
        image: "ghcr.io/flannel-io/flannel:v0.26.7",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.6.2-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 27, 0),
        image: "ghcr.io/flannel-io/flannel:v0.27.0",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.7.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, NodesGet, K8sAppLabels,
            EnableNfTables, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.27.0); pushed to ghcr.io by the release workflow.
    FlannelRelease {
        version: Release::new(0, 27, 1),
        image: "ghcr.io/flannel-io/flannel:v0.27.1",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.7.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 27, 2),
        image: "ghcr.io/flannel-io/flannel:v0.27.2",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.7.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 27, 3),
        image: "ghcr.io/flannel-io/flannel:v0.27.3",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.7.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 27, 4),
        image: "ghcr.io/flannel-io/flannel:v0.27.4",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.8.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    // The tag's manifest lags (v0.27.4); pushed to ghcr.io by the release workflow.
    FlannelRelease {
        version: Release::new(0, 28, 0),
        image: "ghcr.io/flannel-io/flannel:v0.28.0",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.8.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 28, 1),
        image: "ghcr.io/flannel-io/flannel:v0.28.1",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.9.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 28, 2),
        image: "ghcr.io/flannel-io/flannel:v0.28.2",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.9.0-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 28, 3),
        image: "ghcr.io/flannel-io/flannel:v0.28.3",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 28, 4),
        image: "ghcr.io/flannel-io/flannel:v0.28.4",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 28, 5),
        image: "ghcr.io/flannel-io/flannel:v0.28.5",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel1"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 28, 6),
        image: "ghcr.io/flannel-io/flannel:v0.28.6",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, InstallConf, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 28, 7),
        image: "ghcr.io/flannel-io/flannel:v0.28.7",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, InstallConf, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 28, 8),
        image: "ghcr.io/flannel-io/flannel:v0.28.8",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel2"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, InstallConf, WindowsAnyVni],
    },
    FlannelRelease {
        version: Release::new(0, 28, 9),
        image: "ghcr.io/flannel-io/flannel:v0.28.9",
        cni_plugin_image: Some("ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel3"),
        layout: Layout::KubeFlannel, rbac: Rbac::V1, cni_version: "0.3.1",
        features: &[NetRaw, PriorityClass, XtablesLock, EventQueueDepth, ContWhenCacheNotReady,
            NodesGet, K8sAppLabels, EnableNfTables, InstallConf, Healthz, WindowsAnyVni],
    },
];

/// What `flannel.version` resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The release's row; for a release the table does not know, the nearest one, assumed.
    pub row: &'static FlannelRelease,
    /// The image tag: the version as written (with its pre-release suffix), with a leading `v`.
    pub tag: String,
    /// Whether the written version is a row of the table.
    pub known: bool,
}

impl Resolved {
    /// The flanneld image: the row's for a known release, else the row's repository with the
    /// written tag.
    pub fn image(&self) -> String {
        if self.known {
            self.row.image.to_string()
        } else {
            format!("{}:{}", self.row.repository(), self.tag)
        }
    }
}

/// The releases of one minor line (`v0.26.0` … `v0.26.7`), oldest first.
pub fn line(major: u32, minor: u32) -> impl Iterator<Item = &'static FlannelRelease> {
    RELEASES
        .iter()
        .filter(move |row| (row.version.major, row.version.minor) == (major, minor))
}

/// For a release in a minor line the table holds whole, but not among its rows — `v0.26.40`, while
/// v0.26 ended at v0.26.7 — the line's release nearest to it: that tag, and its image, were never
/// published. `None` for a row, a pre-release, a line the table lacks, and a patch after the newest
/// line's last known one (which may be newer than the table).
pub fn never_published(resolved: &Resolved) -> Option<&'static FlannelRelease> {
    let bare = resolved.tag.trim_start_matches('v');
    let version = Release::parse(bare)?;
    if resolved.known || bare.contains(['-', '+']) {
        return None;
    }
    let last = line(version.major, version.minor).last()?;
    if version > last.version && last.version == newest().version {
        return None;
    }
    line(version.major, version.minor).min_by_key(|row| row.version.patch.abs_diff(version.patch))
}

/// Resolves a written flannel version (`v0.28.9`, `0.28.9`, `v0.29.0-rc1`) against the table, or
/// `None` when it is not a version. A release the table lacks resolves to the newest known release
/// before it (the oldest row when it predates them all).
pub fn resolve(written: &str) -> Option<Resolved> {
    let bare = written.strip_prefix('v').unwrap_or(written);
    let version = Release::parse(bare)?;
    let tag = release_tag(written).unwrap_or_else(|| format!("v{version}"));
    let prerelease = bare.contains(['-', '+']);
    let exact = RELEASES
        .iter()
        .find(|row| row.version == version && !prerelease);
    // A pre-release comes before its release, so it is nearest to the release before that.
    let nearest = || {
        RELEASES
            .iter()
            .rev()
            .find(|row| row.version < version)
            .unwrap_or_else(oldest)
    };
    Some(Resolved {
        row: exact.unwrap_or_else(nearest),
        tag,
        known: exact.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_release_brings_its_own_windows_cni_plugin_from_the_first_bare_archive() {
        let first = Release::parse(pins::FIRST_WINDOWS_FLANNEL_CNI_ARCHIVE).unwrap();
        for row in RELEASES {
            let plugin = row.windows_cni_plugin();
            assert!(Release::parse(plugin).unwrap() >= first, "{}", row.tag());
            if plugin != pins::FIRST_WINDOWS_FLANNEL_CNI_ARCHIVE {
                assert!(
                    row.cni_plugin_image
                        .unwrap()
                        .ends_with(&format!(":{plugin}"))
                );
            }
        }
        assert_eq!(newest().windows_cni_plugin(), "v1.9.1-flannel3");
        assert_eq!(oldest().windows_cni_plugin(), "v1.2.0");
    }
}

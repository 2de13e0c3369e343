//! Every Kubernetes minor hybridgen plans for Windows nodes, 1.14 to 1.37: one row per minor with
//! what its kubelet, kube-proxy and kubeadm accept on Windows, the containerd lines it is meant to
//! run with, and the containerd `join.ps1` installs by default; then [`ASSUMED_AFTER_NEWEST`],
//! what hybridgen assumes for a minor it does not know yet. The Windows builds each minor lists as
//! supported are a column of [`super::windows`]'s rows.
//!
//! Sources, per column: the containerd lines from containerd/containerd `RELEASES.md` "Kubernetes
//! Support" (older rows from older commits of that file); containerd 1.x support from
//! kubernetes/enhancements KEP-4033 and the kubernetes.io v1.35 release blog; the feature gates
//! from kubernetes/website `feature-gates/WinOverlay.md` and `WinDSR.md`; the removed kubelet flags
//! from each minor's CHANGELOG (cited at each list); kube-log-runner rotation from kubernetes PR
//! #127667 (v1.34.0); crictl from kubernetes-sigs/cri-tools release tags; the end-of-life dates
//! from kubernetes/website `data/releases/eol.yaml` (`endOfLifeDate`, to 1.31) and
//! `data/releases/schedule.yaml` (1.32 to 1.34), the data of <https://kubernetes.io/releases/>.

use super::kubeadm::{Kubeadm, KubeadmApi};
use crate::plan::version::Release;

/// One Kubernetes minor (`1.<minor>`).
#[derive(Debug, PartialEq, Eq)]
pub struct KubernetesRelease {
    pub minor: u32,
    /// The day upstream stopped maintaining this minor (ISO 8601), `None` while it is maintained
    /// at the date of the table (November 2026).
    pub end_of_life: Option<&'static str>,
    /// The kubelet still has dockershim, so KubeCluster.ps1's dockerd setup works (before 1.24,
    /// kubernetes/enhancements KEP-2221).
    pub dockershim: bool,
    /// HostProcess containers are on by default (beta in 1.23, stable in 1.26: kubernetes/website
    /// `feature-gates/WindowsHostProcessContainers.md`).
    pub host_process: bool,
    /// The containerd releases `RELEASES.md` lists for this minor: the oldest patch of each line.
    pub containerd: &'static [Release],
    /// How this minor's kubelet treats containerd 1.x, which lacks the CRI `RuntimeConfig` call.
    pub containerd_one: ContainerdOne,
    /// What `join.ps1` installs when `windows.containerd.version` is absent: the newest patch of
    /// a maintained line the minor lists (2.0 for 1.30 to 1.34, 2.3 from 1.36); on 1.35, whose
    /// listed lines have all ended, the maintained line after them (2.3); before 1.30 the newest
    /// 1.7 (the line HostProcess containers were made for: kubernetes/website "Create a Windows
    /// HostProcess Pod").
    pub default_containerd: Release,
    pub kubeadm: Kubeadm,
    /// kube-proxy's `WinOverlay` gate (overlay networks such as flannel vxlan).
    pub win_overlay: Gate,
    /// kube-proxy's `WinDSR` gate (Direct Server Return).
    pub win_dsr: Gate,
    pub kubelet: Kubelet,
    /// This minor's kube-log-runner rotates its file: `-log-file-size` and `-log-file-age`
    /// (kubernetes PR #127667, first in v1.34.0).
    pub log_rotation: bool,
    /// The cri-tools release whose `crictl` matches this minor, when it publishes a `.sha256`
    /// beside its Windows archive (cri-tools `hack/release.sh` from v1.23.0).
    pub crictl: Option<&'static str>,
}

/// How a kubelet treats containerd 1.x, which does not answer the CRI `RuntimeConfig` call
/// (kubernetes/enhancements KEP-4033; kubernetes.io "Kubernetes v1.35 sneak peek").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ContainerdOne {
    Supported,
    /// Supported, with the `kubelet_cri_losing_support` metric (1.34).
    Deprecated,
    /// The last minor supporting 1.x (1.35; kubeadm's preflight warns, kubernetes PR #134906).
    LastSupported,
    /// Unsupported: the kubelet falls back to its own cgroup driver and warns (1.36, 1.37; the
    /// refusal was moved to 1.38, kubernetes/website PR #55809).
    FallsBack,
    /// The kubelet refuses to start (planned for 1.38 in KEP-4033).
    Refused,
}

/// A feature gate's stage in one minor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gate {
    /// Off by default: the feature needs `--feature-gates=<Name>=true`.
    Alpha,
    /// On by default.
    Beta,
    /// Stable and locked on: naming it is allowed, setting it to false is refused.
    Ga,
    /// Gone: naming it is refused as an unknown gate.
    Removed,
}

impl Gate {
    /// Whether a feature that is used has to be switched on by naming the gate.
    pub fn must_be_named(self) -> bool {
        self == Gate::Alpha
    }
}

/// What the kubelet of one minor accepts on its command line, beyond the flags every minor takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kubelet {
    /// `--container-runtime=remote` is needed to use containerd: the default is still dockershim
    /// (before 1.24; the flag was removed in 1.27, kubernetes PR #114017).
    pub remote_runtime_flag: bool,
    /// `--pod-infra-container-image` still names the sandbox image (before 1.27; from 1.27 the
    /// runtime's setting is used, and sig-windows-tools `hostprocess/PrepareNode.ps1` passes it
    /// only before 1.27).
    pub sandbox_image_flag: bool,
    /// The flags this minor refuses ("unknown flag" stops the kubelet) that the one before took.
    pub removed_flags: &'static [&'static str],
}

/// kubernetes PR #106907 (1.24): the dockershim flags.
const DOCKERSHIM_FLAGS: &[&str] = &[
    "--network-plugin",
    "--cni-bin-dir",
    "--cni-conf-dir",
    "--cni-cache-dir",
    "--network-plugin-mtu",
    "--image-pull-progress-deadline",
    "--docker-endpoint",
    "--experimental-dockershim-root-directory",
];

/// kubernetes/enhancements KEP-2845 "Removed klog flags" (stable in 1.26).
const KLOG_FLAGS: &[&str] = &[
    "--add-dir-header",
    "--alsologtostderr",
    "--log-backtrace-at",
    "--log-dir",
    "--log-file",
    "--log-file-max-size",
    "--logtostderr",
    "--one-output",
    "--skip-headers",
    "--skip-log-headers",
    "--stderrthreshold",
];

const WITH_DOCKERSHIM: Kubelet = Kubelet {
    remote_runtime_flag: true,
    sandbox_image_flag: true,
    removed_flags: &[],
};

const CONTAINERD_ONLY: Kubelet = Kubelet {
    remote_runtime_flag: false,
    sandbox_image_flag: true,
    removed_flags: &[],
};

const SANDBOX_FROM_RUNTIME: Kubelet = Kubelet {
    remote_runtime_flag: false,
    sandbox_image_flag: false,
    removed_flags: &[],
};

const KUBEADM_V1BETA1: Kubeadm = Kubeadm {
    api: KubeadmApi::V1beta1,
};
const KUBEADM_V1BETA2: Kubeadm = Kubeadm {
    api: KubeadmApi::V1beta2,
};
const KUBEADM_V1BETA3: Kubeadm = Kubeadm {
    api: KubeadmApi::V1beta3,
};
const KUBEADM_V1BETA4: Kubeadm = Kubeadm {
    api: KubeadmApi::V1beta4,
};

/// The newest 1.7 (containerd tag v1.7.34): the default of 1.24 to 1.29, which list only 1.6 and
/// 1.7 (past its end of life since September 2026, so HG313 says so).
const CONTAINERD_ONE: Release = Release::new(1, 7, 34);
/// The newest release of the long-term 2.0 line (tag v2.0.11, supported until March 2027): the
/// default of the minors `RELEASES.md` lists it for, 1.30 to 1.34, since 1.7 reached its end of
/// life in September 2026; 1.7 to 2.0 is a supported upgrade ("Upgrade Path").
const CONTAINERD_TWO_ZERO: Release = Release::new(2, 0, 11);
/// The newest release of the long-term 2.3 line (tag v2.3.4, supported until April 2028): the
/// default from 1.36, and on 1.35, whose listed lines (2.2, 2.1, 1.7) have all reached their end
/// of life while its kubelet speaks CRI v1 and takes the cgroup driver from the `RuntimeConfig`
/// call, both of which 2.x serves (containerd `RELEASES.md` "Kubernetes Support" and
/// "Support Horizon"; kubernetes/enhancements KEP-4033). 2.3 is also what 1.36 lists, so the next
/// minor needs no containerd step.
const CONTAINERD_TWO: Release = Release::new(2, 3, 4);

/// A row of the Windows Server 2019 era, where only dockershim ran Windows nodes: KubeCluster.ps1
/// with dockerd. containerd is listed for none of them here (hybridgen installs it only on the
/// HostProcess path).
const fn dockershim_era(
    minor: u32,
    kubeadm: Kubeadm,
    win_overlay: Gate,
    end_of_life: &'static str,
) -> KubernetesRelease {
    KubernetesRelease {
        minor,
        end_of_life: Some(end_of_life),
        dockershim: true,
        host_process: false,
        containerd: &[],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_ONE,
        kubeadm,
        win_overlay,
        win_dsr: Gate::Alpha,
        kubelet: WITH_DOCKERSHIM,
        log_rotation: false,
        crictl: None,
    }
}

/// Every minor, oldest first.
pub static RELEASES: &[KubernetesRelease] = &[
    dockershim_era(14, KUBEADM_V1BETA1, Gate::Alpha, "2019-12-11"),
    dockershim_era(15, KUBEADM_V1BETA2, Gate::Alpha, "2020-05-06"),
    dockershim_era(16, KUBEADM_V1BETA2, Gate::Alpha, "2020-09-02"),
    dockershim_era(17, KUBEADM_V1BETA2, Gate::Alpha, "2021-01-13"),
    dockershim_era(18, KUBEADM_V1BETA2, Gate::Alpha, "2021-06-18"),
    dockershim_era(19, KUBEADM_V1BETA2, Gate::Alpha, "2021-10-28"),
    dockershim_era(20, KUBEADM_V1BETA2, Gate::Beta, "2022-02-28"),
    dockershim_era(21, KUBEADM_V1BETA2, Gate::Beta, "2022-06-28"),
    dockershim_era(22, KUBEADM_V1BETA3, Gate::Beta, "2022-12-08"),
    // HostProcess containers turn on by default; containerd 1.6 lists "1.23+" (containerd v1.6.0
    // RELEASES.md).
    KubernetesRelease {
        minor: 23,
        end_of_life: Some("2023-02-28"),
        dockershim: true,
        host_process: true,
        containerd: &[Release::new(1, 6, 0)],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_ONE,
        kubeadm: KUBEADM_V1BETA3,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        kubelet: WITH_DOCKERSHIM,
        log_rotation: false,
        crictl: Some("v1.23.0"),
    },
    KubernetesRelease {
        minor: 24,
        end_of_life: Some("2023-07-28"),
        dockershim: false,
        host_process: true,
        containerd: &[Release::new(1, 7, 0), Release::new(1, 6, 4)],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_ONE,
        kubeadm: KUBEADM_V1BETA3,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        kubelet: Kubelet {
            removed_flags: DOCKERSHIM_FLAGS,
            ..CONTAINERD_ONLY
        },
        log_rotation: false,
        crictl: Some("v1.24.2"),
    },
    KubernetesRelease {
        minor: 25,
        end_of_life: Some("2023-10-28"),
        dockershim: false,
        host_process: true,
        containerd: &[Release::new(1, 7, 0), Release::new(1, 6, 4)],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_ONE,
        kubeadm: KUBEADM_V1BETA3,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        kubelet: CONTAINERD_ONLY,
        log_rotation: false,
        crictl: Some("v1.25.0"),
    },
    KubernetesRelease {
        minor: 26,
        end_of_life: Some("2024-02-28"),
        dockershim: false,
        host_process: true,
        containerd: &[Release::new(1, 7, 0), Release::new(1, 6, 15)],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_ONE,
        kubeadm: KUBEADM_V1BETA3,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        kubelet: Kubelet {
            removed_flags: KLOG_FLAGS,
            ..CONTAINERD_ONLY
        },
        log_rotation: false,
        crictl: Some("v1.26.1"),
    },
    KubernetesRelease {
        minor: 27,
        end_of_life: Some("2024-07-16"),
        dockershim: false,
        host_process: true,
        containerd: &[Release::new(1, 7, 0), Release::new(1, 6, 15)],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_ONE,
        kubeadm: KUBEADM_V1BETA3,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        // kubernetes PR #114017.
        kubelet: Kubelet {
            removed_flags: &["--container-runtime"],
            ..SANDBOX_FROM_RUNTIME
        },
        log_rotation: false,
        crictl: Some("v1.27.1"),
    },
    KubernetesRelease {
        minor: 28,
        end_of_life: Some("2024-10-22"),
        dockershim: false,
        host_process: true,
        containerd: &[Release::new(1, 7, 0), Release::new(1, 6, 15)],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_ONE,
        kubeadm: KUBEADM_V1BETA3,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        kubelet: SANDBOX_FROM_RUNTIME,
        log_rotation: false,
        crictl: Some("v1.28.0"),
    },
    KubernetesRelease {
        minor: 29,
        end_of_life: Some("2025-02-28"),
        dockershim: false,
        host_process: true,
        containerd: &[Release::new(1, 7, 11), Release::new(1, 6, 27)],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_ONE,
        kubeadm: KUBEADM_V1BETA3,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        kubelet: SANDBOX_FROM_RUNTIME,
        log_rotation: false,
        crictl: Some("v1.29.0"),
    },
    KubernetesRelease {
        minor: 30,
        end_of_life: Some("2025-07-15"),
        dockershim: false,
        host_process: true,
        containerd: &[
            Release::new(2, 1, 0),
            Release::new(2, 0, 0),
            Release::new(1, 7, 13),
            Release::new(1, 6, 28),
        ],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_TWO_ZERO,
        kubeadm: KUBEADM_V1BETA3,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        kubelet: SANDBOX_FROM_RUNTIME,
        log_rotation: false,
        crictl: Some("v1.30.1"),
    },
    KubernetesRelease {
        minor: 31,
        end_of_life: Some("2025-11-11"),
        dockershim: false,
        host_process: true,
        containerd: &[
            Release::new(2, 1, 0),
            Release::new(2, 0, 0),
            Release::new(1, 7, 20),
            Release::new(1, 6, 34),
        ],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_TWO_ZERO,
        kubeadm: KUBEADM_V1BETA4,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        kubelet: SANDBOX_FROM_RUNTIME,
        log_rotation: false,
        crictl: Some("v1.31.1"),
    },
    KubernetesRelease {
        minor: 32,
        end_of_life: Some("2026-02-28"),
        dockershim: false,
        host_process: true,
        containerd: &[
            Release::new(2, 1, 0),
            Release::new(2, 0, 1),
            Release::new(1, 7, 24),
            Release::new(1, 6, 36),
        ],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_TWO_ZERO,
        kubeadm: KUBEADM_V1BETA4,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Alpha,
        kubelet: SANDBOX_FROM_RUNTIME,
        log_rotation: false,
        crictl: Some("v1.32.0"),
    },
    KubernetesRelease {
        minor: 33,
        end_of_life: Some("2026-06-28"),
        dockershim: false,
        host_process: true,
        containerd: &[
            Release::new(2, 1, 0),
            Release::new(2, 0, 4),
            Release::new(1, 7, 24),
            Release::new(1, 6, 36),
        ],
        containerd_one: ContainerdOne::Supported,
        default_containerd: CONTAINERD_TWO_ZERO,
        kubeadm: KUBEADM_V1BETA4,
        win_overlay: Gate::Beta,
        win_dsr: Gate::Beta,
        kubelet: SANDBOX_FROM_RUNTIME,
        log_rotation: false,
        crictl: Some("v1.33.0"),
    },
    // WinOverlay and WinDSR are stable and locked (kubernetes PRs #133042, #132108).
    KubernetesRelease {
        minor: 34,
        end_of_life: Some("2026-10-27"),
        dockershim: false,
        host_process: true,
        containerd: &[
            Release::new(2, 1, 3),
            Release::new(2, 0, 6),
            Release::new(1, 7, 28),
            Release::new(1, 6, 39),
        ],
        containerd_one: ContainerdOne::Deprecated,
        default_containerd: CONTAINERD_TWO_ZERO,
        kubeadm: KUBEADM_V1BETA4,
        win_overlay: Gate::Ga,
        win_dsr: Gate::Ga,
        // CHANGELOG-1.34: "Kubelet: removed the deprecated flag --cloud-config".
        kubelet: Kubelet {
            removed_flags: &["--cloud-config"],
            ..SANDBOX_FROM_RUNTIME
        },
        log_rotation: true,
        crictl: Some("v1.34.0"),
    },
    KubernetesRelease {
        minor: 35,
        end_of_life: None,
        dockershim: false,
        host_process: true,
        containerd: &[
            Release::new(2, 2, 0),
            Release::new(2, 1, 5),
            Release::new(1, 7, 28),
        ],
        containerd_one: ContainerdOne::LastSupported,
        default_containerd: CONTAINERD_TWO,
        kubeadm: KUBEADM_V1BETA4,
        win_overlay: Gate::Ga,
        win_dsr: Gate::Ga,
        // kubernetes PR #133779 (CHANGELOG-1.35, "urgent upgrade notes").
        kubelet: Kubelet {
            removed_flags: &["--pod-infra-container-image"],
            ..SANDBOX_FROM_RUNTIME
        },
        log_rotation: true,
        crictl: Some("v1.35.0"),
    },
    KubernetesRelease {
        minor: 36,
        end_of_life: None,
        dockershim: false,
        host_process: true,
        containerd: &[Release::new(2, 3, 0), Release::new(2, 2, 0)],
        containerd_one: ContainerdOne::FallsBack,
        default_containerd: CONTAINERD_TWO,
        kubeadm: KUBEADM_V1BETA4,
        win_overlay: Gate::Ga,
        win_dsr: Gate::Ga,
        kubelet: SANDBOX_FROM_RUNTIME,
        log_rotation: true,
        crictl: Some("v1.36.0"),
    },
    // RELEASES.md has no 1.37 row yet (containerd 301026e, 2026-08-22): 1.36's is kept, and
    // cri-tools had not tagged v1.37.0 (kubernetes-sigs/cri-tools, 2026-08-13): v1.36.0 is used.
    KubernetesRelease {
        minor: 37,
        end_of_life: None,
        dockershim: false,
        host_process: true,
        containerd: &[Release::new(2, 3, 0), Release::new(2, 2, 0)],
        containerd_one: ContainerdOne::FallsBack,
        default_containerd: CONTAINERD_TWO,
        kubeadm: KUBEADM_V1BETA4,
        win_overlay: Gate::Ga,
        win_dsr: Gate::Ga,
        kubelet: SANDBOX_FROM_RUNTIME,
        log_rotation: true,
        crictl: Some("v1.36.0"),
    },
];

/// What hybridgen assumes for a minor after the newest it knows: the newest row, with the changes
/// already planned for 1.38 — the kubelet refuses containerd 1.x (kubernetes/enhancements KEP-4033,
/// kubernetes PR #136731) and the WinOverlay and WinDSR gates are gone (kubernetes PR #142125).
pub static ASSUMED_AFTER_NEWEST: KubernetesRelease = KubernetesRelease {
    minor: 38,
    end_of_life: None,
    dockershim: false,
    host_process: true,
    containerd: &[Release::new(2, 3, 0), Release::new(2, 2, 0)],
    containerd_one: ContainerdOne::Refused,
    default_containerd: CONTAINERD_TWO,
    kubeadm: KUBEADM_V1BETA4,
    win_overlay: Gate::Removed,
    win_dsr: Gate::Removed,
    kubelet: SANDBOX_FROM_RUNTIME,
    log_rotation: true,
    crictl: Some("v1.36.0"),
};

/// The last patch of each minor that ended before RKE2 packaged it (each minor's
/// `CHANGELOG/CHANGELOG-1.<minor>.md`, newest entry).
const FINAL_PATCHES: [(u32, u32); 12] = [
    (14, 10),
    (15, 12),
    (16, 15),
    (17, 17),
    (18, 20),
    (19, 16),
    (20, 15),
    (21, 14),
    (22, 17),
    (23, 17),
    (24, 17),
    (25, 16),
];

/// The newest patch of a minor hybridgen knows: its last one for the minors before RKE2's, else
/// the newest RKE2 packaged (rancher/rke2 tags to August 2026, [`super::rke2`]); `None` for a
/// minor neither knows. A later patch may have been released since, for a minor still
/// maintained.
pub fn newest_patch(minor: u32) -> Option<u32> {
    FINAL_PATCHES
        .iter()
        .find(|(final_minor, _)| *final_minor == minor)
        .map(|(_, patch)| *patch)
        .or_else(|| super::rke2::newest_kubernetes_patch(minor))
}

pub fn oldest() -> &'static KubernetesRelease {
    &RELEASES[0]
}

pub fn newest() -> &'static KubernetesRelease {
    &RELEASES[RELEASES.len() - 1]
}

/// The first minor of the table with a property, e.g. HostProcess containers on by default.
pub fn first(property: fn(&KubernetesRelease) -> bool) -> Option<&'static KubernetesRelease> {
    RELEASES.iter().find(|row| property(row))
}

/// Where upstream publishes each minor's end of life, for users to read.
pub const RELEASES_PAGE: &str = "https://kubernetes.io/releases/";

/// The end of life of the minors before the table, which a spec may still name
/// (kubernetes/website `data/releases/eol.yaml`).
const BEFORE_TABLE_END_OF_LIFE: [(u32, &str); 12] = [
    (2, "2016-10-23"),
    (3, "2016-11-01"),
    (4, "2017-04-21"),
    (5, "2017-10-01"),
    (6, "2017-11-23"),
    (7, "2018-04-04"),
    (8, "2018-07-12"),
    (9, "2018-09-29"),
    (10, "2019-02-13"),
    (11, "2019-05-01"),
    (12, "2019-07-08"),
    (13, "2019-10-15"),
];

/// A Kubernetes minor past its upstream end of life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndOfLife {
    pub minor: u32,
    /// The day it ended (ISO 8601).
    pub date: &'static str,
    /// The oldest minor still maintained, to move to.
    pub oldest_maintained: Option<u32>,
}

/// The oldest minor of the table still maintained: the first row without an end of life.
pub fn oldest_maintained() -> Option<&'static KubernetesRelease> {
    RELEASES.iter().find(|row| row.end_of_life.is_none())
}

/// The end of life of a version's minor, when the table says it has ended; `None` for a minor
/// still maintained or one it does not know. The table's dates decide, never the clock, so the
/// same spec always gives the same answer.
pub fn end_of_life(version: &Release) -> Option<EndOfLife> {
    if version.major != 1 {
        return None;
    }
    let date = match RELEASES.iter().find(|row| row.minor == version.minor) {
        Some(row) => row.end_of_life,
        None => BEFORE_TABLE_END_OF_LIFE
            .iter()
            .find(|(minor, _)| *minor == version.minor)
            .map(|(_, date)| *date),
    }?;
    Some(EndOfLife {
        minor: version.minor,
        date,
        oldest_maintained: oldest_maintained().map(|row| row.minor),
    })
}

/// Whether a version is a release the table knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// A minor of the table.
    Yes,
    /// A real minor before the table (1.13 and earlier): the oldest row stands for it.
    BeforeTable,
    /// The minor after the newest: it may have been released since; assumed as
    /// [`ASSUMED_AFTER_NEWEST`].
    AfterNewest,
    /// A version that cannot exist yet: two or more minors past the newest, or a major other
    /// than 1.
    Impossible,
}

/// A version's row, and how well the table knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    pub row: &'static KubernetesRelease,
    pub known: Known,
}

impl Resolved {
    /// Every kubelet flag removed in this minor or before it.
    pub fn removed_kubelet_flags(&self) -> impl Iterator<Item = &'static str> + '_ {
        RELEASES
            .iter()
            .chain([&ASSUMED_AFTER_NEWEST])
            .filter(|row| row.minor <= self.row.minor)
            .flat_map(|row| row.kubelet.removed_flags.iter().copied())
    }
}

pub fn resolve(version: &Release) -> Resolved {
    let after = &ASSUMED_AFTER_NEWEST;
    let (row, known) = match RELEASES.iter().find(|row| row.minor == version.minor) {
        _ if version.major == 0 => (oldest(), Known::Impossible),
        _ if version.major != 1 => (after, Known::Impossible),
        Some(row) => (row, Known::Yes),
        None if version.minor < oldest().minor => (oldest(), Known::BeforeTable),
        None if version.minor == newest().minor + 1 => (after, Known::AfterNewest),
        None => (after, Known::Impossible),
    };
    Resolved { row, known }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_newest_patch_comes_from_the_final_ones_then_rke2s_tags() {
        assert_eq!(newest_patch(24), Some(17));
        assert_eq!(newest_patch(33), Some(13));
        assert_eq!(newest_patch(37), None);
    }

    use super::*;

    #[test]
    fn one_row_per_minor_in_order_and_the_assumption_follows_the_newest() {
        for pair in RELEASES.windows(2) {
            assert_eq!(pair[0].minor + 1, pair[1].minor);
        }
        assert_eq!(ASSUMED_AFTER_NEWEST.minor, newest().minor + 1);
    }

    #[test]
    fn stages_and_supports_never_go_back() {
        let rows: Vec<&KubernetesRelease> =
            RELEASES.iter().chain([&ASSUMED_AFTER_NEWEST]).collect();
        for pair in rows.windows(2) {
            let (before, after) = (pair[0], pair[1]);
            assert!(before.win_overlay <= after.win_overlay, "{}", after.minor);
            assert!(before.win_dsr <= after.win_dsr, "{}", after.minor);
            assert!(
                before.containerd_one <= after.containerd_one,
                "{}",
                after.minor
            );
            assert!(before.kubeadm.api <= after.kubeadm.api, "{}", after.minor);
            assert!(before.dockershim >= after.dockershim, "{}", after.minor);
            assert!(before.log_rotation <= after.log_rotation, "{}", after.minor);
        }
    }

    #[test]
    fn the_default_containerd_is_one_the_minor_recommends() {
        for row in RELEASES.iter().filter(|row| !row.containerd.is_empty()) {
            let default = row.default_containerd;
            let listed = row
                .containerd
                .iter()
                .find(|minimum| (minimum.major, minimum.minor) == (default.major, default.minor));
            // 1.23 lists only 1.6, which reached its end of life, and 1.35 only lines that reached
            // theirs: the default is newer than every line they list.
            match listed {
                Some(minimum) => assert!(default >= *minimum, "1.{}", row.minor),
                None => assert!(
                    row.containerd.iter().all(|minimum| *minimum < default),
                    "1.{}",
                    row.minor
                ),
            }
        }
    }

    #[test]
    fn end_of_life_dates_follow_the_minors_up_to_the_oldest_maintained_one() {
        let maintained = oldest_maintained().expect("a maintained minor");
        assert_eq!(maintained.minor, 35);
        let dates: Vec<&str> = BEFORE_TABLE_END_OF_LIFE
            .iter()
            .map(|(_, date)| *date)
            .chain(RELEASES.iter().map_while(|row| row.end_of_life))
            .collect();
        for pair in dates.windows(2) {
            assert!(pair[0] < pair[1], "{} then {}", pair[0], pair[1]);
        }
        for row in RELEASES {
            assert_eq!(
                row.end_of_life.is_some(),
                row.minor < maintained.minor,
                "1.{}",
                row.minor
            );
            // ISO dates, which compare as text in the order of the days.
            if let Some(date) = row.end_of_life {
                assert!(date.len() == 10 && date.starts_with("20"), "{date}");
            }
        }
        assert_eq!(ASSUMED_AFTER_NEWEST.end_of_life, None);
        for pair in BEFORE_TABLE_END_OF_LIFE.windows(2) {
            assert_eq!(pair[0].0 + 1, pair[1].0);
        }
        assert_eq!(
            BEFORE_TABLE_END_OF_LIFE[BEFORE_TABLE_END_OF_LIFE.len() - 1].0 + 1,
            oldest().minor
        );
    }

    #[test]
    fn a_minor_past_its_end_of_life_names_the_oldest_maintained_one() {
        let ended = |text: &str| end_of_life(&Release::parse(text).unwrap());
        assert_eq!(
            ended("1.33.13"),
            Some(EndOfLife {
                minor: 33,
                date: "2026-06-28",
                oldest_maintained: Some(35)
            })
        );
        assert_eq!(ended("1.8.15").map(|end| end.date), Some("2018-07-12"));
        assert_eq!(ended("1.35.0"), None);
        assert_eq!(ended("1.38.0"), None);
        assert_eq!(ended("2.0.0"), None);
    }

    #[test]
    fn versions_past_the_table_are_assumed_or_impossible() {
        let known = |text: &str| resolve(&Release::parse(text).unwrap());
        assert_eq!(known("1.33.4").known, Known::Yes);
        assert_eq!(known("1.33.4").row.minor, 33);
        assert_eq!(known("1.13.5").known, Known::BeforeTable);
        assert_eq!(known("1.13.5").row.minor, 14);
        assert_eq!(known("1.38.0").known, Known::AfterNewest);
        assert_eq!(known("1.38.0").row.containerd_one, ContainerdOne::Refused);
        assert_eq!(known("1.39.0").known, Known::Impossible);
        assert_eq!(known("1.99.0").known, Known::Impossible);
        assert_eq!(known("2.0.0").known, Known::Impossible);
    }

    #[test]
    fn removed_flags_accumulate() {
        let at = |minor: u32| {
            resolve(&Release::new(1, minor, 0))
                .removed_kubelet_flags()
                .collect::<Vec<_>>()
        };
        assert!(at(23).is_empty());
        assert!(at(24).contains(&"--network-plugin"));
        assert!(!at(34).contains(&"--pod-infra-container-image"));
        assert!(at(35).contains(&"--pod-infra-container-image"));
        assert!(at(37).contains(&"--container-runtime"));
    }
}

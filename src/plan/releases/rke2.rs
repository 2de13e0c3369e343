//! Every RKE2 release with the flannel CNI hybridgen plans for, v1.26 to v1.36: one row per range
//! of releases that bundle the same `rke2-flannel` chart and Windows flanneld, read from each
//! rancher/rke2 tag's `charts/chart_versions.yaml` (the chart) and `Dockerfile.windows`
//! (`FLANNEL_VERSION`, the flanneld the Windows agent runs). A range without flannel is a release
//! before `cni: flannel` existed (rancher/rke2 PR #5322, the February 2024 releases). The chart's
//! values come from rancher/rke2-charts `charts/rke2-flannel/rke2-flannel/<chart>/` (see
//! [`CHART_LINES`]); what the Windows flanneld of a range means for Windows nodes is
//! [`WINDOWS_FLANNELD`]. Adding a release is adding a row.

use crate::plan::version::Release;

/// A range of RKE2 releases of one Kubernetes minor: `v1.<minor>.<patch>+rke2r<revision>` from
/// `from` to `to`, both `(patch, revision)`, inclusive.
#[derive(Debug, PartialEq, Eq)]
pub struct Rke2Release {
    pub minor: u32,
    pub from: (u32, u32),
    pub to: (u32, u32),
    /// The flannel the range bundles; `None` before `cni: flannel` existed.
    pub flannel: Option<Bundled>,
}

/// The flannel of a range of releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bundled {
    /// The `rke2-flannel` chart (`charts/chart_versions.yaml`).
    pub chart: Release,
    /// The flanneld the Windows agent runs (`Dockerfile.windows`, `FLANNEL_VERSION`).
    pub windows_flanneld: Release,
}

impl Bundled {
    /// The chart's tag as RKE2 writes it: the patch in three digits (`v0.27.001`, not `v0.27.1`,
    /// which reads like another chart, `v0.27.100`).
    pub fn chart_tag(&self) -> String {
        let chart = self.chart;
        format!("v{}.{}.{:03}", chart.major, chart.minor, chart.patch)
    }
}

/// What a line of `rke2-flannel` charts reads and defaults to, from its first chart on.
#[derive(Debug, PartialEq, Eq)]
pub struct ChartLine {
    pub first: Release,
    /// The value that sets the VXLAN port: `flannel.vxlanBackendPort` in v0.24.201, then
    /// `flannel.backendPort` (rancher/rke2-charts PR #424, which also left the VNI commented out).
    pub port_key: &'static str,
    /// The Linux VNI when the values set none: 4096, except in the charts of April and May 2024,
    /// whose `vni` is commented out so flannel's own default 1 applies (rancher/rke2#5952; fixed
    /// by rancher/rke2-charts PR #462, chart v0.25.103).
    pub default_vni: u32,
    pub default_port: u16,
    /// The Linux DaemonSet's tolerations: v0.24.201's template hard-codes one for every
    /// `NoSchedule` taint; from v0.24.400 the template renders `flannel.tolerations`, whose
    /// default is the same in every chart up to v0.28.906 (rancher/rke2-charts
    /// `charts/rke2-flannel/rke2-flannel/<version>/templates/daemonset.yaml` and `values.yaml`).
    /// None tolerates `CriticalAddonsOnly` (rancher/rke2#5629 is the same failure for an etcd taint).
    pub tolerations: &'static [Toleration],
}

/// A pod toleration as the scheduler matches it (Kubernetes "Taints and Tolerations"): `key`
/// `None` with `Exists` matches every key; `value` `None` is `operator: Exists`; `effect` `None`
/// matches every effect.
#[derive(Debug, PartialEq, Eq)]
pub struct Toleration {
    pub key: Option<&'static str>,
    pub value: Option<&'static str>,
    pub effect: Option<&'static str>,
}

impl Toleration {
    /// Whether this toleration lets a pod onto a node with the taint `key=value:effect`.
    pub fn tolerates(&self, key: &str, value: &str, effect: &str) -> bool {
        self.key.is_none_or(|own| own == key)
            && self.value.is_none_or(|own| own == value)
            && self.effect.is_none_or(|own| own == effect)
    }
}

/// Whether a taint written as RKE2's `node-taint` takes it (`key=value:effect` or `key:effect`)
/// is tolerated by one of `tolerations`; `None` when the text is no taint.
pub fn taint_tolerated(tolerations: &[Toleration], taint: &str) -> Option<bool> {
    let (key_value, effect) = taint.rsplit_once(':')?;
    let (key, value) = key_value.split_once('=').unwrap_or((key_value, ""));
    if key.is_empty() || !matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
        return None;
    }
    // A PreferNoSchedule taint keeps no DaemonSet pod off.
    let tolerated = effect == "PreferNoSchedule"
        || tolerations
            .iter()
            .any(|toleration| toleration.tolerates(key, value, effect));
    Some(tolerated)
}

/// chart v0.24.201's template: `- operator: Exists` with `effect: NoSchedule`.
const EVERY_NO_SCHEDULE: &[Toleration] = &[Toleration {
    key: None,
    value: None,
    effect: Some("NoSchedule"),
}];

/// `flannel.tolerations` of charts v0.24.400 to v0.28.906 (`key` without `operator` is `Equal`
/// with an empty value).
const CHART_VALUES_TOLERATIONS: &[Toleration] = &[
    Toleration {
        key: Some("node.kubernetes.io/not-ready"),
        value: Some(""),
        effect: Some("NoSchedule"),
    },
    Toleration {
        key: Some("node-role.kubernetes.io/control-plane"),
        value: Some(""),
        effect: Some("NoSchedule"),
    },
    Toleration {
        key: Some("node.cloudprovider.kubernetes.io/uninitialized"),
        value: Some("true"),
        effect: Some("NoSchedule"),
    },
    Toleration {
        key: Some("node-role.kubernetes.io/etcd"),
        value: None,
        effect: Some("NoExecute"),
    },
];

/// The chart lines RKE2 releases bundle, oldest first.
pub static CHART_LINES: [ChartLine; 3] = [
    ChartLine {
        first: Release::new(0, 24, 201),
        port_key: "vxlanBackendPort",
        default_vni: 4096,
        default_port: 4789,
        tolerations: EVERY_NO_SCHEDULE,
    },
    ChartLine {
        first: Release::new(0, 24, 400),
        port_key: "backendPort",
        default_vni: 1,
        default_port: 4789,
        tolerations: CHART_VALUES_TOLERATIONS,
    },
    ChartLine {
        first: Release::new(0, 25, 103),
        port_key: "backendPort",
        default_vni: 4096,
        default_port: 4789,
        tolerations: CHART_VALUES_TOLERATIONS,
    },
];

/// Flannel on Windows agents, by the flanneld they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WindowsFlannel {
    /// The February and March 2024 releases (flanneld v0.24.2): the first with flannel on Windows,
    /// before the fixes of April 2024 (rancher/rke2 PRs #5661, #5666, #5667).
    Early,
    /// The April and May 2024 releases (flanneld v0.25.1), whose chart defaults the Linux VNI to 1
    /// while Windows uses 4096 (rancher/rke2#5952). rancher/rke2#6171 (fixed by flanneld v0.25.4
    /// in rancher/rke2 PR #6172) was v0.25.3's bug in June 2024 development builds, not v0.25.1's.
    Broken,
    /// June 2024 (flanneld v0.25.4) and later.
    Supported,
}

/// What each Windows flanneld means for Windows nodes, from that release on, oldest first.
pub static WINDOWS_FLANNELD: [(Release, WindowsFlannel); 3] = [
    (Release::new(0, 24, 2), WindowsFlannel::Early),
    (Release::new(0, 25, 1), WindowsFlannel::Broken),
    (Release::new(0, 25, 4), WindowsFlannel::Supported),
];

impl Bundled {
    /// The chart line of this chart.
    pub fn chart_line(&self) -> &'static ChartLine {
        chart_line(self.chart)
    }

    pub fn windows(&self) -> WindowsFlannel {
        WINDOWS_FLANNELD
            .iter()
            .rev()
            .find(|(first, _)| *first <= self.windows_flanneld)
            .map_or(WindowsFlannel::Early, |(_, support)| *support)
    }
}

/// The line of a chart version (a chart before the first line reads as the first).
pub fn chart_line(chart: Release) -> &'static ChartLine {
    CHART_LINES
        .iter()
        .rev()
        .find(|line| line.first <= chart)
        .unwrap_or(&CHART_LINES[0])
}

const fn without_flannel(minor: u32, from: (u32, u32), to: (u32, u32)) -> Rke2Release {
    Rke2Release {
        minor,
        from,
        to,
        flannel: None,
    }
}

const fn with_flannel(
    minor: u32,
    from: (u32, u32),
    to: (u32, u32),
    chart: Release,
    windows_flanneld: Release,
) -> Rke2Release {
    Rke2Release {
        minor,
        from,
        to,
        flannel: Some(Bundled {
            chart,
            windows_flanneld,
        }),
    }
}

/// Every range, in release order.
#[rustfmt::skip]
pub static RELEASES: &[Rke2Release] = &[
    without_flannel(26, (0, 1), (13, 1)),
    with_flannel(26, (14, 1), (15, 1), Release::new(0, 24, 201), Release::new(0, 24, 2)),
    without_flannel(27, (1, 1), (10, 1)),
    with_flannel(27, (11, 1), (12, 1), Release::new(0, 24, 201), Release::new(0, 24, 2)),
    with_flannel(27, (13, 1), (14, 1), Release::new(0, 25, 102), Release::new(0, 25, 1)),
    with_flannel(27, (15, 1), (16, 1), Release::new(0, 25, 400), Release::new(0, 25, 4)),
    with_flannel(27, (16, 2), (16, 2), Release::new(0, 25, 501), Release::new(0, 25, 5)),
    without_flannel(28, (1, 1), (6, 1)),
    with_flannel(28, (7, 1), (8, 1), Release::new(0, 24, 201), Release::new(0, 24, 2)),
    with_flannel(28, (9, 1), (10, 1), Release::new(0, 25, 102), Release::new(0, 25, 1)),
    with_flannel(28, (11, 1), (12, 1), Release::new(0, 25, 400), Release::new(0, 25, 4)),
    with_flannel(28, (13, 1), (13, 1), Release::new(0, 25, 501), Release::new(0, 25, 5)),
    with_flannel(28, (14, 1), (14, 1), Release::new(0, 25, 601), Release::new(0, 25, 6)),
    with_flannel(28, (15, 1), (15, 1), Release::new(0, 25, 704), Release::new(0, 25, 7)),
    without_flannel(29, (0, 1), (1, 1)),
    with_flannel(29, (2, 1), (3, 1), Release::new(0, 24, 201), Release::new(0, 24, 2)),
    with_flannel(29, (4, 1), (5, 1), Release::new(0, 25, 102), Release::new(0, 25, 1)),
    with_flannel(29, (6, 1), (7, 1), Release::new(0, 25, 400), Release::new(0, 25, 4)),
    with_flannel(29, (8, 1), (8, 1), Release::new(0, 25, 501), Release::new(0, 25, 5)),
    with_flannel(29, (9, 1), (9, 1), Release::new(0, 25, 601), Release::new(0, 25, 6)),
    with_flannel(29, (10, 1), (10, 1), Release::new(0, 25, 704), Release::new(0, 25, 7)),
    with_flannel(29, (11, 1), (11, 1), Release::new(0, 26, 100), Release::new(0, 26, 1)),
    with_flannel(29, (12, 1), (12, 1), Release::new(0, 26, 101), Release::new(0, 26, 1)),
    with_flannel(29, (13, 1), (13, 1), Release::new(0, 26, 300), Release::new(0, 26, 3)),
    with_flannel(29, (14, 1), (14, 1), Release::new(0, 26, 403), Release::new(0, 26, 4)),
    with_flannel(29, (15, 1), (15, 1), Release::new(0, 26, 500), Release::new(0, 26, 5)),
    with_flannel(30, (0, 1), (1, 1), Release::new(0, 25, 102), Release::new(0, 25, 1)),
    with_flannel(30, (2, 1), (3, 1), Release::new(0, 25, 400), Release::new(0, 25, 4)),
    with_flannel(30, (4, 1), (4, 1), Release::new(0, 25, 501), Release::new(0, 25, 5)),
    with_flannel(30, (5, 1), (5, 1), Release::new(0, 25, 601), Release::new(0, 25, 6)),
    with_flannel(30, (6, 1), (6, 1), Release::new(0, 25, 704), Release::new(0, 25, 7)),
    with_flannel(30, (7, 1), (7, 1), Release::new(0, 26, 100), Release::new(0, 26, 1)),
    with_flannel(30, (8, 1), (8, 1), Release::new(0, 26, 101), Release::new(0, 26, 1)),
    with_flannel(30, (9, 1), (9, 1), Release::new(0, 26, 300), Release::new(0, 26, 3)),
    with_flannel(30, (10, 1), (10, 1), Release::new(0, 26, 403), Release::new(0, 26, 4)),
    with_flannel(30, (11, 1), (11, 1), Release::new(0, 26, 500), Release::new(0, 26, 5)),
    with_flannel(30, (12, 1), (12, 1), Release::new(0, 26, 601), Release::new(0, 26, 6)),
    with_flannel(30, (13, 1), (13, 1), Release::new(0, 26, 701), Release::new(0, 26, 7)),
    with_flannel(30, (14, 1), (14, 1), Release::new(0, 27, 1), Release::new(0, 27, 0)),
    with_flannel(30, (14, 2), (14, 2), Release::new(0, 27, 100), Release::new(0, 27, 1)),
    with_flannel(30, (14, 4), (14, 4), Release::new(0, 27, 200), Release::new(0, 27, 2)),
    with_flannel(31, (0, 1), (0, 1), Release::new(0, 25, 501), Release::new(0, 25, 5)),
    with_flannel(31, (1, 1), (1, 1), Release::new(0, 25, 601), Release::new(0, 25, 6)),
    with_flannel(31, (1, 2), (1, 2), Release::new(0, 25, 701), Release::new(0, 25, 7)),
    with_flannel(31, (2, 1), (2, 1), Release::new(0, 25, 704), Release::new(0, 25, 7)),
    with_flannel(31, (3, 1), (3, 1), Release::new(0, 26, 100), Release::new(0, 26, 1)),
    with_flannel(31, (4, 1), (4, 1), Release::new(0, 26, 101), Release::new(0, 26, 1)),
    with_flannel(31, (5, 1), (5, 1), Release::new(0, 26, 300), Release::new(0, 26, 3)),
    with_flannel(31, (6, 1), (6, 1), Release::new(0, 26, 403), Release::new(0, 26, 4)),
    with_flannel(31, (7, 1), (7, 1), Release::new(0, 26, 500), Release::new(0, 26, 5)),
    with_flannel(31, (8, 1), (8, 1), Release::new(0, 26, 601), Release::new(0, 26, 6)),
    with_flannel(31, (9, 1), (9, 1), Release::new(0, 26, 701), Release::new(0, 26, 7)),
    with_flannel(31, (10, 1), (10, 1), Release::new(0, 27, 1), Release::new(0, 27, 0)),
    with_flannel(31, (11, 1), (11, 1), Release::new(0, 27, 100), Release::new(0, 27, 1)),
    with_flannel(31, (12, 1), (12, 1), Release::new(0, 27, 200), Release::new(0, 27, 2)),
    with_flannel(31, (13, 1), (13, 1), Release::new(0, 27, 302), Release::new(0, 27, 3)),
    with_flannel(31, (14, 1), (14, 1), Release::new(0, 27, 401), Release::new(0, 27, 4)),
    with_flannel(31, (14, 2), (14, 2), Release::new(0, 27, 403), Release::new(0, 27, 4)),
    with_flannel(32, (0, 1), (0, 1), Release::new(0, 26, 101), Release::new(0, 26, 1)),
    with_flannel(32, (1, 1), (1, 1), Release::new(0, 26, 300), Release::new(0, 26, 3)),
    with_flannel(32, (2, 1), (2, 1), Release::new(0, 26, 403), Release::new(0, 26, 4)),
    with_flannel(32, (3, 1), (3, 1), Release::new(0, 26, 500), Release::new(0, 26, 5)),
    with_flannel(32, (4, 1), (4, 1), Release::new(0, 26, 601), Release::new(0, 26, 6)),
    with_flannel(32, (5, 1), (5, 1), Release::new(0, 26, 701), Release::new(0, 26, 7)),
    with_flannel(32, (6, 1), (6, 1), Release::new(0, 27, 1), Release::new(0, 27, 0)),
    with_flannel(32, (7, 1), (7, 1), Release::new(0, 27, 100), Release::new(0, 27, 1)),
    with_flannel(32, (8, 1), (8, 1), Release::new(0, 27, 200), Release::new(0, 27, 2)),
    with_flannel(32, (9, 1), (9, 1), Release::new(0, 27, 302), Release::new(0, 27, 3)),
    with_flannel(32, (10, 1), (10, 1), Release::new(0, 27, 401), Release::new(0, 27, 4)),
    with_flannel(32, (11, 1), (11, 1), Release::new(0, 27, 403), Release::new(0, 27, 4)),
    with_flannel(32, (11, 2), (11, 3), Release::new(0, 28, 2), Release::new(0, 28, 0)),
    with_flannel(32, (12, 1), (13, 1), Release::new(0, 28, 101), Release::new(0, 28, 1)),
    with_flannel(32, (13, 2), (13, 2), Release::new(0, 28, 200), Release::new(0, 28, 2)),
    with_flannel(33, (0, 1), (0, 1), Release::new(0, 26, 601), Release::new(0, 26, 6)),
    with_flannel(33, (1, 1), (1, 1), Release::new(0, 26, 701), Release::new(0, 26, 7)),
    with_flannel(33, (2, 1), (2, 1), Release::new(0, 27, 1), Release::new(0, 27, 0)),
    with_flannel(33, (3, 1), (3, 1), Release::new(0, 27, 100), Release::new(0, 27, 1)),
    with_flannel(33, (4, 1), (4, 1), Release::new(0, 27, 200), Release::new(0, 27, 2)),
    with_flannel(33, (5, 1), (5, 1), Release::new(0, 27, 302), Release::new(0, 27, 3)),
    with_flannel(33, (6, 1), (6, 1), Release::new(0, 27, 401), Release::new(0, 27, 4)),
    with_flannel(33, (7, 1), (7, 1), Release::new(0, 27, 403), Release::new(0, 27, 4)),
    with_flannel(33, (7, 2), (7, 3), Release::new(0, 28, 2), Release::new(0, 28, 0)),
    with_flannel(33, (8, 1), (9, 1), Release::new(0, 28, 101), Release::new(0, 28, 1)),
    with_flannel(33, (10, 1), (10, 3), Release::new(0, 28, 200), Release::new(0, 28, 2)),
    with_flannel(33, (11, 1), (11, 1), Release::new(0, 28, 400), Release::new(0, 28, 4)),
    with_flannel(33, (12, 1), (12, 2), Release::new(0, 28, 402), Release::new(0, 28, 4)),
    with_flannel(33, (13, 1), (13, 1), Release::new(0, 28, 502), Release::new(0, 28, 5)),
    with_flannel(33, (13, 2), (13, 2), Release::new(0, 28, 800), Release::new(0, 28, 8)),
    with_flannel(34, (1, 1), (1, 1), Release::new(0, 27, 302), Release::new(0, 27, 3)),
    with_flannel(34, (2, 1), (2, 1), Release::new(0, 27, 401), Release::new(0, 27, 4)),
    with_flannel(34, (3, 1), (3, 1), Release::new(0, 27, 403), Release::new(0, 27, 4)),
    with_flannel(34, (3, 2), (3, 3), Release::new(0, 28, 2), Release::new(0, 28, 0)),
    with_flannel(34, (4, 1), (5, 1), Release::new(0, 28, 101), Release::new(0, 28, 1)),
    with_flannel(34, (6, 1), (6, 3), Release::new(0, 28, 200), Release::new(0, 28, 2)),
    with_flannel(34, (7, 1), (7, 1), Release::new(0, 28, 400), Release::new(0, 28, 4)),
    with_flannel(34, (8, 1), (8, 2), Release::new(0, 28, 402), Release::new(0, 28, 4)),
    with_flannel(34, (9, 1), (9, 1), Release::new(0, 28, 502), Release::new(0, 28, 5)),
    with_flannel(34, (10, 1), (10, 1), Release::new(0, 28, 800), Release::new(0, 28, 8)),
    with_flannel(35, (0, 1), (0, 1), Release::new(0, 27, 403), Release::new(0, 27, 4)),
    with_flannel(35, (0, 2), (0, 3), Release::new(0, 28, 2), Release::new(0, 28, 0)),
    with_flannel(35, (1, 1), (2, 1), Release::new(0, 28, 101), Release::new(0, 28, 1)),
    with_flannel(35, (3, 1), (3, 3), Release::new(0, 28, 200), Release::new(0, 28, 2)),
    with_flannel(35, (4, 1), (4, 1), Release::new(0, 28, 400), Release::new(0, 28, 4)),
    with_flannel(35, (5, 1), (5, 2), Release::new(0, 28, 402), Release::new(0, 28, 4)),
    with_flannel(35, (6, 1), (6, 1), Release::new(0, 28, 502), Release::new(0, 28, 5)),
    with_flannel(35, (7, 1), (7, 1), Release::new(0, 28, 800), Release::new(0, 28, 8)),
    with_flannel(36, (0, 1), (1, 2), Release::new(0, 28, 402), Release::new(0, 28, 4)),
    with_flannel(36, (2, 1), (2, 1), Release::new(0, 28, 502), Release::new(0, 28, 5)),
    with_flannel(36, (3, 1), (3, 1), Release::new(0, 28, 800), Release::new(0, 28, 8)),
];

/// An RKE2 release resolved against the table.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The release's range; for a release the table does not hold, the nearest one before it
    /// (assumed); `None` for a minor before the table, which has no flannel.
    pub row: Option<&'static Rke2Release>,
    /// `v1.31.4+rke2r1`.
    pub tag: String,
    /// Whether a range of the table holds the release.
    pub known: bool,
    /// Whether the release is newer than every release of its minor the table holds (or of a
    /// newer minor): it may have been published since. An unknown release that is not is a gap
    /// between published ones, which RKE2 never released.
    pub after_table: bool,
}

impl Resolved {
    /// The flannel the release bundles, if it has `cni: flannel`.
    pub fn flannel(&self) -> Option<&'static Bundled> {
        self.row.and_then(|row| row.flannel.as_ref())
    }
}

/// Resolves `v<release>+rke2r<revision>`.
pub fn resolve(release: Release, revision: u32) -> Resolved {
    let tag = format!("v{release}+rke2r{revision}");
    let position = (release.patch, revision);
    let newest = RELEASES.last();
    let row = if release.major != 1 {
        None
    } else if newest.is_some_and(|newest| release.minor > newest.minor) {
        newest
    } else {
        // A patch before the minor's first release is none RKE2 published: the first one's
        // range is assumed.
        RELEASES
            .iter()
            .rev()
            .find(|row| row.minor == release.minor && row.from <= position)
            .or_else(|| RELEASES.iter().find(|row| row.minor == release.minor))
    };
    let known = row.is_some_and(|row| {
        row.minor == release.minor && row.from <= position && position <= row.to
    });
    let after_table =
        release.major == 1 && newest_in_minor(release.minor).is_none_or(|to| position > to);
    Resolved {
        row,
        tag,
        known,
        after_table,
    }
}

/// The first release of a minor whose Windows agents run a supported flannel, if any.
pub fn first_supported_on_windows(minor: u32) -> Option<String> {
    first_bundling(minor, |flannel| {
        flannel.windows() == WindowsFlannel::Supported
    })
}

/// The first release of a minor whose flannel is `wanted`.
fn first_bundling(minor: u32, wanted: impl Fn(&Bundled) -> bool) -> Option<String> {
    RELEASES
        .iter()
        .find(|row| row.minor == minor && row.flannel.as_ref().is_some_and(&wanted))
        .map(|row| tag(minor, row.from))
}

/// `v1.<minor>.<patch>+rke2r<revision>`.
fn tag(minor: u32, (patch, revision): (u32, u32)) -> String {
    format!("v1.{minor}.{patch}+rke2r{revision}")
}

/// The newest release of a minor the table holds, as `(patch, revision)`.
pub fn newest_in_minor(minor: u32) -> Option<(u32, u32)> {
    RELEASES
        .iter()
        .filter(|row| row.minor == minor)
        .map(|row| row.to)
        .max()
}

/// The newest Kubernetes patch of a minor RKE2 released (its tags follow Kubernetes' patches).
pub fn newest_kubernetes_patch(minor: u32) -> Option<u32> {
    newest_in_minor(minor).map(|(patch, _)| patch)
}

/// The first release of a minor with `cni: flannel`, if any.
pub fn first_with_flannel(minor: u32) -> Option<String> {
    first_bundling(minor, |_| true)
}

/// The newest release of a minor the table holds, `v1.<minor>.<patch>+rke2r<revision>`.
pub fn newest_of_minor(minor: u32) -> Option<String> {
    newest_in_minor(minor).map(|newest| tag(minor, newest))
}

/// The release of the same minor nearest to `v<release>+rke2r<revision>` that the table knows
/// was published (a range's first or last): the newest of the minor for a release past it, else
/// the closest by patch, then by revision. `None` for a minor the table lacks.
pub fn nearest_of_minor(release: Release, revision: u32) -> Option<String> {
    let wanted = (release.patch, revision);
    RELEASES
        .iter()
        .filter(|row| release.major == 1 && row.minor == release.minor)
        .flat_map(|row| [row.from, row.to])
        .min_by_key(|&(patch, rev)| (patch.abs_diff(wanted.0), rev.abs_diff(wanted.1)))
        .map(|published| tag(release.minor, published))
}

/// The newest release of the table.
pub fn newest() -> String {
    RELEASES
        .last()
        .map_or_else(String::new, |row| tag(row.minor, row.to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_tags_keep_three_digits_of_patch() {
        let tag = |patch| {
            Bundled {
                chart: Release::new(0, 27, patch),
                windows_flanneld: Release::new(0, 27, 0),
            }
            .chart_tag()
        };
        assert_eq!(tag(1), "v0.27.001");
        assert_eq!(tag(401), "v0.27.401");
        assert_eq!(tag(100), "v0.27.100");
    }

    fn at(text: &str, revision: u32) -> Resolved {
        resolve(Release::parse(text).unwrap(), revision)
    }

    #[test]
    fn a_gap_between_known_releases_is_not_after_the_table() {
        let gap = at("1.34.0", 1);
        assert!(!gap.known && !gap.after_table);
        assert!(at("1.36.4", 1).after_table);
        assert!(at("1.37.0", 1).after_table);
        assert!(at("1.33.5", 1).known);
    }

    #[test]
    fn ranges_are_in_order_and_do_not_overlap() {
        for pair in RELEASES.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            assert!(a.from <= a.to, "{a:?}");
            assert!((a.minor, a.to) < (b.minor, b.from), "{a:?} overlaps {b:?}");
        }
    }

    #[test]
    fn flannel_came_with_the_february_2024_releases() {
        assert_eq!(first_with_flannel(29).as_deref(), Some("v1.29.2+rke2r1"));
        assert_eq!(first_with_flannel(28).as_deref(), Some("v1.28.7+rke2r1"));
        assert_eq!(first_with_flannel(26).as_deref(), Some("v1.26.14+rke2r1"));
        assert!(at("1.29.1", 1).flannel().is_none());
        assert!(at("1.25.9", 1).flannel().is_none());
        assert!(at("1.25.9", 1).row.is_none());
    }

    #[test]
    fn the_april_2024_charts_default_the_linux_vni_to_1() {
        for (version, vni, key) in [
            ("1.29.3", 4096, "vxlanBackendPort"),
            ("1.29.4", 1, "backendPort"),
            ("1.30.1", 1, "backendPort"),
            ("1.30.2", 4096, "backendPort"),
            ("1.33.5", 4096, "backendPort"),
        ] {
            let line = at(version, 1).flannel().unwrap().chart_line();
            assert_eq!((line.default_vni, line.port_key), (vni, key), "{version}");
        }
    }

    #[test]
    fn windows_flannel_is_supported_from_june_2024() {
        let windows = |version: &str| at(version, 1).flannel().map(Bundled::windows);
        assert_eq!(windows("1.28.8"), Some(WindowsFlannel::Early));
        assert_eq!(windows("1.28.10"), Some(WindowsFlannel::Broken));
        assert_eq!(windows("1.28.11"), Some(WindowsFlannel::Supported));
        assert_eq!(
            first_supported_on_windows(30).as_deref(),
            Some("v1.30.2+rke2r1")
        );
        assert_eq!(first_supported_on_windows(26), None);
    }

    #[test]
    fn revisions_and_releases_past_the_table_are_resolved_to_the_range_before() {
        let r2 = at("1.27.16", 2);
        assert_eq!(r2.tag, "v1.27.16+rke2r2");
        assert_eq!(r2.flannel().unwrap().chart, Release::new(0, 25, 501));
        assert!(r2.known);
        let later = at("1.36.9", 1);
        assert!(!later.known);
        assert_eq!(later.row.unwrap().minor, 36);
        let future = at("1.40.0", 1);
        assert!(!future.known);
        assert!(future.flannel().is_some());
        // RKE2 published no v1.34.0: v1.34.1's range is assumed.
        let unpublished = at("1.34.0", 1);
        assert!(!unpublished.known);
        assert_eq!(unpublished.row.unwrap().from, (1, 1));
    }
}

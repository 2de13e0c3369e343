//! Every Windows build hybridgen names: one row per build (microsoft/hcsshim
//! `osversion/windowsbuilds.go`), with the container image tags that name it, the updates its
//! networking and HostProcess containers need, and the Kubernetes minors whose "Windows in
//! Kubernetes" page (kubernetes/website `content/en/docs/concepts/windows/intro.md`) lists it as
//! supported.

use super::MountLayout;
use crate::plan::version::WindowsBuild;

/// One Windows build.
#[derive(Debug, PartialEq, Eq)]
pub struct WindowsRelease {
    pub build: u32,
    pub name: &'static str,
    /// The image tags that name the build, lower case.
    pub tags: &'static [&'static str],
    /// The Nano Server and Server Core tags made for it, when Microsoft publishes them.
    pub images: Option<BaseImages>,
    /// VXLAN overlay networking (HNS remote subnets): KB4489899 on Windows Server 2019
    /// (kubernetes/website `windows-networking.md`; microsoft/SDN overlay README).
    pub overlay: Update,
    /// The Direct Server Return kube-proxy checks for: KB4580390 on Windows Server 2019
    /// (kubernetes-sigs/sig-windows-tools `hostprocess/calico/kube-proxy/start.ps1`).
    pub dsr: Update,
    /// The bind filter HostProcess bind mounts use (`bindfltapi.dll`, microsoft/hcsshim #1344):
    /// from Windows 20H1, and on Windows Server 2019 from the July 2022 update
    /// (kubernetes/enhancements KEP-1981 "Compatibility"; KB5015811 is that update).
    pub bind_filter: Update,
    /// The Kubernetes minors that list the build as supported, first to last (`None`: still).
    pub kubernetes: Option<(u32, Option<u32>)>,
}

/// The Nano Server and Server Core tags of a build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BaseImages {
    pub nanoserver: &'static str,
    pub servercore: &'static str,
}

/// Whether a build has a feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Update {
    Never,
    /// From this update revision (`10.0.<build>.<revision>`), named by its KB.
    FromRevision(u32, &'static str),
    Always,
}

/// Whether one node's build has a feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Has {
    Yes,
    No,
    /// The feature came with an update, and the build is written without its revision.
    Unknown,
}

const fn images(nanoserver: &'static str, servercore: &'static str) -> Option<BaseImages> {
    Some(BaseImages {
        nanoserver,
        servercore,
    })
}

/// A build before Windows Server 2019: no Kubernetes minor lists it, and it has none of the
/// features the table tracks (overlay, DSR, the bind filter).
const fn before_2019(
    build: u32,
    name: &'static str,
    tags: &'static [&'static str],
) -> WindowsRelease {
    WindowsRelease {
        build,
        name,
        tags,
        images: None,
        overlay: Update::Never,
        dsr: Update::Never,
        bind_filter: Update::Never,
        kubernetes: None,
    }
}

/// Every build, oldest first.
pub static BUILDS: &[WindowsRelease] = &[
    before_2019(14393, "Windows Server 2016 (1607)", &["ltsc2016", "1607"]),
    before_2019(16299, "Windows Server 1709", &["1709"]),
    before_2019(17134, "Windows Server 1803", &["1803"]),
    // Dropped from the Kubernetes page for 1.35 (kubernetes/website PR #53724).
    WindowsRelease {
        build: 17763,
        name: "Windows Server 2019 (1809)",
        tags: &["1809", "ltsc2019"],
        images: images("1809", "ltsc2019"),
        overlay: Update::FromRevision(379, "KB4489899"),
        dsr: Update::FromRevision(1554, "KB4580390"),
        bind_filter: Update::FromRevision(3165, "KB5015811"),
        kubernetes: Some((14, Some(34))),
    },
    WindowsRelease {
        build: 18362,
        name: "Windows Server 1903",
        tags: &["1903"],
        images: images("1903", "1903"),
        overlay: Update::Always,
        dsr: Update::Always,
        bind_filter: Update::Never,
        kubernetes: Some((18, Some(18))),
    },
    WindowsRelease {
        build: 18363,
        name: "Windows Server 1909",
        tags: &["1909"],
        images: images("1909", "1909"),
        overlay: Update::Always,
        dsr: Update::Always,
        bind_filter: Update::Never,
        kubernetes: Some((18, Some(20))),
    },
    WindowsRelease {
        build: 19041,
        name: "Windows Server 2004",
        tags: &["2004"],
        images: images("2004", "2004"),
        overlay: Update::Always,
        dsr: Update::Always,
        bind_filter: Update::Always,
        kubernetes: Some((19, Some(22))),
    },
    WindowsRelease {
        build: 19042,
        name: "Windows Server 20H2",
        tags: &["20h2"],
        images: images("20H2", "20H2"),
        overlay: Update::Always,
        dsr: Update::Always,
        bind_filter: Update::Always,
        kubernetes: Some((21, Some(34))),
    },
    WindowsRelease {
        build: 20348,
        name: "Windows Server 2022",
        tags: &["ltsc2022"],
        images: images("ltsc2022", "ltsc2022"),
        overlay: Update::Always,
        dsr: Update::Always,
        bind_filter: Update::Always,
        kubernetes: Some((23, None)),
    },
    WindowsRelease {
        build: 25398,
        name: "Windows Server 23H2",
        tags: &[],
        images: None,
        overlay: Update::Always,
        dsr: Update::Always,
        bind_filter: Update::Always,
        kubernetes: None,
    },
    // Listed from 1.35 (kubernetes/website PR #53724): "Windows Server 2022 or Windows Server 2025".
    // Overlay networking was broken until the October 2025 cumulative update, KB5066835
    // (26100.6899): rancher/rancher#50915, quoting SIG-Windows ("only impacting overlay networking
    // mode. Targeted to release with 10B (oct 2025 patches)").
    WindowsRelease {
        build: 26100,
        name: "Windows Server 2025",
        tags: &["ltsc2025"],
        images: images("ltsc2025", "ltsc2025"),
        overlay: Update::FromRevision(6899, "KB5066835"),
        dsr: Update::Always,
        bind_filter: Update::Always,
        kubernetes: Some((35, None)),
    },
];

/// The build's row, if the table has it.
pub fn row(build: u32) -> Option<&'static WindowsRelease> {
    BUILDS.iter().find(|row| row.build == build)
}

/// The oldest build any Kubernetes minor lists as supported (Windows Server 2019).
pub fn first_supported() -> &'static WindowsRelease {
    BUILDS
        .iter()
        .find(|row| row.kubernetes.is_some())
        .unwrap_or(&BUILDS[0])
}

/// The build a name people call it by stands for: its year or version (`2022`, `1809`), its
/// image tag (`ltsc2022`), or its whole name (`Windows Server 2022`).
pub fn named(text: &str) -> Option<&'static WindowsRelease> {
    let lower = text.trim().to_ascii_lowercase();
    let bare = lower.trim_start_matches("windows server").trim();
    (!bare.is_empty()).then_some(())?;
    BUILDS.iter().find(|row| {
        let name = row.name.to_ascii_lowercase();
        let words = name.trim_start_matches("windows server");
        row.tags.contains(&bare)
            || words.trim() == bare
            || words.split([' ', '(', ')']).any(|word| word == bare)
    })
}

/// The build written out with a revision that has every update hybridgen's tables say it needs
/// (its features' first revisions and its advisories' fixes), e.g. `10.0.20348.2762`; without a
/// revision for a build that needs none.
pub fn with_needed_updates(row: &WindowsRelease) -> String {
    let features = [row.overlay, row.dsr, row.bind_filter]
        .into_iter()
        .filter_map(|update| match update {
            Update::FromRevision(revision, _) => Some(revision),
            Update::Never | Update::Always => None,
        });
    let fixes =
        super::advisories::ADVISORIES
            .iter()
            .filter_map(|advisory| match advisory.affected {
                super::advisories::Affected::WindowsRevisions { build, fixed, .. }
                    if build == row.build =>
                {
                    Some(fixed)
                }
                _ => None,
            });
    match features.chain(fixes).max() {
        Some(revision) => format!("10.0.{}.{revision}", row.build),
        None => format!("10.0.{}", row.build),
    }
}

/// One pause image tag and the Windows builds its variants are built for. `unknown` lists the
/// builds no readable source confirms either way; every other build has no variant.
#[derive(Debug, PartialEq, Eq)]
pub struct PauseImage {
    pub image: &'static str,
    pub builds: &'static [u32],
    pub unknown: &'static [u32],
    /// Where the variant list comes from.
    pub source: &'static str,
}

/// Every pause image hybridgen picks by default, with the Windows variants each carries.
/// `registry.k8s.io/pause` rows are oldest first; "CHANGELOG x" is that tag's section of
/// https://github.com/kubernetes/kubernetes/blob/master/build/pause/CHANGELOG.md, each tag keeping
/// the previous one's variants unless its section says otherwise.
pub static PAUSE_IMAGES: &[PauseImage] = &[
    // Microsoft's KubeCluster.ps1 pause, built on nanoserver:1809 only: it fails on 1903
    // (kubernetes/kubernetes#80032); microsoft/SDN `Kubernetes/windows/helper.psm1`.
    PauseImage {
        image: "mcr.microsoft.com/k8s/core/pause:1.0.0",
        builds: &[17763],
        unknown: &[],
        source: "kubernetes/kubernetes#80032",
    },
    PauseImage {
        image: "mcr.microsoft.com/k8s/core/pause:1.2.0",
        builds: &[17763],
        unknown: &[],
        source: "microsoft/SDN Kubernetes/windows/helper.psm1; kubernetes/kubernetes#80032",
    },
    PauseImage {
        image: "registry.k8s.io/pause:3.4",
        builds: &[17763, 18362, 18363, 19041],
        unknown: &[],
        source: "CHANGELOG 3.4 (kubernetes/kubernetes#91452)",
    },
    PauseImage {
        image: "registry.k8s.io/pause:3.4.1",
        builds: &[17763, 18362, 18363, 19041, 19042],
        unknown: &[],
        source: "CHANGELOG 3.4.1 (kubernetes/kubernetes#97322)",
    },
    PauseImage {
        image: "registry.k8s.io/pause:3.5",
        builds: &[17763, 18362, 18363, 19041, 19042],
        unknown: &[],
        source: "CHANGELOG 3.5 (no Windows change; kubernetes/kubernetes#97963)",
    },
    PauseImage {
        image: "registry.k8s.io/pause:3.6",
        builds: &[17763, 18362, 18363, 19041, 19042, 20348],
        unknown: &[],
        source: "CHANGELOG 3.6 (kubernetes/kubernetes#104438)",
    },
    PauseImage {
        image: "registry.k8s.io/pause:3.7",
        builds: &[17763, 19042, 20348],
        unknown: &[],
        source: "CHANGELOG 3.7 (kubernetes/kubernetes#107056)",
    },
    PauseImage {
        image: "registry.k8s.io/pause:3.8",
        builds: &[17763, 19042, 20348],
        unknown: &[],
        source: "CHANGELOG 3.8 (new Windows base image, same versions)",
    },
    PauseImage {
        image: "registry.k8s.io/pause:3.9",
        builds: &[17763, 20348],
        unknown: &[],
        source: "CHANGELOG 3.9 (20H2 removed, kubernetes/kubernetes#112924)",
    },
    PauseImage {
        image: "registry.k8s.io/pause:3.10",
        builds: &[17763, 20348],
        unknown: &[],
        source: "CHANGELOG 3.10 (`pause -v` on Windows, kubernetes/kubernetes#125067); `build/pause/Makefile` at TAG 3.10 (ALL_OSVERSIONS.windows := 1809 ltsc2022)",
    },
    // From 3.10.1 the Makefile builds one variant per os.version of the base image
    // `windows-pause-image-base:v0.4.1`, and no readable source lists those versions.
    PauseImage {
        image: "registry.k8s.io/pause:3.10.1",
        builds: &[],
        unknown: &[17763, 20348],
        source: "CHANGELOG 3.10.1 (base image windows-pause-image-base:v0.4.1, kubernetes/kubernetes#130102; containerd/containerd#12085)",
    },
    PauseImage {
        image: "registry.k8s.io/pause:3.10.2",
        builds: &[26100],
        unknown: &[17763, 20348],
        source: "CHANGELOG 3.10.2 (kubernetes/kubernetes#138195; containerd/containerd#13156)",
    },
];

/// The pause image's row, if the table has it.
pub fn pause_image(image: &str) -> Option<&'static PauseImage> {
    PAUSE_IMAGES.iter().find(|row| row.image == image)
}

/// The marketing name of a build, for messages.
pub fn name(build: u32) -> &'static str {
    row(build).map_or("an unlisted Windows build", |row| row.name)
}

/// Whether a build has a feature. A build the table lacks has what the nearest earlier build has
/// or gets by an update; a build before every row has none.
pub fn has(build: &WindowsBuild, feature: fn(&WindowsRelease) -> Update) -> Has {
    let Some(nearest) = BUILDS.iter().rev().find(|row| row.build <= build.build) else {
        return Has::No;
    };
    match feature(nearest) {
        Update::Never => Has::No,
        Update::Always => Has::Yes,
        Update::FromRevision(_, _) if nearest.build < build.build => Has::Yes,
        Update::FromRevision(first, _) => match build.revision {
            Some(revision) if revision >= first => Has::Yes,
            Some(_) => Has::No,
            None => Has::Unknown,
        },
    }
}

/// How HostProcess containers mount on a node of this build with a containerd of this layout:
/// bind mounts only where both have them; symlinks when the build is written without the
/// revision that would tell.
pub fn mount_layout(build: &WindowsBuild, containerd: MountLayout) -> MountLayout {
    match (containerd, has(build, |row| row.bind_filter)) {
        (MountLayout::Bind, Has::Yes) => MountLayout::Bind,
        _ => MountLayout::Symlink,
    }
}

/// Whether the Kubernetes minor lists the build as supported.
pub fn listed(build: u32, minor: u32) -> bool {
    row(build)
        .and_then(|row| row.kubernetes)
        .is_some_and(|(first, last)| minor >= first && last.is_none_or(|last| minor <= last))
}

/// The builds a Kubernetes minor lists as supported.
pub fn listed_by(minor: u32) -> Vec<u32> {
    BUILDS
        .iter()
        .map(|row| row.build)
        .filter(|build| listed(*build, minor))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(text: &str) -> WindowsBuild {
        WindowsBuild::parse(text).unwrap()
    }

    #[test]
    fn updates_count_from_their_revision_and_later_builds_have_them() {
        let dsr = |row: &WindowsRelease| row.dsr;
        assert_eq!(has(&build("10.0.17763.1554"), dsr), Has::Yes);
        assert_eq!(has(&build("10.0.17763.1553"), dsr), Has::No);
        assert_eq!(has(&build("10.0.17763"), dsr), Has::Unknown);
        assert_eq!(has(&build("10.0.20348"), dsr), Has::Yes);
        // An unlisted build after Windows Server 2019 has what 2019 gets by update.
        assert_eq!(has(&build("10.0.17800.1"), dsr), Has::Yes);
        assert_eq!(has(&build("10.0.14393.1000"), dsr), Has::No);
        assert_eq!(has(&build("10.0.10240.1"), dsr), Has::No);
    }

    #[test]
    fn bind_mounts_need_both_the_filter_and_containerd_1_7() {
        assert_eq!(
            mount_layout(&build("10.0.20348.2700"), MountLayout::Bind),
            MountLayout::Bind
        );
        assert_eq!(
            mount_layout(&build("10.0.20348.2700"), MountLayout::Symlink),
            MountLayout::Symlink
        );
        assert_eq!(
            mount_layout(&build("10.0.17763.2000"), MountLayout::Bind),
            MountLayout::Symlink
        );
        assert_eq!(
            mount_layout(&build("10.0.17763.3165"), MountLayout::Bind),
            MountLayout::Bind
        );
    }

    #[test]
    fn each_minor_lists_what_its_page_lists() {
        assert_eq!(listed_by(16), [17763]);
        assert_eq!(listed_by(18), [17763, 18362, 18363]);
        assert_eq!(listed_by(23), [17763, 19042, 20348]);
        assert_eq!(listed_by(34), [17763, 19042, 20348]);
        assert_eq!(listed_by(35), [20348, 26100]);
        assert_eq!(listed_by(38), [20348, 26100]);
    }

    #[test]
    fn builds_are_ordered_and_tags_are_lower_case() {
        for pair in BUILDS.windows(2) {
            assert!(pair[0].build < pair[1].build);
        }
        for row in BUILDS {
            assert!(row.tags.iter().all(|tag| *tag == tag.to_ascii_lowercase()));
        }
    }
}

//! Which Windows build a container image is for, read from its tag, and whether it runs on a
//! host of a given build.

use super::releases::windows::{self, Has};
use super::version::WindowsBuild;

/// The Windows build an image's tag names (`nanoserver:1809`, `servercore:ltsc2022`,
/// `servercore:10.0.17763.437`, `nanoserver:1809-KB4493509`), or `None` when the tag does not say
/// (multi-arch manifests such as `registry.k8s.io/pause:3.9` pick the build themselves).
pub fn image_build(image: &str) -> Option<u32> {
    let tag = image_tag(image)?;
    let lower = tag.to_ascii_lowercase();
    if let Some(build) = WindowsBuild::parse(&lower).filter(|_| lower.starts_with("10.0.")) {
        return Some(build.build);
    }
    let head = lower.split(['-', '_']).next().unwrap_or(&lower);
    windows::BUILDS
        .iter()
        .find(|row| row.tags.contains(&head))
        .map(|row| row.build)
}

/// Whether a pause image of [`windows::PAUSE_IMAGES`] has a variant that runs on a host of this
/// build: `Unknown` when only a variant no source confirms would; `None` for an image the table
/// lacks.
pub fn pause_runs_on(image: &str, host_build: u32) -> Option<Has> {
    let row = windows::pause_image(image)?;
    let runs = |builds: &[u32]| builds.iter().any(|&build| image_runs_on(build, host_build));
    Some(if runs(row.builds) {
        Has::Yes
    } else if runs(row.unknown) {
        Has::Unknown
    } else {
        Has::No
    })
}

/// The pause image sig-windows-tools' `PrepareNode.ps1` hands the kubelet on the wins DaemonSets
/// setup, whatever the spec says (`kubeadm/scripts/PrepareNode.ps1` at 1ab39f18, line 107).
pub const WINS_PAUSE: &str = "mcr.microsoft.com/oss/kubernetes/pause:3.6";

/// The default pause image for a host build: on Windows Server 2019 with KubeCluster.ps1 the one
/// that script pulls (`Cri.Images.Pause`), else the newest `registry.k8s.io/pause` whose variants
/// are known to run there, else the newest one (which the build cannot run, and HG303 says so).
pub fn default_pause(host_build: u32, kubecluster: bool) -> &'static str {
    const KUBECLUSTER_WS2019: &str = "mcr.microsoft.com/k8s/core/pause:1.2.0";
    if kubecluster && host_build == 17763 {
        return KUBECLUSTER_WS2019;
    }
    let multi_arch = || {
        windows::PAUSE_IMAGES
            .iter()
            .rev()
            .filter(|row| row.image.starts_with("registry.k8s.io/pause:"))
    };
    multi_arch()
        .find(|row| pause_runs_on(row.image, host_build) == Some(Has::Yes))
        .or_else(|| multi_arch().next())
        .map_or(KUBECLUSTER_WS2019, |row| row.image)
}

fn image_tag(image: &str) -> Option<&str> {
    let name = image.rsplit('/').next()?;
    let name = name.split('@').next()?;
    name.split_once(':').map(|(_, tag)| tag)
}

/// Whether a container image built for `image_build` runs process-isolated on a `host_build` host:
/// equal builds, or from Windows Server 2022 on, an image of the previous LTSC up to the host's
/// own build (hcsshim `CheckHostAndContainerCompat`).
pub fn image_runs_on(image_build: u32, host_build: u32) -> bool {
    if host_build < 20348 {
        image_build == host_build
    } else {
        (20348..=host_build).contains(&image_build)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_tags_name_their_build() {
        assert_eq!(
            image_build("mcr.microsoft.com/windows/nanoserver:1809"),
            Some(17763)
        );
        assert_eq!(
            image_build("mcr.microsoft.com/windows/servercore:ltsc2022"),
            Some(20348)
        );
        assert_eq!(
            image_build("mcr.microsoft.com/windows/servercore:10.0.17763.437"),
            Some(17763)
        );
        assert_eq!(
            image_build("mcr.microsoft.com/windows/nanoserver:1809-KB4493509"),
            Some(17763)
        );
        assert_eq!(image_build("registry.k8s.io/pause:3.9"), None);
        assert_eq!(image_build("localhost:5000/pause"), None);
    }

    #[test]
    fn ltsc2022_images_run_on_windows_server_2025_only_upwards() {
        assert!(image_runs_on(20348, 26100));
        assert!(!image_runs_on(26100, 20348));
        assert!(!image_runs_on(17763, 20348));
        assert!(image_runs_on(17763, 17763));
    }

    #[test]
    fn each_pause_tag_runs_where_its_changelog_says() {
        let runs = |tag: &str, build| pause_runs_on(&format!("registry.k8s.io/pause:{tag}"), build);
        // (build, last tag without its variant, first tag with it): 3.4.1 adds 20H2, 3.6 ltsc2022.
        for (build, without, with) in [(19042, "3.4", "3.4.1"), (20348, "3.5", "3.6")] {
            assert_eq!(runs(without, build), Some(Has::No), "{without} on {build}");
            assert_eq!(runs(with, build), Some(Has::Yes), "{with} on {build}");
        }
        // (build, last tag with its variant, first tag without): 3.7 drops 1903, 1909 and 2004,
        // 3.9 drops 20H2.
        for (build, with, without) in [
            (18362, "3.6", "3.7"),
            (18363, "3.6", "3.7"),
            (19041, "3.6", "3.7"),
            (19042, "3.8", "3.9"),
        ] {
            assert_eq!(runs(with, build), Some(Has::Yes), "{with} on {build}");
            assert_eq!(runs(without, build), Some(Has::No), "{without} on {build}");
        }
        // 3.4 is the first tag with 1809, and 3.10 the last one a source shows to keep it.
        assert_eq!(runs("3.4", 17763), Some(Has::Yes));
        assert_eq!(runs("3.10", 17763), Some(Has::Yes));
        assert_eq!(runs("3.10.1", 17763), Some(Has::Unknown));
        assert_eq!(runs("3.10.2", 17763), Some(Has::Unknown));
        assert_eq!(runs("3.10.1", 20348), Some(Has::Unknown));
        // 3.10.2 adds ltsc2025; before it, the ltsc2022 variant runs on a 26100 host.
        assert_eq!(runs("3.10.2", 26100), Some(Has::Yes));
        assert_eq!(runs("3.10", 26100), Some(Has::Yes));
        assert_eq!(runs("3.5", 26100), Some(Has::No));
        let legacy = "mcr.microsoft.com/k8s/core/pause:1.2.0";
        assert_eq!(pause_runs_on(legacy, 17763), Some(Has::Yes));
        assert_eq!(pause_runs_on(legacy, 18362), Some(Has::No));
        assert_eq!(pause_runs_on("localhost:5000/pause", 17763), None);
    }

    #[test]
    fn the_default_pause_is_the_newest_known_to_run_on_the_build() {
        for (build, pause) in [
            (17763, "registry.k8s.io/pause:3.10"),
            (18362, "registry.k8s.io/pause:3.6"),
            (19041, "registry.k8s.io/pause:3.6"),
            (19042, "registry.k8s.io/pause:3.8"),
            (20348, "registry.k8s.io/pause:3.10"),
            (25398, "registry.k8s.io/pause:3.10"),
            (26100, "registry.k8s.io/pause:3.10.2"),
        ] {
            assert_eq!(default_pause(build, false), pause, "{build}");
            assert_eq!(pause_runs_on(pause, build), Some(Has::Yes));
        }
        assert_eq!(
            default_pause(17763, true),
            "mcr.microsoft.com/k8s/core/pause:1.2.0"
        );
        // No tag carries 21H2: the newest one is the default, and it cannot run there.
        let none = default_pause(19044, false);
        assert_eq!(pause_runs_on(none, 19044), Some(Has::No));
    }
}

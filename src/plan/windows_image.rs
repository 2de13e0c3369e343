//! Which Windows build a container image is for, read from its tag, and whether it runs on a
//! host of a given build.

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
    super::releases::windows::BUILDS
        .iter()
        .find(|row| row.tags.contains(&head))
        .map(|row| row.build)
        .or_else(|| legacy_pause_build(image, &lower))
}

/// Microsoft's pre-multi-arch pause images were built on Windows Server 2019 only.
fn legacy_pause_build(image: &str, tag: &str) -> Option<u32> {
    let legacy =
        image.starts_with("mcr.microsoft.com/k8s/core/pause:") && matches!(tag, "1.0.0" | "1.2.0");
    legacy.then_some(17763)
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
        assert_eq!(
            image_build("mcr.microsoft.com/k8s/core/pause:1.2.0"),
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
}

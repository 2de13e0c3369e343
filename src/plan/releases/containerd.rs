//! Every containerd line hybridgen installs on Windows nodes, 1.6 to 2.3: one row per line, from
//! containerd/containerd `RELEASES.md` (lifecycle, "Daemon Configuration" versions) and each
//! line's own sources (`internal/cri/config`, `pkg/cri/config`, `docs/cri/config.md`) at its
//! newest tag. Which line each Kubernetes minor recommends is a column of
//! [`super::kubernetes`]'s rows.

use super::MountLayout;
use crate::plan::version::Release;

/// One containerd line (`MAJOR.MINOR`).
#[derive(Debug, PartialEq, Eq)]
pub struct ContainerdLine {
    pub major: u32,
    pub minor: u32,
    /// The newest patch release of the line (containerd git tags, 2026-08-22).
    pub newest: Release,
    /// The `config.toml` format the line writes with `containerd config default`.
    pub config: ConfigFormat,
    /// The CNI binaries directory is the list `bin_dirs` (from 2.1; `bin_dir` is deprecated there,
    /// and setting both is an error: `internal/cri/config/config.go`).
    pub cni_bin_dirs: bool,
    /// The sandbox image the line uses when none is configured.
    pub default_pause: &'static str,
    /// When the line reached its end of life (`RELEASES.md`: a day, or a month where it gives no
    /// day), if it has by 2026-11-26.
    pub end_of_life: Option<&'static str>,
    /// How the line mounts HostProcess containers where the OS has the bind filter: symlinks in
    /// 1.6, bind mounts from 1.7 (kubernetes/enhancements KEP-1981 "Container mounts").
    pub mount_layout: MountLayout,
    /// The line answers the CRI `RuntimeConfig` call, which the kubelet uses from 1.34 instead of
    /// its own cgroup driver setting and without which it will refuse to start
    /// (kubernetes/enhancements KEP-4033; containerd `internal/cri/server/runtime_config*.go`,
    /// first in v2.0.0).
    pub runtime_config: bool,
}

/// containerd's configuration file versions (`RELEASES.md` "Daemon Configuration"): version 2 from
/// 1.3, 3 from 2.0 (the CRI plugin split into `io.containerd.cri.v1.runtime` and
/// `io.containerd.cri.v1.images`), 4 from 2.3 (only the server sections moved; the CRI keys are
/// those of version 3). A line reads its own version and every older one; a newer one is refused
/// ("unsupported config version").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConfigFormat {
    V2 = 2,
    V3 = 3,
    V4 = 4,
}

impl ConfigFormat {
    pub fn version(self) -> u32 {
        self as u32
    }

    /// The CRI settings live in `io.containerd.cri.v1.runtime` and `io.containerd.cri.v1.images`
    /// rather than `io.containerd.grpc.v1.cri`.
    pub fn split_cri(self) -> bool {
        self >= ConfigFormat::V3
    }
}

impl ContainerdLine {
    /// `MAJOR.MINOR`, for messages.
    pub fn name(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }

    pub fn holds(&self, version: &Release) -> bool {
        (version.major, version.minor) == (self.major, self.minor)
    }
}

/// Every line, oldest first.
pub static LINES: &[ContainerdLine] = &[
    ContainerdLine {
        major: 1,
        minor: 6,
        newest: Release::new(1, 6, 39),
        config: ConfigFormat::V2,
        cni_bin_dirs: false,
        default_pause: "registry.k8s.io/pause:3.6",
        end_of_life: Some("2025-08-23"),
        mount_layout: MountLayout::Symlink,
        runtime_config: false,
    },
    // Long-term support until September 2026 (RELEASES.md: "September 2026*", no day given).
    ContainerdLine {
        major: 1,
        minor: 7,
        newest: Release::new(1, 7, 34),
        config: ConfigFormat::V2,
        cni_bin_dirs: false,
        default_pause: "registry.k8s.io/pause:3.8",
        end_of_life: Some("September 2026"),
        mount_layout: MountLayout::Bind,
        runtime_config: false,
    },
    // Long-term support until March 2027 (RELEASES.md).
    ContainerdLine {
        major: 2,
        minor: 0,
        newest: Release::new(2, 0, 11),
        config: ConfigFormat::V3,
        cni_bin_dirs: false,
        default_pause: "registry.k8s.io/pause:3.10",
        end_of_life: None,
        mount_layout: MountLayout::Bind,
        runtime_config: true,
    },
    ContainerdLine {
        major: 2,
        minor: 1,
        newest: Release::new(2, 1, 9),
        config: ConfigFormat::V3,
        cni_bin_dirs: true,
        default_pause: "registry.k8s.io/pause:3.10",
        end_of_life: Some("2026-07-03"),
        mount_layout: MountLayout::Bind,
        runtime_config: true,
    },
    ContainerdLine {
        major: 2,
        minor: 2,
        newest: Release::new(2, 2, 7),
        config: ConfigFormat::V3,
        cni_bin_dirs: true,
        default_pause: "registry.k8s.io/pause:3.10.1",
        // RELEASES.md: "Active … November 6, 2026".
        end_of_life: Some("2026-11-06"),
        mount_layout: MountLayout::Bind,
        runtime_config: true,
    },
    // Long-term support until 2028-04-30 (RELEASES.md).
    ContainerdLine {
        major: 2,
        minor: 3,
        newest: Release::new(2, 3, 4),
        config: ConfigFormat::V4,
        cni_bin_dirs: true,
        default_pause: "registry.k8s.io/pause:3.10.2",
        end_of_life: None,
        mount_layout: MountLayout::Bind,
        runtime_config: true,
    },
];

pub fn oldest() -> &'static ContainerdLine {
    &LINES[0]
}

pub fn newest() -> &'static ContainerdLine {
    &LINES[LINES.len() - 1]
}

/// A containerd version's line: its own row (`known`), or for a line the table lacks the nearest
/// one — the newest for a later line (a later line reads every older configuration format), the
/// oldest for an earlier one (HG313 refuses it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    pub row: &'static ContainerdLine,
    pub known: bool,
}

pub fn resolve(version: &Release) -> Resolved {
    let own = LINES.iter().find(|row| row.holds(version));
    let later = (version.major, version.minor) > (newest().major, newest().minor);
    Resolved {
        row: own.unwrap_or(if later { newest() } else { oldest() }),
        known: own.is_some(),
    }
}

/// containerd's maintainers support upgrades one line at a time: "We do not officially support
/// this upgrade path" for 1.7 to 2.2, "a number of breaking changes … occurred in 2.0 and 2.1"
/// (https://github.com/containerd/containerd/issues/12727).
pub const UPGRADE_ONE_LINE_AT_A_TIME: &str =
    "https://github.com/containerd/containerd/issues/12727";

/// Why containerd cannot move from one release to another by upgrades.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// The target is older than the release the nodes run.
    Downgrade,
    /// A line the table does not hold: no step through it can be named.
    UnknownLine(Release),
}

/// The releases to install one after another to move containerd from `from` to `to`: the newest
/// patch of `from`'s line, then the newest of each following line, then `to`
/// ([`UPGRADE_ONE_LINE_AT_A_TIME`]). Empty when nothing changes.
pub fn upgrade_path(from: Release, to: Release) -> Result<Vec<Release>, PathError> {
    if to < from {
        return Err(PathError::Downgrade);
    }
    let position = |version: Release| {
        LINES
            .iter()
            .position(|row| row.holds(&version))
            .ok_or(PathError::UnknownLine(version))
    };
    let (first, last) = (position(from)?, position(to)?);
    let mut path: Vec<Release> = LINES[first..last].iter().map(|row| row.newest).collect();
    path.push(to);
    path.retain(|step| *step != from);
    path.dedup();
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containerd_moves_one_line_at_a_time_through_each_newest_patch() {
        let path = |from: &str, to: &str| {
            upgrade_path(Release::parse(from).unwrap(), Release::parse(to).unwrap())
                .map(|steps| steps.iter().map(Release::to_string).collect::<Vec<_>>())
        };
        assert_eq!(
            path("1.7.20", "2.3.4").unwrap(),
            ["1.7.34", "2.0.11", "2.1.9", "2.2.7", "2.3.4"]
        );
        assert_eq!(path("2.0.11", "2.0.11").unwrap(), Vec::<String>::new());
        assert_eq!(path("2.0.5", "2.0.11").unwrap(), ["2.0.11"]);
        assert_eq!(path("2.1.0", "2.0.11"), Err(PathError::Downgrade));
        assert!(matches!(
            path("2.0.0", "2.4.0"),
            Err(PathError::UnknownLine(_))
        ));
    }

    #[test]
    fn lines_are_ordered_and_each_newest_patch_is_its_own() {
        for pair in LINES.windows(2) {
            assert!((pair[0].major, pair[0].minor) < (pair[1].major, pair[1].minor));
            assert!(pair[0].config <= pair[1].config);
        }
        for row in LINES {
            assert!(row.holds(&row.newest), "{}", row.name());
        }
    }

    #[test]
    fn a_later_line_is_read_as_the_newest_and_an_earlier_as_the_oldest() {
        let later = resolve(&Release::new(2, 4, 0));
        assert_eq!((later.row.name(), later.known), ("2.3".to_string(), false));
        let earlier = resolve(&Release::new(1, 5, 18));
        assert_eq!(
            (earlier.row.name(), earlier.known),
            ("1.6".to_string(), false)
        );
        let exact = resolve(&Release::new(2, 1, 0));
        assert_eq!((exact.row.name(), exact.known), ("2.1".to_string(), true));
    }
}

//! What is known to break, as data: one row per advisory — the component, the releases it
//! affects, the first that fixes it, the OS and backend it hits, and the public source. `plan`
//! reads it for the pinned versions (HG320), `verify` for the running ones (HG511). An update a Windows build needs for overlay
//! networking at all is a column of [`super::windows`] (HG302); a containerd line's end of life a
//! column of [`super::containerd`] (HG313); RKE2 releases' bundled flannel one of [`super::rke2`]
//! (HG602).

use crate::plan::version::{Release, WindowsBuild};
use crate::spec::Backend;

/// The releases an advisory affects.
#[derive(Debug, PartialEq, Eq)]
pub enum Affected {
    /// flannel releases `first..=last`; `fixed` is the first release without the bug.
    Flannel {
        first: Release,
        last: Release,
        fixed: Release,
    },
    /// Revisions `first..fixed` of one Windows build; `update` brings revision `fixed`.
    WindowsRevisions {
        build: u32,
        first: u32,
        fixed: u32,
        update: &'static str,
    },
}

/// Where the bug bites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Windows nodes on the vxlan backend.
    WindowsVxlan,
    /// Windows nodes, any backend.
    Windows,
}

impl Scope {
    /// The Windows nodes of a cluster on this flannel backend.
    pub fn windows_on(backend: Backend) -> Scope {
        match backend {
            Backend::Vxlan => Scope::WindowsVxlan,
            Backend::HostGw => Scope::Windows,
        }
    }
}

/// How sure the sources are that the bug hits hybridgen's setup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certainty {
    /// Shown in the code or by a field report on this setup: the nodes do not network.
    Breaks,
    /// Shown on a related setup (another CNI on the same OS networking), or only on nodes the
    /// spec cannot describe (more than one network adapter): it may.
    MayBreak,
}

#[derive(Debug)]
pub struct Advisory {
    pub affected: Affected,
    pub scope: Scope,
    pub certainty: Certainty,
    /// What happens, for messages: lower case, no final period.
    pub effect: &'static str,
    /// The report to read first, for the finding's label.
    pub reference: &'static str,
    pub source: &'static str,
}

pub static ADVISORIES: &[Advisory] = &[
    Advisory {
        affected: Affected::Flannel {
            first: Release::new(0, 25, 3),
            last: Release::new(0, 25, 3),
            fixed: Release::new(0, 25, 4),
        },
        scope: Scope::WindowsVxlan,
        certainty: Certainty::Breaks,
        effect: "its Windows vxlan backend waits for the HNS interface with the poll's answers inverted, gives up after 25 s and flanneld exits",
        reference: "rancher/rke2#6171",
        source: "flannel-io/flannel 727fc083 (first in v0.25.3, `pkg/backend/vxlan/device_windows.go` `checkHostNetworkReady`), fixed by 42601e98 (v0.25.4); rancher/rke2#6171",
    },
    Advisory {
        // From v0.11.0, the first release with Windows support, to v0.24.0: flanneld on Windows
        // chose the adapter for its HNS network without its interface flags.
        affected: Affected::Flannel {
            first: Release::new(0, 11, 0),
            last: Release::new(0, 24, 0),
            fixed: Release::new(0, 24, 1),
        },
        scope: Scope::Windows,
        certainty: Certainty::MayBreak,
        effect: "flanneld on Windows ignores `--iface`, so if a Windows node has more than one network adapter, flanneld may build its HNS network on the wrong one; fixed in v0.24.1",
        reference: "flannel-io/flannel#1852",
        source: "flannel-io/flannel#1852 (\"we can't specify the interface to be used for the overlay network\" on Windows), fixed by 761c2578 (first in v0.24.1)",
    },
    Advisory {
        affected: Affected::WindowsRevisions {
            build: 20348,
            first: 2582,
            fixed: 2762,
            update: "KB5044281",
        },
        scope: Scope::Windows,
        certainty: Certainty::MayBreak,
        effect: "the July to September 2024 updates break container networking on Kubernetes: pods cannot reach external networks or each other",
        reference: "microsoft/Windows-Containers#516",
        source: "microsoft/Windows-Containers#516 (KB5040437, 20348.2582); KB5044281 release notes (20348.2762, 8 October 2024, \"Containers (known issue)\"); projectcalico/calico#9019",
    },
];

/// The advisories that hit flannel `release` within `scope`.
pub fn flannel(release: Release, scope: Scope) -> impl Iterator<Item = &'static Advisory> {
    ADVISORIES.iter().filter(move |advisory| {
        applies(advisory.scope, scope)
            && matches!(advisory.affected, Affected::Flannel { first, last, .. } if first <= release && release <= last)
    })
}

/// The advisories that hit Windows `build` within `scope`: those whose range holds its revision.
/// A build written without a revision is in none (HG302 asks for the revision).
pub fn windows_build(build: WindowsBuild, scope: Scope) -> impl Iterator<Item = &'static Advisory> {
    ADVISORIES.iter().filter(move |advisory| {
        applies(advisory.scope, scope)
            && matches!(
                (&advisory.affected, build.revision),
                (Affected::WindowsRevisions { build: affected, first, fixed, .. }, Some(revision))
                    if *affected == build.build && *first <= revision && revision < *fixed
            )
    })
}

/// An advisory for Windows nodes on any backend applies to vxlan ones too.
fn applies(advisory: Scope, nodes: Scope) -> bool {
    match advisory {
        Scope::Windows => true,
        Scope::WindowsVxlan => nodes == Scope::WindowsVxlan,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(text: &str) -> WindowsBuild {
        WindowsBuild::parse(text).unwrap()
    }

    #[test]
    fn every_advisory_cites_a_public_source() {
        for advisory in ADVISORIES {
            assert!(advisory.source.contains('/'), "{advisory:?}");
            assert!(
                advisory.source.contains(advisory.reference) || advisory.reference.contains('/')
            );
        }
    }

    #[test]
    fn flannel_v0_25_3_breaks_windows_vxlan_and_v0_25_4_does_not() {
        let hits = |version| flannel(Release::parse(version).unwrap(), Scope::WindowsVxlan).count();
        assert_eq!(hits("v0.25.3"), 1);
        assert_eq!(hits("v0.25.4"), 0);
        assert_eq!(hits("v0.25.2"), 0);
        assert_eq!(
            flannel(Release::new(0, 25, 3), Scope::Windows).count(),
            0,
            "host-gw is not hit"
        );
    }

    #[test]
    fn flannel_before_v0_24_1_may_pick_the_wrong_windows_adapter_on_any_backend() {
        let hits = |version, scope| {
            flannel(Release::parse(version).unwrap(), scope)
                .filter(|advisory| advisory.reference == "flannel-io/flannel#1852")
                .count()
        };
        assert_eq!(hits("v0.24.0", Scope::Windows), 1);
        assert_eq!(hits("v0.24.0", Scope::WindowsVxlan), 1);
        assert_eq!(hits("v0.11.0", Scope::Windows), 1);
        assert_eq!(hits("v0.24.1", Scope::Windows), 0);
        assert_eq!(hits("v0.24.1", Scope::WindowsVxlan), 0);
    }

    #[test]
    fn ws2022_from_july_to_september_2024_may_break_and_october_does_not() {
        let hits = |text| windows_build(build(text), Scope::WindowsVxlan).count();
        assert_eq!(hits("10.0.20348.2581"), 0);
        assert_eq!(hits("10.0.20348.2582"), 1);
        assert_eq!(hits("10.0.20348.2761"), 1);
        assert_eq!(hits("10.0.20348.2762"), 0);
        assert_eq!(hits("10.0.20348"), 0);
        assert_eq!(
            windows_build(build("10.0.20348.2700"), Scope::Windows).count(),
            1
        );
    }
}

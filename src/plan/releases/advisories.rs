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
    /// Windows kube-proxy (the Kubernetes release the nodes run) from `introduced` on, until the
    /// patch of its minor in `fixed`; a minor without a patch there is hit until the last entry,
    /// a later minor's `.0`. `on_build`: only on Windows nodes of that build.
    KubeProxy {
        introduced: Release,
        fixed: &'static [Release],
        on_build: Option<u32>,
    },
}

impl Affected {
    /// The first release that fixes `release`'s line, for a kube-proxy advisory.
    pub fn kube_proxy_fix(&self, release: Release) -> Option<Release> {
        let Affected::KubeProxy { fixed, .. } = self else {
            return None;
        };
        fixed
            .iter()
            .copied()
            .find(|fix| (fix.major, fix.minor) >= (release.major, release.minor))
    }
}

/// Where the bug bites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Windows nodes on the vxlan backend.
    WindowsVxlan,
    /// Windows nodes on the host-gw backend.
    WindowsHostGw,
    /// Windows nodes, any backend.
    Windows,
}

impl Scope {
    /// The Windows nodes of a cluster on this flannel backend.
    pub fn windows_on(backend: Backend) -> Scope {
        match backend {
            Backend::Vxlan => Scope::WindowsVxlan,
            Backend::HostGw => Scope::WindowsHostGw,
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
        // chose the adapter for its HNS network without its interface flags. 761c2578 passes
        // the adapter to the vxlan backend only: the host-gw backend still builds its L2Bridge
        // network without one (`pkg/backend/hostgw/hostgw_windows.go`), which HG315 says.
        affected: Affected::Flannel {
            first: Release::new(0, 11, 0),
            last: Release::new(0, 24, 0),
            fixed: Release::new(0, 24, 1),
        },
        scope: Scope::WindowsVxlan,
        certainty: Certainty::MayBreak,
        effect: "flanneld's vxlan backend on Windows ignores `--iface`, so if a Windows node has more than one network adapter, flanneld may build its HNS network on the wrong one; fixed in v0.24.1",
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
    Advisory {
        // The same commit as the vxlan row inverted the host-gw backend's poll for the bridge
        // endpoint: a successful attach keeps polling until the 5 s timeout. The fix was merged
        // after v0.25.4 was cut (its PR thread says it "missed the 0.25.4 release").
        affected: Affected::Flannel {
            first: Release::new(0, 25, 3),
            last: Release::new(0, 25, 4),
            fixed: Release::new(0, 25, 5),
        },
        scope: Scope::WindowsHostGw,
        certainty: Certainty::Breaks,
        effect: "its Windows host-gw backend keeps polling after the bridge endpoint attached, times out after 5 s and flanneld exits",
        reference: "flannel-io/flannel#1998",
        source: "flannel-io/flannel 727fc083 (first in v0.25.3, `pkg/backend/hostgw/hostgw_windows.go` `RegisterNetwork`), fixed by 49ce9839 (flannel-io/flannel#1998, first in v0.25.5)",
    },
    Advisory {
        affected: Affected::KubeProxy {
            introduced: Release::new(1, 31, 0),
            fixed: &[
                Release::new(1, 31, 9),
                Release::new(1, 32, 5),
                Release::new(1, 33, 1),
                Release::new(1, 34, 0),
            ],
            on_build: None,
        },
        scope: Scope::Windows,
        certainty: Certainty::MayBreak,
        effect: "Windows kube-proxy fails to create an HNS endpoint for a pod whose address a remote endpoint already had, so Services may lose backends",
        reference: "kubernetes/kubernetes#131427",
        source: "kubernetes/kubernetes CHANGELOG-1.31 (1.31.9, #131429), CHANGELOG-1.32 (1.32.5, #131428), CHANGELOG-1.33 (1.33.1, kubernetes/kubernetes#131427): \"a regression introduced in version 1.31 on Windows Proxy\"",
    },
    Advisory {
        affected: Affected::KubeProxy {
            introduced: Release::new(1, 31, 0),
            fixed: &[
                Release::new(1, 32, 6),
                Release::new(1, 33, 2),
                Release::new(1, 34, 0),
            ],
            on_build: Some(26100),
        },
        scope: Scope::Windows,
        certainty: Certainty::MayBreak,
        effect: "Windows kube-proxy updates load balancers in place, which HNS 15.4 on Windows Server 2025 applies with the old endpoints, so Services keep sending to removed pods",
        reference: "kubernetes/kubernetes#131506",
        source: "kubernetes/kubernetes#131466, fixed by kubernetes/kubernetes#131506 (1.34.0) and its cherry picks #131652 (1.32.6) and #131649 (1.33.2); none for 1.31, where the in-place update came in",
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

/// The advisories that hit a Windows kube-proxy of Kubernetes `release` on nodes of `builds`.
pub fn kube_proxy(release: Release, builds: &[u32]) -> impl Iterator<Item = &'static Advisory> {
    ADVISORIES.iter().filter(move |advisory| {
        let Affected::KubeProxy {
            introduced,
            fixed,
            on_build,
        } = advisory.affected
        else {
            return false;
        };
        let fixed_in_line = fixed.iter().any(|fix| {
            (fix.major, fix.minor) == (release.major, release.minor) && fix.patch <= release.patch
        });
        let fixed_since = fixed.last().is_some_and(|last| *last <= release);
        introduced <= release
            && !fixed_in_line
            && !fixed_since
            && on_build.is_none_or(|build| builds.contains(&build))
    })
}

/// An advisory for Windows nodes on any backend applies to vxlan and host-gw ones too.
fn applies(advisory: Scope, nodes: Scope) -> bool {
    match advisory {
        Scope::Windows => true,
        Scope::WindowsVxlan | Scope::WindowsHostGw => nodes == advisory,
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
            flannel(Release::new(0, 25, 3), Scope::WindowsHostGw)
                .filter(|advisory| advisory.reference == "rancher/rke2#6171")
                .count(),
            0,
            "host-gw is not hit"
        );
    }

    #[test]
    fn flannel_v0_25_3_and_v0_25_4_break_windows_host_gw_and_v0_25_5_does_not() {
        let hits = |version, scope| {
            flannel(Release::parse(version).unwrap(), scope)
                .filter(|advisory| advisory.reference == "flannel-io/flannel#1998")
                .count()
        };
        assert_eq!(hits("v0.25.2", Scope::WindowsHostGw), 0);
        assert_eq!(hits("v0.25.3", Scope::WindowsHostGw), 1);
        assert_eq!(hits("v0.25.4", Scope::WindowsHostGw), 1);
        assert_eq!(hits("v0.25.5", Scope::WindowsHostGw), 0);
        assert_eq!(hits("v0.25.4", Scope::WindowsVxlan), 0, "vxlan is not hit");
    }

    #[test]
    fn kube_proxy_advisories_hit_each_line_until_its_fix() {
        let hits = |version: &str, builds: &[u32]| -> Vec<&str> {
            kube_proxy(Release::parse(version).unwrap(), builds)
                .map(|advisory| advisory.reference)
                .collect()
        };
        let endpoints = "kubernetes/kubernetes#131427";
        let in_place = "kubernetes/kubernetes#131506";
        assert_eq!(hits("1.30.14", &[26100]), Vec::<&str>::new());
        assert_eq!(hits("1.31.8", &[20348]), [endpoints]);
        assert_eq!(
            hits("1.31.9", &[26100]),
            [in_place],
            "1.31 has no in-place fix"
        );
        assert_eq!(hits("1.32.4", &[26100]), [endpoints, in_place]);
        assert_eq!(hits("1.32.5", &[26100]), [in_place]);
        assert_eq!(hits("1.32.6", &[26100]), Vec::<&str>::new());
        assert_eq!(hits("1.33.0", &[20348]), [endpoints]);
        assert_eq!(hits("1.33.1", &[26100]), [in_place]);
        assert_eq!(hits("1.33.2", &[26100]), Vec::<&str>::new());
        assert_eq!(hits("1.34.0", &[26100]), Vec::<&str>::new());
        assert_eq!(hits("1.36.1", &[26100]), Vec::<&str>::new());
    }

    #[test]
    fn a_kube_proxy_fix_is_its_lines_patch_or_the_next_lines() {
        let row = |reference| {
            ADVISORIES
                .iter()
                .find(|advisory| advisory.reference == reference)
                .unwrap()
        };
        let in_place = &row("kubernetes/kubernetes#131506").affected;
        assert_eq!(
            in_place.kube_proxy_fix(Release::new(1, 31, 4)),
            Some(Release::new(1, 32, 6))
        );
        assert_eq!(
            in_place.kube_proxy_fix(Release::new(1, 33, 0)),
            Some(Release::new(1, 33, 2))
        );
    }

    #[test]
    fn flannel_before_v0_24_1_may_pick_the_wrong_windows_adapter_on_vxlan() {
        let hits = |version, scope| {
            flannel(Release::parse(version).unwrap(), scope)
                .filter(|advisory| advisory.reference == "flannel-io/flannel#1852")
                .count()
        };
        assert_eq!(hits("v0.11.0", Scope::WindowsVxlan), 1);
        assert_eq!(hits("v0.24.0", Scope::WindowsVxlan), 1);
        assert_eq!(hits("v0.24.1", Scope::WindowsVxlan), 0);
        // The fix never reached host-gw: no release is "fixed" there (HG315 says so).
        assert_eq!(hits("v0.24.0", Scope::WindowsHostGw), 0);
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

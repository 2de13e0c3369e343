//! Every file a rendered script or Dockerfile downloads, in one table: for each project, the
//! releases whose assets hybridgen can name, the exact name each release published, and the
//! checksum file published beside it, each with the upstream file that produces the name.
//! Templates and scripts take their URLs from here and nowhere else, so a test can check every
//! URL in every artifact against this table, and `plan` can say when a release is missing from it.
//!
//! No source readable here pins a SHA-256 for any of these assets, so every download is checked
//! against the checksum file its project publishes beside it; flanneld.exe is the one asset whose
//! project publishes none (flannel-io/flannel `.github/workflows/release.yml` uploads `dist/flannel*`
//! only), and its digest is printed in the build log.

use super::flannel_release;
use super::pins;
use super::releases::{containerd, kubernetes};
use super::version::Release;

/// A file hybridgen downloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asset {
    /// containernetworking/plugins' Windows archive (`host-local.exe`).
    CniPluginsWindows,
    /// flannel-io/cni-plugin's Windows archive (`flannel-amd64.exe`).
    FlannelCniPluginWindows,
    /// microsoft/windows-container-networking's zip (`sdnoverlay.exe`, `sdnbridge.exe`).
    WindowsCni,
    /// flannel-io/flannel's `flanneld.exe`.
    Flanneld,
    /// dl.k8s.io's Windows binaries.
    KubeProxy,
    Kubelet,
    Kubeadm,
    KubeLogRunner,
    /// containerd/containerd's Windows archive.
    Containerd,
    /// kubernetes-sigs/cri-tools' Windows `crictl` archive.
    Crictl,
    /// RKE2's installers, which download and check RKE2 themselves.
    Rke2InstallSh,
    Rke2InstallPs1,
}

/// Every asset, for the tests that walk the table.
pub const ASSETS: [Asset; 12] = [
    Asset::CniPluginsWindows,
    Asset::FlannelCniPluginWindows,
    Asset::WindowsCni,
    Asset::Flanneld,
    Asset::KubeProxy,
    Asset::Kubelet,
    Asset::Kubeadm,
    Asset::KubeLogRunner,
    Asset::Containerd,
    Asset::Crictl,
    Asset::Rke2InstallSh,
    Asset::Rke2InstallPs1,
];

/// The digest of a published checksum file. Its first field is the digest in every format these
/// projects use (`sha256sum` output, or the bare digest on dl.k8s.io).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Digest {
    Sha256,
    Sha512,
}

/// One download: where it is, the file name it is saved under, and its published checksum file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Download {
    pub url: String,
    pub file: String,
    /// The checksum file upstream publishes beside the asset, and its digest; `None` when the
    /// project publishes none.
    pub checksum_url: Option<String>,
    pub digest: Option<Digest>,
}

/// flannel-io/cni-plugin releases with a Windows archive holding `flannel-amd64.exe` alone, and
/// the version in its name. Up to v1.8.0-flannel1 `scripts/version.sh` names the archive after the
/// whole tag; from v1.8.0-flannel2 (commit ff956db) after its first six characters
/// (`VERSION="${GIT_TAG:0:6}"`, `scripts/package.sh`
/// `cni-plugin-flannel-windows-"${GOARCH}"-"${TAG}"`), and the release workflow sets no `TAG`.
/// v1.9.1-flannel2 and -flannel3 (named by flannel v0.28.7–v0.28.9's manifests) are built by the
/// same scripts as v1.9.1-flannel1.
const FLANNEL_CNI_PLUGIN_ARCHIVES: &[(&str, &str)] = &[
    ("v1.2.0", "v1.2.0"),
    ("v1.4.0-flannel1", "v1.4.0-flannel1"),
    ("v1.4.1-flannel1", "v1.4.1-flannel1"),
    ("v1.5.1-flannel1", "v1.5.1-flannel1"),
    ("v1.5.1-flannel2", "v1.5.1-flannel2"),
    ("v1.6.0-flannel1", "v1.6.0-flannel1"),
    ("v1.6.2-flannel1", "v1.6.2-flannel1"),
    ("v1.7.1-flannel1", "v1.7.1-flannel1"),
    ("v1.8.0-flannel1", "v1.8.0-flannel1"),
    ("v1.9.0-flannel1", "v1.9.0"),
    ("v1.9.1-flannel1", "v1.9.1"),
    ("v1.9.1-flannel2", "v1.9.1"),
    ("v1.9.1-flannel3", "v1.9.1"),
];

/// microsoft/windows-container-networking releases and the version in their zip's name: until
/// commit b96c7d7 (PR #120, September 2025) `.github/workflows/release.yml` ran
/// `make release VERSION=${ref#refs/tags/v}`, dropping the `v` (`Makefile` target `release`:
/// `windows-container-networking-cni-amd64-$(VERSION).zip`, with `.sha512`).
const WINDOWS_CNI_ARCHIVES: &[(&str, &str)] = &[("v0.3.1", "0.3.1")];

/// containernetworking/plugins releases with a Windows archive
/// (`cni-plugins-windows-amd64-<tag>.tgz` with `.sha256`: `.github/workflows/release.yaml`).
const CNI_PLUGINS_RELEASES: &[&str] = &[pins::CNI_PLUGINS];

const GITHUB: &str = "https://github.com";

impl Asset {
    /// The upstream file that gives the asset's name and checksum file.
    pub fn source(self) -> &'static str {
        match self {
            Asset::CniPluginsWindows => {
                "containernetworking/plugins `.github/workflows/release.yaml` (v1.9.1)"
            }
            Asset::FlannelCniPluginWindows => {
                "flannel-io/cni-plugin `scripts/version.sh` and `scripts/package.sh` (v1.2.0 to v1.9.1-flannel1)"
            }
            Asset::WindowsCni => {
                "microsoft/windows-container-networking `.github/workflows/release.yml` and `Makefile` (v0.3.1)"
            }
            Asset::Flanneld => {
                "flannel-io/flannel `Makefile` `dist/flanneld.exe` and `.github/workflows/release.yml`"
            }
            Asset::KubeProxy | Asset::Kubelet | Asset::Kubeadm | Asset::KubeLogRunner => {
                "kubernetes.io \"Download Kubernetes\" (dl.k8s.io/<version>/bin/<os>/<arch>/<binary>, with .sha256)"
            }
            Asset::Containerd => {
                "containerd/containerd `.github/workflows/release.yml` (`.sha256sum`)"
            }
            Asset::Crictl => {
                "kubernetes-sigs/cri-tools `hack/release.sh` (`.sha256`, from v1.23.0)"
            }
            Asset::Rke2InstallSh | Asset::Rke2InstallPs1 => {
                "docs.rke2.io \"Quick Start\" (Linux and Windows installers)"
            }
        }
    }

    /// The download of `release` (a tag as written, `v1.9.1`, or containerd's bare `2.3.4`). For
    /// a release the table does not list ([`Asset::lists`]) the name follows the newest naming
    /// rule, which nothing has shown the release to publish.
    pub fn download(self, release: &str) -> Download {
        match self {
            Asset::CniPluginsWindows => {
                let file = format!("cni-plugins-windows-amd64-{release}.tgz");
                github(
                    "containernetworking/plugins",
                    release,
                    file,
                    Some(Digest::Sha256),
                )
            }
            Asset::FlannelCniPluginWindows => {
                let name = named(FLANNEL_CNI_PLUGIN_ARCHIVES, release)
                    .unwrap_or_else(|| release.get(..6).unwrap_or(release));
                let file = format!("cni-plugin-flannel-windows-amd64-{name}.tgz");
                github("flannel-io/cni-plugin", release, file, Some(Digest::Sha256))
            }
            Asset::WindowsCni => {
                let name = named(WINDOWS_CNI_ARCHIVES, release).unwrap_or(release);
                let file = format!("windows-container-networking-cni-amd64-{name}.zip");
                let repository = "microsoft/windows-container-networking";
                github(repository, release, file, Some(Digest::Sha512))
            }
            Asset::Flanneld => github("flannel-io/flannel", release, "flanneld.exe".into(), None),
            Asset::KubeProxy => kubernetes_binary(release, "kube-proxy.exe"),
            Asset::Kubelet => kubernetes_binary(release, "kubelet.exe"),
            Asset::Kubeadm => kubernetes_binary(release, "kubeadm.exe"),
            Asset::KubeLogRunner => kubernetes_binary(release, "kube-log-runner.exe"),
            Asset::Containerd => {
                let file = format!("containerd-{release}-windows-amd64.tar.gz");
                let url =
                    format!("{GITHUB}/containerd/containerd/releases/download/v{release}/{file}");
                Download::new(url, file, Some(("sha256sum", Digest::Sha256)))
            }
            Asset::Crictl => {
                let file = format!("crictl-{release}-windows-amd64.tar.gz");
                github(
                    "kubernetes-sigs/cri-tools",
                    release,
                    file,
                    Some(Digest::Sha256),
                )
            }
            Asset::Rke2InstallSh => Download::new(RKE2_INSTALL_SH.into(), "install.sh", None),
            Asset::Rke2InstallPs1 => Download::new(RKE2_INSTALL_PS1.into(), "install.ps1", None),
        }
    }

    /// Whether the table knows what `release` published: a row of this project's list, or a
    /// release of hybridgen's own tables (Kubernetes minors with their newest patch, containerd
    /// lines with theirs, flannel releases, the cri-tools release of a Kubernetes row).
    pub fn lists(self, release: &str) -> bool {
        match self {
            Asset::CniPluginsWindows => CNI_PLUGINS_RELEASES.contains(&release),
            Asset::FlannelCniPluginWindows => named(FLANNEL_CNI_PLUGIN_ARCHIVES, release).is_some(),
            Asset::WindowsCni => named(WINDOWS_CNI_ARCHIVES, release).is_some(),
            Asset::Flanneld => {
                flannel_release::resolve(release).is_some_and(|resolved| resolved.known)
            }
            Asset::KubeProxy | Asset::Kubelet | Asset::Kubeadm | Asset::KubeLogRunner => {
                kubernetes_release_listed(release)
            }
            Asset::Containerd => containerd_release_listed(release),
            Asset::Crictl => crictl_release_listed(release),
            Asset::Rke2InstallSh | Asset::Rke2InstallPs1 => release.is_empty(),
        }
    }
}

/// RKE2's installers: one URL each, for every release (`INSTALL_RKE2_VERSION` / `-Version`).
const RKE2_INSTALL_SH: &str = "https://get.rke2.io";
const RKE2_INSTALL_PS1: &str = "https://raw.githubusercontent.com/rancher/rke2/master/install.ps1";

/// The version in the asset name of a release the table lists.
fn named(table: &[(&str, &'static str)], release: &str) -> Option<&'static str> {
    table
        .iter()
        .find(|(tag, _)| *tag == release)
        .map(|(_, name)| *name)
}

/// A GitHub release asset and its checksum file (`<asset>.sha256` / `.sha512`).
impl Download {
    /// `file` at `url`, with the checksum file published at `url` plus `.<suffix>`, if any.
    fn new(url: String, file: impl Into<String>, checksum: Option<(&str, Digest)>) -> Self {
        Download {
            checksum_url: checksum.map(|(suffix, _)| format!("{url}.{suffix}")),
            digest: checksum.map(|(_, digest)| digest),
            url,
            file: file.into(),
        }
    }
}

fn github(repository: &str, tag: &str, file: String, digest: Option<Digest>) -> Download {
    let url = format!("{GITHUB}/{repository}/releases/download/{tag}/{file}");
    Download::new(
        url,
        file,
        digest.map(|digest| (digest_suffix(digest), digest)),
    )
}

fn digest_suffix(digest: Digest) -> &'static str {
    match digest {
        Digest::Sha256 => "sha256",
        Digest::Sha512 => "sha512",
    }
}

/// A Kubernetes Windows binary on dl.k8s.io, with its `.sha256` (the digest alone).
fn kubernetes_binary(tag: &str, binary: &str) -> Download {
    let url = format!("https://dl.k8s.io/{tag}/bin/windows/amd64/{binary}");
    Download::new(url, binary, Some(("sha256", Digest::Sha256)))
}

/// A `v`-tagged Kubernetes release of a minor the table knows, no newer than its newest patch.
fn kubernetes_release_listed(tag: &str) -> bool {
    tag.starts_with('v')
        && Release::parse(tag).is_some_and(|release| {
            kubernetes::resolve(&release).known == kubernetes::Known::Yes
                && kubernetes::newest_patch(release.minor)
                    .is_none_or(|newest| release.patch <= newest)
        })
}

/// A containerd release (bare, as its archive names it) of a line the table knows, no newer
/// than the line's newest patch.
fn containerd_release_listed(version: &str) -> bool {
    let Some(release) = Release::parse(version).filter(|_| !version.starts_with('v')) else {
        return false;
    };
    let resolved = containerd::resolve(&release);
    resolved.known && release <= resolved.row.newest
}

/// The cri-tools release some Kubernetes minor's row names.
fn crictl_release_listed(tag: &str) -> bool {
    kubernetes::RELEASES
        .iter()
        .any(|row| row.crictl == Some(tag))
}

/// Whether `url` is a download or a checksum file of some release in the table.
pub fn is_listed(url: &str) -> bool {
    ASSETS.iter().any(|asset| {
        candidate_releases(*asset, url).any(|release| {
            let download = asset.download(&release);
            asset.lists(&release)
                && (download.url == url || download.checksum_url.as_deref() == Some(url))
        })
    })
}

/// The releases `url` could belong to: each path segment, and a `v`-less containerd version.
fn candidate_releases(asset: Asset, url: &str) -> impl Iterator<Item = String> + '_ {
    let bare = (url.split('/'))
        .filter_map(|segment| segment.strip_prefix('v'))
        .filter(move |_| asset == Asset::Containerd);
    url.split('/').chain(bare).chain([""]).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cni_zip_is_named_without_the_v_its_release_dropped() {
        let download = Asset::WindowsCni.download("v0.3.1");
        assert_eq!(
            download.url,
            "https://github.com/microsoft/windows-container-networking/releases/download/v0.3.1/windows-container-networking-cni-amd64-0.3.1.zip"
        );
        assert_eq!(
            download.checksum_url.as_deref(),
            Some(
                "https://github.com/microsoft/windows-container-networking/releases/download/v0.3.1/windows-container-networking-cni-amd64-0.3.1.zip.sha512"
            )
        );
    }

    #[test]
    fn flannel_cni_plugin_archives_from_v1_8_0_flannel2_carry_six_characters_of_the_tag() {
        let url = |tag| Asset::FlannelCniPluginWindows.download(tag).url;
        assert_eq!(
            url("v1.9.1-flannel3"),
            "https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel3/cni-plugin-flannel-windows-amd64-v1.9.1.tgz"
        );
        assert!(url("v1.8.0-flannel1").ends_with("-v1.8.0-flannel1.tgz"));
        assert!(url("v1.5.1-flannel2").ends_with("-v1.5.1-flannel2.tgz"));
    }

    #[test]
    fn every_windows_cni_plugin_a_flannel_release_names_is_in_the_table() {
        for row in flannel_release::RELEASES {
            let plugin = row.windows_cni_plugin();
            assert!(Asset::FlannelCniPluginWindows.lists(plugin), "{plugin}");
        }
    }

    #[test]
    fn every_asset_cites_the_upstream_file_that_names_it() {
        for asset in ASSETS {
            let source = asset.source();
            assert!(source.contains('/') || source.contains('"'), "{asset:?}");
        }
    }

    #[test]
    fn the_pinned_releases_are_in_the_table() {
        assert!(Asset::CniPluginsWindows.lists(pins::CNI_PLUGINS));
        assert!(Asset::WindowsCni.lists(pins::WINDOWS_CNI));
    }

    #[test]
    fn a_release_the_table_lacks_is_not_listed() {
        assert!(!Asset::WindowsCni.lists("v0.3.3"));
        assert!(!Asset::FlannelCniPluginWindows.lists("v1.9.2-flannel1"));
        assert!(!Asset::Containerd.lists("1.7.99"));
        assert!(!Asset::Kubelet.lists("v1.99.0"));
        assert!(!Asset::Kubelet.lists("v1.33.99"));
        assert!(Asset::Containerd.lists("1.7.34"));
    }

    #[test]
    fn listed_urls_are_recognised_and_others_are_not() {
        assert!(is_listed(
            "https://github.com/containerd/containerd/releases/download/v2.3.4/containerd-2.3.4-windows-amd64.tar.gz.sha256sum"
        ));
        assert!(is_listed(
            "https://dl.k8s.io/v1.33.4/bin/windows/amd64/kube-proxy.exe.sha256"
        ));
        assert!(!is_listed(
            "https://github.com/microsoft/windows-container-networking/releases/download/v0.3.1/windows-container-networking-cni-amd64-v0.3.1.zip"
        ));
        assert!(!is_listed(
            "https://github.com/flannel-io/cni-plugin/releases/download/v1.9.1-flannel3/cni-plugin-flannel-windows-amd64-v1.9.1-flannel3.tgz"
        ));
    }
}

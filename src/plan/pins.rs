//! Every version and download hybridgen pins for Windows nodes on the HostProcess path (Kubernetes
//! 1.24 and later), in one place, each with the public source it was confirmed in. What follows a
//! release is not pinned here: flanneld.exe and the flannel CNI plugin follow `flannel.version`
//! ([`super::flannel_release`]); kubelet, kubeadm, kube-proxy, crictl and the default containerd
//! follow `kubernetes.version` ([`super::releases`]).

/// The base image of both HostProcess images (microsoft/windows-host-process-containers-base-image
/// README, "Usage"; kubernetes/website "Windows containers in Kubernetes" HostProcess section).
pub const HOST_PROCESS_BASE_IMAGE: &str =
    "mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0";

/// The Linux stage that downloads and checks the binaries (its busybox has `wget`, `sha256sum`,
/// `sha512sum`, `tar` and `unzip`): Alpine's 3.21 release (alpinelinux.org/releases).
pub const DOWNLOAD_IMAGE: &str = "alpine:3.21";

/// containernetworking/plugins: `host-local.exe`, which reserves kube-proxy's source VIP in the
/// pods' IPAM store. The release workflow publishes `cni-plugins-windows-amd64-<v>.tgz` with
/// `.sha256` and `.sha512` (containernetworking/plugins `.github/workflows/release.yaml`, v1.9.1).
pub const CNI_PLUGINS: &str = "v1.9.1";

/// flannel-io/cni-plugin: the first release whose Windows archive (named in
/// [`super::downloads`], with `.sha256`) holds `flannel-amd64.exe` alone
/// (flannel-io/cni-plugin `scripts/package.sh` from v1.2.0; before, it held every architecture's
/// build). A flannel release whose own CNI plugin is older gets this one on Windows.
pub const FIRST_WINDOWS_FLANNEL_CNI_ARCHIVE: &str = "v1.2.0";

/// microsoft/windows-container-networking: `sdnoverlay.exe` (vxlan) and `sdnbridge.exe`
/// (host-gw), published as `windows-container-networking-cni-amd64-0.3.1.zip` with `.sha512` —
/// the release workflow of v0.3.1 dropped the tag's `v` (see [`super::downloads`]).
pub const WINDOWS_CNI: &str = "v0.3.1";

/// The CNI versions the bundled `sdnoverlay`/`sdnbridge` accept (microsoft/windows-container-networking
/// `cni/cni.go` `VersionsSupported`, v0.3.1). `flannel` and `host-local` accept all.
pub const WINDOWS_CNI_VERSIONS: [&str; 4] = ["0.2.0", "0.3.0", "0.4.0", "1.0.0"];

/// The `cniVersion` of the Windows CNI configuration: one every bundled plugin accepts, and the
/// one sig-windows-tools' HostProcess flannel shipped with windows-container-networking v0.3.0
/// (sig-windows-tools c3cac35; #266 shows what a mismatch does).
pub const WINDOWS_CNI_CONFIG_VERSION: &str = "0.3.0";

/// The kubeadm CRI socket of containerd on Windows (kubernetes `cmd/kubeadm/app/constants`,
/// `constants_windows.go`; sig-windows-tools `guides/guide-for-adding-windows-node.md`).
pub const CONTAINERD_CRI_SOCKET: &str = "npipe:////./pipe/containerd-containerd";

/// The API server port when `windows.controlPlane.port` is absent (kubeadm's default bind port).
pub const API_SERVER_PORT: u16 = 6443;

/// The first kube-log-runner that rotates its file (`-log-file-size`, `-log-file-age`: kubernetes
/// PR #127667, v1.34.0). It only runs the kubelet and copies its output, so a node of an earlier
/// Kubernetes gets this one, and the kubelet's log stays bounded on every release.
pub const ROTATING_KUBE_LOG_RUNNER: &str = "v1.34.0";

/// The kubelet log: rotated at 100 MB (a `resource.Quantity`), rotated files removed after a week
/// (a Go duration): kube-log-runner's `-log-file-size` and `-log-file-age`.
pub const KUBELET_LOG_SIZE: &str = "100M";
pub const KUBELET_LOG_AGE: &str = "168h";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cni_config_version_is_one_every_bundled_plugin_accepts() {
        assert!(WINDOWS_CNI_VERSIONS.contains(&WINDOWS_CNI_CONFIG_VERSION));
    }
}

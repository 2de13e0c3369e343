//! The releases hybridgen knows, one table per kind, modelled on the flannel release table
//! ([`super::flannel_release`]): [`kubernetes`] (one row per minor, 1.14 to 1.37, and what is
//! assumed past the newest), [`containerd`] (one row per line, 1.6 to 2.3), [`windows`] (one
//! row per Windows build) and [`rke2`] (one row per range of RKE2 releases bundling one flannel
//! chart and Windows flanneld). [`kubeadm`] holds kubeadm's own columns of the Kubernetes rows.
//!
//! Defaults, rules and templates read these rows — the containerd a node gets, the kubelet flags,
//! kube-proxy's feature gates, the kubeadm API, the containerd configuration format, the
//! kube-log-runner flags, the Windows builds each minor lists — so adding a release is adding a
//! row, and no version comparison is written anywhere else.

pub mod advisories;
pub mod containerd;
pub mod kubeadm;
pub mod kubernetes;
pub mod rke2;
pub mod skew;
pub mod windows;

/// How HostProcess containers see their image and volumes (kubernetes/enhancements KEP-1981
/// "Container mounts"; microsoft/hcsshim `internal/jobcontainers`): symlinks under
/// `$env:CONTAINER_SANDBOX_MOUNT_POINT`, or bind mounts at the real paths. Bind mounts need
/// containerd 1.7 and a Windows build with the bind filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MountLayout {
    Symlink,
    Bind,
}

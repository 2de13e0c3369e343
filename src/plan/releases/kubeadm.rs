//! kubeadm's columns of the Kubernetes release table: what a `kubeadm` of each minor reads. Kept
//! apart from the columns every distribution shares, so that kubeadm's rendering can take them
//! with it.

/// What kubeadm of one Kubernetes minor reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kubeadm {
    /// The config API `kubeadm init` and `kubeadm join` are given.
    pub api: KubeadmApi,
}

/// kubeadm's configuration API versions: v1beta1 from 1.13, v1beta2 from 1.15, v1beta3 from 1.22
/// (v1beta1 removed then, kubernetes/kubernetes PR #101129), v1beta4 from 1.31 (kubernetes PR
/// #125029; v1beta2 was removed in 1.27, PR #114540).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum KubeadmApi {
    V1beta1,
    V1beta2,
    V1beta3,
    V1beta4,
}

impl KubeadmApi {
    pub fn as_str(self) -> &'static str {
        match self {
            KubeadmApi::V1beta1 => "kubeadm.k8s.io/v1beta1",
            KubeadmApi::V1beta2 => "kubeadm.k8s.io/v1beta2",
            KubeadmApi::V1beta3 => "kubeadm.k8s.io/v1beta3",
            KubeadmApi::V1beta4 => "kubeadm.k8s.io/v1beta4",
        }
    }

    /// Whether `extraArgs` (and `kubeletExtraArgs`) are a list of `{name, value}` rather than a
    /// map: from v1beta4 (kubernetes PR #125029 release note).
    pub fn extra_args_list(self) -> bool {
        self >= KubeadmApi::V1beta4
    }
}
